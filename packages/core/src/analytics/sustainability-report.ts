import { Revenue, revenueOf } from "./revenue.ts";
import * as z from "zod";
import { type CarbonSettings, offsetKg } from "../carbon/carbon-settings.ts";
import { DEFAULT_EMISSION_FACTORS, type EmissionFactorSet, TRAVEL_MODES } from "../carbon/emission-factors.ts";
import { type FactorSetUse, Methodology, methodologyOf } from "./methodology.ts";
import { dateParam } from "../resources/common.ts";
import type { AggregateFigures, AnalyticsFigures, ModeFigures } from "./analytics-figures.ts";
import { EventIdsParam } from "./analytics-params.ts";
import { CERTIFICATIONS } from "./certifications.ts";
import { type Bucket, SUSTAINABILITY_GRANULARITIES, type SustainabilityGranularity } from "./date-buckets.ts";
import { percent, round3 } from "./statistics.ts";
import { buildFootprint, Footprint, measuredResources } from "./footprint.ts";

/** Query of `GET /analytics/sustainability`. */
export const SustainabilityQuery = z.strictObject({
  startDate: dateParam(false).optional().meta({
    description:
      "Events starting at or after it (a bare date: its first instant, UTC). Default: the earliest event's start.",
  }),
  endDate: dateParam(true).optional().meta({
    description:
      "Events starting at or before it (a bare date: its last millisecond, UTC). Default: the latest event's start.",
  }),
  eventIds: EventIdsParam.optional(),
  granularity: z
    .enum(SUSTAINABILITY_GRANULARITIES)
    .default("total")
    .meta({ description: "`total` (no series) or the period of the `trend` series." }),
});
export type SustainabilityQuery = z.output<typeof SustainabilityQuery>;

const Num = z.number();
const NullableNum = z.number().nullable();
const Share = z.object({ count: z.int(), percent: NullableNum });

const TravelModeFigures = z.object({
  mode: z.enum(TRAVEL_MODES),
  registrations: z.int(),
  distanceKm: Num,
  emissionsKg: Num,
  emissionsSharePercent: NullableNum.meta({ description: "Of all travel emissions; null when there are none." }),
});

const TrendBucket = z.object({
  period: z.string().meta({ description: "First day of the period, YYYY-MM-DD (UTC; weeks start on Monday)." }),
  startDate: z.string(),
  endDate: z.string(),
  events: z.int(),
  attendance: z.int(),
  emissionsKg: Num,
  offsetKg: Num,
  netEmissionsKg: Num,
  offsetParticipationPercent: NullableNum,
  averageWasteTargetPercent: NullableNum,
  renewableEnergySharePercent: NullableNum,
});

/** The answer of `GET /analytics/sustainability`. */
export const SustainabilityReport = z.object({
  methodology: Methodology,
  range: z.object({
    startDate: z.string().nullable(),
    endDate: z.string().nullable(),
    granularity: z.enum(SUSTAINABILITY_GRANULARITIES),
  }),
  eventIds: z.array(z.string()).nullable(),
  carbonFootprint: z.object({
    totalEmissionsKg: Num,
    totalOffsetKg: Num,
    netEmissionsKg: Num.meta({ description: "Emissions not covered by offsets (0 when offsets exceed them)." }),
    offsetCoveragePercent: NullableNum,
    offsetContributionsUsd: Num,
    emissionsPerAttendeeKg: NullableNum,
    emissionsPerEventKg: NullableNum,
    travelReported: z.int(),
    travelNotReported: z.int(),
    byTravelMode: z.array(TravelModeFigures),
  }),
  wasteReduction: z.object({
    eventsWithTarget: Share,
    averageTargetPercent: NullableNum.meta({ description: "Mean target of the events that set one." }),
    highestTargetPercent: NullableNum,
    measuredWasteKg: NullableNum.meta({ description: "kg of every waste record; null when none is recorded." }),
    diversionRatePercent: NullableNum.meta({
      description: "Waste not landfilled or incinerated, percent of all waste kg.",
    }),
    recyclingRatePercent: NullableNum.meta({ description: "Recycled kg, percent of all waste kg." }),
    note: z.string(),
  }),
  energy: z.object({
    eventsWithRenewableEnergy: Share,
    measuredEnergyKwh: NullableNum.meta({
      description: "kWh of every electricity record; null when none is recorded.",
    }),
    renewableSharePercent: NullableNum.meta({
      description: "Renewable kWh (tariff or on site), percent of electricity kWh.",
    }),
    note: z.string(),
  }),
  footprint: Footprint.meta({
    description:
      "The whole footprint of the events: attendee travel and every activity record (carbonFootprint above is attendee travel, as events' carbonFootprint is).",
  }),
  adoption: z.object({
    events: z.int(),
    carbonNeutral: Share,
    renewableEnergy: Share,
    localSourcing: Share,
    wasteReduction: Share,
    offsetParticipation: Share.meta({ description: "Active registrations that opted to offset." }),
    lowCarbonTravel: Share.meta({
      description:
        "Active registrations that reported travel by train, bus, bike or on foot (percent of those reporting travel).",
    }),
  }),
  certifications: z.object({
    carbonNeutral: Share,
    lowCarbonTravel: Share,
    gold: Share,
    silver: Share,
    bronze: Share,
    criteria: z.object({
      carbonNeutral: z.string(),
      lowCarbonTravel: z.string(),
      gold: z.string(),
      silver: z.string(),
      bronze: z.string(),
    }),
  }),
  trend: z.array(TrendBucket).nullable().meta({
    description: "One entry per period of the range (empty periods included, with zeros); null for granularity total.",
  }),
  financial: z.object({
    revenue: z.array(Revenue).meta({ description: "The events' ticket money per currency, in its minor unit." }),
  }),
  summary: z.object({
    events: z.int(),
    attendance: z.int(),
    checkedIn: z.int(),
    checkInRatePercent: NullableNum,
    sustainabilityScore: z.object({ mean: Num, standardDeviation: Num, min: Num, max: Num }).nullable(),
    emissionsPerEventKg: z.object({ mean: Num, min: Num, max: Num }).nullable(),
  }),
});
export type SustainabilityReport = z.infer<typeof SustainabilityReport>;

