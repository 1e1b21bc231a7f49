/**
 * End-to-end: configured thresholds (docs/api.md, "Thresholds"). CRUD with the documented answers,
 * another account's threshold or event `404`, bad input `400` naming the field, the scopes; and
 * the crossing, through the real server and its delivery worker to an HTTPS receiver: a
 * `capacity_utilization` threshold at 50% above sends one `analytics.threshold_exceeded` per
 * crossing, again after the value went back; the built-in 90% rule gives way to the account's
 * own capacity threshold while another account keeps it; the footprint metrics cross at the
 * activity records and registrations that move them.
 */
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { createClient, EventServiceError } from "@event-service/client";
import { startServer, type TestServer } from "./_setup.ts";
import {
  type Client,
  clientFor,
  createEvent,
  expectError,
  expectStatus,
  ISO_UTC,
  moveAttendee,
  moveEvent,
  register,
} from "./fixtures/api.ts";
import { makeCertificate } from "./fixtures/conventions.ts";
import { deliveryEnv, type Receiver, startReceiver } from "./fixtures/receiver.ts";

let tls: ReturnType<typeof makeCertificate>;
let receiver: Receiver;
let server: TestServer;
let acme: Client;
let globex: Client;
let acmeName: string;

before(async () => {
  tls = makeCertificate();
  receiver = await startReceiver({ cert: tls.cert, key: readFileSync(tls.keyPath, "utf8") });
  server = await startServer({ env: deliveryEnv(tls.certPath, { WEBHOOK_TIMEOUT_MS: "15000" }) });
  acmeName = `Threshold Acme ${Date.now()}`;
  acme = clientFor(server, (await server.createKey({ account: acmeName })).key);
  globex = clientFor(server, (await server.createKey({ account: `Threshold Globex ${Date.now()}` })).key);
});

after(async () => {
  const output = server.output();
  assert.equal(await server.stop("SIGTERM"), 0);
  assert.doesNotMatch(output, /"msg":"unexpected error"/);
  await receiver.close();
  rmSync(tls.dir, { recursive: true, force: true });
});

const THRESHOLD_ID = /^thr_[0-9a-f]{24}$/;

