/**
 * Pricing events again with another factor set (`carbon/factor-sets.ts`): in an event's
 * transaction when its start moves to a year of another set, and at start for every event whose
 * set changed. The figures come from the one definition of each (the SQL twins of
 * `contributionOf` and `travelTallyOf`, `priceActivity` for activity records); this module only
 * writes them and records which set priced them.
 */
import { type Kysely, sql } from "kysely";
import { type EmissionFactorSet, factorSetIdentity } from "../carbon/emission-factors.ts";
import type { FactorSets } from "../carbon/factor-sets.ts";
import { priceActivity } from "../resources/priced-activity.ts";
import { repriceActivities } from "./activity-sql.ts";
import { ACTIVITY_FIGURE_COLUMNS, activityFiguresSql, contributionSql } from "./carbon-sql.ts";
import type { Database } from "./database.ts";
import type { SqlDialect } from "./dialect.ts";
import { recountTravelTallies } from "./tally-sql.ts";

/** Events priced per statement: an `in` list of ids stays well below any driver's parameter limit. */
const REPRICE_BATCH = 500;

/**
 * Prices the events `ids` again with `set`, in the caller's write transaction: their kept
 * emissions summed again from their registrations, their travel tallies recounted, their activity
 * records priced again and their activity figures summed again; and records `set.year` as the
 * set that priced them. Each batch of events is locked first (in id order, so two processes
 * starting at once take them alike): a registration another process is writing commits before
 * the sums read its event's rows, and the next one waits for these.
 */
export async function repriceEvents(
  trx: Kysely<Database>,
  dialect: SqlDialect,
  ids: readonly string[],
  set: EmissionFactorSet,
): Promise<void> {
  const emissions = contributionSql(set).emissions_kg;
  const sums = activityFiguresSql();
  const sorted = [...ids].sort();
  for (let start = 0; start < sorted.length; start += REPRICE_BATCH) {
    const batch = sorted.slice(start, start + REPRICE_BATCH);
    await dialect.lockRows(trx.selectFrom("events").select("id").where("id", "in", batch).orderBy("id")).execute();
    await repriceActivities(trx, (activity) => priceActivity(set, activity), batch);
    await trx
      .updateTable("events")
      .set((eb) => ({
        emissions_kg: eb
          .selectFrom("attendees as a")
          .whereRef("a.event_id", "=", "events.id")
          .select(sql<number>`coalesce(sum(${emissions}), 0)`.as("n")),
        ...Object.fromEntries(
          Object.entries(ACTIVITY_FIGURE_COLUMNS).map(([figure, column]) => [
            column,
            eb
              .selectFrom("activities")
              .whereRef("activities.event_id", "=", "events.id")
              .select(sums[figure as keyof typeof sums].as("n")),
          ]),
        ),
        factor_year: set.year,
      }))
      .where("id", "in", batch)
      .execute();
    await recountTravelTallies(trx, set, trx.selectFrom("events").select("id").where("id", "in", batch));
  }
}

/**
 * Brings every event's figures to `sets`, in the caller's write transaction: the events whose
 * start falls to a set other than the one that priced them, or whose set's factors changed since
 * (its identity differs from the one recorded), are priced again; then the sets are recorded.
 * Events whose set is unchanged are not touched.
 */
export async function repriceForFactorSets(
  trx: Kysely<Database>,
  dialect: SqlDialect,
  sets: FactorSets,
  at: string,
): Promise<void> {
  const recorded = new Map(
    (await trx.selectFrom("factor_sets").select(["year", "identity"]).execute()).map((row) => [
      Number(row.year),
      row.identity,
    ]),
  );
  const events = await trx.selectFrom("events").select(["id", "start_date", "factor_year"]).execute();
  const stale = new Map<EmissionFactorSet, string[]>();
  for (const event of events) {
    const set = sets.forStart(event.start_date);
    const pricedBy = event.factor_year === null ? null : Number(event.factor_year);
    if (pricedBy === set.year && recorded.get(set.year) === factorSetIdentity(set)) continue;
    const ids = stale.get(set) ?? [];
    ids.push(event.id);
    stale.set(set, ids);
  }
  for (const [set, ids] of stale) await repriceEvents(trx, dialect, ids, set);
  for (const set of sets.all) {
    const identity = factorSetIdentity(set);
    if (recorded.get(set.year) === identity) continue;
    if (recorded.has(set.year))
      await trx.updateTable("factor_sets").set({ identity, updated_at: at }).where("year", "=", set.year).execute();
    else await trx.insertInto("factor_sets").values({ year: set.year, identity, updated_at: at }).execute();
  }
  const years = sets.all.map((set) => set.year);
  await trx.deleteFrom("factor_sets").where("year", "not in", years).execute();
}

/** Whether every event is priced by its set as `sets` says and every set recorded as it is: a read, so a start with nothing to do takes no write lock. */
export async function factorSetsCurrent(db: Kysely<Database>, sets: FactorSets): Promise<boolean> {
  const recorded = await db.selectFrom("factor_sets").select(["year", "identity"]).execute();
  const identities = new Map(recorded.map((row) => [Number(row.year), row.identity]));
  if (
    recorded.length !== sets.all.length ||
    sets.all.some((set) => identities.get(set.year) !== factorSetIdentity(set))
  )
    return false;
  const events = await db.selectFrom("events").select(["start_date", "factor_year"]).execute();
  return events.every(
    (event) => event.factor_year !== null && Number(event.factor_year) === sets.forStart(event.start_date).year,
  );
}
