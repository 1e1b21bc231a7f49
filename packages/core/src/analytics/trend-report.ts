import * as z from "zod";
import type { CarbonSettings } from "../carbon/carbon-settings.ts";
import { DEFAULT_EMISSION_FACTORS, type EmissionFactorSet } from "../carbon/emission-factors.ts";
import { type FactorSetUse, Methodology, methodologyOf } from "./methodology.ts";
import { ServiceError } from "../errors.ts";
import { BooleanParam, dateParam, text } from "../resources/common.ts";
import type { AggregateFigures, AnalyticsFigures } from "./analytics-figures.ts";
import { BENCHMARKS } from "./benchmarks.ts";
import { type Bucket, type BucketGranularity, TREND_GRANULARITIES } from "./date-buckets.ts";
import { type BenchmarkComparison, generateInsights, Insight, Recommendation } from "./insights.ts";
import { round3, seriesStatistics, TREND_DIRECTIONS } from "./statistics.ts";
import { TREND_METRIC_UNITS, TREND_METRICS, type TrendMetric } from "./trend-metrics.ts";

/** Query of `GET /analytics/trends`. */
export const TrendQuery = z.strictObject({
  metric: z
    .enum(TREND_METRICS)
    .default("carbon_emissions")
    .meta({ description: "The metric analysed (default carbon_emissions)." }),
  startDate: dateParam(false)
    .optional()
    .meta({ description: "Events starting at or after it. Default: the earliest matching event's start." }),
  endDate: dateParam(true)
    .optional()
    .meta({ description: "Events starting at or before it. Default: the latest matching event's start." }),
  granularity: z
    .enum(TREND_GRANULARITIES)
    .default("monthly")
    .meta({ description: "Calendar period of each data point, UTC (default monthly)." }),
  category: text(50).optional().meta({ description: "Only events of this category (exact match)." }),
  includeBenchmark: BooleanParam.default(false).meta({
    description: "Compare with the metric's industry reference value.",
  }),
});
export type TrendQuery = z.output<typeof TrendQuery>;

const NullableNum = z.number().nullable();

/** The answer of `GET /analytics/trends`. */
export const TrendReport = z.object({
  methodology: Methodology,
  metric: z.enum(TREND_METRICS),
  unit: z.string(),
  granularity: z.enum(TREND_GRANULARITIES),
  category: z.string().nullable(),
  dateRange: z.object({ startDate: z.string(), endDate: z.string() }),
  dataPoints: z.array(
    z.object({
      period: z.string().meta({ description: "First day of the period, YYYY-MM-DD (UTC; weeks start on Monday)." }),
      startDate: z.string(),
      endDate: z.string(),
      value: NullableNum.meta({
        description: "null when the period holds no event (or, for offset_participation, no active registration).",
      }),
      events: z.int(),
    }),
  ),
  statistics: z.object({
    count: z.int().meta({ description: "Data points with a value; the statistics are over these." }),
    mean: z.number(),
    median: z.number(),
    standardDeviation: z.number(),
    min: z.number(),
    max: z.number(),
    slope: z.number().meta({ description: "Least-squares change per period." }),
    percentChange: NullableNum.meta({ description: "First to last data point; null when the first is 0." }),
    direction: z.enum(TREND_DIRECTIONS),
  }),
  benchmark: z
    .object({
      available: z.boolean(),
      reference: NullableNum,
      unit: z.string().nullable(),
      comparedFigure: z.string().nullable(),
      source: z.string().nullable(),
      value: NullableNum,
      difference: NullableNum,
      differencePercent: NullableNum,
      position: z.enum(["above", "below", "equal"]).nullable(),
      assessment: z.enum(["better", "worse", "equal"]).nullable(),
      note: z.string().nullable(),
    })
    .nullable()
    .meta({ description: "null unless includeBenchmark=true." }),
  insights: z.array(Insight),
  recommendations: z.array(Recommendation),
});
export type TrendReport = z.infer<typeof TrendReport>;

/** The metric's value over a set of events (a bucket or the whole range), unrounded; `null` when there is nothing to measure. */
export function metricValue(metric: TrendMetric, f: AggregateFigures | undefined): number | null {
  if (!f || f.events === 0) return null;
  switch (metric) {
    case "carbon_emissions":
      return f.emissionsKg;
    case "attendance":
      return f.attendance;
    // Measured where the events record it (docs/api.md, Analytics): the diversion rate of their waste, the
    // renewable share of their electricity; else the events' targets and commitments.
    case "waste_reduction":
      return f.activities.wasteKg > 0
        ? (100 * f.activities.divertedKg) / f.activities.wasteKg
        : f.wasteTargetSum / f.events;
    case "energy_usage":
      return f.activities.electricityKwh > 0
        ? (100 * f.activities.renewableKwh) / f.activities.electricityKwh
        : (100 * f.goals.renewableEnergy) / f.events;
    case "offset_participation":
      return f.attendance === 0 ? null : (100 * f.offsetOpted) / f.attendance;
  }
}

