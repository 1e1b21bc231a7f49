import type { DeliveryStatus } from "../resources/webhook-delivery.ts";
import { isTransitionAllowed, type TransitionTable } from "./transitions.ts";

/**
 * The status changes a delivery allows: an attempt ends a `pending` delivery as `succeeded`,
 * as `failed` (no attempt left) or leaves it `pending` (a retry scheduled); a redelivery brings
 * a final delivery back to `pending` for one more attempt. Nothing else moves a delivery.
 */
export const DELIVERY_TRANSITIONS: TransitionTable<DeliveryStatus> = {
  pending: ["succeeded", "failed"],
  succeeded: ["pending"],
  failed: ["pending"],
};

/**
 * The statuses of deliveries no worker sends again (only a redelivery would): past the retention
 * period they are purged, with their attempts.
 */
export const FINAL_DELIVERY_STATUSES = ["succeeded", "failed"] as const satisfies readonly DeliveryStatus[];

/** True when a delivery may move from `from` to `to` (including staying where it is). */
export function isDeliveryTransitionAllowed(from: DeliveryStatus, to: DeliveryStatus): boolean {
  return isTransitionAllowed(DELIVERY_TRANSITIONS, from, to);
}

/** The waits before each retry: immediately, then after 1 min, 10 min and 1 h (docs/api.md, Webhook delivery). */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [0, 60_000, 600_000, 3_600_000];

/**
 * How much longer than the schedule a receiver's `Retry-After` may make a retry wait: 1 hour.
 * A receiver cannot push its retries into the far future (or past the year 9999, where the
 * date becomes invalid) and so wedge its deliveries.
 */
export const MAX_RETRY_AFTER_EXTRA_MS = 3_600_000;

/** How an attempt ended, as far as the delivery's next state depends on it. */
export interface AttemptEnd {
  attempt: { number: number; succeeded: boolean };
  /** The receiver answered `410 Gone`. */
  gone: boolean;
  /** What a 429 or 503 answer's `Retry-After` asked for, in ms; null otherwise. */
  retryAfterMs: number | null;
}

/**
 * When the attempt after `end.attempt` is due, or `null` when the delivery is final: after a
 * success, a `410`, the last attempt of a redelivery or ping (`finalAttempt`), or the last retry
 * of the schedule. A `Retry-After` of a 429/503 is honoured when it asks for more than the
 * schedule, up to the schedule's delay plus {@link MAX_RETRY_AFTER_EXTRA_MS}.
 */
export function nextAttemptAt(
  delivery: { finalAttempt: number | null },
  end: AttemptEnd,
  retryDelaysMs: readonly number[],
  now: Date,
): Date | null {
  const { number, succeeded } = end.attempt;
  if (succeeded || end.gone) return null;
  if (delivery.finalAttempt !== null && number >= delivery.finalAttempt) return null;
  const delay = retryDelaysMs[number - 1];
  if (delay === undefined) return null;
  const asked = Math.min(end.retryAfterMs ?? 0, delay + MAX_RETRY_AFTER_EXTRA_MS);
  return new Date(now.getTime() + Math.max(delay, asked));
}

/** A delivery's status after an attempt: `succeeded`, else `pending` while a next attempt is scheduled, `failed` when none is. */
export function statusAfterAttempt(succeeded: boolean, next: string | Date | null): DeliveryStatus {
  if (succeeded) return "succeeded";
  return next === null ? "failed" : "pending";
}

/** What a redelivery makes of a delivery: `pending`, due at once, with this `finalAttempt`. */
export interface Redelivery {
  status: "pending";
  finalAttempt: number | null;
}

/**
 * A redelivery queues one more attempt with the same envelope. A final delivery gets exactly
 * one, whose failure is final again; a pending one keeps its schedule and is only brought forward.
 */
export function redelivery(delivery: {
  status: DeliveryStatus;
  attemptCount: number;
  finalAttempt: number | null;
}): Redelivery {
  return {
    status: "pending",
    finalAttempt: delivery.status === "pending" ? delivery.finalAttempt : delivery.attemptCount + 1,
  };
}

/** A ping's delivery: one attempt, final whatever its answer, never counted towards disabling the webhook. */
export const PING_DELIVERY = { finalAttempt: 1, countsFailures: false } as const;
