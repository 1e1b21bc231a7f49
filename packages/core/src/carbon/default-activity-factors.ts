// Types only: the set's schema (emission-factors.ts) validates these entries when it parses the default set.
import type { ActivityFactorEntry } from "./activity-factors.ts";

/**
 * The default set's activity factors (DEFAULT_EMISSION_FACTORS.activities). Unless an entry
 * names its own source, each is a "kg CO2e" factor of the UK Government GHG Conversion Factors
 * for Company Reporting 2023 (DESNZ), full set, version 1.1; the comment above each group names
 * the table and rows. Values are rounded to five decimal places, as the travel factors are.
 *
 * What the 2023 tables do not publish is left out, so records of it are unpriced (null) rather
 * than priced by a guess: electricity outside GB, hotel stays in countries the table leaves
 * blank, recycled textiles, and the materials and waste streams listed in docs/api.md.
 */

/**
 * "Fuels" (Scope 1): per litre, per tonne (kg records convert) and per kWh (Gross CV).
 * Diesel and petrol are the "average biofuel blend" rows, what UK pumps sell.
 */
const FUEL_ROWS: [
  fuel: NonNullable<ActivityFactorEntry["fuel"]>,
  unit: ActivityFactorEntry["unit"],
  factor: number,
  row: string,
][] = [
  ["diesel", "litres", 2.51206, "Liquid fuels - Diesel (average biofuel blend), litres"],
  ["diesel", "tonnes", 3015.65462, "Liquid fuels - Diesel (average biofuel blend), tonnes"],
  ["diesel", "kWh", 0.23908, "Liquid fuels - Diesel (average biofuel blend), kWh (Gross CV)"],
  ["petrol", "litres", 2.09747, "Liquid fuels - Petrol (average biofuel blend), litres"],
  ["petrol", "tonnes", 2806.65935, "Liquid fuels - Petrol (average biofuel blend), tonnes"],
  ["petrol", "kWh", 0.22166, "Liquid fuels - Petrol (average biofuel blend), kWh (Gross CV)"],
  ["lpg", "litres", 1.55713, "Gaseous fuels - LPG, litres"],
  ["lpg", "tonnes", 2939.36095, "Gaseous fuels - LPG, tonnes"],
  ["lpg", "kWh", 0.2145, "Gaseous fuels - LPG, kWh (Gross CV)"],
  // Natural gas has no per-litre row (its volume row is per cubic metre, a unit a fuel record cannot hold).
  ["natural_gas", "tonnes", 2562.57441, "Gaseous fuels - Natural gas, tonnes"],
  ["natural_gas", "kWh", 0.18293, "Gaseous fuels - Natural gas, kWh (Gross CV)"],
];
/**
 * HVO: "Bioenergy" - "Biofuel" - "Biodiesel HVO", per litre and per kg (its energy row is per GJ,
 * not kWh, so HVO in kWh is unpriced). Scope 1 CH4 and N2O only: the biogenic CO2 is reported
 * outside the scopes, as the table directs.
 */
const FUELS: ActivityFactorEntry[] = [
  ...FUEL_ROWS.map(
    ([fuel, unit, factor, row]) => ({ kind: "fuel", fuel, unit, factor, name: `Fuels - ${row}` }) as const,
  ),
  { kind: "fuel", fuel: "hvo", unit: "litres", factor: 0.03558, name: "Bioenergy - Biofuel - Biodiesel HVO, litres" },
  { kind: "fuel", fuel: "hvo", unit: "kg", factor: 0.04562, name: "Bioenergy - Biofuel - Biodiesel HVO, kg" },
];

/**
 * "UK electricity" - "Electricity generated" - "Electricity: UK" (Scope 2, location-based),
 * without transmission and distribution losses (Scope 3, another table). Grid electricity in
 * another country is unpriced; renewable sources are 0 by rule (activity-factors.ts).
 */
const ELECTRICITY: ActivityFactorEntry[] = [
  {
    kind: "electricity",
    country: "GB",
    unit: "kWh",
    factor: 0.20707,
    name: "UK electricity - Electricity generated - Electricity: UK",
  },
];

/**
 * "Hotel stay", kg CO2e per room per night, every country the table gives a value for (ISO
 * 3166-1 alpha-2). GB is the "UK" row (the table's "UK (London)" row, 11.5, has no country code
 * of its own). The table lists 16 more countries with no value (Argentina, Austria, Czech
 * Republic, Fiji, Finland, Greece, Ireland, Israel, Kazakhstan, Macau, New Zealand, Panama,
 * Peru, Poland, Romania, Taiwan): stays there are unpriced.
 */
