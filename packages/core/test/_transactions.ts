/**
 * The business transactions of `service/` as the tests call them: under their own names, the
 * storage first and then the transaction's arguments, as the service's functions take them. A
 * call without a notifier notifies as the service does (`createChangeNotifier()`). This is the
 * one file of the tests that knows how the transactions are called.
 */
import * as bookingChanges from "../src/service/booking-changes.ts";
import * as eventChanges from "../src/service/event-changes.ts";
import * as paymentChanges from "../src/service/payment-changes.ts";
import * as registrations from "../src/service/registrations.ts";
import * as webhookChanges from "../src/service/webhook-changes.ts";
import type { AttendeeRecord, AttendeeUpdate } from "../src/resources/attendee.ts";
import type { EventRecord, EventUpdate } from "../src/resources/event.ts";
import type { PaymentMethod } from "../src/resources/payment.ts";
import type { BookingCreate, BookingRecord, BookingUpdate } from "../src/resources/vendor.ts";
import type { PaymentTerms } from "../src/rules/payments.ts";
import type { WebhookRecord } from "../src/resources/webhook.ts";
import type { Storage } from "../src/storage.ts";
import type { ChangeNotifier } from "../src/storage/change-notifier.ts";
import type { Change } from "../src/storage/common.ts";
import { ERASED_ANSWER, type Erasure } from "../src/storage/erasure.ts";
import { createChangeNotifier } from "../src/webhooks/change-notifications.ts";

const notifies = createChangeNotifier();

export function insertEvent(storage: Storage, event: EventRecord, notifier = notifies): Promise<void> {
  return eventChanges.insertEvent(storage, event, notifier);
}

export function updateEvent(
  storage: Storage,
  accountId: string,
  id: string,
  update: EventUpdate,
  now: string,
  notifier: ChangeNotifier = notifies,
): Promise<Change<EventRecord>> {
  return eventChanges.updateEvent(storage, accountId, id, update, now, notifier);
}

/** `erasure` defaults to now and `ERASED_ANSWER`. */
export function deleteEvent(
  storage: Storage,
  accountId: string,
  id: string,
  notifier: ChangeNotifier = notifies,
  erasure: Erasure = { now: new Date().toISOString(), replay: ERASED_ANSWER },
): Promise<EventRecord | null> {
  return eventChanges.deleteEvent(storage, accountId, id, erasure, notifier);
}

/** `terms` default to manual payments. */
export function registerAttendee(
  storage: Storage,
  attendee: AttendeeRecord,
  notifier: ChangeNotifier = notifies,
  terms?: PaymentTerms,
): Promise<AttendeeRecord> {
  return registrations.registerAttendee(storage, attendee, notifier, terms);
}

export function updateAttendee(
  storage: Storage,
  accountId: string,
  id: string,
  update: AttendeeUpdate,
  now: string,
  notifier: ChangeNotifier = notifies,
): Promise<Change<AttendeeRecord>> {
  return registrations.updateAttendee(storage, accountId, id, update, now, notifier);
}

export function checkIn(
  storage: Storage,
  accountId: string,
  eventId: string,
  confirmationCode: string,
  now: string,
  notifier: ChangeNotifier = notifies,
): Promise<Change<AttendeeRecord>> {
  return registrations.checkIn(storage, accountId, eventId, confirmationCode, now, notifier);
}

export function undoCheckIn(
  storage: Storage,
  accountId: string,
  eventId: string,
  attendeeId: string,
  now: string,
  notifier: ChangeNotifier = notifies,
): Promise<Change<AttendeeRecord>> {
  return registrations.undoCheckIn(storage, accountId, eventId, attendeeId, now, notifier);
}

export function eraseAttendee(
  storage: Storage,
  accountId: string,
  id: string,
  erasure: Erasure,
  notifier: ChangeNotifier = notifies,
): Promise<AttendeeRecord | null> {
  return registrations.eraseAttendee(storage, accountId, id, erasure, notifier);
}

/** The storage's insert with a taken URL answered as the service answers it (`DUPLICATE_WEBHOOK`). */
export function insertWebhook(storage: Storage, webhook: WebhookRecord, maxPerAccount?: number): Promise<boolean> {
  return webhookChanges.insertWebhook(storage, webhook, maxPerAccount);
}

// The payment and booking transactions notify only when given a notifier.

export function recordPayment(
  storage: Storage,
  accountId: string,
  id: string,
  input: { amount: number; method: PaymentMethod; reference?: string | null },
  now: string,
  notifier?: ChangeNotifier,
): Promise<Change<AttendeeRecord>> {
  return paymentChanges.recordPayment(storage, accountId, id, input, now, notifier);
}

export function refundByHand(
  storage: Storage,
  accountId: string,
  id: string,
  input: { amount?: number | undefined; reason?: string | null },
  now: string,
  notifier?: ChangeNotifier,
): Promise<Change<AttendeeRecord>> {
  return paymentChanges.refundByHand(storage, accountId, id, input, now, notifier);
}

export function insertBooking(
  storage: Storage,
  accountId: string,
  eventId: string,
  input: BookingCreate,
  ids: { id: string; now: string; linkHash: string },
  notifier?: ChangeNotifier,
): Promise<BookingRecord> {
  return bookingChanges.insertBooking(storage, accountId, eventId, input, ids, notifier);
}

export function updateBooking(
  storage: Storage,
  accountId: string,
  eventId: string,
  id: string,
  patch: BookingUpdate,
  now: string,
  notifier?: ChangeNotifier,
): Promise<BookingRecord> {
  return bookingChanges.updateBooking(storage, accountId, eventId, id, patch, now, notifier);
}

export function answerBooking(
  storage: Storage,
  linkHash: string,
  booked: { accountId: string; eventId: string },
  status: "confirmed" | "declined",
  message: string | null,
  now: string,
  notifier?: ChangeNotifier,
): ReturnType<typeof bookingChanges.answerBooking> {
  return bookingChanges.answerBooking(storage, linkHash, booked, status, message, now, notifier);
}

export function deleteVendor(storage: Storage, accountId: string, id: string, now: string): Promise<void> {
  return bookingChanges.deleteVendor(storage, accountId, id, now);
}

/** The transactions above by name (for calls sent to another thread, `_parallel.ts`). */
export const TRANSACTIONS = {
  insertEvent,
  updateEvent,
  deleteEvent,
  registerAttendee,
  updateAttendee,
  checkIn,
  undoCheckIn,
  eraseAttendee,
  insertWebhook,
  recordPayment,
  refundByHand,
  insertBooking,
  updateBooking,
  answerBooking,
  deleteVendor,
};

export type TransactionName = keyof typeof TRANSACTIONS;

/** The arguments of transaction `name` after the storage. */
export type TransactionArgs<N extends TransactionName> =
  Parameters<(typeof TRANSACTIONS)[N]> extends [unknown, ...infer A] ? A : never;
