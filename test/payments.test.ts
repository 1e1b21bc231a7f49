/**
 * End-to-end: payments recorded by hand (issue 25; docs/api.md,
 * "Payments") through the real server without Stripe configured: a priced registration is
 * `pending` with its payment; confirming it unpaid is `422 payment_required`; money recorded by
 * hand pays it (partly, then in full: `confirmed`), overpaying is `400`; refunds by hand never
 * exceed what was paid, even ten at once; a cancellation refunds by the event's policy, an
 * event's cancellation everything paid, whatever the policy; the
 * `payment.*` notifications are delivered signed; the financial analytics and the export match
 * the payments; scopes, validation and another account.
 */
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { parse } from "csv-parse/sync";
import { createClient, EventServiceError } from "@event-service/client";
import { verifyWebhook } from "@event-service/core/webhooks";
import { errorOf, startServer, type TestServer } from "./_setup.ts";
import { type Client, clientFor, createEvent, expectError, expectStatus, moveEvent, register } from "./fixtures/api.ts";
import { attendeeInput } from "./fixtures/builders.ts";
import { makeCertificate } from "./fixtures/conventions.ts";
import { deliveryEnv, type Received, type Receiver, startReceiver } from "./fixtures/receiver.ts";

let tls: ReturnType<typeof makeCertificate>;
let receiver: Receiver;
let server: TestServer;
let acme: Client;
let globex: Client;
/** Acme's key without payments:write. */
let clerk: Client;

const TYPES = [
  { name: "General", price: { amount: 0, currency: "EUR" } },
  { name: "Standard", price: { amount: 4_500, currency: "EUR" }, capacity: 50 },
  { name: "VIP", price: { amount: 12_000, currency: "EUR" } },
];

before(async () => {
  tls = makeCertificate();
  receiver = await startReceiver({ cert: tls.cert, key: readFileSync(tls.keyPath, "utf8") });
  server = await startServer({ env: deliveryEnv(tls.certPath, { WEBHOOK_TIMEOUT_MS: "15000" }) });
  const key = await server.createKey({ account: `Payments Acme ${Date.now()}`, tier: "enterprise" });
  acme = clientFor(server, key.key);
  clerk = clientFor(
    server,
    (
      await server.createKey({
        account: key.accountId,
        tier: "enterprise",
        scopes: ["events:read", "attendees:write", "payments:read"],
      })
    ).key,
  );
  globex = clientFor(server, (await server.createKey({ account: `Payments Globex ${Date.now()}` })).key);
});

after(async () => {
  const output = server.output();
  assert.equal(await server.stop("SIGTERM"), 0);
  assert.doesNotMatch(output, /"msg":"unexpected error"/);
  await receiver.close();
  rmSync(tls.dir, { recursive: true, force: true });
});

async function pricedEvent(overrides: Record<string, unknown> = {}) {
  const event = await createEvent(acme, { ticketTypes: TYPES, ...overrides });
  await moveEvent(acme, event.id, "published");
  return event;
}

const UNPAID = {
  status: "requires_payment",
  currency: "EUR",
  amountPaid: 0,
  amountRefunded: 0,
  provider: "manual",
  expiresAt: null,
  paymentIntentId: null,
};

