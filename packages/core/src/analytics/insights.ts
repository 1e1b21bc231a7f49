import * as z from "zod";
import type { CarbonSettings } from "../carbon/carbon-settings.ts";
import { offsetKg } from "../carbon/carbon-settings.ts";
import {
  DEFAULT_EMISSION_FACTORS,
  type EmissionFactorSet,
  factorBands,
  type TravelMode,
} from "../carbon/emission-factors.ts";
import type { AggregateFigures, ModeFigures } from "./analytics-figures.ts";
import { BENCHMARKS } from "./benchmarks.ts";
import { numberFormat } from "./report-format.ts";
import type { BucketGranularity } from "./date-buckets.ts";
import { percent, round3, type SeriesStatistics } from "./statistics.ts";
import type { TrendMetric } from "./trend-metrics.ts";

/** An observation drawn from the numbers, with the figures it cites. */
export const Insight = z.object({
  type: z.enum(["trend", "extremes", "variability", "benchmark", "travel_mix", "offset_coverage"]),
  message: z.string(),
  figures: z.record(z.string(), z.union([z.number(), z.string(), z.null()])),
});
export type Insight = z.infer<typeof Insight>;

/** An action suggested by the numbers, with the figures that call for it. */
export const Recommendation = z.object({
  type: z.enum(["travel_mix", "offset_gap", "offset_uptake", "renewable_energy", "waste_targets", "worsening_trend"]),
  message: z.string(),
  figures: z.record(z.string(), z.union([z.number(), z.string(), z.null()])),
});
export type Recommendation = z.infer<typeof Recommendation>;

/** A point of the series as the insights read it (`value` unrounded, `null` without data). */
export interface InsightPoint {
  period: string;
  value: number | null;
}

/** The comparison with the reference value, when one was made. */
export interface BenchmarkComparison {
  value: number;
  reference: number;
  differencePercent: number;
  position: "above" | "below" | "equal";
  assessment: "better" | "worse" | "equal";
}

/** The factor of `mode`'s first distance band in `factors` (the only one of modes without bands). */
function firstFactor(factors: EmissionFactorSet, mode: TravelMode): number {
  return factorBands(factors, mode)[0]!.factor;
}

/** Inputs of {@link generateInsights}. */
export interface InsightInput {
  metric: TrendMetric;
  unit: string;
  granularity: BucketGranularity;
  points: readonly InsightPoint[];
  statistics: SeriesStatistics;
  benchmark: BenchmarkComparison | null;
  /** Figures over the whole range. */
  totals: AggregateFigures;
  byMode: readonly ModeFigures[];
  carbon: CarbonSettings;
  /** The factor set of the figures, quoted in the travel recommendation. Default `DEFAULT_EMISSION_FACTORS`. */
  factors?: EmissionFactorSet;
}

const LABELS: Record<TrendMetric, string> = {
  carbon_emissions: "Travel emissions",
  attendance: "Attendance",
  waste_reduction: "The mean waste-reduction target",
  energy_usage: "The share of events committed to renewable energy",
  offset_participation: "Offset participation",
};

const PERIOD_NAMES: Record<BucketGranularity, string> = {
  daily: "day",
  weekly: "week",
  monthly: "month",
  quarterly: "quarter",
};

/** Metrics where a rising series is the bad direction. */
const LOWER_IS_BETTER: ReadonlySet<TrendMetric> = new Set(["carbon_emissions"]);
/** Metrics whose direction says nothing good or bad about sustainability. */
const NEUTRAL: ReadonlySet<TrendMetric> = new Set(["attendance"]);

/** A coefficient of variation at or above this is called strong variation. */
export const HIGH_VARIATION = 0.5;
/** Flights and cars causing this share of travel emissions or more calls for a travel recommendation. */
export const HIGH_EMISSION_SHARE = 50;
/** Offset participation under this share calls for an uptake recommendation. */
export const LOW_OFFSET_PARTICIPATION = 50;

const n = (value: number) => String(round3(value));
const signed = (value: number) => `${value > 0 ? "+" : ""}${n(value)}`;
// Percentages in words with one decimal, as the printable report writes them; `figures` keep three.
const ONE_DECIMAL = numberFormat({ minimumFractionDigits: 1, maximumFractionDigits: 1 });
const pct = (value: number) => `${ONE_DECIMAL(value + 0)}%`;
const signedPct = (value: number) => `${value > 0 ? "+" : ""}${pct(value)}`;

