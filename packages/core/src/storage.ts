import type { AnalyticsFigures, AnalyticsScope, EventAnalyticsFigures } from "./analytics/analytics-figures.ts";
import type { CarbonSettings } from "./carbon/carbon-settings.ts";
import type { AttendeeListQuery, AttendeeRecord, AttendeeUpdate } from "./resources/attendee.ts";
import type { Account, ApiKeyInfo, AuthContext, Scope, Tier } from "./resources/api-key.ts";
import type { EventListQuery, EventRecord, EventUpdate, EventWithStats } from "./resources/event.ts";
import type { WebhookListQuery, WebhookRecord } from "./resources/webhook.ts";
import type { ClaimedDelivery, DeliveryAttempt, DeliveryListQuery, DeliveryRecord } from "./resources/webhook-delivery.ts";
import type { ChangeNotifier } from "./storage/change-notifier.ts";
import type { Erasure } from "./storage/erasure.ts";
import type { Notification } from "./webhooks/envelope.ts";

export type { EventWithStats } from "./resources/event.ts";
export type { ChangeNotifier, OutboxReader, StoredChange } from "./storage/change-notifier.ts";
export type { Erasure } from "./storage/erasure.ts";

/** One page of a list and the total across all pages. */
export interface Page<T> {
  items: T[];
  total: number;
}

/** The current minute and day windows, each named by its first second (epoch seconds). */
export interface RateLimitWindows {
  minute: number;
  day: number;
}

/** One request counted for a live key: its account, the windows' counts including it, and the account's own limits. */
export interface CountedRequest {
  accountId: string;
  minute: number;
  day: number;
  /** The account's own limits (enterprise); `null` means the key's tier decides. */
  perMinute: number | null;
  perDay: number | null;
}

/** What one purge removed. */
export interface PurgeResult {
  idempotencyKeys: number;
  deliveries: number;
  attempts: number;
}

/** A stored Idempotency-Key and, once the first request finished, its response. */
export interface IdempotencyRecord {
  accountId: string;
  key: string;
  requestHash: string;
  state: "running" | "done";
  response: { status: number; body: string } | null;
  createdAt: string;
  expiresAt: string;
}

/** What {@link Storage.outboxBacklog} reports: pending deliveries by state, and the earliest due. */
export interface OutboxBacklog {
  due: number;
  scheduled: number;
  paused: number;
  /** The earliest `next_attempt_at` of a pending delivery of an active webhook, or `null`. */
  oldestNextAttemptAt: string | null;
}

/** The state of a record before and after a change. */
export interface Change<T> {
  before: T;
  after: T;
}

/**
 * Everything the service keeps, behind one interface. Each method is one atomic operation: it
 * either happens whole or not at all, also when several processes share one database. Guarded
 * operations check their condition and write in the same transaction ("the where clause is both
 * the selector and the guard"); the service never reads, decides and writes on its own.
 *
 * Lookups return `null` for what does not exist or belongs to another account. Guarded
 * operations throw a `ServiceError` with the code named in their contract.
 */
export interface Storage {
  // Outbox: every write of an event or a registration (insertEvent, updateEvent, deleteEvent,
  // registerAttendee, updateAttendee, checkIn, eraseAttendee) hands its change to the call's
  // `notifier` (else the storage's own) inside its transaction, and writes, in that transaction,
  // one pending delivery per active webhook subscribed to each notification it returns
  // (`ChangeNotifier`). A write that fails or rolls back writes none.

  /** Brings the schema up to date. Idempotent; safe to call from several processes at once. */
  migrate(): Promise<void>;
  /** A round trip to the store; throws when it cannot be reached. */
  ping(): Promise<void>;
  /** Releases the store. No method may be called afterwards. */
  close(): Promise<void>;

  /** The account with this id, or else with this name; `null` if none. */
  findAccount(idOrName: string): Promise<Account | null>;
  /**
   * Adds a key to the account named `account` (id or name), creating the account when no
   * account has that id or name. Atomic: two concurrent calls with a new name make one account.
   * `limits`, when given, become the account's own per-minute and per-day limits.
   */
  createApiKey(key: {
    id: string;
    account: string;
    newAccountId: string;
    hash: string;
    prefix: string;
    tier: Tier;
    scopes: readonly Scope[];
    limits?: { perMinute?: number | undefined; perDay?: number | undefined };
    now: string;
  }): Promise<ApiKeyInfo>;
  /** The key with this hash and its account; `null` if unknown or revoked. One indexed query. */
  authenticate(hash: string): Promise<AuthContext | null>;
  /** Every key, newest first, optionally of one account (id or name). Never holds secrets. */
  listApiKeys(account?: string): Promise<ApiKeyInfo[]>;
  /** Revokes a key; `false` when no such key or already revoked. */
  revokeApiKey(id: string, now: string): Promise<boolean>;

