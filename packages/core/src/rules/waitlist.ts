import { ServiceError } from "../errors.ts";
import { EVENT_STATUSES_OPEN_FOR_REGISTRATION, type EventStatus } from "./event-status.ts";

/** What a waiting-list decision needs of an event. */
export interface WaitlistEvent {
  id: string;
  status: EventStatus;
  capacity: number;
  waitlistEnabled: boolean;
}

/** The event's registrations by where they stand: holding a place, or waiting for one. */
export interface Standing {
  active: number;
  waitlisted: number;
}

/** Where a new registration goes. */
export type Admission = { status: "confirmed"; waitlistPosition: null } | { status: "waitlisted"; waitlistPosition: number };

/** `EVENT_FULL`: no place left and no waiting list to join. */
export function eventFull(event: WaitlistEvent, active: number): ServiceError {
  return new ServiceError("EVENT_FULL", {
    message: `Event ${event.id} is full (${event.capacity} of ${event.capacity} places taken).`,
    details: { capacity: event.capacity, activeRegistrations: active },
  });
}

/**
 * A new registration is confirmed while places are left. When the event is full, it joins the
 * end of the waiting list if the event keeps one, else it is refused (`EVENT_FULL`). Nobody
 * waiting is passed over: places are only ever left while the list is empty, since every
 * freed place promotes the first in line in the same transaction.
 */
export function admission(event: WaitlistEvent, standing: Standing): Admission {
  if (standing.active < event.capacity) return { status: "confirmed", waitlistPosition: null };
  if (!event.waitlistEnabled) throw eventFull(event, standing.active);
  return { status: "waitlisted", waitlistPosition: standing.waitlisted + 1 };
}

/**
 * How many of those waiting are promoted now, first in line first: as many as there are free
 * places, while the event still takes registrations (a cancelled or completed event promotes no
 * one; its list stays as it was). Promotion does not depend on `waitlistEnabled`: turning the
 * list off stops new entries, and those already waiting keep their turn.
 */
export function promotionsDue(event: WaitlistEvent, standing: Standing): number {
  if (!EVENT_STATUSES_OPEN_FOR_REGISTRATION.includes(event.status)) return 0;
  return Math.max(0, Math.min(standing.waitlisted, event.capacity - standing.active));
}
