import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createHandler, type FetchHandler } from "../src/http/handler.ts";
import { requestFingerprint } from "../src/http/idempotency.ts";
import { ServiceError } from "../src/errors.ts";
import { createEventService, type EventService } from "../src/service.ts";
import { sqliteStorage } from "./_sqlite.ts";
import { apiRequest } from "./_fixtures.ts";

const EVENT = {
  name: "Green Summit",
  location: { address: "a", city: "Berlin", country: "DE" },
  startDate: "2038-01-01T10:00:00Z",
  endDate: "2038-01-01T12:00:00Z",
  capacity: 5,
  category: "meetup",
};

describe("API conventions in the handler", () => {
  let clock = Date.parse("2026-06-01T12:00:10.000Z");
  let service: EventService;
  let handler: FetchHandler;
  const logged: unknown[] = [];

  before(async () => {
    service = createEventService({ storage: await sqliteStorage(), now: () => new Date(clock) });
    handler = createHandler(service, { onRequestEnd: (entry) => logged.push(entry) });
  });
  after(() => service.storage.close());

  const call = (method: string, path: string, key: string, body?: unknown, headers: Record<string, string> = {}) =>
    handler(apiRequest(method, `http://service.test${path}`, key, body, headers));

  describe("rate limits", () => {
    test("per minute, then per day, with headers on every authenticated answer", async () => {
      const { key } = await service.keys.create({ account: "Limited", tier: "enterprise", perMinute: 3, perDay: 5 });
      const minuteReset = String(Date.parse("2026-06-01T12:01:00.000Z") / 1000);
      for (const remaining of ["2", "1", "0"]) {
        const response = await call("GET", "/v1/events", key);
        assert.equal(response.status, 200);
        assert.equal(response.headers.get("x-ratelimit-limit"), "3");
        assert.equal(response.headers.get("x-ratelimit-remaining"), remaining);
        assert.equal(response.headers.get("x-ratelimit-reset"), minuteReset);
      }
      const refused = await call("GET", "/v1/events/evt_x", key);
      assert.equal(refused.status, 429);
      assert.equal(refused.headers.get("retry-after"), "50");
      assert.equal(refused.headers.get("x-ratelimit-remaining"), "0");
      const body = await refused.json();
      assert.equal(body.error.code, "RATE_LIMIT_EXCEEDED");
      assert.deepEqual(body.error.details, { window: "minute", limit: 3, resetAt: "2026-06-01T12:01:00.000Z" });

      clock += 60_000; // next minute: the day has 2 requests left (3 counted; the refused one is not)
      const fourth = await call("GET", "/v1/events/evt_missing", key);
      assert.equal(fourth.status, 404);
      assert.equal(fourth.headers.get("x-ratelimit-remaining"), "2");
      const last = await call("GET", "/v1/events", key);
      assert.equal(last.status, 200);
      assert.equal(last.headers.get("x-ratelimit-remaining"), "1");
      const dayRefused = await call("GET", "/v1/events", key);
      assert.equal(dayRefused.status, 429);
      const dayReset = Date.parse("2026-06-02T00:00:00.000Z") / 1000;
      assert.equal(dayRefused.headers.get("x-ratelimit-reset"), String(dayReset));
      assert.equal(dayRefused.headers.get("retry-after"), String(dayReset - Math.floor(clock / 1000)));
      assert.equal((await dayRefused.json()).error.details.window, "day");
    });

    test("limits are per account, shared by its keys; unauthenticated answers carry no rate headers", async () => {
      const first = await service.keys.create({ account: "Pair", tier: "enterprise", perMinute: 2 });
      const second = await service.keys.create({ account: "Pair", tier: "enterprise" });
      assert.equal((await call("GET", "/v1/events", first.key)).status, 200);
      assert.equal((await call("GET", "/v1/events", second.key)).status, 200);
      assert.equal((await call("GET", "/v1/events", second.key)).status, 429);
      const anonymous = await handler(new Request("http://service.test/v1/events"));
      assert.equal(anonymous.status, 401);
      assert.equal(anonymous.headers.get("x-ratelimit-limit"), null);
    });
  });

  describe("Idempotency-Key", () => {
    let key: string;
    before(async () => {
      clock += 120_000;
      key = (await service.keys.create({ account: "Idem", tier: "professional" })).key;
    });

    test("a retry replays the stored answer and creates nothing more", async () => {
      const first = await call("POST", "/v1/events", key, EVENT, { "idempotency-key": "create-1" });
      assert.equal(first.status, 201);
      assert.equal(first.headers.get("idempotent-replayed"), null);
      const created = await first.json();
      const again = await call("POST", "/api/events", key, EVENT, { "idempotency-key": "create-1" });
      assert.equal(again.status, 201);
      assert.equal(again.headers.get("idempotent-replayed"), "true");
      assert.deepEqual(await again.json(), created);
      const list = await (await call("GET", "/v1/events", key)).json();
      assert.equal(list.pagination.total, 1);
    });

    test("the same key with another body or path is 422", async () => {
      const other = await call("POST", "/v1/events", key, { ...EVENT, capacity: 6 }, { "idempotency-key": "create-1" });
      assert.equal(other.status, 422);
      assert.equal((await other.json()).error.code, "IDEMPOTENCY_KEY_REUSED");
      const path = await call("POST", "/v1/attendees", key, EVENT, { "idempotency-key": "create-1" });
      assert.equal(path.status, 422);
    });

    test("the same key while the first request runs is 409", async () => {
      const auth = (await service.keys.authenticate(key))!;
      const bytes = new TextEncoder().encode(JSON.stringify(EVENT));
      const now = new Date(clock).toISOString();
      await service.storage.claimIdempotencyKey({
        accountId: auth.accountId,
        key: "busy",
        requestHash: requestFingerprint("POST", "/events", bytes),
        now,
        expiresAt: new Date(clock + 86_400_000).toISOString(),
        staleBefore: new Date(clock - 60_000).toISOString(),
      });
      const busy = await call("POST", "/v1/events", key, EVENT, { "idempotency-key": "busy" });
      assert.equal(busy.status, 409);
      assert.equal(busy.headers.get("retry-after"), "1");
      assert.equal((await busy.json()).error.code, "IDEMPOTENCY_KEY_IN_USE");
      clock += 61_000; // the claim's process is presumed dead: the key runs again
      const taken = await call("POST", "/v1/events", key, EVENT, { "idempotency-key": "busy" });
      assert.equal(taken.status, 201);
    });

    test("error answers are replayed too; bad keys are refused; PUT ignores the header", async () => {
      const missing = { eventId: "evt_nope", firstName: "A", lastName: "B", email: "a@b.de", ticketType: "t" };
      const first = await call("POST", "/v1/attendees", key, missing, { "idempotency-key": "reg-1" });
      assert.equal(first.status, 404);
      const again = await call("POST", "/v1/attendees", key, missing, { "idempotency-key": "reg-1" });
      assert.equal(again.status, 404);
      assert.equal(again.headers.get("idempotent-replayed"), "true");
      const bad = await call("POST", "/v1/events", key, EVENT, { "idempotency-key": "x".repeat(256) });
      assert.equal(bad.status, 400);
      assert.equal((await bad.json()).error.field, "Idempotency-Key");
      const event = await (await call("POST", "/v1/events", key, EVENT)).json();
      const put = await call("PUT", `/v1/events/${event.id}`, key, { name: "Renamed" }, { "idempotency-key": "put-1" });
      const putAgain = await call(
        "PUT",
        `/v1/events/${event.id}`,
        key,
        { name: "Renamed" },
        { "idempotency-key": "put-1" },
      );
      assert.equal(put.status, 200);
      assert.equal(putAgain.headers.get("idempotent-replayed"), null);
    });
  });

  describe("request ids, HSTS, proxies, draining", () => {
    test("X-Request-Id is echoed or generated, and logged with the account", async () => {
      const { key, accountId } = await service.keys.create({ account: "Logs" });
      const given = await call("GET", "/v1/events", key, undefined, { "x-request-id": "req-123" });
      assert.equal(given.headers.get("x-request-id"), "req-123");
      const generated = await handler(new Request("http://service.test/health"));
      assert.match(generated.headers.get("x-request-id")!, /^[0-9a-f-]{36}$/);
      const entry = logged.find((e) => (e as { requestId: string }).requestId === "req-123") as Record<string, unknown>;
      assert.deepEqual(
        { ...entry, durationMs: typeof entry.durationMs },
        {
          requestId: "req-123",
          method: "GET",
          path: "/v1/events",
          status: 200,
          durationMs: "number",
          route: "/v1/events",
          accountId,
        },
      );
      assert.doesNotMatch(JSON.stringify(logged), new RegExp(key));
    });

    test("HSTS over HTTPS only; X-Forwarded-Proto: http is redirected when proxies are trusted", async () => {
      assert.equal(
        (await handler(new Request("https://service.test/health"))).headers.get("strict-transport-security"),
        "max-age=31536000; includeSubDomains",
      );
      assert.equal(
        (await handler(new Request("http://service.test/health"))).headers.get("strict-transport-security"),
        null,
      );
      const proxied = createHandler(service, { trustProxy: true });
      const redirect = await proxied(
        new Request("http://internal:3000/v1/events?page=2", {
          headers: { "x-forwarded-proto": "http", "x-forwarded-host": "events.example.com" },
        }),
      );
      assert.equal(redirect.status, 308);
      assert.equal(redirect.headers.get("location"), "https://events.example.com/v1/events?page=2");
      const secure = await proxied(
        new Request("http://internal:3000/health", { headers: { "x-forwarded-proto": "https" } }),
      );
      assert.equal(secure.status, 200);
      assert.equal(secure.headers.get("strict-transport-security"), "max-age=31536000; includeSubDomains");
      // Without trust the header is ignored.
      assert.equal(
        (await handler(new Request("http://service.test/health", { headers: { "x-forwarded-proto": "http" } }))).status,
        200,
      );
    });

    test("a draining handler answers 503 with Retry-After", async () => {
      const draining = createHandler(service, { isDraining: () => true });
      const response = await draining(new Request("http://service.test/health"));
      assert.equal(response.status, 503);
      assert.equal(response.headers.get("retry-after"), "5");
      assert.equal((await response.json()).error.code, "SERVICE_UNAVAILABLE");
    });
  });
});

