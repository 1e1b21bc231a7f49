/**
 * The business transactions of payments: money recorded by hand, refunds by hand, and the steps
 * other transactions share (what a new or promoted registration owes, the refund a cancellation
 * or erasure makes). Each runs under the registration's event's lock, writes the registration's
 * payment and the ledger together, and appends `payment.*` to the outbox in the same
 * transaction, so the totals on the registration, the ledger and the notifications never part.
 */
import { createId } from "../_internal/ids.ts";
import type { AttendeeRecord } from "../resources/attendee.ts";
import type { EventRecord } from "../resources/event.ts";
import type { PaymentEntry, PaymentMethod, PaymentRecord } from "../resources/payment.ts";
import { assertPayable, paymentFor, refundAmount, withPaid, withRefunded } from "../rules/payments.ts";
import type { PaymentNotificationType } from "../storage/change-notifier.ts";
import type { Change } from "../storage/common.ts";
import type { LedgerSums } from "../storage/payment-store.ts";
import { notFound } from "./not-found.ts";
import { appendNotifications, lockRegistration, moveFigures, runTransaction, type Steps } from "./transaction-steps.ts";
import type { TransactionContext } from "./transaction-context.ts";
import { findTicketType } from "../rules/ticket-types.ts";
import { isActiveAttendeeStatus } from "../rules/attendee-status.ts";

/**
 * A registration taking a place (admitted, or `promoted` from the waiting list): `confirmed`, or
 * `pending` with the payment its ticket type's price asks for (the steps' terms: Stripe with a
 * hold, or by hand). A promoted one's `attendee.promoted` waits for its PaymentIntent under
 * Stripe (the notification carries the buyer's client secret).
 */
export function takingPlace(
  steps: Steps,
  event: EventRecord,
  attendee: AttendeeRecord,
  now: string,
  promoted: boolean,
): AttendeeRecord {
  const payment = paymentFor(findTicketType(event, attendee.ticketType), steps.payments, now, attendee.carbonOffset);
  if (!payment) return { ...attendee, payment: null };
  return { ...attendee, status: "pending", payment: { ...payment, promoted } };
}

/** A ledger entry of the registration's money, in its payment's currency. */
export function entryOf(
  attendee: AttendeeRecord & { payment: PaymentRecord },
  fields: Pick<PaymentEntry, "kind" | "amount" | "provider" | "method" | "reference" | "status"> &
    Partial<Pick<PaymentEntry, "providerReference" | "paymentIntentId" | "stripeAccount">>,
  now: string,
): PaymentEntry {
  return {
    id: createId("payment"),
    accountId: attendee.accountId,
    eventId: attendee.eventId,
    attendeeId: attendee.id,
    currency: attendee.payment.currency,
    ticketType: attendee.ticketType,
    providerReference: null,
    paymentIntentId: fields.provider === "stripe" ? attendee.payment.paymentIntentId : null,
    stripeAccount: fields.provider === "stripe" ? attendee.payment.stripeAccount : null,
    createdAt: now,
    ...fields,
  };
}

/** Appends `payment.*` of the registration as it now is (`refund`: the refund that caused it). */
export function notifyPayment(
  steps: Steps,
  event: EventRecord,
  attendee: AttendeeRecord,
  type: PaymentNotificationType,
  at: string,
  refund?: { id: string; amount: number },
): Promise<number> {
  return appendNotifications(steps, event.accountId, {
    op: "payment.changed",
    type,
    event,
    attendee,
    ...(refund && { refund }),
    at,
  });
}

/**
 * The ledger entries of a refund of `amount` of what the registration paid (`sums`: its ledger
 * by provider, taken in that order): Stripe's part goes back through Stripe (a `pending` entry,
 * which the payment worker makes at Stripe with the entry's id as its idempotency key), the rest
 * is recorded as returned by hand.
 */
export function refundEntries(
  attendee: AttendeeRecord & { payment: PaymentRecord },
  sums: readonly LedgerSums[],
  amount: number,
  now: string,
  reason: string | null,
  from?: Pick<PaymentEntry, "paymentIntentId" | "stripeAccount">,
): PaymentEntry[] {
  let left = amount;
  const entries: PaymentEntry[] = [];
  for (const { provider, paid, refunded } of sums) {
    const part = Math.min(left, paid - refunded);
    if (part <= 0) continue;
    entries.push(
      entryOf(
        attendee,
        {
          kind: "refund",
          amount: part,
          provider,
          method: null,
          reference: reason,
          status: provider === "stripe" ? "pending" : "succeeded",
          ...(provider === "stripe" && from),
        },
        now,
      ),
    );
    left -= part;
  }
  return entries;
}

