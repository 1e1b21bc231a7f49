import { ServiceError } from "../errors.ts";
import type { AttendeeStatus } from "../resources/attendee.ts";
import type { EventStatus } from "../resources/event.ts";
import { assertTransition, isTransitionAllowed, type TransitionTable } from "./transitions.ts";

/**
 * The status changes an event allows: `draft -> published | cancelled`,
 * `published -> completed | cancelled`; `cancelled` and `completed` are final.
 * Setting the current status again is a no-op and always allowed.
 */
export const EVENT_TRANSITIONS: TransitionTable<EventStatus> = {
  draft: ["published", "cancelled"],
  published: ["completed", "cancelled"],
  cancelled: [],
  completed: [],
};

/** Event statuses that still take registrations (and promote from their waiting list). */
export const EVENT_STATUSES_OPEN_FOR_REGISTRATION: readonly EventStatus[] = ["draft", "published"];

/** True when an event of this status takes registrations. */
export function isOpenForRegistration(status: EventStatus): boolean {
  return EVENT_STATUSES_OPEN_FOR_REGISTRATION.includes(status);
}

/** True once the event's `endDate` has passed at `now`: it may still be dated so (its footprint is recorded after the fact), but takes no one in. */
export function hasEnded(event: { endDate: string }, now: string): boolean {
  return Date.parse(event.endDate) < Date.parse(now);
}

/** True when the event takes registrations at `now`: open by its status ({@link isOpenForRegistration}) and not ended ({@link hasEnded}). */
export function takesRegistrations(event: { status: EventStatus; endDate: string }, now: string): boolean {
  return isOpenForRegistration(event.status) && !hasEnded(event, now);
}

/**
 * Throws `INVALID_REQUEST` (field `eventId`) unless the event takes registrations at `now`: a
 * cancelled or completed one takes none, nor re-activations, and neither does one whose end has
 * passed (`details.reason: "event_ended"`).
 */
export function assertOpenForRegistration(
  event: { id: string; status: EventStatus; endDate: string },
  now: string,
): void {
  if (!isOpenForRegistration(event.status)) {
    throw new ServiceError("INVALID_REQUEST", {
      message: `eventId: event ${event.id} is ${event.status} and takes no registrations`,
      field: "eventId",
      details: { eventStatus: event.status },
    });
  }
  if (!hasEnded(event, now)) return;
  const endDate = new Date(event.endDate).toISOString();
  throw new ServiceError("INVALID_REQUEST", {
    message: `eventId: event ${event.id} ended at ${endDate} and takes no more registrations`,
    field: "eventId",
    details: { reason: "event_ended", endDate },
  });
}

/**
 * The registrations an event's cancellation cancels: those holding a place not used yet
 * (`confirmed`, `pending`) and those waiting for one. Nobody is promoted: the event is off. A
 * `checked-in` one attended and stays so (its status is final); its money goes back all the same
 * ({@link REFUNDED_WITH_EVENT}).
 */
export const CANCELLED_WITH_EVENT = ["confirmed", "pending", "waitlisted"] as const satisfies readonly AttendeeStatus[];

/** True when an event's cancellation cancels a registration of this status ({@link CANCELLED_WITH_EVENT}). */
export function isCancelledWithEvent(status: AttendeeStatus): boolean {
  return (CANCELLED_WITH_EVENT as readonly AttendeeStatus[]).includes(status);
}

/**
 * The registrations whose money an event's cancellation returns in full, whatever the event's
 * `refundPolicy` and whether it started (the organiser called it off): those it cancels and the
 * checked-in ones. One cancelled before keeps what its own cancellation decided.
 */
export const REFUNDED_WITH_EVENT = [...CANCELLED_WITH_EVENT, "checked-in"] as const satisfies readonly AttendeeStatus[];

/** Why the registrations an event's cancellation cancels were cancelled (`attendee.cancelled`'s `data.reason`). */
export const EVENT_CANCELLED_REASON = "event_cancelled";

/** True when an event's change from `from` to `to` cancels it (and with it its registrations). */
export function cancelsEvent(from: EventStatus, to: EventStatus): boolean {
  return from !== "cancelled" && to === "cancelled";
}

/** True when an event may move from `from` to `to` (including staying where it is). */
export function isEventTransitionAllowed(from: EventStatus, to: EventStatus): boolean {
  return isTransitionAllowed(EVENT_TRANSITIONS, from, to);
}

/** Throws `INVALID_STATE_TRANSITION` unless the event may move from `from` to `to`. */
export function assertEventTransition(from: EventStatus, to: EventStatus): void {
  assertTransition(EVENT_TRANSITIONS, "An event", from, to);
}
