/**
 * Rate limits through the handler, with the service's clock pinned, beside conventions.test.ts's
 * (per minute then per day, keys of one account sharing, no headers on a 401): each tier's default
 * limit, the headers on every kind of authenticated answer, the day limit under a burst and across
 * minutes. The counts' leasing and their sharing between processes: request-counter.test.ts; the
 * headers through the real server and the counts given back at shutdown: test/rate-limits.test.ts.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createHandler, type FetchHandler } from "../src/http/handler.ts";
import { createEventService, type EventService } from "../src/service.ts";
import { EVENT } from "./_fixtures.ts";
import { sqliteStorage } from "./_sqlite.ts";

/** 20 s into a minute, 12 h into a UTC day. */
const T0 = Date.parse("2026-06-01T12:00:20.000Z");
const MINUTE_END = Date.parse("2026-06-01T12:01:00.000Z") / 1000;
const DAY_END = Date.parse("2026-06-02T00:00:00.000Z") / 1000;

describe("rate-limit headers and refusals through the handler, with a pinned clock", () => {
  let service: EventService;
  let handler: FetchHandler;
  let clock = T0;
  let accounts = 0;
  const errors: unknown[] = [];

  before(async () => {
    service = createEventService({ storage: await sqliteStorage(), now: () => new Date(clock) });
    handler = createHandler(service, { onError: (error) => errors.push(error) });
  });
  after(() => service.storage.close());

  const call = (
    method: string,
    path: string,
    init: { key?: string; body?: string; headers?: Record<string, string> } = {},
  ) =>
    handler(
      new Request(`http://service.test${path}`, {
        method,
        headers: {
          ...(init.key && { authorization: `Bearer ${init.key}` }),
          ...(init.body !== undefined && { "content-type": "application/json" }),
          ...init.headers,
        },
        ...(init.body !== undefined && { body: init.body }),
      }),
    );
  const list = (key: string) => call("GET", "/v1/events", { key });

  /** A key of a new enterprise account with the given limits. */
  const enterpriseKey = async (perMinute: number, perDay = 100_000) =>
    service.keys.create({ account: `Limited ${++accounts}`, tier: "enterprise", perMinute, perDay });

  /** The three rate-limit headers as numbers. */
  function limits(response: Response) {
    const read = (name: string) => {
      const value = response.headers.get(name);
      assert.ok(value !== null && /^\d+$/.test(value), `${name}: ${value} (status ${response.status})`);
      return Number(value);
    };
    return {
      limit: read("x-ratelimit-limit"),
      remaining: read("x-ratelimit-remaining"),
      reset: read("x-ratelimit-reset"),
    };
  }

  /** Asserts a 429 over the limit of `window`, its body and its exact Retry-After (the clock stands still). */
  async function expectRefused(response: Response, window: "minute" | "day", limit: number, reset: number) {
    assert.equal(response.status, 429);
    const { error } = (await response.json()) as { error: { code: string; details: unknown } };
    assert.equal(error.code, "RATE_LIMIT_EXCEEDED");
    assert.deepEqual(error.details, { window, limit, resetAt: new Date(reset * 1000).toISOString() });
    assert.equal(response.headers.get("retry-after"), String(reset - Math.floor(clock / 1000)));
  }

  test("each tier's per-minute limit is announced: free 60, starter 300, professional 1200, enterprise 6000 by default", async () => {
    clock = T0;
    for (const [tier, limit] of [
      ["free", 60],
      ["starter", 300],
      ["professional", 1200],
      ["enterprise", 6000],
    ] as const) {
      const { key } = await service.keys.create({ account: `Tier ${tier}`, tier });
      const response = await list(key);
      assert.equal(response.status, 200, tier);
      assert.deepEqual(limits(response), { limit, remaining: limit - 1, reset: MINUTE_END }, tier);
    }
  });

  test("every authenticated answer carries the headers, errors and writes included: each one counts", async () => {
    clock = T0;
    const { key } = await enterpriseKey(50);
    const readOnly = await service.keys.create({
      account: "Read only",
      tier: "enterprise",
      scopes: ["events:read"],
      perMinute: 50,
    });
    const keyed = { "idempotency-key": "rl-1" };
    const answers: Array<[Response, number, string | null]> = [
      [await call("GET", "/v1/events/evt_doesnotexist", { key }), 404, "NOT_FOUND"],
      [await call("GET", "/v1/events?status=nonsense", { key }), 400, "INVALID_REQUEST"],
      [await call("POST", "/v1/events", { key, body: JSON.stringify({ name: "" }) }), 400, "INVALID_REQUEST"],
      [await call("POST", "/api/events", { key, body: "{not json" }), 400, "INVALID_REQUEST"],
      [
        await call("POST", "/v1/events", {
          key,
          body: "name=x",
          headers: { "content-type": "application/x-www-form-urlencoded" },
        }),
        415,
        "UNSUPPORTED_MEDIA_TYPE",
      ],
      [
        await call("POST", "/v1/events", { key, body: JSON.stringify({ name: "x".repeat(1024 * 1024 + 10) }) }),
        413,
        "PAYLOAD_TOO_LARGE",
      ],
      [await call("POST", "/v1/events", { key, body: JSON.stringify(EVENT), headers: keyed }), 201, null],
      [
        await call("POST", "/v1/events", { key, body: JSON.stringify({ ...EVENT, name: "Other" }), headers: keyed }),
        422,
        "IDEMPOTENCY_KEY_REUSED",
      ],
    ];
    for (const [i, [response, status, code]] of answers.entries()) {
      const body = (await response.json()) as { error?: { code: string } };
      assert.equal(response.status, status, JSON.stringify(body));
      if (code) assert.equal(body.error?.code, code);
      assert.deepEqual(limits(response), { limit: 50, remaining: 49 - i, reset: MINUTE_END }, `${status} ${code}`);
    }
    const forbidden = await call("POST", "/v1/events", { key: readOnly.key, body: "{}" });
    assert.equal(forbidden.status, 403);
    assert.equal(((await forbidden.json()) as { error: { code: string } }).error.code, "FORBIDDEN");
    assert.deepEqual(limits(forbidden), { limit: 50, remaining: 49, reset: MINUTE_END });
  });

  test("a day limit below the minute limit binds first: of 10 at once, 4 succeed; refused in later minutes until the UTC day ends; another account untouched", async () => {
    clock = T0;
    const [{ key }, other] = [await enterpriseKey(100, 4), await enterpriseKey(100, 4)];
    const responses = await Promise.all(Array.from({ length: 10 }, () => list(key)));
    assert.deepEqual(responses.map((r) => r.status).sort(), [200, 200, 200, 200, 429, 429, 429, 429, 429, 429]);
    for (const response of responses.filter((r) => r.status === 429)) {
      await expectRefused(response, "day", 4, DAY_END);
      assert.deepEqual(limits(response), { limit: 100, remaining: 0, reset: DAY_END });
    }
    const remaining = responses
      .filter((r) => r.status === 200)
      .map((r) => limits(r).remaining)
      .sort((a, b) => b - a);
    assert.deepEqual(remaining, [99, 98, 97, 96]);
    const fresh = await list(other.key);
    assert.equal(fresh.status, 200);
    assert.deepEqual(limits(fresh), { limit: 100, remaining: 99, reset: MINUTE_END });
    for (const at of [T0 + 60_000, T0 + 3_600_000]) {
      clock = at;
      await expectRefused(await list(key), "day", 4, DAY_END);
    }
    clock = DAY_END * 1000;
    const nextDay = await list(key);
    assert.equal(nextDay.status, 200, "a new UTC day starts again");
    assert.deepEqual(limits(nextDay), { limit: 100, remaining: 99, reset: DAY_END + 60 });
  });

  test("no unexpected errors were logged", () => assert.deepEqual(errors, []));
});