/**
 * Insights and recommendations that follow from the computed numbers, each citing them. A rule
 * that the numbers do not support produces nothing (no canned text): a stable series gets no
 * worsening-trend advice, full offset coverage no offset-gap advice, and so on.
 */
export function generateInsights(input: InsightInput): { insights: Insight[]; recommendations: Recommendation[] } {
  const { metric, unit, statistics: stats, totals } = input;
  const factors = input.factors ?? DEFAULT_EMISSION_FACTORS;
  const insights: Insight[] = [];
  const recommendations: Recommendation[] = [];
  const label = LABELS[metric];
  const period = PERIOD_NAMES[input.granularity];
  const data = input.points.filter((p): p is { period: string; value: number } => p.value !== null);
  const first = data[0]!;
  const last = data[data.length - 1]!;

  if (stats.direction === "stable") {
    insights.push({
      type: "trend",
      message: `${label} stayed stable around ${n(stats.mean)} ${unit}: the fitted change over the range is under 5% of the mean (slope ${signed(stats.slope)} ${unit} per ${period}).`,
      figures: { direction: stats.direction, mean: stats.mean, slope: stats.slope, percentChange: stats.percentChange },
    });
  } else {
    const change = stats.percentChange === null ? "" : ` (${signedPct(stats.percentChange)})`;
    const trend = stats.direction === "increasing" ? "rose" : "fell";
    // The direction is the fitted slope's; the ends may say otherwise (equal, or the other way).
    const ends =
      first.value < last.value === (stats.direction === "increasing") && first.value !== last.value
        ? `from ${n(first.value)} ${unit} (${first.period}) to ${n(last.value)} ${unit} (${last.period})${change}`
        : `over the range, though it was ${n(first.value)} ${unit} in ${first.period} and ${n(last.value)} ${unit} in ${last.period}`;
    insights.push({
      type: "trend",
      message: `${label} ${trend} ${ends}; the fitted slope is ${signed(stats.slope)} ${unit} per ${period}.`,
      figures: {
        direction: stats.direction,
        first: round3(first.value),
        firstPeriod: first.period,
        last: round3(last.value),
        lastPeriod: last.period,
        percentChange: stats.percentChange,
        slope: stats.slope,
      },
    });
    const worsening = !NEUTRAL.has(metric) && (stats.direction === "increasing") === LOWER_IS_BETTER.has(metric);
    if (worsening) {
      recommendations.push({
        type: "worsening_trend",
        message: `${label} moved the wrong way over the range (slope ${signed(stats.slope)} ${unit} per ${period}${change}): review what changed in the events of ${last.period} against those of ${first.period}.`,
        figures: { direction: stats.direction, slope: stats.slope, percentChange: stats.percentChange },
      });
    }
  }

  if (stats.max > stats.min) {
    const top = data.reduce((a, b) => (b.value > a.value ? b : a));
    const bottom = data.reduce((a, b) => (b.value < a.value ? b : a));
    insights.push({
      type: "extremes",
      message: `Highest in the ${period} of ${top.period} (${n(top.value)} ${unit}), lowest in the ${period} of ${bottom.period} (${n(bottom.value)} ${unit}).`,
      figures: { max: stats.max, maxPeriod: top.period, min: stats.min, minPeriod: bottom.period },
    });
  }

  if (stats.mean > 0 && stats.standardDeviation / stats.mean >= HIGH_VARIATION) {
    const cv = round3((100 * stats.standardDeviation) / stats.mean);
    insights.push({
      type: "variability",
      message: `Strong variation from ${period} to ${period}: the standard deviation (${n(stats.standardDeviation)} ${unit}) is ${pct(cv)} of the mean (${n(stats.mean)} ${unit}).`,
      figures: { standardDeviation: stats.standardDeviation, mean: stats.mean, coefficientOfVariationPercent: cv },
    });
  }

  const reference = BENCHMARKS[metric];
  if (input.benchmark && reference) {
    const b = input.benchmark;
    insights.push({
      type: "benchmark",
      message:
        b.position === "equal"
          ? `${reference.comparedFigure} (${n(b.value)}) equals the reference value ${n(b.reference)} ${reference.unit}.`
          : `${capitalise(reference.comparedFigure)} (${n(b.value)} ${reference.unit}) is ${pct(Math.abs(b.differencePercent))} ${b.position} the reference value of ${n(b.reference)}, which is ${b.assessment} (source: ${reference.source}).`,
      figures: {
        value: b.value,
        reference: b.reference,
        differencePercent: b.differencePercent,
        position: b.position,
        assessment: b.assessment,
      },
    });
  }

  if (metric === "carbon_emissions" && totals.emissionsKg > 0) {
    const high = input.byMode.filter((m) => m.mode === "flight" || m.mode === "car");
    const highKg = high.reduce((sum, m) => sum + m.emissionsKg, 0);
    const highTrips = high.reduce((sum, m) => sum + m.registrations, 0);
    const share = percent(highKg, totals.emissionsKg)!;
    const tripShare = percent(highTrips, totals.travelReported);
    if (highKg > 0) {
      insights.push({
        type: "travel_mix",
        message: `Flights and car trips cause ${pct(share)} of the travel emissions (${n(highKg)} of ${n(totals.emissionsKg)} kg CO2e) while making up ${tripShare === null ? "none" : pct(tripShare)} of the reported trips.`,
        figures: {
          highEmissionSharePercent: share,
          highEmissionKg: round3(highKg),
          emissionsKg: round3(totals.emissionsKg),
          highEmissionTripSharePercent: tripShare,
        },
      });
    }
    if (share >= HIGH_EMISSION_SHARE) {
      recommendations.push({
        type: "travel_mix",
        message: `Move attendees to rail and bus: flights and cars cause ${pct(share)} of the travel emissions. Rail emits ${firstFactor(factors, "train")} kg CO2e per passenger-km against ${firstFactor(factors, "car")} by car (${factors.name} ${factors.year}); choose venues near rail hubs and promote train travel in the invitation.`,
        figures: { highEmissionSharePercent: share },
      });
    }
  }

  if ((metric === "carbon_emissions" || metric === "offset_participation") && totals.emissionsKg > 0) {
    const offset = offsetKg(totals.offsetUsd, input.carbon);
    const coverage = percent(offset, totals.emissionsKg)!;
    insights.push({
      type: "offset_coverage",
      message: `Offsets cover ${pct(coverage)} of the travel emissions (${n(offset)} of ${n(totals.emissionsKg)} kg CO2e).`,
      figures: { offsetCoveragePercent: coverage, offsetKg: round3(offset), emissionsKg: round3(totals.emissionsKg) },
    });
    if (offset < totals.emissionsKg) {
      const gapKg = totals.emissionsKg - offset;
      const gapUsd = (gapKg / 1000) * input.carbon.offsetPriceUsdPerTonne;
      recommendations.push({
        type: "offset_gap",
        message: `${n(gapKg)} kg CO2e of travel emissions are not offset (coverage ${pct(coverage)}); at ${n(input.carbon.offsetPriceUsdPerTonne)} USD per tonne, closing the gap costs ${n(gapUsd)} USD.`,
        figures: { gapKg: round3(gapKg), gapUsd: round3(gapUsd), offsetCoveragePercent: coverage },
      });
    }
  }

  if (metric === "offset_participation" && totals.attendance > 0) {
    const participation = percent(totals.offsetOpted, totals.attendance)!;
    if (participation < LOW_OFFSET_PARTICIPATION) {
      recommendations.push({
        type: "offset_uptake",
        message: `Only ${pct(participation)} of the registrations (${totals.offsetOpted} of ${totals.attendance}) opted to offset: offer offsetting as the default at registration and show each attendee the footprint of their trip.`,
        figures: { participationPercent: participation, opted: totals.offsetOpted, attendance: totals.attendance },
      });
    }
  }

  if (metric === "energy_usage" && totals.events > totals.goals.renewableEnergy) {
    const without = totals.events - totals.goals.renewableEnergy;
    recommendations.push({
      type: "renewable_energy",
      message: `${without} of the ${totals.events} events in the range (${pct(percent(without, totals.events)!)}) have no renewable-energy goal: ask venues for a renewable electricity tariff and set the goal.`,
      figures: { eventsWithoutGoal: without, events: totals.events },
    });
  }

  const wasteReference = BENCHMARKS.waste_reduction!.value;
  if (metric === "waste_reduction" && totals.events > 0 && totals.wasteTargetSum / totals.events < wasteReference) {
    const mean = round3(totals.wasteTargetSum / totals.events);
    recommendations.push({
      type: "waste_targets",
      message: `The mean waste-reduction target (${pct(mean)}, events without one counting as 0) is below the EU's ${wasteReference}% re-use and recycling target for 2025: set a target of at least ${wasteReference}% for each event.`,
      figures: {
        meanTargetPercent: mean,
        reference: wasteReference,
        eventsWithTarget: totals.goals.wasteReduction,
        events: totals.events,
      },
    });
  }

  return { insights, recommendations };
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
