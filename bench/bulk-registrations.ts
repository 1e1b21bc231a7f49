/**
 * Registrations written fast for the benchmarks: rows inserted in as few statements as the
 * database's parameter limit allows, then the event's kept figures summed in SQL as the service
 * defines them and its tallies recounted by the storage itself, so every answer the server gives
 * on them is the one it would give had each been registered through the API.
 */
import type { createSqlStorage } from "@event-service/core";
import type { openDatabase } from "@event-service/server";
import { sql } from "kysely";
// Internal to the core: real rows, and the service's own SQL twin of the kept figures.
import type { AttendeeRecord } from "../packages/core/src/resources/attendee.ts";
import { contributionSql } from "../packages/core/src/sql/carbon-sql.ts";
import { attendeeToRow } from "../packages/core/src/sql/rows.ts";

/** SQLite binds at most 32,766 parameters a statement, PostgreSQL 65,535. */
export function parameterLimit(postgres: boolean): number {
  return postgres ? 65_535 : 32_766;
}

/**
 * Inserts `count` registrations of `eventId` (the `n`th is `record(n)`), in one transaction with
 * the event's kept figures, then lets `storage` recount the tallies (its start-up recount).
 */
export async function insertRegistrations(
  db: Awaited<ReturnType<typeof openDatabase>>,
  storage: ReturnType<typeof createSqlStorage>,
  options: { eventId: string; count: number; parameters: number; record: (n: number) => AttendeeRecord },
): Promise<void> {
  const { eventId, count, record } = options;
  await db.transaction().execute(async (trx) => {
    // As many rows a statement as its parameters allow: a registration's row gains columns with the service.
    const batch = Math.floor(options.parameters / Object.keys(attendeeToRow(record(0))).length);
    for (let from = 0; from < count; from += batch) {
      const rows = [];
      for (let n = from; n < Math.min(count, from + batch); n++) rows.push(attendeeToRow(record(n)));
      await trx.insertInto("attendees").values(rows).execute();
    }
    // The event's kept figures, summed from its rows with the service's own SQL twin of
    // `contributionOf`, as its migration's backfill and its factor-set recount do.
    const contribution = contributionSql();
    const sums = await trx
      .selectFrom("attendees")
      .where("event_id", "=", eventId)
      .select(Object.entries(contribution).map(([column, adds]) => sql`coalesce(sum(${adds}), 0)`.as(column)))
      .executeTakeFirstOrThrow();
    await trx
      .updateTable("events")
      .set(Object.fromEntries(Object.entries(sums).map(([column, value]) => [column, Number(value)])))
      .where("id", "=", eventId)
      .execute();
  });
  // The event's tallies (statuses, tickets, companies, diets, needs, travel by band), counted
  // from its rows by the storage's own recount, as it does when it starts on rows it has not
  // counted.
  await db.updateTable("kept_tallies").set({ definition: 0 }).execute();
  await storage.migrate();
}
