/**
 * End-to-end: paying through Stripe Checkout (docs/api.md, "Paying through Stripe Checkout").
 * The real server processes take Stripe's notifications and run the payment worker; the Checkout
 * Session is made by the service's `stripe.checkout()` (what the ticket page's "Pay" calls),
 * built in this process over the servers' database with Stripe's official SDK pointed at the local
 * stand-in: the session asks for what is still owed, on the registration's account, and is
 * reused until the amount changes; `checkout.session.completed` pays once, its PaymentIntent's own
 * `payment_intent.succeeded` adds nothing, sent at once to two processes; a registration paid
 * through its PaymentIntent and a Checkout Session keeps the first payment and refunds the second
 * at once; a hold that runs out expires the open session at Stripe, and a completion that arrives
 * after it is refunded; a registration that takes no payment is refused with its reason.
 */
import assert from "node:assert/strict";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import https from "node:https";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Database as Schema, EventService } from "@event-service/core";
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import Stripe from "stripe";
import { isPostgres, queryDatabase, startServer, type TestServer } from "./_setup.ts";
import { type Client, clientFor, createEvent, expectStatus, moveEvent, register } from "./fixtures/api.ts";
import { makeCertificate } from "./fixtures/conventions.ts";
import { deliveryEnv, type Receiver, startReceiver } from "./fixtures/receiver.ts";
import { startStripeStandIn, type StripeStandIn } from "./fixtures/stripe-stand-in.ts";

const SECRET_KEY = "sk_test_eventServiceCheckout4242";
const PLATFORM_SECRET = "whsec_checkoutPlatformSecret";
const CONNECT_SECRET = "whsec_checkoutConnectSecret";
const signer = new Stripe(SECRET_KEY);
const URLS = {
  successUrl: "https://tickets.example/v1/tickets/tok?paid=1",
  cancelUrl: "https://tickets.example/v1/tickets/tok",
};

let tls: ReturnType<typeof makeCertificate>;
let receiver: Receiver;
let standIn: StripeStandIn;
let a: TestServer;
let b: TestServer;
let short: TestServer;
let acme: Client;
let acmeId: string;
let path: string;
let service: EventService;
let closeService: () => Promise<void>;

const TYPES = [
  { name: "General", price: { amount: 0, currency: "EUR" } },
  { name: "VIP", price: { amount: 12_000, currency: "EUR" } },
];

function stripeEnv(extra: Record<string, string> = {}): Record<string, string> {
  const bundle = join(tls.dir, "trusted.pem");
  writeFileSync(bundle, `${tls.cert}\n${standIn.ca}`);
  return deliveryEnv(bundle, {
    WEBHOOK_TIMEOUT_MS: "15000",
    STRIPE_SECRET_KEY: SECRET_KEY,
    STRIPE_WEBHOOK_SECRET: `${PLATFORM_SECRET},${CONNECT_SECRET}`,
    STRIPE_API_URL: standIn.url,
    PAYMENT_WORKER_INTERVAL_MS: "100",
    ...extra,
  });
}

/** The service over the servers' database, in this process, paying through the stand-in (no payment worker of its own). */
async function inProcessService(database: string): Promise<{ service: EventService; close(): Promise<void> }> {
  const { createEventService, createSqlStorage } = await import("@event-service/core");
  let db: Kysely<Schema>;
  if (isPostgres(database)) {
    const pool = new (await import("pg")).default.Pool({ connectionString: database, max: 2 });
    pool.on("error", () => {});
    db = new Kysely<Schema>({ dialect: new PostgresDialect({ pool }) });
  } else {
    const sqlite = new (await import("better-sqlite3")).default(database, { fileMustExist: true });
    sqlite.pragma("busy_timeout = 5000");
    db = new Kysely<Schema>({ dialect: new SqliteDialect({ database: sqlite }) });
  }
  const storage = createSqlStorage({ db });
  const stripe = new Stripe(SECRET_KEY, {
    host: standIn.host,
    port: standIn.port,
    protocol: "https",
    httpAgent: new https.Agent({ ca: standIn.ca }),
    telemetry: false,
  });
  const made = createEventService({ storage, payments: { stripe, webhookSecrets: [PLATFORM_SECRET] } });
  return { service: made, close: () => storage.close() };
}

