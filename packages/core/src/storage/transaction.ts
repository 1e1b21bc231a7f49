import type { EmissionFactorSet } from "../carbon/emission-factors.ts";
/**
 * The storage's unit of work: `storage.transaction(fn)` and the small operations `fn` is handed,
 * one group per concern. They read and write what they are told and decide nothing: the business
 * transactions in `service/` run them and ask `rules/` what a change means.
 *
 * Locking: `events.lock` takes the event's row lock, which serialises everything about the
 * event's registrations, its figures and its waiting list (on SQLite the transaction holds the
 * database's write lock from its start anyway). An operation marked "under the event's lock"
 * reads or writes rows that are exact only while the caller holds that lock.
 *
 * The webhook side locks in its own order, so that no two transactions wait on each other in a
 * circle: a webhook change locks the account's row (`webhooks.lockAccount`), then the webhook's;
 * recording attempts locks deliveries (in the order of their ids), then their webhooks (in the
 * order of theirs). No transaction locks an event and a webhook.
 */
import type { EmailWrites } from "./email-store.ts";
import type { EventAnalyticsFigures } from "../analytics/analytics-figures.ts";
import type { PricedActivity } from "../resources/priced-activity.ts";
import type { AttendeeRecord } from "../resources/attendee.ts";
import type { EventRecord } from "../resources/event.ts";
import type { ActivityFigures } from "../resources/activity-figures.ts";
import type { KeptFigures } from "../rules/kept-figures.ts";
import type { Tally, TravelTally } from "../rules/kept-tallies.ts";
import type { WebhookRecord } from "../resources/webhook.ts";
import type { DeliveryAttempt, DeliveryRecord, DeliveryStatus } from "../resources/webhook-delivery.ts";
import type { Erasure } from "./erasure.ts";
import type { Envelope, ErasureSubject } from "./envelope.ts";
import type { ThresholdWrites } from "./threshold-store.ts";
import type { PaymentWrites } from "./payment-store.ts";
import type { BookingWrites, VendorWrites } from "./vendor-store.ts";
import type { TicketLinkWrites } from "./ticket-link-store.ts";

/** Events in a write transaction. */
export interface EventWrites {
  /** Locks the account's event row until the transaction ends and returns it; `null` (no lock taken) when the account has no such event. Never throws for a missing row. */
  lock(accountId: string, id: string): Promise<EventRecord | null>;
  /** {@link lock}, with the event's kept figures as of the lock, read by the same statement; `null` as `lock` gives. */
  lockWithFigures(accountId: string, id: string): Promise<{ event: EventRecord; figures: KeptFigures } | null>;
  /**
   * Inserts a new event and its tags, recording `factorYear` as the year of the factor set that
   * prices its figures. Throws the driver's error if the id exists.
   */
  insert(event: EventRecord, factorYear: number): Promise<void>;
  /**
   * Writes every field of `event` (found by its id) but its id, account and creation time, and
   * replaces its tags when `replaceTags` is set. Leaves the kept figures alone. Call it under the event's lock.
   */
  update(event: EventRecord, options: { replaceTags: boolean }): Promise<void>;
  /** Deletes the event with its registrations and their ticket links, tags, activity records, tallies and vendor bookings (nothing else). Call it under the event's lock. */
  delete(id: string): Promise<void>;
}

