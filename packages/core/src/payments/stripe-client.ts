/**
 * The part of Stripe's official SDK (`stripe`) that the service uses, as structural types: core
 * imports no driver, so the host builds `new Stripe(secretKey, { ... })` and hands it in
 * (`createEventService({ payments: { stripe } })`), and any object of this shape will do (a
 * test double, an instrumented client). The names and shapes are the SDK's own.
 */

/** Options of one call (the SDK's `RequestOptions`, the part used). */
export interface StripeRequestOptions {
  /** Makes a retried POST safe: Stripe answers the first request's result again. */
  idempotencyKey?: string;
  /** A connected account (Connect direct charges): the call acts on that account. */
  stripeAccount?: string;
}

/** A PaymentIntent, the fields the service reads. */
export interface StripePaymentIntent {
  id: string;
  amount: number;
  amount_received: number;
  currency: string;
  status: string;
  client_secret: string | null;
  metadata: Record<string, string>;
}

/** A Checkout Session, the fields the service reads. */
export interface StripeCheckoutSession {
  id: string;
  /** `open` (payable at `url`), `complete` or `expired`. */
  status: string | null;
  amount_total: number | null;
  currency: string | null;
  /** Stripe's hosted payment page, while open. */
  url: string | null;
}

/** The parameters of a Checkout Session the service makes: one line item, paid once. */
export interface StripeCheckoutSessionParams {
  mode: "payment";
  line_items: Array<{
    price_data: { currency: string; unit_amount: number; product_data: { name: string } };
    quantity: number;
  }>;
  client_reference_id: string;
  metadata: Record<string, string>;
  payment_intent_data: { metadata: Record<string, string>; description?: string };
  success_url: string;
  cancel_url: string;
  /** Unix seconds, 30 minutes to 24 hours from its creation. */
  expires_at: number;
}

/** A Refund, the fields the service reads. */
export interface StripeRefund {
  id: string;
  status: string | null;
}

/** An Event Stripe sends to the webhook endpoint, the fields the service reads. */
export interface StripeEvent {
  id: string;
  type: string;
  /** The connected account it happened on, for Connect. */
  account?: string | null;
  data: { object: unknown };
}

/** What the service calls on Stripe. */
export interface StripeClient {
  paymentIntents: {
    create(
      params: {
        amount: number;
        currency: string;
        metadata?: Record<string, string>;
        description?: string;
        automatic_payment_methods?: { enabled: boolean };
      },
      options?: StripeRequestOptions,
    ): Promise<StripePaymentIntent>;
    cancel(id: string, params?: Record<string, never>, options?: StripeRequestOptions): Promise<StripePaymentIntent>;
  };
  checkout: {
    sessions: {
      create(params: StripeCheckoutSessionParams, options?: StripeRequestOptions): Promise<StripeCheckoutSession>;
      retrieve(
        id: string,
        params?: Record<string, never>,
        options?: StripeRequestOptions,
      ): Promise<StripeCheckoutSession>;
      expire(
        id: string,
        params?: Record<string, never>,
        options?: StripeRequestOptions,
      ): Promise<StripeCheckoutSession>;
    };
  };
  refunds: {
    create(
      params: { payment_intent: string; amount?: number; metadata?: Record<string, string> },
      options?: StripeRequestOptions,
    ): Promise<StripeRefund>;
  };
  accounts: {
    retrieve(id: string, params?: Record<string, never>, options?: StripeRequestOptions): Promise<{ id: string }>;
  };
  webhooks: {
    /**
     * Verifies `header` (`Stripe-Signature`) over the raw `payload` with `secret`, at most
     * `tolerance` seconds older than `receivedAt` (ms; default now), and returns the parsed
     * payload; throws otherwise: a `SyntaxError` (from `JSON.parse`) only once the signature
     * verified. The payload's shape is not checked: the service parses it.
     */
    constructEventAsync(
      payload: string,
      header: string,
      secret: string,
      tolerance?: number,
      cryptoProvider?: undefined,
      receivedAt?: number,
    ): Promise<StripeEvent>;
  };
}

/** How far a notification's signature timestamp may be from now, either way (Stripe's own tolerance). */
export const STRIPE_SIGNATURE_TOLERANCE_SECONDS = 300;