  /**
   * Authenticates and counts in one atomic statement, the hot path of every request: when the
   * key with this hash exists and is not revoked, counts one request in its account's minute and
   * day windows (a window newer than the stored one starts again at 1; a request of an older one
   * counts in the current) and returns the counts including it; else counts nothing and returns
   * `null`. Exact with several processes on one database, and a revoked key is refused at once.
   */
  countRequest(keyHash: string, windows: RateLimitWindows): Promise<CountedRequest | null>;
  /**
   * Claims an Idempotency-Key for a request, atomically. Returns `null` when this call now holds
   * the key (it was unused, expired, or a claim older than `staleBefore` was abandoned), else the
   * record that holds it.
   */
  claimIdempotencyKey(claim: {
    accountId: string;
    key: string;
    requestHash: string;
    now: string;
    expiresAt: string;
    staleBefore: string;
  }): Promise<IdempotencyRecord | null>;
  /** Stores the response of a claimed key; later claims get it back. */
  completeIdempotencyKey(accountId: string, key: string, response: { status: number; body: string }): Promise<void>;
  /** Gives a claimed key up (its request failed unexpectedly) so that a retry runs again. */
  releaseIdempotencyKey(accountId: string, key: string): Promise<void>;
  /**
   * Deletes what is kept no longer, and returns how many records went: the idempotency
   * records expired by `now`, and the deliveries (with their attempts) last active (`updatedAt`:
   * created, attempted or redelivered) before `deliveriesBefore` that will never be sent again:
   * `succeeded` and `failed` ones, and `pending` ones of an inactive webhook that no worker
   * holds. A pending delivery of an active webhook is never deleted. Works in small
   * transactions, so the API's writes are not held up; each is atomic.
   */
  purgeExpired(purge: { now: string; deliveriesBefore: string }): Promise<PurgeResult>;

  /** Stores a new event. */
  insertEvent(event: EventRecord, notifier?: ChangeNotifier): Promise<void>;
  /** The account's event with its figures, or `null`. */
  getEvent(accountId: string, id: string, carbon: CarbonSettings): Promise<EventWithStats | null>;
  /**
   * Applies `update` under the event's lock with `applyEventUpdate` (status rules, date order,
   * capacity at or above active registrations). Throws `NOT_FOUND`, `INVALID_STATE_TRANSITION`
   * or `INVALID_REQUEST`.
   */
  updateEvent(accountId: string, id: string, update: EventUpdate, now: string, notifier?: ChangeNotifier): Promise<Change<EventRecord>>;
  /**
   * Deletes the event and all its registrations in one transaction, and scrubs its
   * registrations' personal data from stored copies as `eraseAttendee` does (webhook payloads
   * by `redactEnvelope` with the event as subject, stored Idempotency-Key answers that name one
   * of them). The deleted event, or `null` (nothing changes). `erasure` defaults to now and
   * `ERASED_ANSWER`.
   */
  deleteEvent(accountId: string, id: string, notifier?: ChangeNotifier, erasure?: Erasure): Promise<EventRecord | null>;
  /** One page of the account's events, filtered and sorted as the query says (ties broken by id). */
  listEvents(accountId: string, query: EventListQuery, carbon: CarbonSettings): Promise<Page<EventWithStats>>;

