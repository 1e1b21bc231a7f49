import * as z from "zod";
import { ACTIVITY_KINDS, ELECTRICITY_SOURCES, FUEL_UNITS, FUELS, WASTE_STREAMS } from "../carbon/activity-kinds.ts";
import { TRAVEL_MODES } from "../carbon/emission-factors.ts";
import { EVENT_STATUSES } from "../rules/event-status.ts";
import { Methodology } from "./methodology.ts";

/**
 * The sustainability report of one event (`GET /v1/events/:id/sustainability-report`): the data
 * the JSON answer carries and the printable page (`renderReportPage`) is drawn from. Every figure
 * the page shows is one of these numbers; a null is a figure that has nothing to be computed
 * from (no records), which the page says in words rather than printing 0.
 */

const Kg = z.number().min(0);
const NullableNum = z.number().nullable();
const NullablePercent = z.number().nullable();

/** The kinds of the footprint: every activity kind, and the attendees' own travel. */
export const FOOTPRINT_KINDS = [...ACTIVITY_KINDS, "attendee_travel"] as const;
export type FootprintKind = (typeof FOOTPRINT_KINDS)[number];

/** The goals an event can set, as `sustainability.goal_achieved` names them. */
export const GOAL_TYPES = ["carbon_neutral", "renewable_energy", "waste_reduction", "local_sourcing"] as const;
export type GoalType = (typeof GOAL_TYPES)[number];

const ReportEvent = z.object({
  id: z.string(),
  name: z.string(),
  status: z.enum(EVENT_STATUSES),
  category: z.string(),
  startDate: z.string(),
  endDate: z.string(),
  location: z.object({ city: z.string(), country: z.string() }),
});

const ReportFootprint = z.object({
  totalEmissionsKg: Kg.meta({ description: "kg CO2e: attendee travel plus every priced activity." }),
  byKind: z
    .array(
      z.object({
        kind: z.enum(FOOTPRINT_KINDS),
        emissionsKg: Kg,
        records: z.int().min(0).meta({
          description: "Activity records of the kind; for attendee_travel, the registrations that report travel.",
        }),
      }),
    )
    .meta({ description: "One entry per kind with records, in the order the page shows them." }),
  byScope: z
    .object({ scope1Kg: Kg, scope2Kg: Kg, scope3Kg: Kg })
    .meta({ description: "GHG Protocol scopes: 1 fuels burned on site, 2 electricity (location-based), 3 the rest." }),
  perAttendeeKg: NullableNum.meta({ description: "totalEmissionsKg / active registrations; null without any." }),
  measuredSharePercent: NullablePercent.meta({
    description: "Share of activity emissions from records of dataQuality `measured`; null without activity emissions.",
  }),
  unpricedKinds: z
    .array(z.enum(ACTIVITY_KINDS))
    .meta({ description: "Kinds with records the factor set has no factor for: not in the totals." }),
});

const ReportOffsets = z.object({
  offsetKg: Kg.meta({ description: "kg CO2e offset by the event's attendees." }),
  coveragePercent: NullablePercent.meta({
    description: "offsetKg / totalEmissionsKg x 100; null when the total is 0.",
  }),
});

const ReportWaste = z.object({
  totalKg: NullableNum.meta({ description: "Every waste record's kg; null when none is recorded." }),
  byStream: z.array(z.object({ stream: z.enum(WASTE_STREAMS), kg: Kg })),
  diversionRatePercent: NullablePercent.meta({ description: "kg not landfilled or incinerated / totalKg x 100." }),
  recyclingRatePercent: NullablePercent.meta({ description: "Recycling kg / totalKg x 100." }),
});

const ReportEnergy = z.object({
  electricityKwh: NullableNum.meta({ description: "Every electricity record's kWh; null when none is recorded." }),
  bySource: z.array(z.object({ source: z.enum(ELECTRICITY_SOURCES), kWh: Kg })),
  renewableSharePercent: NullablePercent.meta({
    description: "kWh from a renewable tariff or on-site generation / electricityKwh x 100.",
  }),
  fuels: z
    .array(
      z.object({
        fuel: z.enum(FUELS),
        unit: z.enum(FUEL_UNITS),
        quantity: Kg,
        emissionsKg: Kg.nullable().meta({ description: "Null when the factor set does not price this fuel and unit." }),
      }),
    )
    .meta({ description: "Fuels burned on site, one entry per fuel and unit." }),
});

const ReportTravel = z.object({
  byMode: z.array(
    z.object({ mode: z.enum(TRAVEL_MODES), registrations: z.int().min(0), distanceKm: Kg, emissionsKg: Kg }),
  ),
  staffByMode: z.array(z.object({ mode: z.enum(TRAVEL_MODES), passengerKm: Kg, emissionsKg: Kg })),
});

const ReportGoal = z.object({
  type: z.enum(GOAL_TYPES),
  set: z.boolean().meta({ description: "Whether the event sets this goal." }),
  met: z
    .boolean()
    .nullable()
    .meta({ description: "Null when the goal is not set or cannot be measured (no records)." }),
  target: NullableNum.meta({ description: "The goal's number where it has one (wasteReduction: a percentage)." }),
  metrics: z
    .record(z.string(), z.number())
    .meta({ description: "The figures the goal was judged by (kg for emissions and offsets, percentages)." }),
});

const ReportFactor = z.object({
  kind: z.enum(FOOTPRINT_KINDS),
  name: z.string(),
  value: z.number().meta({ description: "kg CO2e per `unit`" }),
  unit: z.string(),
  source: z.string(),
  year: z.int(),
  records: z.int().min(0).meta({ description: "How many records (or registrations) this factor priced." }),
});

/** The sustainability report of one event: the JSON answer, and what the HTML page is drawn from. */
export const SustainabilityReportDocument = z
  .object({
    event: ReportEvent,
    generatedAt: z.string().meta({ description: "When the report was computed (ISO 8601)." }),
    methodology: Methodology,
    footprint: ReportFootprint,
    offsets: ReportOffsets,
    waste: ReportWaste,
    energy: ReportEnergy,
    travel: ReportTravel,
    goals: z.array(ReportGoal),
    factors: z.array(ReportFactor).meta({ description: "Every factor used by the figures, with its source and year." }),
  })
  .meta({
    id: "SustainabilityReportDocument",
    description: "An event's sustainability report: its footprint, waste, energy, travel, goals and methodology.",
  });
export type SustainabilityReportDocument = z.output<typeof SustainabilityReportDocument>;
