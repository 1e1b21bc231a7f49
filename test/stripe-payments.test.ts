/**
 * End-to-end: payments through Stripe (issue 25; docs/api.md,
 * "Payments") with the real server processes talking to a local HTTPS stand-in of the Stripe API
 * through Stripe's official SDK (`STRIPE_API_URL`), and Stripe's notifications signed with the
 * SDK's own test-header helper: a priced registration is pending with its PaymentIntent's client
 * secret, made once with an idempotency key of its own; the signed `payment_intent.succeeded`
 * confirms it exactly once, sent twice to two processes; a forged or stale signature is `400
 * INVALID_SIGNATURE` and changes nothing; a declined card fails it until a success pays it; a
 * cancellation refunds at Stripe; an unpaid hold expires, frees the place, promotes the next in
 * line into a hold of its own, cancels its PaymentIntent, and a success that still arrives is
 * refunded; an event cancelled by its organiser refunds its Stripe payments at Stripe once (an
 * answer lost on the way back included) and cancels its open holds' PaymentIntents; Connect's
 * account settings; 50 buyers for 10 priced places; no Stripe secret in any answer or log line.
 */
import assert from "node:assert/strict";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import https from "node:https";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import Stripe from "stripe";
import { type ApiResponse, startServer, type TestServer } from "./_setup.ts";
import { type Client, clientFor, createEvent, expectError, expectStatus, moveEvent, register } from "./fixtures/api.ts";
import { attendeeInput } from "./fixtures/builders.ts";
import { makeCertificate } from "./fixtures/conventions.ts";
import { deliveryEnv, type Receiver, startReceiver } from "./fixtures/receiver.ts";
import { startStripeStandIn, type StripeStandIn } from "./fixtures/stripe-stand-in.ts";

const SECRET_KEY = "sk_test_eventServiceStandIn4242";
const PLATFORM_SECRET = "whsec_platformEndpointSecret";
const CONNECT_SECRET = "whsec_connectEndpointSecret";
/** The SDK's signing helper (no request is made with it). */
const signer = new Stripe(SECRET_KEY);

let tls: ReturnType<typeof makeCertificate>;
let receiver: Receiver;
let standIn: StripeStandIn;
let a: TestServer;
let b: TestServer;
let acme: Client;
let path: string;

const TYPES = [
  { name: "General", price: { amount: 0, currency: "EUR" } },
  { name: "VIP", price: { amount: 12_000, currency: "EUR" } },
  { name: "Limited", price: { amount: 2_500, currency: "EUR" }, capacity: 10 },
];

/** The env of a server paying through the stand-in (its CA and the receiver's trusted together). */
function stripeEnv(extra: Record<string, string> = {}): Record<string, string> {
  const bundle = join(tls.dir, "trusted.pem");
  writeFileSync(bundle, `${tls.cert}\n${standIn.ca}`);
  return deliveryEnv(bundle, {
    WEBHOOK_TIMEOUT_MS: "15000",
    STRIPE_SECRET_KEY: SECRET_KEY,
    STRIPE_WEBHOOK_SECRET: `${PLATFORM_SECRET}, ${CONNECT_SECRET}`,
    STRIPE_API_URL: standIn.url,
    PAYMENT_WORKER_INTERVAL_MS: "100",
    ...extra,
  });
}

before(async () => {
  tls = makeCertificate();
  [receiver, standIn] = await Promise.all([
    startReceiver({ cert: tls.cert, key: readFileSync(tls.keyPath, "utf8") }),
    startStripeStandIn({ secretKey: SECRET_KEY }),
  ]);
  a = await startServer({ env: stripeEnv() });
  b = await startServer({ database: a.database, env: stripeEnv() });
  acme = clientFor(a, (await a.createKey({ account: `Stripe Acme ${Date.now()}`, tier: "enterprise" })).key);
  path = `/stripe-notify/${Date.now()}`;
  expectStatus(
    await acme.post("/webhooks", {
      url: `${receiver.origin}${path}`,
      events: ["payment.succeeded", "payment.failed", "payment.expired", "payment.refunded", "attendee.promoted"],
    }),
    201,
  );
});