/** Registrations in a write transaction. */
export interface AttendeeWrites {
  /** The event id of the account's registration, or `null`; takes no lock (so the caller knows which event to lock). */
  eventIdOf(accountId: string, id: string): Promise<string | null>;
  /** The account's registration, or `null`. Exact under its event's lock. */
  get(accountId: string, id: string): Promise<AttendeeRecord | null>;
  /** The event's registration with this confirmation code, or `null`. Exact under the event's lock. */
  getByCode(eventId: string, confirmationCode: string): Promise<AttendeeRecord | null>;
  /** The ids of every registration of the event. Exact under the event's lock. */
  idsOf(eventId: string): Promise<string[]>;
  /** The event's registrations holding money paid and not refunded (whatever their status). Exact under the event's lock. */
  withRefundable(eventId: string): Promise<AttendeeRecord[]>;
  /** The event's registrations in any of `statuses`, in registration order (ties by id). Exact under the event's lock. */
  inStatuses(eventId: string, statuses: readonly AttendeeRecord["status"][]): Promise<AttendeeRecord[]>;
  /** How many of the event's registrations that are not `cancelled` hold each ticket type and status (one row per pair). Exact under the event's lock. */
  ticketHolders(
    eventId: string,
  ): Promise<Array<{ ticketType: string; status: AttendeeRecord["status"]; registrations: number }>>;
  /**
   * The id of a registration of the event other than `exceptId` with this email (compared
   * lower-cased) that is not `cancelled`, or `null`. Exact under the event's lock; a unique index
   * is the backstop ({@link StorageConflict}).
   */
  findActiveDuplicate(eventId: string, email: string, exceptId: string): Promise<string | null>;
  /**
   * For each of `emails` (compared lower-cased) that a registration of the event that is not
   * `cancelled` holds, that registration's id, keyed by the lower-cased email: the duplicates of
   * several new registrations at once. Exact under the event's lock; a unique index is the
   * backstop ({@link StorageConflict}).
   */
  activeDuplicates(eventId: string, emails: readonly string[]): Promise<Map<string, string>>;
  /** True when any registration, of any event, holds this confirmation code. */
  codeTaken(confirmationCode: string): Promise<boolean>;
  /** Those of `confirmationCodes` that a registration, of any event, holds. */
  codesTaken(confirmationCodes: readonly string[]): Promise<Set<string>>;
  /** Inserts a new registration as given. Throws {@link StorageConflict} (`active-email`) when another active registration of the event has its email. */
  insert(attendee: AttendeeRecord): Promise<void>;
  /** Inserts new registrations as given, in a bounded number of statements; throws as {@link insert} does (none then stays written once the transaction rolls back). */
  insertMany(attendees: readonly AttendeeRecord[]): Promise<void>;
  /**
   * Writes every field of `attendee` (found by its id) but its id, account, event, confirmation
   * code and registration date. Throws {@link StorageConflict} (`active-email`) as `insert` does.
   */
  update(attendee: AttendeeRecord): Promise<void>;
  /** Writes only the status and payment fields of `attendee` (`status`, `waitlistPosition`, `checkedInAt`, `cancelledAt`, `updatedAt`, `payment`): a check-in, its undoing, a promotion, a payment. */
  updateStatus(attendee: AttendeeRecord): Promise<void>;
  /**
   * Writes the same status fields to each registration of `ids` (`status`, `waitlistPosition`,
   * `cancelledAt`, `updatedAt`; nothing else), a bounded number of ids a statement: a change of
   * many registrations at once (an event's cancellation).
   */
  setStatuses(
    ids: readonly string[],
    change: Pick<AttendeeRecord, "status" | "waitlistPosition" | "cancelledAt" | "updatedAt">,
  ): Promise<void>;
  /** Deletes the registration and its ticket links (nothing else: its figures and copies are the caller's). */
  remove(id: string): Promise<void>;
}

/** The waiting list of an event, in a write transaction, under the event's lock. */
export interface WaitlistWrites {
  /** Up to `limit` of the event's `waitlisted` registrations, first in line first. */
  firstInLine(eventId: string, limit: number): Promise<AttendeeRecord[]>;
  /** Moves every `waitlisted` registration of the event behind position `behind` up by `places` (their positions drop by `places`). */
  moveUp(eventId: string, behind: number, places: number): Promise<void>;
}

