import { ServiceError } from "../errors.ts";
import type { PaymentProvider, PaymentRecord } from "../resources/payment.ts";
import type { RefundPolicy, TicketType } from "../resources/ticket-type.ts";
import type { AttendeeStatus } from "./attendee-status.ts";

/**
 * Payments (DECISIONS, "Payments"): what a registration owes, what paying and refunding do to its
 * payment, and which status changes need it paid. Pure: the service asks under the event's lock.
 */

/** How the deployment takes payments: its provider, and how long a Stripe payment holds its place. */
export interface PaymentTerms {
  provider: PaymentProvider;
  holdMinutes: number;
}

/** Without Stripe: payments recorded by hand, no hold. */
export const MANUAL_PAYMENT_TERMS: PaymentTerms = { provider: "manual", holdMinutes: 30 };

/** The largest amount one payment may carry, in the currency's minor unit: Stripe's 8 digits. */
export const MAX_PAYMENT_AMOUNT = 99_999_999;

/**
 * The payment a new or promoted registration of `ticket` owes: `null` for a free one (no type,
 * or a price of 0); with a USD ticket, its opted carbon offset contribution too
 * ({@link offsetCents}). With Stripe it holds its place until `holdMinutes` from `now`; by hand,
 * there is no hold.
 */
export function paymentFor(
  ticket: TicketType | null,
  terms: PaymentTerms,
  now: string,
  offset?: { opted?: boolean | undefined; amount?: number | undefined } | null,
): PaymentRecord | null {
  const { provider, holdMinutes } = terms;
  if (!ticket || ticket.price.amount === 0) return null;
  return {
    status: "requires_payment",
    amount: ticket.price.amount + offsetCents(ticket, offset),
    currency: ticket.price.currency,
    amountPaid: 0,
    amountRefunded: 0,
    provider,
    expiresAt: provider === "stripe" ? new Date(Date.parse(now) + holdMinutes * 60_000).toISOString() : null,
    paymentIntentId: null,
    clientSecret: null,
    stripeAccount: null,
    promoted: false,
  };
}

/**
 * The carbon-offset contribution paid with a ticket, in cents: offsets are in USD, so a ticket
 * priced in USD takes the contribution of an attendee who opted in, in the same payment; a
 * ticket in another currency takes none (the contribution is not converted).
 */
export function offsetCents(
  ticket: TicketType,
  offset: { opted?: boolean | undefined; amount?: number | undefined } | null | undefined,
): number {
  if (ticket.price.currency !== "USD" || !offset?.opted) return 0;
  return Math.round((offset.amount ?? 0) * 100);
}

/** What is still owed. */
export function outstanding(payment: PaymentRecord): number {
  return Math.max(0, payment.amount - payment.amountPaid);
}

/** What was paid and not refunded: the most a refund may return. */
export function refundable(payment: PaymentRecord): number {
  return Math.max(0, payment.amountPaid - payment.amountRefunded);
}

/** True when the registration owes nothing: free, or paid in full and not refunded. */
export function isPaidFor(payment: PaymentRecord | null): boolean {
  return payment === null || payment.amountPaid - payment.amountRefunded >= payment.amount;
}

/**
 * A registration's ticket type changes by `PUT` only between free types while it holds a place,
 * and never once it has a payment: the price would no longer be what was paid (`422
 * INVALID_STATE_TRANSITION`, reason `priced_ticket`; cancel and register again). One waiting or
 * cancelled without a payment may change to any type: it pays when it takes a place.
 */
export function assertRetypable(
  before: { id: string; status: AttendeeStatus; payment: PaymentRecord | null },
  ticket: TicketType | null,
): void {
  const priced = ticket !== null && ticket.price.amount > 0;
  const holding = before.status !== "waitlisted" && before.status !== "cancelled";
  if (before.payment === null && !(priced && holding)) return;
  throw new ServiceError("INVALID_STATE_TRANSITION", {
    message: `Registration ${before.id} holds a priced ticket: its ticket type cannot change. Cancel it and register again.`,
    details: { reason: "priced_ticket" },
  });
}

/**
 * Throws unless `amount` can be paid on the registration: it must have a payment that is still
 * payable, on a registration holding a place (`422 INVALID_STATE_TRANSITION`, reason
 * `not_payable`; `not_priced` for a free one), and be at most what is still owed (`400`, field
 * `amount`: overpaying is refused).
 */
