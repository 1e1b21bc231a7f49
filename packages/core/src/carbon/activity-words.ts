import type {
  ActivityKind,
  ActivityUnit,
  DataQuality,
  ElectricitySource,
  FreightMode,
  Fuel,
  MealType,
  WasteMaterial,
  WasteStream,
} from "./activity-kinds.ts";
import type { TravelMode } from "./emission-factors.ts";

/**
 * The activity vocabulary in words, for what people read (the sustainability report, the
 * vendor's page): one text per API value, so a page never shows `anaerobic_digestion` and two
 * pages never name one kind differently. The API's values stay what forms send.
 */
export const ACTIVITY_KIND_WORDS: Readonly<Record<ActivityKind, string>> = {
  electricity: "Electricity",
  fuel: "Fuel burned on site",
  catering: "Catering",
  accommodation: "Accommodation",
  materials: "Materials and printing",
  freight: "Freight",
  waste: "Waste",
  water: "Water",
  staff_travel: "Staff travel",
};

/** Units as a quantity is read ("120 meals", "40 tonne-km"). */
export const ACTIVITY_UNIT_WORDS: Readonly<Record<ActivityUnit, string>> = {
  kWh: "kWh",
  litres: "litres",
  kg: "kg",
  meals: "meals",
  room_nights: "room nights",
  tonne_km: "tonne-km",
  m3: "m³",
  passenger_km: "passenger-km",
};

/** The name of each qualifier field, as a form labels its choice. */
export const QUALIFIER_WORDS = {
  source: "Source",
  country: "Country",
  fuel: "Fuel",
  mealType: "Meal type",
  material: "Material",
  recycledContent: "Recycled content",
  mode: "Mode",
  stream: "Stream",
} as const;

export const ELECTRICITY_SOURCE_WORDS: Readonly<Record<ElectricitySource, string>> = {
  grid: "Grid",
  renewable_tariff: "Renewable tariff",
  onsite_renewable: "On-site renewable",
};

export const FUEL_WORDS: Readonly<Record<Fuel, string>> = {
  diesel: "Diesel",
  petrol: "Petrol",
  hvo: "HVO",
  lpg: "LPG",
  natural_gas: "Natural gas",
};

export const MEAL_TYPE_WORDS: Readonly<Record<MealType, string>> = {
  meat: "Meat",
  fish: "Fish",
  vegetarian: "Vegetarian",
  vegan: "Vegan",
};

export const MATERIAL_WORDS: Readonly<Record<WasteMaterial, string>> = {
  paper: "Paper",
  card: "Card",
  plastic: "Plastic",
  textiles: "Textiles",
  timber: "Timber",
  metal: "Metal",
  glass: "Glass",
  mixed: "Mixed",
  food: "Food",
};

export const FREIGHT_MODE_WORDS: Readonly<Record<FreightMode, string>> = {
  van: "Van",
  hgv: "Heavy goods vehicle",
  rail: "Rail",
  air: "Air",
  sea: "Sea",
};

export const WASTE_STREAM_WORDS: Readonly<Record<WasteStream, string>> = {
  landfill: "Landfill",
  incineration: "Incineration (energy recovery)",
  recycling: "Recycling",
  composting: "Composting",
  anaerobic_digestion: "Anaerobic digestion",
  reuse: "Reuse",
};

export const TRAVEL_MODE_WORDS: Readonly<Record<TravelMode, string>> = {
  car: "Car",
  flight: "Flight",
  train: "Train",
  bus: "Bus",
  bike: "Bike",
  walk: "Walk",
};

export const DATA_QUALITY_WORDS: Readonly<Record<DataQuality, string>> = {
  measured: "Measured",
  estimated: "Estimated",
};
