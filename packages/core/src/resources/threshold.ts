import * as z from "zod";
import { pagingParams, resolvePaging, Timestamp } from "./common.ts";

/**
 * The metrics a threshold can watch (docs/api.md, Thresholds): capacity utilisation in percent
 * (active registrations over capacity), emissions per attendee and in total in kg CO2e, and the
 * waste diversion, renewable share and offset coverage rates in percent.
 */
export const THRESHOLD_METRICS = [
  "capacity_utilization",
  "emissions_per_attendee_kg",
  "total_emissions_kg",
  "waste_diversion_percent",
  "renewable_share_percent",
  "offset_coverage_percent",
] as const;
export type ThresholdMetric = (typeof THRESHOLD_METRICS)[number];

/** The metrics measured in percent: their thresholds lie from 0 to 100. */
export const PERCENT_METRICS: readonly ThresholdMetric[] = [
  "capacity_utilization",
  "waste_diversion_percent",
  "renewable_share_percent",
  "offset_coverage_percent",
];

/** `above`: reached at `value >= threshold`; `below`: reached at `value <= threshold`. */
export const THRESHOLD_COMPARISONS = ["above", "below"] as const;
export type ThresholdComparison = (typeof THRESHOLD_COMPARISONS)[number];

/** The largest value a threshold of a metric not in percent may have (kg CO2e): a bound against absurd input. */
export const MAX_THRESHOLD_VALUE = 1_000_000_000_000;

const fields = {
  metric: z.enum(THRESHOLD_METRICS),
  comparison: z.enum(THRESHOLD_COMPARISONS),
  value: z.number().min(0).max(MAX_THRESHOLD_VALUE).meta({
    description: "The threshold: 0 to 100 for the metrics in percent, 0 or more (kg CO2e) for the others.",
  }),
  eventId: z
    .string()
    .min(1)
    .max(100)
    .nullish()
    .meta({ description: "The account's event the threshold watches; null or absent: every event of the account." }),
};

/** Adds an issue on `value` when it lies outside its metric's range (0 to 100 for a metric in percent). */
function checkRange(threshold: { metric: ThresholdMetric; value: number }, ctx: z.RefinementCtx): void {
  if (PERCENT_METRICS.includes(threshold.metric) && threshold.value > 100) {
    ctx.addIssue({
      code: "custom",
      path: ["value"],
      message: `must be at most 100: ${threshold.metric} is a percentage`,
      input: threshold.value,
    });
  }
}

/** Body of `POST /thresholds`. */
export const ThresholdCreateInput = z.strictObject(fields).superRefine(checkRange);
export type ThresholdCreateInput = z.input<typeof ThresholdCreateInput>;
export type ThresholdCreate = z.output<typeof ThresholdCreateInput>;

/**
 * Body of `PUT /thresholds/:id`: a partial update. The value's range is checked against the
 * metric the threshold has after the update.
 */
export const ThresholdUpdateInput = z.strictObject({
  metric: fields.metric.optional(),
  comparison: fields.comparison.optional(),
  value: fields.value.optional(),
  eventId: fields.eventId,
});
export type ThresholdUpdateInput = z.input<typeof ThresholdUpdateInput>;
export type ThresholdUpdate = z.output<typeof ThresholdUpdateInput>;

/** A threshold as the API answers it. */
export const Threshold = z.object({
  id: z.string(),
  metric: z.enum(THRESHOLD_METRICS),
  comparison: z.enum(THRESHOLD_COMPARISONS),
  value: z.number(),
  eventId: z.string().nullable().meta({ description: "null: every event of the account." }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Threshold = z.infer<typeof Threshold>;

/** A threshold as stored: its account too. */
export interface ThresholdRecord extends Threshold {
  accountId: string;
}

/** The API form of a stored threshold. */
export function toApiThreshold(record: ThresholdRecord): Threshold {
  const { accountId: _accountId, ...threshold } = record;
  return threshold;
}

/** Query of `GET /thresholds`. */
export const ThresholdListQuery = z.strictObject({ ...pagingParams }).transform(resolvePaging);
export type ThresholdListQuery = z.output<typeof ThresholdListQuery>;
