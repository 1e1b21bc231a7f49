import {
  DEFAULT_EMISSION_FACTORS,
  EmissionFactorSet,
  type EmissionFactorSetInput,
  factorSetIdentity,
} from "./emission-factors.ts";

/**
 * The factor sets of a deployment, one per year (docs/api.md, Factor sets by year): an event is
 * priced by the set of its start's year, else the latest set of an earlier year, else the
 * earliest set. Without sets given, the bundled DESNZ 2023 set alone.
 */
export interface FactorSets {
  /** Every set, ascending by year. */
  readonly all: readonly EmissionFactorSet[];
  /** The set of the latest year (what `GET /analytics/emission-factors` answers by default). */
  readonly latest: EmissionFactorSet;
  /** The set that prices what happens in `year`. */
  forYear(year: number): EmissionFactorSet;
  /** The set that prices an event starting at `startDate` (a UTC timestamp): {@link forYear} of its year. */
  forStart(startDate: string): EmissionFactorSet;
  /** The set of exactly `year`, if there is one. */
  ofYear(year: number): EmissionFactorSet | undefined;
  /**
   * The set that priced an event's stored figures: the set of `factorYear` (the year recorded
   * with them), else (none recorded, or a set no longer given) the one its start falls to.
   */
  pricedBy(factorYear: number | null, startDate: string): EmissionFactorSet;
}

/** The year of a UTC timestamp (`2032-05-01T09:00:00.000Z`: 2032). */
export function startYear(startDate: string): number {
  return new Date(startDate).getUTCFullYear();
}

/**
 * The sets `given` (parsed), or the bundled `DEFAULT_EMISSION_FACTORS` alone when none is given
 * (a deployment that adds a year's set to the bundled one gives both). Throws an `Error` (a
 * deployment's configuration error, not an API one) when two are of one year, naming both:
 * `labels[i]` names `given[i]` (its file), else its name and position.
 */
export function createFactorSets(
  given: readonly EmissionFactorSetInput[] = [],
  labels: readonly string[] = [],
): FactorSets {
  const parsed = given.map((set) => EmissionFactorSet.parse(set));
  const seen = new Map<number, number>();
  parsed.forEach((set, index) => {
    const other = seen.get(set.year);
    const label = (i: number) => labels[i] ?? `set ${i + 1} ("${parsed[i]!.name}")`;
    if (other !== undefined)
      throw new Error(
        `two factor sets of the year ${set.year}: ${label(other)} and ${label(index)} (give one set per year)`,
      );
    seen.set(set.year, index);
  });
  const all = (parsed.length === 0 ? [DEFAULT_EMISSION_FACTORS] : parsed).sort((a, b) => a.year - b.year);
  const byYear = new Map(all.map((set) => [set.year, set]));
  // Every year asked so far, so a registration's lookup is one map read.
  const chosen = new Map<number, EmissionFactorSet>();
  const forYear = (year: number): EmissionFactorSet => {
    let set = chosen.get(year);
    if (set === undefined) {
      set = all.findLast((candidate) => candidate.year <= year) ?? all[0]!;
      chosen.set(year, set);
    }
    return set;
  };
  return {
    all,
    latest: all.at(-1)!,
    forYear,
    forStart: (startDate) => forYear(startYear(startDate)),
    ofYear: (year) => byYear.get(year),
    pricedBy: (factorYear, startDate) =>
      (factorYear === null ? undefined : byYear.get(factorYear)) ?? forYear(startYear(startDate)),
  };
}

/** What identifies every set of `sets` (two lists of sets with one identity price alike). */
export function factorSetsIdentity(sets: FactorSets): string {
  return JSON.stringify(sets.all.map(factorSetIdentity));
}
