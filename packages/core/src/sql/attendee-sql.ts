import { type Kysely, sql } from "kysely";
import type { AttendeeRecord } from "../resources/attendee.ts";
import type { AttendeeStore } from "../storage/attendee-store.ts";
import type { Database } from "./database.ts";
import { rowToAttendee } from "./rows.ts";
import type { SqlContext } from "./sql-context.ts";
import { likePattern, readPage } from "./sql-context.ts";

/** The account's registration `id`, read on `conn` (the instance, or a transaction of it), or `null`. */
export async function readAttendee(
  conn: Kysely<Database>,
  accountId: string,
  id: string,
): Promise<AttendeeRecord | null> {
  const row = await conn
    .selectFrom("attendees")
    .selectAll()
    .where("id", "=", id)
    .where("account_id", "=", accountId)
    .executeTakeFirst();
  return row ? rowToAttendee(row) : null;
}

/** Reads of registrations (`AttendeeStore`) on SQL; their writes are `transaction-sql.ts`'s. */
export function createAttendeeStore(ctx: SqlContext): AttendeeStore {
  const { db, dialect } = ctx;

  const ATTENDEE_SORT_COLUMNS = {
    registrationDate: sql.ref("registration_date"),
    firstName: dialect.asciiCaseFold(sql.ref("first_name")),
    lastName: dialect.asciiCaseFold(sql.ref("last_name")),
    company: dialect.asciiCaseFold(sql.ref("company")),
  } as const;

  return {
    getAttendee(accountId, id) {
      return readAttendee(db, accountId, id);
    },

    async findAttendeeById(id) {
      const row = await db.selectFrom("attendees").selectAll().where("id", "=", id).executeTakeFirst();
      return row ? rowToAttendee(row) : null;
    },

    async eventAttendeesAfter(accountId, eventId, cursor, limit) {
      let query = db
        .selectFrom("attendees")
        .selectAll()
        .where("event_id", "=", eventId)
        .where("account_id", "=", accountId);
      if (cursor)
        query = query.where((eb) =>
          eb(eb.refTuple("registration_date", "id"), ">", eb.tuple(cursor.registrationDate, cursor.id)),
        );
      const rows = await query.orderBy("registration_date").orderBy("id").limit(limit).execute();
      return rows.map(rowToAttendee);
    },

    async listAttendees(accountId, query) {
      let base = db.selectFrom("attendees").where("account_id", "=", accountId);
      if (query.eventId) base = base.where("event_id", "=", query.eventId);
      if (query.status) base = base.where("status", "=", query.status);
      if (query.ticketType) base = base.where("ticket_type", "=", query.ticketType);
      if (query.carbonOffset !== undefined) base = base.where("offset_opted", "=", query.carbonOffset ? 1 : 0);
      if (query.search) {
        base = base.where(sql`search_key`, "like", likePattern(query.search));
      }
      const direction = query.order;
      const page = await readPage(base, query, (q) =>
        q
          .selectAll()
          .$if(query.sortBy === "company", (q) => q.orderBy(sql`case when company is null then 1 else 0 end`))
          .orderBy(ATTENDEE_SORT_COLUMNS[query.sortBy], direction)
          .orderBy("id", direction),
      );
      return { items: page.items.map(rowToAttendee), total: page.total };
    },
  };
}
