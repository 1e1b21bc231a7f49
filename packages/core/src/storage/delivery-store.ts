import type { ClaimedDelivery, DeliveryAttempt, DeliveryListQuery, DeliveryRecord } from "../resources/webhook-delivery.ts";
import type { Notification } from "./envelope.ts";
import type { Page } from "./common.ts";

/** What {@link DeliveryStore.outboxBacklog} reports: pending deliveries by state, and the earliest due. */
export interface OutboxBacklog {
  due: number;
  scheduled: number;
  paused: number;
  /** The earliest `next_attempt_at` of a pending delivery of an active webhook, or `null`. */
  oldestNextAttemptAt: string | null;
}

/** One attempt's record for {@link DeliveryStore.recordDeliveryAttempt}. */
export interface DeliveryAttemptRecord {
  deliveryId: string;
  workerId: string;
  attempt: DeliveryAttempt;
  nextAttemptAt: string | null;
  disable: boolean;
  disableAfter: number;
  now: string;
}

/** What recording an attempt did: nothing when the worker no longer held the delivery, and whether it disabled the webhook. */
export interface AttemptRecorded {
  recorded: boolean;
  webhookDisabled: boolean;
}

/**
 * The outbox's deliveries: claimed under leases by workers, their attempts recorded, listed,
 * redelivered, and the backlog for monitoring.
 * Each method is atomic (see `Storage`).
 */
export interface DeliveryStore {
  /**
   * Hands up to `limit` due deliveries to `workerId`, atomically: pending ones whose
   * `next_attempt_at` has come, whose lease (if any) has expired, and whose webhook is active.
   * At most `perWebhook` per webhook, counting the `inFlight` ones the worker already holds,
   * and at most `perAccount` per account (default: no bound), counting `inFlightByAccount`.
   * Each is leased until `leaseUntil`: no other worker gets it before then (the where clause is
   * both the selector and the guard), and a crashed worker's deliveries come back after it.
   */
  claimDueDeliveries(claim: {
    workerId: string;
    now: string;
    leaseUntil: string;
    limit: number;
    perWebhook: number;
    inFlight: Readonly<Record<string, number>>;
    perAccount?: number;
    inFlightByAccount?: Readonly<Record<string, number>>;
  }): Promise<ClaimedDelivery[]>;
  /**
   * Records one attempt of a delivery the worker holds, atomically, and releases it: the
   * attempt joins the log; the delivery becomes `succeeded`, `failed` (when `nextAttemptAt` is
   * null) or stays `pending` until `nextAttemptAt`. Unless the delivery is a ping, the attempt
   * counts towards the webhook's consecutive failures in the order attempts began
   * (`attempt.startedAt`), not the order they are recorded: the webhook keeps the start of its
   * latest success; a failure counts (adds one) only if it began after it; a success that
   * began after it resets the count to 0 and becomes the latest, an older one changes nothing.
   * So a burst's stragglers, failures that began before a success recorded earlier, do not
   * count. (A success resets the count even when failures that began after it were recorded
   * first: the count may come out lower than a strict count in start order, never higher.)
   * At `disableAfter` failures, or at once with `disable` (a 410 answer, whenever it began),
   * the webhook is disabled. Correct with many processes on one database: each guard is in
   * the UPDATE of the webhook's row. The attempt of
   * a delivery that an erasure redacted while it was out keeps no response excerpt. Returns
   * `false`, changing nothing, when the worker no longer holds the delivery.
   */
  recordDeliveryAttempt(record: DeliveryAttemptRecord): Promise<AttemptRecorded>;
  /**
   * Records several attempts in one transaction, each exactly as `recordDeliveryAttempt` would
   * (in the order of their delivery ids; the results in the order given): a worker records the
   * attempts that end together with one commit. Each webhook's count is then updated once per
   * webhook, in the order the attempts began (a webhook disabled by the batch is reported on
   * its 410 record, else on its latest failure).
   */
  recordDeliveryAttempts(records: readonly DeliveryAttemptRecord[]): Promise<AttemptRecorded[]>;
  /** One page of a webhook's deliveries with their attempts, newest first; `null` when the account has no such webhook. */
  listDeliveries(accountId: string, webhookId: string, query: DeliveryListQuery): Promise<Page<DeliveryRecord> | null>;
  /** A delivery of the account's webhook with its attempts, or `null`. */
  getDelivery(accountId: string, webhookId: string, deliveryId: string): Promise<DeliveryRecord | null>;
  /**
   * Queues one more attempt of a delivery, due at `now`, with the same envelope: for a final
   * delivery, one attempt whose failure is final again; a pending one is only brought forward
   * and keeps its schedule. Atomic; a delivery being sent right now is left as it is. `null`
   * when there is no such delivery.
   */
  redeliver(accountId: string, webhookId: string, deliveryId: string, now: string): Promise<DeliveryRecord | null>;
  /**
   * Stores a one-attempt delivery of `notification` to the account's webhook (active or not)
   * already held by `workerId` until `leaseUntil`, and returns it to be sent at once; its
   * failure does not count towards disabling. `null` when there is no such webhook.
   */
  createHeldDelivery(accountId: string, webhookId: string, notification: Notification, hold: { workerId: string; now: string; leaseUntil: string }): Promise<ClaimedDelivery | null>;
  /**
   * The outbox's backlog at `now`, for monitoring: pending deliveries of active webhooks that
   * are due (or being sent), those waiting for a scheduled retry, those of inactive webhooks
   * (held until the webhook is enabled again), and the earliest `next_attempt_at` of a pending
   * delivery of an active webhook (`null` when there is none). Read-only, no lock; the counts
   * walk the pending range of the `(status, next_attempt_at)` index, the earliest is one step of it.
   */
  outboxBacklog(now: string): Promise<OutboxBacklog>;
}
