import { ServiceError } from "../errors.ts";
import {
  isPayable,
  type PaymentEntry,
  type PaymentProvider,
  type PaymentRecord,
  type PaymentStatus,
} from "../resources/payment.ts";
import { MAX_PAYMENT_AMOUNT, type RefundPolicy, type TicketType } from "../resources/ticket-type.ts";
import type { AttendeeStatus } from "../resources/attendee.ts";

/**
 * Payments: what a registration owes, what paying and refunding do to its payment, and which
 * status changes need it paid. Pure: the service asks under the event's lock.
 *
 * Admission: a registration is admitted (may be `confirmed` or `checked-in`) once the money kept
 * (paid less refunded) reaches its price. It is recorded when it happens (`admittedAt`): the
 * amounts alone cannot tell 5000 paid then 1000 refunded (a goodwill refund: admitted) from 2000
 * paid, 1000 refunded, 3000 paid (4000 kept: 1000 still owed). Once admitted, a refund never takes
 * it away; a cancellation does.
 */

/**
 * The ledger status of a refund that returned nothing: every other refund counts as money
 * returned, a `pending` one (being returned) too.
 */
export const FAILED_REFUND_STATUS = "failed" as const satisfies PaymentEntry["status"];

/** How the deployment takes payments: its provider, and how long a Stripe payment holds its place. */
export interface PaymentTerms {
  provider: PaymentProvider;
  holdMinutes: number;
}

/** Without Stripe: payments recorded by hand, no hold. */
export const MANUAL_PAYMENT_TERMS: PaymentTerms = { provider: "manual", holdMinutes: 30 };

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
    admittedAt: null,
    checkoutSessionId: null,
  };
}

/**
 * Throws `400` (field `carbonOffset.amount`) when a priced ticket's price with the attendee's
 * offset contribution is more than one payment may take ({@link MAX_PAYMENT_AMOUNT}).
 */
export function assertWithinMaximum(
  ticket: TicketType | null,
  offset: { opted?: boolean | undefined; amount?: number | undefined } | null | undefined,
): void {
  if (!ticket || ticket.price.amount === 0) return;
  const amount = ticket.price.amount + offsetCents(ticket, offset);
  if (amount <= MAX_PAYMENT_AMOUNT) return;
  throw new ServiceError("INVALID_REQUEST", {
    message:
      `carbonOffset.amount: the ${ticket.name} ticket with this contribution comes to ${amount}, more than ` +
      `the ${MAX_PAYMENT_AMOUNT} one payment can take ${unitNote(MAX_PAYMENT_AMOUNT, ticket.price.currency)}: ` +
      `contribute at most ${inMajorUnits(MAX_PAYMENT_AMOUNT - ticket.price.amount, "USD")}`,
    field: "carbonOffset.amount",
    details: { maximum: MAX_PAYMENT_AMOUNT, amount, currency: ticket.price.currency },
  });
}

/**
 * `amount` minor units in the currency's major unit, with its code: `4455` EUR is `44.55 EUR`,
 * JPY has no minor unit (`4455 JPY`), BHD three decimals (`4.455 BHD`).
 */
export function inMajorUnits(amount: number, currency: string): string {
  let digits = 2;
  try {
    digits = new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    // A code Intl does not know: two decimals, as most currencies.
  }
  const sign = amount < 0 ? "-" : "";
  const whole = String(Math.abs(amount)).padStart(digits + 1, "0");
  const major = digits === 0 ? whole : `${whole.slice(0, -digits)}.${whole.slice(-digits)}`;
  return `${sign}${major} ${currency}`;
}

