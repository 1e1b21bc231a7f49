import { ServiceError } from "../errors.ts";
import { type EventRecord, type EventStatus, type EventUpdate, normaliseLocation } from "../resources/event.ts";
import { toTicketTypes } from "../resources/ticket-type.ts";
import { assertCapacityCovers } from "./capacity.ts";
import { assertEventTransition } from "./event-status.ts";
import { assertTicketTypesCover, type TicketHolders } from "./ticket-types.ts";

/**
 * Applies a partial update to an event, enforcing the status rules, the date order of the
 * merged event, that capacity stays at or above the active registrations and that new ticket
 * types keep every registration's (`heldTickets`: the registrations not cancelled by lower-cased
 * type name, needed when `update.ticketTypes` is given). Pure: the service calls it while its
 * transaction holds the event's lock.
 */
export function applyEventUpdate(
  current: EventRecord,
  update: EventUpdate,
  activeRegistrations: number,
  now: string,
  heldTickets: ReadonlyMap<string, TicketHolders> = new Map(),
): EventRecord {
  const status: EventStatus = update.status ?? current.status;
  assertEventTransition(current.status, status);
  const next: EventRecord = {
    ...current,
    ...(update.name !== undefined && { name: update.name }),
    ...(update.description !== undefined && { description: update.description }),
    ...(update.location && { location: normaliseLocation(update.location) }),
    ...(update.startDate !== undefined && { startDate: update.startDate }),
    ...(update.endDate !== undefined && { endDate: update.endDate }),
    ...(update.capacity !== undefined && { capacity: update.capacity }),
    ...(update.category !== undefined && { category: update.category }),
    ...(update.sustainabilityGoals !== undefined && { sustainabilityGoals: update.sustainabilityGoals ?? {} }),
    ...(update.tags !== undefined && { tags: update.tags ?? [] }),
    ...(update.waitlistEnabled !== undefined && { waitlistEnabled: update.waitlistEnabled }),
    ...(update.ticketTypes !== undefined && { ticketTypes: toTicketTypes(update.ticketTypes ?? []) }),
    ...(update.refundPolicy !== undefined && { refundPolicy: update.refundPolicy }),
    ...(update.timeZone !== undefined && { timeZone: update.timeZone }),
    status,
    updatedAt: now,
  };
  if (next.endDate < next.startDate) {
    throw new ServiceError("INVALID_REQUEST", {
      message: `${update.endDate !== undefined ? "endDate" : "startDate"}: the event would end (${next.endDate}) before it starts (${next.startDate})`,
      field: update.endDate !== undefined ? "endDate" : "startDate",
    });
  }
  assertCapacityCovers(next.capacity, activeRegistrations);
  if (update.ticketTypes !== undefined) assertTicketTypesCover(next.ticketTypes, heldTickets);
  return next;
}
