import type { ClaimedDelivery, DeliveryAttempt, DeliveryListQuery, DeliveryRecord, DeliveryStatus } from "../resources/webhook-delivery.ts";
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

/** How many more deliveries per key (a webhook, an account) a claim may hand out: `left[key]` for a key listed, `each` for any other. */
export interface RoomPerKey {
  each: number;
  left: Readonly<Record<string, number>>;
}

/** What {@link DeliveryStore.claimDueDeliveries} may take, for whom, and until when. */
export interface DeliveryClaim {
  workerId: string;
  now: string;
  /** The lease's end: no other worker gets the delivery before then. */
  leaseUntil: string;
  /** At most this many deliveries in all. */
  limit: number;
  /** At most this many more per webhook (default: no bound). */
  webhookRoom?: RoomPerKey;
  /** At most this many more per account (default: no bound). */
  accountRoom?: RoomPerKey;
}

/** An attempt to record on a delivery a worker holds, with the state its outcome leads to (`rules/delivery-status.ts`). */
export interface AttemptWrite {
  deliveryId: string;
  workerId: string;
  attempt: DeliveryAttempt;
  status: DeliveryStatus;
  /** When the next attempt is due while `status` is `pending`; otherwise null. */
  nextAttemptAt: string | null;
  now: string;
}

/** The delivery an attempt was recorded on: whose webhook, and whether its attempts count towards that webhook's failures (a ping's do not). */
export interface RecordedAttempt {
  webhookId: string;
  countsFailures: boolean;
}

/** A webhook's failure count and whether it is active, as stored. */
export interface WebhookFailureState {
  consecutiveFailures: number;
  lastSuccessStartedAt: string | null;
  active: boolean;
}

/** A delivery's state as a redelivery decides on it. */
export interface DeliveryState {
  status: DeliveryStatus;
  attemptCount: number;
  finalAttempt: number | null;
}

/**
 * The small operations of one delivery transaction ({@link DeliveryStore.deliveryTransaction}).
 * Each runs in that transaction; those that lock hold the row until it ends.
 */
export interface DeliveryTransaction {
  /**
   * Records attempt `attempt.number` of a delivery that `workerId` holds (pending, its lease
   * `workerId`'s, `attempt.number - 1` attempts made), sets its `status` and `nextAttemptAt`
   * and releases the lease. The where clause is both the selector and the guard, on the locked
   * row: a worker that took the delivery over after this one's lease ran out cannot record the
   * same attempt number. `null`, writing nothing, when the worker no longer holds it. The
   * attempt of a delivery an erasure redacted while it was out keeps no response excerpt.
   */
  recordAttempt(write: AttemptWrite): Promise<RecordedAttempt | null>;
  /** Locks the webhook's row and reads its failure count; `null` when it was deleted. */
  lockWebhookFailures(webhookId: string): Promise<WebhookFailureState | null>;
  /**
   * Writes a webhook's failure count, locked before by {@link lockWebhookFailures}, and disables
   * it (at `disabledAt`) when that is given.
   */
  setWebhookFailures(webhookId: string, count: { consecutiveFailures: number; lastSuccessStartedAt: string | null }, disabledAt: string | null): Promise<void>;
  /** Locks a delivery of the account's webhook and reads its state; `null` when there is none. */
  lockDelivery(accountId: string, webhookId: string, deliveryId: string): Promise<DeliveryState | null>;
  /**
   * Gives a delivery locked by {@link lockDelivery} its `status` and `finalAttempt`, due at
   * `now`, unless a worker holds it (its attempt is running and is recorded first): `false`
   * then, changing nothing.
   */
  requeueDelivery(deliveryId: string, change: { status: DeliveryStatus; finalAttempt: number | null; now: string }): Promise<boolean>;
  /** A delivery of the account's webhook with its attempts, or `null` (as {@link DeliveryStore.getDelivery}). */
  getDelivery(accountId: string, webhookId: string, deliveryId: string): Promise<DeliveryRecord | null>;
}

/**
 * The outbox's deliveries: claimed under leases by workers, their attempts recorded, listed,
 * redelivered, and the backlog for monitoring. What an attempt or a redelivery means is decided
 * outside the storage (`rules/delivery-status.ts`, `rules/delivery-failures.ts`, run by
 * `service/delivery-operations.ts`); the storage applies it in a {@link deliveryTransaction}.
 */
export interface DeliveryStore {
  /**
   * Hands up to `limit` due deliveries to `workerId`, atomically: pending ones whose
   * `next_attempt_at` has come, whose lease (if any) has expired, and whose webhook is active,
   * in due order, within the room given per webhook and per account. Each is leased until
   * `leaseUntil`: no other worker gets it before then (the where clause is both the selector and
   * the guard), and a crashed worker's deliveries come back after it.
   */
  claimDueDeliveries(claim: DeliveryClaim): Promise<ClaimedDelivery[]>;
  /**
   * Runs `fn` in one write transaction with the delivery operations: all of it commits, or
   * none. Correct with many processes on one database. May run `fn` again (PostgreSQL, after a
   * deadlock), so `fn` must do nothing but call `tx` and compute.
   */
  deliveryTransaction<T>(fn: (tx: DeliveryTransaction) => Promise<T>): Promise<T>;
  /** One page of a webhook's deliveries with their attempts, newest first; `null` when the account has no such webhook. */
  listDeliveries(accountId: string, webhookId: string, query: DeliveryListQuery): Promise<Page<DeliveryRecord> | null>;
  /** A delivery of the account's webhook with its attempts, or `null`. */
  getDelivery(accountId: string, webhookId: string, deliveryId: string): Promise<DeliveryRecord | null>;
  /**
   * Stores a delivery of `notification` to the account's webhook (active or not) already held by
   * `workerId` until `leaseUntil`, with `finalAttempt` and whether its failures count towards
   * disabling, and returns it to be sent at once. `null` when there is no such webhook.
   */
  createHeldDelivery(
    accountId: string,
    webhookId: string,
    notification: Notification,
    hold: { workerId: string; now: string; leaseUntil: string; finalAttempt: number; countsFailures: boolean },
  ): Promise<ClaimedDelivery | null>;
  /**
   * The outbox's backlog at `now`, for monitoring: pending deliveries of active webhooks that
   * are due (or being sent), those waiting for a scheduled retry, those of inactive webhooks
   * (held until the webhook is enabled again), and the earliest `next_attempt_at` of a pending
   * delivery of an active webhook (`null` when there is none). Read-only, no lock; the counts
   * walk the pending range of the `(status, next_attempt_at)` index, the earliest is one step of it.
   */
  outboxBacklog(now: string): Promise<OutboxBacklog>;
}
