/**
 * A festival's sustainability report document, for the report page's unit tests (the root
 * browser test reads the real service's report and takes only `reportFigures` from here): a
 * diesel generator, grid and renewable electricity, 3,000 meals, 12 t of waste in four streams,
 * 400 room-nights, 20 tonne-km of freight, staff and attendee travel, and water that the factor
 * set does not price. Its factors are round test numbers, not published factors; every figure is
 * worked out from them in the comments, so the totals agree with each other as the service's
 * would.
 */
import type { SustainabilityReportDocument } from "../src/analytics/report-document.ts";

const FIXTURE_SOURCE = "Test fixture factors (round numbers, not published factors)";

// Activities, kg CO2e = quantity x factor:
//   diesel 2,000 l x 2.5 = 5,000 (scope 1, measured)
//   grid 8,000 kWh x 0.2 = 1,600; renewable tariff 2,000 kWh x 0 = 0 (scope 2, measured)
//   meals: meat 1,000 x 5 = 5,000, vegetarian 1,500 x 1.5 = 2,250, vegan 500 x 1 = 500 (estimated)
//   waste: landfill 3,000 kg x 0.5 = 1,500, incineration 2,000 x 0.02 = 40,
//          recycling 5,000 x 0.02 = 100, composting 2,000 x 0.01 = 20 (measured)
//   accommodation 400 room-nights x 10 = 4,000 (measured); freight 20 t-km x 0.1 = 2 (measured)
//   staff travel by car 5,000 passenger-km x 0.17 = 850 (estimated); water 100 m3 (unpriced)
// Attendee travel: car 50,000 km x 0.17 = 8,500; train 200,000 x 0.035 = 7,000;
//   flight 300,000 x 0.25 = 75,000; bike 3,000 x 0 = 0: 90,500 kg from 3,500 registrations.
// Activities 5,000 + 1,600 + 7,750 + 1,660 + 4,000 + 2 + 850 = 20,862; total 111,362.
// Measured: 20,862 - 7,750 - 850 = 12,262, 58.77672...% of 20,862.
// Scope 3: 7,750 + 1,660 + 4,000 + 2 + 850 + 90,500 = 104,762.

/** The active registrations of the festival: perAttendeeKg = 111,362 / 5,000. */
export const FESTIVAL_ATTENDEES = 5_000;

