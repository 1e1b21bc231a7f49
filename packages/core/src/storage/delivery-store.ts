import type { ClaimedDelivery, DeliveryListQuery, DeliveryRecord } from "../resources/webhook-delivery.ts";
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

/**
 * The outbox's deliveries: claimed under leases by workers, their attempts recorded, listed,
 * redelivered, and the backlog for monitoring. What an attempt or a redelivery means is decided
 * outside the storage (`rules/delivery-status.ts`, `rules/delivery-failures.ts`, run by
 * `service/delivery-operations.ts`); the storage applies it with the operations of
 * `storage.transaction` (`tx.deliveries`, `tx.webhooks`).
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
  /** One page of a webhook's deliveries with their attempts, newest first; `null` when the account has no such webhook. */
  listDeliveries(accountId: string, webhookId: string, query: DeliveryListQuery): Promise<Page<DeliveryRecord> | null>;
  /** A delivery of the account's webhook with its attempts, or `null`. */
  getDelivery(accountId: string, webhookId: string, deliveryId: string): Promise<DeliveryRecord | null>;
  /**
   * The outbox's backlog at `now`, for monitoring: pending deliveries of active webhooks that
   * are due (or being sent), those waiting for a scheduled retry, those of inactive webhooks
   * (held until the webhook is enabled again), and the earliest `next_attempt_at` of a pending
   * delivery of an active webhook (`null` when there is none). Read-only, no lock; the counts
   * walk the pending range of the `(status, next_attempt_at)` index, the earliest is one step of it.
   */
  outboxBacklog(now: string): Promise<OutboxBacklog>;
}
