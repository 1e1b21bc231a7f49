import type { AttemptRecorded, ClaimedDelivery, DeliveryAttemptRecord } from "../resources/webhook-delivery.ts";
import { nextAttemptAt } from "../rules/delivery-status.ts";
import { type AttemptOutcome, sendDelivery, type SendDeliveryOptions } from "./send-delivery.ts";

/** The receiver must answer within 5 s (docs/api.md, Webhook delivery). */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 5_000;
/**
 * How much longer than an attempt's timeout a worker's lease on a delivery lasts: it outlives the
 * attempt (timeout plus recording) with a wide margin, so only a crashed worker's lease runs out.
 */
export const DELIVERY_LEASE_MARGIN_MS = 30_000;

/** Options of {@link attemptDelivery}. */
export interface AttemptDeliveryOptions extends Omit<SendDeliveryOptions, "now"> {
  /** Records the attempt (`recordDeliveryAttempts`, or a batch of them). */
  record: (record: DeliveryAttemptRecord) => Promise<AttemptRecorded>;
  /** Who holds the delivery's lease. */
  workerId: string;
  /** The retry schedule (`nextAttemptAt` in `rules/delivery-status.ts`); empty: the attempt is final. */
  retryDelaysMs: readonly number[];
  now: () => Date;
}

/** What {@link attemptDelivery} did: the attempt, when the next is due (`null`: final), and what recording it changed. */
export interface AttemptResult {
  outcome: AttemptOutcome;
  next: Date | null;
  recorded: boolean;
  webhookDisabled: boolean;
}

/**
 * Sends one attempt of a delivery that `workerId` holds and records it, releasing the lease: the
 * next attempt is scheduled by `retryDelaysMs`, and a `410 Gone` disables the webhook. The one
 * send-and-record of the worker and of pings (whose failures never count).
 */
export async function attemptDelivery(
  delivery: ClaimedDelivery,
  options: AttemptDeliveryOptions,
): Promise<AttemptResult> {
  const outcome = await sendDelivery(delivery, {
    timeoutMs: options.timeoutMs,
    allowPrivateNetworks: options.allowPrivateNetworks,
    resolveHost: options.resolveHost,
    fetch: options.fetch,
    now: options.now,
  });
  const now = options.now();
  const next = nextAttemptAt(delivery, outcome, options.retryDelaysMs, now);
  const result = await options.record({
    deliveryId: delivery.id,
    workerId: options.workerId,
    attempt: outcome.attempt,
    nextAttemptAt: next?.toISOString() ?? null,
    gone: outcome.gone,
    now: now.toISOString(),
  });
  return { outcome, next, ...result };
}