describe("Idempotency-Key when the store falters after the effect", () => {
  test("storing the answer is retried through passing unavailability, so the retry replays instead of running again", async () => {
    const storage = await sqliteStorage();
    let failures = 2;
    const faltering = {
      ...storage,
      async completeIdempotencyKey(...args: Parameters<typeof storage.completeIdempotencyKey>) {
        if (failures-- > 0) throw new ServiceError("SERVICE_UNAVAILABLE", { message: "busy" });
        return storage.completeIdempotencyKey(...args);
      },
    };
    const service = createEventService({ storage: faltering });
    const handler = createHandler(service);
    const { key } = await service.keys.create({ account: "Faltering" });
    const post = () =>
      handler(
        new Request("http://service.test/v1/events", {
          method: "POST",
          headers: {
            authorization: `Bearer ${key}`,
            "content-type": "application/json",
            "idempotency-key": "create-once",
          },
          body: JSON.stringify(EVENT),
        }),
      );
    const first = await post();
    assert.equal(first.status, 201);
    const replay = await post();
    assert.equal(replay.status, 201);
    assert.equal(replay.headers.get("idempotent-replayed"), "true");
    assert.equal((await replay.json()).id, (await first.json()).id);
    assert.equal(
      (await service.forAccount((await service.keys.authenticate(key))!.accountId).events.list()).pagination.total,
      1,
    );
    await storage.close();
  });
});

