/**
 * The vocabulary of activity records (`as const` lists: the types and the runtime checks). It
 * imports nothing, so that the factor set and the resource can both build on it.
 *
 * Activity records: what an event used, burned, served, shipped and threw away, one quantity of
 * one kind each (docs/api.md, Activities). The kinds follow what the event industry's
 * tools collect (TRACE, Julie's Bicycle): energy, fuel, catering, accommodation, materials,
 * freight, waste, water and staff travel. Attendees' own travel stays on their registrations.
 */
export const ACTIVITY_KINDS = [
  "electricity",
  "fuel",
  "catering",
  "accommodation",
  "materials",
  "freight",
  "waste",
  "water",
  "staff_travel",
] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

export const ELECTRICITY_SOURCES = ["grid", "renewable_tariff", "onsite_renewable"] as const;
export type ElectricitySource = (typeof ELECTRICITY_SOURCES)[number];
/** Electricity sources whose kWh are renewable (market-based: 0 kg CO2e). */
export const RENEWABLE_ELECTRICITY_SOURCES = [
  "renewable_tariff",
  "onsite_renewable",
] as const satisfies readonly ElectricitySource[];

export const FUELS = ["diesel", "petrol", "hvo", "lpg", "natural_gas"] as const;
export type Fuel = (typeof FUELS)[number];
export const FUEL_UNITS = ["litres", "kg", "kWh"] as const;
export type FuelUnit = (typeof FUEL_UNITS)[number];

export const MEAL_TYPES = ["meat", "fish", "vegetarian", "vegan"] as const;
export type MealType = (typeof MEAL_TYPES)[number];

export const MATERIALS = ["paper", "card", "plastic", "textiles", "timber", "metal", "glass", "mixed"] as const;
export type Material = (typeof MATERIALS)[number];
/** What a waste record may name as its material: the materials, and food. */
export const WASTE_MATERIALS = [...MATERIALS, "food"] as const;
export type WasteMaterial = (typeof WASTE_MATERIALS)[number];

export const FREIGHT_MODES = ["van", "hgv", "rail", "air", "sea"] as const;
export type FreightMode = (typeof FREIGHT_MODES)[number];

export const WASTE_STREAMS = [
  "landfill",
  "incineration",
  "recycling",
  "composting",
  "anaerobic_digestion",
  "reuse",
] as const;
export type WasteStream = (typeof WASTE_STREAMS)[number];
/** Streams that are not diverted from disposal: the diversion rate counts every other stream. */
export const DISPOSAL_WASTE_STREAMS = ["landfill", "incineration"] as const satisfies readonly WasteStream[];

export const DATA_QUALITIES = ["measured", "estimated"] as const;
export type DataQuality = (typeof DATA_QUALITIES)[number];

/** Every unit an activity can be recorded in. */
export const ACTIVITY_UNITS = [
  "kWh",
  "litres",
  "kg",
  "meals",
  "room_nights",
  "tonne_km",
  "m3",
  "passenger_km",
] as const;
export type ActivityUnit = (typeof ACTIVITY_UNITS)[number];

/** The largest quantity a record may hold: beyond it a figure is a typing error, not an event. */
export const MAX_ACTIVITY_QUANTITY = 1_000_000_000;

/** GHG Protocol scope of a kind: fuels burned on site 1, purchased electricity 2, everything else 3. */
export function activityScope(kind: ActivityKind): 1 | 2 | 3 {
  return kind === "fuel" ? 1 : kind === "electricity" ? 2 : 3;
}
