/**
 * The client against a scripted fetch: retries (which answers, how long, which methods), the
 * Idempotency-Key it generates, the error it throws for every kind of failure, and paging.
 * The end-to-end test in the root test/ runs it against the real server.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createClient, EventServiceError } from "../src/index.ts";
import { parseRetryAfterSeconds, retryDelayMs } from "../src/retry.ts";
import { failure, json, scripted } from "./scripted-fetch.ts";

const event = { id: "evt_1", name: "Green Summit" };
const fast = { retries: 2, baseDelayMs: 1, maxDelayMs: 2_000 };

describe("retries", () => {
  test("a GET answered 429 is retried after its Retry-After, then succeeds", async () => {
    const { fetch, sent } = scripted([failure(429, "RATE_LIMIT_EXCEEDED", { "retry-after": "0" }), json(200, event)]);
    const client = createClient({ baseUrl: "http://svc.test/", apiKey: "esk_k", fetch, retry: fast });
    assert.deepEqual(await client.events.get("evt_1"), event);
    assert.deepEqual(
      sent.map((s) => `${s.method} ${s.url}`),
      ["GET http://svc.test/v1/events/evt_1", "GET http://svc.test/v1/events/evt_1"],
    );
    assert.equal(sent[0]!.headers.get("authorization"), "Bearer esk_k");
  });

  test("503 is retried up to the limit, then thrown with its status, code and Retry-After", async () => {
    const { fetch, sent } = scripted([1, 2, 3].map(() => failure(503, "SERVICE_UNAVAILABLE", { "retry-after": "0" })));
    const client = createClient({ baseUrl: "http://svc.test", apiKey: "k", fetch, retry: fast });
    await assert.rejects(client.events.list(), (error: unknown) => {
      assert.ok(EventServiceError.is(error));
      assert.deepEqual(
        [error.status, error.code, error.retryAfter, error.message],
        [503, "SERVICE_UNAVAILABLE", 0, "SERVICE_UNAVAILABLE happened"],
      );
      return true;
    });
    assert.equal(sent.length, 3);
  });

  test("a POST carries one generated Idempotency-Key, the same on its retry", async () => {
    const { fetch, sent } = scripted([failure(429, "RATE_LIMIT_EXCEEDED", { "retry-after": "0" }), json(201, event)]);
    const client = createClient({ baseUrl: "http://svc.test", apiKey: "k", fetch, retry: fast });
    assert.deepEqual(await client.events.create({ name: "Green Summit" } as never), event);
    const keys = sent.map((s) => s.headers.get("idempotency-key"));
    assert.equal(keys.length, 2);
    assert.match(keys[0]!, /^[0-9a-f-]{36}$/);
    assert.equal(keys[1], keys[0]);
    assert.equal(sent[0]!.body, JSON.stringify({ name: "Green Summit" }));
  });

  test("a caller's Idempotency-Key is sent as given; a new call gets a new generated one", async () => {
    const { fetch, sent } = scripted([json(201, event), json(201, event), json(201, event)]);
    const client = createClient({ baseUrl: "http://svc.test", apiKey: "k", fetch, retry: fast });
    await client.attendees.register({} as never, { idempotencyKey: "order-42" });
    await client.attendees.register({} as never);
    await client.attendees.register({} as never);
    const [given, first, second] = sent.map((s) => s.headers.get("idempotency-key"));
    assert.equal(given, "order-42");
    assert.notEqual(first, second);
  });

  test("without an Idempotency-Key a POST is never retried", async () => {
    const { fetch, sent } = scripted([failure(503, "SERVICE_UNAVAILABLE", { "retry-after": "0" })]);
    const client = createClient({
      baseUrl: "http://svc.test",
      apiKey: "k",
      fetch,
      retry: fast,
      idempotencyKeys: false,
    });
    await assert.rejects(
      client.events.create({} as never),
      (error: unknown) => EventServiceError.is(error) && error.status === 503,
    );
    assert.equal(sent.length, 1);
    assert.equal(sent[0]!.headers.get("idempotency-key"), null);
  });

  test("409 IDEMPOTENCY_KEY_IN_USE is waited out; other 409s are not", async () => {
    const inUse = scripted([failure(409, "IDEMPOTENCY_KEY_IN_USE", { "retry-after": "0" }), json(201, event)]);
    const client = createClient({ baseUrl: "http://svc.test", apiKey: "k", fetch: inUse.fetch, retry: fast });
    assert.deepEqual(await client.events.create({} as never), event);
    assert.equal(inUse.sent.length, 2);
    const duplicate = scripted([
      failure(409, "DUPLICATE_REGISTRATION", {}, { field: "email", details: { attendeeId: "att_1" } }),
    ]);
    const other = createClient({ baseUrl: "http://svc.test", apiKey: "k", fetch: duplicate.fetch, retry: fast });
    await assert.rejects(other.attendees.register({} as never), (error: unknown) => {
      assert.ok(EventServiceError.is(error));
      assert.deepEqual(
        [error.status, error.code, error.field, error.details],
        [409, "DUPLICATE_REGISTRATION", "email", { attendeeId: "att_1" }],
      );
      return true;
    });
    assert.equal(duplicate.sent.length, 1);
  });

  test("a Retry-After longer than maxDelayMs is thrown at once rather than waited", async () => {
    const { fetch, sent } = scripted([failure(429, "RATE_LIMIT_EXCEEDED", { "retry-after": "3600" })]);
    const client = createClient({ baseUrl: "http://svc.test", apiKey: "k", fetch, retry: fast });
    await assert.rejects(
      client.events.get("evt_1"),
      (error: unknown) =>
        EventServiceError.is(error) && error.retryAfter === 3600 && error.code === "RATE_LIMIT_EXCEEDED",
    );
    assert.equal(sent.length, 1);
  });

  test("retry: false turns retrying off; 4xx other than 429 are never retried", async () => {
    const off = scripted([failure(429, "RATE_LIMIT_EXCEEDED", { "retry-after": "0" })]);
    await assert.rejects(
      createClient({ baseUrl: "http://svc.test", apiKey: "k", fetch: off.fetch, retry: false }).events.get("e"),
    );
    assert.equal(off.sent.length, 1);
    const notFound = scripted([failure(404, "NOT_FOUND")]);
    await assert.rejects(
      createClient({ baseUrl: "http://svc.test", apiKey: "k", fetch: notFound.fetch, retry: fast }).events.get("e"),
      (error: unknown) => EventServiceError.is(error) && error.status === 404 && error.code === "NOT_FOUND",
    );
    assert.equal(notFound.sent.length, 1);
  });

  test("an abort signal ends the wait for a retry", async () => {
    const { fetch } = scripted([failure(503, "SERVICE_UNAVAILABLE", { "retry-after": "1" })]);
    const client = createClient({
      baseUrl: "http://svc.test",
      apiKey: "k",
      fetch,
      retry: { retries: 2, maxDelayMs: 5_000 },
    });
    const controller = new AbortController();
    const call = client.events.get("e", { signal: controller.signal });
    setTimeout(() => controller.abort(new Error("stop")), 20);
    await assert.rejects(call, /stop/);
  });
});

describe("errors", () => {
  test("an answer without the error body is UNEXPECTED_RESPONSE with its status", async () => {
    const { fetch } = scripted([
      () => new Response("<html>Bad gateway</html>", { status: 502, headers: { "content-type": "text/html" } }),
    ]);
    await assert.rejects(
      createClient({ baseUrl: "http://svc.test", apiKey: "k", fetch }).events.get("e"),
      (error: unknown) => {
        assert.ok(EventServiceError.is(error));
        assert.deepEqual([error.status, error.code], [502, "UNEXPECTED_RESPONSE"]);
        return true;
      },
    );
  });

  test("a failed connection is NETWORK_ERROR with status 0", async () => {
    const fetch = (async () => {
      throw new TypeError("fetch failed");
    }) as typeof globalThis.fetch;
    await assert.rejects(
      createClient({ baseUrl: "http://svc.test", apiKey: "k", fetch }).events.get("e"),
      (error: unknown) => EventServiceError.is(error) && error.status === 0 && error.code === "NETWORK_ERROR",
    );
  });

  test("EventServiceError.is goes by name, so another copy's errors count too", () => {
    const foreign = Object.assign(new Error("x"), { name: "EventServiceError" });
    assert.equal(EventServiceError.is(foreign), true);
    assert.equal(EventServiceError.is(new Error("x")), false);
    assert.equal(EventServiceError.is("EventServiceError"), false);
  });
});

describe("lists", () => {
  test("list sends each parameter once, lists comma-separated, nothing undefined", async () => {
    const { fetch, sent } = scripted([
      json(200, {
        events: [],
        pagination: { page: 1, limit: 5, total: 0, totalPages: 0, hasNext: false, hasPrev: false },
      }),
    ]);
    await createClient({ baseUrl: "http://svc.test", apiKey: "k", fetch }).events.list({
      tags: ["a", "b"],
      limit: 5,
      status: "published",
      search: undefined,
    });
    const url = new URL(sent[0]!.url);
    assert.deepEqual(Object.fromEntries(url.searchParams), { tags: "a,b", limit: "5", status: "published" });
  });

  test("listAll walks the pages while the service says there is a next one", async () => {
    const page = (n: number, ids: string[], hasNext: boolean) =>
      json(200, {
        attendees: ids.map((id) => ({ id })),
        pagination: { page: n, limit: 2, total: 5, totalPages: 3, hasNext, hasPrev: n > 1 },
      });
    const { fetch, sent } = scripted([page(1, ["a", "b"], true), page(2, ["c", "d"], true), page(3, ["e"], false)]);
    const client = createClient({ baseUrl: "http://svc.test", apiKey: "k", fetch });
    const seen: string[] = [];
    for await (const attendee of client.attendees.listAll({ eventId: "evt_1", limit: 2 })) seen.push(attendee.id);
    assert.deepEqual(seen, ["a", "b", "c", "d", "e"]);
    assert.deepEqual(
      sent.map((s) => new URL(s.url).search),
      ["?eventId=evt_1&page=1&limit=2", "?eventId=evt_1&page=2&limit=2", "?eventId=evt_1&page=3&limit=2"],
    );
  });
});

describe("paths", () => {
  test("activities go to their event's routes, ids escaped", async () => {
    const empty = {
      activities: [],
      pagination: { page: 1, limit: 20, total: 0, totalPages: 0, hasNext: false, hasPrev: false },
    };
    const { fetch, sent } = scripted([json(201, {}), json(200, empty), json(200, {}), json(200, {}), json(200, {})]);
    const client = createClient({ baseUrl: "http://svc.test", apiKey: "k", fetch });
    await client.activities.create("evt_1", { kind: "water", quantity: 3, unit: "m3" });
    await client.activities.list("evt_1", { page: 2, limit: 5 });
    await client.activities.get("evt_1", "act/2");
    await client.activities.update("evt_1", "act_2", { quantity: 4 });
    await client.activities.delete("evt/1", "act_2");
    assert.deepEqual(
      sent.map((s) => `${s.method} ${s.url.replace("http://svc.test/v1", "")}`),
      [
        "POST /events/evt_1/activities",
        "GET /events/evt_1/activities?page=2&limit=5",
        "GET /events/evt_1/activities/act%2F2",
        "PUT /events/evt_1/activities/act_2",
        "DELETE /events/evt%2F1/activities/act_2",
      ],
    );
  });

  test("vendors and an event's bookings go to their routes, ids escaped, queries as given", async () => {
    const page = (key: string) => ({
      [key]: [],
      pagination: { page: 1, limit: 20, total: 0, totalPages: 0, hasNext: false, hasPrev: false },
    });
    const { fetch, sent } = scripted([
      json(201, {}),
      json(200, page("vendors")),
      json(200, {}),
      json(200, {}),
      json(200, {}),
      json(201, {}),
      json(200, page("bookings")),
      json(200, {}),
      json(200, {}),
      json(200, {}),
    ]);
    const client = createClient({ baseUrl: "http://svc.test", apiKey: "k", fetch });
    await client.vendors.create({ name: "Green Fork", category: "catering" });
    await client.vendors.list({ category: "catering", search: "fork", perPage: 5 });
    await client.vendors.get("ven/1");
    await client.vendors.update("ven_1", { notes: null });
    await client.vendors.delete("ven_1");
    await client.bookings.create("evt_1", { vendorId: "ven_1", services: "Lunch", dataRequested: ["catering"] });
    await client.bookings.list("evt/1", { status: "confirmed", page: 2 });
    await client.bookings.get("evt_1", "bkg/2");
    await client.bookings.update("evt_1", "bkg_2", { status: "cancelled" });
    await client.bookings.rotateLink("evt_1", "bkg_2");
    assert.deepEqual(
      sent.map((s) => `${s.method} ${s.url.replace("http://svc.test/v1", "")}`),
      [
        "POST /vendors",
        "GET /vendors?category=catering&search=fork&perPage=5",
        "GET /vendors/ven%2F1",
        "PUT /vendors/ven_1",
        "DELETE /vendors/ven_1",
        "POST /events/evt_1/vendors",
        "GET /events/evt%2F1/vendors?status=confirmed&page=2",
        "GET /events/evt_1/vendors/bkg%2F2",
        "PUT /events/evt_1/vendors/bkg_2",
        "POST /events/evt_1/vendors/bkg_2/rotate-link",
      ],
    );
    assert.deepEqual(
      sent.map((s) => s.body),
      [
        JSON.stringify({ name: "Green Fork", category: "catering" }),
        null,
        null,
        JSON.stringify({ notes: null }),
        null,
        JSON.stringify({ vendorId: "ven_1", services: "Lunch", dataRequested: ["catering"] }),
        null,
        null,
        JSON.stringify({ status: "cancelled" }),
        null,
      ],
    );
    // Both POSTs carry a generated key, so a retried booking never books twice.
    assert.match(sent[5]!.headers.get("idempotency-key")!, /^[0-9a-f-]{36}$/);
    assert.match(sent[9]!.headers.get("idempotency-key")!, /^[0-9a-f-]{36}$/);
    assert.ok(sent.every((s) => s.headers.get("authorization") === "Bearer k"));
  });

  test("vendors.listAll and bookings.listAll walk every page", async () => {
    const page = (key: string, n: number, ids: string[], hasNext: boolean) =>
      json(200, {
        [key]: ids.map((id) => ({ id })),
        pagination: { page: n, limit: 100, total: 3, totalPages: 2, hasNext, hasPrev: n > 1 },
      });
    const { fetch, sent } = scripted([
      page("vendors", 1, ["ven_1", "ven_2"], true),
      page("vendors", 2, ["ven_3"], false),
      page("bookings", 1, ["bkg_1"], false),
    ]);
    const client = createClient({ baseUrl: "http://svc.test", apiKey: "k", fetch });
    const vendors: string[] = [];
    for await (const vendor of client.vendors.listAll({ category: "catering" })) vendors.push(vendor.id);
    const bookings: string[] = [];
    for await (const booking of client.bookings.listAll("evt_1", { status: "requested" })) bookings.push(booking.id);
    assert.deepEqual(vendors, ["ven_1", "ven_2", "ven_3"]);
    assert.deepEqual(bookings, ["bkg_1"]);
    assert.deepEqual(
      sent.map((s) => s.url.replace("http://svc.test/v1", "")),
      [
        "/vendors?category=catering&page=1&limit=100",
        "/vendors?category=catering&page=2&limit=100",
        "/events/evt_1/vendors?status=requested&page=1&limit=100",
      ],
    );
  });

  test("webhook deliveries, redelivery, ping and analytics go to their routes with their queries", async () => {
    const empty = {
      deliveries: [],
      pagination: { page: 1, limit: 20, total: 0, totalPages: 0, hasNext: false, hasPrev: false },
    };
    const { fetch, sent } = scripted([
      json(200, empty),
      json(202, {}),
      json(200, {}),
      json(200, {}),
      json(200, {}),
      json(200, {}),
      json(200, {}),
    ]);
    const client = createClient({ baseUrl: "http://svc.test", apiKey: "k", fetch });
    await client.webhooks.deliveries("wh_1", { status: "failed" });
    await client.webhooks.redeliver("wh_1", "dlv_2");
    await client.webhooks.ping("wh_1");
    await client.webhooks.rotateSecret("wh/1");
    await client.analytics.sustainability({ eventIds: ["evt_1", "evt_2"], granularity: "monthly" });
    await client.analytics.event("evt/1");
    await client.analytics.trends({ metric: "attendance", includeBenchmark: true });
    assert.deepEqual(
      sent.map((s) => `${s.method} ${s.url.replace("http://svc.test/v1", "")}`),
      [
        "GET /webhooks/wh_1/deliveries?status=failed",
        "POST /webhooks/wh_1/deliveries/dlv_2/redeliver",
        "POST /webhooks/wh_1/ping",
        "POST /webhooks/wh%2F1/rotate-secret",
        "GET /analytics/sustainability?eventIds=evt_1,evt_2&granularity=monthly",
        "GET /analytics/events/evt%2F1",
        "GET /analytics/trends?metric=attendance&includeBenchmark=true",
      ],
    );
  });
});

describe("retry timing", () => {
  test("Retry-After in seconds or as an HTTP date", () => {
    assert.equal(parseRetryAfterSeconds("7"), 7);
    assert.equal(parseRetryAfterSeconds("Thu, 01 Jan 2026 00:00:30 GMT", Date.parse("2026-01-01T00:00:00Z")), 30);
    assert.equal(parseRetryAfterSeconds("soon"), undefined);
    assert.equal(parseRetryAfterSeconds(null), undefined);
  });

  test("backoff doubles with jitter between half and all of it; past the maximum, no retry", () => {
    const policy = { retries: 5, baseDelayMs: 100, maxDelayMs: 1_000 };
    assert.equal(
      retryDelayMs(1, undefined, policy, () => 0),
      50,
    );
    assert.equal(
      retryDelayMs(3, undefined, policy, () => 1),
      400,
    );
    assert.equal(
      retryDelayMs(5, undefined, policy, () => 1),
      undefined,
    );
    assert.equal(retryDelayMs(1, 2, policy), undefined);
    assert.equal(retryDelayMs(1, 0.5, policy), 500);
  });
});
