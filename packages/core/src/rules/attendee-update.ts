/**
 * What a change does to a registration: a partial update under the status rules, a promotion
 * from the waiting list, a check-in undone. Pure: the service applies them under the event's lock.
 */
import type { AttendeeRecord, AttendeeUpdate } from "../resources/attendee.ts";
import { assertAttendeeTransition } from "./attendee-status.ts";
import { assertCheckInUndoable } from "./check-in.ts";

/**
 * Applies a partial update to a registration, enforcing the status rules. Capacity and
 * duplicate checks of a re-activation or an email change are the service's (`registrationChange`), under the event's lock.
 */
export function applyAttendeeUpdate(current: AttendeeRecord, update: AttendeeUpdate, now: string): AttendeeRecord {
  const status = update.status ?? current.status;
  assertAttendeeTransition(current.status, status);
  const changed = status !== current.status;
  return {
    ...current,
    ...(update.firstName !== undefined && { firstName: update.firstName }),
    ...(update.lastName !== undefined && { lastName: update.lastName }),
    ...(update.email !== undefined && { email: update.email }),
    ...(update.phone !== undefined && { phone: update.phone }),
    ...(update.company !== undefined && { company: update.company }),
    ...(update.title !== undefined && { title: update.title }),
    ...(update.ticketType !== undefined && { ticketType: update.ticketType }),
    ...(update.dietaryPreferences !== undefined && { dietaryPreferences: update.dietaryPreferences ?? [] }),
    ...(update.accessibilityNeeds !== undefined && { accessibilityNeeds: update.accessibilityNeeds }),
    ...(update.carbonOffset !== undefined && { carbonOffset: update.carbonOffset }),
    ...(update.emergencyContact !== undefined && { emergencyContact: update.emergencyContact }),
    ...(update.customFields !== undefined && { customFields: update.customFields ?? {} }),
    status,
    // Leaving the waiting list (promoted or cancelled) gives up the place in it.
    waitlistPosition: status === "waitlisted" ? current.waitlistPosition : null,
    updatedAt: now,
    checkedInAt: changed && status === "checked-in" ? now : current.checkedInAt,
    cancelledAt:
      changed && status === "cancelled" ? now : changed && current.status === "cancelled" ? null : current.cancelledAt,
  };
}

/** A waiting registration promoted to `confirmed` because a place freed up (or by hand, with `applyAttendeeUpdate`). */
export function promoteAttendee(current: AttendeeRecord, now: string): AttendeeRecord {
  return applyAttendeeUpdate(current, { status: "confirmed" }, now);
}

/**
 * Undoes a mistaken check-in: the registration goes back to `confirmed` with no `checkedInAt`.
 * Throws `INVALID_STATE_TRANSITION` (reason `not_checked_in`) for any other status. The only
 * way out of `checked-in`, which the status rules of `PUT` treat as final.
 */
export function undoCheckIn(current: AttendeeRecord, now: string): AttendeeRecord {
  assertCheckInUndoable(current);
  return { ...current, status: "confirmed", checkedInAt: null, updatedAt: now };
}