/** What a money message adds so a person knows the unit: "(amounts are in the currency's minor units: 4455 is 44.55 EUR)". */
function unitNote(amount: number, currency: string): string {
  return `(amounts are in the currency's minor units: ${amount} is ${inMajorUnits(amount, currency)})`;
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

/** What is still owed: the price less the money kept until admitted, nothing once admitted. */
export function outstanding(payment: PaymentRecord): number {
  return payment.admittedAt !== null ? 0 : Math.max(0, payment.amount - refundable(payment));
}

/** The money kept, paid and not refunded: the most a refund may return. */
export function refundable(payment: PaymentRecord): number {
  return Math.max(0, payment.amountPaid - payment.amountRefunded);
}

/** True when the registration may be `confirmed` or `checked-in`: free, or admitted. */
export function isAdmitted(payment: Pick<PaymentRecord, "admittedAt"> | null): boolean {
  return payment === null || payment.admittedAt !== null;
}

/**
 * The payment's status from its money: admitted, `paid` while the money kept covers the price,
 * then `partially_refunded` or `refunded`; not admitted, on a registration holding a place, it
 * still takes money (`requires_payment`, or `failed` after a declined card) whatever went back;
 * on one that gave up its place, `refunded` or `partially_refunded` once money went back.
 */
export function paymentStatus(payment: PaymentRecord, active: boolean): PaymentStatus {
  const kept = refundable(payment);
  if (payment.admittedAt !== null)
    return kept >= payment.amount ? "paid" : kept === 0 ? "refunded" : "partially_refunded";
  if (active) return payment.status === "failed" ? "failed" : "requires_payment";
  if (payment.amountRefunded === 0) return payment.status;
  return kept === 0 ? "refunded" : "partially_refunded";
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
    const owed = outstanding(payment);
    throw new ServiceError("INVALID_REQUEST", {
      message: `amount: ${amount} is more than the ${owed} still owed ${unitNote(owed, payment.currency)}`,
      field: "amount",
      details: { outstanding: outstanding(payment), currency: payment.currency },
    });
  }
}

/**
 * The payment after `amount` was received at `now`: admitted (`paid`, no hold) once the money kept
 * reaches the price, else payable as it was (a failed card stays `failed` until paid).
 */
export function withPaid(payment: PaymentRecord, amount: number, now: string): PaymentRecord {
  const paid = { ...payment, amountPaid: payment.amountPaid + amount };
  if (paid.admittedAt !== null || refundable(paid) < paid.amount) return { ...paid, status: paymentStatus(paid, true) };
  const admitted = { ...paid, admittedAt: now, expiresAt: null };
  return { ...admitted, status: paymentStatus(admitted, true) };
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
          : `amount: ${amount} is more than the ${left} paid and not refunded ${unitNote(left, attendee.payment!.currency)}`,
      field: "amount",
      details: { refundable: left, ...(attendee.payment && { currency: attendee.payment.currency }) },
    });
  }
  return amount;
}

/**
 * The payment after `amount` went back, on a registration that holds a place (`active`) or not:
 * its status by {@link paymentStatus} (an admitted one stays admitted).
 */
