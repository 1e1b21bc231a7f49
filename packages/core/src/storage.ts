import type { AccountStore } from "./storage/account-store.ts";
import type { ActivityStore } from "./storage/activity-store.ts";
import type { AnalyticsStore } from "./storage/analytics-store.ts";
import type { AttendeeStore } from "./storage/attendee-store.ts";
import type { DeliveryStore } from "./storage/delivery-store.ts";
import type { EmailStore } from "./storage/email-store.ts";
import type { EventStore } from "./storage/event-store.ts";
import type { IdempotencyStore } from "./storage/idempotency-store.ts";
import type { StorageLifecycle } from "./storage/lifecycle-store.ts";
import type { ThresholdStore } from "./storage/threshold-store.ts";
import type { TransactionStore } from "./storage/transaction.ts";
import type { PaymentStore } from "./storage/payment-store.ts";
import type { TicketLinkStore } from "./storage/ticket-link-store.ts";
import type { CheckInLinkStore } from "./storage/check-in-link-store.ts";
import type { VendorStore } from "./storage/vendor-store.ts";
import type { WebhookStore } from "./storage/webhook-store.ts";

export type { EventWithStats } from "./resources/event.ts";
export type { ActivityStore } from "./storage/activity-store.ts";
export type {
  AccountStore,
  RateLimitWindows,
  RequestReservation,
  ReservedRequests,
  StoredKey,
} from "./storage/account-store.ts";
export type { AnalyticsStore, FilteredAnalyticsFigures } from "./storage/analytics-store.ts";
export type { AttendeeStore } from "./storage/attendee-store.ts";
export type { ChangeNotifier, OutboxReader, StoredChange } from "./storage/change-notifier.ts";
export type { Change, Page } from "./storage/common.ts";
export type { DeliveryClaim, DeliveryStore, OutboxBacklog, RoomPerKey } from "./storage/delivery-store.ts";
export type { EmailAttemptWrite, EmailClaim, EmailStore, EmailWrites } from "./storage/email-store.ts";
export type { Erasure } from "./storage/erasure.ts";
export type { EventStore } from "./storage/event-store.ts";
export type { IdempotencyRecord, IdempotencyStore } from "./storage/idempotency-store.ts";
export type { PurgeResult, StorageLifecycle, StoreFault } from "./storage/lifecycle-store.ts";
export type {
  ActivityWrites,
  AttemptWrite,
  AttendeeWrites,
  ConflictKind,
  DeliveryState,
  DeliveryWrites,
  ErasureWrites,
  EventWrites,
  FigureWrites,
  NewDelivery,
  OutboxWrites,
  RecordedAttempt,
  StorageTransaction,
  Subscription,
  TallyWrites,
  TransactionStore,
  WaitlistWrites,
  WebhookFailureState,
  WebhookWrites,
} from "./storage/transaction.ts";
export type { ThresholdState, ThresholdStore, ThresholdWrites } from "./storage/threshold-store.ts";
export type { TicketLinkStore, TicketLinkWrites } from "./storage/ticket-link-store.ts";
export type { CheckInLinkStore, DoorListEntry } from "./storage/check-in-link-store.ts";
export type { BookingWrites, VendorStore, VendorWrites } from "./storage/vendor-store.ts";
export type { WebhookStore } from "./storage/webhook-store.ts";

/**
 * Everything the service keeps: the composition of the stores by concern (one file each in
 * `storage/`). The storage persists and decides nothing: it reads and writes what it is told.
 * Writes of events and registrations run in a unit of work (`transaction(fn)`) whose small
 * operations (lock, read, insert, update, adjust, append) the business transactions of
 * `service/` combine, asking `rules/` what a change means and the `ChangeNotifier` what it
 * notifies. The other methods are each one atomic operation, also when several processes share
 * one database; the guarded ones check their condition and write in the same statement or
 * transaction ("the where clause is both the selector and the guard").
 *
 * Times: a function named `now` or `clock` returns the current `Date`; a time handed to or kept by
 * the storage is ISO 8601 UTC text, named `at`, `...At`, or `now` for the current one; a number of
 * milliseconds ends in `Ms`.
 *
 * Lookups return `null` for what does not exist or belongs to another account. Guarded
 * operations throw a `ServiceError` with the code named in their contract. `createSqlStorage` is
 * its implementation; embedders do not write their own.
 */
export interface Storage
  extends StorageLifecycle,
    TransactionStore,
    AccountStore,
    IdempotencyStore,
    EventStore,
    AttendeeStore,
    WebhookStore,
    ThresholdStore,
    DeliveryStore,
    AnalyticsStore,
    ActivityStore,
    VendorStore,
    PaymentStore,
    EmailStore,
    TicketLinkStore,
    CheckInLinkStore {}
