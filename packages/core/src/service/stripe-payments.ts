/**
 * Payments through Stripe (docs/api.md, Through Stripe): the PaymentIntent of a registration's
 * payment, Stripe's events at the webhook endpoint, holds that run out unpaid, and refunds made
 * at Stripe. Stripe is called outside every transaction (a transaction holds its event's lock,
 * which no network call may keep), and each result is taken up again in a transaction under
 * the event's lock that re-reads the registration and decides on what it finds:
 *
 * - a PaymentIntent is made with an idempotency key derived from the registration, so a retry,
 *   or two processes making it at once, get the same one and never charge twice;
 * - each Stripe event id is recorded in the transaction that applies it (`stripe_events`), so an
 *   event sent twice, or to two processes, changes things once;
 * - a refund is decided (and counted) in the change that causes it, as a `pending` ledger entry,
 *   and made at Stripe afterwards with the entry's id as its idempotency key, so it is made once
 *   however many processes pick it up.
 */
import { ServiceError } from "../errors.ts";
import type { AttendeeRecord } from "../resources/attendee.ts";
import type { EventRecord } from "../resources/event.ts";
import { isPayable, type PaymentEntry, type PaymentRecord } from "../resources/payment.ts";
import type { StripeClient } from "../payments/stripe-client.ts";
import { STRIPE_SIGNATURE_TOLERANCE_SECONDS } from "../payments/stripe-client.ts";
import {
  isIntentEvent,
  isSessionEvent,
  parseStripeEvent,
  type StripeIntentObject,
  type StripeSessionEvent,
} from "../payments/stripe-event.ts";
import { isActiveAttendeeStatus } from "../rules/attendee-status.ts";
import {
  assertCheckoutPayable,
  checkoutExpiresAt,
  outstanding,
  paymentStatus,
  refundable,
  withPaid,
} from "../rules/payments.ts";
import { registrationChange } from "../rules/registration-change.ts";
import type { AttendeeStore } from "../storage/attendee-store.ts";
import type { PaymentStore, RegistrationRef } from "../storage/payment-store.ts";
import { notFound } from "./not-found.ts";
import { entryOf, notifyPayment, refundSteps } from "./payment-changes.ts";
import { appendNotifications, lockRegistration, moveFigures, runTransaction, type Steps } from "./transaction-steps.ts";
import type { TransactionStore } from "../storage/transaction.ts";
import type { TransactionContext } from "./transaction-context.ts";
import { checkEventThresholds } from "./threshold-checks.ts";
import { settleWaitlist } from "./waitlist.ts";

/** Options of {@link createStripePayments}. */
export interface StripePaymentsOptions {
  /** What its transactions run with: the storage, what the changes notify (links from the service's public URL), the payment terms. */
  context: TransactionContext<TransactionStore & PaymentStore & Pick<AttendeeStore, "getAttendee">>;
  stripe: StripeClient;
  /** The endpoint secrets (`whsec_...`) a notification may be signed with: the platform's and the Connect endpoint's. */
  webhookSecrets: readonly string[];
  clock: () => Date;
  /** Called after a write that may have queued deliveries. */
  queued: () => void;
}

/** What one pass of the payment worker did. */
export interface PaymentPass {
  intentsMade: number;
  holdsExpired: number;
  refundsMade: number;
  /** Errors met (each item is tried again at the next pass). */
  errors: unknown[];
}

