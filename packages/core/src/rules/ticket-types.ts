import { ServiceError } from "../errors.ts";
import type { TicketType } from "../resources/ticket-type.ts";

/**
 * Ticket types: an event that defines them takes registrations of those types only, each type
 * holding at most its own `capacity` of active registrations besides the event's, and none after
 * its `salesEndAt`. An event without ticket types takes any `ticketType` text, as it always did.
 * The active count of a type is the one kept in the event's tallies (`ticket` facet), read under
 * the event's lock, so every decision here is exact with several processes.
 */

/** What the event needs for ticket-type decisions. */
export interface TicketedEvent {
  id: string;
  ticketTypes: readonly TicketType[];
}

/**
 * The event's ticket type named `name` (compared case-insensitively: names are unique so), or
 * `null` when the event defines none. Throws `INVALID_REQUEST` (field `ticketType`) for a name the
 * event does not define and, when `now` is given, for a type whose sales ended
 * (`details.reason: "sales_ended"`).
 */
export function ticketTypeOf(event: TicketedEvent, name: string, now?: string): TicketType | null {
  if (event.ticketTypes.length === 0) return null;
  const type = findTicketType(event, name);
  const names = event.ticketTypes.map((candidate) => candidate.name);
  if (!type) {
    throw new ServiceError("INVALID_REQUEST", {
      message: `ticketType: must be one of the event's ticket types (${names.join(", ")})`,
      field: "ticketType",
      details: { ticketTypes: names },
    });
  }
  if (now !== undefined && type.salesEndAt !== null && now >= type.salesEndAt) {
    throw new ServiceError("INVALID_REQUEST", {
      message: `ticketType: sales of ${type.name} ended at ${type.salesEndAt}`,
      field: "ticketType",
      details: { reason: "sales_ended", salesEndAt: type.salesEndAt },
    });
  }
  return type;
}

/** The event's ticket type named `name` (case-insensitively), or `null`: no such type, or none at all. */
export function findTicketType(event: TicketedEvent, name: string): TicketType | null {
  const key = name.toLowerCase();
  return event.ticketTypes.find((type) => type.name.toLowerCase() === key) ?? null;
}

/** Places still free in a ticket type with `active` active registrations (`Infinity` for a type without a capacity). */
export function ticketPlacesLeft(type: TicketType, active: number): number {
  return type.capacity === null ? Number.POSITIVE_INFINITY : Math.max(0, type.capacity - active);
}

/** `EVENT_FULL` for a ticket type: its own capacity is taken, with `details.ticketType`. */
export function ticketTypeFull(event: { id: string }, type: TicketType, active: number): ServiceError {
  return new ServiceError("EVENT_FULL", {
    message: `${type.name} tickets of event ${event.id} are sold out (${type.capacity} of ${type.capacity} taken).`,
    details: { ticketType: type.name, capacity: type.capacity, activeRegistrations: active },
  });
}

/** Throws `EVENT_FULL` (with `details.ticketType`) unless the type has a place left for one more active registration. */
export function assertTicketPlaceLeft(event: { id: string }, type: TicketType, active: number): void {
  if (ticketPlacesLeft(type, active) === 0) throw ticketTypeFull(event, type, active);
}

/** The registrations not cancelled that hold one ticket type: its name as they spell it, those holding a place and those waiting. */
export interface TicketHolders {
  name: string;
  active: number;
  waitlisted: number;
}

/**
 * Whether a change of an event's ticket types keeps every registration valid: a type that
 * registrations not cancelled hold (`held`, by lower-cased name: active and waiting) cannot go, and a type's
 * capacity cannot drop below its active registrations. Throws `INVALID_REQUEST` (field
 * `ticketTypes`) naming the type otherwise.
 */
export function assertTicketTypesCover(types: readonly TicketType[], held: ReadonlyMap<string, TicketHolders>): void {
  const byName = new Map(types.map((type) => [type.name.toLowerCase(), type]));
  for (const [key, { name, active, waitlisted }] of held) {
    const type = byName.get(key);
    if (types.length > 0 && !type) {
      throw new ServiceError("INVALID_REQUEST", {
        message: `ticketTypes: ${name} is held by ${active + waitlisted} registrations and cannot be removed`,
        field: "ticketTypes",
        details: { ticketType: name, activeRegistrations: active, waitlisted },
      });
    }
    if (type && type.capacity !== null && type.capacity < active) {
      throw new ServiceError("INVALID_REQUEST", {
        message: `ticketTypes: the capacity of ${type.name} cannot be below its ${active} active registrations`,
        field: "ticketTypes",
        details: { ticketType: type.name, activeRegistrations: active },
      });
    }
  }
}

/**
 * Who of those waiting is promoted into `places` free places of the event, in line order: each
 * whose type still has room (`room`, by lower-cased type name; a type not in it has no limit), so that a
 * sold-out type's waiters keep their turn without holding up the others. Returns their indexes
 * in `waiting`.
 */
export function promotionOrder(
  waiting: readonly { ticketType: string }[],
  places: number,
  room: ReadonlyMap<string, number>,
): number[] {
  const left = new Map(room);
  const chosen: number[] = [];
  for (const [i, attendee] of waiting.entries()) {
    if (chosen.length === places) break;
    const key = attendee.ticketType.toLowerCase();
    const free = left.get(key) ?? Number.POSITIVE_INFINITY;
    if (free <= 0) continue;
    left.set(key, free - 1);
    chosen.push(i);
  }
  return chosen;
}
