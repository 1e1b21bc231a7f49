/**
 * End-to-end: the attendee's ticket link (issue 34; docs/api.md, "Ticket link") through the real
 * server. `ticketUrl` in the registration's create answer only (null in reads, lists, replays
 * and notifications); a new link kills every old one; the JSON twin without a key (exactly the
 * attendee's own view, their details and travel changed, which moves the event's footprint as the
 * organiser's change does, a cancellation refunded by the refund policy that promotes the next
 * in line, once however many arrive together); refusals after the start and for a cancelled
 * registration; an erased registration's link `404`; the calendar file; bad tokens spending the
 * per-address allowance; the token in no log line and no table.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { createClient, createTicketLinkClient, EventServiceError } from "@event-service/client";
import { databaseTables, queryDatabase, startServer, type TestServer } from "./_setup.ts";
import { type Client, clientFor, createEvent, expectError, expectStatus, register } from "./fixtures/api.ts";
import { makeCertificate } from "./fixtures/conventions.ts";
import { deliveryEnv, type Receiver, startReceiver } from "./fixtures/receiver.ts";

let tls: ReturnType<typeof makeCertificate>;
let receiver: Receiver;
let server: TestServer;
let acme: Client;

before(async () => {
  tls = makeCertificate();
  receiver = await startReceiver({ cert: tls.cert, key: readFileSync(tls.keyPath, "utf8") });
  // A few bad tokens are sent on purpose; the allowance itself is tested on a server of its own.
  server = await startServer({
    env: deliveryEnv(tls.certPath, { WEBHOOK_TIMEOUT_MS: "15000", AUTH_FAILURE_LIMIT_PER_MINUTE: "100000" }),
  });
  acme = clientFor(server, (await server.createKey({ account: `Ticket Acme ${Date.now()}` })).key);
});

after(async () => {
  const output = server.output();
  assert.equal(await server.stop("SIGTERM"), 0);
  assert.doesNotMatch(output, /"msg":"unexpected error"/);
  await receiver.close();
  rmSync(tls.dir, { recursive: true, force: true });
});

const TICKET_URL = /^http:\/\/127\.0\.0\.1:\d+\/v1\/tickets\/tkt_[A-Za-z0-9_-]{43}$/;

/** The attendee's side of a ticket link: requests without a key to its path. */
function ticketSide(ticketUrl: string) {
  const path = new URL(ticketUrl).pathname;
  return {
    path,
    token: path.split("/").at(-1)!,
    view: () => server.request("GET", path),
    update: (body: unknown) => server.request("PUT", path, { body }),
    cancel: (headers: Record<string, string> = {}) => server.request("POST", `${path}/cancel`, { headers }),
    calendar: () => server.request("GET", `${path}/calendar.ics`),
  };
}

/** An event of Acme's that takes 45.00 EUR a ticket, one place, with a waiting list, refunded in full. */
async function pricedEvent(client: Client, overrides: Record<string, unknown> = {}) {
  return createEvent(client, {
    capacity: 1,
    waitlistEnabled: true,
    refundPolicy: "full",
    ticketTypes: [{ name: "Standard", price: { amount: 4500, currency: "EUR" } }],
    ...overrides,
  });
}

