/**
 * Attendees' ticket links on SQL: the reads and guarded adds outside a transaction
 * (`TicketLinkStore`) and the operations of a write transaction (`tx.ticketLinks`). Queries only.
 */
import type { Kysely } from "kysely";
import { type Param, type Precompiled, params, precompile } from "./precompiled.ts";
import type { TicketLinkRecord } from "../resources/ticket-link.ts";
import type { TicketLinkStore, TicketLinkWrites } from "../storage/ticket-link-store.ts";
import type { Database, TicketLinksTable } from "./database.ts";
import { rowToAttendee } from "./rows.ts";
import type { SqlContext } from "./sql-context.ts";

const TICKET_LINK_COLUMNS = ["id", "account_id", "attendee_id", "link_hash", "created_at"] as const;
/** Links one multi-row insert writes. */
const LINK_BATCH = 100;

function ticketLinkToRow(link: TicketLinkRecord): TicketLinksTable {
  return {
    id: link.id,
    account_id: link.accountId,
    attendee_id: link.attendeeId,
    link_hash: link.linkHash,
    created_at: link.createdAt,
  };
}

/** Deletes the live links of the registration `attendeeId` on `trx` (the registration goes, or a new link replaces them). */
export async function deleteTicketLinks(trx: Kysely<Database>, attendeeId: string): Promise<void> {
  await trx.deleteFrom("ticket_links").where("attendee_id", "=", attendeeId).execute();
}

/** The ticket links' reads and adds outside a transaction. */
export function createTicketLinkStore(ctx: SqlContext): TicketLinkStore {
  const { db, dialect } = ctx;
  return {
    addTicketLink(link) {
      return ctx.write(async (trx) => {
        // Held (FOR SHARE on PostgreSQL) until the insert commits: an erasure waits, or went first and the row is gone.
        const held = await dialect
          .shareRows(
            trx
              .selectFrom("attendees")
              .select("id")
              .where("id", "=", link.attendeeId)
              .where("account_id", "=", link.accountId),
          )
          .executeTakeFirst();
        if (!held) return false;
        await trx.insertInto("ticket_links").values(ticketLinkToRow(link)).execute();
        return true;
      });
    },
    async findTicketLink(linkHash) {
      const row = await db
        .selectFrom("ticket_links as l")
        .innerJoin("attendees as a", "a.id", "l.attendee_id")
        .selectAll("a")
        .where("l.link_hash", "=", linkHash)
        .executeTakeFirst();
      return row ? rowToAttendee(row) : null;
    },
  };
}

/**
 * The ticket links' operations in a write transaction, given its `trx`: the insert compiled once
 * for `db`, since every registration writes its first link.
 */
export function createTicketLinkWrites(db: Kysely<Database>): (trx: Kysely<Database>) => TicketLinkWrites {
  const insertQuery = precompile(db, (conn, param: Param<TicketLinksTable>) =>
    conn.insertInto("ticket_links").values(params(param, TICKET_LINK_COLUMNS)),
  );
  // The insert of many, compiled once for each number of links.
  const manyQueries = new Map<number, Precompiled<Record<string, string>, unknown>>();
  return (trx) => ({
    async add(link) {
      await insertQuery(ticketLinkToRow(link), trx);
    },
    async addMany(links) {
      if (links.length === 1) {
        await insertQuery(ticketLinkToRow(links[0]!), trx);
        return;
      }
      for (let start = 0; start < links.length; start += LINK_BATCH) {
        const rows = links.slice(start, start + LINK_BATCH).map(ticketLinkToRow);
        let query = manyQueries.get(rows.length);
        if (!query)
          manyQueries.set(
            rows.length,
            (query = precompile(db, (conn, param: Param<Record<string, string>>) =>
              conn
                .insertInto("ticket_links")
                .values(
                  rows.map((_, i) =>
                    Object.fromEntries(TICKET_LINK_COLUMNS.map((c) => [c, param(`${c}_${i}`)])),
                  ) as never,
                ),
            )),
          );
        const values: Record<string, string> = {};
        for (const [i, row] of rows.entries())
          for (const column of TICKET_LINK_COLUMNS) values[`${column}_${i}`] = row[column];
        await query(values, trx);
      }
    },
    async replace(link) {
      await deleteTicketLinks(trx, link.attendeeId);
      await insertQuery(ticketLinkToRow(link), trx);
    },
    async attendeeOf(linkHash) {
      const row = await trx
        .selectFrom("ticket_links")
        .select("attendee_id")
        .where("link_hash", "=", linkHash)
        .executeTakeFirst();
      return row?.attendee_id ?? null;
    },
  });
}
