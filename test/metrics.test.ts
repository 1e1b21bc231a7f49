/**
 * End-to-end: `GET /metrics` of the real server with METRICS_TOKEN set. Requests of every kind
 * (successes, 404s, 401s, 429s from a small enterprise limit) and webhook deliveries to a real
 * receiver (a success, failures with retries, a 410, a long Retry-After, a paused webhook, a
 * receiver that does not answer) are made, then the scrape is read line by line with a
 * Prometheus text-format parser and its values checked against what was done. Without the
 * token the path is an unknown one; with a missing or wrong token it is 401.
 */
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { startServer, type TestServer } from "./_setup.ts";
import { type Client, clientFor, createEvent, expectError, expectStatus } from "./fixtures/api.ts";
import { waitForMinuteRoom } from "./fixtures/conventions.ts";
import { makeCertificate } from "./fixtures/conventions.ts";
import { type Exposition, parseExposition } from "./fixtures/prometheus.ts";
import { deliveryEnv, type Receiver, startReceiver } from "./fixtures/receiver.ts";

const TOKEN = "test-metrics-token-3f9a1c07d2b84e56";

let tls: ReturnType<typeof makeCertificate>;
let receiver: Receiver;
let server: TestServer;

before(async () => {
  tls = makeCertificate();
  receiver = await startReceiver({ cert: tls.cert, key: readFileSync(tls.keyPath, "utf8") });
  receiver.answer = (request) => {
    if (request.path.startsWith("/fail")) return { status: 500, body: "down" };
    if (request.path.startsWith("/gone")) return { status: 410 };
    if (request.path.startsWith("/later") || request.path.startsWith("/paused"))
      return { status: 503, headers: { "retry-after": "3600" } };
    if (request.path.startsWith("/hang")) return "hang";
    return { status: 200, body: "ok" };
  };
  // A long timeout keeps the hanging receiver's delivery in flight (pending and due) while the test scrapes.
  server = await startServer({ env: deliveryEnv(tls.certPath, { METRICS_TOKEN: TOKEN, WEBHOOK_TIMEOUT_MS: "30000" }) });
});

after(async () => {
  // The receiver first: it drops the hanging answer, so the worker's attempt ends and shutdown need not wait for it.
  await receiver.close();
  const output = server.output();
  assert.equal(await server.stop(), 0);
  rmSync(tls.dir, { recursive: true, force: true });
  assert.ok(!output.includes(TOKEN), "the token is never logged");
  assert.doesNotMatch(output, /"msg":"unexpected error"/);
});

/** Scrapes with the token and reads every line. */
async function scrape(): Promise<Exposition> {
  const response = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  return parseExposition(await response.text());
}

/** Scrapes until `check` holds (the worker records attempts after the receiver answered). */
async function scrapeUntil(check: (metrics: Exposition) => boolean, what: string): Promise<Exposition> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const metrics = await scrape();
    if (check(metrics)) return metrics;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const requests = (metrics: Exposition, method: string, route: string, status: number) =>
  metrics.value("event_service_http_requests_total", { method, route, status: String(status) }) ?? 0;
const attempts = (metrics: Exposition, outcome: string) =>
  metrics.value("event_service_webhook_delivery_attempts_total", { outcome });

