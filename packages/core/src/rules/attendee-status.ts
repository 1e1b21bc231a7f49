import type { AttendeeStatus } from "../resources/attendee.ts";
import { assertTransition, isTransitionAllowed, type TransitionTable } from "./transitions.ts";

/**
 * Registrations that hold a place: they count against capacity and in the event's figures.
 * Every status but `cancelled` counts against duplicate emails (`waitlisted` too).
 */
export const ACTIVE_ATTENDEE_STATUSES = [
  "confirmed",
  "pending",
  "checked-in",
] as const satisfies readonly AttendeeStatus[];

/**
 * The status of a registration that gave up its email and its ticket: in every other status
 * (`waitlisted` too) it holds both, so the same email cannot register for the event again and its
 * ticket type cannot be removed. The partial unique index `attendees_event_email_active` keeps
 * this status as a literal (migrations are frozen text); a test keeps the two in agreement.
 */
export const RELEASED_ATTENDEE_STATUS = "cancelled" as const satisfies AttendeeStatus;

/**
 * The status changes a registration allows: `confirmed <-> pending`,
 * `confirmed | pending -> checked-in | cancelled`, `cancelled -> confirmed` (a re-activation,
 * subject to capacity and duplicates), `waitlisted -> confirmed | pending` (a promotion, subject
 * to capacity; `pending` for a priced ticket, which is then due) `| cancelled`; `checked-in` is final, and nothing goes to `waitlisted` but a new
 * registration. Staying put is a no-op.
 */
export const ATTENDEE_TRANSITIONS: TransitionTable<AttendeeStatus> = {
  confirmed: ["pending", "checked-in", "cancelled"],
  pending: ["confirmed", "checked-in", "cancelled"],
  cancelled: ["confirmed"],
  "checked-in": [],
  waitlisted: ["confirmed", "pending", "cancelled"],
};

/** The statuses of an admitted registration: its ticket admits at the door (a checked-in one may be shown again). */
export const ADMITTED_ATTENDEE_STATUSES = ["confirmed", "checked-in"] as const satisfies readonly AttendeeStatus[];

/** True when the status is one of an admitted registration ({@link ADMITTED_ATTENDEE_STATUSES}). */
export function isAdmittedStatus(status: AttendeeStatus): boolean {
  return (ADMITTED_ATTENDEE_STATUSES as readonly AttendeeStatus[]).includes(status);
}

/** True when the status holds a place in the event. */
export function isActiveAttendeeStatus(status: AttendeeStatus): boolean {
  return (ACTIVE_ATTENDEE_STATUSES as readonly AttendeeStatus[]).includes(status);
}

/** True when a registration may move from `from` to `to` (including staying where it is). */
export function isAttendeeTransitionAllowed(from: AttendeeStatus, to: AttendeeStatus): boolean {
  return isTransitionAllowed(ATTENDEE_TRANSITIONS, from, to);
}

/** Throws `INVALID_STATE_TRANSITION` unless a registration may move from `from` to `to`. */
export function assertAttendeeTransition(from: AttendeeStatus, to: AttendeeStatus): void {
  assertTransition(ATTENDEE_TRANSITIONS, "A registration", from, to);
}
