/**
 * The server's Prometheus metrics. Core knows no metrics library: it reports each request
 * (`onRequestEnd`, with the route template) and each delivery attempt (the worker's
 * `onAttempt`), and reads the outbox's backlog (`Storage.outboxBacklog`); this module counts
 * them with prom-client and renders the text format the handler serves at `/metrics`.
 */
import { createRequire } from "node:module";
import type {
  DeliveryWorkerOptions,
  EmailAttemptInfo,
  MetricsExposition,
  RequestLogEntry,
  Storage,
} from "@event-service/core";
import type * as PromClient from "prom-client";
import type { Registry } from "prom-client";

let promClient: typeof PromClient | undefined;

/**
 * prom-client, loaded on first use: a server without METRICS_TOKEN (the default) never needs it,
 * and it brings some eighty modules with it. Loaded with `require` (it is CommonJS) so that
 * {@link createMetrics} stays synchronous.
 */
export function loadPromClient(): typeof PromClient {
  return (promClient ??= createRequire(import.meta.url)("prom-client") as typeof PromClient);
}

/** What the delivery worker reports of one recorded attempt. */
export type AttemptInfo = Parameters<NonNullable<DeliveryWorkerOptions["onAttempt"]>>[0];

/** The `route` label of a request no route took (an unknown path or method): one label for all of them. */
export const UNMATCHED_ROUTE = "unmatched";

/**
 * The `limit` label of a `429`: `account` for the per-account minute and day limits,
 * `client_address` for the per-address limit of requests without a valid key.
 */
export const RATE_LIMIT_KINDS = ["account", "client_address"] as const;

/**
 * The `outcome` label of a delivery attempt: `succeeded` (a 2xx), `retrying` (failed, another
 * attempt is scheduled), `failed` (failed, and final: the schedule is spent, a 410, or the one
 * attempt of a redelivery).
 */
export const ATTEMPT_OUTCOMES = ["succeeded", "retrying", "failed"] as const;

/** The `reason` label of a disablement: `gone` (a `410` answer), `failures` (consecutive failed attempts). */
export const DISABLE_REASONS = ["gone", "failures"] as const;

/** The `state` label of pending deliveries (see {@link Storage.outboxBacklog}). */
export const BACKLOG_STATES = ["due", "scheduled", "paused"] as const;

/** Methods labelled as themselves; any other is `OTHER`, so a client cannot mint labels. */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** Request latency buckets in seconds: from a cached read to a slow analytics report. */
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Attempt latency buckets in seconds, up to the longest timeout allowed (60 s). */
const ATTEMPT_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** Options of {@link createMetrics}. */
export interface MetricsOptions {
  /** Read at scrape time for the outbox gauges. */
  storage: Pick<Storage, "outboxBacklog">;
  /** Also the Node process metrics (`process_*`, `nodejs_*`). Default true. */
  defaultMetrics?: boolean;
  now?: () => Date;
}

/** The server's metrics: feed it the hooks' reports, and `collect()` renders them. */
export interface Metrics {
  readonly registry: Registry;
  /** For the handler's `onRequestEnd`. */
  observeRequest(entry: RequestLogEntry): void;
  /** For the delivery worker's `onAttempt`. */
  observeAttempt(info: AttemptInfo): void;
  /** For the email worker's `onAttempt`. */
  observeEmail(info: Pick<EmailAttemptInfo, "kind" | "status">): void;
  /** Reads the outbox's backlog and renders every metric in the Prometheus text format. */
  collect(): Promise<MetricsExposition>;
}

/**
 * Creates the metrics of one server process in a registry of their own (not prom-client's
 * global one, so an embedder's metrics and several servers in one process do not collide).
 *
 * @example
 * const metrics = createMetrics({ storage });
 * const handler = createHandler(service, { onRequestEnd: metrics.observeRequest, metrics: { token, collect: metrics.collect } });
 */
