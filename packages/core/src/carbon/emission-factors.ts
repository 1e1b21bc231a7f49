/**
 * Travel emission factors, kg CO2e per passenger-km.
 *
 * Source: UK Government GHG Conversion Factors for Company Reporting 2023 (Department for
 * Energy Security and Net Zero), "Business travel - land" and "Business travel - air" tables.
 * - car: "Cars (by size) - Average car - Unknown fuel", per vehicle-km, counted for one
 *   occupant (an attendee's own trip; car sharing is not reported to us).
 * - bus: "Bus - Average local bus", per passenger-km.
 * - train: "Rail - National rail", per passenger-km.
 * - flight: "Flights - Domestic / Short-haul / Long-haul, to/from UK, Average passenger,
 *   with RF" (radiative forcing included), chosen by the trip's distance below.
 * - bike, walk: zero.
 */
export const TRAVEL_MODES = ["car", "flight", "train", "bus", "bike", "walk"] as const;
export type TravelMode = (typeof TRAVEL_MODES)[number];

/** Travel modes counted as low-carbon in the sustainability score. */
export const LOW_CARBON_TRAVEL_MODES = ["train", "bus", "bike", "walk"] as const satisfies readonly TravelMode[];

/** Factors of the modes whose factor does not depend on distance. */
export const EMISSION_FACTORS_KG_PER_KM = {
  car: 0.16844,
  train: 0.03546,
  bus: 0.10231,
  bike: 0,
  walk: 0,
} as const satisfies Record<Exclude<TravelMode, "flight">, number>;

/** Flight factors by distance band: domestic up to 500 km, short-haul up to 3,700 km, long-haul beyond. */
export const FLIGHT_BANDS = [
  { maxKm: 500, factor: 0.27257 },
  { maxKm: 3700, factor: 0.18592 },
  { maxKm: Number.POSITIVE_INFINITY, factor: 0.26128 },
] as const;

/** kg CO2e of one trip of `distanceKm` by `mode`. */
export function travelEmissionsKg(mode: TravelMode, distanceKm: number): number {
  if (mode === "flight") {
    const band = FLIGHT_BANDS.find((b) => distanceKm <= b.maxKm) ?? FLIGHT_BANDS[FLIGHT_BANDS.length - 1]!;
    return distanceKm * band.factor;
  }
  return distanceKm * EMISSION_FACTORS_KG_PER_KM[mode];
}
