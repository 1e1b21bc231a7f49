/**
 * The business transactions of vendor bookings: a booking's creation, its organiser's change,
 * its link's rotation, its vendor's answer, and what an event's cancellation or completion does
 * to its bookings; and a vendor's deletion. A booking's change runs under its event's lock (its
 * creation locks its vendor's row too, after the event's; a vendor's deletion locks only the
 * vendor's), so the one-active-booking rule and the local-sourcing figures the goal is judged
 * on are exact with many processes.
 */
import { ServiceError } from "../errors.ts";
import type { Activity } from "../resources/activity.ts";
import type { EventRecord } from "../resources/event.ts";
import {
  type BookingCreate,
  type BookingRecord,
  type BookingStatus,
  type BookingUpdate,
  toApiBooking,
  type VendorRecord,
  linkNotFound,
} from "../resources/vendor.ts";
import {
  ACTIVE_BOOKING_STATUSES,
  assertBookable,
  assertBookingTransition,
  bookingsClosedBy,
} from "../rules/booking-status.ts";
import type { VendorNotificationType } from "../storage/change-notifier.ts";
import { VENDOR_ERASED_ANSWER } from "../storage/erasure.ts";
import { StorageConflict } from "../storage/transaction.ts";
import { notFound } from "./not-found.ts";
import type { TransactionContext } from "./transaction-context.ts";
import { appendNotifications, runTransaction, type Steps } from "./transaction-steps.ts";

/** The notification of a booking's move to `status`. */
const STATUS_NOTIFICATIONS: Partial<Record<BookingStatus, VendorNotificationType>> = {
  confirmed: "vendor.confirmed",
  declined: "vendor.declined",
  cancelled: "vendor.cancelled",
};

/** The vendor as a notification names it. */
const vendorRef = (vendor: Pick<VendorRecord, "id" | "name" | "category">) => ({
  id: vendor.id,
  name: vendor.name,
  category: vendor.category,
});

/** `409 DUPLICATE_BOOKING` for a vendor already booked (requested or confirmed) for the event. */
function duplicateBooking(vendorId: string, eventId: string, bookingId: string | null): ServiceError {
  return new ServiceError("DUPLICATE_BOOKING", {
    message: `Vendor ${vendorId} is already booked for event ${eventId}; cancel that booking first.`,
    field: "vendorId",
    details: bookingId === null ? {} : { bookingId },
  });
}

/** Appends the `vendor.*` notification `type` of `booking` (and what it moves of the event's goals). */
export async function notifyBooking(
  steps: Steps,
  event: EventRecord,
  booking: BookingRecord,
  type: VendorNotificationType,
  at: string,
  extra: { vendor?: VendorRecord; activity?: Activity } = {},
): Promise<void> {
  // Read, not locked: its name is all a notification needs, and an event's cancellation reads its
  // vendors in booking order, which would lock them in another order than a second event's.
  const vendor = extra.vendor ?? (await steps.tx.vendors.get(event.accountId, booking.vendorId));
  // Only an active booking changes, and a vendor with one cannot be deleted.
  if (!vendor) throw new Error(`Booking ${booking.id} changed without its vendor ${booking.vendorId}.`);
  await appendNotifications(steps, event.accountId, {
    op: "booking.changed",
    type,
    event,
    booking: toApiBooking(booking),
    vendor: vendorRef(vendor),
    ...(extra.activity && { activity: extra.activity }),
    at,
  });
}

/**
 * Books the account's vendor for its event: `requested`, with the link's hash given. Throws
 * `NOT_FOUND` (event; vendor, field `vendorId`), `INVALID_REQUEST` (a cancelled or completed
 * event), `DUPLICATE_BOOKING`.
 */
