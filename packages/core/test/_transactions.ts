/**
 * The business transactions of `service/` as the tests call them: under their own names, the
 * storage first and then the transaction's arguments. A call without a notifier notifies as the
 * service does (`createChangeNotifier()`), except the payment and booking transactions, which
 * notify only when given one; priced registrations pay by hand unless given terms. This is the
 * one file of the tests that knows how the transactions are called.
 */
import { DEFAULT_CARBON_SETTINGS } from "../src/carbon/carbon-settings.ts";
import { createFactorSets } from "../src/carbon/factor-sets.ts";
import type { AttendeeRecord, AttendeeUpdate } from "../src/resources/attendee.ts";
import type { EventRecord, EventUpdate } from "../src/resources/event.ts";
import type { PaymentMethod } from "../src/resources/payment.ts";
import type { BookingCreate, BookingRecord, BookingUpdate } from "../src/resources/vendor.ts";
import type { WebhookRecord } from "../src/resources/webhook.ts";
import { MANUAL_PAYMENT_TERMS, type PaymentTerms } from "../src/rules/payments.ts";
import * as bookingChanges from "../src/service/booking-changes.ts";
import * as eventChanges from "../src/service/event-changes.ts";
import * as paymentChanges from "../src/service/payment-changes.ts";
import * as registrations from "../src/service/registrations.ts";
import type { TransactionContext } from "../src/service/transaction-context.ts";
import * as webhookChanges from "../src/service/webhook-changes.ts";
import type { Storage } from "../src/storage.ts";
import type { ChangeNotifier } from "../src/storage/change-notifier.ts";
import type { Change } from "../src/storage/common.ts";
import { ERASED_ANSWER, type Erasure } from "../src/storage/erasure.ts";
import { createChangeNotifier } from "../src/webhooks/change-notifications.ts";

/**
 * The context the business transactions run with over `storage`: the storage's factor set, the
 * notifier's carbon settings (the default without one), and `payments` (default: by hand).
 */
export function transactionContext<S extends Storage>(
  storage: S,
  {
    notifier,
    payments = MANUAL_PAYMENT_TERMS,
    emails = false,
  }: { notifier: ChangeNotifier | null; payments?: PaymentTerms; emails?: boolean },
): TransactionContext<S> {
  return {
    storage,
    notifier,
    factorSets: storage.factorSets ?? createFactorSets(),
    carbon: notifier?.carbon ?? DEFAULT_CARBON_SETTINGS,
    payments,
    emails,
  };
}

const notifies = createChangeNotifier();

export function insertEvent(storage: Storage, event: EventRecord, notifier = notifies): Promise<void> {
  return eventChanges.insertEvent(transactionContext(storage, { notifier }), event);
}

export function updateEvent(
  storage: Storage,
  accountId: string,
  id: string,
  update: EventUpdate,
  now: string,
  notifier: ChangeNotifier = notifies,
): ReturnType<typeof eventChanges.updateEvent> {
  return eventChanges.updateEvent(transactionContext(storage, { notifier }), { accountId, id, update, now });
}

/** `erasure` defaults to now and `ERASED_ANSWER`. */
export function deleteEvent(
  storage: Storage,
  accountId: string,
  id: string,
  notifier: ChangeNotifier = notifies,
  erasure: Erasure = { now: new Date().toISOString(), replay: ERASED_ANSWER },
): Promise<EventRecord | null> {
  return eventChanges.deleteEvent(transactionContext(storage, { notifier }), { accountId, id, erasure });
}

/** `terms` default to manual payments. */
export function registerAttendee(
  storage: Storage,
  attendee: AttendeeRecord,
  notifier: ChangeNotifier = notifies,
  terms?: PaymentTerms,
): Promise<AttendeeRecord> {
  return registrations.registerAttendee(
    transactionContext(storage, { notifier, ...(terms && { payments: terms }) }),
    attendee,
  );
}

export function updateAttendee(
  storage: Storage,
  accountId: string,
  id: string,
  update: AttendeeUpdate,
  now: string,
  notifier: ChangeNotifier = notifies,
): Promise<Change<AttendeeRecord>> {
  return registrations.updateAttendee(transactionContext(storage, { notifier }), { accountId, id, update, now });
}

export function checkIn(
  storage: Storage,
  accountId: string,
  eventId: string,
  confirmationCode: string,
  now: string,
  notifier: ChangeNotifier = notifies,
): Promise<Change<AttendeeRecord>> {
  return registrations.checkIn(transactionContext(storage, { notifier }), {
    accountId,
    eventId,
    confirmationCode,
    now,
  });
}

export function undoCheckIn(
  storage: Storage,
  accountId: string,
  eventId: string,
  attendeeId: string,
  now: string,
  notifier: ChangeNotifier = notifies,
): Promise<Change<AttendeeRecord>> {
  return registrations.undoCheckIn(transactionContext(storage, { notifier }), { accountId, eventId, attendeeId, now });
}

export function eraseAttendee(
  storage: Storage,
  accountId: string,
  id: string,
  erasure: Erasure,
  notifier: ChangeNotifier = notifies,
): Promise<AttendeeRecord | null> {
  return registrations.eraseAttendee(transactionContext(storage, { notifier }), { accountId, id, erasure });
}

/** The storage's insert with a taken URL answered as the service answers it (`DUPLICATE_WEBHOOK`). */
export function insertWebhook(storage: Storage, webhook: WebhookRecord, maxPerAccount?: number): Promise<boolean> {
  return webhookChanges.insertWebhook(
    { storage },
    { webhook, maxPerAccount: maxPerAccount ?? Number.POSITIVE_INFINITY },
  );
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
  return paymentChanges.recordPayment(transactionContext(storage, { notifier: notifier ?? null }), {
    accountId,
    id,
    payment: input,
    now,
  });
}

export function refundByHand(
  storage: Storage,
  accountId: string,
  id: string,
  input: { amount?: number | undefined; reason?: string | null },
  now: string,
  notifier?: ChangeNotifier,
): Promise<Change<AttendeeRecord>> {
  return paymentChanges.refundByHand(transactionContext(storage, { notifier: notifier ?? null }), {
    accountId,
    id,
    refund: input,
    now,
  });
}

export function insertBooking(
  storage: Storage,
  accountId: string,
  eventId: string,
  input: BookingCreate,
  ids: { id: string; now: string; linkHash: string },
  notifier?: ChangeNotifier,
): Promise<BookingRecord> {
  return bookingChanges.insertBooking(transactionContext(storage, { notifier: notifier ?? null }), {
    accountId,
    eventId,
    booking: input,
    ...ids,
  });
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
  return bookingChanges.updateBooking(transactionContext(storage, { notifier: notifier ?? null }), {
    accountId,
    eventId,
    id,
    patch,
    now,
  });
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
  return bookingChanges.answerBooking(transactionContext(storage, { notifier: notifier ?? null }), {
    linkHash,
    ...booked,
    status,
    message,
    now,
  });
}

export function deleteVendor(storage: Storage, accountId: string, id: string, now: string): Promise<void> {
  return bookingChanges.deleteVendor(transactionContext(storage, { notifier: null }), { accountId, id, now });
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
