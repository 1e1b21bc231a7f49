import * as z from "zod";
import type { CarbonSettings } from "../carbon/carbon-settings.ts";
import type { EmissionFactorSet } from "../carbon/emission-factors.ts";
import type { FactorSets } from "../carbon/factor-sets.ts";

const SetName = z.object({ name: z.string(), year: z.number().int(), source: z.string() });

/** How an analytics answer's figures were computed: the factor set (name, year, source) and the offset price. */
export const Methodology = z
  .object({
    emissionFactors: SetName.meta({
      description:
        "The factor set that priced the figures: an event's own (by its start's year); over several events priced by different sets, the latest of them (see factorSets)",
    }),
    factorSets: z
      .array(SetName.extend({ events: z.number().int().meta({ description: "How many of the events it priced" }) }))
      .optional()
      .meta({
        description:
          "Only when the answer's events were priced by more than one factor set (each event is priced by the set of its start's year): every set that priced some, oldest first",
      }),
    offsetPriceUsdPerTonne: z.number(),
  })
  .meta({
    description:
      "The emission factor set (GET /v1/analytics/emission-factors?year= lists its factors) and the offset price behind the figures",
  });
export type Methodology = z.output<typeof Methodology>;

/** A factor set and how many of an answer's events it priced. */
export interface FactorSetUse {
  set: EmissionFactorSet;
  events: number;
}

/**
 * The methodology of figures computed with `factors` and `carbon`; `used`: the sets that priced
 * the answer's events (named in `factorSets` when there are several).
 */
export function methodologyOf(
  factors: EmissionFactorSet,
  carbon: CarbonSettings,
  used: readonly FactorSetUse[] = [],
): Methodology {
  return {
    emissionFactors: { name: factors.name, year: factors.year, source: factors.source },
    ...(used.length > 1 && {
      factorSets: used.map(({ set, events }) => ({ name: set.name, year: set.year, source: set.source, events })),
    }),
    offsetPriceUsdPerTonne: carbon.offsetPriceUsdPerTonne,
  };
}

/**
 * The sets that priced events, from how many each recorded year priced (`AnalyticsFigures`'s
 * `factorYears`), oldest first, and the set an answer over them names: the latest of them (the
 * latest set of all when there is no event).
 */
export function factorSetsUsed(
  sets: FactorSets,
  factorYears: ReadonlyArray<{ year: number | null; events: number }>,
): { factors: EmissionFactorSet; used: FactorSetUse[] } {
  const bySet = new Map<EmissionFactorSet, number>();
  for (const { year, events } of factorYears) {
    const set = year === null ? sets.latest : (sets.ofYear(year) ?? sets.forYear(year));
    bySet.set(set, (bySet.get(set) ?? 0) + events);
  }
  const used = [...bySet].map(([set, events]) => ({ set, events })).sort((a, b) => a.set.year - b.set.year);
  return { factors: used.at(-1)?.set ?? sets.latest, used };
}
