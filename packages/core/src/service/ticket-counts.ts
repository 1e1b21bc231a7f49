/**
 * The counts of an event's registrations by ticket type that ticket-type decisions need, read in
 * a business transaction under the event's lock: a type's active registrations from the event's
 * `ticket` tallies (kept in every change's transaction), and the registrations that hold each
 * type, for a change of the types themselves. Keys and matches are by lower-cased name, as
 * `ticketTypeOf` matches names.
 */
import { isActiveAttendeeStatus } from "../rules/attendee-status.ts";
import { ticketPlacesLeft } from "../rules/ticket-types.ts";
import type { EventRecord } from "../resources/event.ts";
import type { TicketType } from "../resources/ticket-type.ts";
import type { TicketHolders } from "../rules/ticket-types.ts";
import type { StorageTransaction } from "../storage/transaction.ts";

/** Active registrations of the event by lower-cased ticket type. */
export async function activeByType(tx: StorageTransaction, eventId: string): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const { value, registrations } of await tx.tallies.read(eventId, "ticket")) {
    const key = value.toLowerCase();
    counts.set(key, (counts.get(key) ?? 0) + registrations);
  }
  return counts;
}

/** The active registrations of one of the event's ticket types. */
export async function ticketActive(tx: StorageTransaction, eventId: string, type: TicketType): Promise<number> {
  return (await activeByType(tx, eventId)).get(type.name.toLowerCase()) ?? 0;
}

/** The places left in each of the event's ticket types that has a capacity, by lower-cased name (the others have no limit). */
export async function ticketRoom(tx: StorageTransaction, event: EventRecord): Promise<Map<string, number>> {
  const active = await activeByType(tx, event.id);
  const room = new Map<string, number>();
  for (const type of event.ticketTypes) {
    const key = type.name.toLowerCase();
    if (type.capacity !== null) room.set(key, ticketPlacesLeft(type, active.get(key) ?? 0));
  }
  return room;
}

/** The event's registrations that are not cancelled by lower-cased ticket type (`name` as one of them spells it): those holding a place, and those waiting. */
export async function heldTickets(tx: StorageTransaction, eventId: string): Promise<Map<string, TicketHolders>> {
  const held = new Map<string, TicketHolders>();
  for (const { ticketType, status, registrations } of await tx.attendees.ticketHolders(eventId)) {
    const key = ticketType.toLowerCase();
    const entry = held.get(key) ?? { name: ticketType, active: 0, waitlisted: 0 };
    if (isActiveAttendeeStatus(status)) entry.active += registrations;
    else entry.waitlisted += registrations;
    held.set(key, entry);
  }
  return held;
}
