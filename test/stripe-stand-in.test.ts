/**
 * The Stripe stand-in (fixtures/stripe-stand-in.ts) checked against Stripe's official SDK, the
 * client the service takes payments with: PaymentIntents created, retrieved and cancelled, Connect
 * accounts kept apart by the `stripeAccount` option, idempotent replays and refused key reuse,
 * refunds and over-refunds, Checkout Sessions made, retrieved, expired and completed, authentication, the errors each surfaces as (the SDK's own classes),
 * events of the controls signed and verified by the SDK's webhook helpers, the SDK's retries of a
 * dropped connection and of a 500, and a separate Node process reaching the stand-in through
 * `STRIPE_API_URL` and `NODE_EXTRA_CA_CERTS`, as the server process will.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import https from "node:https";
import { after, before, describe, test } from "node:test";
import Stripe from "stripe";
import { ROOT } from "./_setup.ts";
import { rawRequest } from "./fixtures/conventions.ts";
import { type StripeStandIn, startStripeStandIn } from "./fixtures/stripe-stand-in.ts";

const KEY = "sk_test_51StandIn0123456789abcdefKEY";
const WEBHOOK_SECRET = "whsec_standInSigningSecret0123456789";

/** The SDK pointed at a stand-in: the configuration the service will use, with retries off unless told. */
const sdk = (standIn: StripeStandIn, config: Stripe.StripeConfig = {}, key = KEY) =>
  new Stripe(key, {
    host: standIn.host,
    port: standIn.port,
    protocol: "https",
    httpAgent: new https.Agent({ ca: standIn.ca }),
    maxNetworkRetries: 0,
    telemetry: false,
    ...config,
  });

/** The error a promise rejects with, which must be one of the SDK's. */
async function stripeError(promise: Promise<unknown>): Promise<Stripe.errors.StripeError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof Stripe.errors.StripeError, `not a Stripe error: ${error}`);
    return error;
  }
  assert.fail("expected the Stripe call to fail");
}

/** The fields of an SDK error the tests compare. */
const fields = (error: Stripe.errors.StripeError) => ({
  class: error.constructor.name,
  statusCode: error.statusCode,
  rawType: error.rawType,
  code: error.code,
  param: error.param,
});

const nowSeconds = () => Math.floor(Date.now() / 1000);