export async function insertBooking(
  context: TransactionContext,
  {
    accountId,
    eventId,
    booking: input,
    id,
    now,
    linkHash,
  }: { accountId: string; eventId: string; booking: BookingCreate; id: string; now: string; linkHash: string },
): Promise<BookingRecord> {
  try {
    return await runTransaction(context, async (steps) => {
      const { tx } = steps;
      const event = await tx.events.lock(accountId, eventId);
      if (!event) throw notFound("Event", eventId);
      assertBookable(event);
      const vendor = await tx.vendors.lock(accountId, input.vendorId);
      if (!vendor) throw notFound("Vendor", input.vendorId, "vendorId");
      const active = await tx.bookings.findByVendor(eventId, vendor.id, ACTIVE_BOOKING_STATUSES);
      if (active !== null) throw duplicateBooking(vendor.id, eventId, active);
      const booking: BookingRecord = {
        id,
        accountId,
        eventId,
        vendorId: vendor.id,
        status: "requested",
        services: input.services,
        dataRequested: input.dataRequested ?? [],
        respondedAt: null,
        message: null,
        createdAt: now,
        updatedAt: now,
      };
      await tx.bookings.insert(booking, linkHash);
      await notifyBooking(steps, event, booking, "vendor.booking_requested", now, { vendor });
      // Its contact is emailed a link of its own, made when the email is sent.
      if (steps.emails && vendor.contact?.email)
        await tx.emails.append([
          { kind: "vendor_link", reason: "booked", accountId, eventId, subjectId: booking.id, at: now },
        ]);
      return booking;
    });
  } catch (error) {
    // The index's backstop: a race the event's lock did not cover.
    if (StorageConflict.is(error, "active-booking")) throw duplicateBooking(input.vendorId, eventId, null);
    throw error;
  }
}

/** Moves `booking` to `status` (checked) at `now`, with the vendor's `message` when it answers; the change's notification. */
async function moveBooking(
  steps: Steps,
  event: EventRecord,
  booking: BookingRecord,
  status: BookingStatus,
  now: string,
  answer?: { message: string | null },
): Promise<BookingRecord> {
  assertBookingTransition(booking.status, status);
  if (status === booking.status) return booking;
  const answered = status === "confirmed" || status === "declined";
  // `now` was read before the event's lock: a change that waited behind another is never dated before it.
  const at = now > booking.updatedAt ? now : booking.updatedAt;
  const after: BookingRecord = {
    ...booking,
    status,
    respondedAt: answered ? at : booking.respondedAt,
    message: answer ? answer.message : booking.message,
    updatedAt: at,
  };
  await steps.tx.bookings.update(after);
  const type = STATUS_NOTIFICATIONS[status];
  if (type) await notifyBooking(steps, event, after, type, now);
  return after;
}

/**
 * The organiser's change of the account's booking: `services`, `dataRequested`, and `status`
 * by the booking's rules. A declined or cancelled booking changes no more. Throws `NOT_FOUND`,
 * `INVALID_STATE_TRANSITION`.
 */
export function updateBooking(
  context: TransactionContext,
  {
    accountId,
    eventId,
    id,
    patch,
    now,
  }: { accountId: string; eventId: string; id: string; patch: BookingUpdate; now: string },
): Promise<BookingRecord> {
  return runTransaction(context, async (steps) => {
    const event = await steps.tx.events.lock(accountId, eventId);
    if (!event) throw notFound("Event", eventId);
    const current = await steps.tx.bookings.get(accountId, eventId, id);
    if (!current) throw notFound("Booking", id);
    const edits = patch.services !== undefined || patch.dataRequested !== undefined;
    if (edits && !ACTIVE_BOOKING_STATUSES.includes(current.status)) {
      throw new ServiceError("INVALID_STATE_TRANSITION", {
        message: `Booking ${id} is ${current.status}: it changes no more.`,
        field: "status",
        details: { status: current.status },
      });
    }
    let booking = current;
    if (edits) {
      booking = {
        ...current,
        services: patch.services ?? current.services,
        dataRequested: patch.dataRequested ?? current.dataRequested,
        updatedAt: now > current.updatedAt ? now : current.updatedAt,
      };
      await steps.tx.bookings.update(booking);
    }
    if (patch.status !== undefined) booking = await moveBooking(steps, event, booking, patch.status, now);
    return booking;
  });
}