const HOTEL_STAYS: [country: string, row: string, factor: number][] = [
  ["GB", "UK", 10.4],
  ["AU", "Australia", 35],
  ["BE", "Belgium", 12.2],
  ["BR", "Brazil", 8.7],
  ["CA", "Canada", 7.4],
  ["CL", "Chile", 27.6],
  ["CN", "China", 53.5],
  ["CO", "Colombia", 14.7],
  ["CR", "Costa Rica", 4.7],
  ["EG", "Egypt", 44.2],
  ["FR", "France", 6.7],
  ["DE", "Germany", 13.2],
  ["HK", "Hong Kong, China", 51.5],
  ["IN", "India", 58.9],
  ["ID", "Indonesia", 62.7],
  ["IT", "Italy", 14.3],
  ["JP", "Japan", 39],
  ["JO", "Jordan", 68.9],
  ["KR", "Korea", 55.8],
  ["MY", "Malaysia", 61.5],
  ["MV", "Maldives", 152.2],
  ["MX", "Mexico", 19.3],
  ["NL", "Netherlands", 14.8],
  ["OM", "Oman", 90.3],
  ["PH", "Philippines", 54.3],
  ["PT", "Portugal", 19],
  ["QA", "Qatar", 86.2],
  ["RU", "Russian Federation", 24.2],
  ["SA", "Saudi Arabia", 106.4],
  ["SG", "Singapore", 24.5],
  ["ZA", "South Africa", 51.4],
  ["ES", "Spain", 7],
  ["CH", "Switzerland", 6.6],
  ["TH", "Thailand", 43.4],
  ["TR", "Turkey", 32.1],
  ["AE", "United Arab Emirates", 63.8],
  ["US", "United States", 16.1],
  ["VN", "Vietnam", 38.5],
];
const ACCOMMODATION: ActivityFactorEntry[] = HOTEL_STAYS.map(([country, row, factor]) => ({
  kind: "accommodation",
  country,
  unit: "room_nights",
  factor,
  name: `Hotel stay - ${row}, room per night`,
}));

/**
 * "Material use", per tonne: "Primary material production" prices virgin material
 * (recycledContent false), "Closed-loop source" recycled material (true). Textiles are the
 * "Clothing" row, which publishes no closed-loop value (recycled textiles are unpriced); no
 * row fits "mixed" materials, which are unpriced.
 */
const MATERIAL_ROWS: [material: ActivityFactorEntry["material"], row: string, virgin: number, recycled?: number][] = [
  ["paper", "Paper - Paper and board: paper", 910.4781, 730.4781],
  ["card", "Paper - Paper and board: board", 801.52177, 699.88184],
  ["plastic", "Plastic - Plastics: average plastics", 3102.44851, 2322.22425],
  ["textiles", "Other - Clothing", 22310],
  ["timber", "Construction - Wood", 312.61178, 112.96968],
  ["metal", "Construction - Metals", 4005.13778, 1558.94894],
  ["glass", "Other - Glass", 1402.76667, 823.18954],
];
const MATERIALS: ActivityFactorEntry[] = MATERIAL_ROWS.flatMap(([material, row, virgin, recycled]) => [
  {
    kind: "materials",
    material,
    recycledContent: false,
    unit: "tonnes",
    factor: virgin,
    name: `Material use - ${row} - Primary material production`,
  } satisfies ActivityFactorEntry,
  ...(recycled === undefined
    ? []
    : [
        {
          kind: "materials",
          material,
          recycledContent: true,
          unit: "tonnes",
          factor: recycled,
          name: `Material use - ${row} - Closed-loop source`,
        } satisfies ActivityFactorEntry,
      ]),
]);

/**
 * "Waste disposal", per tonne, by material and method: "Landfill" prices landfill,
 * "Combustion" incineration, "Closed-loop" recycling (where the table also gives "Open-loop",
 * its value is the same), "Composting" and "Anaerobic digestion" themselves. The table gives no
 * "Re-use" value in 2023, so re-use is unpriced. Metal is the "Metal: scrap metal" row, food
 * "Refuse - Organic: food and drink waste".
 */
