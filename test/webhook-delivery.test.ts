/**
 * End-to-end: webhook delivery. The real server (its delivery worker on) sends to a real
 * HTTPS receiver on 127.0.0.1 whose test certificate it trusts through NODE_EXTRA_CA_CERTS:
 * every type with its headers, signature and envelope; subscriptions; the outbox (nothing for
 * a change that failed or was replayed); retries with the same envelope; disabling; the
 * delivery log, redelivery and ping.
 */
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { verifySignature } from "@event-service/core/webhooks";
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
import { attendeeInput, eventInput } from "./fixtures/builders.ts";
import { makeCertificate } from "./fixtures/conventions.ts";
import { deliveryEnv, type Received, type Receiver, startReceiver } from "./fixtures/receiver.ts";

let tls: ReturnType<typeof makeCertificate>;
let receiver: Receiver;

before(async () => {
  tls = makeCertificate();
  receiver = await startReceiver({ cert: tls.cert, key: readFileSync(tls.keyPath, "utf8") });
});

after(async () => {
  await receiver.close();
  rmSync(tls.dir, { recursive: true, force: true });
});

let pathCounter = 0;
/** A new receiver path, so each webhook's requests are told apart. */
const newPath = (label: string) => `/${label}/${++pathCounter}`;

/** Registers a webhook on a new receiver path and returns it (with its secret) and the path. */
async function hook(client: Client, events: string[], overrides: Record<string, unknown> = {}) {
  const path = newPath("hook");
  const webhook = expectStatus(
    await client.post("/webhooks", { url: `${receiver.origin}${path}`, events, ...overrides }),
    201,
  );
  return { webhook, path, secret: webhook.secret as string };
}

/** Waits until `path` got `count` requests and returns them. */
async function receivedAt(path: string, count: number): Promise<Received[]> {
  await receiver.waitFor(() => receiver.at(path).length >= count, `${count} requests at ${path}`);
  return receiver.at(path);
}

/** Asserts the documented headers, a valid signature over the raw body and the envelope; returns the envelope. */
function checkDelivery(request: Received, secret: string, accountId: string, accountName: string) {
  assert.equal(request.method, "POST");
  assert.equal(request.headers["content-type"], "application/json");
  assert.equal(request.headers["user-agent"], "Service-Webhooks/1.0");
  assert.match(String(request.headers["x-service-signature"]), /^sha256=[0-9a-f]{64}$/);
  assert.ok(
    verifySignature(secret, request.raw, request.headers["x-service-signature"] as string),
    "signature verifies over the raw body",
  );
  assert.equal(
    verifySignature("whsec_wrong-secret-0000000000", request.raw, request.headers["x-service-signature"] as string),
    false,
  );
  const envelope = request.body;
  assert.deepEqual(Object.keys(envelope).sort(), ["account", "createdAt", "data", "id", "type"]);
  assert.equal(envelope.id, request.headers["x-service-delivery"]);
  assert.match(envelope.id, /^dlv_[0-9a-f]{24}$/);
  assert.equal(envelope.type, request.headers["x-service-event"]);
  assert.match(envelope.createdAt, ISO_UTC);
  assert.deepEqual(envelope.account, { id: accountId, name: accountName });
  return envelope;
}

const byType = (requests: Received[], type: string) => requests.filter((request) => request.body.type === type);