describe("the tests' dates", () => {
  const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
  const SOURCES = ["test", "packages/core/test", "packages/server/test", "packages/client/test", "examples", "bench"];
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory()
        ? entry.name === "node_modules" || entry.name === "dist"
          ? []
          : files(join(dir, entry.name))
        : /\.(ts|mts|mjs|js|json|md)$/.test(entry.name)
          ? [join(dir, entry.name)]
          : [],
    );
  // From the day an ended event stopped taking registrations (docs/api.md, Events) to ten years later.
  const SOON = [
    /\b(?:2026-12-(?:0[2-9]|[1-3]\d)|20(?:2[7-9]|3[0-6])-\d\d-\d\d)/,
    /\b\d{1,2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) 20(?:2[7-9]|3[0-6])\b/,
    /Date\.UTC\(20(?:2[7-9]|3[0-6])\b/,
  ];
  // The service's own validation message, which names an example date.
  const ALLOWED = ["such as 2027-05-01"];

  test("event dates are 11 or more years ahead or relative to now, so registrations keep working", () => {
    const found: string[] = [];
    for (const file of [...SOURCES.flatMap((dir) => files(join(ROOT, dir))), join(ROOT, "README.md")]) {
      readFileSync(file, "utf8")
        .split("\n")
        .forEach((line, i) => {
          const rest = ALLOWED.reduce((text, allowed) => text.replaceAll(allowed, ""), line);
          if (SOON.some((pattern) => pattern.test(rest)))
            found.push(`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`);
        });
    }
    assert.deepEqual(found, []);
  });
});
