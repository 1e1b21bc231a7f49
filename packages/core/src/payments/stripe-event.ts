/**
 * The shape of a notification Stripe sends, checked once its signature verified: a signed body
 * is Stripe's, but nothing in the signature says it is a well-formed event, so what the service
 * reads of it is parsed like any input (`400 INVALID_REQUEST` naming the field otherwise).
 */
import * as z from "zod";
import { parseInput } from "../_internal/parse-input.ts";
import { text } from "../resources/common.ts";
import { MAX_PAYMENT_AMOUNT } from "../resources/ticket-type.ts";

/** The types of Stripe event the service applies; any other well-formed event is taken and ignored. */
export const STRIPE_PAYMENT_INTENT_EVENTS = ["payment_intent.succeeded", "payment_intent.payment_failed"] as const;
export type StripePaymentIntentEventType = (typeof STRIPE_PAYMENT_INTENT_EVENTS)[number];

/** Stripe's identifiers and names: at most 255 characters. */
const StripeText = text(255);

/** A type's message for a value of another type, and "is required" for none. */
const expected = (what: string) => ({
  error: (issue: { input?: unknown }) => (issue.input === undefined ? "is required" : `must be ${what}`),
});

const StripeAmount = z
  .number(expected("an integer amount in the currency's minor unit"))
  .refine(Number.isInteger, "must be an integer amount in the currency's minor unit")
  .refine((amount) => amount >= 0 && amount <= MAX_PAYMENT_AMOUNT, `must be within 0 to ${MAX_PAYMENT_AMOUNT}`);

/** What every Stripe event carries. */
export const StripeEventEnvelope = z.object({
  id: StripeText,
  type: StripeText,
  /** The connected account it happened on, for Connect. */
  account: StripeText.nullish(),
  data: z.object({ object: z.object({}, expected("an object")) }, expected("an object")),
});
export type StripeEventEnvelope = z.infer<typeof StripeEventEnvelope>;

/** A PaymentIntent as a notification carries it: the fields the service reads. */
export const StripeIntentObject = z.object({
  id: StripeText,
  amount: StripeAmount,
  amount_received: StripeAmount,
  /** ISO 4217, lower-case as Stripe writes it. */
  currency: z
    .string(expected("a three-letter ISO 4217 currency code"))
    .regex(/^[A-Za-z]{3}$/, "must be a three-letter ISO 4217 currency code"),
  /** Where the service put the registration's ids when it made the intent. */
  metadata: z.object({ attendeeId: StripeText.optional(), accountId: StripeText.optional() }).nullish(),
});
export type StripeIntentObject = z.infer<typeof StripeIntentObject>;

/** An event about a PaymentIntent that the service applies. */
export const StripeIntentEvent = StripeEventEnvelope.extend({
  type: z.enum(STRIPE_PAYMENT_INTENT_EVENTS),
  data: z.object({ object: StripeIntentObject }, expected("an object")),
});
export type StripeIntentEvent = z.infer<typeof StripeIntentEvent>;

/**
 * The types of Checkout Session event the service applies: a completed session whose
 * `payment_status` is `paid` pays (as does an asynchronous payment that succeeded later), an
 * asynchronous payment that failed fails; an expired session changes nothing.
 */
export const STRIPE_CHECKOUT_SESSION_EVENTS = [
  "checkout.session.completed",
  "checkout.session.async_payment_succeeded",
  "checkout.session.async_payment_failed",
  "checkout.session.expired",
] as const;
export type StripeCheckoutSessionEventType = (typeof STRIPE_CHECKOUT_SESSION_EVENTS)[number];

/** A Checkout Session as a notification carries it: the fields the service reads. */
export const StripeSessionObject = z.object({
  id: StripeText,
  /** The PaymentIntent it made (Stripe makes it when the buyer pays): the money's key in the ledger. */
  payment_intent: StripeText.nullish(),
  /** `paid`, `unpaid` (an asynchronous payment still on its way) or `no_payment_required`. */
  payment_status: StripeText,
  amount_total: StripeAmount.nullish(),
  currency: z
    .string(expected("a three-letter ISO 4217 currency code"))
    .regex(/^[A-Za-z]{3}$/, "must be a three-letter ISO 4217 currency code")
    .nullish(),
  /** The registration's id, as the service made the session. */
  client_reference_id: StripeText.nullish(),
  metadata: z.object({ attendeeId: StripeText.optional(), accountId: StripeText.optional() }).nullish(),
});
export type StripeSessionObject = z.infer<typeof StripeSessionObject>;

/** An event about a Checkout Session that the service applies. */
export const StripeSessionEvent = StripeEventEnvelope.extend({
  type: z.enum(STRIPE_CHECKOUT_SESSION_EVENTS),
  data: z.object({ object: StripeSessionObject }, expected("an object")),
});
export type StripeSessionEvent = z.infer<typeof StripeSessionEvent>;

/** A parsed notification: one the service applies, or any other well-formed event. */
export type ParsedStripeEvent = StripeEventEnvelope | StripeIntentEvent | StripeSessionEvent;

/**
 * Parses a verified notification's JSON: every event needs `id`, `type` and `data.object` (an
 * object); one of {@link STRIPE_PAYMENT_INTENT_EVENTS} needs its PaymentIntent's fields as
 * well, one of {@link STRIPE_CHECKOUT_SESSION_EVENTS} its Checkout Session's. Throws
 * `INVALID_REQUEST`.
 */
export function parseStripeEvent(value: unknown): ParsedStripeEvent {
  const envelope = parseInput(StripeEventEnvelope, value);
  if (isIntentEventType(envelope.type)) return parseInput(StripeIntentEvent, value);
  if ((STRIPE_CHECKOUT_SESSION_EVENTS as readonly string[]).includes(envelope.type))
    return parseInput(StripeSessionEvent, value);
  return envelope;
}

/** True for a parsed event that carries a Checkout Session the service applies. */
export function isSessionEvent(event: ParsedStripeEvent): event is StripeSessionEvent {
  return (STRIPE_CHECKOUT_SESSION_EVENTS as readonly string[]).includes(event.type);
}

/** True for a parsed event that carries a PaymentIntent the service applies. */
export function isIntentEvent(event: ParsedStripeEvent): event is StripeIntentEvent {
  return isIntentEventType(event.type);
}

function isIntentEventType(type: string): type is StripePaymentIntentEventType {
  return (STRIPE_PAYMENT_INTENT_EVENTS as readonly string[]).includes(type);
}
