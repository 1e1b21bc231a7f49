/**
 * The server's metrics module on a real (in-memory SQLite) store: how hook reports become
 * labels (the limit of a 429, unknown methods and routes, attempt outcomes, disablement
 * reasons) and the backlog gauges read at scrape time, with a fixed clock.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createEventService, createSqlStorage, type RequestLogEntry } from "@event-service/core";
import { type AttemptInfo, createMetrics } from "../src/metrics.ts";
import { openSqlite } from "../src/sqlite.ts";

const entry = (overrides: Partial<RequestLogEntry>): RequestLogEntry => ({
  requestId: "r",
  method: "GET",
  path: "/x",
  status: 200,
  durationMs: 12,
  ...overrides,
});
const attempt = (
  succeeded: boolean,
  statusCode: number | null,
  final: boolean,
  webhookDisabled = false,
): AttemptInfo => ({
  deliveryId: "dlv_1",
  webhookId: "wh_1",
  type: "event.created",
  final,
  webhookDisabled,
  attempt: {
    number: 1,
    startedAt: "2041-01-01T00:00:00.000Z",
    durationMs: 250,
    statusCode,
    error: null,
    responseExcerpt: null,
    succeeded,
  },
});

/** The value of one sample line of the exposition, by its exact series text. */
const sample = (body: string, series: string) => {
  const line = body.split("\n").find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

test("hook reports become bounded labels, and the backlog is read at scrape time", async () => {
  const storage = createSqlStorage({ db: openSqlite(":memory:") });
  await storage.migrate();
  const queuedAt = new Date("2041-01-01T00:00:00.000Z");
  const service = createEventService({ storage, now: () => queuedAt, webhooks: { allowPrivateNetworks: true } });
  const account = service.forAccount((await service.keys.create({ account: "Acme" })).accountId);
  await account.webhooks.create({ url: "https://93.184.216.34/hook", events: ["event.created"] });
  await account.events.create({
    name: "Summit",
    location: { address: "Main St 1", city: "Berlin", country: "DE" },
    startDate: "2041-05-01T09:00:00.000Z",
    endDate: "2041-05-01T17:00:00.000Z",
    capacity: 10,
    category: "conference",
  });
  const metrics = createMetrics({ storage, defaultMetrics: false, now: () => new Date(queuedAt.getTime() + 90_500) });

  metrics.observeRequest(entry({ route: "/v1/events/:id", accountId: "acc_1" }));
  metrics.observeRequest(entry({ route: "/v1/events", status: 429, accountId: "acc_1" }));
  metrics.observeRequest(entry({ route: "/v1/events", status: 429 })); // no valid key: the per-address limit
  metrics.observeRequest(entry({ method: "BREW", status: 404 }));
  metrics.observeAttempt(attempt(true, 200, true));
  metrics.observeAttempt(attempt(false, 500, false));
  metrics.observeAttempt(attempt(false, null, true, true)); // a timeout, the 10th failure in a row
  metrics.observeAttempt(attempt(false, 410, true, true));

  const { body, contentType } = await metrics.collect();
  assert.equal(contentType, "text/plain; version=0.0.4; charset=utf-8");
  assert.equal(sample(body, 'event_service_http_requests_total{method="GET",route="/v1/events/:id",status="200"}'), 1);
  assert.equal(sample(body, 'event_service_http_requests_total{method="GET",route="/v1/events",status="429"}'), 2);
  assert.equal(sample(body, 'event_service_http_requests_total{method="OTHER",route="unmatched",status="404"}'), 1);
  assert.equal(
    sample(body, 'event_service_http_request_duration_seconds_sum{method="GET",route="/v1/events/:id"}'),
    0.012,
  );
  assert.equal(sample(body, 'event_service_rate_limit_refusals_total{limit="account"}'), 1);
  assert.equal(sample(body, 'event_service_rate_limit_refusals_total{limit="client_address"}'), 1);
  assert.equal(sample(body, 'event_service_webhook_delivery_attempts_total{outcome="succeeded"}'), 1);
  assert.equal(sample(body, 'event_service_webhook_delivery_attempts_total{outcome="retrying"}'), 1);
  assert.equal(sample(body, 'event_service_webhook_delivery_attempts_total{outcome="failed"}'), 2);
  assert.equal(sample(body, "event_service_webhook_delivery_attempt_duration_seconds_sum"), 1);
  assert.equal(sample(body, 'event_service_webhooks_disabled_total{reason="failures"}'), 1);
  assert.equal(sample(body, 'event_service_webhooks_disabled_total{reason="gone"}'), 1);
  // The event's notification was queued at queuedAt, and the clock reads 90.5 s later.
  assert.equal(sample(body, 'event_service_webhook_deliveries_pending{state="due"}'), 1);
  assert.equal(sample(body, 'event_service_webhook_deliveries_pending{state="scheduled"}'), 0);
  assert.equal(sample(body, 'event_service_webhook_deliveries_pending{state="paused"}'), 0);
  assert.equal(sample(body, "event_service_webhook_oldest_pending_delivery_age_seconds"), 90.5);
  assert.ok(!body.includes("process_cpu"), "no default metrics when turned off");
  await storage.close();
});