describe("GET /metrics with METRICS_TOKEN", () => {
  let client: Client;

  before(async () => {
    client = clientFor(server, (await server.createKey({ account: "Metrics Co" })).key);
  });

  test("a missing or wrong token is 401 in the error body; the right one gets the text format", async () => {
    const missing = await server.request("GET", "/metrics");
    expectError(missing, 401, "UNAUTHORIZED");
    assert.equal(missing.headers.get("www-authenticate"), 'Bearer realm="metrics"');
    expectError(await server.request("GET", "/metrics", { key: `${TOKEN}0` }), 401, "UNAUTHORIZED");
    expectError(await server.request("GET", "/metrics", { key: client.key }), 401, "UNAUTHORIZED");
    const metrics = await scrape();
    assert.equal(requests(metrics, "GET", "/metrics", 401), 3);
    // Node's process metrics come along.
    assert.equal(metrics.types.get("process_cpu_user_seconds_total"), "counter");
    assert.ok((metrics.value("process_resident_memory_bytes") ?? 0) > 0);
    assert.equal(metrics.types.get("event_service_http_request_duration_seconds"), "histogram");
    for (const outcome of ["succeeded", "retrying", "failed"]) assert.equal(attempts(metrics, outcome), 0);
  });

  test("requests by route template and status, with their latency; unknown routes under one label", async () => {
    const event = await createEvent(client);
    for (let i = 0; i < 3; i++) expectStatus(await client.get(`/events/${event.id}`), 200);
    for (const id of ["evt_000000000000000000000001", "evt_000000000000000000000002"])
      expectError(await client.get(`/events/${id}`), 404, "NOT_FOUND");
    for (let i = 0; i < 2; i++) expectStatus(await server.request("GET", "/api/events", { key: client.key }), 200);
    expectError(await server.request("GET", "/v1/events"), 401, "UNAUTHORIZED");
    expectError(await server.request("GET", "/v1/no/such/route", { key: client.key }), 404, "NOT_FOUND");
    expectError(await server.request("GET", "/no-such-page"), 404, "NOT_FOUND");
    expectError(await server.request("DELETE", "/v1/events"), 404, "NOT_FOUND");
    expectError(await server.request("PROPFIND", "/v1/events"), 404, "NOT_FOUND");
    expectStatus(await server.request("GET", "/health"), 200);

    const metrics = await scrape();
    assert.equal(requests(metrics, "POST", "/v1/events", 201), 1);
    assert.equal(requests(metrics, "GET", "/v1/events/:id", 200), 3);
    assert.equal(requests(metrics, "GET", "/v1/events/:id", 404), 2);
    assert.equal(requests(metrics, "GET", "/api/events", 200), 2);
    assert.equal(requests(metrics, "GET", "/v1/events", 401), 1);
    assert.equal(requests(metrics, "GET", "unmatched", 404), 2);
    assert.equal(requests(metrics, "DELETE", "unmatched", 404), 1);
    assert.equal(requests(metrics, "OTHER", "unmatched", 404), 1);
    assert.equal(requests(metrics, "GET", "/health", 200), 1);
    assert.equal(
      metrics.value("event_service_http_request_duration_seconds_count", { method: "GET", route: "/v1/events/:id" }),
      5,
    );
    assert.equal(
      metrics.value("event_service_http_request_duration_seconds_bucket", {
        method: "GET",
        route: "/v1/events/:id",
        le: "+Inf",
      }),
      5,
    );
    assert.ok(
      (metrics.value("event_service_http_request_duration_seconds_sum", { method: "GET", route: "/v1/events/:id" }) ??
        0) > 0,
    );
    // No concrete id ever becomes a label.
    assert.ok(
      !metrics.samples.some((sample) => Object.values(sample.labels).some((value) => value.includes(event.id))),
    );
  });

  test("429 refusals by the limit that refused them", async () => {
    const limited = await server.createKey({
      account: "Small Enterprise",
      tier: "enterprise",
      perMinute: 2,
      perDay: 1000,
    });
    await waitForMinuteRoom();
    const statuses = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await server.request("GET", "/api/webhooks", { key: limited.key })).status);
    assert.deepEqual(statuses, [200, 200, 429, 429]);
    const metrics = await scrape();
    assert.equal(requests(metrics, "GET", "/api/webhooks", 429), 2);
    assert.equal(metrics.value("event_service_rate_limit_refusals_total", { limit: "account" }), 2);
    assert.equal(metrics.value("event_service_rate_limit_refusals_total", { limit: "client_address" }), 0);
  });

  test("delivery attempts by outcome, disablements, and the outbox backlog", async () => {
    const hooks: Record<string, string> = {};
    for (const name of ["ok", "fail", "gone", "later", "paused", "hang"]) {
      hooks[name] = expectStatus(
        await client.post("/webhooks", { url: `${receiver.origin}/${name}`, events: ["event.created"] }),
        201,
      ).id;
    }
    await createEvent(client);
    // ok: one success; fail: the first attempt and 4 retries (WEBHOOK_RETRY_DELAYS_MS=0,50,50,50); gone: one 410;
    // later and paused: one 503 asking for an hour; hang: in flight.
    await receiver.waitFor(
      () =>
        ["/ok", "/gone", "/later", "/paused", "/hang"].every((path) => receiver.at(path).length === 1) &&
        receiver.at("/fail").length === 5,
      "every first attempt and the failing hook's retries",
    );
    let metrics = await scrapeUntil(
      (m) => (attempts(m, "succeeded") ?? 0) + (attempts(m, "retrying") ?? 0) + (attempts(m, "failed") ?? 0) === 9,
      "9 recorded attempts",
    );
    assert.equal(attempts(metrics, "succeeded"), 1);
    assert.equal(attempts(metrics, "retrying"), 6); // fail x4, later, paused
    assert.equal(attempts(metrics, "failed"), 2); // fail's last, gone
    assert.equal(metrics.value("event_service_webhook_delivery_attempt_duration_seconds_count"), 9);
    assert.equal(metrics.value("event_service_webhooks_disabled_total", { reason: "gone" }), 1);
    assert.equal(metrics.value("event_service_webhooks_disabled_total", { reason: "failures" }), 0);
    expectStatus(await client.put(`/webhooks/${hooks.paused}`, { active: false }), 200);

    const hung = expectStatus(await client.get(`/webhooks/${hooks.hang}/deliveries`), 200).deliveries[0];
    const queuedAt = Date.parse(hung.createdAt);
    // Let the hanging delivery age a little, so its age is told apart from a fresh one.
    while (Date.now() - queuedAt < 1_500) await new Promise((resolve) => setTimeout(resolve, 100));
    const before = Date.now();
    metrics = await scrape();
    const afterScrape = Date.now();
    assert.equal(
      metrics.value("event_service_webhook_deliveries_pending", { state: "due" }),
      1,
      "the hanging delivery is due and in flight",
    );
    assert.equal(
      metrics.value("event_service_webhook_deliveries_pending", { state: "scheduled" }),
      1,
      "later waits an hour",
    );
    assert.equal(
      metrics.value("event_service_webhook_deliveries_pending", { state: "paused" }),
      1,
      "paused's webhook is inactive",
    );
    const age = metrics.value("event_service_webhook_oldest_pending_delivery_age_seconds")!;
    assert.ok(
      age >= (before - queuedAt) / 1000 - 0.01 && age <= (afterScrape - queuedAt) / 1000 + 0.01,
      `age ${age} s, queued ${(before - queuedAt) / 1000} s before the scrape`,
    );
  });
});