/** Stripe's side of the service's payments. */
export interface StripePayments {
  /**
   * Makes the PaymentIntent of the registration's Stripe payment when it has none yet (and it is
   * still payable), and returns the registration as it then is (`null`: none). A Stripe failure
   * is thrown; the payment worker tries again.
   */
  ensureIntent(ref: RegistrationRef): Promise<AttendeeRecord | null>;
  /**
   * Cancels at Stripe the PaymentIntent of a registration that gave its unpaid Stripe payment up
   * (`before` and `after` a change that committed: cancelled or erased). Best effort: a payment
   * that still succeeds on it is refunded when its event arrives.
   */
  closeIntent(before: AttendeeRecord, after: AttendeeRecord | null): Promise<void>;
  /**
   * Verifies and applies a notification Stripe sent (`Stripe-Signature`); throws
   * `INVALID_SIGNATURE`, or `INVALID_REQUEST` for a verified one that is not a well-formed event
   * or pays in another currency than the registration's (then nothing changes, its id included).
   */
  receive(rawBody: string, signature: string | null): Promise<void>;
  /** One pass of the payment worker: intents still to make, holds run out, refunds to make. */
  runPass(): Promise<PaymentPass>;
  /**
   * The URL of a Stripe Checkout Session that pays what the registration still owes (its ticket
   * page's "Pay"): the open session made before when it still asks for that amount, else a new
   * one (the old one expired at Stripe), ending with the hold (docs/api.md, Paying through
   * Stripe Checkout). Throws `NOT_FOUND`, `INVALID_STATE_TRANSITION` when it takes no payment
   * through Stripe now (`details.reason`), `SERVICE_UNAVAILABLE` when Stripe could not make it.
   */
  checkout(ref: { accountId: string; attendeeId: string }, urls: CheckoutUrls): Promise<{ url: string }>;
}

/** Where Stripe's payment page sends the buyer back: after paying, or after giving up. */
export interface CheckoutUrls {
  successUrl: string;
  cancelUrl: string;
}

/** Ways to pay a registration that are still open at Stripe once it is paid or given up: closed there, best effort. */
interface OpenAtStripe {
  intentId: string | null;
  sessionId: string | null;
  account: string | null;
}

const PASS_LIMIT = 100;

/**
 * The `t=` of a `Stripe-Signature` header, read as the SDK reads it (the last one counts, since
 * that is the one its signature covers); `NaN` without one.
 */
function signedAt(header: string): number {
  let timestamp = Number.NaN;
  for (const item of header.split(",")) {
    const [key, value] = item.split("=");
    if (key === "t") timestamp = Number.parseInt(value ?? "", 10);
  }
  return timestamp;
}

/** Throws `INVALID_REQUEST` (field `data.object.currency`) unless the PaymentIntent is in the payment's currency, whatever its case. */
function assertIntentCurrency(intent: StripeIntentObject, payment: PaymentRecord): void {
  if (intent.currency.toUpperCase() === payment.currency) return;
  throw new ServiceError("INVALID_REQUEST", {
    message: `data.object.currency: the PaymentIntent is in ${intent.currency}, the registration's payment in ${payment.currency.toLowerCase()}`,
    field: "data.object.currency",
    details: { currency: payment.currency },
  });
}

/** The idempotency key of a registration's PaymentIntent: a registration has at most one payment. */
export const intentKey = (attendeeId: string) => `event-service-payment-${attendeeId}`;

/** The idempotency key of a Checkout Session: the same request (same parameters) asks for the same session. */
async function sessionKey(attendeeId: string, params: unknown): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(JSON.stringify(params)));
  const hex = Array.from(new Uint8Array(digest).slice(0, 12), (byte) => byte.toString(16).padStart(2, "0")).join("");
  return `event-service-checkout-${attendeeId}-${hex}`;
}

/** True for Stripe's answer that the request itself is refused (a 4xx other than 429): trying again will not help. */
function isRefusal(error: unknown): boolean {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === "number" && status >= 400 && status < 500 && status !== 429;
}

/** Turns a failed call to Stripe into `SERVICE_UNAVAILABLE` (the cause kept for the log). */
function unavailable(cause: unknown): ServiceError {
  return new ServiceError("SERVICE_UNAVAILABLE", {
    message: "Stripe could not take the payment now; try again.",
    cause,
  });
}

