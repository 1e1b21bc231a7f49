/**
 * The business transactions of `service/` bound to one storage, under the names and signatures
 * the storage's own methods had before the transactions moved to the service layer, so that the
 * storage contract suite and the concurrency tests run the same assertions over each backend.
 * Calls without a notifier notify as the service does (`createChangeNotifier()`).
 */
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
  const transactions: Transactions = {
    insertEvent: (event, n = notifier) => insertEvent(storage, event, n),
    updateEvent: (accountId, id, update, now, n = notifier) => updateEvent(storage, accountId, id, update, now, n),
    deleteEvent: (accountId, id, n = notifier, erasure = { now: new Date().toISOString(), replay: ERASED_ANSWER }) =>
      deleteEvent(storage, accountId, id, erasure, n),
    registerAttendee: (attendee, n = notifier) => registerAttendee(storage, attendee, n),
    updateAttendee: (accountId, id, update, now, n = notifier) =>
      updateAttendee(storage, accountId, id, update, now, n),
    checkIn: (accountId, eventId, code, now, n = notifier) => checkIn(storage, accountId, eventId, code, now, n),
    undoCheckIn: (accountId, eventId, attendeeId, now, n = notifier) =>
      undoCheckIn(storage, accountId, eventId, attendeeId, now, n),
    eraseAttendee: (accountId, id, erasure, n = notifier) => eraseAttendee(storage, accountId, id, erasure, n),
    insertWebhook: (webhook, maxPerAccount) => insertWebhook(storage, webhook, maxPerAccount),
  };
  return Object.assign(Object.create(storage) as Storage, transactions);
}