export function assertPayable(
  attendee: { id: string; status: AttendeeStatus; payment: PaymentRecord | null },
  amount: number,
): asserts attendee is { id: string; status: AttendeeStatus; payment: PaymentRecord } {
  const { payment } = attendee;
  if (!payment) {
    throw new ServiceError("INVALID_STATE_TRANSITION", {
      message: `Registration ${attendee.id} is free: there is nothing to pay.`,
      details: { reason: "not_priced" },
    });
  }
  if (attendee.status !== "pending" || outstanding(payment) === 0 || payment.status === "expired") {
    throw new ServiceError("INVALID_STATE_TRANSITION", {
      message: `Registration ${attendee.id} is ${attendee.status} with its payment ${payment.status}: it takes no payment.`,
      details: { reason: "not_payable", status: attendee.status, paymentStatus: payment.status },
    });
  }
  if (amount > outstanding(payment)) {
    throw new ServiceError("INVALID_REQUEST", {
      message: `amount: ${amount} is more than the ${outstanding(payment)} still owed`,
      field: "amount",
      details: { outstanding: outstanding(payment), currency: payment.currency },
    });
  }
}

/** The payment after `amount` was received: `paid` once nothing is owed, else payable as it was (a failed card stays `failed` until paid). */
export function withPaid(payment: PaymentRecord, amount: number): PaymentRecord {
  const amountPaid = payment.amountPaid + amount;
  return {
    ...payment,
    amountPaid,
    status: amountPaid >= payment.amount ? "paid" : "requires_payment",
    expiresAt: amountPaid >= payment.amount ? null : payment.expiresAt,
  };
}

/**
 * How much a refund returns: `requested`, or everything refundable when not given. Throws `400`
 * (field `amount`) when that is more than is refundable, or nothing is.
 */
export function refundAmount(attendee: { id: string; payment: PaymentRecord | null }, requested?: number): number {
  const left = attendee.payment ? refundable(attendee.payment) : 0;
  const amount = requested ?? left;
  if (left === 0 || amount > left) {
    throw new ServiceError("INVALID_REQUEST", {
      message:
        left === 0
          ? `amount: registration ${attendee.id} has nothing paid left to refund`
          : `amount: ${amount} is more than the ${left} paid and not refunded`,
      field: "amount",
      details: { refundable: left, ...(attendee.payment && { currency: attendee.payment.currency }) },
    });
  }
  return amount;
}

/** The payment after `amount` went back: `refunded` once everything paid is returned, else `partially_refunded`. */
export function withRefunded(payment: PaymentRecord, amount: number): PaymentRecord {
  const amountRefunded = payment.amountRefunded + amount;
  return {
    ...payment,
    amountRefunded,
    status: amountRefunded >= payment.amountPaid ? "refunded" : "partially_refunded",
  };
}

/**
 * What a cancellation or erasure refunds by the event's `refundPolicy`: everything refundable
 * under `full` before the event starts; nothing afterwards, nor under `none`.
 */
export function refundOnCancel(
  event: { refundPolicy: RefundPolicy; startDate: string },
  payment: PaymentRecord | null,
  now: string,
): number {
  if (!payment || event.refundPolicy !== "full" || now >= event.startDate) return 0;
  return refundable(payment);
}

/**
 * A registration moves into `confirmed` or `checked-in` only when it owes nothing: otherwise
 * `422 INVALID_STATE_TRANSITION` with `details.reason: "payment_required"` (pay it first: by
 * Stripe, or recorded by hand).
 */
export function assertPaidForStatus(
  before: { status: AttendeeStatus },
  after: { id: string; status: AttendeeStatus; payment: PaymentRecord | null },
): void {
  const entering = (after.status === "confirmed" || after.status === "checked-in") && before.status !== after.status;
  if (!entering || isPaidFor(after.payment)) return;
  throw new ServiceError("INVALID_STATE_TRANSITION", {
    message: `Registration ${after.id} is not paid for: it cannot become ${after.status}.`,
    details: {
      reason: "payment_required",
      outstanding: after.payment ? outstanding(after.payment) : 0,
      currency: after.payment?.currency,
    },
  });
}
