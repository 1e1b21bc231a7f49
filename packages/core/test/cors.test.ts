import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS, createCors, parseCorsOrigins } from "../src/http/cors.ts";
import { createHandler, type FetchHandler } from "../src/http/handler.ts";
import { createEventService, type EventService } from "../src/service.ts";
import { sqliteStorage } from "./_sqlite.ts";

const APP = "https://app.example.com";
const OTHER = "https://evil.example.net";
const EXPOSED =
  "X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, Idempotent-Replayed, X-Request-Id, Content-Disposition";

/** The `access-control-*` headers of a response, by name. */
function corsHeaders(response: Response): Record<string, string> {
  return Object.fromEntries([...response.headers].filter(([name]) => name.startsWith("access-control-")));
}

describe("CORS_ORIGINS parsing", () => {
  test("origins are normalised: lower-case host, no default port, a trailing slash dropped", () => {
    assert.deepEqual(parseCorsOrigins(" https://App.Example.com , http://localhost:5173/,https://a.example:443,,"), [
      "https://app.example.com",
      "http://localhost:5173",
      "https://a.example",
    ]);
    assert.deepEqual(parseCorsOrigins("http://[::1]:8080"), ["http://[::1]:8080"]);
    assert.equal(parseCorsOrigins(" * "), "*");
  });

  test("anything a browser would never send as Origin is refused, naming the entry", () => {
    for (const bad of [
      "app.example.com",
      "https://app.example.com/path",
      "https://app.example.com?x=1",
      "ftp://files.example.com",
      "https://user@app.example.com",
      "https://",
      "https://exa mple.com",
      "null",
    ]) {
      assert.throws(
        () => parseCorsOrigins(`https://ok.example, ${bad}`),
        (error: Error) => error instanceof TypeError && error.message.includes(bad),
        bad,
      );
    }
    assert.throws(() => parseCorsOrigins("*, https://app.example.com"), /stands alone/);
    assert.throws(() => parseCorsOrigins(" , "), /no origin/);
    assert.throws(() => createCors({ origins: ["https://app.example.com/x"] }), TypeError);
  });
});