const WASTE_ROWS: [
  material: ActivityFactorEntry["material"],
  row: string,
  streams: Partial<Record<NonNullable<ActivityFactorEntry["stream"]>, number>>,
][] = [
  [
    "paper",
    "Paper - Paper and board: paper",
    { landfill: 1164.39042, incineration: 21.28081, recycling: 21.28081, composting: 8.91242 },
  ],
  [
    "card",
    "Paper - Paper and board: board",
    { landfill: 1164.39042, incineration: 21.28081, recycling: 21.28081, composting: 8.91242 },
  ],
  [
    "plastic",
    "Plastic - Plastics: average plastics",
    { landfill: 8.88413, incineration: 21.28081, recycling: 21.28081 },
  ],
  ["textiles", "Other - Clothing", { landfill: 496.68331, incineration: 21.28081, recycling: 21.28081 }],
  [
    "timber",
    "Construction - Wood",
    { landfill: 925.2445, incineration: 21.28081, recycling: 21.28081, composting: 8.91242 },
  ],
  ["metal", "Metal - Metal: scrap metal", { landfill: 8.88413, incineration: 21.28081, recycling: 21.28081 }],
  ["glass", "Other - Glass", { landfill: 8.88413, incineration: 21.28081, recycling: 21.28081 }],
  [
    "food",
    "Refuse - Organic: food and drink waste",
    { landfill: 700.20988, incineration: 21.28081, composting: 8.91242, anaerobic_digestion: 8.91242 },
  ],
];
/** The table's column name of each stream. */
const WASTE_METHODS = {
  landfill: "Landfill",
  incineration: "Combustion",
  recycling: "Closed-loop",
  composting: "Composting",
  anaerobic_digestion: "Anaerobic digestion",
  reuse: "Re-use",
} as const;
const WASTE: ActivityFactorEntry[] = [
  ...WASTE_ROWS.flatMap(([material, row, streams]) =>
    (Object.entries(streams) as [keyof typeof WASTE_METHODS, number][]).map(
      ([stream, factor]) =>
        ({
          kind: "waste",
          material,
          stream,
          unit: "tonnes",
          factor,
          name: `Waste disposal - ${row} - ${WASTE_METHODS[stream]}`,
        }) satisfies ActivityFactorEntry,
    ),
  ),
  // Waste of no named material (or "mixed", or a material without a row for the stream):
  // "Refuse - Commercial and industrial waste", which has landfill and combustion only.
  {
    kind: "waste",
    stream: "landfill",
    unit: "tonnes",
    factor: 520.33474,
    name: "Waste disposal - Refuse - Commercial and industrial waste - Landfill",
  },
  {
    kind: "waste",
    stream: "incineration",
    unit: "tonnes",
    factor: 21.28081,
    name: "Waste disposal - Refuse - Commercial and industrial waste - Combustion",
  },
];

/**
 * "Freighting goods", per tonne.km. A freight record carries no distance, so air is one row:
 * "Freight flights - Short-haul, to/from UK, With RF" (radiative forcing included, as for
 * passenger flights), taken as an event's typical air freight (within Europe); the long-haul
 * and "International, to/from non-UK" rows give 1.09903, the domestic row 4.67340.
 */
const FREIGHT_ROWS: [mode: NonNullable<ActivityFactorEntry["mode"]>, factor: number, row: string][] = [
  ["van", 0.5706, "Vans - Average (up to 3.5 tonnes) - Diesel"],
  ["hgv", 0.09696, "HGV (all diesel) - All HGVs - Average laden"],
  ["rail", 0.02779, "Rail - Freight train"],
  ["air", 1.66816, "Freight flights - Short-haul, to/from UK, With RF"],
  ["sea", 0.01612, "Cargo ship - Container ship - Average"],
];
const FREIGHT: ActivityFactorEntry[] = FREIGHT_ROWS.map(([mode, factor, row]) => ({
  kind: "freight",
  mode,
  unit: "tonne_km",
  factor,
  name: `Freighting goods - ${row}`,
}));

/**
 * Water: a cubic metre used is supplied and then treated, so one entry is the sum of "Water
 * supply" (0.17668) and "Water treatment" (0.20132), per cubic metre.
 */
const WATER: ActivityFactorEntry[] = [
  {
    kind: "water",
    unit: "m3",
    factor: 0.378,
    name: "Water supply (0.17668) + Water treatment (0.20132), cubic metres",
  },
];

/**
 * Catering is not in the UK tables. Scarborough et al. (2014) give the greenhouse gas emissions
 * of a 2,000 kcal day's diet by diet group (age-and-sex-adjusted means, kg CO2e per day); a meal
 * is taken as a third of a day (rounded to five decimals): meat 5.63 (medium meat-eaters, 50-99 g
 * of meat a day; the paper's high and low meat-eaters are 7.19 and 4.67), fish 3.91
 * (fish-eaters), vegetarian 3.81, vegan 2.89.
 */
const SCARBOROUGH_2014 = {
  source:
    "Scarborough P. et al. (2014), Dietary greenhouse gas emissions of meat-eaters, fish-eaters, vegetarians and vegans in the UK, Climatic Change 125:179-192",
  year: 2014,
  url: "https://doi.org/10.1007/s10584-014-1169-1",
} as const;
const DIETS: [mealType: NonNullable<ActivityFactorEntry["mealType"]>, group: string, perDay: number][] = [
  ["meat", "medium meat-eaters", 5.63],
  ["fish", "fish-eaters", 3.91],
  ["vegetarian", "vegetarians", 3.81],
  ["vegan", "vegans", 2.89],
];
const CATERING: ActivityFactorEntry[] = DIETS.map(([mealType, group, perDay]) => ({
  kind: "catering",
  mealType,
  unit: "meals",
  factor: Number((perDay / 3).toFixed(5)),
  name: `Diet of ${group}: ${perDay} kg CO2e per 2,000 kcal day, divided by 3 meals a day`,
  ...SCARBOROUGH_2014,
}));

export const DEFAULT_ACTIVITY_FACTORS: readonly ActivityFactorEntry[] = [
  ...ELECTRICITY,
  ...FUELS,
  ...CATERING,
  ...ACCOMMODATION,
  ...MATERIALS,
  ...FREIGHT,
  ...WASTE,
  ...WATER,
];
