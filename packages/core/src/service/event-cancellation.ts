/**
 * An event's cancellation, inside the transaction that cancels it under its lock: its
 * registrations cancelled (`CANCELLED_WITH_EVENT`, nobody promoted) and every paid one refunded in
 * full (`REFUNDED_WITH_EVENT`, `refundOnEventCancel`). Written in batches (one read of the
 * registrations and one of the ledger, the statuses of those whose money does not move, the
 * refunds, the figures, tallies and notifications each a few statements for hundreds of
 * registrations), plus one write per registration whose payment changes; a registration
 * arriving meanwhile waits on the event's lock and then finds the event cancelled.
 */
import type { AttendeeRecord } from "../resources/attendee.ts";
import type { EventRecord } from "../resources/event.ts";
import type { PaymentEntry, PaymentRecord } from "../resources/payment.ts";
import { isActiveAttendeeStatus } from "../rules/attendee-status.ts";
import { applyAttendeeUpdate } from "../rules/attendee-update.ts";
import { EVENT_CANCELLED_REASON, isCancelledWithEvent, REFUNDED_WITH_EVENT } from "../rules/event-status.ts";
import { refundOnEventCancel, withAdmission, withRefunded } from "../rules/payments.ts";
import type { StoredChange } from "../storage/change-notifier.ts";
import type { Change } from "../storage/common.ts";
import type { LedgerSums } from "../storage/payment-store.ts";
import { refundEntries } from "./payment-changes.ts";
import { appendManyNotifications, moveFiguresOfMany, type Steps } from "./transaction-steps.ts";

/**
 * Cancels the registrations of `event` (just cancelled, locked by the steps' transaction) that
 * its cancellation cancels, and refunds in full every one of them and every checked-in one that
 * keeps money: the ledger's refunds (Stripe's `pending`, made by the payment worker), each
 * registration's new status and payment, the event's figures, and per registration its
 * `attendee.cancelled` (`data.reason: "event_cancelled"`; `attendee.updated` only, for a checked-in
 * one refunded) and `payment.refunded`. Returns the registrations it changed.
 */
export async function cancelRegistrationsWithEvent(
  steps: Steps,
  event: EventRecord,
  now: string,
): Promise<Array<Change<AttendeeRecord>>> {
  const { tx } = steps;
  const found = await tx.attendees.inStatuses(event.id, REFUNDED_WITH_EVENT);
  if (found.length === 0) return [];
  const refunding = found.some((attendee) => refundOnEventCancel(attendee.payment) > 0);
  const ledger = new Map<string, LedgerSums[]>();
  if (refunding)
    for (const { attendeeId, ...sums } of await tx.payments.sumsOfEvent(event.id))
      ledger.set(attendeeId, [...(ledger.get(attendeeId) ?? []), sums]);

  const changes: Array<Change<AttendeeRecord>> = [];
  const statusOnly: AttendeeRecord[] = [];
  const withPayment: AttendeeRecord[] = [];
  const entries: PaymentEntry[] = [];
  const notifications: StoredChange[] = [];
  for (const before of found) {
    let after = isCancelledWithEvent(before.status)
      ? withAdmission(before, applyAttendeeUpdate(before, { status: "cancelled" }, now), now)
      : before;
    const refund = refundOnEventCancel(after.payment);
    if (refund > 0) {
      const paid = after as AttendeeRecord & { payment: PaymentRecord };
      const made = refundEntries(paid, ledger.get(before.id) ?? [], refund, now, null);
      entries.push(...made);
      after = {
        ...paid,
        payment: withRefunded(paid.payment, refund, isActiveAttendeeStatus(after.status)),
        updatedAt: now,
      };
      notifications.push({
        op: "payment.changed",
        type: "payment.refunded",
        event,
        attendee: after,
        refund: { id: made[0]?.id ?? "", amount: refund },
        at: now,
      });
    }
    if (after === before) continue;
    changes.push({ before, after });
    // A cancellation takes an admission away (the payment's `admittedAt`), a refund moves its totals.
    const paymentMoved = refund > 0 || (after.payment?.admittedAt ?? null) !== (before.payment?.admittedAt ?? null);
    if (paymentMoved) withPayment.push(after);
    else statusOnly.push(after);
    notifications.push({
      op: "attendee.updated",
      event,
      before,
      after,
      at: now,
      ...(isCancelledWithEvent(before.status) && { reason: EVENT_CANCELLED_REASON }),
    });
  }

  await tx.payments.insertMany(entries);
  // Those whose money does not move change alike (cancelled now): their status fields in one write.
  const [first] = statusOnly;
  if (first) {
    const { status, waitlistPosition, cancelledAt, updatedAt } = first;
    await tx.attendees.setStatuses(
      statusOnly.map((attendee) => attendee.id),
      { status, waitlistPosition, cancelledAt, updatedAt },
    );
  }
  // Each payment's totals are its own: one write per registration whose money moved.
  for (const after of withPayment) await tx.attendees.updateStatus(after);
  await moveFiguresOfMany(steps, event, changes);
  await appendManyNotifications(steps, event.accountId, notifications);
  return changes;
}