describe("delivery of every type", () => {
  let server: TestServer;
  let client: Client;
  let accountId: string;

  before(async () => {
    // No test here times an attempt out; a long timeout keeps a slow first handshake on a loaded
    // machine from causing a (legitimate) retry, which "one envelope id per notification" would count.
    server = await startServer({ env: deliveryEnv(tls.certPath, { WEBHOOK_TIMEOUT_MS: "15000" }) });
    const key = await server.createKey({ account: "Delivery Co" });
    accountId = key.accountId;
    client = clientFor(server, key.key);
  });
  after(() => server.stop());

  test("each event and attendee type is sent when its change commits, signed, with the spec's envelope and data", async () => {
    const { webhook, path, secret } = await hook(client, ["*"]);
    const event = await createEvent(client, { capacity: 50 });
    const [created] = await receivedAt(path, 1);
    const envelope = checkDelivery(created!, secret, accountId, "Delivery Co");
    assert.equal(envelope.type, "event.created");
    // Spec 6.2: data.event with id, name, startDate, endDate, location (city, country), status.
    assert.equal(envelope.data.event.id, event.id);
    assert.equal(envelope.data.event.name, event.name);
    assert.equal(envelope.data.event.startDate, event.startDate);
    assert.equal(envelope.data.event.endDate, event.endDate);
    assert.equal(envelope.data.event.location.city, "Berlin");
    assert.equal(envelope.data.event.location.country, "DE");
    assert.equal(envelope.data.event.status, "draft");
    assert.deepEqual(envelope.data.event, event);

    const renamed = expectStatus(await client.put(`/events/${event.id}`, { name: "Renamed Summit" }), 200);
    const attendee = await register(client, event.id, { carbonOffset: { opted: false } });
    const updated = expectStatus(await client.put(`/attendees/${attendee.id}`, { company: "Analytical Engines" }), 200);
    // The door opens when the event is published.
    await moveEvent(client, event.id, "published");
    const checkedIn = expectStatus(
      await client.post(`/events/${event.id}/check-in`, { confirmationCode: attendee.confirmationCode }),
      200,
    );
    const second = await register(client, event.id);
    await moveAttendee(client, second.id, "cancelled");
    await moveEvent(client, event.id, "completed");
    const other = await createEvent(client);
    await moveEvent(client, other.id, "cancelled");
    expectStatus(await client.delete(`/events/${other.id}`), 200);

    // event.created, event.updated, attendee.registered, attendee.updated, publish (updated, published),
    // check-in (updated, checked_in), attendee.registered, cancellation (updated, cancelled), completion
    // (updated, completed, two reports), event.created, cancellation (updated, cancelled), event.deleted.
    const requests = await receivedAt(path, 19);
    for (const request of requests) checkDelivery(request, secret, accountId, "Delivery Co");
    assert.equal(new Set(requests.map((r) => r.body.id)).size, requests.length, "one envelope id per notification");

    // Deliveries run concurrently: the rename is told apart from the status changes by what it changed.
    const eventUpdated = byType(requests, "event.updated").find((r) => "name" in r.body.data.previous);
    assert.deepEqual(eventUpdated!.body.data.event, renamed);
    assert.deepEqual(eventUpdated!.body.data.previous, { name: event.name });

    // Spec 6.2: data.attendee with id, firstName, lastName, email, ticketType, carbonOffset; data.event with id, name.
    const registered = byType(requests, "attendee.registered");
    assert.equal(registered.length, 2);
    const first = registered.find((r) => r.body.data.attendee.id === attendee.id)!.body.data;
    assert.deepEqual(first.event, { id: event.id, name: "Renamed Summit" });
    for (const field of ["id", "firstName", "lastName", "email", "ticketType", "carbonOffset"])
      assert.deepEqual(first.attendee[field], attendee[field], field);
    assert.deepEqual(first.attendee.carbonOffset, { opted: false });

    const attendeeUpdates = byType(requests, "attendee.updated");
    assert.equal(attendeeUpdates.length, 3, "the edit, the check-in and the cancellation");
    // Deliveries run concurrently: their arrival order is not the order of the changes.
    const edit = attendeeUpdates.find((r) => "company" in r.body.data.previous)!;
    assert.deepEqual(edit.body.data.attendee, updated);
    assert.deepEqual(edit.body.data.previous, { company: null });
    const scan = attendeeUpdates.find(
      (r) => r.body.data.attendee.id === attendee.id && r.body.data.previous.status === "confirmed",
    )!;
    assert.deepEqual(scan.body.data.previous, { status: "confirmed", checkedInAt: null });
    assert.equal(scan.body.data.attendee.status, "checked-in");

    const [checkedInNote] = byType(requests, "attendee.checked_in");
    assert.deepEqual(checkedInNote!.body.data.attendee, checkedIn);
    assert.equal(checkedInNote!.body.data.previousStatus, "confirmed");
    const [cancelledNote] = byType(requests, "attendee.cancelled");
    assert.equal(cancelledNote!.body.data.attendee.id, second.id);
    assert.equal(cancelledNote!.body.data.attendee.status, "cancelled");

    const [published] = byType(requests, "event.published");
    assert.equal(published!.body.data.event.status, "published");
    assert.equal(published!.body.data.previousStatus, "draft");
    const [completed] = byType(requests, "event.completed");
    assert.equal(completed!.body.data.event.status, "completed");
    const cancelledEvents = byType(requests, "event.cancelled");
    assert.deepEqual(
      cancelledEvents.map((r) => r.body.data.event.id),
      [other.id],
    );
    const [deleted] = byType(requests, "event.deleted");
    assert.equal(deleted!.body.data.event.id, other.id);
    assert.equal(deleted!.body.data.event.status, "cancelled");

    const urls = {
      "sustainability.report_generated": `${server.url}/v1/events/${event.id}/sustainability-report`,
      "analytics.report_ready": `${server.url}/v1/analytics/events/${event.id}`,
    };
    for (const [type, url] of Object.entries(urls)) {
      const [report] = byType(requests, type);
      assert.equal(report!.body.data.event.id, event.id, type);
      assert.equal(report!.body.data.url, url);
    }
    const [analytics] = byType(requests, "analytics.report_ready");
    // The per-event analytics report, as GET /v1/analytics/events/:id answered at the completion.
    const report = analytics!.body.data.report;
    assert.equal(report.eventId, event.id);
    assert.equal(report.status, "completed");
    assert.deepEqual(
      [
        report.attendance.registered,
        report.attendance.active,
        report.attendance.checkedIn,
        report.attendance.cancelled,
        report.attendance.capacityUtilizationPercent,
      ],
      [2, 1, 1, 1, 2],
    );
    assert.equal(typeof report.generatedAt, "string");
    const { generatedAt: _at, ...asServed } = report;
    assert.deepEqual(asServed, expectStatus(await client.get(`/analytics/events/${event.id}`), 200));
    expectStatus(await client.delete(`/webhooks/${webhook.id}`), 200);
    // The server logs each attempt (ids, type, outcome), never the secret or the body.
    assert.match(server.output(), /"msg":"webhook delivery attempt"/);
    assert.equal(server.output().includes(secret), false);
    assert.equal(server.output().includes("Renamed Summit"), false);
  });

  test("sustainability and analytics types: carbon offset, goal achieved once, capacity threshold once, reports on completion", async () => {
    const { path, secret } = await hook(client, [
      "sustainability.carbon_offset",
      "sustainability.goal_achieved",
      "analytics.threshold_exceeded",
    ]);
    const event = await createEvent(client, { capacity: 10, sustainabilityGoals: { carbonNeutral: true } });
    // 500 km by train: 500 x 0.03546 = 17.73 kg CO2e (emission factors of carbon/emission-factors.ts).
    const traveller = await register(client, event.id, {
      carbonOffset: { opted: false, travelDistance: 500, travelMode: "train" },
    });
    // 0.15 USD buys 10 kg at 15 USD per tonne: not yet enough.
    const partial = await register(client, event.id, { carbonOffset: { opted: true, amount: 0.15 } });
    const [offset] = await receivedAt(path, 1);
    const offsetEnvelope = checkDelivery(offset!, secret, accountId, "Delivery Co");
    assert.equal(offsetEnvelope.type, "sustainability.carbon_offset");
    assert.equal(offsetEnvelope.data.attendee.id, partial.id);
    assert.deepEqual(offsetEnvelope.data.carbonOffset, { opted: true, amount: 0.15 });
    assert.equal(offsetEnvelope.data.offsetKg, 10);

    // Another 0.15 USD: 20 kg of offsets cover the 17.73 kg: the goal is achieved, once.
    await register(client, event.id, { carbonOffset: { opted: true, amount: 0.15 } });
    const afterGoal = await receivedAt(path, 3);
    const [goal] = byType(afterGoal, "sustainability.goal_achieved");
    assert.deepEqual(goal!.body.data, {
      event: { id: event.id, name: event.name },
      goal: {
        type: "carbon_neutral",
        achieved: true,
        metrics: { totalEmissions: 17.73, totalOffset: 20, percentage: 112.8 },
      },
    });
    await register(client, event.id, { carbonOffset: { opted: true, amount: 1 } });
    // 4 active of 10; five more reach 9 of 10 = 90%: the threshold, once.
    for (let i = 0; i < 5; i++) await register(client, event.id);
    const afterThreshold = await receivedAt(path, 5);
    const [threshold] = byType(afterThreshold, "analytics.threshold_exceeded");
    assert.deepEqual(threshold!.body.data, {
      event: { id: event.id, name: event.name },
      metric: "capacity_utilization",
      threshold: 90,
      value: 90,
      activeRegistrations: 9,
      capacity: 10,
    });
    await register(client, event.id);
    await moveAttendee(client, traveller.id, "cancelled");
    await register(client, event.id);

    // Only the subscribed types were written: ask the delivery log, which the outbox filled at commit.
    const { webhook } = {
      webhook: (await client.get("/webhooks")).body.webhooks.find((w: any) => w.url === `${receiver.origin}${path}`),
    };
    const log = expectStatus(await client.get(`/webhooks/${webhook.id}/deliveries?limit=100`), 200);
    assert.deepEqual(log.deliveries.map((d: any) => d.type).sort(), [
      "analytics.threshold_exceeded",
      "sustainability.carbon_offset",
      "sustainability.carbon_offset",
      "sustainability.carbon_offset",
      "sustainability.goal_achieved",
    ]);
  });

  test("an unsubscribed type or an inactive webhook gets nothing", async () => {
    const only = await hook(client, ["attendee.registered"]);
    const inactive = await hook(client, ["*"], { active: false });
    const event = await createEvent(client);
    const attendee = await register(client, event.id);
    await moveEvent(client, event.id, "published");
    const [request] = await receivedAt(only.path, 1);
    assert.equal(request!.body.type, "attendee.registered");
    assert.equal(request!.body.data.attendee.id, attendee.id);
    const onlyLog = expectStatus(await client.get(`/webhooks/${only.webhook.id}/deliveries`), 200);
    assert.deepEqual(
      onlyLog.deliveries.map((d: any) => d.type),
      ["attendee.registered"],
    );
    const inactiveLog = expectStatus(await client.get(`/webhooks/${inactive.webhook.id}/deliveries`), 200);
    assert.deepEqual(inactiveLog.deliveries, []);
    assert.equal(inactiveLog.pagination.total, 0);
    assert.equal(receiver.at(inactive.path).length, 0);
  });

  test("a change that fails writes nothing; an Idempotency-Key replay sends nothing again", async () => {
    const { webhook, path } = await hook(client, ["*"]);
    const event = await createEvent(client, { capacity: 1 });
    await register(client, event.id);
    await receivedAt(path, 3);
    expectError(await client.post("/attendees", attendeeInput(event.id)), 400, "EVENT_FULL");
    expectError(await client.put(`/events/${event.id}`, { status: "completed" }), 422, "INVALID_STATE_TRANSITION");
    expectError(await client.put(`/events/${event.id}`, { capacity: 0 }), 400, "INVALID_REQUEST");
    const headers = { "idempotency-key": `replay-${Date.now()}` };
    const body = eventInput({ name: "Once" });
    const first = await client.post("/events", body, { headers });
    const replay = await client.post("/events", body, { headers });
    assert.equal(first.status, 201);
    assert.equal(replay.headers.get("idempotent-replayed"), "true");
    assert.deepEqual(replay.body, first.body);
    const log = expectStatus(await client.get(`/webhooks/${webhook.id}/deliveries?limit=100`), 200);
    // One registration fills the capacity of 1: 100% also crosses the 90% threshold.
    assert.deepEqual(log.deliveries.map((d: any) => d.type).sort(), [
      "analytics.threshold_exceeded",
      "attendee.registered",
      "event.created",
      "event.created",
    ]);
  });
});