/** Travel figures of every mode, in `TRAVEL_MODES` order (modes nobody used are zeros). */
export function travelModeBreakdown(byMode: readonly ModeFigures[]) {
  const total = byMode.reduce((sum, m) => sum + m.emissionsKg, 0);
  return TRAVEL_MODES.map((mode) => {
    const row = byMode.find((m) => m.mode === mode);
    return {
      mode,
      registrations: row?.registrations ?? 0,
      distanceKm: round3(row?.distanceKm ?? 0),
      emissionsKg: round3(row?.emissionsKg ?? 0),
      emissionsSharePercent: percent(row?.emissionsKg ?? 0, total),
    };
  });
}

const share = (count: number, whole: number) => ({ count, percent: percent(count, whole) });

function bucketFigures(bucket: Bucket, figures: AggregateFigures | undefined, carbon: CarbonSettings) {
  const f = figures;
  const offset = offsetKg(f?.offsetUsd ?? 0, carbon);
  return {
    ...bucket,
    events: f?.events ?? 0,
    attendance: f?.attendance ?? 0,
    emissionsKg: round3(f?.emissionsKg ?? 0),
    offsetKg: round3(offset),
    netEmissionsKg: round3(Math.max(0, (f?.emissionsKg ?? 0) - offset)),
    offsetParticipationPercent: percent(f?.offsetOpted ?? 0, f?.attendance ?? 0),
    averageWasteTargetPercent: f?.events ? round3(f.wasteTargetSum / f.events) : null,
    renewableEnergySharePercent: percent(f?.goals.renewableEnergy ?? 0, f?.events ?? 0),
  };
}

/** Inputs of {@link buildSustainabilityReport}. */
export interface SustainabilityReportInput {
  granularity: SustainabilityGranularity;
  range: { startDate: string | null; endDate: string | null };
  eventIds: string[] | null;
  /** Every period of the range (for a granularity other than total). */
  buckets: Bucket[];
  figures: AnalyticsFigures;
  carbon: CarbonSettings;
  /** The factor set of the figures (named in `methodology`). Default `DEFAULT_EMISSION_FACTORS`. */
  factors?: EmissionFactorSet;
  /** The sets that priced the events (`factorSetsUsed`), named in `methodology` when there are several. */
  factorSetsUsed?: readonly FactorSetUse[];
}

/**
 * The sustainability report from the aggregated figures: footprint totals, waste, energy,
 * adoption of each practice (share of events), certifications, the series, and statistics.
 * Pure; figures rounded to 3 decimals; a percentage of nothing is `null`.
 */
