import * as z from "zod";
import { plainText, text, Timestamp } from "./common.ts";
import { amountInMinorUnits } from "./ticket-type.ts";

/**
 * A registration's payment: what a priced ticket costs and how much of it was paid and refunded.
 * `requires_payment` until the money kept reaches the price (`failed` after a declined card,
 * still payable), whatever went back meanwhile; then `paid`, and `partially_refunded` or
 * `refunded` after money went back; `expired` when its hold ran out unpaid (`rules/payments.ts`).
 */
export const PAYMENT_STATUSES = [
  "requires_payment",
  "paid",
  "failed",
  "expired",
  "refunded",
  "partially_refunded",
] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** Who takes the money: Stripe (when the deployment has a secret key), or the organiser by hand. */
export const PAYMENT_PROVIDERS = ["stripe", "manual"] as const;
export type PaymentProvider = (typeof PAYMENT_PROVIDERS)[number];

/** How money recorded by hand was taken. */
export const PAYMENT_METHODS = ["cash", "bank_transfer", "card_terminal", "other"] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

const minorUnits = (description: string) => z.int().min(0).meta({ description });

/** A registration's payment as stored, with what only the service keeps (the PaymentIntent's secret and account). */
export const PaymentRecord = z.object({
  status: z.enum(PAYMENT_STATUSES),
  amount: minorUnits("What the ticket costs, in the currency's minor unit."),
  currency: z.string(),
  amountPaid: minorUnits("Received so far."),
  amountRefunded: minorUnits("Returned so far."),
  provider: z.enum(PAYMENT_PROVIDERS),
  expiresAt: Timestamp.nullable().meta({ description: "When the place is given up unpaid (Stripe); null: no hold." }),
  /** Stripe's PaymentIntent (`pi_...`), once created. */
  paymentIntentId: z.string().nullable(),
  /** The PaymentIntent's client secret, for the buyer's page (Stripe's Payment Element). */
  clientSecret: z.string().nullable(),
  /** The connected Stripe account the PaymentIntent was made on (Connect direct charges), or null: the platform's. */
  stripeAccount: z.string().nullable(),
  /** It became due by a promotion from the waiting list: `attendee.promoted` is sent once the PaymentIntent exists. */
  promoted: z.boolean(),
  /** When the money kept first reached the price (the registration admitted), or null; a cancellation clears it. */
  admittedAt: Timestamp.nullable(),
  /** The Stripe Checkout Session (`cs_...`) it pays through from the ticket page, the latest one made (on `stripeAccount`), or null. */
  checkoutSessionId: z.string().nullable(),
});
export type PaymentRecord = z.infer<typeof PaymentRecord>;

/** A registration's payment as the API shows it. */
export const Payment = PaymentRecord.omit({
  clientSecret: true,
  stripeAccount: true,
  promoted: true,
  admittedAt: true,
  checkoutSessionId: true,
}).extend({
  clientSecret: z
    .string()
    .optional()
    .meta({ description: "Stripe's PaymentIntent client secret, while payable: hand it to Stripe's Payment Element." }),
});
export type Payment = z.infer<typeof Payment>;

/**
 * The payment statuses that still take money (a declined card is `failed`, and may be paid). The
 * partial index `attendees_payment_hold` keeps this list as literals (migrations are frozen
 * text); a test keeps the two in agreement.
 */
export const PAYABLE_PAYMENT_STATUSES = ["requires_payment", "failed"] as const satisfies readonly PaymentStatus[];

/** True while the payment can still be paid (nothing or part of it received, not expired). */
export function isPayable(payment: Pick<PaymentRecord, "status">): boolean {
  return (PAYABLE_PAYMENT_STATUSES as readonly PaymentStatus[]).includes(payment.status);
}

/**
 * The API form of a payment; the client secret only where `withSecret` asks for it (the buyer's
 * answers: the create answer, `GET`, `attendee.promoted`) and only while it is payable.
 */
export function toApiPayment(payment: PaymentRecord, withSecret: boolean): Payment {
  const {
    clientSecret,
    stripeAccount: _account,
    promoted: _promoted,
    admittedAt: _admitted,
    checkoutSessionId: _session,
    ...shown
  } = payment;
  return withSecret && clientSecret !== null && isPayable(payment) ? { ...shown, clientSecret } : shown;
}

/** Body of `POST /attendees/:id/payments`: money the organiser took (at the door, by bank transfer). */
export const PaymentInput = z.strictObject({
  amount: amountInMinorUnits(1, "In the currency's minor unit: 4500 is 45.00 EUR."),
  method: z.enum(PAYMENT_METHODS),
  reference: text(200).nullish().meta({ description: "The bank transfer's reference, a receipt number." }),
});
export type PaymentInput = z.input<typeof PaymentInput>;

/** Body of `POST /attendees/:id/refunds`. */
export const RefundInput = z.strictObject({
  amount: amountInMinorUnits(
    1,
    "In the currency's minor unit (4500 is 45.00 EUR); default: everything paid and not yet refunded.",
  ).optional(),
  reason: plainText(500).nullish(),
});
export type RefundInput = z.input<typeof RefundInput>;

/** Body of `PUT /payment-settings`. */
export const PaymentSettingsInput = z.strictObject({
  stripeAccountId: z
    .string()
    .regex(/^acct_[A-Za-z0-9]{1,64}$/, "must be a Stripe account id, acct_...")
    .nullable()
    .meta({ description: "The account's own Stripe account (Connect direct charges); null unlinks it." }),
});
export type PaymentSettingsInput = z.input<typeof PaymentSettingsInput>;

/** An account's payment settings as the API shows them. */
export const AccountPaymentSettings = z.object({
  provider: z.enum(PAYMENT_PROVIDERS).meta({ description: "How the deployment takes payments." }),
  stripeAccountId: z.string().nullable(),
  holdMinutes: z.number().meta({ description: "How long an unpaid Stripe payment holds its place." }),
  updatedAt: Timestamp.nullable(),
});
export type AccountPaymentSettings = z.infer<typeof AccountPaymentSettings>;

/** What one entry of the payment ledger records: money received, or money returned. */
export const PAYMENT_ENTRY_KINDS = ["payment", "refund"] as const;

/**
 * One movement of money of a registration, kept in the ledger that the financial analytics sum
 * (it outlives the registration's erasure, without its personal data). A Stripe refund is
 * `pending` from the change that decided it until Stripe made it.
 */
export interface PaymentEntry {
  id: string;
  accountId: string;
  eventId: string;
  attendeeId: string;
  kind: (typeof PAYMENT_ENTRY_KINDS)[number];
  amount: number;
  currency: string;
  ticketType: string;
  provider: PaymentProvider;
  method: PaymentMethod | "card" | null;
  reference: string | null;
  /** Stripe's id of the money's movement (`pi_...`, `re_...`), once known. */
  providerReference: string | null;
  /** The PaymentIntent (and connected account) a Stripe entry is of: where its refund is made, whatever became of the registration. */
  paymentIntentId: string | null;
  stripeAccount: string | null;
  status: "pending" | "succeeded" | "failed";
  createdAt: string;
}