describe("the thresholds resource", () => {
  test("create, get, list, update and delete", async () => {
    const event = await createEvent(acme);
    const wide = expectStatus(
      await acme.post("/thresholds", { metric: "total_emissions_kg", comparison: "above", value: 2500.5 }),
      201,
    );
    assert.match(wide.id, THRESHOLD_ID);
    assert.match(wide.createdAt, ISO_UTC);
    assert.deepEqual(wide, {
      id: wide.id,
      metric: "total_emissions_kg",
      comparison: "above",
      value: 2500.5,
      eventId: null,
      createdAt: wide.createdAt,
      updatedAt: wide.createdAt,
    });
    const own = expectStatus(
      await acme.post("/thresholds", {
        metric: "renewable_share_percent",
        comparison: "below",
        value: 40,
        eventId: event.id,
      }),
      201,
    );
    assert.equal(own.eventId, event.id);
    assert.deepEqual(expectStatus(await acme.get(`/thresholds/${own.id}`), 200), own);

    const page = expectStatus(await acme.get("/thresholds?limit=1"), 200);
    assert.deepEqual(
      page.thresholds.map((t: { id: string }) => t.id),
      [own.id],
    );
    assert.deepEqual(page.pagination, { page: 1, limit: 1, total: 2, totalPages: 2, hasNext: true, hasPrev: false });
    const second = expectStatus(await acme.get("/thresholds?page=2&limit=1"), 200);
    assert.deepEqual(
      second.thresholds.map((t: { id: string }) => t.id),
      [wide.id],
    );

    const updated = expectStatus(await acme.put(`/thresholds/${own.id}`, { value: 25, eventId: null }), 200);
    assert.deepEqual(
      { ...updated, updatedAt: "x" },
      { ...own, value: 25, eventId: null, updatedAt: "x" },
      "only the fields given changed",
    );
    assert.ok(updated.updatedAt >= own.updatedAt);
    assert.deepEqual(expectStatus(await acme.get(`/thresholds/${own.id}`), 200), updated);

    assert.deepEqual(expectStatus(await acme.delete(`/thresholds/${own.id}`), 200), {
      success: true,
      message: `Threshold ${own.id} was deleted.`,
      deletedId: own.id,
    });
    expectError(await acme.get(`/thresholds/${own.id}`), 404, "NOT_FOUND");
    expectError(await acme.delete(`/thresholds/${own.id}`), 404, "NOT_FOUND");
    expectStatus(await acme.delete(`/thresholds/${wide.id}`), 200);
  });

  test("another account's threshold, another account's event and a missing event are 404", async () => {
    const threshold = expectStatus(
      await acme.post("/thresholds", { metric: "capacity_utilization", comparison: "above", value: 99 }),
      201,
    );
    expectError(await globex.get(`/thresholds/${threshold.id}`), 404, "NOT_FOUND");
    expectError(await globex.put(`/thresholds/${threshold.id}`, { value: 10 }), 404, "NOT_FOUND");
    expectError(await globex.delete(`/thresholds/${threshold.id}`), 404, "NOT_FOUND");
    assert.equal(expectStatus(await globex.get("/thresholds"), 200).pagination.total, 0);

    const foreign = await createEvent(globex);
    const body = { metric: "capacity_utilization", comparison: "above", value: 80, eventId: foreign.id };
    expectError(await acme.post("/thresholds", body), 404, "NOT_FOUND", "eventId");
    expectError(
      await acme.post("/thresholds", { ...body, eventId: "evt_000000000000000000000000" }),
      404,
      "NOT_FOUND",
      "eventId",
    );
    expectError(await acme.put(`/thresholds/${threshold.id}`, { eventId: foreign.id }), 404, "NOT_FOUND", "eventId");
    assert.equal(expectStatus(await acme.get(`/thresholds/${threshold.id}`), 200).eventId, null);
    expectStatus(await acme.delete(`/thresholds/${threshold.id}`), 200);
  });

  test("bad input is 400 naming the field; nothing is stored", async () => {
    const before = expectStatus(await acme.get("/thresholds"), 200).pagination.total;
    const valid = { metric: "capacity_utilization", comparison: "above", value: 50 };
    const refused: Array<[unknown, string]> = [
      [{ ...valid, metric: "attendance" }, "metric"],
      [{ ...valid, comparison: "at" }, "comparison"],
      [{ ...valid, value: 101 }, "value"],
      [{ ...valid, value: -1 }, "value"],
      [{ ...valid, value: "50" }, "value"],
      [{ ...valid, value: null }, "value"],
      [{ metric: "capacity_utilization", comparison: "above" }, "value"],
      [{ ...valid, eventId: 42 }, "eventId"],
      [{ ...valid, extra: true }, "extra"],
    ];
    for (const [body, field] of refused)
      expectError(await acme.post("/thresholds", body), 400, "INVALID_REQUEST", field);
    expectError(await acme.get("/thresholds?limit=0"), 400, "INVALID_REQUEST", "limit");

    const kg = expectStatus(
      await acme.post("/thresholds", { ...valid, metric: "total_emissions_kg", value: 150 }),
      201,
    );
    // 150 is fine in kg, not once the metric is a percentage.
    expectError(
      await acme.put(`/thresholds/${kg.id}`, { metric: "offset_coverage_percent" }),
      400,
      "INVALID_REQUEST",
      "value",
    );
    expectError(await acme.put(`/thresholds/${kg.id}`, { comparison: "over" }), 400, "INVALID_REQUEST", "comparison");
    assert.equal(expectStatus(await acme.get(`/thresholds/${kg.id}`), 200).metric, "total_emissions_kg");
    expectStatus(await acme.delete(`/thresholds/${kg.id}`), 200);
    assert.equal(expectStatus(await acme.get("/thresholds"), 200).pagination.total, before);
  });

  test("reading needs events:read or analytics:read, changing events:write", async () => {
    const created = await server.createKey({ account: acmeName, scopes: ["events:write"] });
    const accountId = created.accountId;
    const writer = clientFor(server, created.key);
    const threshold = expectStatus(
      await writer.post("/thresholds", { metric: "capacity_utilization", comparison: "below", value: 10 }),
      201,
    );
    const keyWith = async (scopes: string[]) =>
      clientFor(server, (await server.createKey({ account: accountId, scopes })).key);
    for (const scopes of [["events:read"], ["analytics:read"]]) {
      const reader = await keyWith(scopes);
      expectStatus(await reader.get(`/thresholds/${threshold.id}`), 200);
      expectStatus(await reader.get("/thresholds"), 200);
      expectError(await reader.put(`/thresholds/${threshold.id}`, { value: 5 }), 403, "FORBIDDEN");
      expectError(await reader.delete(`/thresholds/${threshold.id}`), 403, "FORBIDDEN");
      expectError(
        await reader.post("/thresholds", { metric: "capacity_utilization", comparison: "below", value: 5 }),
        403,
        "FORBIDDEN",
      );
    }
    const attendeesOnly = await keyWith(["attendees:read", "attendees:write"]);
    const refused = expectError(await attendeesOnly.get("/thresholds"), 403, "FORBIDDEN");
    assert.equal(
      refused.message,
      "This API key lacks the events:read or the events:write or the analytics:read scope.",
    );
    expectStatus(await writer.delete(`/thresholds/${threshold.id}`), 200);
  });
});

