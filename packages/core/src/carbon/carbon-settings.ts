/** How offsets, scores and the sustainability goals are computed; a service option. */
export interface CarbonSettings {
  /** USD that buy one tonne of CO2e of offsets. Default 15. */
  offsetPriceUsdPerTonne: number;
  /** How far (great-circle km) a confirmed vendor may be from its event to count as local. Default 160 (about 100 miles). */
  localSourcingRadiusKm: number;
  /** The share of an event's confirmed vendors that must be local for its `localSourcing` goal, in percent. Default 50. */
  localSourcingTargetPercent: number;
}

/**
 * Default carbon settings: offsets at 15 USD per tonne of CO2e (a typical voluntary-market
 * retail price); vendors within 160 km are local (the 100-mile radius common in local-sourcing
 * schemes), and half of an event's confirmed vendors being local meets its goal.
 */
export const DEFAULT_CARBON_SETTINGS: CarbonSettings = {
  offsetPriceUsdPerTonne: 15,
  localSourcingRadiusKm: 160,
  localSourcingTargetPercent: 50,
};

/** kg CO2e that `usd` of offsets compensate. */
export function offsetKg(
  usd: number,
  settings: Pick<CarbonSettings, "offsetPriceUsdPerTonne"> = DEFAULT_CARBON_SETTINGS,
): number {
  return (usd / settings.offsetPriceUsdPerTonne) * 1000;
}
