/**
 * Events' check-in links on SQL, and the reads a door makes of its event's registrations
 * (`CheckInLinkStore`). Queries only.
 */
import { sql } from "kysely";
import type { CheckInLinkRecord } from "../resources/check-in-link.ts";
import { ADMITTED_ATTENDEE_STATUSES } from "../rules/attendee-status.ts";
import type { CheckInLinkStore, DoorListEntry } from "../storage/check-in-link-store.ts";
import type { CheckInLinksTable } from "./database.ts";
import { nameSearchPattern, rowToAttendee } from "./rows.ts";
import type { SqlContext } from "./sql-context.ts";
import type { AttendeeStatus } from "../resources/attendee.ts";

function checkInLinkToRow(link: CheckInLinkRecord): CheckInLinksTable {
  return {
    id: link.id,
    account_id: link.accountId,
    event_id: link.eventId,
    link_hash: link.linkHash,
    label: link.label,
    expires_at: link.expiresAt,
    created_at: link.createdAt,
  };
}

function rowToCheckInLink(row: CheckInLinksTable): CheckInLinkRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    eventId: row.event_id,
    linkHash: row.link_hash,
    label: row.label,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
  };
}

/** The columns of a door's view of a registration. */
const DOOR_COLUMNS = [
  "id",
  "first_name",
  "last_name",
  "ticket_type",
  "status",
  "confirmation_code",
  "checked_in_at",
  "payment_status",
  "payment_admitted_at",
] as const;

function rowToDoorEntry(row: {
  id: string;
  first_name: string;
  last_name: string;
  ticket_type: string;
  status: string;
  confirmation_code: string;
  checked_in_at: string | null;
  payment_status: string | null;
  payment_admitted_at: string | null;
}): DoorListEntry {
  return {
    id: row.id,
    firstName: row.first_name,
    lastName: row.last_name,
    ticketType: row.ticket_type,
    status: row.status as AttendeeStatus,
    confirmationCode: row.confirmation_code,
    checkedInAt: row.checked_in_at,
    // A free registration has no payment (no payment status), as rowToAttendee reads it.
    payment: row.payment_status === null ? null : { admittedAt: row.payment_admitted_at },
  };
}

/** The check-in links' store and the door's reads. */
export function createCheckInLinkStore(ctx: SqlContext): CheckInLinkStore {
  const { db, dialect } = ctx;
  return {
    addCheckInLink(link) {
      return ctx.write(async (trx) => {
        // Held (FOR SHARE on PostgreSQL) until the insert commits: a deletion waits, or went first and the row is gone.
        const held = await dialect
          .shareRows(
            trx
              .selectFrom("events")
              .select("id")
              .where("id", "=", link.eventId)
              .where("account_id", "=", link.accountId),
          )
          .executeTakeFirst();
        if (!held) return false;
        await trx.insertInto("check_in_links").values(checkInLinkToRow(link)).execute();
        return true;
      });
    },
    async listCheckInLinks(accountId, eventId, { page, limit }) {
      const event = await db
        .selectFrom("events")
        .select("id")
        .where("id", "=", eventId)
        .where("account_id", "=", accountId)
        .executeTakeFirst();
      if (!event) return null;
      const base = db.selectFrom("check_in_links").where("event_id", "=", eventId).where("account_id", "=", accountId);
      const [rows, count] = await Promise.all([
        base
          .selectAll()
          .orderBy("created_at")
          .orderBy("id")
          .limit(limit)
          .offset((page - 1) * limit)
          .execute(),
        base.select((eb) => eb.fn.countAll<number | string>().as("total")).executeTakeFirstOrThrow(),
      ]);
      return { items: rows.map(rowToCheckInLink), total: Number(count.total) };
    },
    async revokeCheckInLink(accountId, eventId, linkId) {
      const result = await ctx.write((trx) =>
        trx
          .deleteFrom("check_in_links")
          .where("id", "=", linkId)
          .where("event_id", "=", eventId)
          .where("account_id", "=", accountId)
          .executeTakeFirst(),
      );
      return Number(result.numDeletedRows) > 0;
    },
    async findCheckInLink(linkHash, now) {
      const row = await db
        .selectFrom("check_in_links")
        .selectAll()
        .where("link_hash", "=", linkHash)
        .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", now)]))
        .executeTakeFirst();
      return row ? rowToCheckInLink(row) : null;
    },
    async doorCounts(eventId) {
      const admitted = ADMITTED_ATTENDEE_STATUSES.map((status) => sql.lit(status));
      const row = await db
        .selectFrom("attendees")
        .select([
          sql<number | string | null>`sum(case when status = ${sql.lit("checked-in")} then 1 else 0 end)`.as(
            "checked_in",
          ),
          sql<number | string | null>`sum(case when status in (${sql.join(admitted)}) then 1 else 0 end)`.as(
            "expected",
          ),
        ])
        .where("event_id", "=", eventId)
        .executeTakeFirstOrThrow();
      return { checkedIn: Number(row.checked_in ?? 0), expected: Number(row.expected ?? 0) };
    },
    async searchDoorAttendees(eventId, search, limit) {
      const rows = await db
        .selectFrom("attendees")
        .select(DOOR_COLUMNS)
        .where("event_id", "=", eventId)
        .where(sql`search_key`, "like", sql`${nameSearchPattern(search)} escape '\\'`)
        .orderBy("last_name")
        .orderBy("first_name")
        .orderBy("id")
        .limit(limit)
        .execute();
      return rows.map(rowToDoorEntry);
    },
    async doorList(eventId) {
      const rows = await db
        .selectFrom("attendees")
        .select(DOOR_COLUMNS)
        .where("event_id", "=", eventId)
        .orderBy("id")
        .execute();
      return rows.map(rowToDoorEntry);
    },
    async findAttendeeByCode(accountId, confirmationCode) {
      const row = await db
        .selectFrom("attendees")
        .selectAll()
        .where("confirmation_code", "=", confirmationCode)
        .where("account_id", "=", accountId)
        .executeTakeFirst();
      return row ? rowToAttendee(row) : null;
    },
  };
}
