import * as z from "zod";
import { ELECTRICITY_SOURCES, FUEL_UNITS, FUELS, WASTE_STREAMS } from "../carbon/activity-kinds.ts";
import { EVENT_STATUSES } from "../resources/event.ts";
import { type CarbonSettings, offsetKg } from "../carbon/carbon-settings.ts";
import { type EmissionFactorSet, factorBands, TRAVEL_MODES, type TravelMode } from "../carbon/emission-factors.ts";
import { ACTIVE_ATTENDEE_STATUSES } from "../rules/attendee-status.ts";
import { goalStatuses } from "../rules/goals.ts";
import { vendorFiguresOf } from "../rules/local-sourcing.ts";
import type { EventAnalyticsFigures } from "./analytics-figures.ts";
import { Methodology, methodologyOf } from "./methodology.ts";
import { travelModeBreakdown } from "./sustainability-report.ts";
import { percent, round3 } from "./statistics.ts";
import { GoalProgress } from "./event-analytics.ts";
import {
  activityDetail,
  buildFootprint,
  FOOTPRINT_KINDS,
  Footprint,
  kindFigures,
  measuredResources,
} from "./footprint.ts";

/**
 * The sustainability report of one event (`GET /v1/events/:id/sustainability-report`): the data
 * the JSON answer carries and the printable page (`renderReportPage`) is drawn from. Every figure
 * the page shows is one of these numbers; a null is a figure that has nothing to be computed
 * from (no records), which the page says in words rather than printing 0.
 */

const Kg = z.number().min(0);
const NullableNum = z.number().nullable();
const NullablePercent = z.number().nullable();

const ReportEvent = z.object({
  id: z.string(),
  name: z.string(),
  status: z.enum(EVENT_STATUSES),
  category: z.string(),
  startDate: z.string(),
  endDate: z.string(),
  timeZone: z
    .string()
    .nullable()
    .meta({ description: "The IANA time zone the page shows the times in; null: UTC. The dates here stay UTC." }),
  location: z.object({ city: z.string(), country: z.string() }),
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
    footprint: Footprint,
    offsets: ReportOffsets,
    waste: ReportWaste,
    energy: ReportEnergy,
    travel: ReportTravel,
    goals: z.array(GoalProgress),
    factors: z.array(ReportFactor).meta({ description: "Every factor used by the figures, with its source and year." }),
  })
  .meta({
    description: "An event's sustainability report: its footprint, waste, energy, travel, goals and methodology.",
  });
export type SustainabilityReportDocument = z.output<typeof SustainabilityReportDocument>;

/**
 * The report of one event from its analytics figures (the storage's aggregates): the same
 * footprint, goals and measured waste and energy as `GET /analytics/events/:id` shows, with the
 * detail the page draws (waste by stream, electricity by source, fuels, staff travel) and every
 * factor that priced a figure. Pure.
 */
export function buildReportDocument(
  figures: EventAnalyticsFigures,
  carbon: CarbonSettings,
  factors: EmissionFactorSet,
  at: string,
): SustainabilityReportDocument {
  const { event } = figures;
  const active = ACTIVE_ATTENDEE_STATUSES.reduce((sum, status) => sum + figures.statuses[status], 0);
  const travel = figures.byMode.filter((m) => m.mode !== null);
  const travelKg = travel.reduce((sum, m) => sum + m.emissionsKg, 0);
  const travelReported = travel.reduce((sum, m) => sum + m.registrations, 0);
  const offsetUsd = figures.byMode.reduce((sum, m) => sum + m.offsetUsd, 0);
  const offset = offsetKg(offsetUsd, carbon);
  const footprint = buildFootprint({
    travelEmissionsKg: travelKg,
    travelReported,
    active,
    kinds: kindFigures(figures.activityGroups),
  });
  const detail = activityDetail(figures.activityGroups);
  const measured = measuredResources(figures.activities);
  const kept = {
    activeRegistrations: active,
    emissionsKg: travelKg,
    offsetUsd,
    travelReported,
    lowCarbonTravel: 0,
    waitlisted: figures.statuses.waitlisted,
  };
  // Each band of the factors that priced a registration, with how many it priced.
  const order = (mode: string) => TRAVEL_MODES.indexOf(mode as TravelMode);
  const bands = [...figures.travelBands].sort((a, b) => order(a.mode) - order(b.mode) || a.band - b.band);
  const travelFactors = bands.flatMap(({ mode, band: index, registrations }) => {
    const band = factorBands(factors, mode as TravelMode)[index];
    if (!band || registrations === 0) return [];
    return [
      {
        kind: "attendee_travel" as const,
        name: band.description ?? `Travel - ${band.mode}`,
        value: band.factor,
        unit: band.unit,
        source: factors.source,
        year: factors.year,
        records: registrations,
      },
    ];
  });
  return {
    event: {
      id: event.id,
      name: event.name,
      status: event.status,
      category: event.category,
      startDate: event.startDate,
      endDate: event.endDate,
      timeZone: event.timeZone,
      location: { city: event.location.city, country: event.location.country },
    },
    generatedAt: at,
    methodology: methodologyOf(factors, carbon),
    footprint,
    offsets: { offsetKg: round3(offset), coveragePercent: percent(offset, footprint.totalEmissionsKg) },
    waste: {
      totalKg: measured.measuredWasteKg,
      byStream: detail.wasteByStream.map(({ stream, kg }) => ({ stream, kg })),
      diversionRatePercent: measured.diversionRatePercent,
      recyclingRatePercent: measured.recyclingRatePercent,
    },
    energy: {
      electricityKwh: measured.measuredEnergyKwh,
      bySource: detail.electricityBySource,
      renewableSharePercent: measured.renewableSharePercent,
      fuels: detail.fuels,
    },
    travel: {
      byMode: travelModeBreakdown(figures.byMode)
        .filter((m) => m.registrations > 0)
        .map(({ mode, registrations, distanceKm, emissionsKg }) => ({ mode, registrations, distanceKm, emissionsKg })),
      staffByMode: detail.staffByMode,
    },
    goals: goalStatuses(
      event.sustainabilityGoals,
      {
        capacity: event.capacity,
        kept,
        activities: figures.activities,
        vendors: vendorFiguresOf(event, figures.confirmedVendors, carbon),
      },
      carbon,
    ),
    factors: [...travelFactors, ...detail.factors],
  };
}