after(async () => {
  const outputs = [a.output(), b.output()];
  await Promise.all([a.stop("SIGTERM"), b.stop("SIGTERM")]);
  for (const output of outputs) {
    assert.doesNotMatch(output, /"msg":"unexpected error"/);
    // No Stripe secret in any log line.
    for (const secret of [SECRET_KEY, PLATFORM_SECRET, CONNECT_SECRET, "_secret_"])
      assert.ok(!output.includes(secret), secret);
  }
  await Promise.all([receiver.close(), standIn.close()]);
  rmSync(tls.dir, { recursive: true, force: true });
});

async function pricedEvent(client: Client, overrides: Record<string, unknown> = {}) {
  const event = await createEvent(client, { ticketTypes: TYPES, ...overrides });
  await moveEvent(client, event.id, "published");
  return event;
}

/**
 * Sends Stripe's event to `server` signed with `secret` (`secondsAgo` back; negative: ahead), as
 * Stripe would; `raw` is signed and the event sent instead (altered on the way); `text` is signed
 * and sent as it is (whatever it holds).
 */
function deliver(
  server: TestServer,
  event: unknown,
  options: { secret?: string; secondsAgo?: number; raw?: string; text?: string } = {},
) {
  const payload = options.text ?? options.raw ?? JSON.stringify(event, null, 2);
  const header = signer.webhooks.generateTestHeaderString({
    payload,
    secret: options.secret ?? PLATFORM_SECRET,
    timestamp: Math.floor(Date.now() / 1000) - (options.secondsAgo ?? 0),
  });
  return fetch(`${server.url}/v1/payments/stripe/webhook`, {
    method: "POST",
    headers: { "content-type": "application/json", "stripe-signature": header },
    body: options.raw === undefined ? payload : JSON.stringify(event, null, 2),
  });
}

/** A webhook answer as the API fixtures read one (the body parsed). */
async function answerOf(response: Response): Promise<ApiResponse> {
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
}

/** `event` with its PaymentIntent changed by `changes`. */
function withIntent<T extends { data: { object: object } }>(event: T, changes: Record<string, unknown>): T {
  return { ...event, data: { ...event.data, object: { ...event.data.object, ...changes } } };
}