/** Creates Stripe's side of the payments. */
export function createStripePayments(options: StripePaymentsOptions): StripePayments {
  const { context, stripe, clock } = options;
  const { storage } = context;
  const now = () => clock().toISOString();
  const transaction = <T>(fn: (steps: Steps) => Promise<T>) => runTransaction(context, fn);

  /** The registration `ref` names and its event, locked as every registration change locks them (`null`: gone). */
  const lockRef = (steps: Steps, ref: RegistrationRef) => lockRegistration(steps.tx, ref.accountId, ref.attendeeId);

  const needsIntent = (attendee: AttendeeRecord): attendee is AttendeeRecord & { payment: PaymentRecord } =>
    attendee.payment?.provider === "stripe" &&
    attendee.payment.paymentIntentId === null &&
    isPayable(attendee.payment) &&
    isActiveAttendeeStatus(attendee.status);

  async function cancelIntent(intentId: string, account: string | null): Promise<void> {
    try {
      await stripe.paymentIntents.cancel(intentId, {}, account ? { stripeAccount: account } : {});
    } catch {
      // Best effort: a payment that still succeeds on it is refunded when its event arrives.
    }
  }

  async function expireSession(sessionId: string, account: string | null): Promise<void> {
    try {
      await stripe.checkout.sessions.expire(sessionId, {}, account ? { stripeAccount: account } : {});
    } catch {
      // Best effort, as an intent's cancellation: a payment that still completes on it is refunded when its event arrives.
    }
  }

  /** Closes at Stripe what could still pay a registration that is paid or gave its place up. */
  async function closeAtStripe(open: OpenAtStripe | null): Promise<void> {
    if (open?.intentId) await cancelIntent(open.intentId, open.account);
    if (open?.sessionId) await expireSession(open.sessionId, open.account);
  }

  async function ensureIntent(ref: RegistrationRef): Promise<AttendeeRecord | null> {
    const found = await storage.getAttendee(ref.accountId, ref.attendeeId);
    if (!found || !needsIntent(found)) return found;
    const account = (await storage.getPaymentSettings(ref.accountId))?.stripeAccountId ?? null;
    const intent = await stripe.paymentIntents.create(
      {
        amount: found.payment.amount,
        currency: found.payment.currency.toLowerCase(),
        automatic_payment_methods: { enabled: true },
        description: `${found.ticketType} ticket`,
        metadata: { attendeeId: found.id, eventId: found.eventId, accountId: found.accountId },
      },
      { idempotencyKey: intentKey(found.id), ...(account && { stripeAccount: account }) },
    );
    const result = await transaction(async (steps) => {
      const locked = await lockRef(steps, ref);
      if (!locked) return { attendee: null, stale: true };
      const { event, attendee } = locked;
      if (!needsIntent(attendee)) return { attendee, stale: attendee.payment?.paymentIntentId !== intent.id };
      const after: AttendeeRecord = {
        ...attendee,
        payment: {
          ...attendee.payment,
          paymentIntentId: intent.id,
          clientSecret: intent.client_secret,
          stripeAccount: account,
        },
      };
      await steps.tx.attendees.updateStatus(after);
      if (attendee.payment.promoted)
        await appendNotifications(steps, event.accountId, {
          op: "attendee.promoted",
          event,
          attendee: after,
          at: now(),
        });
      return { attendee: after, stale: false };
    });
    options.queued();
    // Cancelled or expired while the intent was made: nobody is to pay it.
    if (result.stale) await cancelIntent(intent.id, account);
    return result.attendee;
  }

  /**
   * The notification's JSON once a secret verifies its signature, timestamped within 300 s of
   * now either way (the SDK bounds only its age). Throws `INVALID_SIGNATURE`, or
   * `INVALID_REQUEST` for a verified body that is not JSON.
   */
  async function verify(rawBody: string, signature: string | null): Promise<unknown> {
    if (signature) {
      for (const secret of options.webhookSecrets) {
        let verified: unknown;
        try {
          verified = await stripe.webhooks.constructEventAsync(
            rawBody,
            signature,
            secret,
            STRIPE_SIGNATURE_TOLERANCE_SECONDS,
            undefined,
            clock().getTime(),
          );
        } catch (error) {
          // The client could not verify at all (its SDK failed to load): the notification is not at fault.
          if (ServiceError.is(error)) throw error;
          // The SDK parses the body only once the signature verified.
          if (error instanceof SyntaxError)
            throw new ServiceError("INVALID_REQUEST", { message: "Malformed JSON in the Stripe notification." });
          continue;
        }
        const ahead = signedAt(signature) - Math.floor(clock().getTime() / 1000);
        if (Number.isNaN(ahead) || ahead > STRIPE_SIGNATURE_TOLERANCE_SECONDS) break;
        return verified;
      }
    }
    throw new ServiceError("INVALID_SIGNATURE", {
      message: signature
        ? `The Stripe-Signature does not verify with the endpoint's secrets, or is more than ${STRIPE_SIGNATURE_TOLERANCE_SECONDS} s old or ahead.`
        : "The Stripe-Signature header is missing.",
    });
  }

  /** The registration a PaymentIntent pays: by the intent's id, else by its metadata (made, but not attached yet). */
  async function registrationOf(steps: Steps, intent: StripeIntentObject): Promise<RegistrationRef | null> {
    const byIntent = await steps.tx.payments.findByIntent(intent.id);
    if (byIntent) return byIntent;
    const { attendeeId, accountId } = intent.metadata ?? {};
    if (!attendeeId || !accountId) return null;
    const eventId = await steps.tx.attendees.eventIdOf(accountId, attendeeId);
    return eventId === null ? null : { accountId, eventId, attendeeId };
  }

  /**
   * A payment Stripe took on `intent` (the registration's own PaymentIntent, or the one a Checkout
   * Session made; `account`: the connected account the notification came from): recorded once per
   * intent, whichever of its notifications arrives first; it pays a payable registration (and
   * becomes its PaymentIntent, where later refunds go back), and what nothing is owed for any more
   * (a hold that expired, a cancelled registration, paid twice) goes back at once on the same
   * intent. Returns what could still pay it at Stripe once it is paid (`sessionId`: the session
   * that paid, which is not).
   */
  async function paid(
    steps: Steps,
    event: EventRecord,
    found: AttendeeRecord & { payment: PaymentRecord },
    intent: StripeIntentObject,
    account: string | null,
    at: string,
    sessionId: string | null = null,
  ): Promise<OpenAtStripe | null> {
    const received = intent.amount_received - (await steps.tx.payments.receivedOn(found.id, intent.id));
    if (received <= 0) return null;
    const own = found.payment.paymentIntentId === null || found.payment.paymentIntentId === intent.id;
    const source = { paymentIntentId: intent.id, stripeAccount: account ?? (own ? found.payment.stripeAccount : null) };
    const payable = isPayable(found.payment) && found.status === "pending";
    const before: AttendeeRecord & { payment: PaymentRecord } = payable
      ? {
          ...found,
          payment: {
            ...found.payment,
            paymentIntentId: intent.id,
            stripeAccount: source.stripeAccount,
            clientSecret: own ? found.payment.clientSecret : null,
          },
        }
      : found;
    await steps.tx.payments.insert(
      entryOf(
        before,
        {
          kind: "payment",
          amount: received,
          provider: "stripe",
          method: "card",
          reference: null,
          providerReference: intent.id,
          status: "succeeded",
          ...source,
        },
        at,
      ),
    );
    const owed = payable ? outstanding(before.payment) : 0;
    const payment = withPaid(before.payment, received, at);
    let after: AttendeeRecord & { payment: PaymentRecord } = payable
      ? { ...before, payment, ...(payment.status === "paid" && { status: "confirmed" as const }), updatedAt: at }
      : { ...before, payment: { ...before.payment, amountPaid: before.payment.amountPaid + received }, updatedAt: at };
    if (payable && payment.status === "paid") await notifyPayment(steps, event, after, "payment.succeeded", at);
    const excess = received - owed;
    if (excess > 0)
      after = await refundSteps(steps, event, after, excess, at, "nothing owed when the payment arrived", source);
    await steps.tx.attendees.updateStatus(after);
    await moveFigures(steps, event, found, after);
    await appendNotifications(steps, event.accountId, { op: "attendee.updated", event, before: found, after, at });
    if (!payable || payment.status !== "paid") return null;
    const { paymentIntentId: ownIntent, checkoutSessionId } = found.payment;
    return {
      intentId: ownIntent !== null && ownIntent !== intent.id ? ownIntent : null,
      sessionId: checkoutSessionId !== null && checkoutSessionId !== sessionId ? checkoutSessionId : null,
      account: found.payment.stripeAccount,
    };
  }

  /** A payment attempt that failed: a payable registration's payment is `failed` (still payable) and `payment.failed` is sent. */
  async function failed(
    steps: Steps,
    event: EventRecord,
    before: AttendeeRecord & { payment: PaymentRecord },
    at: string,
  ) {
    if (!isPayable(before.payment) || before.status !== "pending") return;
    const after = { ...before, payment: { ...before.payment, status: "failed" as const }, updatedAt: at };
    await steps.tx.attendees.updateStatus(after);
    await appendNotifications(steps, event.accountId, { op: "attendee.updated", event, before, after, at });
    await notifyPayment(steps, event, after, "payment.failed", at);
  }

  /**
   * A Checkout Session's notification: a completed one that is `paid` (or an asynchronous
   * payment that succeeded later) pays as its PaymentIntent's success does, keyed by that
   * PaymentIntent, so the intent's own `payment_intent.succeeded` adds nothing; an asynchronous
   * payment that failed fails it; anything else changes nothing.
   */
  async function sessionChanged(steps: Steps, stripeEvent: StripeSessionEvent, at: string) {
    const session = stripeEvent.data.object;
    const pays =
      (stripeEvent.type === "checkout.session.completed" && session.payment_status === "paid") ||
      stripeEvent.type === "checkout.session.async_payment_succeeded";
    if (!pays && stripeEvent.type !== "checkout.session.async_payment_failed") return null;
    const { attendeeId, accountId } = session.metadata ?? {};
    const locked = attendeeId && accountId ? await lockRegistration(steps.tx, accountId, attendeeId) : null;
    if (locked?.attendee.payment?.provider !== "stripe") return null;
    const { event } = locked;
    const before = locked.attendee as AttendeeRecord & { payment: PaymentRecord };
    if (!pays) return failed(steps, event, before, at).then(() => null);
    const { payment_intent: intentId, amount_total: amount, currency } = session;
    for (const [field, value] of [
      ["payment_intent", intentId],
      ["amount_total", amount],
      ["currency", currency],
    ] as const)
      if (value === null || value === undefined)
        throw new ServiceError("INVALID_REQUEST", {
          message: `data.object.${field}: is required on a paid Checkout Session`,
          field: `data.object.${field}`,
        });
    const intent: StripeIntentObject = {
      id: intentId!,
      amount: amount!,
      amount_received: amount!,
      currency: currency!,
      metadata: session.metadata,
    };
    assertIntentCurrency(intent, before.payment);
    return paid(steps, event, before, intent, stripeEvent.account ?? null, at, session.id);
  }

  async function receive(rawBody: string, signature: string | null): Promise<void> {
    const stripeEvent = parseStripeEvent(await verify(rawBody, signature));
    const at = now();
    const open = await transaction(async (steps): Promise<OpenAtStripe | null> => {
      if (!(await steps.tx.payments.recordStripeEvent(stripeEvent.id, stripeEvent.type, at))) return null;
      if (isSessionEvent(stripeEvent)) return sessionChanged(steps, stripeEvent, at);
      if (!isIntentEvent(stripeEvent)) return null;
      const intent = stripeEvent.data.object;
      const ref = await registrationOf(steps, intent);
      const locked = ref && (await lockRef(steps, ref));
      if (!locked) return null;
      const { event, attendee } = locked;
      if (attendee.payment?.provider !== "stripe") return null;
      const before = attendee as AttendeeRecord & { payment: PaymentRecord };
      // Thrown inside the transaction, so the event's id is not kept either: a corrected resend is applied.
      assertIntentCurrency(intent, before.payment);
      if (stripeEvent.type === "payment_intent.succeeded")
        return paid(steps, event, before, intent, stripeEvent.account ?? null, at);
      await failed(steps, event, before, at);
      return null;
    });
    options.queued();
    await closeAtStripe(open);
  }

  /** Cancels a registration whose Stripe hold ran out unpaid, then its PaymentIntent and open Checkout Session at Stripe; returns them, or `null`. */
  async function expireHold(ref: RegistrationRef): Promise<OpenAtStripe | null> {
    const at = now();
    const expired = await transaction(async (steps) => {
      const locked = await lockRef(steps, ref);
      if (!locked) return null;
      const { event, attendee } = locked;
      const payment = attendee.payment;
      if (
        payment?.provider !== "stripe" ||
        !isPayable(payment) ||
        !isActiveAttendeeStatus(attendee.status) ||
        payment.expiresAt === null ||
        payment.expiresAt > at
      )
        return null;
      let after: AttendeeRecord & { payment: PaymentRecord } = { ...attendee, payment };
      // Part of it paid by hand meanwhile: it goes back, the registration never completed.
      if (refundable(payment) > 0)
        after = await refundSteps(steps, event, after, refundable(payment), at, "payment expired");
      after = {
        ...after,
        status: "cancelled",
        cancelledAt: at,
        updatedAt: at,
        payment: { ...after.payment, status: "expired" },
      };
      await steps.tx.attendees.updateStatus(after);
      await moveFigures(steps, event, attendee, after);
      await appendNotifications(steps, event.accountId, {
        op: "attendee.updated",
        event,
        before: attendee,
        after,
        at,
        reason: "payment_expired",
      });
      await notifyPayment(steps, event, after, "payment.expired", at);
      await settleWaitlist(steps, event, registrationChange(attendee, after), at);
      await checkEventThresholds(steps, event, at, { footprint: true });
      return {
        intentId: payment.paymentIntentId,
        sessionId: payment.checkoutSessionId,
        account: payment.stripeAccount,
      };
    });
    options.queued();
    await closeAtStripe(expired);
    return expired;
  }

  /** Makes a pending refund at Stripe; a refusal (a 4xx) fails the entry and gives the amount back to the registration's refundable money. */
  async function makeRefund(entry: PaymentEntry) {
    if (!entry.paymentIntentId) return false;
    let refundId: string | null = null;
    let refused = false;
    try {
      const refund = await stripe.refunds.create(
        { payment_intent: entry.paymentIntentId, amount: entry.amount, metadata: { refundId: entry.id } },
        { idempotencyKey: entry.id, ...(entry.stripeAccount && { stripeAccount: entry.stripeAccount }) },
      );
      refundId = refund.id;
    } catch (error) {
      refused = isRefusal(error);
      if (!refused) throw error;
    }
    await transaction(async (steps) => {
      if (!refused) return steps.tx.payments.settle(entry.id, "succeeded", refundId);
      const locked = await lockRef(steps, {
        accountId: entry.accountId,
        eventId: entry.eventId,
        attendeeId: entry.attendeeId,
      });
      if (!(await steps.tx.payments.settle(entry.id, "failed", null)) || !locked?.attendee.payment) return false;
      const { attendee } = locked;
      const payment = attendee.payment!;
      const restored = { ...payment, amountRefunded: Math.max(0, payment.amountRefunded - entry.amount) };
      const status = paymentStatus(restored, isActiveAttendeeStatus(attendee.status));
      await steps.tx.attendees.updateStatus({ ...attendee, payment: { ...restored, status } });
      return true;
    });
    return !refused;
  }

  async function runPass(): Promise<PaymentPass> {
    const pass: PaymentPass = { intentsMade: 0, holdsExpired: 0, refundsMade: 0, errors: [] };
    const each = async <T>(items: T[], fn: (item: T) => Promise<unknown>, count: keyof Omit<PaymentPass, "errors">) => {
      for (const item of items) {
        try {
          if (await fn(item)) pass[count] += 1;
        } catch (error) {
          pass.errors.push(error);
        }
      }
    };
    await each(await storage.intentsToMake(PASS_LIMIT), ensureIntent, "intentsMade");
    await each(await storage.holdsDue(now(), PASS_LIMIT), expireHold, "holdsExpired");
    await each(await storage.refundsDue(PASS_LIMIT), makeRefund, "refundsMade");
    return pass;
  }

  async function closeIntent(before: AttendeeRecord, after: AttendeeRecord | null): Promise<void> {
    const payment = before.payment;
    const gaveUp = after === null || (isActiveAttendeeStatus(before.status) && after.status === "cancelled");
    if (!gaveUp || payment?.provider !== "stripe" || !isPayable(payment)) return;
    await closeAtStripe({
      intentId: payment.paymentIntentId,
      sessionId: payment.checkoutSessionId,
      account: payment.stripeAccount,
    });
  }

  async function checkout(
    ref: { accountId: string; attendeeId: string },
    urls: CheckoutUrls,
  ): Promise<{ url: string }> {
    const found = await storage.getAttendee(ref.accountId, ref.attendeeId);
    if (!found) throw notFound("Attendee", ref.attendeeId);
    assertCheckoutPayable(found, now());
    const { payment } = found;
    // The registration's money stays on one account: its PaymentIntent's where it has one.
    const account =
      payment.paymentIntentId !== null
        ? payment.stripeAccount
        : ((await storage.getPaymentSettings(ref.accountId))?.stripeAccountId ?? null);
    const on = account ? { stripeAccount: account } : {};
    const amount = outstanding(payment);
    const currency = payment.currency.toLowerCase();
    const previous = payment.checkoutSessionId;
    if (previous !== null) {
      // One Stripe refuses to show (gone, or on an account no longer linked) is replaced.
      const session = await stripe.checkout.sessions.retrieve(previous, {}, on).catch((error: unknown) => {
        if (isRefusal(error)) return null;
        throw unavailable(error);
      });
      const same = session?.amount_total === amount && session.currency === currency;
      if (session?.status === "open" && same && session.url) return { url: session.url };
      // Asks for another amount (paid in part by hand since): only the new one may be paid.
      if (session?.status === "open") await expireSession(previous, account);
    }
    const metadata = { attendeeId: found.id, eventId: found.eventId, accountId: found.accountId };
    const params = {
      mode: "payment" as const,
      line_items: [
        { price_data: { currency, unit_amount: amount, product_data: { name: found.ticketType } }, quantity: 1 },
      ],
      client_reference_id: found.id,
      metadata,
      payment_intent_data: { metadata, description: `${found.ticketType} ticket` },
      success_url: urls.successUrl,
      cancel_url: urls.cancelUrl,
      expires_at: checkoutExpiresAt(payment.expiresAt, now()),
    };
    const key = await sessionKey(found.id, { params, account, previous });
    const made = await stripe.checkout.sessions
      .create(params, { idempotencyKey: key, ...on })
      .catch((error: unknown) => {
        throw unavailable(error);
      });
    const kept = await transaction(async (steps) => {
      const locked = await lockRef(steps, { ...ref, eventId: found.eventId });
      const attendee = locked?.attendee;
      if (!attendee) return { stale: true, error: notFound("Attendee", ref.attendeeId) };
      try {
        assertCheckoutPayable(attendee, now());
      } catch (error) {
        return { stale: true, error };
      }
      const recorded = attendee.payment.checkoutSessionId;
      // Another request made one meanwhile: the buyer pays that one, this one is expired.
      if (recorded !== previous && recorded !== made.id) return { stale: true, other: recorded };
      const stripeAccount = attendee.payment.paymentIntentId === null ? account : attendee.payment.stripeAccount;
      await steps.tx.attendees.updateStatus({
        ...attendee,
        payment: { ...attendee.payment, checkoutSessionId: made.id, stripeAccount },
      });
      return { stale: false };
    });
    if (kept.stale) await expireSession(made.id, account);
    if ("error" in kept) throw kept.error;
    if ("other" in kept && kept.other) {
      const other = await stripe.checkout.sessions.retrieve(kept.other, {}, on).catch((error: unknown) => {
        throw unavailable(error);
      });
      if (other.status === "open" && other.url) return { url: other.url };
      throw unavailable(new Error(`Checkout Session ${kept.other} is ${other.status}`));
    }
    if (!made.url) throw unavailable(new Error(`Checkout Session ${made.id} has no url`));
    return { url: made.url };
  }

  return { ensureIntent, closeIntent, receive, runPass, checkout };
}
