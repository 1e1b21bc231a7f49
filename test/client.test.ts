/** The typed client (@event-service/client, built) against the real server. */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createClient, EventServiceError } from "@event-service/client";
import {
  signPayload,
  signWebhook,
  verifySignature,
  verifyWebhook,
  WebhookVerificationError,
} from "@event-service/client/webhooks";
import { verify as octokitVerify } from "@octokit/webhooks-methods";
import { attendeeInput, eventInput } from "./fixtures/builders.ts";
import { waitForMinuteRoom } from "./fixtures/conventions.ts";
import { startServer, type TestServer } from "./_setup.ts";

describe("@event-service/client", () => {
  let server: TestServer;
  let client: ReturnType<typeof createClient>;

  before(async () => {
    server = await startServer();
    client = createClient({ baseUrl: server.url, apiKey: (await server.createKey()).key });
  });
  after(async () => assert.equal(await server.stop(), 0));

  test("events and attendees round trip, check-in included", async () => {
    const event = await client.events.create(eventInput({ capacity: 2, tags: ["Client"] }) as never);
    assert.equal(event.status, "draft");
    assert.deepEqual(event.tags, ["client"]);
    assert.equal((await client.events.update(event.id, { status: "published" })).status, "published");
    const attendee = await client.attendees.register(attendeeInput(event.id) as never);
    assert.equal(attendee.status, "confirmed");
    assert.equal((await client.attendees.get(attendee.id)).email, attendee.email);
    const page = await client.attendees.list({ eventId: event.id, limit: 10 });
    assert.deepEqual(
      page.attendees.map((a) => a.id),
      [attendee.id],
    );
    assert.equal(page.pagination.total, 1);
    const checkedIn = await client.events.checkIn(event.id, { confirmationCode: attendee.confirmationCode });
    assert.equal(checkedIn.status, "checked-in");
    const undone = await client.events.undoCheckIn(event.id, attendee.id);
    assert.deepEqual(undone, { ...checkedIn, status: "confirmed", checkedInAt: null, updatedAt: undone.updatedAt });
    await assert.rejects(
      client.events.undoCheckIn(event.id, attendee.id),
      (error: any) =>
        error.status === 422 && error.code === "INVALID_STATE_TRANSITION" && error.details.reason === "not_checked_in",
    );
    assert.equal(
      (await client.events.checkIn(event.id, { confirmationCode: attendee.confirmationCode })).status,
      "checked-in",
    );
    assert.equal((await client.events.list({ tags: "client" })).pagination.total, 1);
    const second = await client.attendees.register(attendeeInput(event.id) as never);
    assert.deepEqual(await client.attendees.delete(second.id), {
      success: true,
      message: `Attendee ${second.id} was erased.`,
      deletedId: second.id,
    });
    await assert.rejects(
      client.attendees.get(second.id),
      (error: any) => error.status === 404 && error.code === "NOT_FOUND",
    );
    await assert.rejects(
      client.attendees.delete(second.id),
      (error: any) => error.status === 404 && error.code === "NOT_FOUND",
    );
    assert.deepEqual(await client.events.delete(event.id), {
      success: true,
      message: `Event ${event.id} and its registrations were deleted.`,
      deletedId: event.id,
    });
  });

  test("listAll walks every page: 105 registrations come back once each, in order", async () => {
    const event = await client.events.create(eventInput({ capacity: 200 }) as never);
    const registered: string[] = [];
    for (let i = 0; i < 105; i++)
      registered.push(
        (await client.attendees.register(attendeeInput(event.id, { email: `walk-${i}@example.com` }) as never)).id,
      );
    const walked: string[] = [];
    for await (const attendee of client.attendees.listAll({
      eventId: event.id,
      sortBy: "registrationDate",
      order: "asc",
    }))
      walked.push(attendee.id);
    assert.deepEqual(walked, registered);
    const small: string[] = [];
    for await (const attendee of client.attendees.listAll({ eventId: event.id, limit: 50, order: "asc" }))
      small.push(attendee.id);
    assert.deepEqual(small, registered);
  });

  test("the service's 429 surfaces with its Retry-After when it is longer than the client will wait", async () => {
    // Two a minute: the third request is refused (each tier's limit is tested in core's rate-limit-headers.test.ts).
    const limited = await server.createKey({ account: `Limited ${Date.now()}`, tier: "enterprise", perMinute: 2 });
    const capped = createClient({ baseUrl: server.url, apiKey: limited.key, retry: { maxDelayMs: 10 } });
    // The three requests must fall into one clock minute, or the window resets halfway and none is refused.
    await waitForMinuteRoom(5);
    for (let i = 0; i < 2; i++) await capped.events.list({ limit: 1 });
    await assert.rejects(capped.events.list({ limit: 1 }), (error: unknown) => {
      assert.ok(EventServiceError.is(error));
      assert.equal(error.status, 429);
      assert.equal(error.code, "RATE_LIMIT_EXCEEDED");
      assert.ok(error.retryAfter! >= 1 && error.retryAfter! <= 60, `Retry-After ${error.retryAfter}`);
      return true;
    });
  });

  test("analytics: sustainability, one event, trends and their errors", async () => {
    const analyst = createClient({
      baseUrl: server.url,
      apiKey: (await server.createKey({ account: "Client Analytics" })).key,
    });
    const first = await analyst.events.create(
      eventInput({ startDate: "2038-01-04T09:00:00Z", endDate: "2038-01-04T10:00:00Z" }) as never,
    );
    const second = await analyst.events.create(
      eventInput({ startDate: "2038-04-04T09:00:00Z", endDate: "2038-04-04T10:00:00Z" }) as never,
    );
    await analyst.attendees.register(
      attendeeInput(first.id, { carbonOffset: { opted: false, travelMode: "train", travelDistance: 100 } }) as never,
    );
    await analyst.attendees.register(attendeeInput(second.id) as never);
    const totals = await analyst.analytics.sustainability({
      granularity: "monthly",
      eventIds: `${first.id},${second.id}`,
    });
    assert.equal(totals.carbonFootprint.totalEmissionsKg, 3.546);
    assert.equal(totals.methodology.emissionFactors.year, 2023);
    const factors = await analyst.analytics.emissionFactors();
    assert.deepEqual(
      factors.factors.find((f) => f.mode === "train"),
      {
        mode: "train",
        factor: 0.03546,
        unit: "kg CO2e per passenger-km",
        maxDistanceKm: null,
        description: "Rail - National rail",
      },
    );
    assert.equal(totals.trend?.length, 4);
    assert.equal((await analyst.analytics.event(first.id)).attendance.active, 1);
    const trend = await analyst.analytics.trends({
      metric: "attendance",
      granularity: "quarterly",
      includeBenchmark: true,
    });
    assert.deepEqual(
      trend.dataPoints.map((p) => p.value),
      [1, 1],
    );
    assert.equal(trend.benchmark?.available, false);
    await assert.rejects(
      analyst.analytics.trends({ category: "none" }),
      (error: unknown) => EventServiceError.is(error) && error.code === "INSUFFICIENT_DATA",
    );
  });

  test("failures surface as one typed error with the service's code, field and details", async () => {
    const event = await client.events.create(eventInput({ capacity: 5 }) as never);
    await client.attendees.register(attendeeInput(event.id, { email: "dup@example.com" }) as never);
    await assert.rejects(
      client.attendees.register(attendeeInput(event.id, { email: "DUP@example.com" }) as never),
      (error: unknown) => {
        assert.ok(EventServiceError.is(error));
        assert.equal(error.status, 409);
        assert.equal(error.code, "DUPLICATE_REGISTRATION");
        assert.equal(error.field, "email");
        return true;
      },
    );
    await assert.rejects(
      client.events.get("evt_missing"),
      (error: unknown) => EventServiceError.is(error) && error.status === 404 && error.code === "NOT_FOUND",
    );
    await assert.rejects(client.events.create({ name: "" } as never), (error: unknown) => {
      assert.ok(EventServiceError.is(error));
      assert.equal(error.code, "INVALID_REQUEST");
      assert.ok(Array.isArray((error.details as { issues: unknown[] }).issues));
      return true;
    });
    const stranger = createClient({ baseUrl: server.url, apiKey: "esk_wrong" });
    await assert.rejects(
      stranger.events.list(),
      (error: unknown) => EventServiceError.is(error) && error.status === 401 && error.code === "UNAUTHORIZED",
    );
    const nowhere = createClient({ baseUrl: "http://127.0.0.1:1", apiKey: "x" });
    await assert.rejects(
      nowhere.events.list(),
      (error: unknown) => EventServiceError.is(error) && error.code === "NETWORK_ERROR" && error.status === 0,
    );
  });

  test("webhooks: register (secret once), read, update, list, delivery log, delete", async () => {
    // A type nothing here triggers, on a public literal: no delivery is attempted.
    const created = await client.webhooks.create({
      url: "https://93.184.216.34/client-hook",
      events: ["analytics.report_ready"],
    });
    assert.match(created.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal("secret" in (await client.webhooks.get(created.id)), false);
    const rotated = await client.webhooks.rotateSecret(created.id);
    assert.match(rotated.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.notEqual(rotated.secret, created.secret);
    assert.equal(rotated.id, created.id);
    assert.ok(Date.parse(rotated.previousSecretExpiresAt) > Date.now() + 23 * 3_600_000);
    assert.equal((await client.webhooks.update(created.id, { description: "CRM" })).description, "CRM");
    assert.deepEqual(
      (await client.webhooks.list()).webhooks.map((w) => w.id),
      [created.id],
    );
    assert.equal((await client.webhooks.update(created.id, { active: false })).active, false);
    const inactive: string[] = [];
    for await (const webhook of client.webhooks.listAll({ active: false })) inactive.push(webhook.id);
    assert.deepEqual(inactive, [created.id]);
    const log = await client.webhooks.deliveries(created.id);
    assert.deepEqual(log.deliveries, []);
    assert.equal(log.pagination.total, 0);
    await assert.rejects(
      client.webhooks.redeliver(created.id, "dlv_missing"),
      (error: unknown) => EventServiceError.is(error) && error.code === "NOT_FOUND",
    );
    assert.equal((await client.webhooks.delete(created.id)).deletedId, created.id);
  });

  test("@event-service/client/webhooks: signPayload and verifySignature, in GitHub's format", async () => {
    const body = JSON.stringify({ id: "dlv_1", type: "webhook.ping" });
    const header = signPayload("whsec_client", body);
    assert.equal(verifySignature("whsec_client", body, header), true);
    assert.equal(verifySignature("whsec_other", body, header), false);
    assert.equal(await octokitVerify("whsec_client", body, header), true);
    // verifyWebhook: the Standard Webhooks headers, with the replay window.
    const secret = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
    const headers = signWebhook([secret], "dlv_1", Math.floor(Date.now() / 1000), body);
    assert.deepEqual(verifyWebhook(secret, headers, body).payload, JSON.parse(body));
    assert.throws(
      () => verifyWebhook(secret, headers, body, { now: new Date(Date.now() + 600_000) }),
      WebhookVerificationError,
    );
  });
});
