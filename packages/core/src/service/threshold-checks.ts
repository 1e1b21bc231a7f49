/**
 * The step of a business transaction that judges an event's configured thresholds
 * (docs/api.md, Thresholds): at a change that moved a metric, each threshold of that metric that applies to
 * the event (its own and the account-wide ones) is judged against the new value and its crossing
 * state; a new crossing appends `analytics.threshold_exceeded` to the outbox, in the change's
 * transaction. A threshold is judged at the next change that moves its metric, not when it is
 * created. Runs under the event's lock, which serialises the writers of the event's states.
 */
import type { EventRecord } from "../resources/event.ts";
import { NO_ACTIVITY_FIGURES } from "../resources/activity-figures.ts";
import { THRESHOLD_METRICS, type ThresholdMetric, type ThresholdRecord } from "../resources/threshold.ts";
import { type EventMetrics, eventMetrics } from "../rules/goals.ts";
import { judgeThreshold, movedMetrics } from "../rules/threshold-crossing.ts";
import type { Notification } from "../storage/envelope.ts";
import { appendNotificationsToOutbox } from "../webhooks/outbox.ts";
import { configuredThresholdNotification } from "../webhooks/payloads.ts";
import type { Steps } from "./transaction-steps.ts";

/**
 * Judges the event's thresholds of the metrics this change moved: those `metrics` carries with a
 * value (a number, or `null` for "none": not reached); a metric left out or `undefined` did not
 * move and its thresholds are left as they are. Writes each threshold's crossing state that
 * changed and appends `analytics.threshold_exceeded` (`data`: `event`, `metric`, `threshold`,
 * `value`, `thresholdId`) for each new crossing to the outbox (when the transaction notifies at
 * all: `steps.notifier`). Call it under the event's lock, after the change's writes, once per
 * transaction. Returns the notifications of the new crossings.
 *
 * @example
 * await checkThresholds(steps, event, { total_emissions_kg: 1250.5, emissions_per_attendee_kg: 2.5 }, now);
 */
export async function checkThresholds(
  steps: Steps,
  event: EventRecord,
  metrics: Partial<EventMetrics>,
  at: string,
): Promise<Notification[]> {
  const moved = movedMetrics(metrics);
  if (moved.length === 0) return [];
  const thresholds = await steps.tx.thresholds.applicable(event.accountId, event.id, moved);
  return judgeAll(steps, event, thresholds, metrics, at);
}

/** The metrics of an event's footprint: moved by registrations (travel, offsets, attendees) and by activity records. */
const FOOTPRINT_METRICS = THRESHOLD_METRICS.filter((metric) => metric !== "capacity_utilization");

/** What a transaction moved, for {@link checkEventThresholds}. */
export interface MovedFigures {
  /** The event's capacity changed (an update): `capacity_utilization` moved even without a registration moving. */
  capacityChanged?: boolean;
  /** Registrations or activity records changed: the footprint metrics (emissions, waste, energy, offsets) may have moved. */
  footprint?: boolean;
}

/**
 * {@link checkThresholds} at the end of a transaction that changed the event, for the metrics
 * it may have moved: `capacity_utilization` when the net change of active registrations
 * (`steps.activeDelta`) is not 0 or `capacityChanged`; the footprint metrics when `footprint`.
 * One query when the event has no threshold of those metrics; the figures are read only when it
 * has, and computed as the analytics compute them (`eventMetrics`).
 */
export async function checkEventThresholds(
  steps: Steps,
  event: EventRecord,
  at: string,
  moved: MovedFigures,
): Promise<Notification[]> {
  const metrics: ThresholdMetric[] = [
    ...(steps.activeDelta !== 0 || moved.capacityChanged ? (["capacity_utilization"] as const) : []),
    ...(moved.footprint ? FOOTPRINT_METRICS : []),
  ];
  if (metrics.length === 0) return [];
  const thresholds = await steps.tx.thresholds.applicable(event.accountId, event.id, metrics);
  if (thresholds.length === 0) return [];
  const kept = await steps.tx.figures.read(event.id);
  const footprint = thresholds.some((threshold) => threshold.metric !== "capacity_utilization");
  const activities = footprint ? await steps.tx.figures.readActivities(event.id) : NO_ACTIVITY_FIGURES;
  const values = eventMetrics({ capacity: event.capacity, kept, activities }, steps.carbon);
  return judgeAll(steps, event, thresholds, pick(values, metrics), at);
}

function pick(values: EventMetrics, metrics: readonly ThresholdMetric[]): Partial<EventMetrics> {
  return Object.fromEntries(metrics.map((metric) => [metric, values[metric]]));
}

/** Judges each of `thresholds` against its metric in `metrics`, writes the states that changed and queues the new crossings. */
async function judgeAll(
  steps: Steps,
  event: EventRecord,
  thresholds: readonly ThresholdRecord[],
  metrics: Partial<EventMetrics>,
  at: string,
): Promise<Notification[]> {
  if (thresholds.length === 0) return [];
  const { tx } = steps;
  const states = await tx.thresholds.states(
    event.id,
    thresholds.map((threshold) => threshold.id),
  );
  const reachedBefore = new Map(states.map((state) => [state.thresholdId, state.reached]));
  const notifications: Notification[] = [];
  for (const threshold of thresholds) {
    const before = reachedBefore.get(threshold.id) ?? false;
    const value = metrics[threshold.metric] ?? null;
    const judgement = judgeThreshold(threshold, before, value);
    if (judgement.reached !== before) await tx.thresholds.setState(threshold.id, event.id, judgement.reached, at);
    if (judgement.notify && value !== null)
      notifications.push(configuredThresholdNotification(event, threshold, value));
  }
  if (steps.notifier) await appendNotificationsToOutbox(tx, event.accountId, notifications, at);
  return notifications;
}