before(async () => {
  tls = makeCertificate();
  [receiver, standIn] = await Promise.all([
    startReceiver({ cert: tls.cert, key: readFileSync(tls.keyPath, "utf8") }),
    startStripeStandIn({ secretKey: SECRET_KEY }),
  ]);
  a = await startServer({ env: stripeEnv() });
  b = await startServer({ database: a.database, env: stripeEnv() });
  // Holds of 15 s on the same database: long enough to make a session, short enough to wait for.
  short = await startServer({ database: a.database, env: stripeEnv({ PAYMENT_HOLD_MINUTES: "0.25" }) });
  const key = await a.createKey({ account: `Checkout Acme ${Date.now()}`, tier: "enterprise" });
  acme = clientFor(a, key.key);
  acmeId = key.accountId;
  ({ service, close: closeService } = await inProcessService(a.database));
  path = `/checkout-notify/${Date.now()}`;
  expectStatus(
    await acme.post("/webhooks", {
      url: `${receiver.origin}${path}`,
      events: ["payment.succeeded", "payment.refunded", "payment.expired"],
    }),
    201,
  );
});

after(async () => {
  await closeService();
  const outputs = [a.output(), b.output(), short.output()];
  await Promise.all([a.stop("SIGTERM"), b.stop("SIGTERM"), short.stop("SIGTERM")]);
  for (const output of outputs) {
    assert.doesNotMatch(output, /"msg":"unexpected error"/);
    for (const secret of [SECRET_KEY, PLATFORM_SECRET, CONNECT_SECRET]) assert.ok(!output.includes(secret), secret);
  }
  await Promise.all([receiver.close(), standIn.close()]);
  rmSync(tls.dir, { recursive: true, force: true });
});

async function pricedEvent(client: Client) {
  const event = await createEvent(client, { ticketTypes: TYPES });
  await moveEvent(client, event.id, "published");
  return event;
}

/** Sends Stripe's event to `server`, signed as Stripe signs it. */
function deliver(server: TestServer, event: unknown, secret = PLATFORM_SECRET) {
  const payload = JSON.stringify(event, null, 2);
  const header = signer.webhooks.generateTestHeaderString({ payload, secret });
  return fetch(`${server.url}/v1/payments/stripe/webhook`, {
    method: "POST",
    headers: { "content-type": "application/json", "stripe-signature": header },
    body: payload,
  });
}

/** Notifications of `type` about `attendeeId` received so far (each envelope once). */
function notified(type: string, attendeeId: string) {
  const envelopes = new Map(receiver.at(path).map((request) => [request.body.id, request.body]));
  return [...envelopes.values()].filter((e) => e.type === type && e.data.attendee.id === attendeeId);
}

