/**
 * The vendor's link client against a scripted fetch: the routes below the link, the headers it
 * sends (nothing a browser would need a CORS preflight for, beyond a POST's Idempotency-Key),
 * the links it refuses, and the retries, errors and paging it shares with the main client. The
 * end-to-end test in the root test/ runs it against the real server.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createVendorLinkClient, EventServiceError } from "../src/index.ts";
import { failure, json, scripted } from "./scripted-fetch.ts";

const LINK = "http://svc.test/v1/vendor-requests/vrq_abc";
const fast = { retries: 2, baseDelayMs: 1, maxDelayMs: 2_000 };
const request = { id: "bkg_1", status: "requested" };
const meals = { kind: "catering", quantity: 120, unit: "meals", mealType: "vegan" } as const;

describe("routes", () => {
  test("every call goes below the link, ids escaped", async () => {
    const empty = {
      activities: [],
      pagination: { page: 1, limit: 20, total: 0, totalPages: 0, hasNext: false, hasPrev: false },
    };
    const { fetch, sent } = scripted([
      json(200, request),
      json(200, request),
      json(200, request),
      json(201, {}),
      json(200, empty),
      json(200, {}),
      json(200, {}),
    ]);
    const vendor = createVendorLinkClient({ link: LINK, fetch });
    assert.deepEqual(await vendor.get(), request);
    await vendor.confirm({ message: "See you there." });
    await vendor.decline();
    await vendor.activities.create(meals);
    await vendor.activities.list({ page: 2, limit: 5 });
    await vendor.activities.update("act/1", { quantity: 130 });
    await vendor.activities.delete("act_1");
    assert.deepEqual(
      sent.map((s) => `${s.method} ${s.url}`),
      [
        "GET http://svc.test/v1/vendor-requests/vrq_abc",
        "POST http://svc.test/v1/vendor-requests/vrq_abc/confirm",
        "POST http://svc.test/v1/vendor-requests/vrq_abc/decline",
        "POST http://svc.test/v1/vendor-requests/vrq_abc/activities",
        "GET http://svc.test/v1/vendor-requests/vrq_abc/activities?page=2&limit=5",
        "PUT http://svc.test/v1/vendor-requests/vrq_abc/activities/act%2F1",
        "DELETE http://svc.test/v1/vendor-requests/vrq_abc/activities/act_1",
      ],
    );
    assert.deepEqual(
      sent.map((s) => s.body),
      [
        null,
        JSON.stringify({ message: "See you there." }),
        null,
        JSON.stringify(meals),
        null,
        JSON.stringify({ quantity: 130 }),
        null,
      ],
    );
  });

  test("a link with a trailing slash, a query or a fragment, or mounted under a prefix, keeps its own path", async () => {
    const { fetch, sent } = scripted([json(200, request), json(200, request), json(200, request)]);
    await createVendorLinkClient({ link: `${LINK}/`, fetch }).get();
    await createVendorLinkClient({ link: `${LINK}?utm_source=mail#top`, fetch }).confirm();
    await createVendorLinkClient({ link: "https://app.test/events-api/api/vendor-requests/vrq_9", fetch }).get();
    assert.deepEqual(
      sent.map((s) => `${s.method} ${s.url}`),
      [
        "GET http://svc.test/v1/vendor-requests/vrq_abc",
        "POST http://svc.test/v1/vendor-requests/vrq_abc/confirm",
        "GET https://app.test/events-api/api/vendor-requests/vrq_9",
      ],
    );
  });

  test("anything but a vendor link is refused before any call", () => {
    for (const link of [
      "vrq_abc",
      "/v1/vendor-requests/vrq_abc",
      "http://svc.test/v1/events/evt_1",
      "http://svc.test/v1/vendor-requests/",
      "http://svc.test/v1/vendor-requests/vrq_abc/activities",
      "ftp://svc.test/v1/vendor-requests/vrq_abc",
    ]) {
      assert.throws(() => createVendorLinkClient({ link }), TypeError, link);
    }
  });
});

describe("headers", () => {
  test("no API key, no custom header: a GET and a bare answer without a key are simple CORS requests", async () => {
    const { fetch, sent } = scripted([json(200, request), json(200, request)]);
    const vendor = createVendorLinkClient({ link: LINK, fetch, idempotencyKeys: false });
    await vendor.get();
    await vendor.confirm();
    for (const s of sent) assert.deepEqual([...s.headers], [["accept", "application/json"]]);
  });

  test("a body adds its JSON content-type and a POST its generated Idempotency-Key, nothing else", async () => {
    const { fetch, sent } = scripted([json(200, request), json(201, {}), json(200, {})]);
    const vendor = createVendorLinkClient({ link: LINK, fetch });
    await vendor.decline({ message: "Fully booked that weekend." });
    await vendor.activities.create(meals, { idempotencyKey: "till-7" });
    await vendor.activities.update("act_1", { quantity: 1 });
    assert.deepEqual(
      sent.map((s) => [...s.headers.keys()].sort()),
      [
        ["accept", "content-type", "idempotency-key"],
        ["accept", "content-type", "idempotency-key"],
        ["accept", "content-type"],
      ],
    );
    assert.match(sent[0]!.headers.get("idempotency-key")!, /^[0-9a-f-]{36}$/);
    assert.equal(sent[1]!.headers.get("idempotency-key"), "till-7");
    assert.equal(sent[0]!.headers.get("content-type"), "application/json");
  });

  test("a page without crypto.randomUUID (plain http) still gets random version 4 keys", async () => {
    // Browsers define randomUUID on secure pages only, getRandomValues everywhere. Shadowed on the
    // instance here (it lives on Crypto.prototype), and the shadow removed afterwards.
    Object.defineProperty(globalThis.crypto, "randomUUID", { value: undefined, configurable: true });
    try {
      const { fetch, sent } = scripted([json(201, {}), json(201, {})]);
      const vendor = createVendorLinkClient({ link: LINK, fetch });
      await vendor.activities.create(meals);
      await vendor.activities.create(meals);
      const [first, second] = sent.map((s) => s.headers.get("idempotency-key")!);
      assert.match(first!, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.match(second!, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.notEqual(first, second);
    } finally {
      delete (globalThis.crypto as { randomUUID?: unknown }).randomUUID;
    }
    assert.equal(typeof globalThis.crypto.randomUUID, "function");
  });
});

describe("retries and errors", () => {
  test("a record answered 429 is sent again after Retry-After with the same Idempotency-Key", async () => {
    const created = { id: "act_1", ...meals, vendorId: "ven_1" };
    const { fetch, sent } = scripted([failure(429, "RATE_LIMIT_EXCEEDED", { "retry-after": "0" }), json(201, created)]);
    const vendor = createVendorLinkClient({ link: LINK, fetch, retry: fast });
    assert.deepEqual(await vendor.activities.create(meals), created);
    const [first, second] = sent.map((s) => s.headers.get("idempotency-key"));
    assert.equal(sent.length, 2);
    assert.equal(second, first);
    assert.equal(sent[1]!.body, JSON.stringify(meals));
  });

  test("without an Idempotency-Key a POST is never retried; retry: false retries nothing", async () => {
    const keyless = scripted([failure(503, "SERVICE_UNAVAILABLE", { "retry-after": "0" })]);
    await assert.rejects(
      createVendorLinkClient({ link: LINK, fetch: keyless.fetch, retry: fast, idempotencyKeys: false }).confirm(),
      (error: unknown) => EventServiceError.is(error) && error.status === 503,
    );
    assert.equal(keyless.sent.length, 1);
    const off = scripted([failure(429, "RATE_LIMIT_EXCEEDED", { "retry-after": "0" })]);
    await assert.rejects(createVendorLinkClient({ link: LINK, fetch: off.fetch, retry: false }).get());
    assert.equal(off.sent.length, 1);
  });

  test("the service's refusals come as EventServiceError with status, code, field and details", async () => {
    const { fetch } = scripted([
      failure(404, "NOT_FOUND"),
      failure(400, "INVALID_REQUEST", {}, { field: "kind" }),
      failure(422, "INVALID_STATE_TRANSITION", {}, { field: "status", details: { status: "requested" } }),
    ]);
    const vendor = createVendorLinkClient({ link: LINK, fetch, retry: fast });
    const refusal = (error: unknown) => {
      assert.ok(EventServiceError.is(error));
      return [error.status, error.code, error.field, error.details];
    };
    await assert.rejects(vendor.get(), (error) => {
      assert.deepEqual(refusal(error), [404, "NOT_FOUND", undefined, undefined]);
      return true;
    });
    await assert.rejects(vendor.activities.create({ kind: "water", quantity: 3, unit: "m3" }), (error) => {
      assert.deepEqual(refusal(error), [400, "INVALID_REQUEST", "kind", undefined]);
      return true;
    });
    await assert.rejects(vendor.activities.create(meals), (error) => {
      assert.deepEqual(refusal(error), [422, "INVALID_STATE_TRANSITION", "status", { status: "requested" }]);
      return true;
    });
  });

  test("a failed connection is NETWORK_ERROR with status 0", async () => {
    const fetch = (async () => {
      throw new TypeError("Failed to fetch");
    }) as typeof globalThis.fetch;
    await assert.rejects(
      createVendorLinkClient({ link: LINK, fetch }).get(),
      (error: unknown) => EventServiceError.is(error) && error.status === 0 && error.code === "NETWORK_ERROR",
    );
  });
});

describe("lists", () => {
  test("activities.listAll walks the link's records page by page", async () => {
    const page = (n: number, ids: string[], hasNext: boolean) =>
      json(200, {
        activities: ids.map((id) => ({ id })),
        pagination: { page: n, limit: 2, total: 3, totalPages: 2, hasNext, hasPrev: n > 1 },
      });
    const { fetch, sent } = scripted([page(1, ["act_1", "act_2"], true), page(2, ["act_3"], false)]);
    const seen: string[] = [];
    for await (const activity of createVendorLinkClient({ link: LINK, fetch }).activities.listAll({ limit: 2 }))
      seen.push(activity.id);
    assert.deepEqual(seen, ["act_1", "act_2", "act_3"]);
    assert.deepEqual(
      sent.map((s) => new URL(s.url).search),
      ["?page=1&limit=2", "?page=2&limit=2"],
    );
  });
});