  /**
   * Registers an attendee under the event's lock: throws `NOT_FOUND` (field `eventId`) for an
   * unknown event, `INVALID_REQUEST` (field `eventId`) for a cancelled or completed one,
   * `EVENT_FULL` when active registrations have reached capacity and `DUPLICATE_REGISTRATION`
   * when the email (case-insensitive) holds an active registration for the event.
   * The registration's `confirmationCode` is replaced if it is already taken.
   */
  registerAttendee(attendee: AttendeeRecord, notifier?: ChangeNotifier): Promise<AttendeeRecord>;
  /** The account's registration, or `null`. */
  getAttendee(accountId: string, id: string): Promise<AttendeeRecord | null>;
  /**
   * Applies `update` under the event's lock with `applyAttendeeUpdate` (status rules); a
   * re-activation also checks capacity (`EVENT_FULL`) and, like an email change of an active
   * registration, duplicates (`DUPLICATE_REGISTRATION`). Throws `NOT_FOUND` too.
   */
  updateAttendee(accountId: string, id: string, update: AttendeeUpdate, now: string, notifier?: ChangeNotifier): Promise<Change<AttendeeRecord>>;
  /**
   * Checks in the event's registration with this confirmation code, atomically. Throws
   * `NOT_FOUND` (no such event or code) or `INVALID_STATE_TRANSITION` (cancelled). A
   * registration already checked in is left as it is and returned with `before === after`.
   */
  checkIn(accountId: string, eventId: string, confirmationCode: string, now: string, notifier?: ChangeNotifier): Promise<Change<AttendeeRecord>>;
  /**
   * Erases the account's registration in one transaction, under its event's lock: the row goes
   * (so every read, list, QR image and check-in of it finds nothing); an active registration's
   * place and its share of the event's kept figures are released; every stored copy of its
   * personal data is scrubbed: webhook payloads (pending and final) that `redactEnvelope`
   * redacts for it, stored as redacted, with the response excerpts of their attempts cleared
   * (a receiver may echo what it got), and stored Idempotency-Key answers that name it,
   * replaced by `erasure.replay`. Then `attendee.deleted` (ids only) and the event's one-time
   * notifications go to the outbox. Returns the registration as it was, or `null` when the
   * account has none with this id (nothing changes). Never throws for a registration's status.
   */
  eraseAttendee(accountId: string, id: string, erasure: Erasure, notifier?: ChangeNotifier): Promise<AttendeeRecord | null>;
  /** The registration with this id in any account, or `null`. Serves the public QR image URLs only. */
  findAttendeeById(id: string): Promise<AttendeeRecord | null>;
  /** One page of the account's registrations, filtered and sorted as the query says (ties broken by id). */
  listAttendees(accountId: string, query: AttendeeListQuery): Promise<Page<AttendeeRecord>>;

  /**
   * Stores a new webhook unless its account already holds `maxPerAccount` webhooks (default: no
   * bound); returns `false`, storing nothing, at the bound. Throws `DUPLICATE_WEBHOOK` when the
   * account has one with this URL. Atomic: the count, the URL check and the insert are one
   * transaction under the account's lock, so concurrent inserts never pass the bound.
   */
  insertWebhook(webhook: WebhookRecord, maxPerAccount?: number): Promise<boolean>;
  /** The account's webhook (with its secret), or `null`. */
  getWebhook(accountId: string, id: string): Promise<WebhookRecord | null>;
  /**
   * Applies `change` to the account's webhook under the write lock: `DUPLICATE_WEBHOOK` when
   * the new URL is another webhook's, `NOT_FOUND` when there is none.
   */
  updateWebhook(accountId: string, id: string, change: (current: WebhookRecord) => WebhookRecord): Promise<Change<WebhookRecord>>;
  /** Deletes the account's webhook; the deleted record, or `null`. */
  deleteWebhook(accountId: string, id: string): Promise<WebhookRecord | null>;
  /** One page of the account's webhooks, newest first (ties by id). */
  listWebhooks(accountId: string, query: WebhookListQuery): Promise<Page<WebhookRecord>>;

  /**
   * Analytics over the scope's events (the account's, not cancelled, within its filters) and
   * their active registrations, aggregated in the store: totals, per-event statistics, travel by
   * mode and, with a granularity, one row per bucket of the events' `startDate` that holds events.
   * Throws `NOT_FOUND` (field `eventIds`, `details.missing`) when `scope.eventIds` names an id that
   * is not one of the account's events. Read-only; one consistent snapshot is not promised.
   */
  analyticsFigures(scope: AnalyticsScope, carbon: CarbonSettings): Promise<AnalyticsFigures>;
  /** The figures of the per-event analytics report of the account's event, or `null`. Read-only. */
  eventAnalyticsFigures(accountId: string, eventId: string): Promise<EventAnalyticsFigures | null>;
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
   * null) or stays `pending` until `nextAttemptAt`. Unless the delivery is a ping, a success
   * resets the webhook's consecutive failures, a failure adds one, and at `disableAfter`
   * failures (or at once with `disable`, a 410 answer) the webhook is disabled. The attempt of
   * a delivery that an erasure redacted while it was out keeps no response excerpt. Returns
   * `false`, changing nothing, when the worker no longer holds the delivery.
   */
  recordDeliveryAttempt(record: {
    deliveryId: string;
    workerId: string;
    attempt: DeliveryAttempt;
    nextAttemptAt: string | null;
    disable: boolean;
    disableAfter: number;
    now: string;
  }): Promise<{ recorded: boolean; webhookDisabled: boolean }>;
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