/** An event's kept figures (the sums of its registrations' contributions) in a write transaction. */
export interface FigureWrites {
  /** The event's kept figures as of this point of the transaction (exact under its lock). Throws when the event has no row. */
  read(eventId: string): Promise<KeptFigures>;
  /** Adds `delta` to the event's kept figures (an increment: one statement however many registrations the event has). No-op for an all-zero delta. */
  adjust(eventId: string, delta: KeptFigures): Promise<void>;
  /** The event's kept activity figures as of this point of the transaction (exact under its lock). Throws when the event has no row. */
  readActivities(eventId: string): Promise<ActivityFigures>;
  /**
   * Sums the event's activity records into its kept activity figures (one aggregate over its
   * records, then one write of its row) and returns them. Call it under the event's lock, after
   * the change to its records.
   */
  recountActivities(eventId: string): Promise<ActivityFigures>;
  /**
   * Prices the event's figures again with `set`: its kept travel emissions and travel tallies
   * summed again from its registrations, its activity records priced again and its activity
   * figures summed again, and `set` recorded as the set that priced them. Call it under the
   * event's lock.
   */
  reprice(eventId: string, set: EmissionFactorSet): Promise<void>;
  /** The figures of the per-event analytics report of the account's event, or `null` (a read, in the transaction). */
  eventAnalytics(accountId: string, eventId: string): Promise<EventAnalyticsFigures | null>;
}

/** An event's kept tallies (the counts of its registrations' values) in a write transaction. */
export interface TallyWrites {
  /**
   * Adds each of `tallies` and `travel` (a change's differences: `tallyChange`,
   * `travelTallyChange`) to the event's tallies; a value left with no registration goes. Call it
   * under the event's lock.
   */
  adjust(eventId: string, tallies: readonly Tally[], travel: readonly TravelTally[]): Promise<void>;
  /** The event's tallies of one facet as of this point of the transaction: each value and its registrations (exact under the event's lock). */
  read(eventId: string, facet: Tally["facet"]): Promise<Array<{ value: string; registrations: number }>>;
}

/** One active webhook of an account and the notification types it receives (`*`: all). */
export interface Subscription {
  webhookId: string;
  types: readonly string[];
}

/** A delivery to queue: one envelope for one webhook. Its bytes (`payload`) are what every attempt sends. */
export interface NewDelivery {
  webhookId: string;
  envelope: Envelope;
}

/** The outbox, in the transaction of the change it records. */
export interface OutboxWrites {
  /** The account's active webhooks and their types. */
  subscriptions(accountId: string): Promise<Subscription[]>;
  /** The account's id and name (the envelope's `account`), or `null` when it has no row. */
  account(accountId: string): Promise<{ id: string; name: string } | null>;
  /** Records that the one-time notification `kind` of the event was written at `at`; `false`, changing nothing, when it was before. Rolls back with the transaction. */
  recordOneTime(eventId: string, kind: string, at: string): Promise<boolean>;
  /** Queues each delivery as `pending`, due at its envelope's `createdAt`, with no attempt made; it commits or rolls back with the change. */
  append(deliveries: readonly NewDelivery[]): Promise<void>;
}