describe("the client's thresholds", () => {
  test("create, list, listAll, get, update and delete; a 404 is an EventServiceError", async () => {
    const client = createClient({ baseUrl: server.url, apiKey: (await server.createKey()).key });
    const event = await client.events.create({
      name: "Client Summit",
      location: { address: "Main St 1", city: "Berlin", country: "DE" },
      startDate: "2038-05-01T09:00:00.000Z",
      endDate: "2038-05-01T17:00:00.000Z",
      capacity: 20,
      category: "conference",
    });
    const made = await client.thresholds.create({
      metric: "waste_diversion_percent",
      comparison: "below",
      value: 60,
      eventId: event.id,
    });
    assert.deepEqual(
      [made.metric, made.comparison, made.value, made.eventId],
      ["waste_diversion_percent", "below", 60, event.id],
    );
    assert.deepEqual(await client.thresholds.get(made.id), made);
    const page = await client.thresholds.list({ limit: 10 });
    assert.deepEqual(
      page.thresholds.map((t) => t.id),
      [made.id],
    );
    const all = [];
    for await (const threshold of client.thresholds.listAll()) all.push(threshold.id);
    assert.deepEqual(all, [made.id]);
    const updated = await client.thresholds.update(made.id, { comparison: "above" });
    assert.equal(updated.comparison, "above");
    assert.deepEqual(await client.thresholds.delete(made.id), {
      success: true,
      message: `Threshold ${made.id} was deleted.`,
      deletedId: made.id,
    });
    await assert.rejects(
      client.thresholds.get(made.id),
      (error: unknown) => error instanceof EventServiceError && error.status === 404 && error.code === "NOT_FOUND",
    );
  });
});