async function until<T>(read: () => Promise<T> | T, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The id of the Checkout Session behind a checkout URL. */
const sessionOf = (url: string) => {
  const id = url.split("/").at(-1)!;
  assert.ok(standIn.checkoutSessions.has(id), url);
  return standIn.checkoutSessions.get(id)!;
};

const sessionRequests = (attendeeId: string) =>
  standIn.requests.filter(
    (request) =>
      request.method === "POST" &&
      request.path === "/v1/checkout/sessions" &&
      request.params.client_reference_id === attendeeId,
  );

const refundsOn = (intentId: string) =>
  [...standIn.refunds.values()].filter((stored) => stored.refund.payment_intent === intentId);

/** Rejects with a ServiceError of `code` whose details.reason is `reason`. */
async function refused(promise: Promise<unknown>, code: string, reason?: string) {
  await assert.rejects(promise, (error: { code?: string; details?: { reason?: string } }) => {
    assert.equal(error.code, code);
    assert.equal(error.details?.reason, reason);
    return true;
  });
}

describe("paying through Stripe Checkout", () => {
  test("the session asks for what is owed, the ticket type's line item, ending with the hold; asked twice at once, one session", async () => {
    const event = await pricedEvent(acme);
    const buyer = await register(acme, event.id, { ticketType: "VIP" });
    const started = Math.floor(Date.now() / 1000);
    const ref = { accountId: acmeId, attendeeId: buyer.id };
    const [first, second] = await Promise.all([
      service.stripe!.checkout(ref, URLS),
      service.stripe!.checkout(ref, URLS),
    ]);
    assert.equal(first.url, second.url);
    const stored = sessionOf(first.url);
    const { session } = stored;
    assert.equal(first.url, `https://checkout.stripe.com/c/pay/${session.id}`);
    assert.deepEqual(
      [
        session.status,
        session.mode,
        session.amount_total,
        session.currency,
        session.client_reference_id,
        stored.account,
      ],
      ["open", "payment", 12_000, "eur", buyer.id, null],
    );
    const sent = sessionRequests(buyer.id);
    assert.ok(sent.length >= 1);
    assert.equal(new Set(sent.map((request) => request.idempotencyKey)).size, 1);
    assert.match(sent[0]!.idempotencyKey!, new RegExp(`^event-service-checkout-${buyer.id}-[0-9a-f]{24}$`));
    const metadata = { attendeeId: buyer.id, eventId: event.id, accountId: acmeId };
    assert.deepEqual(sent[0]!.params, {
      mode: "payment",
      line_items: {
        "0": { price_data: { currency: "eur", unit_amount: "12000", product_data: { name: "VIP" } }, quantity: "1" },
      },
      client_reference_id: buyer.id,
      metadata,
      payment_intent_data: { metadata, description: "VIP ticket" },
      success_url: URLS.successUrl,
      cancel_url: URLS.cancelUrl,
      expires_at: String(session.expires_at),
    });
    // The hold ends in 30 minutes, sooner than Stripe's shortest session: 30 minutes and a little.
    assert.ok(
      session.expires_at >= started + 30 * 60 && session.expires_at <= started + 33 * 60,
      `${session.expires_at}`,
    );
    // Asked again: the open session, nothing new made.
    assert.equal((await service.stripe!.checkout(ref, URLS)).url, first.url);
    assert.equal(sessionRequests(buyer.id).length, sent.length);
    // The API never shows the session.
    assert.equal(expectStatus(await acme.get(`/attendees/${buyer.id}`), 200).payment.checkoutSessionId, undefined);
  });

  test("checkout.session.completed pays once, with its PaymentIntent's own success, sent at once to two processes; the registration's own PaymentIntent is cancelled", async () => {
    const event = await pricedEvent(acme);
    const buyer = await register(acme, event.id, { ticketType: "VIP" });
    const { url } = await service.stripe!.checkout({ accountId: acmeId, attendeeId: buyer.id }, URLS);
    const { completed, succeeded } = standIn.completeSession(sessionOf(url).session.id);
    const intentId = succeeded.data.object.id;
    assert.equal(succeeded.data.object.metadata.attendeeId, buyer.id);
    const answers = await Promise.all([
      deliver(a, completed),
      deliver(b, succeeded),
      deliver(b, completed),
      deliver(a, succeeded),
    ]);
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [200, 200, 200, 200],
    );
    const paid = expectStatus(await acme.get(`/attendees/${buyer.id}`), 200);
    assert.deepEqual(
      [
        paid.status,
        paid.payment.status,
        paid.payment.amountPaid,
        paid.payment.amountRefunded,
        paid.payment.paymentIntentId,
      ],
      ["confirmed", "paid", 12_000, 0, intentId],
    );
    const analytics = expectStatus(await acme.get(`/analytics/events/${event.id}`), 200);
    assert.deepEqual(analytics.financial.revenue, [
      { currency: "EUR", gross: 12_000, refunded: 0, net: 12_000, outstanding: 0 },
    ]);
    await receiver.waitFor(() => notified("payment.succeeded", buyer.id).length >= 1, "payment.succeeded");
    // The PaymentIntent the registration was made with can no longer take money.
    await until(
      () => standIn.paymentIntents.get(buyer.payment.paymentIntentId)!.intent.status,
      (status) => status === "canceled",
      "the registration's own PaymentIntent cancelled",
    );
    assert.deepEqual(refundsOn(intentId), []);
    assert.equal(notified("payment.succeeded", buyer.id).length, 1);
    assert.equal(notified("payment.refunded", buyer.id).length, 0);
    // Paid: no session any more.
    await refused(
      service.stripe!.checkout({ accountId: acmeId, attendeeId: buyer.id }, URLS),
      "INVALID_STATE_TRANSITION",
      "not_payable",
    );
  });

  test("paid through its PaymentIntent and through a Checkout Session: the first payment stands, the second is refunded at once", async () => {
    const event = await pricedEvent(acme);
    const buyer = await register(acme, event.id, { ticketType: "VIP" });
    const { url } = await service.stripe!.checkout({ accountId: acmeId, attendeeId: buyer.id }, URLS);
    // The buyer pays in the organiser's frontend and on Stripe's page before either notification arrives.
    const { completed } = standIn.completeSession(sessionOf(url).session.id);
    const viaIntent = standIn.succeed(buyer.payment.paymentIntentId);
    assert.equal((await deliver(a, viaIntent)).status, 200);
    assert.equal((await deliver(b, completed)).status, 200);
    const sessionIntent = completed.data.object.payment_intent as string;
    const attendee = expectStatus(await acme.get(`/attendees/${buyer.id}`), 200);
    assert.deepEqual(
      [
        attendee.status,
        attendee.payment.status,
        attendee.payment.amountPaid,
        attendee.payment.amountRefunded,
        attendee.payment.paymentIntentId,
      ],
      ["confirmed", "paid", 24_000, 12_000, buyer.payment.paymentIntentId],
    );
    const refunds = await until(
      () => refundsOn(sessionIntent),
      (made) => made.length === 1,
      "the second payment's refund at Stripe",
    );
    assert.equal(refunds[0]!.refund.amount, 12_000);
    assert.deepEqual(refundsOn(buyer.payment.paymentIntentId), []);
    await receiver.waitFor(() => notified("payment.refunded", buyer.id).length === 1, "payment.refunded");
    assert.equal(notified("payment.refunded", buyer.id)[0].data.payment.amountRefunded, 12_000);
    assert.equal(notified("payment.succeeded", buyer.id).length, 1);
  });

  test("an amount that changed (part paid by hand): the old session is expired and a new one asks for the rest", async () => {
    const event = await pricedEvent(acme);
    const buyer = await register(acme, event.id, { ticketType: "VIP" });
    const ref = { accountId: acmeId, attendeeId: buyer.id };
    const first = await service.stripe!.checkout(ref, URLS);
    expectStatus(await acme.post(`/attendees/${buyer.id}/payments`, { amount: 2_000, method: "cash" }), 200);
    const second = await service.stripe!.checkout(ref, URLS);
    assert.notEqual(second.url, first.url);
    assert.equal(sessionOf(first.url).session.status, "expired");
    assert.deepEqual(
      [sessionOf(second.url).session.status, sessionOf(second.url).session.amount_total],
      ["open", 10_000],
    );
    const { completed } = standIn.completeSession(sessionOf(second.url).session.id);
    assert.equal((await deliver(a, completed)).status, 200);
    const paid = expectStatus(await acme.get(`/attendees/${buyer.id}`), 200);
    assert.deepEqual([paid.status, paid.payment.status, paid.payment.amountPaid], ["confirmed", "paid", 12_000]);
  });

  test("a payment still on its way: completed unpaid changes nothing, async_payment_failed fails it, async_payment_succeeded pays; expired changes nothing", async () => {
    const event = await pricedEvent(acme);
    const buyer = await register(acme, event.id, { ticketType: "VIP" });
    const { url } = await service.stripe!.checkout({ accountId: acmeId, attendeeId: buyer.id }, URLS);
    const { completed } = standIn.completeSession(sessionOf(url).session.id);
    // What Stripe sends for a bank debit: completed while the money is on its way, then its outcome.
    const as = (type: string, paymentStatus: string) => ({
      ...completed,
      id: `${completed.id}_${type.split(".").at(-1)}`,
      type,
      data: { object: { ...completed.data.object, payment_status: paymentStatus } },
    });
    const read = async () => expectStatus(await acme.get(`/attendees/${buyer.id}`), 200);
    assert.equal((await deliver(a, as("checkout.session.completed", "unpaid"))).status, 200);
    assert.equal((await deliver(a, as("checkout.session.expired", "unpaid"))).status, 200);
    assert.deepEqual(
      [(await read()).status, (await read()).payment.status, (await read()).payment.amountPaid],
      ["pending", "requires_payment", 0],
    );
    assert.equal((await deliver(b, as("checkout.session.async_payment_failed", "unpaid"))).status, 200);
    assert.deepEqual([(await read()).status, (await read()).payment.status], ["pending", "failed"]);
    assert.equal((await deliver(a, as("checkout.session.async_payment_succeeded", "paid"))).status, 200);
    const paid = await read();
    assert.deepEqual([paid.status, paid.payment.status, paid.payment.amountPaid], ["confirmed", "paid", 12_000]);
  });

  test("a recorded session Stripe no longer shows (404) is replaced by a new one", async () => {
    const event = await pricedEvent(acme);
    const buyer = await register(acme, event.id, { ticketType: "VIP" });
    await queryDatabase(a.database, "update attendees set payment_checkout_session_id = ? where id = ?", [
      "cs_test_gone",
      buyer.id,
    ]);
    const { url } = await service.stripe!.checkout({ accountId: acmeId, attendeeId: buyer.id }, URLS);
    assert.deepEqual([sessionOf(url).session.status, sessionOf(url).session.amount_total], ["open", 12_000]);
    const stored = await queryDatabase<{ session: string }>(
      a.database,
      "select payment_checkout_session_id as session from attendees where id = ?",
      [buyer.id],
    );
    assert.deepEqual(stored, [{ session: sessionOf(url).session.id }]);
  });

  test("a registration that takes no payment through Stripe now is 422 with its reason; an unknown one 404", async () => {
    const event = await pricedEvent(acme);
    const free = await register(acme, event.id, { ticketType: "General" });
    const checkout = (attendeeId: string) => service.stripe!.checkout({ accountId: acmeId, attendeeId }, URLS);
    await refused(checkout(free.id), "INVALID_STATE_TRANSITION", "not_priced");
    const gone = await register(acme, event.id, { ticketType: "VIP" });
    expectStatus(await acme.put(`/attendees/${gone.id}`, { status: "cancelled" }), 200);
    await refused(checkout(gone.id), "INVALID_STATE_TRANSITION", "not_payable");
    await refused(checkout("attendee_unknown"), "NOT_FOUND");
    // Another account's registration is not this account's.
    const other = await register(acme, event.id, { ticketType: "VIP" });
    await refused(service.stripe!.checkout({ accountId: "account_other", attendeeId: other.id }, URLS), "NOT_FOUND");
    assert.deepEqual(
      [free.id, gone.id, other.id].flatMap((id) => sessionRequests(id)),
      [],
    );
  });

  test("a session event that is not well formed is 400 INVALID_REQUEST and changes nothing; a corrected resend pays", async () => {
    const event = await pricedEvent(acme);
    const buyer = await register(acme, event.id, { ticketType: "VIP" });
    const { url } = await service.stripe!.checkout({ accountId: acmeId, attendeeId: buyer.id }, URLS);
    const { completed } = standIn.completeSession(sessionOf(url).session.id);
    const object = completed.data.object as unknown as Record<string, unknown>;
    for (const [change, field] of [
      [{ amount_total: "12000" }, "data.object.amount_total"],
      [{ payment_intent: null }, "data.object.payment_intent"],
      [{ currency: "usd" }, "data.object.currency"],
      [{ payment_status: 7 }, "data.object.payment_status"],
    ] as const) {
      const answer = await deliver(a, { ...completed, data: { object: { ...object, ...change } } });
      const body = await answer.json();
      assert.deepEqual([answer.status, body.error.code, body.error.field], [400, "INVALID_REQUEST", field]);
    }
    assert.equal(expectStatus(await acme.get(`/attendees/${buyer.id}`), 200).payment.amountPaid, 0);
    assert.equal((await deliver(a, completed)).status, 200);
    assert.equal(expectStatus(await acme.get(`/attendees/${buyer.id}`), 200).status, "confirmed");
  });

  test("Connect: the session is made on the account's connected account, and its completion pays", async () => {
    const key = await a.createKey({ account: `Checkout Connect ${Date.now()}` });
    const connected = clientFor(a, key.key);
    standIn.addAccount("acct_1CheckoutConnect");
    expectStatus(await connected.put("/payment-settings", { stripeAccountId: "acct_1CheckoutConnect" }), 200);
    const event = await pricedEvent(connected);
    const buyer = await register(connected, event.id, { ticketType: "VIP" });
    const { url } = await service.stripe!.checkout({ accountId: key.accountId, attendeeId: buyer.id }, URLS);
    const stored = sessionOf(url);
    assert.equal(stored.account, "acct_1CheckoutConnect");
    assert.deepEqual(
      sessionRequests(buyer.id).map((request) => request.account),
      ["acct_1CheckoutConnect"],
    );
    const { completed } = standIn.completeSession(stored.session.id, { account: "acct_1CheckoutConnect" });
    assert.equal((await deliver(b, completed, CONNECT_SECRET)).status, 200);
    const paid = expectStatus(await connected.get(`/attendees/${buyer.id}`), 200);
    assert.deepEqual([paid.status, paid.payment.amountPaid], ["confirmed", 12_000]);
  });
});