describe("payments recorded by hand", () => {
  test("a priced registration is pending with its payment; paid in full by hand it is confirmed", async () => {
    const event = await pricedEvent();
    const free = await register(acme, event.id, { ticketType: "general" });
    assert.deepEqual([free.status, free.payment], ["confirmed", null]);
    const buyer = await register(acme, event.id, { ticketType: "standard" });
    assert.deepEqual(
      [buyer.status, buyer.ticketType, buyer.payment],
      ["pending", "Standard", { ...UNPAID, amount: 4_500 }],
    );
    assert.deepEqual(expectStatus(await acme.get(`/attendees/${buyer.id}`), 200).payment, { ...UNPAID, amount: 4_500 });

    const refused = expectError(
      await acme.put(`/attendees/${buyer.id}`, { status: "confirmed" }),
      422,
      "INVALID_STATE_TRANSITION",
    );
    assert.deepEqual(refused.details, { reason: "payment_required", outstanding: 4_500, currency: "EUR" });
    expectError(
      await acme.post(`/events/${event.id}/check-in`, { confirmationCode: buyer.confirmationCode }),
      422,
      "INVALID_STATE_TRANSITION",
    );
    const over = expectError(
      await acme.post(`/attendees/${buyer.id}/payments`, { amount: 4_501, method: "cash" }),
      400,
      "INVALID_REQUEST",
      "amount",
    );
    assert.deepEqual(over.details, { outstanding: 4_500, currency: "EUR" });

    const part = expectStatus(
      await acme.post(`/attendees/${buyer.id}/payments`, {
        amount: 1_500,
        method: "bank_transfer",
        reference: "INV-1042",
      }),
      200,
    );
    assert.deepEqual(
      [part.status, part.payment.status, part.payment.amountPaid],
      ["pending", "requires_payment", 1_500],
    );
    const paid = expectStatus(
      await acme.post(`/attendees/${buyer.id}/payments`, { amount: 3_000, method: "cash" }),
      200,
    );
    assert.deepEqual([paid.status, paid.payment.status, paid.payment.amountPaid], ["confirmed", "paid", 4_500]);
    expectError(
      await acme.post(`/attendees/${buyer.id}/payments`, { amount: 1, method: "cash" }),
      422,
      "INVALID_STATE_TRANSITION",
    );
    // Paid, it checks in; a free registration takes no payment.
    expectStatus(await acme.post(`/events/${event.id}/check-in`, { confirmationCode: buyer.confirmationCode }), 200);
    const notPriced = expectError(
      await acme.post(`/attendees/${free.id}/payments`, { amount: 100, method: "cash" }),
      422,
      "INVALID_STATE_TRANSITION",
    );
    assert.equal(notPriced.details?.reason, "not_priced");
  });

  test("bad bodies are 400 naming the field; the scope is payments:write; another account finds nothing", async () => {
    const event = await pricedEvent();
    const buyer = await register(acme, event.id, { ticketType: "VIP" });
    const path = `/attendees/${buyer.id}/payments`;
    expectError(await acme.post(path, { amount: 0, method: "cash" }), 400, "INVALID_REQUEST", "amount");
    expectError(await acme.post(path, { amount: 99.5, method: "cash" }), 400, "INVALID_REQUEST", "amount");
    expectError(await acme.post(path, { amount: 100, method: "iou" }), 400, "INVALID_REQUEST", "method");
    expectError(await acme.post(path, { amount: 100, method: "cash", card: "4242" }), 400, "INVALID_REQUEST");
    expectError(await acme.post(`/attendees/${buyer.id}/refunds`, { amount: 1 }), 400, "INVALID_REQUEST", "amount");
    expectError(await clerk.post(path, { amount: 100, method: "cash" }), 403, "FORBIDDEN");
    expectError(await clerk.post(`/attendees/${buyer.id}/refunds`, {}), 403, "FORBIDDEN");
    expectError(await globex.post(path, { amount: 100, method: "cash" }), 404, "NOT_FOUND");
    expectError(await globex.post(`/attendees/${buyer.id}/refunds`, {}), 404, "NOT_FOUND");
    // Nothing of it was recorded.
    assert.deepEqual(expectStatus(await acme.get(`/attendees/${buyer.id}`), 200).payment, {
      ...UNPAID,
      amount: 12_000,
    });
  });

  test("refunds never exceed what was paid, even ten at once; a cancellation refunds the rest under `full`, nothing under `none`", async () => {
    const event = await pricedEvent();
    const buyer = await register(acme, event.id, { ticketType: "VIP" });
    expectStatus(await acme.post(`/attendees/${buyer.id}/payments`, { amount: 12_000, method: "card_terminal" }), 200);
    const first = expectStatus(
      await acme.post(`/attendees/${buyer.id}/refunds`, { amount: 2_000, reason: "No lunch" }),
      200,
    );
    assert.deepEqual(
      [first.status, first.payment.status, first.payment.amountRefunded],
      ["confirmed", "partially_refunded", 2_000],
    );
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => acme.post(`/attendees/${buyer.id}/refunds`, { amount: 3_000 })),
    );
    assert.equal(answers.filter((answer) => answer.status === 200).length, 3);
    for (const answer of answers.filter((a) => a.status !== 200)) {
      const error = expectError(answer, 400, "INVALID_REQUEST", "amount");
      assert.equal(error.details?.currency, "EUR");
    }
    const left = expectStatus(await acme.get(`/attendees/${buyer.id}`), 200);
    assert.equal(left.payment.amountRefunded, 11_000);
    const cancelled = expectStatus(await acme.put(`/attendees/${buyer.id}`, { status: "cancelled" }), 200);
    assert.deepEqual([cancelled.payment.status, cancelled.payment.amountRefunded], ["refunded", 12_000]);

    const strict = await pricedEvent({ refundPolicy: "none" });
    const kept = await register(acme, strict.id, { ticketType: "VIP" });
    expectStatus(await acme.post(`/attendees/${kept.id}/payments`, { amount: 12_000, method: "cash" }), 200);
    const keptCancelled = expectStatus(await acme.put(`/attendees/${kept.id}`, { status: "cancelled" }), 200);
    assert.deepEqual([keptCancelled.payment.status, keptCancelled.payment.amountRefunded], ["paid", 0]);
    // By hand, the organiser may still refund it.
    const goodwill = expectStatus(await acme.post(`/attendees/${kept.id}/refunds`), 200);
    assert.deepEqual([goodwill.payment.status, goodwill.payment.amountRefunded], ["refunded", 12_000]);
  });

  test("an event cancelled by its organiser cancels every registration and refunds each paid one in full under `none`; one notification each, nobody promoted", async () => {
    const webhook = expectStatus(
      await acme.post("/webhooks", {
        url: `${receiver.origin}/called-off/${Date.now()}`,
        events: ["attendee.cancelled", "attendee.promoted", "payment.refunded", "event.cancelled"],
      }),
      201,
    );
    const event = await pricedEvent({ capacity: 3, waitlistEnabled: true, refundPolicy: "none" });
    const pay = async (id: string, amount: number) =>
      expectStatus(await acme.post(`/attendees/${id}/payments`, { amount, method: "bank_transfer" }), 200);
    const vip = await register(acme, event.id, { ticketType: "VIP" });
    await pay(vip.id, 12_000);
    const standard = await register(acme, event.id, { ticketType: "Standard" });
    await pay(standard.id, 4_500);
    const unpaid = await register(acme, event.id, { ticketType: "VIP" });
    const waiting = [
      await register(acme, event.id, { ticketType: "General" }),
      await register(acme, event.id, { ticketType: "VIP" }),
    ];
    assert.deepEqual([unpaid.status, ...waiting.map((a) => a.status)], ["pending", "waitlisted", "waitlisted"]);

    const cancelled = expectStatus(await acme.put(`/events/${event.id}`, { status: "cancelled" }), 200);
    assert.deepEqual([cancelled.status, cancelled.attendeeCount], ["cancelled", 0]);
    const { attendees } = expectStatus(await acme.get(`/attendees?eventId=${event.id}&limit=100`), 200);
    const byId = new Map(attendees.map((a: any) => [a.id, a]));
    const state = (id: string) => {
      const a: any = byId.get(id);
      return [a.status, a.waitlistPosition, a.payment?.status ?? null, a.payment?.amountRefunded ?? null];
    };
    assert.deepEqual(state(vip.id), ["cancelled", null, "refunded", 12_000]);
    assert.deepEqual(state(standard.id), ["cancelled", null, "refunded", 4_500]);
    assert.deepEqual(state(unpaid.id), ["cancelled", null, "requires_payment", 0]);
    for (const a of waiting) assert.deepEqual(state(a.id), ["cancelled", null, null, null]);

    const analytics = expectStatus(await acme.get(`/analytics/events/${event.id}`), 200);
    assert.deepEqual(
      [analytics.attendance.active, analytics.attendance.cancelled, analytics.attendance.waitlisted],
      [0, 5, 0],
    );
    assert.deepEqual(analytics.financial.revenue, [
      { currency: "EUR", gross: 16_500, refunded: 16_500, net: 0, outstanding: 0 },
    ]);

    const { deliveries } = expectStatus(await acme.get(`/webhooks/${webhook.id}/deliveries?limit=100`), 200);
    const of = (type: string) => deliveries.filter((d: any) => d.type === type).map((d: any) => d.payload.data);
    assert.deepEqual(
      of("attendee.cancelled")
        .map((data: any) => [data.attendee.id, data.previousStatus, data.reason])
        .sort(),
      [
        [vip.id, "confirmed", "event_cancelled"],
        [standard.id, "confirmed", "event_cancelled"],
        [unpaid.id, "pending", "event_cancelled"],
        [waiting[0]!.id, "waitlisted", "event_cancelled"],
        [waiting[1]!.id, "waitlisted", "event_cancelled"],
      ].sort(),
    );
    assert.deepEqual(
      of("payment.refunded")
        .map((data: any) => [data.attendee.id, data.refund.amount, data.payment.status])
        .sort(),
      [
        [vip.id, 12_000, "refunded"],
        [standard.id, 4_500, "refunded"],
      ].sort(),
    );
    assert.equal(of("event.cancelled").length, 1);
    assert.deepEqual(of("attendee.promoted"), []);
    // Off, it takes nobody in.
    expectError(
      await acme.post("/attendees", attendeeInput(event.id, { ticketType: "General" })),
      400,
      "INVALID_REQUEST",
      "eventId",
    );
  });

  test("the financial analytics and the export match the payments made by hand", async () => {
    const event = await pricedEvent();
    const [a, b, c] = [
      await register(acme, event.id, { ticketType: "Standard" }),
      await register(acme, event.id, { ticketType: "Standard" }),
      await register(acme, event.id, { ticketType: "VIP" }),
    ];
    await register(acme, event.id, { ticketType: "General" });
    const pay = async (id: string, amount: number) =>
      expectStatus(await acme.post(`/attendees/${id}/payments`, { amount, method: "cash" }), 200);
    await pay(a.id, 4_500);
    await pay(b.id, 2_000);
    await pay(c.id, 12_000);
    expectStatus(await acme.post(`/attendees/${c.id}/refunds`, { amount: 2_500 }), 200);
    // a: paid 4500; b: 2000 of 4500 (owes 2500); c: 12000 paid, 2500 refunded.
    const analytics = expectStatus(await acme.get(`/analytics/events/${event.id}`), 200);
    assert.deepEqual(analytics.financial.revenue, [
      { currency: "EUR", gross: 18_500, refunded: 2_500, net: 16_000, outstanding: 2_500 },
    ]);
    assert.deepEqual(analytics.financial.byTicketType, [
      { ticketType: "General", currency: "EUR", sold: 1, gross: 0 },
      { ticketType: "Standard", currency: "EUR", sold: 1, gross: 6_500 },
      { ticketType: "VIP", currency: "EUR", sold: 1, gross: 12_000 },
    ]);
    const across = expectStatus(await acme.get(`/analytics/sustainability?eventIds=${event.id}`), 200);
    assert.deepEqual(across.financial.revenue, analytics.financial.revenue);

    const csv = await fetch(`${server.url}/v1/events/${event.id}/attendees/export`, {
      headers: { authorization: `Bearer ${acme.key}` },
    });
    const rows: Array<Record<string, string>> = parse(await csv.text(), { columns: true, record_delimiter: "\r\n" });
    const row = rows.find((r) => r.id === b.id)!;
    assert.deepEqual(
      [
        row["payment.status"],
        row["payment.amount"],
        row["payment.amountPaid"],
        row["payment.currency"],
        row["payment.provider"],
      ],
      ["requires_payment", "4500", "2000", "EUR", "manual"],
    );
    assert.equal(rows.find((r) => r.ticketType === "General")?.["payment.status"], "");
  });

  test("the typed client pays and refunds; a USD ticket takes the attendee's offset contribution in the same payment", async () => {
    const client = createClient({ baseUrl: server.url, apiKey: acme.key });
    const event = await pricedEvent({
      ticketTypes: [{ name: "Day pass", price: { amount: 5_000, currency: "USD" } }],
    });
    const buyer = await client.attendees.register(
      attendeeInput(event.id, { ticketType: "Day pass", carbonOffset: { opted: true, amount: 12.5 } }) as never,
    );
    assert.deepEqual([buyer.status, buyer.payment?.amount, buyer.payment?.currency], ["pending", 6_250, "USD"]);
    const paid = await client.attendees.pay(buyer.id, { amount: 6_250, method: "card_terminal" });
    assert.deepEqual([paid.status, paid.payment?.status], ["confirmed", "paid"]);
    const refunded = await client.attendees.refund(buyer.id);
    assert.deepEqual([refunded.payment?.status, refunded.payment?.amountRefunded], ["refunded", 6_250]);
    await assert.rejects(client.attendees.refund(buyer.id, { amount: 1 }), (error: unknown) => {
      assert.ok(error instanceof EventServiceError);
      assert.deepEqual([error.status, error.code, error.field], [400, "INVALID_REQUEST", "amount"]);
      return true;
    });
    assert.deepEqual(await client.payments.settings(), {
      provider: "manual",
      stripeAccountId: null,
      holdMinutes: 30,
      updatedAt: null,
    });
    // Without Stripe there is no account of its own to link; unlinking is fine.
    await assert.rejects(client.payments.updateSettings({ stripeAccountId: "acct_1Abc" }), EventServiceError);
    assert.equal((await client.payments.updateSettings({ stripeAccountId: null })).stripeAccountId, null);
  });

  test("payment.succeeded and payment.refunded are delivered signed, with the payment and no personal data", async () => {
    const path = `/payments-notify/${Date.now()}`;
    const webhook = expectStatus(
      await acme.post("/webhooks", {
        url: `${receiver.origin}${path}`,
        events: ["payment.succeeded", "payment.refunded", "payment.failed", "payment.expired"],
      }),
      201,
    );
    const event = await pricedEvent({ name: "Notify Gala" });
    const buyer = await register(acme, event.id, { ticketType: "VIP", email: "grace@example.com" });
    expectStatus(await acme.post(`/attendees/${buyer.id}/payments`, { amount: 10_000, method: "cash" }), 200);
    expectStatus(await acme.post(`/attendees/${buyer.id}/payments`, { amount: 2_000, method: "cash" }), 200);
    expectStatus(await acme.post(`/attendees/${buyer.id}/refunds`, { amount: 500 }), 200);
    await receiver.waitFor(() => new Set(receiver.at(path).map((r) => r.body.id)).size >= 2, "2 payment notifications");
    const envelopes = [
      ...new Map(
        receiver.at(path).map((request: Received) => [request.body.id, verified(request, webhook.secret)]),
      ).values(),
    ];
    // Deliveries may arrive in any order (docs/api.md, webhooks): each is found by its type.
    const byType = new Map(envelopes.map((envelope) => [envelope.type, envelope]));
    assert.deepEqual([...byType.keys()].sort(), ["payment.refunded", "payment.succeeded"]);
    const succeeded = byType.get("payment.succeeded")!;
    const refunded = byType.get("payment.refunded")!;
    assert.deepEqual(succeeded.data, {
      payment: { ...UNPAID, status: "paid", amount: 12_000, amountPaid: 12_000 },
      attendee: { id: buyer.id, eventId: event.id, ticketType: "VIP" },
      event: { id: event.id, name: "Notify Gala" },
    });
    assert.deepEqual(refunded.data.payment, {
      ...UNPAID,
      status: "partially_refunded",
      amount: 12_000,
      amountPaid: 12_000,
      amountRefunded: 500,
    });
    assert.equal(refunded.data.refund.amount, 500);
    assert.match(refunded.data.refund.id, /^pay_[0-9a-f]{24}$/);
    assert.doesNotMatch(JSON.stringify(envelopes), /grace@example\.com/);
  });
});