/** Notifications of `type` about `attendeeId` received so far (each envelope once). */
function notified(type: string, attendeeId: string) {
  const envelopes = new Map(receiver.at(path).map((request) => [request.body.id, request.body]));
  return [...envelopes.values()].filter((e) => e.type === type && e.data.attendee.id === attendeeId);
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("payments through Stripe", () => {
  test("a priced registration is pending with its PaymentIntent's client secret, made once with the registration's idempotency key", async () => {
    const event = await pricedEvent(acme);
    const buyer = await register(acme, event.id, { ticketType: "VIP" });
    const intent = standIn.paymentIntents.get(buyer.payment.paymentIntentId)!.intent;
    assert.equal(buyer.status, "pending");
    assert.deepEqual(
      { ...buyer.payment, expiresAt: undefined },
      {
        status: "requires_payment",
        amount: 12_000,
        currency: "EUR",
        amountPaid: 0,
        amountRefunded: 0,
        provider: "stripe",
        expiresAt: undefined,
        paymentIntentId: intent.id,
        clientSecret: intent.client_secret,
      },
    );
    assert.equal(Date.parse(buyer.payment.expiresAt) - Date.parse(buyer.registrationDate), 30 * 60_000);
    assert.deepEqual([intent.amount, intent.currency, intent.metadata.attendeeId], [12_000, "eur", buyer.id]);
    // The request and a payment worker may both make it: one key, so Stripe makes one PaymentIntent.
    const made = standIn.requests.filter(
      (r) => r.path === "/v1/payment_intents" && (r.params.metadata as Record<string, string>)?.attendeeId === buyer.id,
    );
    assert.ok(made.length >= 1);
    assert.deepEqual(new Set(made.map((r) => r.idempotencyKey)), new Set([`event-service-payment-${buyer.id}`]));
    const intents = [...standIn.paymentIntents.values()].filter((p) => p.intent.metadata.attendeeId === buyer.id);
    assert.equal(intents.length, 1);
    // The buyer's GET shows the secret; a list never does.
    assert.equal(
      expectStatus(await acme.get(`/attendees/${buyer.id}`), 200).payment.clientSecret,
      intent.client_secret,
    );
    const listed = expectStatus(await acme.get(`/attendees?eventId=${event.id}`), 200).attendees;
    assert.equal(listed[0].payment.clientSecret, undefined);
    const settings = expectStatus(await acme.get("/payment-settings"), 200);
    assert.deepEqual(settings, { provider: "stripe", stripeAccountId: null, holdMinutes: 30, updatedAt: null });
  });

  test("the signed payment_intent.succeeded confirms it once, sent twice to two processes, and notifies once", async () => {
    const event = await pricedEvent(acme);
    const buyer = await register(acme, event.id, { ticketType: "VIP" });
    const succeeded = standIn.succeed(buyer.payment.paymentIntentId);
    const answers = await Promise.all([
      deliver(a, succeeded),
      deliver(b, succeeded),
      deliver(a, succeeded),
      deliver(b, succeeded),
    ]);
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [200, 200, 200, 200],
    );
    assert.deepEqual(await answers[0]!.json(), { received: true });
    const paid = expectStatus(await acme.get(`/attendees/${buyer.id}`), 200);
    assert.deepEqual(
      [paid.status, paid.payment.status, paid.payment.amountPaid, paid.payment.clientSecret],
      ["confirmed", "paid", 12_000, undefined],
    );
    await receiver.waitFor(() => notified("payment.succeeded", buyer.id).length >= 1, "payment.succeeded");
    // Another delivery would have arrived by now with the same ledger: the money is in once.
    const analytics = expectStatus(await acme.get(`/analytics/events/${event.id}`), 200);
    assert.deepEqual(analytics.financial.revenue, [
      { currency: "EUR", gross: 12_000, refunded: 0, net: 12_000, outstanding: 0 },
    ]);
    assert.equal(notified("payment.succeeded", buyer.id).length, 1);
  });

  test("a forged or stale signature is 400 INVALID_SIGNATURE and changes nothing", async () => {
    const event = await pricedEvent(acme);
    const buyer = await register(acme, event.id, { ticketType: "VIP" });
    const succeeded = standIn.succeed(buyer.payment.paymentIntentId);
    const refused = async (response: Response) => {
      assert.equal(response.status, 400);
      assert.equal((await response.json()).error.code, "INVALID_SIGNATURE");
    };
    await refused(await deliver(a, succeeded, { secret: "whsec_someoneElse" }));
    await refused(await deliver(a, succeeded, { secondsAgo: 301 }));
    // Signed an hour ahead: a signature from the future is as suspect as a stale one.
    await refused(await deliver(a, succeeded, { secondsAgo: -3600 }));
    // Signed, then altered on the way.
    await refused(await deliver(a, { ...succeeded, id: "evt_forged" }, { raw: JSON.stringify(succeeded, null, 2) }));
    const unsigned = await fetch(`${a.url}/v1/payments/stripe/webhook`, {
      method: "POST",
      body: JSON.stringify(succeeded),
    });
    await refused(unsigned);
    const still = expectStatus(await acme.get(`/attendees/${buyer.id}`), 200);
    assert.deepEqual(
      [still.status, still.payment.status, still.payment.amountPaid],
      ["pending", "requires_payment", 0],
    );
    // The genuine one still works afterwards (its id was never recorded), also signed with the Connect endpoint's secret.
    assert.equal((await deliver(b, succeeded, { secret: CONNECT_SECRET, secondsAgo: 299 })).status, 200);
    assert.equal(expectStatus(await acme.get(`/attendees/${buyer.id}`), 200).status, "confirmed");
  });

  test("a verified notification that is not a well-formed event is 400 INVALID_REQUEST with the error body, and is not recorded", async () => {
    const event = await pricedEvent(acme);
    const buyer = await register(acme, event.id, { ticketType: "VIP" });
    const succeeded = standIn.succeed(buyer.payment.paymentIntentId);
    const { id, type, data } = succeeded;
    const malformed: Array<[string, string | null]> = [
      ["{}", "id"],
      ["[]", null],
      ["null", null],
      ['"x"', null],
      ["42", null],
      ["x", null],
      [JSON.stringify({ type, data }), "id"],
      [JSON.stringify({ id, data }), "type"],
      [JSON.stringify({ id: 42, type, data }), "id"],
      [JSON.stringify({ id, type }), "data"],
      [JSON.stringify({ id, type, data: { object: null } }), "data.object"],
      [JSON.stringify({ id, type, data: { object: [] } }), "data.object"],
      [JSON.stringify({ id, type, data: { object: { id: data.object.id } } }), "data.object.amount"],
      [JSON.stringify({ id, type: "payment_intent.payment_failed", data: { object: "pi_x" } }), "data.object"],
      // A type the service does not handle still needs an object.
      [JSON.stringify({ id, type: "customer.created", data: { object: null } }), "data.object"],
      [
        JSON.stringify({ id, type, data: { object: { ...data.object, metadata: { attendeeId: 7 } } } }),
        "data.object.metadata.attendeeId",
      ],
    ];
    for (const [text, field] of malformed) {
      const answer = await answerOf(await deliver(a, null, { text }));
      const error = expectError(answer, 400, "INVALID_REQUEST", field);
      assert.doesNotMatch(
        JSON.stringify(answer.body),
        /stripe_events|Cannot read|\bat \S+:\d+|TypeError|SyntaxError/,
        text,
      );
      assert.equal(typeof error.message, "string");
    }
    const still = expectStatus(await acme.get(`/attendees/${buyer.id}`), 200);
    assert.deepEqual(
      [still.status, still.payment.status, still.payment.amountPaid],
      ["pending", "requires_payment", 0],
    );
    // A well-formed event of a type the service does not handle is taken as before.
    const other = {
      id: `evt_other${Date.now()}`,
      object: "event",
      type: "customer.created",
      data: { object: { id: "cus_1" } },
    };
    assert.equal((await deliver(b, other)).status, 200);
    // The refused ones were never recorded under their id: the genuine event with that id still confirms.
    assert.equal((await deliver(b, succeeded)).status, 200);
    const paid = expectStatus(await acme.get(`/attendees/${buyer.id}`), 200);
    assert.deepEqual([paid.status, paid.payment.status, paid.payment.amountPaid], ["confirmed", "paid", 12_000]);
  });

  test("a success in another currency, or of an amount that is not an integer within 99,999,999, is 400 and changes nothing; the correct one still confirms", async () => {
    const event = await pricedEvent(acme);
    const buyer = await register(acme, event.id, { ticketType: "VIP" });
    const before = expectStatus(await acme.get(`/analytics/events/${event.id}`), 200).financial;
    const succeeded = standIn.succeed(buyer.payment.paymentIntentId);
    const refusals: Array<[Record<string, unknown>, string]> = [
      [{ currency: "jpy" }, "data.object.currency"],
      [{ currency: "JPY" }, "data.object.currency"],
      [{ amount_received: 1e20 }, "data.object.amount_received"],
      [{ amount_received: 12_000.5 }, "data.object.amount_received"],
      [{ amount_received: 100_000_000 }, "data.object.amount_received"],
      [{ amount_received: -1 }, "data.object.amount_received"],
      [{ amount_received: "12000" }, "data.object.amount_received"],
      [{ amount: 1e20 }, "data.object.amount"],
    ];
    for (const [changes, field] of refusals) {
      const answer = await answerOf(await deliver(a, withIntent(succeeded, changes)));
      expectError(answer, 400, "INVALID_REQUEST", field);
    }
    // A failure goes through the same checks.
    const failed = withIntent(succeeded, { currency: "jpy", status: "requires_payment_method" });
    expectError(
      await answerOf(
        await deliver(b, { ...failed, id: `${succeeded.id}_failed`, type: "payment_intent.payment_failed" }),
      ),
      400,
      "INVALID_REQUEST",
      "data.object.currency",
    );
    const still = expectStatus(await acme.get(`/attendees/${buyer.id}`), 200);
    assert.deepEqual(
      [still.status, still.payment.status, still.payment.amountPaid, still.payment.currency],
      ["pending", "requires_payment", 0, "EUR"],
    );
    assert.deepEqual(expectStatus(await acme.get(`/analytics/events/${event.id}`), 200).financial, before);
    // The correct event, under the same id (as Stripe resends it), pays it in full: currencies compare whatever their case.
    assert.equal((await deliver(b, withIntent(succeeded, { currency: "EUR" }))).status, 200);
    const paid = expectStatus(await acme.get(`/attendees/${buyer.id}`), 200);
    assert.deepEqual([paid.status, paid.payment.status, paid.payment.amountPaid], ["confirmed", "paid", 12_000]);
    assert.deepEqual(expectStatus(await acme.get(`/analytics/events/${event.id}`), 200).financial.revenue, [
      { currency: "EUR", gross: 12_000, refunded: 0, net: 12_000, outstanding: 0 },
    ]);
  });

  test("a declined card fails the payment and notifies it; a later success pays it", async () => {
    const event = await pricedEvent(acme);
    const buyer = await register(acme, event.id, { ticketType: "VIP" });
    assert.equal((await deliver(a, standIn.fail(buyer.payment.paymentIntentId))).status, 200);
    const failed = expectStatus(await acme.get(`/attendees/${buyer.id}`), 200);
    assert.deepEqual([failed.status, failed.payment.status], ["pending", "failed"]);
    // Still payable: the buyer retries with the same secret.
    assert.equal(failed.payment.clientSecret, buyer.payment.clientSecret);
    await receiver.waitFor(() => notified("payment.failed", buyer.id).length === 1, "payment.failed");
    assert.equal((await deliver(b, standIn.succeed(buyer.payment.paymentIntentId))).status, 200);
    assert.equal(expectStatus(await acme.get(`/attendees/${buyer.id}`), 200).payment.status, "paid");
  });

  test("cancelling a paid registration refunds it at Stripe, once, through the payment worker", async () => {
    const event = await pricedEvent(acme);
    const buyer = await register(acme, event.id, { ticketType: "VIP" });
    await deliver(a, standIn.succeed(buyer.payment.paymentIntentId));
    const cancelled = expectStatus(await acme.put(`/attendees/${buyer.id}`, { status: "cancelled" }), 200);
    assert.deepEqual([cancelled.payment.status, cancelled.payment.amountRefunded], ["refunded", 12_000]);
    const refunds = await until(
      async () =>
        [...standIn.refunds.values()].filter((r) => r.refund.payment_intent === buyer.payment.paymentIntentId),
      (found) => found.length > 0,
      "the refund at Stripe",
    );
    // Both processes' workers saw it; the entry's idempotency key made it one refund.
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(
      [...standIn.refunds.values()].filter((r) => r.refund.payment_intent === buyer.payment.paymentIntentId).length,
      1,
    );
    assert.equal(refunds[0]!.refund.amount, 12_000);
    await receiver.waitFor(() => notified("payment.refunded", buyer.id).length === 1, "payment.refunded");

    // Erased, a paid registration is refunded too, although its row is gone before Stripe is called.
    const erased = await register(acme, event.id, { ticketType: "VIP" });
    await deliver(b, standIn.succeed(erased.payment.paymentIntentId));
    expectStatus(await acme.delete(`/attendees/${erased.id}`), 200);
    const refund = await until(
      async () =>
        [...standIn.refunds.values()].filter((r) => r.refund.payment_intent === erased.payment.paymentIntentId),
      (found) => found.length === 1,
      "the erased registration's refund at Stripe",
    );
    assert.equal(refund[0]!.refund.amount, 12_000);
  });

  test("cancelled or erased unpaid, a registration's PaymentIntent is cancelled at Stripe", async () => {
    const event = await pricedEvent(acme);
    const [cancelled, erased] = [
      await register(acme, event.id, { ticketType: "VIP" }),
      await register(acme, event.id, { ticketType: "VIP" }),
    ];
    expectStatus(await acme.put(`/attendees/${cancelled.id}`, { status: "cancelled" }), 200);
    expectStatus(await acme.delete(`/attendees/${erased.id}`), 200);
    for (const attendee of [cancelled, erased])
      assert.equal(standIn.paymentIntents.get(attendee.payment.paymentIntentId)!.intent.status, "canceled");
  });

  test("an event cancelled by its organiser refunds its Stripe payments in full at Stripe once, even with the answer lost; its open holds' PaymentIntents are cancelled", async () => {
    const event = await pricedEvent(acme, { capacity: 1, waitlistEnabled: true, refundPolicy: "none" });
    const buyer = await register(acme, event.id, { ticketType: "VIP" });
    await deliver(a, standIn.succeed(buyer.payment.paymentIntentId));
    const waiting = await register(acme, event.id, { ticketType: "VIP" });
    assert.deepEqual([buyer.status, waiting.status], ["pending", "waitlisted"]);
    const toStripe = (intent: string) =>
      standIn.requests.filter((r) => r.path === "/v1/refunds" && r.params.payment_intent === intent);
    // The refund runs at Stripe but its answer is lost: it is asked again with the same key, and made once.
    standIn.failNext(1, "drop-after");
    expectStatus(await acme.put(`/events/${event.id}`, { status: "cancelled" }), 200);
    const cancelled = expectStatus(await acme.get(`/attendees/${buyer.id}`), 200);
    assert.deepEqual(
      [cancelled.status, cancelled.payment.status, cancelled.payment.amountRefunded],
      ["cancelled", "refunded", 12_000],
    );
    assert.equal(expectStatus(await acme.get(`/attendees/${waiting.id}`), 200).status, "cancelled");
    await until(
      async () => toStripe(buyer.payment.paymentIntentId).filter((r) => r.status === 200 && r.replayed),
      (found) => found.length > 0,
      "the refund asked again after its answer was lost",
    );
    assert.equal(toStripe(buyer.payment.paymentIntentId)[0]!.fault, "drop-after");
    await new Promise((resolve) => setTimeout(resolve, 300));
    const refunds = [...standIn.refunds.values()].filter(
      (r) => r.refund.payment_intent === buyer.payment.paymentIntentId,
    );
    assert.deepEqual(
      refunds.map((r) => r.refund.amount),
      [12_000],
    );
    await receiver.waitFor(() => notified("payment.refunded", buyer.id).length === 1, "payment.refunded");
    assert.deepEqual(notified("attendee.promoted", waiting.id), []);

    // An unpaid hold: cancelled with the event, its PaymentIntent cancelled at Stripe, nothing refunded.
    const other = await pricedEvent(acme);
    const hold = await register(acme, other.id, { ticketType: "VIP" });
    expectStatus(await acme.put(`/events/${other.id}`, { status: "cancelled" }), 200);
    assert.equal(expectStatus(await acme.get(`/attendees/${hold.id}`), 200).status, "cancelled");
    assert.equal(standIn.paymentIntents.get(hold.payment.paymentIntentId)!.intent.status, "canceled");
    assert.deepEqual(toStripe(hold.payment.paymentIntentId), []);
  });

  test("a refund Stripe refuses fails its ledger entry and gives the amount back to what is refundable", async () => {
    const event = await pricedEvent(acme);
    const buyer = await register(acme, event.id, { ticketType: "VIP" });
    await deliver(a, standIn.succeed(buyer.payment.paymentIntentId));
    // Refunded in Stripe's dashboard meanwhile: the service's own refund is refused (charge_already_refunded).
    const dashboard = new Stripe(SECRET_KEY, {
      host: standIn.host,
      port: standIn.port,
      protocol: "https",
      httpAgent: new https.Agent({ ca: standIn.ca }),
      maxNetworkRetries: 0,
    });
    await dashboard.refunds.create({ payment_intent: buyer.payment.paymentIntentId });
    const refunded = expectStatus(await acme.post(`/attendees/${buyer.id}/refunds`, { amount: 2_000 }), 200);
    assert.equal(refunded.payment.amountRefunded, 2_000);
    const reverted = await until(
      async () => expectStatus(await acme.get(`/attendees/${buyer.id}`), 200).payment,
      (payment) => payment.amountRefunded === 0,
      "the refused refund to be given back",
    );
    assert.equal(reverted.status, "paid");
    const analytics = expectStatus(await acme.get(`/analytics/events/${event.id}`), 200);
    assert.deepEqual(analytics.financial.revenue[0], {
      currency: "EUR",
      gross: 12_000,
      refunded: 0,
      net: 12_000,
      outstanding: 0,
    });
  });

  test("Connect: the account links its own Stripe account, and its PaymentIntents are made there", async () => {
    const connected = clientFor(a, (await a.createKey({ account: `Stripe Connect ${Date.now()}` })).key);
    expectError(
      await connected.put("/payment-settings", { stripeAccountId: "acct_unknown000000" }),
      400,
      "INVALID_REQUEST",
      "stripeAccountId",
    );
    expectError(
      await connected.put("/payment-settings", { stripeAccountId: "bank_123" }),
      400,
      "INVALID_REQUEST",
      "stripeAccountId",
    );
    standIn.addAccount("acct_1EventServiceTest");
    const linked = expectStatus(
      await connected.put("/payment-settings", { stripeAccountId: "acct_1EventServiceTest" }),
      200,
    );
    assert.equal(linked.stripeAccountId, "acct_1EventServiceTest");
    const event = await pricedEvent(connected);
    const buyer = await register(connected, event.id, { ticketType: "VIP" });
    const stored = standIn.paymentIntents.get(buyer.payment.paymentIntentId)!;
    assert.equal(stored.account, "acct_1EventServiceTest");
    const succeeded = standIn.succeed(buyer.payment.paymentIntentId, { account: "acct_1EventServiceTest" });
    assert.equal((await deliver(b, succeeded, { secret: CONNECT_SECRET })).status, 200);
    assert.equal(expectStatus(await connected.get(`/attendees/${buyer.id}`), 200).status, "confirmed");
  });

  test("50 buyers at once for 10 priced places: exactly 10 holds, each with its own PaymentIntent", async () => {
    const event = await pricedEvent(acme);
    const before = standIn.paymentIntents.size;
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        (i % 2 ? acme : clientFor(b, acme.key)).post("/attendees", attendeeInput(event.id, { ticketType: "Limited" })),
      ),
    );
    const made = answers.filter((answer) => answer.status === 201).map((answer) => answer.body);
    assert.equal(made.length, 10);
    for (const answer of answers.filter((x) => x.status !== 201)) {
      assert.equal(expectError(answer, 400, "EVENT_FULL").details?.ticketType, "Limited");
    }
    assert.equal(new Set(made.map((m) => m.payment.paymentIntentId)).size, 10);
    assert.ok(made.every((m) => typeof m.payment.clientSecret === "string"));
    assert.equal(standIn.paymentIntents.size - before, 10);
  });
});

