/** Rounds to 3 decimals, the precision of every analytics figure (and turns -0 into 0). */
export function round3(value: number): number {
  return Math.round(value * 1000) / 1000 + 0;
}

/** `part` as a percentage of `whole`, rounded to 3 decimals; `null` when `whole` is 0 (nothing to measure). */
export function percent(part: number, whole: number): number | null {
  return whole === 0 ? null : round3((100 * part) / whole);
}

/** One value of a series at its position (the bucket's index in the whole series, gaps included). */
export interface SeriesPoint {
  index: number;
  value: number;
}

/** The direction of a series: its fitted change over the series against its mean. */
export const TREND_DIRECTIONS = ["increasing", "decreasing", "stable"] as const;
export type TrendDirection = (typeof TREND_DIRECTIONS)[number];

/** Below this fitted change, relative to the mean, a series counts as stable. */
export const STABLE_THRESHOLD = 0.05;

/** Summary statistics of a series of at least two points. */
export interface SeriesStatistics {
  /** Points with data. */
  count: number;
  mean: number;
  median: number;
  /** Population standard deviation (divides by `count`): the points are the whole series, not a sample. */
  standardDeviation: number;
  min: number;
  max: number;
  /** Least-squares slope of value over bucket index: change per bucket. */
  slope: number;
  /** From the first to the last point, in percent of the first; `null` when the first is 0. */
  percentChange: number | null;
  direction: TrendDirection;
}

/**
 * Mean, median, population standard deviation, min, max, least-squares slope per bucket,
 * percent change first to last, and the direction: `stable` when the fitted change over the
 * series (slope x (last index - first index)) is under 5 % of the mean's magnitude (or is 0
 * when the mean is 0), else by the slope's sign. Figures rounded to 3 decimals.
 * Expects at least two points (callers answer `INSUFFICIENT_DATA` otherwise).
 */
export function seriesStatistics(points: readonly SeriesPoint[]): SeriesStatistics {
  const n = points.length;
  const values = points.map((p) => p.value);
  const mean = values.reduce((a, b) => a + b, 0) / n;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(n / 2);
  const median = n % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  const variance = values.reduce((sum, v) => sum + (v - mean) ** 2, 0) / n;
  const meanIndex = points.reduce((sum, p) => sum + p.index, 0) / n;
  const sxx = points.reduce((sum, p) => sum + (p.index - meanIndex) ** 2, 0);
  const sxy = points.reduce((sum, p) => sum + (p.index - meanIndex) * (p.value - mean), 0);
  const slope = sxx === 0 ? 0 : sxy / sxx;
  const first = points[0]!;
  const last = points[n - 1]!;
  const fittedChange = slope * (last.index - first.index);
  const stable = mean === 0 ? fittedChange === 0 : Math.abs(fittedChange) < STABLE_THRESHOLD * Math.abs(mean);
  return {
    count: n,
    mean: round3(mean),
    median: round3(median),
    standardDeviation: round3(Math.sqrt(variance)),
    min: round3(sorted[0]!),
    max: round3(sorted[n - 1]!),
    slope: round3(slope),
    percentChange: first.value === 0 ? null : round3(((last.value - first.value) / Math.abs(first.value)) * 100),
    direction: stable ? "stable" : slope > 0 ? "increasing" : "decreasing",
  };
}