test("without METRICS_TOKEN /metrics is an unknown path", async () => {
  const plain = await startServer();
  try {
    expectError(await plain.request("GET", "/metrics"), 404, "NOT_FOUND");
    // A bearer token there is checked as an API key, as on every unknown path.
    expectError(await plain.request("GET", "/metrics", { key: TOKEN }), 401, "UNAUTHORIZED");
  } finally {
    assert.equal(await plain.stop(), 0);
  }
});

test("the scrape reader refuses what Prometheus would", () => {
  const family = "# HELP a_total A.\n# TYPE a_total counter\n";
  const histogram = "# TYPE h histogram\n";
  assert.equal(parseExposition(`${family}a_total{x="q\\"\\\\\\n"} 1.5e3\n`).value("a_total", { x: 'q"\\\n' }), 1500);
  for (const bad of [
    `${family}a_total 1`, // no final line feed
    `${family}a-total 1\n`, // a bad name
    `${family}a_total{x=1} 1\n`, // an unquoted label value
    `${family}a_total one\n`, // not a number
    `${family}a_total 1\na_total 2\n`, // one series twice
    "b_total 1\n", // no family declared
    `${family}${family}a_total 1\n`, // TYPE twice
    `${histogram}h_bucket{le="1"} 2\nh_bucket{le="+Inf"} 3\nh_sum 1\nh_count 4\n`, // +Inf bucket and count differ
    `${histogram}h_bucket{le="1"} 3\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 2\n`, // not cumulative
  ]) {
    assert.throws(() => parseExposition(bad), JSON.stringify(bad));
  }
});
