import type { Kysely } from "kysely";
import type { EmissionFactorSet } from "../carbon/emission-factors.ts";
import type { AttendeeRecord } from "../resources/attendee.ts";
import { contributionChange, type KeptFigures } from "../resources/kept-figures.ts";
import type { Database } from "./database.ts";
import { KEPT_FIGURE_COLUMNS, rowToKeptFigures } from "./rows.ts";

/** The event's kept figures as of this point of the transaction: one row. */
export async function readKeptFigures(conn: Kysely<Database>, eventId: string): Promise<KeptFigures> {
  const row = await conn.selectFrom("events").select(KEPT_FIGURE_COLUMNS).where("id", "=", eventId).executeTakeFirstOrThrow();
  return rowToKeptFigures(row);
}

/**
 * Moves an event's kept figures from what registration `before` contributed to what `after`
 * does (either may be `null`: none). Runs in the write transaction of the change, under the
 * event's lock, so the figures stay exact with several processes; an increment, so a
 * registration costs the same in an event of ten or of fifty thousand.
 */
export async function adjustKeptFigures(conn: Kysely<Database>, factors: EmissionFactorSet, eventId: string, before: AttendeeRecord | null, after: AttendeeRecord | null) {
  const change = contributionChange(before, after, factors);
  const delta = {
    active_count: change.activeRegistrations,
    emissions_kg: change.emissionsKg,
    offset_usd: change.offsetUsd,
    travel_reported: change.travelReported,
    low_carbon: change.lowCarbonTravel,
    waitlist_count: change.waitlisted,
  };
  if (Object.values(delta).every((value) => value === 0)) return;
  await conn
    .updateTable("events")
    .set((eb) => Object.fromEntries(Object.entries(delta).map(([column, by]) => [column, eb(column as keyof typeof delta, "+", by)])))
    .where("id", "=", eventId)
    .execute();
}
