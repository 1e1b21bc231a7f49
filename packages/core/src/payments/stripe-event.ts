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
 * Parses a verified notification's JSON: every event needs `id`, `type` and `data.object` (an
 * object); one of {@link STRIPE_PAYMENT_INTENT_EVENTS} needs its PaymentIntent's fields as
 * well. Throws `INVALID_REQUEST`.
 */
export function parseStripeEvent(value: unknown): StripeEventEnvelope | StripeIntentEvent {
  const envelope = parseInput(StripeEventEnvelope, value);
  return isIntentEventType(envelope.type) ? parseInput(StripeIntentEvent, value) : envelope;
}

/** True for a parsed event that carries a PaymentIntent the service applies. */
export function isIntentEvent(event: StripeEventEnvelope | StripeIntentEvent): event is StripeIntentEvent {
  return isIntentEventType(event.type);
}

function isIntentEventType(type: string): type is StripePaymentIntentEventType {
  return (STRIPE_PAYMENT_INTENT_EVENTS as readonly string[]).includes(type);
}