/**
 * Refunds `amount` of what the registration paid, in the steps' transaction under its event's
 * lock: what Stripe took goes back first, through Stripe (a `pending` entry, made by the payment
 * worker), the rest is recorded as returned by hand. Writes the ledger and notifies
 * `payment.refunded`; returns the registration with its payment's new totals, which the caller
 * writes. `from`: the PaymentIntent (and its account) Stripe's part goes back on, when it is not
 * the registration's own (money that came through a Checkout Session's).
 */
export async function refundSteps(
  steps: Steps,
  event: EventRecord,
  attendee: AttendeeRecord & { payment: PaymentRecord },
  amount: number,
  now: string,
  reason: string | null,
  from?: Pick<PaymentEntry, "paymentIntentId" | "stripeAccount">,
): Promise<AttendeeRecord & { payment: PaymentRecord }> {
  const entries = refundEntries(attendee, await steps.tx.payments.sums(attendee.id), amount, now, reason, from);
  for (const entry of entries) await steps.tx.payments.insert(entry);
  const firstId = entries[0]?.id ?? null;
  const active = isActiveAttendeeStatus(attendee.status);
  const after = { ...attendee, payment: withRefunded(attendee.payment, amount, active), updatedAt: now };
  await notifyPayment(steps, event, after, "payment.refunded", now, { id: firstId ?? "", amount });
  return after;
}

/**
 * Records money the organiser took for a priced registration (`POST /attendees/:id/payments`):
 * under its event's lock, it must be payable and `amount` at most what is owed (`assertPayable`);
 * once the money kept reaches the price, the registration is admitted: `confirmed`, and
 * `payment.succeeded` is sent. Throws
 * `NOT_FOUND`, `INVALID_STATE_TRANSITION`, `INVALID_REQUEST`.
 */
export function recordPayment(
  context: TransactionContext,
  {
    accountId,
    id,
    payment: input,
    now,
  }: {
    accountId: string;
    id: string;
    payment: { amount: number; method: PaymentMethod; reference?: string | null | undefined };
    now: string;
  },
): Promise<Change<AttendeeRecord>> {
  return runTransaction(context, async (steps) => {
    const locked = await lockRegistration(steps.tx, accountId, id);
    if (!locked) throw notFound("Attendee", id);
    const { event, attendee: before } = locked;
    assertPayable(before, input.amount);
    const payment = withPaid(before.payment, input.amount, now);
    const paidInFull = payment.status === "paid";
    const after: AttendeeRecord = {
      ...before,
      payment,
      ...(paidInFull && { status: "confirmed" as const }),
      updatedAt: now,
    };
    await steps.tx.payments.insert(
      entryOf(
        { ...before, payment },
        {
          kind: "payment",
          amount: input.amount,
          provider: "manual",
          method: input.method,
          reference: input.reference ?? null,
          status: "succeeded",
        },
        now,
      ),
    );
    await steps.tx.attendees.updateStatus(after);
    await moveFigures(steps, event, before, after);
    await appendNotifications(steps, accountId, { op: "attendee.updated", event, before, after, at: now });
    if (paidInFull) await notifyPayment(steps, event, after, "payment.succeeded", now);
    return { before, after };
  });
}

/**
 * Refunds part or all of what a registration paid by hand (`POST /attendees/:id/refunds`):
 * `amount` defaults to everything refundable and may not exceed it (`400`, field `amount`), under
 * the event's lock, so two refunds at once never return more than was paid. The registration's
 * status does not change: an admitted one stays admitted, one not yet admitted owes what went back. Throws `NOT_FOUND`, `INVALID_REQUEST`.
 */
export function refundByHand(
  context: TransactionContext,
  {
    accountId,
    id,
    refund: input,
    now,
  }: {
    accountId: string;
    id: string;
    refund: { amount?: number | undefined; reason?: string | null | undefined };
    now: string;
  },
): Promise<Change<AttendeeRecord>> {
  return runTransaction(context, async (steps) => {
    const locked = await lockRegistration(steps.tx, accountId, id);
    if (!locked) throw notFound("Attendee", id);
    const { event, attendee: before } = locked;
    const amount = refundAmount(before, input.amount);
    const after = await refundSteps(
      steps,
      event,
      before as AttendeeRecord & { payment: PaymentRecord },
      amount,
      now,
      input.reason ?? null,
    );
    await steps.tx.attendees.updateStatus(after);
    await appendNotifications(steps, accountId, { op: "attendee.updated", event, before, after, at: now });
    return { before, after };
  });
}