export function buildSustainabilityReport(input: SustainabilityReportInput): SustainabilityReport {
  const { figures, carbon } = input;
  const t = figures.totals;
  const offset = offsetKg(t.offsetUsd, carbon);
  const byPeriod = new Map(figures.buckets.map((b) => [b.period, b]));
  const cert = figures.perEvent.certifications;
  const measured = measuredResources(t.activities);
  const score = figures.perEvent.score;
  return {
    methodology: methodologyOf(input.factors ?? DEFAULT_EMISSION_FACTORS, carbon, input.factorSetsUsed),
    range: { ...input.range, granularity: input.granularity },
    eventIds: input.eventIds,
    carbonFootprint: {
      totalEmissionsKg: round3(t.emissionsKg),
      totalOffsetKg: round3(offset),
      netEmissionsKg: round3(Math.max(0, t.emissionsKg - offset)),
      offsetCoveragePercent: percent(offset, t.emissionsKg),
      offsetContributionsUsd: round3(t.offsetUsd),
      emissionsPerAttendeeKg: t.attendance ? round3(t.emissionsKg / t.attendance) : null,
      emissionsPerEventKg: t.events ? round3(t.emissionsKg / t.events) : null,
      travelReported: t.travelReported,
      travelNotReported: t.attendance - t.travelReported,
      byTravelMode: travelModeBreakdown(figures.byMode),
    },
    wasteReduction: {
      eventsWithTarget: share(t.goals.wasteReduction, t.events),
      averageTargetPercent: t.goals.wasteReduction ? round3(t.wasteTargetSum / t.goals.wasteReduction) : null,
      highestTargetPercent: t.wasteTargetMax === null || t.goals.wasteReduction === 0 ? null : round3(t.wasteTargetMax),
      measuredWasteKg: measured.measuredWasteKg,
      diversionRatePercent: measured.diversionRatePercent,
      recyclingRatePercent: measured.recyclingRatePercent,
      note:
        measured.measuredWasteKg === null
          ? "Targets set by the events (sustainabilityGoals.wasteReduction); no waste is recorded yet (waste activity records fill measuredWasteKg and the rates)."
          : "Targets set by the events (sustainabilityGoals.wasteReduction); measured figures from the events' waste records, whatever their dataQuality.",
    },
    energy: {
      eventsWithRenewableEnergy: share(t.goals.renewableEnergy, t.events),
      measuredEnergyKwh: measured.measuredEnergyKwh,
      renewableSharePercent: measured.renewableSharePercent,
      note:
        measured.measuredEnergyKwh === null
          ? "eventsWithRenewableEnergy is the share of events committed to renewable energy; no electricity is recorded yet (electricity activity records fill measuredEnergyKwh)."
          : "eventsWithRenewableEnergy is the share of events committed to renewable energy; measured figures from the events' electricity records (fuels burned on site are not in them).",
    },
    footprint: buildFootprint({
      travelEmissionsKg: t.emissionsKg,
      travelReported: t.travelReported,
      active: t.attendance,
      kinds: figures.activityKinds,
    }),
    adoption: {
      events: t.events,
      carbonNeutral: share(t.goals.carbonNeutral, t.events),
      renewableEnergy: share(t.goals.renewableEnergy, t.events),
      localSourcing: share(t.goals.localSourcing, t.events),
      wasteReduction: share(t.goals.wasteReduction, t.events),
      offsetParticipation: share(t.offsetOpted, t.attendance),
      lowCarbonTravel: share(t.lowCarbonTravel, t.travelReported),
    },
    certifications: {
      carbonNeutral: share(cert.carbonNeutral, t.events),
      lowCarbonTravel: share(cert.lowCarbonTravel, t.events),
      gold: share(cert.gold, t.events),
      silver: share(cert.silver, t.events),
      bronze: share(cert.bronze, t.events),
      criteria: { ...CERTIFICATIONS },
    },
    trend:
      input.granularity === "total"
        ? null
        : input.buckets.map((bucket) => bucketFigures(bucket, byPeriod.get(bucket.period), carbon)),
    financial: { revenue: figures.revenue.map(revenueOf) },
    summary: {
      events: t.events,
      attendance: t.attendance,
      checkedIn: t.checkedIn,
      checkInRatePercent: percent(t.checkedIn, t.attendance),
      sustainabilityScore: score
        ? {
            mean: round3(score.mean),
            standardDeviation: round3(Math.sqrt(Math.max(0, score.meanOfSquares - score.mean ** 2))),
            min: round3(score.min),
            max: round3(score.max),
          }
        : null,
      emissionsPerEventKg: figures.perEvent.emissions
        ? {
            mean: round3(figures.perEvent.emissions.mean),
            min: round3(figures.perEvent.emissions.min),
            max: round3(figures.perEvent.emissions.max),
          }
        : null,
    },
  };
}
