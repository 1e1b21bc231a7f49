/**
 * `GET /metrics` as the handler serves it for a host (off unless configured, a bearer token
 * compared in constant time, the host's exposition as it is), and the route templates the
 * handler reports to `onRequestEnd`, the bounded labels of request metrics.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createHandler, type RequestLogEntry } from "../src/http/handler.ts";
import { createEventService, type EventService } from "../src/service.ts";
import { sqliteStorage } from "./_sqlite.ts";

const TOKEN = "metrics-token-0123456789abcdef";
const EXPOSITION = {
  body: "# HELP up_total A test.\n# TYPE up_total counter\nup_total 1\n",
  contentType: "text/plain; version=0.0.4; charset=utf-8",
};

describe("GET /metrics", () => {
  let service: EventService;
  const entries: RequestLogEntry[] = [];
  let collected = 0;
  const handler = () =>
    createHandler(service, {
      onRequestEnd: (entry) => entries.push(entry),
      metrics: { token: TOKEN, collect: async () => (collected++, EXPOSITION) },
    });
  const get = (path: string, headers: Record<string, string> = {}, method = "GET") =>
    handler()(new Request(`http://service.test${path}`, { method, headers }));

  before(async () => {
    service = createEventService({ storage: await sqliteStorage() });
  });
  after(() => service.storage.close());

  test("with the token: the host's exposition, its content type, not cached", async () => {
    const response = await get("/metrics", { authorization: `Bearer ${TOKEN}` });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), EXPOSITION.contentType);
    assert.equal(response.headers.get("cache-control"), "no-store");
    assert.equal(response.headers.get("x-content-type-options"), "nosniff");
    assert.equal(await response.text(), EXPOSITION.body);
    const head = await get("/metrics", { authorization: `Bearer ${TOKEN}` }, "HEAD");
    assert.equal(head.status, 200);
    assert.equal(await head.text(), "");
  });

  test("a missing, wrong, longer or shorter token is 401 in the error body, and nothing is collected", async () => {
    const before = collected;
    for (const headers of <Array<Record<string, string>>>[
      {},
      { authorization: "Bearer wrong-token-0123456789abcdef" },
      { authorization: `Bearer ${TOKEN}x` },
      { authorization: `Bearer ${TOKEN.slice(0, -1)}` },
      { authorization: `Basic ${TOKEN}` },
    ]) {
      const response = await get("/metrics", headers);
      assert.equal(response.status, 401, JSON.stringify(headers));
      assert.equal(response.headers.get("www-authenticate"), 'Bearer realm="metrics"');
      const body = (await response.json()) as { error: { code: string; message: string } };
      assert.equal(body.error.code, "UNAUTHORIZED");
      assert.ok(!body.error.message.includes(TOKEN), "the token is not echoed");
    }
    assert.equal(collected, before);
    assert.ok(
      entries.every((entry) => !JSON.stringify(entry).includes(TOKEN)),
      "no log entry carries the token",
    );
  });

  test("not configured: 404 like any unknown path; other methods are not served", async () => {
    const plain = createHandler(service);
    const response = await plain(
      new Request("http://service.test/metrics", { headers: { authorization: `Bearer ${TOKEN}` } }),
    );
    // A bearer token on an unknown path is checked as an API key first, as everywhere.
    assert.equal(response.status, 401);
    const anonymous = await plain(new Request("http://service.test/metrics"));
    assert.equal(anonymous.status, 404);
    assert.equal(((await anonymous.json()) as { error: { code: string } }).error.code, "NOT_FOUND");
    const post = await get("/metrics", {}, "POST");
    assert.equal(post.status, 404);
  });
});

describe("route templates in onRequestEnd", () => {
  let service: EventService;
  let key: string;
  const entries: RequestLogEntry[] = [];

  before(async () => {
    service = createEventService({ storage: await sqliteStorage() });
    key = (await service.keys.create({ account: "Acme", tier: "starter" })).key;
  });
  after(() => service.storage.close());

  async function routeOf(method: string, path: string, withKey = true): Promise<[number, string | undefined]> {
    const handler = createHandler(service, { onRequestEnd: (entry) => entries.push(entry) });
    const response = await handler(
      new Request(`http://service.test${path}`, { method, headers: withKey ? { authorization: `Bearer ${key}` } : {} }),
    );
    const entry = entries.at(-1)!;
    assert.equal(entry.path, path.split("?")[0]);
    return [response.status, entry.route];
  }

  test("the matched template with its version prefix, never the concrete ids", async () => {
    assert.deepEqual(await routeOf("GET", "/v1/events/evt_0123456789abcdef01234567"), [404, "/v1/events/:id"]);
    assert.deepEqual(await routeOf("GET", "/api/events?limit=5"), [200, "/api/events"]);
    assert.deepEqual(await routeOf("GET", "/v1/webhooks/wh_x/deliveries/"), [404, "/v1/webhooks/:id/deliveries"]);
    assert.deepEqual(await routeOf("POST", "/v1/webhooks/wh_1/deliveries/dlv_2/redeliver"), [
      404,
      "/v1/webhooks/:id/deliveries/:deliveryId/redeliver",
    ]);
    // Refused before the route ran (no key): still labelled by the route asked for.
    assert.deepEqual(await routeOf("GET", "/v1/events/evt_1", false), [401, "/v1/events/:id"]);
  });

  test("paths outside the route table", async () => {
    assert.deepEqual(await routeOf("GET", "/health", false), [200, "/health"]);
    assert.deepEqual(await routeOf("HEAD", "/health", false), [200, "/health"]);
    assert.deepEqual(await routeOf("GET", "/openapi.json", false), [200, "/openapi.json"]);
    assert.deepEqual(await routeOf("GET", "/v1/qr/att_0123.png", false), [404, "/v1/qr/:code.png"]);
    assert.deepEqual(await routeOf("GET", "/api/qr/att_1.svg", false), [404, "/api/qr/:code.svg"]);
    assert.deepEqual(await routeOf("GET", "/docs", false), [200, "/docs"]);
    assert.deepEqual(await routeOf("GET", "/docs/redoc.standalone.js", false), [200, "/docs/:asset"]);
    // A path the public routes do not serve goes on to the API, which knows no such route.
    assert.deepEqual(await routeOf("GET", "/docs/anything.js", false), [404, undefined]);
    assert.deepEqual(await routeOf("GET", "/v1/qr/att_1.gif", false), [404, undefined]);
  });

  test("no route: no template (the metrics label them all as one)", async () => {
    assert.deepEqual(await routeOf("GET", "/v1/nothing/here"), [404, undefined]);
    assert.deepEqual(await routeOf("GET", "/nothing", false), [404, undefined]);
    assert.deepEqual(await routeOf("PATCH", "/v1/events"), [404, undefined]);
  });
});
