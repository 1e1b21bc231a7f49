/**
 * End-to-end: a key reaches through webhooks only what its scopes let it read directly. Subscribing
 * to a type needs its read scope (at create and update); the delivery log, redeliver's and ping's
 * answers hide the data of a type the reading key cannot read; redelivering one is 403. And the
 * number of webhooks per account is capped by the key's tier, exactly under concurrent creates.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startServer, type TestServer } from "./_setup.ts";
import { type Client, clientFor, createEvent, expectError, expectStatus, moveEvent, register } from "./fixtures/api.ts";
import { publicUrl } from "./fixtures/webhooks.ts";

let server: TestServer;
/** Every scope. */
let full: Client;
/** webhooks:read and webhooks:write only. */
let hooksOnly: Client;
/** The webhook scopes and one read scope each. */
let withAttendees: Client;
let withEvents: Client;
let withAnalytics: Client;
let withVendors: Client;
let withPayments: Client;

/** Every vendor coordination type (docs/api.md, "Vendors"): they need vendors:read. */
const VENDOR_TYPES = [
  "vendor.booking_requested",
  "vendor.confirmed",
  "vendor.declined",
  "vendor.cancelled",
  "vendor.data_submitted",
];

const HOOKS = ["webhooks:read", "webhooks:write"];

before(async () => {
  // Attempts to the public literals fail fast (no network in the tests) and are not retried soon.
  server = await startServer({ env: { WEBHOOK_TIMEOUT_MS: "300", WEBHOOK_RETRY_DELAYS_MS: "3600000" } });
  const account = `Scopes ${Date.now()}`;
  const a = await server.createKey({ account, tier: "enterprise" });
  const made = await Promise.all([
    server.createKey({ account: a.accountId, tier: "enterprise", scopes: HOOKS }),
    server.createKey({ account: a.accountId, tier: "enterprise", scopes: [...HOOKS, "attendees:read"] }),
    server.createKey({ account: a.accountId, tier: "enterprise", scopes: [...HOOKS, "events:read"] }),
    server.createKey({ account: a.accountId, tier: "enterprise", scopes: [...HOOKS, "analytics:read"] }),
    server.createKey({ account: a.accountId, tier: "enterprise", scopes: [...HOOKS, "vendors:read"] }),
    server.createKey({ account: a.accountId, tier: "enterprise", scopes: [...HOOKS, "payments:write"] }),
  ]);
  full = clientFor(server, a.key);
  [hooksOnly, withAttendees, withEvents, withAnalytics, withVendors, withPayments] = made.map((key) =>
    clientFor(server, key.key),
  ) as [Client, Client, Client, Client, Client, Client];
});

after(async () => {
  const output = server.output();
  assert.equal(await server.stop("SIGTERM"), 0);
  assert.doesNotMatch(output, /"msg":"unexpected error"/);
});

const create = (client: Client, events: string[]) => client.post("/webhooks", { url: publicUrl("scoped"), events });