describe("crossing a threshold notifies", () => {
  /** A webhook of the client's account on a new receiver path, subscribed to every type. */
  let paths = 0;
  async function hook(client: Client) {
    const path = `/thresholds/${++paths}`;
    const webhook = expectStatus(
      await client.post("/webhooks", { url: `${receiver.origin}${path}`, events: ["*"] }),
      201,
    );
    return { webhook, path };
  }

  /** The data of the webhook's queued `analytics.threshold_exceeded` (its delivery log, written when the change commits), oldest first. */
  async function exceeded(client: Client, webhookId: string) {
    const log = expectStatus(await client.get(`/webhooks/${webhookId}/deliveries?limit=100`), 200);
    return log.deliveries
      .filter((delivery: { type: string }) => delivery.type === "analytics.threshold_exceeded")
      .reverse()
      .map((delivery: { payload: { data: unknown } }) => delivery.payload.data);
  }

  test("a capacity threshold at 50% above: once per crossing, again after going back; the built-in 90% rule gives way", async () => {
    const key = await server.createKey({ account: `Crossing ${Date.now()}` });
    const client = clientFor(server, key.key);
    const { webhook, path } = await hook(client);
    const event = await createEvent(client, { capacity: 10 });
    await moveEvent(client, event.id, "published");
    const threshold = expectStatus(
      await client.post("/thresholds", { metric: "capacity_utilization", comparison: "above", value: 50 }),
      201,
    );

    const attendees = [];
    for (let i = 0; i < 4; i++) attendees.push(await register(client, event.id));
    assert.deepEqual(await exceeded(client, webhook.id), []);
    attendees.push(await register(client, event.id));
    const expected = {
      event: { id: event.id, name: event.name },
      metric: "capacity_utilization",
      threshold: 50,
      value: 50,
      thresholdId: threshold.id,
    };
    assert.deepEqual(await exceeded(client, webhook.id), [expected]);
    // Sent, signed, to the receiver.
    const [sent] = await receiver
      .waitFor(
        (received) => received.some((r) => r.path === path && r.body.type === "analytics.threshold_exceeded"),
        "the threshold notification",
      )
      .then((received) => received.filter((r) => r.path === path && r.body.type === "analytics.threshold_exceeded"));
    assert.deepEqual(sent!.body.data, expected);
    assert.equal(sent!.headers["x-service-event"], "analytics.threshold_exceeded");

    // Up to 100%: no second notice, and no built-in one at 90%.
    for (let i = 0; i < 5; i++) attendees.push(await register(client, event.id));
    assert.equal((await exceeded(client, webhook.id)).length, 1);

    // Below (40%), then above again: a second crossing, with its concrete value.
    for (const attendee of attendees.splice(4, 6)) await moveAttendee(client, attendee.id, "cancelled");
    assert.equal(expectStatus(await client.get(`/events/${event.id}`), 200).attendeeCount, 4);
    assert.equal((await exceeded(client, webhook.id)).length, 1);
    await register(client, event.id);
    await register(client, event.id);
    assert.deepEqual(await exceeded(client, webhook.id), [expected, expected]);
    await receiver.waitFor(
      (received) =>
        received.filter((r) => r.path === path && r.body.type === "analytics.threshold_exceeded").length === 2,
      "the second threshold notification",
    );

    // Another account without a capacity threshold keeps the built-in rule at 90%.
    const plain = clientFor(server, (await server.createKey({ account: `Plain ${Date.now()}` })).key);
    const plainHook = await hook(plain);
    const other = await createEvent(plain, { capacity: 10 });
    await moveEvent(plain, other.id, "published");
    for (let i = 0; i < 9; i++) await register(plain, other.id);
    assert.deepEqual(await exceeded(plain, plainHook.webhook.id), [
      {
        event: { id: other.id, name: other.name },
        metric: "capacity_utilization",
        threshold: 90,
        value: 90,
        activeRegistrations: 9,
        capacity: 10,
      },
    ]);
  });

  test("a threshold for one event watches that event only, and a changed one is judged afresh", async () => {
    const client = clientFor(server, (await server.createKey({ account: `One Event ${Date.now()}` })).key);
    const { webhook } = await hook(client);
    const watched = await createEvent(client, { capacity: 4 });
    const other = await createEvent(client, { capacity: 4 });
    await moveEvent(client, watched.id, "published");
    await moveEvent(client, other.id, "published");
    const threshold = expectStatus(
      await client.post("/thresholds", {
        metric: "capacity_utilization",
        comparison: "above",
        value: 50,
        eventId: watched.id,
      }),
      201,
    );
    for (let i = 0; i < 3; i++) await register(client, other.id);
    assert.deepEqual(
      await exceeded(client, webhook.id),
      [],
      "the other event is not watched (nor by the built-in rule)",
    );
    await register(client, watched.id);
    await register(client, watched.id);
    assert.deepEqual(
      (await exceeded(client, webhook.id)).map((data: { value: number }) => data.value),
      [50],
    );
    // Raised to 75%: forgotten state, judged at the next change (3 of 4).
    expectStatus(await client.put(`/thresholds/${threshold.id}`, { value: 75 }), 200);
    await register(client, watched.id);
    assert.deepEqual(
      (await exceeded(client, webhook.id)).map((data: { value: number; threshold: number }) => [
        data.threshold,
        data.value,
      ]),
      [
        [50, 50],
        [75, 75],
      ],
    );
  });

  test("footprint metrics: activity records and registrations cross total emissions, emissions per attendee and waste diversion", async () => {
    const client = clientFor(server, (await server.createKey({ account: `Footprint ${Date.now()}` })).key);
    const { webhook } = await hook(client);
    const festival = await createEvent(client, { capacity: 100 });
    const yard = await createEvent(client, { capacity: 100 });
    const threshold = async (metric: string, comparison: string, value: number, eventId: string) =>
      expectStatus(await client.post("/thresholds", { metric, comparison, value, eventId }), 201);
    const total = await threshold("total_emissions_kg", "above", 1000, festival.id);
    const perAttendee = await threshold("emissions_per_attendee_kg", "below", 500, festival.id);
    const diversion = await threshold("waste_diversion_percent", "below", 50, yard.id);
    const record = async (eventId: string, body: Record<string, unknown>) =>
      expectStatus(await client.post(`/events/${eventId}/activities`, body), 201);
    const seen = async () =>
      (await exceeded(client, webhook.id)).map((data: { thresholdId: string; value: number }) => [
        data.thresholdId,
        data.value,
      ]);

    // Diesel from the default factors (2.51206 kg per litre): 753.618 kg, then 1,256.03 kg.
    const diesel = { kind: "fuel", fuel: "diesel", unit: "litres" };
    await record(festival.id, { ...diesel, quantity: 300 });
    assert.deepEqual(await seen(), []);
    const second = await record(festival.id, { ...diesel, quantity: 200 });
    assert.deepEqual(await seen(), [[total.id, 1256.03]]);
    // Back under by deleting the record, over again by recording it anew: a second crossing.
    expectStatus(await client.delete(`/events/${festival.id}/activities/${second.id}`), 200);
    await record(festival.id, { ...diesel, quantity: 200 });
    assert.deepEqual(await seen(), [
      [total.id, 1256.03],
      [total.id, 1256.03],
    ]);
    // Registrations move emissions per attendee (none without attendees): 1,256.03 over 1, 2, then
    // 3 active ones; 418.677 is at most 500.
    await register(client, festival.id);
    await register(client, festival.id);
    assert.equal((await seen()).length, 2);
    await register(client, festival.id);
    assert.deepEqual((await seen())[2], [perAttendee.id, 418.677]);

    // Waste: all landfilled (0% diverted), then 70% diverted (back), then 46.667% (again).
    await record(yard.id, { kind: "waste", stream: "landfill", quantity: 600, unit: "kg" });
    assert.deepEqual((await seen()).slice(3), [[diversion.id, 0]]);
    await record(yard.id, { kind: "waste", stream: "recycling", material: "paper", quantity: 1400, unit: "kg" });
    assert.equal((await seen()).length, 4);
    await record(yard.id, { kind: "waste", stream: "landfill", quantity: 1000, unit: "kg" });
    assert.deepEqual((await seen()).slice(3), [
      [diversion.id, 0],
      [diversion.id, 46.667],
    ]);
    const analytics = expectStatus(await client.get(`/analytics/events/${yard.id}`), 200);
    assert.equal(analytics.sustainability.resources.diversionRatePercent, 46.667);
  });
});
