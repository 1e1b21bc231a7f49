import type { AccountStore } from "./storage/account-store.ts";
import type { AnalyticsStore } from "./storage/analytics-store.ts";
import type { AttendeeStore } from "./storage/attendee-store.ts";
import type { DeliveryStore } from "./storage/delivery-store.ts";
import type { EventStore } from "./storage/event-store.ts";
import type { IdempotencyStore } from "./storage/idempotency-store.ts";
import type { StorageLifecycle } from "./storage/lifecycle-store.ts";
import type { WebhookStore } from "./storage/webhook-store.ts";

export type { EventWithStats } from "./resources/event.ts";
export type { AccountStore, LeasedRequests, RateLimitWindows, RequestLease } from "./storage/account-store.ts";
export type { AnalyticsStore } from "./storage/analytics-store.ts";
export type { AttendeeStore } from "./storage/attendee-store.ts";
export type { ChangeNotifier, OutboxReader, StoredChange } from "./storage/change-notifier.ts";
export type { Change, Page } from "./storage/common.ts";
export type {
  AttemptWrite, DeliveryClaim, DeliveryState, DeliveryStore, DeliveryTransaction, OutboxBacklog, RecordedAttempt, RoomPerKey, WebhookFailureState,
} from "./storage/delivery-store.ts";
export type { Erasure } from "./storage/erasure.ts";
export type { EventStore } from "./storage/event-store.ts";
export type { IdempotencyRecord, IdempotencyStore } from "./storage/idempotency-store.ts";
export type { PurgeResult, StorageLifecycle, StoreFault } from "./storage/lifecycle-store.ts";
export type { WebhookStore } from "./storage/webhook-store.ts";

/**
 * Everything the service keeps: the composition of the stores by concern (one file each in
 * `storage/`). Each method is one atomic operation: it either happens whole or not at all,
 * also when several processes share one database. Guarded operations check their condition and
 * write in the same transaction ("the where clause is both the selector and the guard"); the
 * service never reads, decides and writes on its own. The storage persists and decides nothing
 * about what a change means: the notifications of a write come from the `ChangeNotifier` it is
 * handed, the API shapes and scores from core.
 *
 * Lookups return `null` for what does not exist or belongs to another account. Guarded
 * operations throw a `ServiceError` with the code named in their contract.
 */
export interface Storage
  extends StorageLifecycle, AccountStore, IdempotencyStore, EventStore, AttendeeStore, WebhookStore, DeliveryStore, AnalyticsStore {}