export function createMetrics(options: MetricsOptions): Metrics {
  const { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } = loadPromClient();
  const registry = new Registry();
  const now = options.now ?? (() => new Date());
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });

  const requests = new Counter({
    name: "event_service_http_requests_total",
    help: "HTTP requests answered, by method, route template and status.",
    labelNames: ["method", "route", "status"] as const,
    registers: [registry],
  });
  // No status label: the latency of each route, at a tenth of the series a status label would add.
  const requestDuration = new Histogram({
    name: "event_service_http_request_duration_seconds",
    help: "Time from a request's arrival to its response being ready, by method and route template.",
    labelNames: ["method", "route"] as const,
    buckets: REQUEST_BUCKETS,
    registers: [registry],
  });
  const refusals = new Counter({
    name: "event_service_rate_limit_refusals_total",
    help: "Requests refused with 429 RATE_LIMIT_EXCEEDED, by the limit that refused them (account, client_address).",
    labelNames: ["limit"] as const,
    registers: [registry],
  });
  const attempts = new Counter({
    name: "event_service_webhook_delivery_attempts_total",
    help: "Webhook delivery attempts recorded by this process's worker, by outcome (succeeded, retrying, failed).",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });
  const emails = new Counter({
    name: "event_service_email_attempts_total",
    help: "Email attempts recorded by this process's email worker, by kind (ticket_link, vendor_link) and outcome (sent, retrying, failed, skipped).",
    labelNames: ["kind", "outcome"] as const,
    registers: [registry],
  });
  const attemptDuration = new Histogram({
    name: "event_service_webhook_delivery_attempt_duration_seconds",
    help: "Duration of webhook delivery attempts, from the connection to the receiver's answer (or the timeout).",
    buckets: ATTEMPT_BUCKETS,
    registers: [registry],
  });
  const disabled = new Counter({
    name: "event_service_webhooks_disabled_total",
    help: "Webhooks disabled by this process's worker, by reason (gone: a 410 answer; failures: consecutive failed attempts).",
    labelNames: ["reason"] as const,
    registers: [registry],
  });
  // The outbox gauges are read from the shared database when scraped (also by the primary of
  // `serve --workers`, which gathers every worker's metrics): every process reads the same value,
  // so across workers they aggregate as their `max`, not their sum.
  new Gauge({
    name: "event_service_webhook_deliveries_pending",
    help: "Pending webhook deliveries in the outbox, by state (due: due now or being sent; scheduled: waiting for a retry; paused: webhook inactive).",
    labelNames: ["state"] as const,
    registers: [registry],
    aggregator: "max",
    async collect() {
      const backlog = await options.storage.outboxBacklog(now().toISOString());
      for (const state of BACKLOG_STATES) this.set({ state }, backlog[state]);
    },
  });
  new Gauge({
    name: "event_service_webhook_oldest_pending_delivery_age_seconds",
    help: "Seconds the oldest due delivery of an active webhook has waited since it became due (a first attempt: since it was queued); 0 when none is due.",
    registers: [registry],
    aggregator: "max",
    async collect() {
      const at = now();
      const backlog = await options.storage.outboxBacklog(at.toISOString());
      const oldest = backlog.oldestNextAttemptAt === null ? at.getTime() : Date.parse(backlog.oldestNextAttemptAt);
      this.set(Math.max(0, (at.getTime() - oldest) / 1000));
    },
  });

  // Every labelled counter starts at 0, so rate() and increase() work from the first scrape.
  for (const limit of RATE_LIMIT_KINDS) refusals.inc({ limit }, 0);
  for (const outcome of ATTEMPT_OUTCOMES) attempts.inc({ outcome }, 0);
  for (const reason of DISABLE_REASONS) disabled.inc({ reason }, 0);

  return {
    registry,
    observeRequest(entry) {
      const labels = {
        method: METHODS.has(entry.method) ? entry.method : "OTHER",
        route: entry.route ?? UNMATCHED_ROUTE,
      };
      requests.inc({ ...labels, status: String(entry.status) });
      requestDuration.observe(labels, entry.durationMs / 1000);
      // A request with a valid key is refused by its account's limits; one without, by its address's.
      if (entry.status === 429) refusals.inc({ limit: entry.accountId === undefined ? "client_address" : "account" });
    },
    observeAttempt(info) {
      const outcome = info.attempt.succeeded ? "succeeded" : info.final ? "failed" : "retrying";
      attempts.inc({ outcome });
      attemptDuration.observe(info.attempt.durationMs / 1000);
      if (info.webhookDisabled) disabled.inc({ reason: info.attempt.statusCode === 410 ? "gone" : "failures" });
    },
    observeEmail(info) {
      emails.inc({ kind: info.kind, outcome: info.status === "pending" ? "retrying" : info.status });
    },
    async collect() {
      return { body: await registry.metrics(), contentType: registry.contentType };
    },
  };
}