/** The festival's report, as the service would answer it in JSON. */
export const FESTIVAL_REPORT: SustainabilityReportDocument = {
  event: {
    id: "evt_festival0000000000001",
    name: "Green Fields Festival",
    status: "completed",
    category: "festival",
    startDate: "2038-07-09T12:00:00.000Z",
    endDate: "2038-07-11T23:00:00.000Z",
    timeZone: null,
    location: { city: "Glastonbury", country: "GB" },
  },
  generatedAt: "2038-07-12T08:30:00.000Z",
  methodology: {
    emissionFactors: { name: "Fixture factor set", year: 2024, source: FIXTURE_SOURCE },
    offsetPriceUsdPerTonne: 15,
  },
  footprint: {
    totalEmissionsKg: 111_362,
    byKind: [
      { kind: "attendee_travel", emissionsKg: 90_500, records: 3_500 },
      { kind: "catering", emissionsKg: 7_750, records: 3 },
      { kind: "fuel", emissionsKg: 5_000, records: 1 },
      { kind: "accommodation", emissionsKg: 4_000, records: 1 },
      { kind: "waste", emissionsKg: 1_660, records: 4 },
      { kind: "electricity", emissionsKg: 1_600, records: 2 },
      { kind: "staff_travel", emissionsKg: 850, records: 1 },
      { kind: "freight", emissionsKg: 2, records: 1 },
    ],
    byScope: { scope1Kg: 5_000, scope2Kg: 1_600, scope3Kg: 104_762 },
    perAttendeeKg: 111_362 / FESTIVAL_ATTENDEES,
    measuredSharePercent: (12_262 / 20_862) * 100,
    unpricedKinds: ["water"],
  },
  offsets: { offsetKg: 60_000, coveragePercent: (60_000 / 111_362) * 100 },
  waste: {
    totalKg: 12_000,
    byStream: [
      { stream: "recycling", kg: 5_000 },
      { stream: "landfill", kg: 3_000 },
      { stream: "incineration", kg: 2_000 },
      { stream: "composting", kg: 2_000 },
    ],
    diversionRatePercent: (7_000 / 12_000) * 100,
    recyclingRatePercent: (5_000 / 12_000) * 100,
  },
  energy: {
    electricityKwh: 10_000,
    bySource: [
      { source: "grid", kWh: 8_000 },
      { source: "renewable_tariff", kWh: 2_000 },
    ],
    renewableSharePercent: 20,
    fuels: [{ fuel: "diesel", unit: "litres", quantity: 2_000, emissionsKg: 5_000 }],
  },
  travel: {
    byMode: [
      { mode: "flight", registrations: 200, distanceKm: 300_000, emissionsKg: 75_000 },
      { mode: "car", registrations: 1_000, distanceKm: 50_000, emissionsKg: 8_500 },
      { mode: "train", registrations: 2_000, distanceKm: 200_000, emissionsKg: 7_000 },
      { mode: "bike", registrations: 300, distanceKm: 3_000, emissionsKg: 0 },
    ],
    staffByMode: [{ mode: "car", passengerKm: 5_000, emissionsKg: 850 }],
  },
  goals: [
    {
      type: "carbon_neutral",
      set: true,
      met: false,
      target: null,
      metrics: { totalEmissionsKg: 111_362, offsetKg: 60_000 },
    },
    { type: "renewable_energy", set: true, met: false, target: null, metrics: { renewableSharePercent: 20 } },
    {
      type: "waste_reduction",
      set: true,
      met: true,
      target: 50,
      metrics: { diversionRatePercent: (7_000 / 12_000) * 100, targetPercent: 50 },
    },
    { type: "local_sourcing", set: false, met: null, target: null, metrics: {} },
  ],
  factors: [
    {
      kind: "fuel",
      name: "Diesel (average biofuel blend)",
      value: 2.5,
      unit: "kg CO2e per litre",
      source: FIXTURE_SOURCE,
      year: 2024,
      records: 1,
    },
    {
      kind: "electricity",
      name: "Electricity: UK grid",
      value: 0.2,
      unit: "kg CO2e per kWh",
      source: FIXTURE_SOURCE,
      year: 2024,
      records: 1,
    },
    {
      kind: "electricity",
      name: "Electricity - renewable tariff (market-based)",
      value: 0,
      unit: "kg CO2e per kWh",
      source: "GHG Protocol Scope 2 Guidance, market-based method (World Resources Institute)",
      year: 2015,
      records: 1,
    },
    {
      kind: "catering",
      name: "Meal, meat",
      value: 5,
      unit: "kg CO2e per meal",
      source: FIXTURE_SOURCE,
      year: 2024,
      records: 1,
    },
    {
      kind: "catering",
      name: "Meal, vegetarian",
      value: 1.5,
      unit: "kg CO2e per meal",
      source: FIXTURE_SOURCE,
      year: 2024,
      records: 1,
    },
    {
      kind: "catering",
      name: "Meal, vegan",
      value: 1,
      unit: "kg CO2e per meal",
      source: FIXTURE_SOURCE,
      year: 2024,
      records: 1,
    },
    {
      kind: "accommodation",
      name: "Hotel stay: UK",
      value: 10,
      unit: "kg CO2e per room-night",
      source: FIXTURE_SOURCE,
      year: 2024,
      records: 1,
    },
    {
      kind: "freight",
      name: "HGV, average laden",
      value: 0.1,
      unit: "kg CO2e per tonne-km",
      source: FIXTURE_SOURCE,
      year: 2024,
      records: 1,
    },
    {
      kind: "waste",
      name: "Waste: landfill",
      value: 0.5,
      unit: "kg CO2e per kg",
      source: FIXTURE_SOURCE,
      year: 2024,
      records: 1,
    },
    {
      kind: "waste",
      name: "Waste: combustion",
      value: 0.02,
      unit: "kg CO2e per kg",
      source: FIXTURE_SOURCE,
      year: 2024,
      records: 1,
    },
    {
      kind: "waste",
      name: "Waste: closed-loop recycling",
      value: 0.02,
      unit: "kg CO2e per kg",
      source: FIXTURE_SOURCE,
      year: 2024,
      records: 1,
    },
    {
      kind: "waste",
      name: "Waste: composting",
      value: 0.01,
      unit: "kg CO2e per kg",
      source: FIXTURE_SOURCE,
      year: 2024,
      records: 1,
    },
    {
      kind: "staff_travel",
      name: "Average car",
      value: 0.17,
      unit: "kg CO2e per passenger-km",
      source: FIXTURE_SOURCE,
      year: 2024,
      records: 1,
    },
    {
      kind: "attendee_travel",
      name: "Average car",
      value: 0.17,
      unit: "kg CO2e per passenger-km",
      source: FIXTURE_SOURCE,
      year: 2024,
      records: 1_000,
    },
    {
      kind: "attendee_travel",
      name: "National rail",
      value: 0.035,
      unit: "kg CO2e per passenger-km",
      source: FIXTURE_SOURCE,
      year: 2024,
      records: 2_000,
    },
    {
      kind: "attendee_travel",
      name: "Flight, long-haul",
      value: 0.25,
      unit: "kg CO2e per passenger-km",
      source: FIXTURE_SOURCE,
      year: 2024,
      records: 200,
    },
    {
      kind: "attendee_travel",
      name: "Cycling",
      value: 0,
      unit: "kg CO2e per passenger-km",
      source: FIXTURE_SOURCE,
      year: 2024,
      records: 300,
    },
  ],
};