describe("admission: the money kept reaching the price, once", () => {
  const ONE = [{ name: "Ticket", price: { amount: 5_000, currency: "EUR" } }];
  const pay = (id: string, amount: number) => acme.post(`/attendees/${id}/payments`, { amount, method: "cash" });
  const refund = (id: string, amount: number) => acme.post(`/attendees/${id}/refunds`, { amount });
  const checkIn = (eventId: string, code: string) =>
    acme.post(`/events/${eventId}/check-in`, { confirmationCode: code });

  test("the README's buyer, paid 4500 and refunded 1000 by hand, still checks in, by code and by PUT", async () => {
    const event = await pricedEvent();
    for (const via of ["code", "put"]) {
      const buyer = await register(acme, event.id, { ticketType: "Standard" });
      expectStatus(await pay(buyer.id, 4_500), 200);
      const refunded = expectStatus(await refund(buyer.id, 1_000), 200);
      assert.deepEqual(
        [refunded.status, refunded.payment.status, refunded.payment.amountPaid, refunded.payment.amountRefunded],
        ["confirmed", "partially_refunded", 4_500, 1_000],
      );
      const inside =
        via === "code"
          ? expectStatus(await checkIn(event.id, buyer.confirmationCode), 200)
          : expectStatus(await acme.put(`/attendees/${buyer.id}`, { status: "checked-in" }), 200);
      assert.deepEqual([inside.status, inside.payment.status], ["checked-in", "partially_refunded"]);
    }
    // Nothing is owed by an admitted registration, whatever went back.
    const analytics = expectStatus(await acme.get(`/analytics/events/${event.id}`), 200);
    assert.deepEqual(analytics.financial.revenue, [
      { currency: "EUR", gross: 9_000, refunded: 2_000, net: 7_000, outstanding: 0 },
    ]);
    assert.equal(analytics.financial.byTicketType.find((row: any) => row.ticketType === "Standard").sold, 2);
  });

  test("paid 2000, refunded 1000, paid 3000: 4000 kept of 5000 is still pending and owes 1000; paying it admits; a refund after that keeps the ticket", async () => {
    const event = await pricedEvent({ ticketTypes: ONE });
    const buyer = await register(acme, event.id, { ticketType: "Ticket" });
    expectStatus(await pay(buyer.id, 2_000), 200);
    const back = expectStatus(await refund(buyer.id, 1_000), 200);
    assert.deepEqual([back.status, back.payment.status], ["pending", "requires_payment"]);
    const short = expectStatus(await pay(buyer.id, 3_000), 200);
    assert.deepEqual(
      [short.status, short.payment.status, short.payment.amountPaid, short.payment.amountRefunded],
      ["pending", "requires_payment", 5_000, 1_000],
    );
    for (const refused of [
      await checkIn(event.id, buyer.confirmationCode),
      await acme.put(`/attendees/${buyer.id}`, { status: "confirmed" }),
    ])
      assert.deepEqual(expectError(refused, 422, "INVALID_STATE_TRANSITION").details, {
        reason: "payment_required",
        outstanding: 1_000,
        currency: "EUR",
      });
    const owed = expectStatus(await acme.get(`/analytics/events/${event.id}`), 200).financial;
    assert.deepEqual(owed.revenue, [
      { currency: "EUR", gross: 5_000, refunded: 1_000, net: 4_000, outstanding: 1_000 },
    ]);
    assert.deepEqual(owed.byTicketType, [{ ticketType: "Ticket", currency: "EUR", sold: 0, gross: 5_000 }]);
    const over = expectError(await pay(buyer.id, 1_001), 400, "INVALID_REQUEST", "amount");
    assert.equal(
      over.message,
      "amount: 1001 is more than the 1000 still owed (amounts are in the currency's minor units: 1000 is 10.00 EUR)",
    );
    assert.deepEqual(over.details, { outstanding: 1_000, currency: "EUR" });

    const admitted = expectStatus(await pay(buyer.id, 1_000), 200);
    assert.deepEqual(
      [admitted.status, admitted.payment.status, admitted.payment.amountPaid, admitted.payment.amountRefunded],
      ["confirmed", "paid", 6_000, 1_000],
    );
    expectError(await pay(buyer.id, 1), 422, "INVALID_STATE_TRANSITION");
    const goodwill = expectStatus(await refund(buyer.id, 500), 200);
    assert.deepEqual([goodwill.status, goodwill.payment.status], ["confirmed", "partially_refunded"]);
    assert.equal(expectStatus(await checkIn(event.id, buyer.confirmationCode), 200).status, "checked-in");
    const after = expectStatus(await acme.get(`/analytics/events/${event.id}`), 200).financial;
    assert.deepEqual(after.revenue, [{ currency: "EUR", gross: 6_000, refunded: 1_500, net: 4_500, outstanding: 0 }]);
    assert.deepEqual(after.byTicketType, [{ ticketType: "Ticket", currency: "EUR", sold: 1, gross: 6_000 }]);

    // The same after a full refund: what was refunded is owed again, and paying it admits.
    const again = await register(acme, event.id, { ticketType: "Ticket" });
    expectStatus(await pay(again.id, 2_000), 200);
    const none = expectStatus(await refund(again.id, 2_000), 200);
    assert.deepEqual([none.status, none.payment.status], ["pending", "requires_payment"]);
    assert.equal(expectError(await pay(again.id, 5_001), 400, "INVALID_REQUEST", "amount").details?.outstanding, 5_000);
    assert.deepEqual(
      [
        expectStatus(await pay(again.id, 5_000), 200).status,
        (await acme.get(`/attendees/${again.id}`)).body.payment.status,
      ],
      ["confirmed", "paid"],
    );
  });

  test("payments and refunds at once on one registration never admit it underpaid nor return more than was kept", async () => {
    const event = await pricedEvent({ ticketTypes: ONE });
    const buyer = await register(acme, event.id, { ticketType: "Ticket" });
    expectStatus(await pay(buyer.id, 3_000), 200);
    expectStatus(await refund(buyer.id, 1_000), 200);
    const answers = await Promise.all([
      ...Array.from({ length: 6 }, () => pay(buyer.id, 1_000)),
      ...Array.from({ length: 6 }, () => refund(buyer.id, 1_000)),
    ]);
    for (const answer of answers) {
      if (answer.status !== 200) {
        const error = errorOf(answer);
        assert.ok(
          (answer.status === 400 && error.field === "amount") ||
            (answer.status === 422 && error.details?.reason === "not_payable"),
          JSON.stringify(answer.body),
        );
        continue;
      }
      const { status, payment } = answer.body as any;
      const kept = payment.amountPaid - payment.amountRefunded;
      assert.ok(kept >= 0, JSON.stringify(payment));
      // Pending is never paid; confirmed was admitted only when 5000 were kept at once.
      if (status === "pending") assert.equal(payment.status, "requires_payment");
      else assert.equal(status, "confirmed");
    }
    const paid = answers.slice(0, 6).filter((a) => a.status === 200).length;
    const refunded = answers.slice(6).filter((a) => a.status === 200).length;
    const final = expectStatus(await acme.get(`/attendees/${buyer.id}`), 200);
    assert.deepEqual(
      [final.payment.amountPaid, final.payment.amountRefunded],
      [3_000 + paid * 1_000, 1_000 + refunded * 1_000],
    );
    const kept = final.payment.amountPaid - final.payment.amountRefunded;
    assert.ok(kept >= 0);
    // Admitted iff some payment's answer was the one that brought the money kept to the price.
    const admittedAnswers = answers.filter((a) => a.status === 200 && (a.body as any).status === "confirmed");
    if (final.status === "pending") {
      assert.equal(admittedAnswers.length, 0);
      assert.ok(kept < 5_000);
      assert.equal(final.payment.status, "requires_payment");
    } else {
      assert.equal(final.status, "confirmed");
      const first = answers
        .slice(0, 6)
        .filter((a) => a.status === 200)
        .map((a) => a.body as any)
        .filter((a) => a.status === "confirmed")
        .sort((x, y) => x.payment.amountPaid - y.payment.amountPaid)[0];
      assert.ok(first.payment.amountPaid - first.payment.amountRefunded >= 5_000, JSON.stringify(first.payment));
    }
    const sums = expectStatus(await acme.get(`/analytics/events/${event.id}`), 200).financial.revenue[0];
    assert.deepEqual([sums.gross, sums.refunded], [final.payment.amountPaid, final.payment.amountRefunded]);
  });

  test("sold counts per ticket type and currency, admitted registrations only: a type whose currency changed", async () => {
    const event = await pricedEvent({ ticketTypes: [{ name: "Pass", price: { amount: 5_000, currency: "EUR" } }] });
    const early = await register(acme, event.id, { ticketType: "Pass" });
    expectStatus(await pay(early.id, 5_000), 200);
    expectStatus(
      await acme.put(`/events/${event.id}`, {
        ticketTypes: [{ name: "Pass", price: { amount: 5_000, currency: "USD" } }],
      }),
      200,
    );
    for (let i = 0; i < 2; i++) {
      const late = await register(acme, event.id, { ticketType: "Pass" });
      assert.deepEqual([late.status, late.payment.currency], ["pending", "USD"]);
    }
    const financial = expectStatus(await acme.get(`/analytics/events/${event.id}`), 200).financial;
    assert.deepEqual(financial.byTicketType, [
      { ticketType: "Pass", currency: "USD", sold: 0, gross: 0 },
      { ticketType: "Pass", currency: "EUR", sold: 1, gross: 5_000 },
    ]);
    assert.deepEqual(financial.revenue, [
      { currency: "EUR", gross: 5_000, refunded: 0, net: 5_000, outstanding: 0 },
      { currency: "USD", gross: 0, refunded: 0, net: 0, outstanding: 10_000 },
    ]);
  });

  test("a price with its offset contribution past 99,999,999 minor units is refused, naming carbonOffset.amount", async () => {
    const event = await pricedEvent({
      capacity: 1,
      waitlistEnabled: true,
      ticketTypes: [
        { name: "Day", price: { amount: 7_000, currency: "USD" } },
        { name: "Free", price: { amount: 0, currency: "USD" } },
      ],
    });
    const huge = { opted: true, amount: 1_000_000 };
    const refused = expectError(
      await acme.post("/attendees", attendeeInput(event.id, { ticketType: "Day", carbonOffset: huge })),
      400,
      "INVALID_REQUEST",
      "carbonOffset.amount",
    );
    assert.deepEqual(refused.details, { maximum: 99_999_999, amount: 100_007_000, currency: "USD" });
    const most = await register(acme, event.id, {
      ticketType: "Day",
      carbonOffset: { opted: true, amount: 999_929.99 },
    });
    assert.equal(most.payment.amount, 99_999_999);
    // Waiting with a free ticket, it takes no contribution; moving to the priced type would.
    const waiting = await register(acme, event.id, { ticketType: "Free", carbonOffset: huge });
    assert.equal(waiting.status, "waitlisted");
    expectError(
      await acme.put(`/attendees/${waiting.id}`, { ticketType: "Day" }),
      400,
      "INVALID_REQUEST",
      "carbonOffset.amount",
    );
    const day = await register(acme, event.id, { ticketType: "Day", carbonOffset: { opted: true, amount: 10 } });
    assert.equal(day.status, "waitlisted");
    expectError(
      await acme.put(`/attendees/${day.id}`, { carbonOffset: huge }),
      400,
      "INVALID_REQUEST",
      "carbonOffset.amount",
    );
  });
});

/** Verifies a delivery with the published verifier and returns its envelope. */
function verified(request: Received, secret: string) {
  const { payload } = verifyWebhook(secret, request.headers, request.raw);
  assert.deepEqual(payload, request.body);
  return request.body;
}