describe("the Stripe stand-in, through the official SDK", () => {
  let standIn: StripeStandIn;
  let stripe: Stripe;

  before(async () => {
    standIn = await startStripeStandIn({ secretKey: KEY });
    stripe = sdk(standIn);
  });

  after(() => standIn.close());

  test("creates a PaymentIntent in Stripe's shape from the form the SDK sends, with the SDK's headers", async () => {
    const started = nowSeconds();
    const intent = await stripe.paymentIntents.create({
      amount: 2500,
      currency: "EUR",
      metadata: { booking: "bk_1", event: "Spring fair [2026]" },
      automatic_payment_methods: { enabled: true },
      description: "2 tickets",
      receipt_email: "ana@example.org",
    });

    assert.match(intent.id, /^pi_[0-9A-Za-z]{24}$/);
    assert.match(intent.client_secret!, new RegExp(`^${intent.id}_secret_[0-9A-Za-z]{25}$`));
    assert.ok(intent.created >= started && intent.created <= nowSeconds());
    assert.deepEqual(
      {
        object: intent.object,
        amount: intent.amount,
        currency: intent.currency,
        status: intent.status,
        metadata: intent.metadata,
        latest_charge: intent.latest_charge,
        amount_received: intent.amount_received,
        livemode: intent.livemode,
        automatic_payment_methods: intent.automatic_payment_methods,
        description: intent.description,
        receipt_email: intent.receipt_email,
        cancellation_reason: intent.cancellation_reason,
      },
      {
        object: "payment_intent",
        amount: 2500,
        currency: "eur",
        status: "requires_payment_method",
        metadata: { booking: "bk_1", event: "Spring fair [2026]" },
        latest_charge: null,
        amount_received: 0,
        livemode: false,
        automatic_payment_methods: { enabled: true },
        description: "2 tickets",
        receipt_email: "ana@example.org",
        cancellation_reason: null,
      },
    );
    assert.equal(intent.lastResponse.statusCode, 200);
    assert.match(intent.lastResponse.requestId, /^req_[0-9A-Za-z]{14}$/);
    assert.equal(standIn.paymentIntents.get(intent.id)?.account, null);

    const sent = standIn.requests.at(-1)!;
    assert.equal(`${sent.method} ${sent.path}`, "POST /v1/payment_intents");
    assert.equal(sent.headers.authorization, `Bearer ${KEY}`);
    assert.equal(sent.headers["content-type"], "application/x-www-form-urlencoded");
    assert.equal(sent.headers["stripe-version"], Stripe.API_VERSION);
    assert.equal(sent.headers["stripe-account"], undefined);
    assert.match(String(sent.headers["user-agent"]), new RegExp(`^Stripe/v1 NodeBindings/${Stripe.PACKAGE_VERSION}`));
    // The SDK keys every POST itself, even with maxNetworkRetries: 0.
    assert.match(
      sent.idempotencyKey!,
      /^stripe-node-retry-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    );
    assert.equal(intent.lastResponse.idempotencyKey, sent.idempotencyKey);
    assert.match(sent.body, /(^|&)metadata\[booking\]=bk_1(&|$)/, "brackets are sent unencoded");
    assert.deepEqual(sent.params, {
      amount: "2500",
      currency: "EUR",
      metadata: { booking: "bk_1", event: "Spring fair [2026]" },
      automatic_payment_methods: { enabled: "true" },
      description: "2 tickets",
      receipt_email: "ana@example.org",
    });
  });

  test("retrieves a PaymentIntent with a GET that carries no Idempotency-Key, and cancels it", async () => {
    const created = await stripe.paymentIntents.create({ amount: 1800, currency: "usd" });
    const retrieved = await stripe.paymentIntents.retrieve(created.id);
    assert.deepEqual(retrieved, created);
    const get = standIn.requests.at(-1)!;
    assert.equal(`${get.method} ${get.path}`, `GET /v1/payment_intents/${created.id}`);
    assert.equal(get.idempotencyKey, null);
    assert.equal(get.headers["idempotency-key"], undefined);

    const cancelled = await stripe.paymentIntents.cancel(created.id, { cancellation_reason: "requested_by_customer" });
    assert.equal(cancelled.id, created.id);
    assert.equal(cancelled.status, "canceled");
    assert.equal(cancelled.cancellation_reason, "requested_by_customer");
    assert.ok(cancelled.canceled_at! >= created.created);
    assert.equal(standIn.paymentIntents.get(created.id)!.intent.status, "canceled");

    const again = await stripeError(stripe.paymentIntents.cancel(created.id));
    assert.deepEqual(fields(again), {
      class: "StripeInvalidRequestError",
      statusCode: 400,
      rawType: "invalid_request_error",
      code: "payment_intent_unexpected_state",
      param: undefined,
    });
  });

  test("telemetry: false keeps the SDK from reporting its last request's latency on the next one", async () => {
    const chatty = sdk(standIn, { telemetry: true });
    const intent = await chatty.paymentIntents.create({ amount: 100, currency: "usd" });
    await chatty.paymentIntents.retrieve(intent.id);
    const reported = JSON.parse(String(standIn.requests.at(-1)!.headers["x-stripe-client-telemetry"]));
    assert.equal(reported.last_request_metrics.request_id, intent.lastResponse.requestId);
    assert.equal(typeof reported.last_request_metrics.request_duration_ms, "number");

    const requests = standIn.requests.length;
    const quiet = await stripe.paymentIntents.create({ amount: 100, currency: "usd" });
    await stripe.paymentIntents.retrieve(quiet.id);
    assert.deepEqual(
      standIn.requests.slice(requests).map((request) => request.headers["x-stripe-client-telemetry"]),
      [undefined, undefined],
    );
  });

  test("a PaymentIntent that does not exist: 404 resource_missing, a StripeInvalidRequestError", async () => {
    const error = await stripeError(stripe.paymentIntents.retrieve("pi_doesNotExist000000000000"));
    assert.deepEqual(fields(error), {
      class: "StripeInvalidRequestError",
      statusCode: 404,
      rawType: "invalid_request_error",
      code: "resource_missing",
      param: "intent",
    });
    assert.equal(error.message, "No such payment_intent: 'pi_doesNotExist000000000000'");
    assert.equal(error.doc_url, "https://stripe.com/docs/error-codes/resource-missing");
    assert.match(error.requestId!, /^req_/);
  });

  test("cancelling a succeeded PaymentIntent: 400 payment_intent_unexpected_state, with the PaymentIntent", async () => {
    const intent = await stripe.paymentIntents.create({ amount: 900, currency: "gbp" });
    standIn.succeed(intent.id);
    const error = await stripeError(stripe.paymentIntents.cancel(intent.id));
    assert.deepEqual(fields(error), {
      class: "StripeInvalidRequestError",
      statusCode: 400,
      rawType: "invalid_request_error",
      code: "payment_intent_unexpected_state",
      param: undefined,
    });
    assert.match(error.message, /^You cannot cancel this PaymentIntent because it has a status of succeeded\./);
    assert.equal(error.payment_intent?.id, intent.id);
    assert.equal(error.payment_intent?.status, "succeeded");
    assert.equal(standIn.paymentIntents.get(intent.id)!.intent.status, "succeeded");
  });

  test("amount, currency and unknown parameters are refused with their param, and nothing is created", async () => {
    const before = standIn.paymentIntents.size;
    const cases: Array<[Stripe.PaymentIntentCreateParams, { param: string; code: string | undefined }, string]> = [
      [
        { amount: 0, currency: "usd" },
        { param: "amount", code: undefined },
        "This value must be greater than or equal to 1.",
      ],
      [
        { amount: 12.5, currency: "usd" },
        { param: "amount", code: "parameter_invalid_integer" },
        "Invalid integer: 12.5",
      ],
      [
        { amount: -100, currency: "usd" },
        { param: "amount", code: undefined },
        "This value must be greater than or equal to 1.",
      ],
      [
        { amount: 100_000_000, currency: "usd" },
        { param: "amount", code: "amount_too_large" },
        "Amount must be no more than $999,999.99",
      ],
      [{ amount: 500, currency: "xyz" }, { param: "currency", code: undefined }, "Invalid currency: xyz."],
      [
        { amount: 500 } as Stripe.PaymentIntentCreateParams,
        { param: "currency", code: "parameter_missing" },
        "Missing required param: currency.",
      ],
      // Not a parameter of PaymentIntents any more at the SDK's API version (allowed_payment_method_types replaced it).
      [
        { amount: 500, currency: "usd", payment_method_types: ["card"] } as Stripe.PaymentIntentCreateParams,
        { param: "payment_method_types", code: "parameter_unknown" },
        "Received unknown parameter: payment_method_types",
      ],
    ];
    for (const [params, expected, message] of cases) {
      const error = await stripeError(stripe.paymentIntents.create(params));
      assert.deepEqual(
        fields(error),
        { class: "StripeInvalidRequestError", statusCode: 400, rawType: "invalid_request_error", ...expected },
        JSON.stringify(params),
      );
      assert.ok(error.message.startsWith(message), `${error.message} starts with ${message}`);
    }
    assert.equal(standIn.paymentIntents.size, before);

    const unsupported = await stripeError(
      stripe.paymentIntents.create({ amount: 500, currency: "usd", confirm: true }),
    );
    assert.equal(unsupported.param, "confirm");
    assert.match(unsupported.message, /stand-in .* does not implement the parameter confirm/);
  });

  test("Connect: a PaymentIntent made with stripeAccount is stored under it and visible only with it", async () => {
    const organizer = "acct_1StandInOrganizer";
    const other = "acct_1StandInSomeoneElse";
    standIn.addAccount(organizer);
    standIn.addAccount(other, { charges_enabled: false });
    const intent = await stripe.paymentIntents.create({ amount: 3000, currency: "usd" }, { stripeAccount: organizer });
    assert.equal(standIn.requests.at(-1)!.headers["stripe-account"], organizer);
    assert.equal(intent.lastResponse.stripeAccount, organizer);
    assert.equal(standIn.paymentIntents.get(intent.id)!.account, organizer);

    assert.equal((await stripe.paymentIntents.retrieve(intent.id, {}, { stripeAccount: organizer })).id, intent.id);
    for (const options of [{}, { stripeAccount: other }]) {
      const hidden = await stripeError(stripe.paymentIntents.retrieve(intent.id, {}, options));
      assert.deepEqual([hidden.statusCode, hidden.code], [404, "resource_missing"]);
    }
    const unknown = await stripeError(
      stripe.paymentIntents.retrieve(intent.id, {}, { stripeAccount: "acct_1NotConnected" }),
    );
    assert.deepEqual(fields(unknown), {
      class: "StripePermissionError",
      statusCode: 403,
      rawType: "invalid_request_error",
      code: "account_invalid",
      param: undefined,
    });
    assert.match(
      unknown.message,
      /^The provided key 'sk_test_\*{24}fKEY' does not have access to account 'acct_1NotConnected'/,
    );

    const account = await stripe.accounts.retrieve(organizer);
    assert.deepEqual(
      [account.id, account.object, account.charges_enabled, account.payouts_enabled],
      [organizer, "account", true, true],
    );
    assert.equal((await stripe.accounts.retrieve(other)).charges_enabled, false);
    const missing = await stripeError(stripe.accounts.retrieve("acct_1NotConnected"));
    assert.deepEqual(
      [missing.constructor.name, missing.statusCode, missing.code],
      ["StripePermissionError", 403, "account_invalid"],
    );
  });

  test("an Idempotency-Key replays the first answer for the same parameters and refuses other parameters or endpoints", async () => {
    const key = "booking-42-payment";
    const params = { amount: 4200, currency: "usd", metadata: { booking: "42" } };
    const first = await stripe.paymentIntents.create(params, { idempotencyKey: key });
    const again = await stripe.paymentIntents.create(params, { idempotencyKey: key });
    assert.deepEqual(again, first);
    assert.equal(first.lastResponse.headers["idempotent-replayed"], undefined);
    assert.equal(again.lastResponse.headers["idempotent-replayed"], "true");
    assert.equal(again.lastResponse.headers["original-request"], first.lastResponse.requestId);
    assert.equal(standIn.requests.at(-1)!.idempotencyKey, key);
    assert.equal(standIn.requests.at(-1)!.replayed, true);
    assert.equal(
      [...standIn.paymentIntents.values()].filter((item) => item.intent.metadata.booking === "42").length,
      1,
    );

    const changed = await stripeError(
      stripe.paymentIntents.create({ ...params, amount: 4300 }, { idempotencyKey: key }),
    );
    assert.deepEqual(fields(changed), {
      class: "StripeIdempotencyError",
      statusCode: 400,
      rawType: "idempotency_error",
      code: undefined,
      param: undefined,
    });
    assert.match(changed.message, /^Keys for idempotent requests can only be used with the same parameters/);

    const elsewhere = await stripeError(stripe.refunds.create({ payment_intent: first.id }, { idempotencyKey: key }));
    assert.equal(elsewhere.constructor.name, "StripeIdempotencyError");
    assert.match(
      elsewhere.message,
      /same endpoint they were first used for \('POST \/v1\/payment_intents' vs 'POST \/v1\/refunds'\)/,
    );

    // Keys belong to an account: the same key under a connected account is another request.
    standIn.addAccount("acct_1StandInIdempotent");
    const connected = await stripe.paymentIntents.create(params, {
      idempotencyKey: key,
      stripeAccount: "acct_1StandInIdempotent",
    });
    assert.notEqual(connected.id, first.id);

    // A request refused before the endpoint ran saves nothing: the key still works once corrected.
    const invalid = await stripeError(
      stripe.paymentIntents.create({ amount: 0, currency: "usd" }, { idempotencyKey: "k-2" }),
    );
    assert.equal(invalid.param, "amount");
    const corrected = await stripe.paymentIntents.create({ amount: 100, currency: "usd" }, { idempotencyKey: "k-2" });
    assert.equal(corrected.amount, 100);
  });

  test("refunds: partial, the rest, then none left; never above what was received; idempotent", async () => {
    const intent = await stripe.paymentIntents.create({ amount: 5000, currency: "usd" });
    const unpaid = await stripeError(stripe.refunds.create({ payment_intent: intent.id }));
    assert.deepEqual(
      [unpaid.constructor.name, unpaid.statusCode, unpaid.param, unpaid.message],
      [
        "StripeInvalidRequestError",
        400,
        "payment_intent",
        `This PaymentIntent (${intent.id}) does not have a successful charge to refund.`,
      ],
    );

    standIn.succeed(intent.id);
    const charge = standIn.paymentIntents.get(intent.id)!.intent.latest_charge as string;
    const partial = await stripe.refunds.create(
      { payment_intent: intent.id, amount: 2000, metadata: { tickets: "1" } },
      { idempotencyKey: "refund-booking-7-1" },
    );
    assert.match(partial.id, /^re_[0-9A-Za-z]{24}$/);
    assert.deepEqual(
      [
        partial.object,
        partial.status,
        partial.amount,
        partial.currency,
        partial.payment_intent,
        partial.charge,
        partial.metadata,
      ],
      ["refund", "succeeded", 2000, "usd", intent.id, charge, { tickets: "1" }],
    );
    const replayed = await stripe.refunds.create(
      { payment_intent: intent.id, amount: 2000, metadata: { tickets: "1" } },
      { idempotencyKey: "refund-booking-7-1" },
    );
    assert.equal(replayed.id, partial.id);
    assert.equal([...standIn.refunds.values()].filter((item) => item.refund.payment_intent === intent.id).length, 1);
    assert.deepEqual(await stripe.refunds.retrieve(partial.id), partial);

    const tooMuch = await stripeError(stripe.refunds.create({ payment_intent: intent.id, amount: 3001 }));
    assert.deepEqual(fields(tooMuch), {
      class: "StripeInvalidRequestError",
      statusCode: 400,
      rawType: "invalid_request_error",
      code: undefined,
      param: "amount",
    });
    assert.equal(tooMuch.message, "Refund amount ($30.01) is greater than unrefunded amount on charge ($30.00)");

    const rest = await stripe.refunds.create({ payment_intent: intent.id });
    assert.equal(rest.amount, 3000);
    const none = await stripeError(stripe.refunds.create({ charge }));
    assert.deepEqual(fields(none), {
      class: "StripeInvalidRequestError",
      statusCode: 400,
      rawType: "invalid_request_error",
      code: "charge_already_refunded",
      param: undefined,
    });
    assert.equal(none.message, `Charge ${charge} has already been refunded.`);
    assert.equal(standIn.paymentIntents.get(intent.id)!.refunded, 5000);
  });

  test("authentication: another key or a live key is a StripeAuthenticationError; no key at all is a 401 too", async () => {
    for (const key of ["sk_test_someoneElsesKey9999", "sk_live_51LiveKeyNeverHere1234"]) {
      const error = await stripeError(sdk(standIn, {}, key).paymentIntents.create({ amount: 100, currency: "usd" }));
      assert.deepEqual(fields(error), {
        class: "StripeAuthenticationError",
        statusCode: 401,
        rawType: "invalid_request_error",
        code: undefined,
        param: undefined,
      });
      assert.equal(
        error.message,
        `Invalid API Key provided: ${key.slice(0, 8)}${"*".repeat(key.length - 12)}${key.slice(-4)}`,
      );
    }
    const bare = await rawRequest(`${standIn.url}/v1/payment_intents`, {
      method: "POST",
      ca: standIn.ca,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "amount=100&currency=usd",
    });
    assert.equal(bare.status, 401);
    assert.equal(bare.body.error.type, "invalid_request_error");
    assert.match(bare.body.error.message, /^You did not provide an API key\./);
    const unknownPath = await rawRequest(`${standIn.url}/v1/charges`, {
      ca: standIn.ca,
      headers: { authorization: `Bearer ${KEY}` },
    });
    assert.equal(unknownPath.status, 404);
    assert.match(unknownPath.body.error.message, /^Unrecognized request URL \(GET: \/v1\/charges\)/);
  });

  test("succeed() returns a payment_intent.succeeded event the SDK's webhook helpers sign and verify, within 300 s", async () => {
    const intent = await stripe.paymentIntents.create({ amount: 1500, currency: "usd", metadata: { booking: "b9" } });
    const event = standIn.succeed(intent.id);
    assert.match(event.id, /^evt_[0-9A-Za-z]{24}$/);
    assert.ok(Math.abs(event.created - nowSeconds()) <= 1);
    assert.equal("account" in event, false, "no account on a platform event");
    assert.deepEqual(
      [event.object, event.type, event.api_version, event.livemode, event.pending_webhooks, event.request],
      ["event", "payment_intent.succeeded", Stripe.API_VERSION, false, 1, { id: null, idempotency_key: null }],
    );
    const paid = event.data.object;
    assert.deepEqual(
      [paid.id, paid.status, paid.amount_received, paid.metadata, paid.last_payment_error],
      [intent.id, "succeeded", 1500, { booking: "b9" }, null],
    );
    assert.match(paid.latest_charge as string, /^ch_[0-9A-Za-z]{24}$/);
    assert.deepEqual(await stripe.paymentIntents.retrieve(intent.id), { ...paid });

    const payload = JSON.stringify(event, null, 2);
    const header = stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
    assert.match(header, /^t=\d+,v1=[0-9a-f]{64}$/);
    assert.deepEqual(stripe.webhooks.constructEvent(payload, header, WEBHOOK_SECRET), event);
    assert.deepEqual(await stripe.webhooks.constructEventAsync(payload, header, WEBHOOK_SECRET), event);

    const refused = (run: () => unknown, message: RegExp) =>
      assert.throws(
        run,
        (error) => error instanceof Stripe.errors.StripeSignatureVerificationError && message.test(error.message),
      );
    const tampered = payload.replace('"amount_received": 1500', '"amount_received": 15');
    assert.notEqual(tampered, payload);
    refused(() => stripe.webhooks.constructEvent(tampered, header, WEBHOOK_SECRET), /^No signatures found matching/);
    refused(
      () => stripe.webhooks.constructEvent(payload, header, "whsec_anotherSecret"),
      /^No signatures found matching/,
    );
    const signedAt = (secondsAgo: number) =>
      stripe.webhooks.generateTestHeaderString({
        payload,
        secret: WEBHOOK_SECRET,
        timestamp: nowSeconds() - secondsAgo,
      });
    refused(
      () => stripe.webhooks.constructEvent(payload, signedAt(301), WEBHOOK_SECRET),
      /^Timestamp outside the tolerance zone$/,
    );
    await assert.rejects(
      stripe.webhooks.constructEventAsync(payload, signedAt(400), WEBHOOK_SECRET),
      /Timestamp outside the tolerance zone/,
    );
    assert.equal(stripe.webhooks.constructEvent(payload, signedAt(290), WEBHOOK_SECRET).id, event.id);
  });

  test("fail() returns payment_intent.payment_failed, with the account of a connected one; it can be paid after", async () => {
    const organizer = "acct_1StandInDeclined";
    standIn.addAccount(organizer);
    const intent = await stripe.paymentIntents.create({ amount: 700, currency: "eur" }, { stripeAccount: organizer });
    assert.throws(() => standIn.fail(intent.id), /no PaymentIntent pi_\w+ under the platform account/);

    const failed = standIn.fail(intent.id, { account: organizer });
    assert.deepEqual(
      [failed.type, failed.account, failed.data.object.status, failed.data.object.amount_received],
      ["payment_intent.payment_failed", organizer, "requires_payment_method", 0],
    );
    const { last_payment_error: lastError, latest_charge: failedCharge } = failed.data.object;
    assert.deepEqual(
      [lastError?.type, lastError?.code, lastError?.decline_code, lastError?.message, lastError?.charge],
      ["card_error", "card_declined", "generic_decline", "Your card was declined.", failedCharge],
    );
    const seen = await stripe.paymentIntents.retrieve(intent.id, {}, { stripeAccount: organizer });
    assert.equal(seen.last_payment_error?.code, "card_declined");

    const paid = standIn.succeed(intent.id, { account: organizer });
    assert.deepEqual(
      [paid.account, paid.data.object.status, paid.data.object.last_payment_error],
      [organizer, "succeeded", null],
    );
    assert.notEqual(paid.data.object.latest_charge, failedCharge);
    assert.throws(() => standIn.succeed(intent.id, { account: organizer }), /is succeeded: it can no longer be paid/);
    assert.deepEqual(
      standIn.events.slice(-2).map((item) => item.id),
      [failed.id, paid.id],
    );
  });

  /** The parameters of a Checkout Session as the service makes one. */
  const sessionParams = (overrides: Partial<Stripe.Checkout.SessionCreateParams> = {}) =>
    ({
      mode: "payment",
      line_items: [
        { price_data: { currency: "eur", unit_amount: 4500, product_data: { name: "Standard" } }, quantity: 1 },
      ],
      client_reference_id: "attendee_1",
      metadata: { attendeeId: "attendee_1", accountId: "account_1" },
      payment_intent_data: {
        metadata: { attendeeId: "attendee_1", accountId: "account_1" },
        description: "Standard ticket",
      },
      success_url: "https://events.example/v1/tickets/t?paid=1",
      cancel_url: "https://events.example/v1/tickets/t",
      expires_at: nowSeconds() + 45 * 60,
      ...overrides,
    }) satisfies Stripe.Checkout.SessionCreateParams;

  test("Checkout Sessions: made open at a Stripe URL, retrieved, expired once; expires_at within 30 minutes to 24 hours", async () => {
    const params = sessionParams();
    const session = await stripe.checkout.sessions.create(params, { idempotencyKey: "checkout-1" });
    assert.match(session.id, /^cs_test_[0-9A-Za-z]{58}$/);
    assert.deepEqual(
      [
        session.object,
        session.status,
        session.payment_status,
        session.mode,
        session.amount_total,
        session.currency,
        session.client_reference_id,
        session.metadata,
        session.payment_intent,
        session.expires_at,
        session.success_url,
        session.url,
      ],
      [
        "checkout.session",
        "open",
        "unpaid",
        "payment",
        4500,
        "eur",
        "attendee_1",
        { attendeeId: "attendee_1", accountId: "account_1" },
        null,
        params.expires_at,
        params.success_url,
        `https://checkout.stripe.com/c/pay/${session.id}`,
      ],
    );
    // The same key and parameters: the same session.
    assert.equal((await stripe.checkout.sessions.create(params, { idempotencyKey: "checkout-1" })).id, session.id);
    assert.equal((await stripe.checkout.sessions.retrieve(session.id)).status, "open");

    const expired = await stripe.checkout.sessions.expire(session.id);
    assert.deepEqual([expired.status, expired.url], ["expired", null]);
    const again = await stripeError(stripe.checkout.sessions.expire(session.id));
    assert.deepEqual([again.statusCode, again.rawType], [400, "invalid_request_error"]);
    assert.match(again.message, /status of "expired"/);
    assert.throws(() => standIn.completeSession(session.id), /is expired: it can no longer be paid/);

    const early = await stripeError(
      stripe.checkout.sessions.create(sessionParams({ expires_at: nowSeconds() + 29 * 60 })),
    );
    const late = await stripeError(
      stripe.checkout.sessions.create(sessionParams({ expires_at: nowSeconds() + 25 * 3600 })),
    );
    const unknown = await stripeError(
      stripe.checkout.sessions.create({
        ...sessionParams(),
        shipping_rate: "shr_1",
      } as Stripe.Checkout.SessionCreateParams),
    );
    const missing = await stripeError(stripe.checkout.sessions.create({ mode: "payment" }));
    assert.deepEqual(
      [early, late, unknown, missing].map((error) => [error.statusCode, error.param, error.code]),
      [
        [400, "expires_at", undefined],
        [400, "expires_at", undefined],
        [400, "shipping_rate", "parameter_unknown"],
        [400, "line_items", undefined],
      ],
    );
    const lost = await stripeError(stripe.checkout.sessions.retrieve("cs_test_none"));
    assert.deepEqual([lost.statusCode, lost.code], [404, "resource_missing"]);
  });

  test("completeSession() makes the session's PaymentIntent, succeeded with its payment_intent_data, and returns both events, with a connected account's", async () => {
    const organizer = "acct_1StandInCheckout";
    standIn.addAccount(organizer);
    const session = await stripe.checkout.sessions.create(sessionParams(), { stripeAccount: organizer });
    assert.equal((await stripeError(stripe.checkout.sessions.retrieve(session.id))).statusCode, 404);
    assert.throws(
      () => standIn.completeSession(session.id),
      /no Checkout Session cs_test_\w+ under the platform account/,
    );

    const { completed, succeeded } = standIn.completeSession(session.id, { account: organizer });
    const intent = succeeded.data.object;
    assert.deepEqual(
      [completed.type, completed.account, completed.data.object.status, completed.data.object.payment_status],
      ["checkout.session.completed", organizer, "complete", "paid"],
    );
    assert.equal(completed.data.object.payment_intent, intent.id);
    assert.deepEqual(
      [succeeded.type, succeeded.account, intent.status, intent.amount, intent.amount_received, intent.currency],
      ["payment_intent.succeeded", organizer, "succeeded", 4500, 4500, "eur"],
    );
    assert.deepEqual(
      [intent.metadata, intent.description],
      [{ attendeeId: "attendee_1", accountId: "account_1" }, "Standard ticket"],
    );
    const seen = await stripe.paymentIntents.retrieve(intent.id, {}, { stripeAccount: organizer });
    assert.equal(seen.status, "succeeded");
    const refund = await stripe.refunds.create({ payment_intent: intent.id }, { stripeAccount: organizer });
    assert.equal(refund.amount, 4500);
    const notOpen = await stripeError(stripe.checkout.sessions.expire(session.id, {}, { stripeAccount: organizer }));
    assert.match(notOpen.message, /status of "complete"/);
    const header = stripe.webhooks.generateTestHeaderString({
      payload: JSON.stringify(completed),
      secret: WEBHOOK_SECRET,
    });
    const verified = await stripe.webhooks.constructEventAsync(JSON.stringify(completed), header, WEBHOOK_SECRET);
    assert.equal(verified.id, completed.id);
  });
});

