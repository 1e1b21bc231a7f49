/**
 * The SQL twins of the carbon and figure definitions, generated from them: what a registration
 * row contributes to its event's figures (`contributionOf`), its travel emissions
 * (`travelEmissionsKg`), an event row's score (`sustainabilityScore`), "carbon neutral"
 * (`isCarbonNeutral`) and "active" (`ACTIVE_ATTENDEE_STATUSES`), each imported from where it is
 * defined (`carbon/`, `rules/`) and deciding nothing itself; tests keep each twin equal to its
 * definition.
 */
import { type RawBuilder, sql } from "kysely";
import type { CarbonSettings } from "../carbon/carbon-settings.ts";
import {
  DEFAULT_EMISSION_FACTORS,
  type EmissionFactorSet,
  factorBands,
  LOW_CARBON_TRAVEL_MODES,
  TRAVEL_MODES,
} from "../carbon/emission-factors.ts";
import type { FactorSets } from "../carbon/factor-sets.ts";
import { SCORE_WEIGHTS } from "../carbon/sustainability-score.ts";
import { ACTIVE_ATTENDEE_STATUSES } from "../rules/attendee-status.ts";
import type { ActivityFigures } from "../resources/activity-figures.ts";
import { DISPOSAL_WASTE_STREAMS, RENEWABLE_ELECTRICITY_SOURCES } from "../carbon/activity-kinds.ts";

/** The columns of an event row that hold its kept figures. */
export const KEPT_FIGURE_COLUMNS = [
  "active_count",
  "emissions_kg",
  "offset_usd",
  "travel_reported",
  "low_carbon",
  "waitlist_count",
] as const;

/** kg CO2e of one attendee row's travel under the factor set `factors`, the SQL twin of `travelEmissionsKg`. */
export function emissionsSql(factors: EmissionFactorSet = DEFAULT_EMISSION_FACTORS): RawBuilder<number> {
  const modes = TRAVEL_MODES.map((mode) => {
    const bands = factorBands(factors, mode).map((band) =>
      band.maxDistanceKm === null
        ? sql`else ${sql.lit(band.factor)}`
        : sql`when coalesce(travel_distance, 0) <= ${sql.lit(band.maxDistanceKm)} then ${sql.lit(band.factor)}`,
    );
    const all = factorBands(factors, mode);
    // One band (no distance limit): the factor itself; `case else x end` is not SQL.
    if (all.length === 1) return sql`when ${sql.lit(mode)} then ${sql.lit(all[0]!.factor)}`;
    return sql`when ${sql.lit(mode)} then (case ${sql.join(bands, sql` `)} end)`;
  });
  return sql<number>`(case travel_mode ${sql.join(modes, sql` `)} else 0 end) * coalesce(travel_distance, 0)`;
}

/**
 * kg CO2e of one attendee row's travel under the set of its event's recorded year `factorYear`
 * (an SQL expression): {@link emissionsSql} of each of `sets`, the latest for a year none has.
 */
export function emissionsBySetSql(sets: FactorSets, factorYear: RawBuilder<unknown>): RawBuilder<number> {
  const arms = sets.all.map((set) => sql`when ${sql.lit(set.year)} then ${emissionsSql(set)}`);
  return sql<number>`(case ${factorYear} ${sql.join(arms, sql` `)} else ${emissionsSql(sets.latest)} end)`;
}

/**
 * The band (its index in `factorBands` order) an attendee row's travel is priced with: the SQL
 * twin of the band `travelEmissionsKg` picks (the first whose `maxDistanceKm` the distance does
 * not pass, else the last); 0 for a mode with one band.
 */
export function travelBandSql(factors: EmissionFactorSet = DEFAULT_EMISSION_FACTORS): RawBuilder<number> {
  const modes = TRAVEL_MODES.flatMap((mode) => {
    const bands = factorBands(factors, mode);
    if (bands.length <= 1) return [];
    const whens = bands.flatMap((band, index) =>
      band.maxDistanceKm === null
        ? []
        : [sql`when coalesce(travel_distance, 0) <= ${sql.lit(band.maxDistanceKm)} then ${sql.lit(index)}`],
    );
    return [sql`when ${sql.lit(mode)} then (case ${sql.join(whens, sql` `)} else ${sql.lit(bands.length - 1)} end)`];
  });
  if (modes.length === 0) return sql<number>`0`;
  return sql<number>`(case travel_mode ${sql.join(modes, sql` `)} else 0 end)`;
}

/** Low-carbon modes as an SQL list. */
export const lowCarbonModesSql = sql.join(LOW_CARBON_TRAVEL_MODES.map((mode) => sql.lit(mode)));

/** True for an attendee row whose registration is active (holds a place and counts in the figures). */
export const activeSql = sql<boolean>`status in (${sql.join(ACTIVE_ATTENDEE_STATUSES.map((status) => sql.lit(status)))})`;

/**
 * What one attendee row adds to its event's kept figures, column by column of the event row:
 * the SQL twin of `contributionOf` (`rules/kept-figures.ts`) under the factor set `factors`, 0 in every column for a
 * registration that is not active. Summed over registration rows they give the kept figures:
 * analytics and the migration's backfill sum them; a test keeps the twins in agreement.
 */