describe("the ticket link", () => {
  test("the create answer holds ticketUrl; the link opens exactly the attendee's own view; every other answer shows null", async () => {
    const event = await createEvent(acme, {
      name: "Ticket Summit",
      location: { address: "Alexanderplatz 1", city: "Berlin", country: "DE", zipCode: "10178" },
      timeZone: "Europe/Berlin",
    });
    const created = await register(acme, event.id, {
      firstName: "Grace",
      lastName: "Hopper",
      email: "grace.ticket@example.com",
      dietaryPreferences: ["Vegan"],
      customFields: { badge: "VIP" },
      carbonOffset: { opted: true, amount: 5, travelMode: "train", travelDistance: 120 },
    });
    assert.match(created.ticketUrl, TICKET_URL);
    assert.ok(created.ticketUrl.startsWith(server.url));
    const ticket = expectStatus(await ticketSide(created.ticketUrl).view(), 200);
    assert.deepEqual(ticket, {
      event: {
        id: event.id,
        name: "Ticket Summit",
        status: "draft",
        startDate: "2038-05-01T09:00:00.000Z",
        endDate: "2038-05-01T17:00:00.000Z",
        timeZone: "Europe/Berlin",
        location: { address: "Alexanderplatz 1", city: "Berlin", state: null, country: "DE", zipCode: "10178" },
      },
      attendee: {
        id: created.id,
        firstName: "Grace",
        lastName: "Hopper",
        email: "grace.ticket@example.com",
        ticketType: "general",
        status: "confirmed",
        confirmationCode: created.confirmationCode,
        qrCode: `${server.url}/v1/qr/${created.id}.png`,
        waitlistPosition: null,
        dietaryPreferences: ["vegan"],
        accessibilityNeeds: null,
        emergencyContact: null,
        carbonOffset: { opted: true, travelMode: "train", travelDistance: 120 },
      },
      payment: null,
      changesAllowed: true,
    });
    // Reads and lists never show it: only the answers that make a link do.
    assert.equal(expectStatus(await acme.get(`/attendees/${created.id}`), 200).ticketUrl, null);
    const listed = expectStatus(await acme.get(`/attendees?eventId=${event.id}`), 200).attendees;
    assert.deepEqual(
      listed.map((attendee: { ticketUrl: unknown }) => attendee.ticketUrl),
      [null],
    );
    const changed = expectStatus(await acme.put(`/attendees/${created.id}`, { company: "Navy" }), 200);
    assert.equal(changed.ticketUrl, null);
    // The same link under /api.
    expectStatus(await server.request("GET", new URL(created.ticketUrl).pathname.replace("/v1/", "/api/")), 200);
  });

  test("a new link (POST /attendees/:id/ticket-link) kills every old one; its replay shows null; unknown ids 404", async () => {
    const event = await createEvent(acme);
    const created = await register(acme, event.id);
    const first = ticketSide(created.ticketUrl);
    const rotated = expectStatus(
      await acme.post(`/attendees/${created.id}/ticket-link`, undefined, {
        headers: { "idempotency-key": `rot-${created.id}` },
      }),
      200,
    );
    assert.equal(rotated.id, created.id);
    assert.match(rotated.ticketUrl, TICKET_URL);
    assert.notEqual(rotated.ticketUrl, created.ticketUrl);
    expectError(await first.view(), 404, "NOT_FOUND");
    expectError(await first.cancel(), 404, "NOT_FOUND");
    expectStatus(await ticketSide(rotated.ticketUrl).view(), 200);
    const replayed = await acme.post(`/attendees/${created.id}/ticket-link`, undefined, {
      headers: { "idempotency-key": `rot-${created.id}` },
    });
    assert.equal(replayed.headers.get("idempotent-replayed"), "true");
    assert.deepEqual(expectStatus(replayed, 200), { ...rotated, ticketUrl: null });
    // The replay made no new link: the one rotated to still works.
    expectStatus(await ticketSide(rotated.ticketUrl).view(), 200);
    expectError(await acme.post("/attendees/att_000000000000000000000000/ticket-link"), 404, "NOT_FOUND");
    expectError(await acme.post(`/attendees/${created.id}/ticket-link`, { x: 1 }), 400, "INVALID_REQUEST");
    const other = clientFor(server, (await server.createKey({ account: `Ticket Other ${Date.now()}` })).key);
    expectError(await other.post(`/attendees/${created.id}/ticket-link`), 404, "NOT_FOUND");
    const readOnly = clientFor(
      server,
      (await server.createKey({ account: `Ticket RO ${Date.now()}`, scopes: ["attendees:read"] })).key,
    );
    expectError(await readOnly.post(`/attendees/${created.id}/ticket-link`), 403, "FORBIDDEN");
  });

  test("a replayed registration shows ticketUrl null, and the first answer's link still works", async () => {
    const event = await createEvent(acme);
    const body = {
      eventId: event.id,
      firstName: "Ada",
      lastName: "Replay",
      email: "ada.replay@example.com",
      ticketType: "general",
    };
    const headers = { "idempotency-key": `reg-${event.id}` };
    const first = expectStatus(await acme.post("/attendees", body, { headers }), 201);
    assert.match(first.ticketUrl, TICKET_URL);
    const replay = await acme.post("/attendees", body, { headers });
    assert.equal(replay.headers.get("idempotent-replayed"), "true");
    assert.deepEqual(expectStatus(replay, 201), { ...first, ticketUrl: null });
    expectStatus(await ticketSide(first.ticketUrl).view(), 200);
  });

  test("notifications carry ticketUrl null, and no table holds a token in plain", async () => {
    const path = `/ticket-hook-${randomBytes(4).toString("hex")}`;
    const client = clientFor(server, (await server.createKey({ account: `Ticket Hooks ${Date.now()}` })).key);
    expectStatus(
      await client.post("/webhooks", { url: `${receiver.origin}${path}`, events: ["attendee.registered"] }),
      201,
    );
    const event = await createEvent(client);
    const created = await register(client, event.id);
    const [delivered] = await receiver.waitFor(() => receiver.at(path).length >= 1, "attendee.registered");
    assert.equal(delivered!.body.type, "attendee.registered");
    assert.equal(delivered!.body.data.attendee.id, created.id);
    assert.equal(delivered!.body.data.attendee.ticketUrl, null);
    const secret = ticketSide(created.ticketUrl).token.slice(4);
    for (const table of await databaseTables(server.database)) {
      const rows = await queryDatabase(server.database, `select * from ${table}`);
      assert.ok(!JSON.stringify(rows).includes(secret), `the token in plain in ${table}`);
    }
    const [stored] = await queryDatabase<{ link_hash: string }>(
      server.database,
      "select link_hash from ticket_links where attendee_id = ?",
      [created.id],
    );
    assert.match(stored!.link_hash, /^[0-9a-f]{64}$/);
  });

  test("PUT changes only the attendee's own details; travel moves the event's footprint as the organiser's change does", async () => {
    const event = await createEvent(acme);
    const created = await register(acme, event.id, {
      carbonOffset: { opted: false, amount: 5, travelMode: "car", travelDistance: 200 },
    });
    const link = ticketSide(created.ticketUrl);
    const footprint = async () =>
      Math.round(expectStatus(await acme.get(`/events/${event.id}`), 200).carbonFootprint * 1000) / 1000;
    // 200 km by car: 200 * 0.16844 kg CO2e.
    assert.equal(await footprint(), 33.688);
    const changed = expectStatus(
      await link.update({
        dietaryPreferences: ["Vegetarian", "no nuts"],
        accessibilityNeeds: { wheelchairAccess: true },
        emergencyContact: { name: "Alan Turing", phone: "+44 20 7946 0000" },
        carbonOffset: { travelMode: "train", opted: true },
      }),
      200,
    );
    assert.deepEqual(changed.attendee.carbonOffset, { opted: true, travelMode: "train", travelDistance: 200 });
    assert.deepEqual(changed.attendee.dietaryPreferences, ["vegetarian", "no nuts"]);
    // The same 200 km by train: 200 * 0.03546 kg CO2e.
    assert.equal(await footprint(), 7.092);
    const organiser = expectStatus(await acme.get(`/attendees/${created.id}`), 200);
    assert.deepEqual(organiser.carbonOffset, { opted: true, amount: 5, travelMode: "train", travelDistance: 200 });
    assert.deepEqual(organiser.accessibilityNeeds, { wheelchairAccess: true });
    assert.deepEqual(organiser.emergencyContact, { name: "Alan Turing", phone: "+44 20 7946 0000" });
    // null clears a field; left out, a field stays.
    const cleared = expectStatus(await link.update({ carbonOffset: { travelMode: null, travelDistance: null } }), 200);
    assert.deepEqual(cleared.attendee.carbonOffset, { opted: true, travelMode: null, travelDistance: null });
    assert.equal(await footprint(), 0);
    assert.deepEqual(cleared.attendee.dietaryPreferences, ["vegetarian", "no nuts"]);
    // Nothing else is the attendee's to change.
    for (const [body, field] of [
      [{ firstName: "Mallory" }, "firstName"],
      [{ status: "cancelled" }, "status"],
      [{ carbonOffset: { amount: 0 } }, "carbonOffset.amount"],
      [{ carbonOffset: { travelMode: "rocket" } }, "carbonOffset.travelMode"],
      [{ emergencyContact: { name: "X", phone: "12" } }, "emergencyContact.phone"],
    ] as const)
      expectError(await link.update(body), 400, "INVALID_REQUEST", field);
    expectError(
      await server.request("PUT", link.path, { raw: "{", headers: { "content-type": "application/json" } }),
      400,
      "INVALID_REQUEST",
    );
    assert.equal(expectStatus(await acme.get(`/attendees/${created.id}`), 200).firstName, created.firstName);
  });

  test("cancel refunds a paid registration in full under refundPolicy full and promotes the next in line, once however many arrive together", async () => {
    const organiser = clientFor(server, (await server.createKey({ account: `Ticket Refunds ${Date.now()}` })).key);
    const hook = `/ticket-cancel-${randomBytes(4).toString("hex")}`;
    expectStatus(
      await organiser.post("/webhooks", {
        url: `${receiver.origin}${hook}`,
        events: ["attendee.cancelled", "attendee.promoted", "payment.refunded"],
      }),
      201,
    );
    const event = await pricedEvent(organiser, { name: "Paid Ticket Summit" });
    const paid = await register(organiser, event.id, { ticketType: "Standard" });
    assert.equal(paid.status, "pending");
    const paidLink = ticketSide(paid.ticketUrl);
    const due = expectStatus(await paidLink.view(), 200);
    assert.equal(due.attendee.qrCode, null, "no QR code while unpaid");
    assert.deepEqual(due.payment, {
      status: "requires_payment",
      provider: "manual",
      currency: "EUR",
      amount: 4500,
      amountPaid: 0,
      amountRefunded: 0,
      amountDue: 4500,
      expiresAt: null,
    });
    expectStatus(await organiser.post(`/attendees/${paid.id}/payments`, { amount: 4500, method: "cash" }), 200);
    const waiting = await register(organiser, event.id, { ticketType: "Standard" });
    assert.equal(waiting.status, "waitlisted");
    const waitingView = expectStatus(await ticketSide(waiting.ticketUrl).view(), 200);
    assert.deepEqual(
      [
        waitingView.attendee.status,
        waitingView.attendee.waitlistPosition,
        waitingView.attendee.qrCode,
        waitingView.payment,
      ],
      ["waitlisted", 1, null, null],
    );
    const admitted = expectStatus(await paidLink.view(), 200);
    assert.equal(admitted.attendee.qrCode, `${server.url}/v1/qr/${paid.id}.png`);
    assert.equal(admitted.payment.amountDue, 0);

    const answers = await Promise.all(Array.from({ length: 4 }, () => paidLink.cancel()));
    assert.deepEqual(answers.map((answer) => answer.status).sort(), [200, 422, 422, 422]);
    const cancelled = answers.find((answer) => answer.status === 200)!.body;
    assert.equal(cancelled.attendee.status, "cancelled");
    assert.equal(cancelled.attendee.qrCode, null);
    assert.equal(cancelled.changesAllowed, false);
    // Nothing is owed once cancelled, whatever was refunded.
    assert.deepEqual(
      [
        cancelled.payment.status,
        cancelled.payment.amountPaid,
        cancelled.payment.amountRefunded,
        cancelled.payment.amountDue,
      ],
      ["refunded", 4500, 4500, 0],
    );
    for (const refused of answers.filter((answer) => answer.status === 422))
      assert.equal(expectError(refused, 422, "INVALID_STATE_TRANSITION").details.reason, "registration_cancelled");
    const promoted = expectStatus(await organiser.get(`/attendees/${waiting.id}`), 200);
    assert.deepEqual(
      [promoted.status, promoted.waitlistPosition, promoted.payment.amountDue ?? promoted.payment.amount],
      ["pending", null, 4500],
    );
    const analytics = expectStatus(await organiser.get(`/analytics/events/${event.id}`), 200);
    assert.deepEqual(
      analytics.financial.revenue.map(({ currency, gross, refunded }: Record<string, unknown>) => ({
        currency,
        gross,
        refunded,
      })),
      [{ currency: "EUR", gross: 4500, refunded: 4500 }],
    );
    // Notified as the organiser's cancellation is: each once.
    await receiver.waitFor(() => receiver.at(hook).length >= 3, "the cancellation's notifications");
    const notified = receiver.at(hook).map((request) => [request.body.type, request.body.data.attendee.id]);
    assert.deepEqual(notified.sort(), [
      ["attendee.cancelled", paid.id],
      ["attendee.promoted", waiting.id],
      ["payment.refunded", paid.id],
    ]);
    // A cancelled registration's link still shows it, and takes no change.
    expectStatus(await paidLink.view(), 200);
    const refusedChange = expectError(
      await paidLink.update({ dietaryPreferences: ["vegan"] }),
      422,
      "INVALID_STATE_TRANSITION",
    );
    assert.equal(refusedChange.details.reason, "registration_cancelled");
  });

  test("after the event's start the link shows the ticket and refuses changes and cancellation (422 event_started)", async () => {
    const event = await createEvent(acme);
    const created = await register(acme, event.id, { carbonOffset: { travelMode: "bus", travelDistance: 10 } });
    const link = ticketSide(created.ticketUrl);
    expectStatus(await acme.put(`/events/${event.id}`, { startDate: "2020-01-01T09:00:00.000Z" }), 200);
    const shown = expectStatus(await link.view(), 200);
    assert.deepEqual([shown.attendee.status, shown.changesAllowed], ["confirmed", false]);
    for (const refused of [await link.update({ carbonOffset: { travelMode: "car" } }), await link.cancel()]) {
      const error = expectError(refused, 422, "INVALID_STATE_TRANSITION");
      assert.equal(error.details.reason, "event_started");
    }
    const unchanged = expectStatus(await acme.get(`/attendees/${created.id}`), 200);
    assert.deepEqual([unchanged.status, unchanged.carbonOffset.travelMode], ["confirmed", "bus"]);
    expectStatus(await link.calendar(), 200);
  });

  test("an erased registration's link is 404, as are unknown tokens and tokens of another shape", async () => {
    const event = await createEvent(acme);
    const created = await register(acme, event.id);
    const link = ticketSide(created.ticketUrl);
    expectStatus(await link.view(), 200);
    expectStatus(await acme.delete(`/attendees/${created.id}`), 200);
    for (const answer of [await link.view(), await link.cancel(), await link.update({}), await link.calendar()])
      assert.equal(expectError(answer, 404, "NOT_FOUND").message, "No ticket at this link.");
    expectError(await server.request("GET", `/v1/tickets/tkt_${"A".repeat(43)}`), 404, "NOT_FOUND");
    expectError(await server.request("GET", "/v1/tickets/vrq_abc"), 404, "NOT_FOUND");
    expectError(await server.request("GET", `/v1/tickets/${link.token}x`), 404, "NOT_FOUND");
  });

  test("calendar.ics: one VEVENT in UTC with the event's name and place, CRLF lines", async () => {
    const event = await createEvent(acme, {
      name: "Ticket Summit; Berlin, 2038",
      location: { address: "Alexanderplatz 1", city: "Berlin", country: "DE", zipCode: "10178" },
      startDate: "2038-05-01T09:00:00+02:00",
      endDate: "2038-05-01T17:30:00+02:00",
    });
    const created = await register(acme, event.id);
    const answer = expectStatus(await ticketSide(created.ticketUrl).calendar(), 200);
    assert.equal(
      (await ticketSide(created.ticketUrl).calendar()).headers.get("content-type"),
      "text/calendar; charset=utf-8",
    );
    assert.ok(typeof answer === "string" && answer.endsWith("\r\n"));
    const lines = (answer as string).replace(/\r\n /g, "").split("\r\n");
    assert.ok(lines.every((line) => !line.includes("\n")));
    const fields = Object.fromEntries(
      lines.filter(Boolean).map((line) => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 1)]),
    );
    assert.equal(lines.filter((line) => line === "BEGIN:VEVENT").length, 1);
    assert.equal(fields.UID, `${event.id}@event-service`);
    assert.equal(fields.DTSTART, "20380501T070000Z");
    assert.equal(fields.DTEND, "20380501T153000Z");
    assert.equal(fields.SUMMARY, "Ticket Summit\\; Berlin\\, 2038");
    assert.equal(fields.LOCATION, "Alexanderplatz 1\\, 10178 Berlin\\, DE");
    assert.match(fields.DTSTAMP!, /^\d{8}T\d{6}Z$/);
  });

  test("the access log never carries a ticket link's token", async () => {
    const event = await createEvent(acme);
    const created = await register(acme, event.id);
    const link = ticketSide(created.ticketUrl);
    const requestId = `ticket-log-${randomBytes(6).toString("hex")}`;
    const headers = { "x-request-id": requestId };
    await server.request("GET", link.path, { headers });
    await server.request("GET", `${link.path}/calendar.ics`, { headers });
    await server.request("PUT", link.path, { body: { dietaryPreferences: [] }, headers });
    await server.request("GET", `${link.path}x`, { headers });
    const deadline = Date.now() + 10_000;
    const lines = () =>
      server
        .output()
        .split("\n")
        .filter((line) => line.includes(requestId));
    while (lines().length < 4 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(lines().length, 4, server.output().slice(-2000));
    const secret = link.token.slice(4, 24);
    assert.deepEqual(
      lines().filter((line) => line.includes(secret)),
      [],
    );
    assert.ok(
      lines().every((line) => line.includes("/v1/tickets/tkt_…")),
      lines().join("\n"),
    );
  });

  test("through the client: createTicketLinkClient(ticketUrl) gets, updates, adds to a calendar and cancels; attendees.ticketLink makes a new link", async () => {
    const key = (await server.createKey({ account: `Ticket Client ${Date.now()}` })).key;
    const organiser = createClient({ baseUrl: server.url, apiKey: key });
    const event = await organiser.events.create({
      name: "Client Ticket Summit",
      location: { address: "Main St 1", city: "Leipzig", country: "DE" },
      startDate: "2038-06-01T08:00:00.000Z",
      endDate: "2038-06-01T16:00:00.000Z",
      capacity: 10,
      category: "conference",
    });
    const created = await organiser.attendees.register({
      eventId: event.id,
      firstName: "Katherine",
      lastName: "Johnson",
      email: "katherine.client@example.com",
      ticketType: "general",
    });
    const ticket = createTicketLinkClient(created.ticketUrl);
    const seen = await ticket.get();
    assert.deepEqual(
      [seen.event.name, seen.attendee.email, seen.attendee.status],
      ["Client Ticket Summit", "katherine.client@example.com", "confirmed"],
    );
    const changed = await ticket.update({ carbonOffset: { travelMode: "bike", travelDistance: 12 } });
    assert.deepEqual(changed.attendee.carbonOffset, { opted: null, travelMode: "bike", travelDistance: 12 });
    const calendar = await ticket.calendar();
    assert.match(calendar, /\r\nSUMMARY:Client Ticket Summit\r\n/);
    assert.match(calendar, /\r\nDTSTART:20380601T080000Z\r\n/);
    const renewed = await organiser.attendees.ticketLink(created.id);
    assert.notEqual(renewed.ticketUrl, created.ticketUrl);
    await assert.rejects(ticket.get(), (error) => error instanceof EventServiceError && error.status === 404);
    const current = createTicketLinkClient({ link: renewed.ticketUrl });
    assert.equal((await current.cancel()).attendee.status, "cancelled");
    await assert.rejects(
      current.cancel(),
      (error) =>
        error instanceof EventServiceError &&
        error.code === "INVALID_STATE_TRANSITION" &&
        (error.details as { reason?: string })?.reason === "registration_cancelled",
    );
    const read = await organiser.attendees.get(created.id);
    assert.equal(read.ticketUrl, null);
    assert.throws(() => createTicketLinkClient(read.ticketUrl), TypeError);
  });

  test("bad tokens spend the per-address allowance of bad keys (429 after it); a valid link spends neither it nor the account's limit", async () => {
    const limited = await startServer({ env: { AUTH_FAILURE_LIMIT_PER_MINUTE: "3" } });
    try {
      const client = clientFor(limited, (await limited.createKey({ account: "Ticket Limited" })).key);
      const event = expectStatus(await client.post("/events", { ...(await eventBody()) }), 201);
      const created = expectStatus(
        await client.post("/attendees", {
          eventId: event.id,
          firstName: "Ada",
          lastName: "Limited",
          email: "ada.limited@example.com",
          ticketType: "general",
        }),
        201,
      );
      const good = new URL(created.ticketUrl).pathname;
      const bad = good.replace(/[^/]+$/, `tkt_${randomBytes(32).toString("base64url")}`);
      for (let i = 0; i < 6; i++) expectStatus(await limited.request("GET", good), 200);
      for (let i = 0; i < 3; i++) expectError(await limited.request("GET", bad), 404, "NOT_FOUND");
      const refused = expectError(await limited.request("POST", `${bad}/cancel`), 429, "RATE_LIMIT_EXCEEDED");
      assert.equal(refused.details.scope, "address");
      expectError(await limited.request("GET", "/v1/events", { key: "not-a-key" }), 429, "RATE_LIMIT_EXCEEDED");
    } finally {
      assert.equal(await limited.stop(), 0);
    }
  });
});

/** A valid event body of its own (the limited server's). */
async function eventBody() {
  return {
    name: "Limited Summit",
    location: { address: "Main St 1", city: "Berlin", country: "DE" },
    startDate: "2038-05-01T09:00:00.000Z",
    endDate: "2038-05-01T17:00:00.000Z",
    capacity: 10,
    category: "conference",
  };
}