describe("subscribing needs the read scope of every type", () => {
  test("403 FORBIDDEN on field events naming the missing scopes; nothing is stored", async () => {
    const before = expectStatus(await full.get("/webhooks?limit=100"), 200).pagination.total;
    const refused: Array<[Client, string[], string[]]> = [
      [hooksOnly, ["attendee.registered"], ["attendees:read"]],
      [hooksOnly, ["event.created"], ["events:read"]],
      [hooksOnly, ["sustainability.carbon_offset"], ["events:read", "attendees:read"]],
      // It carries the registration (name, email): events:read alone does not read that.
      [withEvents, ["sustainability.carbon_offset"], ["attendees:read"]],
      [hooksOnly, ["analytics.report_ready"], ["analytics:read"]],
      [hooksOnly, ["*"], ["events:read", "attendees:read", "analytics:read", "vendors:read", "payments:read"]],
      [hooksOnly, ["event.created", "analytics.threshold_exceeded"], ["events:read", "analytics:read"]],
      [withAttendees, ["attendee.registered", "event.updated"], ["events:read"]],
      [withAttendees, ["*"], ["events:read", "analytics:read", "vendors:read", "payments:read"]],
      [withVendors, ["*"], ["events:read", "attendees:read", "analytics:read", "payments:read"]],
      // Payment notifications name no one, but they are the account's money: payments:read.
      [withAttendees, ["payment.succeeded"], ["payments:read"]],
      [withVendors, ["payment.refunded", "vendor.confirmed"], ["payments:read"]],
      [hooksOnly, ["vendor.confirmed"], ["vendors:read"]],
      [withEvents, ["event.created", "vendor.booking_requested"], ["vendors:read"]],
      [withAnalytics, VENDOR_TYPES, ["vendors:read"]],
      [withAttendees, ["attendee.registered", "vendor.data_submitted"], ["vendors:read"]],
      [withVendors, ["vendor.cancelled", "event.cancelled"], ["events:read"]],
      [withEvents, ["sustainability.goal_achieved", "attendee.checked_in"], ["attendees:read"]],
      [withAnalytics, ["analytics.report_ready", "sustainability.report_generated"], ["events:read"]],
    ];
    for (const [client, events, missing] of refused) {
      const error = expectError(await create(client, events), 403, "FORBIDDEN", "events");
      assert.deepEqual(error.details, { requiredScopes: missing }, `${events.join(",")}`);
      for (const scope of missing) assert.match(error.message, new RegExp(scope));
    }
    assert.equal(expectStatus(await full.get("/webhooks?limit=100"), 200).pagination.total, before);
  });

  test("a key with the read scope subscribes: 201", async () => {
    const allowed: Array<[Client, string[]]> = [
      [withAttendees, ["attendee.registered", "attendee.updated", "attendee.cancelled", "attendee.checked_in"]],
      [
        withEvents,
        ["event.created", "event.completed", "sustainability.goal_achieved", "sustainability.report_generated"],
      ],
      [full, ["sustainability.carbon_offset"]],
      [withAnalytics, ["analytics.report_ready", "analytics.threshold_exceeded"]],
      [withVendors, VENDOR_TYPES],
      [withVendors, ["vendor.confirmed"]],
      // payments:write includes payments:read.
      [withPayments, ["payment.succeeded", "payment.failed", "payment.expired", "payment.refunded"]],
      [full, ["*"]],
    ];
    for (const [client, events] of allowed)
      assert.deepEqual(expectStatus(await create(client, events), 201).events, events);
  });

  test("update: url, events and re-enabling are checked on the subscription after the change; a refused update changes nothing", async () => {
    const everything = expectStatus(await create(full, ["*"]), 201);
    const url = publicUrl("re-pointed");
    // A key that cannot read everything may not re-point, re-enable or re-subscribe a `*` subscription...
    for (const body of [{ url }, { active: true }, { events: ["*"] }, { url, description: "mine now" }]) {
      const error = expectError(await hooksOnly.put(`/webhooks/${everything.id}`, body), 403, "FORBIDDEN", "events");
      assert.deepEqual(error.details, {
        requiredScopes: ["events:read", "attendees:read", "analytics:read", "vendors:read", "payments:read"],
      });
    }
    expectError(await withEvents.put(`/webhooks/${everything.id}`, { url }), 403, "FORBIDDEN", "events");
    expectError(
      await withEvents.put(`/webhooks/${everything.id}`, { events: ["event.created", "attendee.registered"] }),
      403,
      "FORBIDDEN",
      "events",
    );
    const { secret: _secret, ...unchanged } = everything;
    assert.deepEqual(expectStatus(await full.get(`/webhooks/${everything.id}`), 200), unchanged);
    // ...but may describe or pause it, which sends nothing anywhere...
    assert.equal(
      expectStatus(
        await hooksOnly.put(`/webhooks/${everything.id}`, {
          description: "paused",
          metadata: { by: "ops" },
          active: false,
        }),
        200,
      ).active,
      false,
    );
    expectError(await hooksOnly.put(`/webhooks/${everything.id}`, { active: true }), 403, "FORBIDDEN", "events");
    expectStatus(await full.put(`/webhooks/${everything.id}`, { active: true }), 200);
    // ...and a key may narrow it to what it reads, and then change it.
    const narrowed = expectStatus(
      await withEvents.put(`/webhooks/${everything.id}`, { events: ["event.created"], url }),
      200,
    );
    assert.deepEqual([narrowed.events, narrowed.url], [["event.created"], url]);
    expectStatus(await withEvents.put(`/webhooks/${everything.id}`, { description: "events only", active: true }), 200);
    expectError(
      await hooksOnly.put(`/webhooks/${everything.id}`, { url: publicUrl("no") }),
      403,
      "FORBIDDEN",
      "events",
    );
    // Deleting needs webhooks:write only.
    expectStatus(await hooksOnly.delete(`/webhooks/${everything.id}`), 200);
  });
});

