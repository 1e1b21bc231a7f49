/** How offsets and scores are computed; a service option. */
export interface CarbonSettings {
  /** USD that buy one tonne of CO2e of offsets. Default 15. */
  offsetPriceUsdPerTonne: number;
}

/** Default carbon settings: offsets at 15 USD per tonne of CO2e (a typical voluntary-market retail price). */
export const DEFAULT_CARBON_SETTINGS: CarbonSettings = { offsetPriceUsdPerTonne: 15 };

/** kg CO2e that `usd` of offsets compensate. */
export function offsetKg(usd: number, settings: CarbonSettings = DEFAULT_CARBON_SETTINGS): number {
  return (usd / settings.offsetPriceUsdPerTonne) * 1000;
}