/** The figure compared with the reference value, over the whole range; `null` when there is nothing to compare. */
export function comparedFigure(metric: TrendMetric, totals: AggregateFigures): number | null {
  if (metric === "carbon_emissions") return totals.attendance ? totals.emissionsKg / totals.attendance : null;
  return metricValue(metric, totals);
}

function compare(
  metric: TrendMetric,
  totals: AggregateFigures,
): { report: NonNullable<TrendReport["benchmark"]>; comparison: BenchmarkComparison | null } {
  const reference = BENCHMARKS[metric];
  const value = comparedFigure(metric, totals);
  if (!reference || value === null) {
    return {
      comparison: null,
      report: {
        available: false,
        reference: reference?.value ?? null,
        unit: reference?.unit ?? null,
        comparedFigure: reference?.comparedFigure ?? null,
        source: reference?.source ?? null,
        value: null,
        difference: null,
        differencePercent: null,
        position: null,
        assessment: null,
        note: reference
          ? "Nothing to compare in the range."
          : "No published industry reference value fits this metric.",
      },
    };
  }
  const difference = value - reference.value;
  const position = Math.abs(difference) < 1e-9 ? "equal" : difference > 0 ? "above" : "below";
  const assessment =
    position === "equal" ? "equal" : (position === "below") === reference.lowerIsBetter ? "better" : "worse";
  const differencePercent = round3((100 * difference) / reference.value);
  return {
    comparison: { value: round3(value), reference: reference.value, differencePercent, position, assessment },
    report: {
      available: true,
      reference: reference.value,
      unit: reference.unit,
      comparedFigure: reference.comparedFigure,
      source: reference.source,
      value: round3(value),
      difference: round3(difference),
      differencePercent,
      position,
      assessment,
      note: null,
    },
  };
}

/** Inputs of {@link buildTrendReport}. */
export interface TrendReportInput {
  query: TrendQuery;
  range: { startDate: string; endDate: string };
  buckets: Bucket[];
  figures: AnalyticsFigures;
  carbon: CarbonSettings;
  /** The factor set of the figures (named in `methodology`, quoted in insights). Default `DEFAULT_EMISSION_FACTORS`. */
  factors?: EmissionFactorSet;
  /** The sets that priced the events (`factorSetsUsed`), named in `methodology` when there are several. */
  factorSetsUsed?: readonly FactorSetUse[];
}

/**
 * The trend report: the series (every period, `null` where there is no data), its statistics,
 * the benchmark comparison when asked, and the insights and recommendations the numbers
 * support. Throws `INSUFFICIENT_DATA` when fewer than two periods have a value. Pure.
 */
export function buildTrendReport(input: TrendReportInput): TrendReport {
  const { query, figures } = input;
  const factors = input.factors ?? DEFAULT_EMISSION_FACTORS;
  const metric = query.metric;
  const granularity: BucketGranularity = query.granularity;
  const byPeriod = new Map(figures.buckets.map((b) => [b.period, b]));
  const points = input.buckets.map((bucket, index) => {
    const f = byPeriod.get(bucket.period);
    return { bucket, index, events: f?.events ?? 0, value: metricValue(metric, f) };
  });
  const data = points.filter((p): p is typeof p & { value: number } => p.value !== null);
  if (data.length < 2) {
    throw new ServiceError("INSUFFICIENT_DATA", {
      message: `A trend needs at least 2 ${granularity} periods with data; the range ${input.range.startDate} to ${input.range.endDate} has ${data.length}.`,
      details: { dataPoints: data.length, required: 2, granularity, ...input.range },
    });
  }
  const statistics = seriesStatistics(data.map((p) => ({ index: p.index, value: p.value })));
  const benchmark = query.includeBenchmark ? compare(metric, figures.totals) : null;
  const unit = TREND_METRIC_UNITS[metric];
  const { insights, recommendations } = generateInsights({
    metric,
    unit,
    granularity,
    points: points.map((p) => ({ period: p.bucket.period, value: p.value })),
    statistics,
    benchmark: benchmark?.comparison ?? null,
    totals: figures.totals,
    byMode: figures.byMode,
    carbon: input.carbon,
    factors,
  });
  return {
    methodology: methodologyOf(factors, input.carbon, input.factorSetsUsed),
    metric,
    unit,
    granularity,
    category: query.category ?? null,
    dateRange: input.range,
    dataPoints: points.map((p) => ({
      ...p.bucket,
      value: p.value === null ? null : round3(p.value),
      events: p.events,
    })),
    statistics,
    benchmark: benchmark?.report ?? null,
    insights,
    recommendations,
  };
}
