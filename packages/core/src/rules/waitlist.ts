import type { TicketType } from "../resources/ticket-type.ts";
import { eventFull, placesLeft } from "./capacity.ts";
import type { EventStatus } from "../resources/event.ts";
import { takesRegistrations } from "./event-status.ts";
import { ticketPlacesLeft, ticketTypeFull } from "./ticket-types.ts";

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
export type Admission =
  | { status: "confirmed"; waitlistPosition: null }
  | { status: "waitlisted"; waitlistPosition: number };

/** A ticket type and its active registrations, as a registration of that type is admitted. */
export interface TicketStanding {
  type: TicketType;
  active: number;
}

/**
 * A new registration is confirmed while places are left, in the event and in its ticket type
 * (`ticket`, when the event has types). Otherwise it joins the end of the waiting list if the
 * event keeps one, else it is refused (`EVENT_FULL`, with `details.ticketType` when its type is
 * what is full). Nobody waiting is passed over: places are only ever left while no one waiting
 * could take them, since every freed place promotes in the same transaction.
 */
export function admission(event: WaitlistEvent, standing: Standing, ticket?: TicketStanding): Admission {
  const eventRoom = placesLeft(event, standing.active) > 0;
  const ticketRoom = !ticket || ticketPlacesLeft(ticket.type, ticket.active) > 0;
  if (eventRoom && ticketRoom) return { status: "confirmed", waitlistPosition: null };
  if (event.waitlistEnabled) return { status: "waitlisted", waitlistPosition: standing.waitlisted + 1 };
  throw eventRoom && ticket ? ticketTypeFull(event, ticket.type, ticket.active) : eventFull(event, standing.active);
}

/**
 * How many of those waiting are promoted at `now`, first in line first: as many as there are free
 * places, while the event still takes registrations (a cancelled, completed or ended event
 * promotes no one; its list stays as it was). Promotion does not depend on `waitlistEnabled`:
 * turning the list off stops new entries, and those already waiting keep their turn.
 */
export function promotionsDue(event: WaitlistEvent & { endDate: string }, standing: Standing, now: string): number {
  if (!takesRegistrations(event, now)) return 0;
  return Math.min(standing.waitlisted, placesLeft(event, standing.active));
}

/**
 * The waiting list after one registration left it from `position` (promoted, cancelled or
 * erased): everyone behind moves up one place. After `count` were promoted from its head,
 * everyone left moves up `count`. What `WaitlistWrites.moveUp` is asked to do, as
 * `{ behind, places }`.
 */
export function closeUpBehind(position: number): { behind: number; places: number } {
  return { behind: position, places: 1 };
}

/** The move of the rest of the list after the first `count` in line were promoted (see {@link closeUpBehind}). */
export function closeUpAfterPromotion(count: number): { behind: number; places: number } {
  return { behind: 0, places: count };
}