/** Runs `body` against a stand-in of its own, closed after. */
async function withStandIn(body: (standIn: StripeStandIn) => Promise<void>) {
  const standIn = await startStripeStandIn();
  try {
    await body(standIn);
  } finally {
    await standIn.close();
  }
}

describe("the SDK's retries, and another process", { concurrency: true }, () => {
  test("maxNetworkRetries: 1 retries a dropped connection once, with the same Idempotency-Key: one PaymentIntent", () =>
    withStandIn(async (standIn) => {
      standIn.failNext(1, "drop");
      const intent = await sdk(standIn, { maxNetworkRetries: 1 }).paymentIntents.create({
        amount: 2000,
        currency: "usd",
      });
      const [dropped, retried] = standIn.requests;
      assert.equal(standIn.requests.length, 2);
      assert.deepEqual(
        [dropped!.status, dropped!.fault, retried!.status, retried!.replayed],
        ["dropped", "drop", 200, false],
      );
      assert.match(dropped!.idempotencyKey!, /^stripe-node-retry-/);
      assert.equal(retried!.idempotencyKey, dropped!.idempotencyKey);
      assert.equal(retried!.body, dropped!.body);
      assert.deepEqual([...standIn.paymentIntents.keys()], [intent.id]);
    }));

  test("an answer lost after the PaymentIntent was made is replayed on the retry: still one PaymentIntent", () =>
    withStandIn(async (standIn) => {
      standIn.failNext(1, "drop-after");
      const intent = await sdk(standIn, { maxNetworkRetries: 1 }).paymentIntents.create({
        amount: 2100,
        currency: "usd",
      });
      const [lost, retried] = standIn.requests;
      assert.deepEqual(
        [lost!.status, lost!.fault, retried!.status, retried!.replayed],
        ["dropped", "drop-after", 200, true],
      );
      assert.equal(retried!.idempotencyKey, lost!.idempotencyKey);
      assert.equal(intent.lastResponse.headers["idempotent-replayed"], "true");
      assert.deepEqual([...standIn.paymentIntents.keys()], [intent.id]);
    }));

  test("a 500 is a StripeAPIError with maxNetworkRetries: 0, and retried once with maxNetworkRetries: 1", () =>
    withStandIn(async (standIn) => {
      standIn.failNext(1, "error");
      const error = await stripeError(sdk(standIn).paymentIntents.create({ amount: 2200, currency: "usd" }));
      assert.deepEqual([error.constructor.name, error.statusCode, error.rawType], ["StripeAPIError", 500, "api_error"]);
      assert.equal(standIn.requests.length, 1);
      assert.equal(standIn.paymentIntents.size, 0);

      standIn.failNext(1, "error");
      const intent = await sdk(standIn, { maxNetworkRetries: 1 }).paymentIntents.create({
        amount: 2200,
        currency: "usd",
      });
      assert.deepEqual(
        standIn.requests.slice(1).map((request) => request.status),
        [500, 200],
      );
      assert.equal(standIn.requests[2]!.idempotencyKey, standIn.requests[1]!.idempotencyKey);
      assert.deepEqual([...standIn.paymentIntents.keys()], [intent.id]);
    }));

  test("even with maxNetworkRetries: 0 the SDK retries a closed connection once, then gives up", () =>
    withStandIn(async (standIn) => {
      standIn.failNext(2, "drop");
      const error = await stripeError(sdk(standIn).paymentIntents.create({ amount: 2300, currency: "usd" }));
      assert.equal(error.constructor.name, "StripeConnectionError");
      assert.equal(standIn.requests.length, 2);
      assert.equal(standIn.requests[1]!.idempotencyKey, standIn.requests[0]!.idempotencyKey);
      assert.equal(standIn.paymentIntents.size, 0);
    }));

  /** Runs a script with the SDK in a new Node process (resolving `stripe` from the repository), pointed at STRIPE_API_URL. */
  const runChild = (env: Record<string, string>) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const script = `
        import Stripe from "stripe";
        const api = new URL(process.env.STRIPE_API_URL);
        const stripe = new Stripe(process.env.STRIPE_SECRET_KEY, {
          host: api.hostname, port: api.port, protocol: api.protocol.replace(":", ""), maxNetworkRetries: 0, telemetry: false,
        });
        const intent = await stripe.paymentIntents.create({ amount: 1234, currency: "usd", metadata: { from: "child" } });
        process.stdout.write(JSON.stringify({ id: intent.id, status: intent.status }));
      `;
      const child = spawn(process.execPath, ["--input-type=module", "--eval", script], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? "", STRIPE_SECRET_KEY: KEY, ...env },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk) => (stdout += chunk));
      child.stderr.on("data", (chunk) => (stderr += chunk));
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      child.on("error", reject);
      child.on("close", (code) => (clearTimeout(timer), resolve({ code, stdout, stderr })));
    });

  test("a Node process given STRIPE_API_URL and NODE_EXTRA_CA_CERTS reaches it; without the CA it cannot", () =>
    withStandIn(async (standIn) => {
      const [trusted, untrusted] = await Promise.all([
        runChild({ STRIPE_API_URL: standIn.url, NODE_EXTRA_CA_CERTS: standIn.caFile }),
        runChild({ STRIPE_API_URL: standIn.url }),
      ]);
      assert.equal(trusted.code, 0, trusted.stderr);
      const made = JSON.parse(trusted.stdout);
      assert.equal(made.status, "requires_payment_method");
      assert.deepEqual(standIn.paymentIntents.get(made.id)?.intent.metadata, { from: "child" });
      assert.notEqual(untrusted.code, 0);
      assert.match(untrusted.stderr, /self[- ]signed certificate/i);
      assert.equal(standIn.paymentIntents.size, 1, "the untrusting process sent nothing the stand-in acted on");
    }));
});