describe("the handler with CORS for listed origins", () => {
  let service: EventService;
  let handler: FetchHandler;
  let key: string;
  let tight: string;

  before(async () => {
    // A clock that stands still: the tight key's minute never turns between its three requests.
    service = createEventService({ storage: await sqliteStorage(), now: () => new Date("2037-01-01T12:00:30.000Z") });
    handler = createHandler(service, { cors: { origins: [APP, "http://localhost:5173"] } });
    key = (await service.keys.create({ account: "Browser" })).key;
    tight = (await service.keys.create({ account: "Tight", tier: "enterprise", perMinute: 2, perDay: 100 })).key;
  });
  after(() => service.storage.close());

  const call = (method: string, path: string, headers: Record<string, string> = {}, body?: string) =>
    handler(new Request(`http://api.test${path}`, { method, headers, ...(body !== undefined && { body }) }));
  const preflight = (origin: string, method = "POST", path = "/v1/events") =>
    call("OPTIONS", path, {
      origin,
      "access-control-request-method": method,
      "access-control-request-headers": "authorization, content-type, idempotency-key",
    });

  test("a preflight from a listed origin is answered 204 with the methods and request headers the API uses", async () => {
    const response = await preflight(APP);
    assert.equal(response.status, 204);
    assert.equal(await response.text(), "");
    assert.deepEqual(
      { ...corsHeaders(response), "access-control-expose-headers": undefined },
      {
        "access-control-allow-origin": APP,
        "access-control-allow-methods": "GET, HEAD, POST, PUT, DELETE",
        "access-control-allow-headers": "Authorization, Content-Type, Idempotency-Key, X-Request-Id",
        "access-control-max-age": "7200",
        "access-control-expose-headers": undefined,
      },
    );
    assert.equal(response.headers.get("vary"), "Origin");
    assert.deepEqual([...CORS_ALLOWED_HEADERS], ["Authorization", "Content-Type", "Idempotency-Key", "X-Request-Id"]);
    // Any path and method: the browser asks before it knows whether the route exists.
    assert.equal((await preflight("http://localhost:5173", "DELETE", "/api/attendees/att_x")).status, 204);
  });

  test("preflights carry no key and cost none of the account's requests", async () => {
    const first = await call("GET", "/v1/events", { origin: APP, authorization: `Bearer ${key}` });
    const before = Number(first.headers.get("x-ratelimit-remaining"));
    for (let i = 0; i < 5; i++) assert.equal((await preflight(APP, "GET")).status, 204);
    const next = await call("GET", "/v1/events", { origin: APP, authorization: `Bearer ${key}` });
    assert.equal(Number(next.headers.get("x-ratelimit-remaining")), before - 1);
  });

  test("a listed origin's responses carry Access-Control-Allow-Origin, Vary: Origin and the exposed headers", async () => {
    const created = await call(
      "POST",
      "/v1/events",
      { origin: APP, authorization: `Bearer ${key}`, "content-type": "application/json", "idempotency-key": "cors-1" },
      JSON.stringify({
        name: "Browser made",
        location: { address: "Main St 1", city: "Berlin", country: "DE" },
        startDate: "2038-01-01T10:00:00Z",
        endDate: "2038-01-01T12:00:00Z",
        capacity: 5,
        category: "meetup",
      }),
    );
    assert.equal(created.status, 201);
    assert.deepEqual(corsHeaders(created), {
      "access-control-allow-origin": APP,
      "access-control-expose-headers": EXPOSED,
    });
    assert.equal(created.headers.get("vary"), "Origin");
    assert.deepEqual([...CORS_EXPOSED_HEADERS].join(", "), EXPOSED);
    for (const exposed of ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "x-request-id"])
      assert.ok(created.headers.has(exposed), exposed);
    const health = await call("GET", "/health", { origin: "http://localhost:5173" });
    assert.equal(health.headers.get("access-control-allow-origin"), "http://localhost:5173");
  });

  test("error responses carry the CORS headers too, so the browser shows the error body", async () => {
    const unauthorized = await call("GET", "/v1/events", { origin: APP });
    assert.equal(unauthorized.status, 401);
    assert.equal(unauthorized.headers.get("access-control-allow-origin"), APP);
    assert.equal((await unauthorized.json()).error.code, "UNAUTHORIZED");
    const missing = await call("GET", "/v1/events/evt_missing", { origin: APP, authorization: `Bearer ${key}` });
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.get("access-control-allow-origin"), APP);
    const invalid = await call(
      "POST",
      "/v1/events",
      { origin: APP, authorization: `Bearer ${key}`, "content-type": "application/json" },
      "{}",
    );
    assert.equal(invalid.status, 400);
    assert.equal(invalid.headers.get("access-control-allow-origin"), APP);
    let limited: Response | undefined;
    for (let i = 0; i < 3; i++)
      limited = await call("GET", "/v1/events", { origin: APP, authorization: `Bearer ${tight}` });
    assert.equal(limited!.status, 429);
    assert.deepEqual(corsHeaders(limited!), {
      "access-control-allow-origin": APP,
      "access-control-expose-headers": EXPOSED,
    });
    assert.ok(Number(limited!.headers.get("retry-after")) >= 1);
  });

  test("an origin not listed gets no CORS headers, and its preflight is an ordinary unknown route", async () => {
    const response = await call("GET", "/v1/events", { origin: OTHER, authorization: `Bearer ${key}` });
    assert.equal(response.status, 200);
    assert.deepEqual(corsHeaders(response), {});
    // The answer still depends on the Origin, so shared caches must key on it.
    assert.equal(response.headers.get("vary"), "Origin");
    const refused = await preflight(OTHER);
    assert.equal(refused.status, 404);
    assert.deepEqual(corsHeaders(refused), {});
    // Close is not equal: scheme, port and subdomain all count.
    for (const near of [
      "http://app.example.com",
      "https://app.example.com:8443",
      "https://x.app.example.com",
      "null",
    ]) {
      assert.deepEqual(corsHeaders(await preflight(near)), {}, near);
    }
    // No Origin at all (curl, a server): nothing CORS.
    assert.deepEqual(corsHeaders(await call("GET", "/health")), {});
  });

  test("OPTIONS that is not a preflight is routed as usual", async () => {
    const response = await call("OPTIONS", "/v1/events", { origin: APP });
    assert.equal(response.status, 404);
    assert.equal(response.headers.get("access-control-allow-origin"), APP);
  });
});

describe("the handler with CORS_ORIGINS=*", () => {
  let service: EventService;
  let handler: FetchHandler;

  before(async () => {
    service = createEventService({ storage: await sqliteStorage() });
    handler = createHandler(service, { cors: { origins: "*" } });
  });
  after(() => service.storage.close());

  test("every origin is allowed with *, without Vary", async () => {
    const preflight = await handler(
      new Request("http://api.test/v1/events", {
        method: "OPTIONS",
        headers: { origin: OTHER, "access-control-request-method": "PUT" },
      }),
    );
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get("access-control-allow-origin"), "*");
    assert.equal(preflight.headers.get("access-control-allow-methods"), "GET, HEAD, POST, PUT, DELETE");
    assert.equal(preflight.headers.get("vary"), null);
    const error = await handler(new Request("http://api.test/v1/events", { headers: { origin: OTHER } }));
    assert.equal(error.status, 401);
    assert.deepEqual(corsHeaders(error), {
      "access-control-allow-origin": "*",
      "access-control-expose-headers": EXPOSED,
    });
    assert.equal(error.headers.get("vary"), null);
    // Credentials are never allowed: keys travel in Authorization, not cookies.
    assert.equal(error.headers.get("access-control-allow-credentials"), null);
  });
});

describe("the handler without CORS (the default)", () => {
  test("no CORS headers, no Vary, and a preflight is an unknown route", async () => {
    const service = createEventService({ storage: await sqliteStorage() });
    const handler = createHandler(service);
    const response = await handler(
      new Request("http://api.test/v1/events", {
        method: "OPTIONS",
        headers: { origin: APP, "access-control-request-method": "POST" },
      }),
    );
    assert.equal(response.status, 404);
    assert.deepEqual(corsHeaders(response), {});
    assert.equal(response.headers.get("vary"), null);
    await service.storage.close();
  });
});
