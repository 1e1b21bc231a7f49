import * as z from "zod";
import type { ActivityFactor, ActivityQualifiers } from "../resources/activity.ts";
import { isCountryCode } from "../resources/event.ts";
import {
  ACTIVITY_KINDS,
  type ActivityKind,
  type ActivityUnit,
  FREIGHT_MODES,
  FUELS,
  MEAL_TYPES,
  RENEWABLE_ELECTRICITY_SOURCES,
  WASTE_MATERIALS,
  WASTE_STREAMS,
} from "./activity-kinds.ts";
// Types only: emission-factors.ts builds its set schema from this module's entry schema.
import type { EmissionFactorSet } from "./emission-factors.ts";

/**
 * Activity factors: the factor set's entries for the kinds of activity records (docs/api.md,
 * Activity factors), in the same file as the travel factors (`activities` of a set). An entry
 * prices the records of its `kind` whose qualifiers equal every qualifier the entry names; of
 * several that match, the one naming most qualifiers wins, then the first listed. Staff travel
 * is priced by the set's travel factors, electricity from a renewable source at 0 (market-based):
 * neither has entries here.
 */
export const PRICED_ACTIVITY_KINDS = ACTIVITY_KINDS.filter(
  (kind): kind is Exclude<ActivityKind, "staff_travel"> => kind !== "staff_travel",
);

/** Units an entry may be given in: the records' units, and tonnes (the published factors for materials and waste). */
export const FACTOR_UNITS = ["kWh", "litres", "kg", "tonnes", "meals", "room_nights", "tonne_km", "m3"] as const;
export type FactorUnit = (typeof FACTOR_UNITS)[number];

/** How many of a factor's unit one record unit is, where the two differ but convert exactly. */
const UNIT_CONVERSIONS: Partial<Record<ActivityUnit, Partial<Record<FactorUnit, number>>>> = {
  kg: { tonnes: 0.001 },
};

/** The words a unit is written with in `factor.unit` ("kg CO2e per room-night"). */
const UNIT_WORDS: Record<ActivityUnit | FactorUnit, string> = {
  kWh: "kWh",
  litres: "litre",
  kg: "kg",
  tonnes: "tonne",
  meals: "meal",
  room_nights: "room-night",
  tonne_km: "tonne-km",
  m3: "m3",
  passenger_km: "passenger-km",
};

/** One entry of a set's `activities`. */
export const ActivityFactorEntry = z.strictObject({
  kind: z.enum(PRICED_ACTIVITY_KINDS),
  country: z
    .string()
    .refine(isCountryCode, "must be an ISO 3166-1 alpha-2 country code in upper case, e.g. GB")
    .optional(),
  fuel: z.enum(FUELS).optional(),
  mealType: z.enum(MEAL_TYPES).optional(),
  material: z.enum(WASTE_MATERIALS).optional(),
  recycledContent: z.boolean().optional(),
  mode: z.enum(FREIGHT_MODES).optional(),
  stream: z.enum(WASTE_STREAMS).optional(),
  unit: z.enum(FACTOR_UNITS),
  factor: z.number().min(0).max(100_000).meta({ description: "kg CO2e per `unit`" }),
  name: z.string().min(1).max(300).meta({ description: "What the source calls the factor" }),
  source: z.string().min(1).max(500).optional().meta({ description: "Default: the set's source" }),
  year: z.number().int().min(1990).max(2100).optional().meta({ description: "Default: the set's year" }),
  url: z.url().optional(),
});
export type ActivityFactorEntry = z.output<typeof ActivityFactorEntry>;

/** The qualifiers an entry can name, in the order they are compared. */
const ENTRY_QUALIFIERS = ["country", "fuel", "mealType", "material", "recycledContent", "mode", "stream"] as const;

/** What a record needs to be priced: its kind, unit and qualifiers. */
export type PricedRecord = Pick<ActivityQualifiers, (typeof ENTRY_QUALIFIERS)[number] | "source"> & {
  kind: ActivityKind;
  unit: ActivityUnit;
};

/** The entry of `set` that prices `record`, and how many of its unit one record unit is; null when none does. */
function findEntry(set: EmissionFactorSet, record: PricedRecord): { entry: ActivityFactorEntry; per: number } | null {
  let best: { entry: ActivityFactorEntry; per: number; named: number } | null = null;
  for (const entry of set.activities) {
    if (entry.kind !== record.kind) continue;
    const per = entry.unit === record.unit ? 1 : UNIT_CONVERSIONS[record.unit]?.[entry.unit];
    if (per === undefined) continue;
    let named = 0;
    let fits = true;
    for (const qualifier of ENTRY_QUALIFIERS) {
      const wanted = entry[qualifier];
      if (wanted === undefined) continue;
      if (wanted !== record[qualifier]) {
        fits = false;
        break;
      }
      named++;
    }
    if (fits && (best === null || named > best.named)) best = { entry, per, named };
  }
  return best && { entry: best.entry, per: best.per };
}

/**
 * The factor `set` gives `record`, in kg CO2e per the record's own unit (so that
 * emissionsKg = quantity x value always); null when the set prices no such record.
 */
export function activityFactor(set: EmissionFactorSet, record: PricedRecord): ActivityFactor | null {
  const perUnit = `kg CO2e per ${UNIT_WORDS[record.unit]}`;
  if (record.kind === "electricity" && (RENEWABLE_ELECTRICITY_SOURCES as readonly string[]).includes(record.source!)) {
    return {
      name:
        record.source === "renewable_tariff"
          ? "Electricity - renewable tariff (market-based)"
          : "Electricity - on-site renewable generation (market-based)",
      value: 0,
      unit: perUnit,
      source: "GHG Protocol Scope 2 Guidance, market-based method (World Resources Institute)",
      year: 2015,
    };
  }
  if (record.kind === "staff_travel") {
    // Passenger-km carry no trip length: a mode with distance bands is priced by its band for any distance (the last).
    const band = set.factors.filter((factor) => factor.mode === record.mode).at(-1)!;
    return {
      name: band.description ?? `Travel - ${band.mode}`,
      value: band.factor,
      unit: perUnit,
      source: set.source,
      year: set.year,
    };
  }
  const found = findEntry(set, record);
  if (!found) return null;
  return {
    name: found.entry.name,
    // 12 significant digits: 910.4781 x 0.001 is 0.9104781, not its binary neighbour 0.9104781000000001.
    value: found.per === 1 ? found.entry.factor : Number((found.entry.factor * found.per).toPrecision(12)),
    unit: perUnit,
    source: found.entry.source ?? set.source,
    year: found.entry.year ?? set.year,
  };
}