export function withRefunded(payment: PaymentRecord, amount: number, active: boolean): PaymentRecord {
  const refunded = { ...payment, amountRefunded: payment.amountRefunded + amount };
  return { ...refunded, status: paymentStatus(refunded, active) };
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
 * What an event's cancellation refunds of a registration's payment: everything kept, whatever the
 * event's `refundPolicy` and whether it started (the organiser called it off).
 */
export function refundOnEventCancel(payment: PaymentRecord | null): number {
  return payment ? refundable(payment) : 0;
}

/**
 * A registration moves into `confirmed` or `checked-in` only when admitted, or when the money it
 * keeps reaches its price (then it is admitted): otherwise `422 INVALID_STATE_TRANSITION` with
 * `details.reason: "payment_required"` (pay it first: by Stripe, or recorded by hand).
 */
export function assertPaidForStatus(
  before: { status: AttendeeStatus },
  after: { id: string; status: AttendeeStatus; payment: PaymentRecord | null },
): void {
  const entering = (after.status === "confirmed" || after.status === "checked-in") && before.status !== after.status;
  if (!entering || isAdmitted(after.payment) || outstanding(after.payment!) === 0) return;
  throw new ServiceError("INVALID_STATE_TRANSITION", {
    message: `Registration ${after.id} is not paid for: it cannot become ${after.status}.`,
    details: {
      reason: "payment_required",
      outstanding: after.payment ? outstanding(after.payment) : 0,
      currency: after.payment?.currency,
    },
  });
}

/**
 * The registration after a status change, with its admission: entering `confirmed` or
 * `checked-in` needs it ({@link assertPaidForStatus}) and records it when the money kept reaches
 * the price; a cancellation takes it away, so one taken back pays again what it does not keep.
 */
export function withAdmission<T extends { id: string; status: AttendeeStatus; payment: PaymentRecord | null }>(
  before: { status: AttendeeStatus },
  after: T,
  now: string,
): T {
  assertPaidForStatus(before, after);
  const { payment } = after;
  if (payment === null || before.status === after.status) return after;
  if (after.status === "cancelled") return { ...after, payment: { ...payment, admittedAt: null } };
  if (payment.admittedAt !== null || (after.status !== "confirmed" && after.status !== "checked-in")) return after;
  const admitted = { ...payment, admittedAt: now, expiresAt: null };
  return { ...after, payment: { ...admitted, status: paymentStatus(admitted, true) } };
}

/**
 * Throws unless the registration may pay through a Stripe Checkout Session now: a priced one
 * (`not_priced` otherwise), paid through Stripe (`manual_payment`: the organiser records it by
 * hand), `pending` with its payment still payable and something owed (`not_payable`), and its
 * hold not run out at `now` (`payment_expired`): `422 INVALID_STATE_TRANSITION` with the reason.
 */
export function assertCheckoutPayable(
  attendee: { id: string; status: AttendeeStatus; payment: PaymentRecord | null },
  now: string,
): asserts attendee is { id: string; status: AttendeeStatus; payment: PaymentRecord } {
  const { payment } = attendee;
  const refuse = (reason: string, message: string) => {
    throw new ServiceError("INVALID_STATE_TRANSITION", {
      message,
      details: { reason, status: attendee.status, paymentStatus: payment?.status ?? null },
    });
  };
  if (!payment) return refuse("not_priced", `Registration ${attendee.id} is free: there is nothing to pay.`);
  if (payment.provider !== "stripe")
    return refuse("manual_payment", `Registration ${attendee.id} is paid to the organiser, not through Stripe.`);
  if (attendee.status !== "pending" || !isPayable(payment) || outstanding(payment) === 0)
    return refuse(
      "not_payable",
      `Registration ${attendee.id} is ${attendee.status} with its payment ${payment.status}: it takes no payment.`,
    );
  if (payment.expiresAt !== null && payment.expiresAt <= now)
    return refuse("payment_expired", `Registration ${attendee.id}'s hold ran out at ${payment.expiresAt}.`);
}

/** Stripe's bounds on a Checkout Session's `expires_at`: 30 minutes to 24 hours from its creation. */
export const CHECKOUT_SESSION_LIFETIME = { minSeconds: 30 * 60, maxSeconds: 24 * 60 * 60 } as const;

/**
 * When a Checkout Session made at `now` for a hold ending at `holdEndsAt` expires (Unix
 * seconds): with the hold, within Stripe's bounds. A hold ending sooner than Stripe's 30 minutes
 * gets a session of 30 minutes (rounded up to the minute, so requests within one minute ask for
 * the same session), which the hold's end expires at Stripe.
 */
export function checkoutExpiresAt(holdEndsAt: string | null, now: string): number {
  const start = Math.ceil(Date.parse(now) / 1000);
  const earliest = Math.ceil((start + CHECKOUT_SESSION_LIFETIME.minSeconds + 60) / 60) * 60;
  const latest = start + CHECKOUT_SESSION_LIFETIME.maxSeconds - 60;
  const hold = holdEndsAt === null ? latest : Math.floor(Date.parse(holdEndsAt) / 1000);
  return Math.min(latest, Math.max(earliest, hold));
}
