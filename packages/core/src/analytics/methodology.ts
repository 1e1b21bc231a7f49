import * as z from "zod";
import type { CarbonSettings } from "../carbon/carbon-settings.ts";
import type { EmissionFactorSet } from "../carbon/emission-factors.ts";

/** How an analytics answer's figures were computed: the factor set (name, year, source) and the offset price. */
export const Methodology = z
  .object({
    emissionFactors: z.object({ name: z.string(), year: z.number().int(), source: z.string() }),
    offsetPriceUsdPerTonne: z.number(),
  })
  .meta({
    description:
      "The emission factor set (GET /v1/analytics/emission-factors lists its factors) and the offset price behind the figures",
  });
export type Methodology = z.output<typeof Methodology>;

/** The methodology of figures computed with `factors` and `carbon`. */
export function methodologyOf(factors: EmissionFactorSet, carbon: CarbonSettings): Methodology {
  return {
    emissionFactors: { name: factors.name, year: factors.year, source: factors.source },
    offsetPriceUsdPerTonne: carbon.offsetPriceUsdPerTonne,
  };
}