/**
 * Every figure of a report document under the name the page gives it (`data-figure`): the path
 * of each number (or null), array entries named by their key, factors by position. Event fields
 * and texts are not figures.
 */
export function reportFigures(doc: SustainabilityReportDocument): Map<string, number | null> {
  const figures = new Map<string, number | null>();
  const put = (prefix: string, values: Record<string, unknown>) => {
    for (const [key, value] of Object.entries(values)) {
      if (typeof value === "number" || value === null) figures.set(`${prefix}.${key}`, value);
    }
  };
  const { footprint, offsets, waste, energy, travel } = doc;
  put("footprint", footprint);
  put("footprint.byScope", footprint.byScope);
  for (const entry of footprint.byKind) put(`footprint.byKind.${entry.kind}`, entry);
  put("offsets", offsets);
  put("waste", waste);
  for (const entry of waste.byStream) put(`waste.byStream.${entry.stream}`, entry);
  put("energy", energy);
  for (const entry of energy.bySource) put(`energy.bySource.${entry.source}`, entry);
  for (const entry of energy.fuels) put(`energy.fuels.${entry.fuel}.${entry.unit}`, entry);
  for (const entry of travel.byMode) put(`travel.byMode.${entry.mode}`, entry);
  for (const entry of travel.staffByMode) put(`travel.staffByMode.${entry.mode}`, entry);
  for (const goal of doc.goals) {
    if (goal.target !== null) figures.set(`goals.${goal.type}.target`, goal.target);
    put(`goals.${goal.type}.metrics`, goal.metrics);
  }
  doc.factors.forEach((factor, index) => put(`factors.${index}`, factor));
  put("methodology.emissionFactors", doc.methodology.emissionFactors);
  put("methodology", doc.methodology);
  return figures;
}
