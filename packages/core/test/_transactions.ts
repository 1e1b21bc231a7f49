/**
 * The business transactions of `service/` bound to one storage, under the names and signatures
 * the storage's own methods had before the transactions moved to the service layer, so that the
 * storage contract suite and the concurrency tests run the same assertions over each backend.
 * Calls without a notifier notify as the service does (`createChangeNotifier()`), and priced
 * registrations pay by hand.
 */
import { DEFAULT_CARBON_SETTINGS } from "../src/carbon/carbon-settings.ts";
import { DEFAULT_EMISSION_FACTORS } from "../src/carbon/emission-factors.ts";
import { MANUAL_PAYMENT_TERMS, type PaymentTerms } from "../src/rules/payments.ts";
import type { TransactionContext } from "../src/service/transaction-context.ts";
import { deleteEvent, insertEvent, updateEvent } from "../src/service/event-changes.ts";
import { checkIn, eraseAttendee, registerAttendee, undoCheckIn, updateAttendee } from "../src/service/registrations.ts";
import { insertWebhook } from "../src/service/webhook-changes.ts";
import type { WebhookRecord } from "../src/resources/webhook.ts";
import type { Storage } from "../src/storage.ts";
import type { ChangeNotifier } from "../src/storage/change-notifier.ts";
import { ERASED_ANSWER, type Erasure } from "../src/storage/erasure.ts";
import { createChangeNotifier } from "../src/webhooks/change-notifications.ts";
import type { AttendeeRecord, AttendeeUpdate } from "../src/resources/attendee.ts";
import type { EventRecord, EventUpdate } from "../src/resources/event.ts";
import type { Change } from "../src/storage/common.ts";

/** The business transactions over one storage. */
export interface Transactions {
  insertEvent(event: EventRecord, notifier?: ChangeNotifier): Promise<void>;
  updateEvent(
    accountId: string,
    id: string,
    update: EventUpdate,
    now: string,
    notifier?: ChangeNotifier,
  ): Promise<Change<EventRecord>>;
  /** `erasure` defaults to now and `ERASED_ANSWER`. */
  deleteEvent(accountId: string, id: string, notifier?: ChangeNotifier, erasure?: Erasure): Promise<EventRecord | null>;
  registerAttendee(attendee: AttendeeRecord, notifier?: ChangeNotifier): Promise<AttendeeRecord>;
  updateAttendee(
    accountId: string,
    id: string,
    update: AttendeeUpdate,
    now: string,
    notifier?: ChangeNotifier,
  ): Promise<Change<AttendeeRecord>>;
  checkIn(
    accountId: string,
    eventId: string,
    confirmationCode: string,
    now: string,
    notifier?: ChangeNotifier,
  ): Promise<Change<AttendeeRecord>>;
  undoCheckIn(
    accountId: string,
    eventId: string,
    attendeeId: string,
    now: string,
    notifier?: ChangeNotifier,
  ): Promise<Change<AttendeeRecord>>;
  eraseAttendee(
    accountId: string,
    id: string,
    erasure: Erasure,
    notifier?: ChangeNotifier,
  ): Promise<AttendeeRecord | null>;
  /** The storage's insert with a taken URL answered as the service answers it (`DUPLICATE_WEBHOOK`). */
  insertWebhook(webhook: WebhookRecord, maxPerAccount?: number): Promise<boolean>;
}

/** A storage with the business transactions over it. */
export type TestStorage = Storage & Transactions;

/**
 * `storage` with the business transactions bound to it. The result inherits from `storage` (its
 * own methods are reached through it, so a Proxy given here sees every call the transactions
 * make, `transaction` included).
 */
export function withTransactions(storage: Storage, notifier: ChangeNotifier = createChangeNotifier()): TestStorage {
  const context = transactionContext(storage, { notifier });
  // A call given its own notifier runs with it (`undefined`: none, as the calls before the context took it).
  const using = (n: ChangeNotifier | undefined) =>
    n === notifier ? context : { ...context, notifier: n ?? null, carbon: n?.carbon ?? DEFAULT_CARBON_SETTINGS };
  const transactions: Transactions = {
    insertEvent: (event, n = notifier) => insertEvent(using(n), event),
    updateEvent: (accountId, id, update, now, n = notifier) => updateEvent(using(n), { accountId, id, update, now }),
    deleteEvent: (accountId, id, n = notifier, erasure = { now: new Date().toISOString(), replay: ERASED_ANSWER }) =>
      deleteEvent(using(n), { accountId, id, erasure }),
    registerAttendee: (attendee, n = notifier) => registerAttendee(using(n), attendee),
    updateAttendee: (accountId, id, update, now, n = notifier) =>
      updateAttendee(using(n), { accountId, id, update, now }),
    checkIn: (accountId, eventId, confirmationCode, now, n = notifier) =>
      checkIn(using(n), { accountId, eventId, confirmationCode, now }),
    undoCheckIn: (accountId, eventId, attendeeId, now, n = notifier) =>
      undoCheckIn(using(n), { accountId, eventId, attendeeId, now }),
    eraseAttendee: (accountId, id, erasure, n = notifier) => eraseAttendee(using(n), { accountId, id, erasure }),
    insertWebhook: (webhook, maxPerAccount = Infinity) => insertWebhook({ storage }, { webhook, maxPerAccount }),
  };
  return Object.assign(Object.create(storage) as Storage, transactions);
}

/**
 * The context the business transactions run with over `storage`: the storage's factor set, the
 * notifier's carbon settings (the default without one), and `payments` (default: by hand).
 */
export function transactionContext<S extends Storage>(
  storage: S,
  { notifier, payments = MANUAL_PAYMENT_TERMS }: { notifier: ChangeNotifier | null; payments?: PaymentTerms },
): TransactionContext<S> {
  return {
    storage,
    notifier,
    emissionFactors: storage.emissionFactors ?? DEFAULT_EMISSION_FACTORS,
    carbon: notifier?.carbon ?? DEFAULT_CARBON_SETTINGS,
    payments,
  };
}
