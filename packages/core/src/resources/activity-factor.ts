/**
 * The factor a set gives an activity record: the entry of the set's `activities` that prices it
 * (of several that match, the one naming most qualifiers wins, then the first listed), staff
 * travel by the set's travel factors, electricity from a renewable source at 0 (market-based).
 */
import type { ActivityFactorEntry, FactorUnit } from "../carbon/activity-factors.ts";
import { type ActivityKind, type ActivityUnit, RENEWABLE_ELECTRICITY_SOURCES } from "../carbon/activity-kinds.ts";
import type { EmissionFactorSet } from "../carbon/emission-factors.ts";
import type { ActivityFactor, ActivityQualifiers } from "./activity.ts";

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