describe("a hold that runs out with a Checkout Session", () => {
  test("the open session is expired at Stripe; a completion that arrives after the hold is refunded at once and the registration stays cancelled", async () => {
    const key = await short.createKey({ account: `Checkout Holds ${Date.now()}` });
    const client = clientFor(short, key.key);
    const account = key.accountId;
    const event = await pricedEvent(client);
    const open = await register(client, event.id, { ticketType: "VIP" });
    const late = await register(client, event.id, { ticketType: "VIP" });
    const openUrl = (await service.stripe!.checkout({ accountId: account, attendeeId: open.id }, URLS)).url;
    const lateUrl = (await service.stripe!.checkout({ accountId: account, attendeeId: late.id }, URLS)).url;
    // Paid on Stripe's page in time, but its notification only arrives after the hold ran out.
    const { completed } = standIn.completeSession(sessionOf(lateUrl).session.id);

    for (const id of [open.id, late.id]) {
      const expired = await until(
        async () => expectStatus(await client.get(`/attendees/${id}`), 200),
        (attendee) => attendee.status === "cancelled",
        "the hold to run out",
      );
      assert.equal(expired.payment.status, "expired");
    }
    await until(
      () => sessionOf(openUrl).session.status,
      (status) => status === "expired",
      "the open session expired at Stripe",
    );
    await refused(
      service.stripe!.checkout({ accountId: account, attendeeId: open.id }, URLS),
      "INVALID_STATE_TRANSITION",
      "not_payable",
    );

    assert.equal((await deliver(short, completed)).status, 200);
    const refunded = expectStatus(await client.get(`/attendees/${late.id}`), 200);
    assert.deepEqual(
      [refunded.status, refunded.payment.status, refunded.payment.amountPaid, refunded.payment.amountRefunded],
      ["cancelled", "refunded", 12_000, 12_000],
    );
    await until(
      () => refundsOn(completed.data.object.payment_intent as string),
      (made) => made.length === 1 && made[0]!.refund.amount === 12_000,
      "the late payment's refund at Stripe",
    );
  });
});