/** Gives the account's booking a new link (its hash): the old one stops working at commit. Throws `NOT_FOUND`, `INVALID_STATE_TRANSITION` (cancelled). */
export function rotateBookingLink(
  context: TransactionContext,
  {
    accountId,
    eventId,
    id,
    linkHash,
    now,
  }: { accountId: string; eventId: string; id: string; linkHash: string; now: string },
): Promise<BookingRecord> {
  return runTransaction(context, async ({ tx }) => {
    if (!(await tx.events.lock(accountId, eventId))) throw notFound("Event", eventId);
    const current = await tx.bookings.get(accountId, eventId, id);
    if (!current) throw notFound("Booking", id);
    if (current.status === "cancelled") {
      throw new ServiceError("INVALID_STATE_TRANSITION", {
        message: `Booking ${id} is cancelled: its link stays closed.`,
        field: "status",
        details: { status: current.status },
      });
    }
    const booking = { ...current, updatedAt: now > current.updatedAt ? now : current.updatedAt };
    await tx.bookings.update(booking);
    await tx.bookings.replaceLinks(id, linkHash, now);
    return booking;
  });
}

/**
 * The booking a vendor's link names and its vendor, in `steps`'s transaction, its event
 * `event` locked by the caller: `NOT_FOUND` for a link no booking has (rotated), a cancelled
 * booking's and a deleted vendor's, all alike.
 */
export async function linkedBookingOf(
  steps: Steps,
  event: EventRecord | null,
  linkHash: string,
): Promise<LinkedBooking> {
  const booking = event && (await steps.tx.bookings.getByLink(linkHash));
  if (!event || !booking || booking.eventId !== event.id || booking.status === "cancelled") throw linkNotFound();
  const vendor = await steps.tx.vendors.lock(booking.accountId, booking.vendorId);
  if (!vendor) throw linkNotFound();
  return { event, booking, vendor };
}

/** A vendor's link's booking with its event and vendor. */
export interface LinkedBooking {
  event: EventRecord;
  booking: BookingRecord;
  vendor: VendorRecord;
}

/** The vendor's answer through its link: `confirmed` or `declined`, with its message. Answering the same again changes nothing. */
export function answerBooking(
  context: TransactionContext,
  {
    linkHash,
    accountId,
    eventId,
    status,
    message,
    now,
  }: {
    linkHash: string;
    accountId: string;
    eventId: string;
    status: "confirmed" | "declined";
    message: string | null;
    now: string;
  },
): Promise<LinkedBooking> {
  return runTransaction(context, async (steps) => {
    const event = await steps.tx.events.lock(accountId, eventId);
    const linked = await linkedBookingOf(steps, event, linkHash);
    const booking = await moveBooking(steps, linked.event, linked.booking, status, now, { message });
    return { ...linked, booking };
  });
}

/**
 * What an event's move to `after.status` does to its bookings, in the event change's
 * transaction: `bookingsClosedBy` says which are cancelled (`vendor.cancelled` each).
 */
export async function closeBookings(steps: Steps, after: EventRecord, now: string): Promise<void> {
  const closing = bookingsClosedBy(after.status);
  if (closing.length === 0) return;
  for (const booking of await steps.tx.bookings.listByStatus(after.id, closing))
    await moveBooking(steps, after, booking, "cancelled", now);
}

/**
 * Deletes the account's vendor and its contact data: the stored Idempotency-Key answers that
 * name it become `VENDOR_ERASED_ANSWER`. Its vendor row is locked first, and a booking's
 * creation locks it too, so none starts between the check and the deletion. Throws `NOT_FOUND`,
 * `VENDOR_IN_USE` (a booking of it is requested or confirmed).
 */
export function deleteVendor(
  context: TransactionContext,
  { accountId, id, now }: { accountId: string; id: string; now: string },
): Promise<void> {
  return runTransaction(context, async ({ tx }) => {
    if (!(await tx.vendors.lock(accountId, id))) throw notFound("Vendor", id);
    if (await tx.vendors.hasBooking(id, ACTIVE_BOOKING_STATUSES)) {
      throw new ServiceError("VENDOR_IN_USE", {
        message: `Vendor ${id} has a requested or confirmed booking; cancel it first.`,
        details: { vendorId: id },
      });
    }
    await tx.erasure.replaceAnswers(accountId, id, new Set([id]), { now, replay: VENDOR_ERASED_ANSWER });
    await tx.vendors.delete(id);
  });
}
