import type { Kysely } from "kysely";
import type { EmissionFactorSet } from "../carbon/emission-factors.ts";
import type { AttendeeRecord } from "../resources/attendee.ts";
import { contributionChange, type KeptFigures } from "../resources/kept-figures.ts";
import type { Database } from "./database.ts";
import { type Param, precompile } from "./precompiled.ts";
import { KEPT_FIGURE_COLUMNS, rowToKeptFigures } from "./rows.ts";

/** An event's kept figures in a write transaction: read, and moved by a registration's change. */
export interface KeptFiguresSql {
  /** The event's kept figures as of this point of the transaction: one row. */
  read(conn: Kysely<Database>, eventId: string): Promise<KeptFigures>;
  /**
   * Moves an event's kept figures from what registration `before` contributed to what `after`
   * does (either may be `null`: none). Runs in the write transaction of the change, under the
   * event's lock, so the figures stay exact with several processes; an increment, so a
   * registration costs the same in an event of ten or of fifty thousand.
   */
  adjust(conn: Kysely<Database>, eventId: string, before: AttendeeRecord | null, after: AttendeeRecord | null): Promise<void>;
}

type KeptFigureColumn = (typeof KEPT_FIGURE_COLUMNS)[number];

/** The kept figures' statements on `db`, compiled once (every registration runs them). */
export function createKeptFiguresSql(db: Kysely<Database>, factors: EmissionFactorSet): KeptFiguresSql {
  const readQuery = precompile(db, (conn, param: Param<{ id: string }>) => conn.selectFrom("events").select(KEPT_FIGURE_COLUMNS).where("id", "=", param("id")));
  // One statement per set of columns that change, compiled when first needed: an UPDATE rewrites
  // the index entries of every column it sets, even to the same value (emissions_kg is indexed).
  const adjustQueries = new Map<string, ReturnType<typeof compileAdjust>>();
  const compileAdjust = (columns: readonly KeptFigureColumn[]) =>
    precompile(db, (conn, param: Param<Record<KeptFigureColumn, number> & { id: string }>) =>
      conn
        .updateTable("events")
        .set((eb) => Object.fromEntries(columns.map((column) => [column, eb(column, "+", param(column))])))
        .where("id", "=", param("id")),
    );
  return {
    async read(conn, eventId) {
      const row = (await readQuery({ id: eventId }, conn)).rows[0];
      if (!row) throw new Error(`Event ${eventId} has no row to read its kept figures from.`);
      return rowToKeptFigures(row);
    },

    async adjust(conn, eventId, before, after) {
      const change = contributionChange(before, after, factors);
      const delta = {
        active_count: change.activeRegistrations,
        emissions_kg: change.emissionsKg,
        offset_usd: change.offsetUsd,
        travel_reported: change.travelReported,
        low_carbon: change.lowCarbonTravel,
        waitlist_count: change.waitlisted,
      } satisfies Record<KeptFigureColumn, number>;
      const changed = KEPT_FIGURE_COLUMNS.filter((column) => delta[column] !== 0);
      if (changed.length === 0) return;
      const key = changed.join();
      let query = adjustQueries.get(key);
      if (!query) adjustQueries.set(key, (query = compileAdjust(changed)));
      await query({ ...delta, id: eventId }, conn);
    },
  };
}