describe("a hold that runs out", () => {
  let short: TestServer;
  let client: Client;
  before(async () => {
    // Holds of 2.4 s, looked at every 100 ms; three requests without a valid key or signature a minute per address.
    short = await startServer({ env: stripeEnv({ PAYMENT_HOLD_MINUTES: "0.04", AUTH_FAILURE_LIMIT_PER_MINUTE: "3" }) });
    client = clientFor(short, (await short.createKey({ account: `Stripe Holds ${Date.now()}` })).key);
  });
  after(async () => {
    const output = short.output();
    await short.stop("SIGTERM");
    assert.doesNotMatch(output, /"msg":"unexpected error"/);
  });

  test("expires unpaid: cancelled (payment_expired), the place freed and the next in line promoted into a hold of its own; a late success is refunded", async () => {
    const hookPath = `/holds/${Date.now()}`;
    expectStatus(
      await client.post("/webhooks", {
        url: `${receiver.origin}${hookPath}`,
        events: ["attendee.cancelled", "attendee.promoted", "payment.expired", "payment.refunded"],
      }),
      201,
    );
    // The second must register while the first's hold lasts: on a loaded machine the two
    // registrations can outlast it (the second then takes the freed place), and the event is set up again.
    let first: Awaited<ReturnType<typeof register>>;
    let waiting: Awaited<ReturnType<typeof register>>;
    for (let attempt = 1; attempt <= 3; attempt++) {
      const event = await pricedEvent(client, { capacity: 1, waitlistEnabled: true });
      first = await register(client, event.id, { ticketType: "VIP" });
      waiting = await register(client, event.id, { ticketType: "VIP" });
      // Waitlisted, or not while the hold still lasted: a failure the assertion below names.
      if (waiting.status === "waitlisted" || Date.now() < Date.parse(first.payment.expiresAt)) break;
    }
    assert.ok(first && waiting);
    assert.deepEqual([first.status, waiting.status, waiting.payment], ["pending", "waitlisted", null]);

    const expired = await until(
      async () => expectStatus(await client.get(`/attendees/${first.id}`), 200),
      (attendee) => attendee.status === "cancelled",
      "the hold to run out",
    );
    assert.equal(expired.payment.status, "expired");
    const promoted = await until(
      async () => expectStatus(await client.get(`/attendees/${waiting.id}`), 200),
      (attendee) => attendee.status === "pending" && attendee.payment?.clientSecret !== undefined,
      "the promotion's PaymentIntent",
    );
    assert.equal(promoted.payment.provider, "stripe");
    assert.notEqual(promoted.payment.paymentIntentId, first.payment.paymentIntentId);
    // The expired one's PaymentIntent is cancelled at Stripe.
    await until(
      async () => standIn.paymentIntents.get(first.payment.paymentIntentId)!.intent.status,
      (status) => status === "canceled",
      "the PaymentIntent's cancellation",
    );
    const at = (type: string, id: string) =>
      [...new Map(receiver.at(hookPath).map((r) => [r.body.id, r.body])).values()].filter(
        (e) => e.type === type && e.data.attendee.id === id,
      );
    await receiver.waitFor(
      () => at("attendee.cancelled", first.id).length === 1 && at("attendee.promoted", waiting.id).length === 1,
      "attendee.cancelled and attendee.promoted",
    );
    assert.equal(at("attendee.cancelled", first.id)[0].data.reason, "payment_expired");
    assert.equal(
      at("attendee.promoted", waiting.id)[0].data.attendee.payment.clientSecret,
      promoted.payment.clientSecret,
    );
    await receiver.waitFor(() => at("payment.expired", first.id).length === 1, "payment.expired");

    // A success that still arrives for the expired hold is refunded at once; the registration stays cancelled.
    const late = standIn.paymentIntents.get(first.payment.paymentIntentId)!;
    (late.intent as { status: string }).status = "requires_payment_method";
    assert.equal((await deliver(short, standIn.succeed(first.payment.paymentIntentId))).status, 200);
    const refunded = expectStatus(await client.get(`/attendees/${first.id}`), 200);
    assert.deepEqual(
      [refunded.status, refunded.payment.status, refunded.payment.amountPaid, refunded.payment.amountRefunded],
      ["cancelled", "refunded", 12_000, 12_000],
    );
    await until(
      async () =>
        [...standIn.refunds.values()].filter((r) => r.refund.payment_intent === first.payment.paymentIntentId).length,
      (count) => count === 1,
      "the late payment's refund at Stripe",
    );
  });

  // Last: it spends this address's allowance for the minute, and Stripe's notifications come from it too.
  test("a notification that does not verify spends its address's allowance of bad credentials; one that verifies does not", async () => {
    const event = standIn.succeed(
      (await register(client, (await pricedEvent(client)).id, { ticketType: "VIP" })).payment.paymentIntentId,
    );
    // Verified ones, however many, cost nothing: well-formed or not.
    for (let i = 0; i < 4; i++) assert.equal((await deliver(short, event)).status, 200);
    for (let i = 0; i < 4; i++) assert.equal((await deliver(short, null, { text: "{}" })).status, 400);
    const forged = () => deliver(short, event, { secret: "whsec_forged" });
    assert.deepEqual([(await forged()).status, (await forged()).status, (await forged()).status], [400, 400, 400]);
    const limited = await forged();
    assert.equal(limited.status, 429);
    assert.equal((await limited.json()).error.code, "RATE_LIMIT_EXCEEDED");
  });
});