/** The stored copies of personal data beyond the registration rows, in the transaction of an erasure. */
export interface ErasureWrites {
  /**
   * Rewrites the account's stored delivery payloads that may carry the subject's data (those
   * naming the registration, or the event; and the event's `analytics.report_ready`) with what
   * `redact` makes of each envelope (`null`: leave it), in every status, and clears the response
   * excerpts of the attempts of those rewritten. Returns how many were rewritten.
   */
  redactPayloads(
    accountId: string,
    subject: ErasureSubject,
    redact: (envelope: Envelope) => Envelope | null,
    at: string,
  ): Promise<number>;
  /**
   * Replaces with `erasure.replay` the account's stored Idempotency-Key answers that contain
   * `mentioning` and name one of `attendeeIds`. Returns how many were replaced.
   */
  replaceAnswers(
    accountId: string,
    mentioning: string,
    attendeeIds: ReadonlySet<string>,
    erasure: Erasure,
  ): Promise<number>;
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

/** A delivery's state as a redelivery decides on it. */
export interface DeliveryState {
  status: DeliveryStatus;
  attemptCount: number;
  finalAttempt: number | null;
}

/** Who holds a delivery made to be sent at once (a ping's) and how its attempt counts (`PING_DELIVERY` in `rules/delivery-status.ts`). */
export interface DeliveryHold {
  workerId: string;
  /** The lease's end: no worker claims the delivery before then. */
  leaseUntil: string;
  finalAttempt: number;
  /** Whether a failure of its attempt counts towards disabling the webhook. */
  countsFailures: boolean;
}

/** The outbox's deliveries in a write transaction: an attempt's record, a redelivery, a delivery held to be sent at once. */
export interface DeliveryWrites {
  /**
   * Locks the delivery's row and records attempt `attempt.number` on it when `workerId` holds it
   * (pending, its lease `workerId`'s, `attempt.number - 1` attempts made): the attempt joins its
   * log, the delivery gets `status` and `nextAttemptAt` and its lease is released. The where
   * clause is both the selector and the guard, on the locked row: a worker that took the
   * delivery over after this one's lease ran out cannot record the same attempt number. `null`,
   * writing nothing, when the worker no longer holds it. The attempt of a
   * delivery an erasure redacted while it was out keeps no response excerpt. Never throws for a
   * missing row.
   */
  recordAttempt(write: AttemptWrite): Promise<RecordedAttempt | null>;
  /** Locks a delivery of the account's webhook until the transaction ends and reads its state; `null` (no lock taken) when there is none. */
  lock(accountId: string, webhookId: string, deliveryId: string): Promise<DeliveryState | null>;
  /**
   * Gives a delivery locked by {@link lock} its `status` and `finalAttempt`, due at `now`, unless
   * a worker holds it (its attempt is running and is recorded first): `false` then, changing
   * nothing. The lease is checked in the update's where clause.
   */
  requeue(
    deliveryId: string,
    change: { status: DeliveryStatus; finalAttempt: number | null; now: string },
  ): Promise<boolean>;
  /** A delivery of the account's webhook with its attempts as of this point of the transaction, or `null`. Takes no lock. */
  get(accountId: string, webhookId: string, deliveryId: string): Promise<DeliveryRecord | null>;
  /**
   * Inserts `delivery` as `pending`, due at its envelope's `createdAt`, with no attempt made, but
   * already leased as `hold` says, so no worker claims it while its holder sends it. Returns the
   * payload stored: the envelope's bytes, which its attempt sends.
   */
  insertHeld(delivery: NewDelivery, hold: DeliveryHold): Promise<string>;
}

/** A webhook's failure count and whether it is active, as stored. */
export interface WebhookFailureState {
  consecutiveFailures: number;
  lastSuccessStartedAt: string | null;
  active: boolean;
}

/** Webhooks in a write transaction: a change of one, and the failure count its deliveries' attempts keep. */
export interface WebhookWrites {
  /**
   * Locks the account's row until the transaction ends: it serialises the account's webhook
   * inserts and URL changes (`WebhookStore.insertWebhook` takes it too), so a URL found free by
   * {@link findByUrl} stays free until the transaction commits. No-op for an unknown account.
   */
  lockAccount(accountId: string): Promise<void>;
  /**
   * Locks the account's webhook until the transaction ends and reads it (with its secret);
   * `null` (no lock taken) when the account has none. Locked, because {@link update} writes the
   * row back whole: an attempt recorded meanwhile (its failure count, a disabling) must not be
   * overwritten with what was read before it.
   */
  lock(accountId: string, id: string): Promise<WebhookRecord | null>;
  /** The account's webhook (with its secret) as of this point of the transaction, or `null`. Takes no lock. */
  get(accountId: string, id: string): Promise<WebhookRecord | null>;
  /**
   * The id of the account's webhook other than `exceptId` that has `url`, or `null`. Exact under
   * {@link lockAccount}; a unique index is the backstop ({@link StorageConflict} `webhook-url`).
   */
  findByUrl(accountId: string, url: string, exceptId: string): Promise<string | null>;
  /**
   * Writes every field of `webhook` (found by its id and account) but its id, account and
   * creation time. Call it under {@link lock}. Throws {@link StorageConflict} (`webhook-url`)
   * when another webhook of the account has its URL.
   */
  update(webhook: WebhookRecord): Promise<void>;
  /** Locks the webhook's row until the transaction ends and reads its failure count; `null` (no lock taken) when it was deleted. */
  lockFailures(webhookId: string): Promise<WebhookFailureState | null>;
  /**
   * Writes the failure count of a webhook locked by {@link lockFailures}, and disables it (at
   * `disabledAt`) when that is given.
   */
  setFailures(
    webhookId: string,
    count: { consecutiveFailures: number; lastSuccessStartedAt: string | null },
    disabledAt: string | null,
  ): Promise<void>;
}

/** Activity records in a write transaction. Call them under their event's lock (`events.lock`). */
export interface ActivityWrites {
  /** Inserts a new record with its figures as given. Throws the driver's error if the id exists or the event has no row. */
  insert(activity: PricedActivity): Promise<void>;
  /** The account's activity `id` of event `eventId` as of this point of the transaction, or `null`. Takes no lock of its own. */
  get(accountId: string, eventId: string, id: string): Promise<PricedActivity | null>;
  /** Writes every field of `activity` (found by its id, account and event) but its id, account, event and creation time. */
  update(activity: PricedActivity): Promise<void>;
  /** Deletes the account's activity `id` of event `eventId`; `false` when there was none. */
  delete(accountId: string, eventId: string, id: string): Promise<boolean>;
}

/** What a write transaction's function is handed. */
export interface StorageTransaction {
  events: EventWrites;
  attendees: AttendeeWrites;
  waitlist: WaitlistWrites;
  figures: FigureWrites;
  tallies: TallyWrites;
  outbox: OutboxWrites;
  erasure: ErasureWrites;
  deliveries: DeliveryWrites;
  webhooks: WebhookWrites;
  activities: ActivityWrites;
  thresholds: ThresholdWrites;
  vendors: VendorWrites;
  bookings: BookingWrites;
  payments: PaymentWrites;
  emails: EmailWrites;
  ticketLinks: TicketLinkWrites;
}

/** Units of work. */
export interface TransactionStore {
  /**
   * Runs `fn` in one write transaction and returns what it returns: everything it wrote commits
   * together, or nothing does when it throws (its error is rethrown). On SQLite the transaction
   * holds the write lock from its start (`BEGIN IMMEDIATE`); on PostgreSQL it runs at READ
   * COMMITTED with the row locks the operations take, and `fn` runs again from the start after a
   * deadlock or serialisation failure: `fn` must keep no effect outside the transaction but its
   * result. Do not call the storage's other methods from inside `fn`.
   */
  transaction<T>(fn: (tx: StorageTransaction) => Promise<T>): Promise<T>;
}

/**
 * Which uniqueness a {@link StorageConflict} broke: `active-email`, one active registration per
 * email and event; `webhook-url`, one webhook per URL and account; `active-booking`, one active
 * booking per vendor and event.
 */
export type ConflictKind = "active-email" | "webhook-url" | "active-booking";

/**
 * A write broke a uniqueness the database guards as the backstop of a check made under a lock
 * (a race the lock did not cover), or the check found it taken; thrown by `transaction` (and
 * `WebhookStore.insertWebhook`) after it rolled back, so the caller may read outside the failed
 * transaction and answer with the documented error.
 */
export class StorageConflict extends Error {
  override readonly name = "StorageConflict";
  constructor(
    readonly kind: ConflictKind,
    options?: { cause?: unknown },
  ) {
    super(`The write broke the uniqueness ${kind}.`, options);
  }

  /** True for a `StorageConflict` of `kind`, checked by name (not `instanceof`: copies of core may differ). */
  static is(error: unknown, kind: ConflictKind): error is StorageConflict {
    return error instanceof Error && error.name === "StorageConflict" && (error as StorageConflict).kind === kind;
  }
}