export function contributionSql(
  factors: EmissionFactorSet = DEFAULT_EMISSION_FACTORS,
): Record<(typeof KEPT_FIGURE_COLUMNS)[number], RawBuilder<number>> {
  return {
    active_count: sql<number>`(case when ${activeSql} then 1 else 0 end)`,
    emissions_kg: sql<number>`(case when ${activeSql} then ${emissionsSql(factors)} else 0 end)`,
    offset_usd: sql<number>`(case when ${activeSql} and offset_opted = 1 then coalesce(offset_amount, 0) else 0 end)`,
    travel_reported: sql<number>`(case when ${activeSql} and travel_mode is not null then 1 else 0 end)`,
    low_carbon: sql<number>`(case when ${activeSql} and travel_mode in (${lowCarbonModesSql}) then 1 else 0 end)`,
    waitlist_count: sql<number>`(case when status = 'waitlisted' then 1 else 0 end)`,
  };
}

/**
 * The unrounded sustainability score of an event row `e` (its goals and kept figures), the SQL
 * twin of `sustainabilityScore` before its rounding.
 */
export function scoreSql(carbon: CarbonSettings): RawBuilder<number> {
  const goal = sql.lit(SCORE_WEIGHTS.goal);
  const offsetKg = sql`(e.offset_usd * 1000.0 / ${sql.lit(carbon.offsetPriceUsdPerTonne)})`;
  return sql<number>`(
    (case when e.goal_carbon_neutral = 1 then ${goal} else 0 end)
    + (case when e.goal_renewable_energy = 1 then ${goal} else 0 end)
    + (case when e.goal_local_sourcing = 1 then ${goal} else 0 end)
    + ${goal} * coalesce(e.goal_waste_reduction, 0) / 100.0
    + (case when e.travel_reported > 0 then ${sql.lit(SCORE_WEIGHTS.lowCarbonTravel)} * 1.0 * e.low_carbon / e.travel_reported else 0 end)
    + (case
        when e.emissions_kg > 0 then ${sql.lit(SCORE_WEIGHTS.offsetCoverage)} * (case when ${offsetKg} >= e.emissions_kg then 1.0 else ${offsetKg} / e.emissions_kg end)
        when e.travel_reported > 0 then ${sql.lit(SCORE_WEIGHTS.offsetCoverage)}
        else 0 end)
  )`;
}

/** The lowest unrounded score that rounds (to one decimal, half up) to at least `minScore`. */
export function scoreThreshold(minScore: number): number {
  return (Math.ceil(minScore * 10 - 1e-9) - 0.5) / 10;
}

/**
 * The SQL twin of `isCarbonNeutral` (`carbon/carbon-neutral.ts`): 1 when `emissionsKg` is above 0
 * and `offsetKg` covers it, else 0. A test keeps the two equal.
 */
export function carbonNeutralSql(emissionsKg: RawBuilder<unknown>, offsetKg: RawBuilder<unknown>): RawBuilder<number> {
  return sql<number>`(case when ${emissionsKg} > 0 and ${offsetKg} >= ${emissionsKg} then 1 else 0 end)`;
}

/** The event-row columns that keep its activity figures (`resources/activity-figures.ts`), by figure. */
export const ACTIVITY_FIGURE_COLUMNS = {
  emissionsKg: "activity_emissions_kg",
  measuredEmissionsKg: "activity_measured_kg",
  electricityKwh: "electricity_kwh",
  renewableKwh: "renewable_kwh",
  wasteKg: "waste_kg",
  divertedKg: "diverted_kg",
  recyclingKg: "recycling_kg",
} as const satisfies Record<keyof ActivityFigures, string>;

const lits = (values: readonly string[]) => sql.join(values.map((value) => sql.lit(value)));

/**
 * The sums over activity rows that make an event's activity figures, figure by figure: the SQL
 * twin of `activityFiguresOf`, from the same lists (renewable sources, disposal streams).
 */
export function activityFiguresSql(): Record<keyof ActivityFigures, RawBuilder<number>> {
  return {
    emissionsKg: sql<number>`coalesce(sum(coalesce(emissions_kg, 0)), 0)`,
    measuredEmissionsKg: sql<number>`coalesce(sum(case when data_quality = 'measured' then coalesce(emissions_kg, 0) else 0 end), 0)`,
    electricityKwh: sql<number>`coalesce(sum(case when kind = 'electricity' then quantity else 0 end), 0)`,
    renewableKwh: sql<number>`coalesce(sum(case when kind = 'electricity' and source in (${lits(RENEWABLE_ELECTRICITY_SOURCES)}) then quantity else 0 end), 0)`,
    wasteKg: sql<number>`coalesce(sum(case when kind = 'waste' then quantity else 0 end), 0)`,
    divertedKg: sql<number>`coalesce(sum(case when kind = 'waste' and stream not in (${lits(DISPOSAL_WASTE_STREAMS)}) then quantity else 0 end), 0)`,
    recyclingKg: sql<number>`coalesce(sum(case when kind = 'waste' and stream = 'recycling' then quantity else 0 end), 0)`,
  };
}