describe("the delivery log shows only what the reading key may read", () => {
  let hook: any;
  let attendee: any;
  const byType = (deliveries: any[], type: string) => deliveries.find((delivery) => delivery.type === type);

  before(async () => {
    hook = expectStatus(await create(full, ["*"]), 201);
    const event = await createEvent(full);
    await moveEvent(full, event.id, "published");
    attendee = await register(full, event.id, { phone: "+49 30 1234567" });
    // Each delivery's first attempt fails and its retry is an hour away: once all four have made
    // theirs, nothing changes them but the tests (the redeliver test compares updatedAt).
    const deadline = Date.now() + 20_000;
    for (
      let entries = await log(full);
      entries.length < 4 || entries.some((delivery) => delivery.attemptCount < 1);
      entries = await log(full)
    ) {
      assert.ok(
        Date.now() < deadline,
        `first attempts not all made in 20 s: ${JSON.stringify(entries.map((delivery) => [delivery.type, delivery.attemptCount]))}`,
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });

  const log = async (client: Client) =>
    expectStatus(await client.get(`/webhooks/${hook.id}/deliveries?limit=100`), 200).deliveries as any[];

  test("every key sees every entry; data only of the types it reads, else data null and redacted true", async () => {
    const everything = await log(full);
    const types = everything.map((delivery) => delivery.type).sort();
    assert.deepEqual(types, ["attendee.registered", "event.created", "event.published", "event.updated"]);
    for (const delivery of everything) {
      assert.equal(delivery.redacted, false);
      assert.equal(typeof delivery.payload.data, "object");
      assert.notEqual(delivery.payload.data, null);
    }
    assert.equal(byType(everything, "attendee.registered").payload.data.attendee.email, attendee.email);

    const hidden = await log(hooksOnly);
    assert.deepEqual(
      hidden.map((delivery) => delivery.id),
      everything.map((delivery) => delivery.id),
    );
    for (const [index, delivery] of hidden.entries()) {
      const whole = everything[index];
      assert.equal(delivery.redacted, true);
      // The envelope's other fields and the attempts stay: only its data is hidden.
      assert.deepEqual(delivery.payload, { ...whole.payload, data: null });
      assert.deepEqual(
        {
          ...delivery,
          payload: null,
          redacted: null,
          attempts: null,
          status: null,
          attemptCount: null,
          nextAttemptAt: null,
          updatedAt: null,
        },
        {
          ...whole,
          payload: null,
          redacted: null,
          attempts: null,
          status: null,
          attemptCount: null,
          nextAttemptAt: null,
          updatedAt: null,
        },
      );
    }
    const text = JSON.stringify(hidden);
    assert.doesNotMatch(text, new RegExp(attendee.email.replace(/[.+]/g, "\\$&")));
    assert.doesNotMatch(text, /1234567/);

    const attendeesView = await log(withAttendees);
    assert.equal(byType(attendeesView, "attendee.registered").redacted, false);
    assert.equal(byType(attendeesView, "attendee.registered").payload.data.attendee.phone, attendee.phone);
    for (const type of ["event.created", "event.updated", "event.published"]) {
      assert.equal(byType(attendeesView, type).redacted, true);
      assert.equal(byType(attendeesView, type).payload.data, null);
    }
    const eventsView = await log(withEvents);
    assert.deepEqual(eventsView.map((delivery) => [delivery.type, delivery.redacted]).sort(), [
      ["attendee.registered", true],
      ["event.created", false],
      ["event.published", false],
      ["event.updated", false],
    ]);
  });

  test("redelivering a payload the key cannot read is 403 and queues nothing; with the scope it is 202, shown whole", async () => {
    const registered = byType(await log(full), "attendee.registered");
    const path = `/webhooks/${hook.id}/deliveries/${registered.id}/redeliver`;
    for (const client of [hooksOnly, withEvents, withAnalytics]) {
      const error = expectError(await client.post(path), 403, "FORBIDDEN");
      assert.deepEqual(error.details, { requiredScopes: ["attendees:read"] });
    }
    assert.equal(byType(await log(full), "attendee.registered").updatedAt, registered.updatedAt, "nothing was queued");
    const redelivered = expectStatus(await withAttendees.post(path), 202);
    assert.equal(redelivered.redacted, false);
    assert.equal(redelivered.payload.data.attendee.email, attendee.email);

    const created = byType(await log(full), "event.created");
    expectError(await withAttendees.post(`/webhooks/${hook.id}/deliveries/${created.id}/redeliver`), 403, "FORBIDDEN");
  });

  test("a ping's answer shows its data to any key with webhooks:write (it carries only the webhook)", async () => {
    const ping = expectStatus(await hooksOnly.post(`/webhooks/${hook.id}/ping`), 200);
    assert.equal(ping.type, "webhook.ping");
    assert.equal(ping.redacted, false);
    assert.equal(ping.payload.data.webhook.id, hook.id);
  });
});

describe("vendor notifications in the delivery log need vendors:read", () => {
  test("data hidden from keys without vendors:read, shown with it; redelivering needs it", async () => {
    const hook = expectStatus(await create(full, VENDOR_TYPES), 201);
    const vendor = expectStatus(
      await full.post("/vendors", {
        name: "Scoped Caterer",
        category: "catering",
        contact: { email: "s@example.com" },
      }),
      201,
    );
    const event = await createEvent(full);
    const booking = expectStatus(
      await full.post(`/events/${event.id}/vendors`, { vendorId: vendor.id, services: "Coffee" }),
      201,
    );
    const log = async (client: Client) =>
      expectStatus(await client.get(`/webhooks/${hook.id}/deliveries?limit=100`), 200).deliveries as any[];
    // Its first attempt fails (no network) and the retry is an hour away: nothing changes it afterwards.
    const deadline = Date.now() + 20_000;
    for (let entries = await log(full); entries.length < 1 || entries[0].attemptCount < 1; entries = await log(full)) {
      assert.ok(Date.now() < deadline, `first attempt not made in 20 s: ${JSON.stringify(entries)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const [whole] = await log(full);
    assert.equal(whole.type, "vendor.booking_requested");
    assert.equal(whole.redacted, false);
    assert.equal(whole.payload.data.booking.id, booking.id);
    assert.deepEqual(whole.payload.data.vendor, { id: vendor.id, name: "Scoped Caterer", category: "catering" });
    assert.deepEqual(await log(withVendors), [whole]);
    for (const client of [hooksOnly, withEvents, withAttendees, withAnalytics]) {
      const [hidden] = await log(client);
      assert.equal(hidden.redacted, true);
      assert.deepEqual(hidden.payload, { ...whole.payload, data: null });
      assert.doesNotMatch(JSON.stringify(hidden), /Scoped Caterer|Coffee/);
    }
    const path = `/webhooks/${hook.id}/deliveries/${whole.id}/redeliver`;
    for (const client of [hooksOnly, withEvents, withAnalytics]) {
      const error = expectError(await client.post(path), 403, "FORBIDDEN");
      assert.deepEqual(error.details, { requiredScopes: ["vendors:read"] });
    }
    const redelivered = expectStatus(await withVendors.post(path), 202);
    assert.equal(redelivered.redacted, false);
    assert.equal(redelivered.payload.data.booking.id, booking.id);
  });
});

describe("webhooks per account, by the key's tier", () => {
  test("a free key: 5; the 6th is 400 INVALID_REQUEST naming the limit; deleting one frees a slot; a starter key of the account gets 20", async () => {
    const free = await server.createKey({ account: `Free hooks ${Date.now()}`, tier: "free" });
    const client = clientFor(server, free.key);
    const made = [];
    for (let i = 0; i < 5; i++) made.push(expectStatus(await create(client, ["event.created"]), 201));
    const error = expectError(await create(client, ["event.created"]), 400, "INVALID_REQUEST");
    assert.match(error.message, /\b5 webhooks\b/);
    assert.match(error.message, /free/);
    assert.deepEqual(error.details, { limit: 5, tier: "free" });
    expectStatus(await client.delete(`/webhooks/${made[0].id}`), 200);
    expectStatus(await create(client, ["event.created"]), 201);
    expectError(await create(client, ["event.created"]), 400, "INVALID_REQUEST");

    const starter = clientFor(server, (await server.createKey({ account: free.accountId, tier: "starter" })).key);
    for (let i = 5; i < 20; i++) expectStatus(await create(starter, ["event.created"]), 201);
    assert.deepEqual(expectError(await create(starter, ["event.created"]), 400, "INVALID_REQUEST").details, {
      limit: 20,
      tier: "starter",
    });
    assert.equal(expectStatus(await starter.get("/webhooks?limit=100"), 200).pagination.total, 20);
  });

  test("concurrent creates at the cap: 10 at once with 3 slots left give exactly 3 × 201", async () => {
    const free = clientFor(
      server,
      (await server.createKey({ account: `Racing hooks ${Date.now()}`, tier: "free" })).key,
    );
    for (let i = 0; i < 2; i++) expectStatus(await create(free, ["event.created"]), 201);
    const answers = await Promise.all(Array.from({ length: 10 }, () => create(free, ["event.created"])));
    const statuses = answers.map((answer) => answer.status).sort();
    assert.deepEqual(statuses, [201, 201, 201, 400, 400, 400, 400, 400, 400, 400]);
    for (const answer of answers.filter((a) => a.status === 400)) expectError(answer, 400, "INVALID_REQUEST");
    assert.equal(expectStatus(await free.get("/webhooks?limit=100"), 200).pagination.total, 5);
  });
});
