/**
 * When a configured threshold is reached and when its crossing notifies
 * (docs/api.md, Thresholds), and when the built-in 90% capacity rule still applies. Pure: the service step
 * (`service/threshold-checks.ts`) reads the state, asks these, and writes what they answer.
 */
import type { ThresholdComparison, ThresholdMetric } from "../resources/threshold.ts";
import type { EventMetrics } from "./goals.ts";

/** What a threshold's judgement needs of it. */
export interface JudgedThreshold {
  comparison: ThresholdComparison;
  value: number;
}

/** A threshold's judgement at a change of its metric: reached now, and whether that is a new crossing to notify. */
export interface ThresholdJudgement {
  reached: boolean;
  notify: boolean;
}

/** True when `value` reaches `threshold`: `above` at `value >= threshold.value`, `below` at `value <= threshold.value`; never for `null`. */
export function isThresholdReached(threshold: JudgedThreshold, value: number | null): boolean {
  if (value === null || !Number.isFinite(value)) return false;
  return threshold.comparison === "above" ? value >= threshold.value : value <= threshold.value;
}

/**
 * Judges `threshold` at a change that moved its metric to `value`, given whether it was reached
 * before: it notifies once per crossing, when it is reached now and was not before; after the
 * value went back (not reached), a new crossing notifies again.
 *
 * @example
 * judgeThreshold({ comparison: "above", value: 50 }, false, 60); // { reached: true, notify: true }
 * judgeThreshold({ comparison: "above", value: 50 }, true, 70); // { reached: true, notify: false }
 */
export function judgeThreshold(
  threshold: JudgedThreshold,
  reachedBefore: boolean,
  value: number | null,
): ThresholdJudgement {
  const reached = isThresholdReached(threshold, value);
  return { reached, notify: reached && !reachedBefore };
}

/**
 * The metrics a change moved: those given with a value (a number or `null`); one left out or
 * `undefined` did not move, and its thresholds are not judged.
 */
export function movedMetrics(metrics: Partial<EventMetrics>): ThresholdMetric[] {
  return (Object.keys(metrics) as ThresholdMetric[]).filter((metric) => metrics[metric] !== undefined);
}

/**
 * Whether the built-in 90% `capacity_utilization` rule applies to an account's events: while the
 * account has no `capacity_utilization` threshold of its own, for one of its events or for all
 * of them: the account keeps it until it configures a `capacity_utilization` threshold of its
 * own. Thresholds of other metrics do not replace it.
 */
export function keepsBuiltInCapacityRule(accountHasCapacityThreshold: boolean): boolean {
  return !accountHasCapacityThreshold;
}
