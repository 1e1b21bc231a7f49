import { ServiceError } from "../errors.ts";

/**
 * Capacity: an event holds at most `capacity` active registrations (confirmed, pending,
 * checked-in). The active count is the one kept on the event (`KeptFigures.activeRegistrations`),
 * read under the event's lock, so every decision here is exact with several processes.
 */

/** Places still free in an event with `active` active registrations (never below 0). */
export function placesLeft(event: { capacity: number }, active: number): number {
  return Math.max(0, event.capacity - active);
}

/** `EVENT_FULL`: no place left (and, for a new registration, no waiting list to join). */
export function eventFull(event: { id: string; capacity: number }, active: number): ServiceError {
  return new ServiceError("EVENT_FULL", {
    message: `Event ${event.id} is full (${event.capacity} of ${event.capacity} places taken).`,
    details: { capacity: event.capacity, activeRegistrations: active },
  });
}

/** Throws `EVENT_FULL` unless a place is left for one more active registration (a re-activation, a promotion by hand). */
export function assertPlaceLeft(event: { id: string; capacity: number }, active: number): void {
  if (placesLeft(event, active) === 0) throw eventFull(event, active);
}

/** Throws `INVALID_REQUEST` (field `capacity`) when a new capacity would be below the active registrations. */
export function assertCapacityCovers(capacity: number, active: number): void {
  if (capacity >= active) return;
  throw new ServiceError("INVALID_REQUEST", {
    message: `capacity: cannot be below the ${active} active registrations`,
    field: "capacity",
    details: { activeRegistrations: active },
  });
}
