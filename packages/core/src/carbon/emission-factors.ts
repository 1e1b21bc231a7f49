import * as z from "zod";
import { ActivityFactorEntry } from "./activity-factors.ts";
import { DEFAULT_ACTIVITY_FACTORS } from "./default-activity-factors.ts";

/**
 * Travel emission factors, kg CO2e per passenger-km: the factor set is data
 * (docs/api.md, Emission factors). The default is DEFAULT_EMISSION_FACTORS below; a deployment may
 * supply its own set (`emissionFactors` of `createSqlStorage` and `createEventService`; the
 * server's `EMISSION_FACTORS_FILE`), validated by the `EmissionFactorSet` schema.
 */
export const TRAVEL_MODES = ["car", "flight", "train", "bus", "bike", "walk"] as const;
export type TravelMode = (typeof TRAVEL_MODES)[number];

/** Travel modes counted as low-carbon in the sustainability score. */
export const LOW_CARBON_TRAVEL_MODES = ["train", "bus", "bike", "walk"] as const satisfies readonly TravelMode[];

/** The one unit of every factor. */
export const EMISSION_FACTOR_UNIT = "kg CO2e per passenger-km";

/** One factor of a set: a mode's factor for trips up to `maxDistanceKm` (`null`: any distance). */
export const EmissionFactor = z.strictObject({
  mode: z.enum(TRAVEL_MODES),
  factor: z
    .number()
    .min(0)
    .max(100)
    .meta({ description: `kg CO2e per passenger-km (${EMISSION_FACTOR_UNIT})` }),
  unit: z.literal(EMISSION_FACTOR_UNIT).default(EMISSION_FACTOR_UNIT),
  maxDistanceKm: z.number().positive().nullable().default(null).meta({
    description:
      "The factor applies to trips up to this distance (the mode's previous band excluded); null: any longer trip",
  }),
  description: z.string().max(500).optional(),
});
export type EmissionFactor = z.output<typeof EmissionFactor>;

/**
 * A set of travel emission factors: every mode once, or (for distance bands, as flights have)
 * several times with ascending `maxDistanceKm`, the last band `null` (any distance).
 */
export const EmissionFactorSet = z
  .strictObject({
    name: z.string().min(1).max(200),
    year: z.number().int().min(1990).max(2100),
    source: z.string().min(1).max(500),
    url: z.url().optional(),
    factors: z.array(EmissionFactor).min(1).max(100),
    activities: z
      .array(ActivityFactorEntry)
      .max(2000)
      .default([])
      .meta({ description: "Factors of the activity kinds (see activity-factors.ts); a kind without one is unpriced" }),
  })
  .superRefine((set, ctx) => {
    for (const mode of TRAVEL_MODES) {
      const bands = set.factors
        .map((factor, index) => ({ factor, index }))
        .filter(({ factor }) => factor.mode === mode);
      if (bands.length === 0) {
        ctx.addIssue({
          code: "custom",
          path: ["factors"],
          message: `has no factor for mode "${mode}" (every mode needs one: ${TRAVEL_MODES.join(", ")})`,
        });
        continue;
      }
      bands.forEach(({ factor, index }, i) => {
        const last = i === bands.length - 1;
        if (last && factor.maxDistanceKm !== null) {
          ctx.addIssue({
            code: "custom",
            path: ["factors", index, "maxDistanceKm"],
            message: `must be null on the last "${mode}" factor (it covers any longer trip)`,
          });
        } else if (
          !last &&
          (factor.maxDistanceKm === null || (i > 0 && factor.maxDistanceKm <= bands[i - 1]!.factor.maxDistanceKm!))
        ) {
          ctx.addIssue({
            code: "custom",
            path: ["factors", index, "maxDistanceKm"],
            message: `must be a distance above the previous "${mode}" band's, listed in ascending order (only the last is null)`,
          });
        }
      });
    }
  });
export type EmissionFactorSet = z.output<typeof EmissionFactorSet>;
/** A factor set as written in a file or passed by an embedder (defaults not yet filled in). */
export type EmissionFactorSetInput = z.input<typeof EmissionFactorSet>;

/**
 * The default set: UK Government GHG Conversion Factors for Company Reporting 2023 (Department
 * for Energy Security and Net Zero), "Business travel - land" and "Business travel - air"
 * tables. The newest release whose values we can cite; kept until a newer one is checked in.
 * - car: "Cars (by size) - Average car - Unknown fuel", per vehicle-km, counted for one
 *   occupant (an attendee's own trip; car sharing is not reported to us).
 * - bus: "Bus - Average local bus", per passenger-km.
 * - train: "Rail - National rail", per passenger-km.
 * - flight: "Flights - Domestic / Short-haul / Long-haul, to/from UK, Average passenger,
 *   with RF" (radiative forcing included), by distance: domestic up to 500 km, short-haul up
 *   to 3,700 km, long-haul beyond.
 * - bike, walk: zero.
 * Its `activities` (the other kinds of an event's footprint) are in default-activity-factors.ts.
 */
