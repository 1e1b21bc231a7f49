/**
 * The business transactions of events: create, update, delete. Each runs in one storage
 * transaction (under the event's lock once it exists) and appends its notifications to the
 * outbox in it.
 */
import type { AttendeeRecord } from "../resources/attendee.ts";
import type { EventRecord, EventUpdate } from "../resources/event.ts";
import { cancelsEvent } from "../rules/event-status.ts";
import { applyEventUpdate } from "../rules/event-update.ts";
import type { Change } from "../storage/common.ts";
import type { Erasure } from "../storage/erasure.ts";
import { closeBookings } from "./booking-changes.ts";
import { cancelRegistrationsWithEvent } from "./event-cancellation.ts";
import { notFound } from "./not-found.ts";
import type { TransactionContext } from "./transaction-context.ts";
import { appendNotifications, runTransaction, scrubStoredCopies } from "./transaction-steps.ts";
import { checkEventThresholds } from "./threshold-checks.ts";
import { refundOnCancel } from "../rules/payments.ts";
import { refundSteps } from "./payment-changes.ts";
import { heldTickets } from "./ticket-counts.ts";
import { promoteWaitlisted } from "./waitlist.ts";

/** Stores a new event, priced by the factor set of its start's year (and notifies `event.created`). */
export function insertEvent(context: TransactionContext, event: EventRecord): Promise<void> {
  return runTransaction(context, async (steps) => {
    await steps.tx.events.insert(event, steps.factorSets.forStart(event.startDate).year);
    await appendNotifications(steps, event.accountId, { op: "event.created", event, at: event.createdAt });
  });
}

/**
 * Applies `update` to the account's event under its lock with `applyEventUpdate` (status rules,
 * date order, capacity at or above the active registrations as kept); a raised capacity promotes
 * from the waiting list. Cancelling it closes its open bookings and cancels and refunds its
 * registrations (`cancelRegistrationsWithEvent`: those it changed are returned as
 * `registrations`). Throws `NOT_FOUND`, `INVALID_STATE_TRANSITION` or `INVALID_REQUEST`.
 */
export function updateEvent(
  context: TransactionContext,
  { accountId, id, update, now }: { accountId: string; id: string; update: EventUpdate; now: string },
): Promise<Change<EventRecord> & { registrations: Array<Change<AttendeeRecord>> }> {
  return runTransaction(context, async (steps) => {
    const { tx } = steps;
    const before = await tx.events.lock(accountId, id);
    if (!before) throw notFound("Event", id);
    const figures = await tx.figures.read(id);
    const held = update.ticketTypes === undefined ? undefined : await heldTickets(tx, id);
    const after = applyEventUpdate(before, update, figures.activeRegistrations, now, held);
    await tx.events.update(after, { replaceTags: update.tags !== undefined });
    // A start moved to a year of another set: the event's figures are priced by that set, before
    // anything below reads them.
    const set = steps.factorSets.forStart(after.startDate);
    const repriced = set !== steps.factorSets.forStart(before.startDate);
    if (repriced) await tx.figures.reprice(id, set);
    await appendNotifications(steps, accountId, { op: "event.updated", before, after, at: now });
    if (after.status !== before.status) await closeBookings(steps, after, now);
    const registrations = cancelsEvent(before.status, after.status)
      ? await cancelRegistrationsWithEvent(steps, after, now)
      : [];
    // A raised capacity, or new ticket types, may free places for those waiting; nothing above moved the figures.
    if (after.capacity > before.capacity || update.ticketTypes !== undefined)
      await promoteWaitlisted(steps, after, figures, now);
    await checkEventThresholds(steps, after, now, {
      capacityChanged: after.capacity !== before.capacity,
      footprint: registrations.length > 0 || repriced,
    });
    return { before, after, registrations };
  });
}

/**
 * Deletes the account's event and all its registrations under its lock, and scrubs its
 * registrations' personal data from stored copies as `eraseAttendee` does (webhook payloads by
 * `redactEnvelope` with the event as subject, stored Idempotency-Key answers that name one of
 * them, replaced by `erasure.replay`). Returns the deleted event, or `null` (nothing changes).
 */
export function deleteEvent(
  context: TransactionContext,
  { accountId, id, erasure }: { accountId: string; id: string; erasure: Erasure },
): Promise<EventRecord | null> {
  return runTransaction(context, async (steps) => {
    const { tx } = steps;
    const event = await tx.events.lock(accountId, id);
    if (!event) return null;
    // Its registrations are erased: each refunded first by the event's policy, as an erasure is
    // (the ledger outlives the event, and the payment worker makes a Stripe refund afterwards).
    for (const paid of await tx.attendees.withRefundable(id)) {
      const refund = refundOnCancel(event, paid.payment, erasure.now);
      if (refund > 0 && paid.payment)
        await refundSteps(steps, event, { ...paid, payment: paid.payment }, refund, erasure.now, null);
    }
    await tx.payments.scrubReferences({ eventId: id });
    // Its registrations' data leaves the stored copies first, so that event.deleted (event data only) is written after.
    await scrubStoredCopies(tx, accountId, { eventId: id }, new Set(await tx.attendees.idsOf(id)), erasure);
    await appendNotifications(steps, accountId, { op: "event.deleted", event, at: erasure.now });
    await tx.events.delete(id);
    return event;
  });
}