export const DEFAULT_EMISSION_FACTORS: EmissionFactorSet = EmissionFactorSet.parse({
  name: "UK Government GHG Conversion Factors for Company Reporting",
  year: 2023,
  source: "Department for Energy Security and Net Zero (DESNZ)",
  url: "https://www.gov.uk/government/publications/greenhouse-gas-reporting-conversion-factors-2023",
  factors: [
    { mode: "car", factor: 0.16844, description: "Cars (by size) - Average car - Unknown fuel, one occupant" },
    {
      mode: "flight",
      factor: 0.27257,
      maxDistanceKm: 500,
      description: "Flights - Domestic, to/from UK, Average passenger, with RF",
    },
    {
      mode: "flight",
      factor: 0.18592,
      maxDistanceKm: 3700,
      description: "Flights - Short-haul, to/from UK, Average passenger, with RF",
    },
    { mode: "flight", factor: 0.26128, description: "Flights - Long-haul, to/from UK, Average passenger, with RF" },
    { mode: "train", factor: 0.03546, description: "Rail - National rail" },
    { mode: "bus", factor: 0.10231, description: "Bus - Average local bus" },
    { mode: "bike", factor: 0, description: "Cycling: no direct emissions" },
    { mode: "walk", factor: 0, description: "Walking: no direct emissions" },
  ],
  activities: [...DEFAULT_ACTIVITY_FACTORS],
});

/** Factors of the default set's modes whose factor does not depend on distance. */
export const EMISSION_FACTORS_KG_PER_KM = {
  car: 0.16844,
  train: 0.03546,
  bus: 0.10231,
  bike: 0,
  walk: 0,
} as const satisfies Record<Exclude<TravelMode, "flight">, number>;

/** The default set's flight factors by distance band: domestic up to 500 km, short-haul up to 3,700 km, long-haul beyond. */
export const FLIGHT_BANDS = [
  { maxKm: 500, factor: 0.27257 },
  { maxKm: 3700, factor: 0.18592 },
  { maxKm: Number.POSITIVE_INFINITY, factor: 0.26128 },
] as const;

/** The bands of `mode` in `set`, ascending (the last without a limit). */
export function factorBands(set: EmissionFactorSet, mode: TravelMode): EmissionFactor[] {
  return set.factors.filter((factor) => factor.mode === mode);
}

/**
 * What identifies a set's figures: its name, year and every factor. Kept figures stored under
 * another identity are recomputed at start (see `migrate` of the SQL storage).
 */
export function factorSetIdentity(set: EmissionFactorSet): string {
  return JSON.stringify([
    set.name,
    set.year,
    set.factors.map((f) => [f.mode, f.factor, f.maxDistanceKm]),
    set.activities,
  ]);
}

/** kg CO2e of one trip of `distanceKm` by `mode`, with the factors of `set` (default: DEFAULT_EMISSION_FACTORS). */
export function travelEmissionsKg(
  mode: TravelMode,
  distanceKm: number,
  set: EmissionFactorSet = DEFAULT_EMISSION_FACTORS,
): number {
  const band = factorBands(set, mode)[travelBand(set, mode, distanceKm)]!;
  return distanceKm * band.factor;
}

/** The index in `factorBands` order of the band that prices `distanceKm` by `mode`: the first whose `maxDistanceKm` it does not pass, else the last. */
export function travelBand(set: EmissionFactorSet, mode: TravelMode, distanceKm: number): number {
  const bands = factorBands(set, mode);
  const index = bands.findIndex((b) => b.maxDistanceKm === null || distanceKm <= b.maxDistanceKm);
  return index === -1 ? bands.length - 1 : index;
}

/** The factor set as `GET /v1/analytics/emission-factors` lists it and analytics answers name it. */
export const EmissionFactorSetResponse = z
  .object({
    name: z.string(),
    year: z.number().int(),
    source: z.string(),
    url: z.string().optional(),
    factors: z.array(EmissionFactor),
    // As the set's file gives them, with the set's source and year filled in.
    activities: z.array(ActivityFactorEntry.extend({ source: z.string(), year: z.number().int() })).meta({
      description:
        "The activity factors: each prices the activities of its kind whose qualifiers equal all it names (the one naming most wins)",
    }),
  })
  .meta({ description: "The emission factor set in use: travel factors and activity factors" });
export type EmissionFactorSetResponse = z.output<typeof EmissionFactorSetResponse>;

/** The factor set as the API lists it. */
export function emissionFactorSetResponse(set: EmissionFactorSet): EmissionFactorSetResponse {
  return {
    name: set.name,
    year: set.year,
    source: set.source,
    ...(set.url !== undefined && { url: set.url }),
    factors: set.factors.map((f) => ({
      mode: f.mode,
      factor: f.factor,
      unit: f.unit,
      maxDistanceKm: f.maxDistanceKm,
      ...(f.description !== undefined && { description: f.description }),
    })),
    // Each entry with its own source and year, the set's where it names none (and the set's
    // url only for an entry of the set's source).
    activities: set.activities.map(({ source, year, url, ...entry }) => {
      const link = url ?? (source === undefined ? set.url : undefined);
      return {
        ...entry,
        source: source ?? set.source,
        year: year ?? set.year,
        ...(link !== undefined && { url: link }),
      };
    }),
  };
}
