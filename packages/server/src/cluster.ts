/**
 * `serve --workers N`: N server processes on one port with node:cluster. The primary migrates the
 * database once, forks the workers (each a whole server: handler, delivery worker, purge) and
 * then only supervises: it serves no request and opens no store. The workers accept connections
 * from the shared listening socket themselves (node:cluster's `SCHED_NONE`), unless
 * `NODE_CLUSTER_SCHED_POLICY` says otherwise.
 */
import cluster, { type Worker } from "node:cluster";
import { createServer, type AddressInfo } from "node:net";
import type { MetricsExposition } from "@event-service/core";
import type { AggregatorRegistry, PrometheusContentType, Registry } from "prom-client";
import type { Logger } from "./log.ts";
import { loadPromClient } from "./metrics.ts";

/** The largest `--workers` / `WORKERS`: more processes than that only compete for the database. */
export const MAX_WORKERS = 64;

/** The window over which worker deaths count towards the delay before a replacement. */
export const CRASH_WINDOW_MS = 60_000;
/** The first wait before a replacement when workers keep dying; it doubles with every further death in the window. */
export const FIRST_REPLACEMENT_DELAY_MS = 1_000;
/** The longest wait before a replacement. */
export const MAX_REPLACEMENT_DELAY_MS = 30_000;
/** Replacements in a row that exit before they listen while no worker serves at all: a crash loop, which ends the service. */
export const MAX_FAILED_REPLACEMENTS = 5;

/**
 * How long the primary waits before it replaces a worker, given how many workers died within
 * {@link CRASH_WINDOW_MS} (this one included): the first at once, then 1 s, 2 s, 4 s, ... up to
 * {@link MAX_REPLACEMENT_DELAY_MS}.
 */
export function replacementDelay(deathsInWindow: number): number {
  if (deathsInWindow <= 1) return 0;
  return Math.min(MAX_REPLACEMENT_DELAY_MS, FIRST_REPLACEMENT_DELAY_MS * 2 ** (deathsInWindow - 2));
}

/** The message a worker sends the primary once it listens. */
interface ListeningMessage {
  eventService: "listening";
  url: string;
}

function isListening(message: unknown): message is ListeningMessage {
  return typeof message === "object" && message !== null && (message as ListeningMessage).eventService === "listening";
}

/** Tells the primary, when this process is a cluster worker, that it listens at `url`. */
export function reportListening(url: string): void {
  if (cluster.isWorker) process.send?.({ eventService: "listening", url } satisfies ListeningMessage);
}

/** Whether this process is a worker that `serve --workers` forked. */
export const isClusterWorker = (): boolean => cluster.isWorker;

/** A worker's request for every worker's metrics, and the primary's answer. */
interface MetricsMessage {
  eventService: "metrics";
  id: number;
  body?: string;
  contentType?: string;
  error?: string;
}

const isMetrics = (message: unknown): message is MetricsMessage =>
  typeof message === "object" && message !== null && (message as MetricsMessage).eventService === "metrics";

/**
 * In a cluster worker, the `collect` of `/metrics`: the scrape reaches one worker, which asks the
 * primary for the metrics of all of them (prom-client's AggregatorRegistry: counters and
 * histograms summed, the outbox gauges' max). `registry` is this worker's, which the primary's
 * request reads.
 */
export function collectAcrossWorkers(registry: Registry): () => Promise<MetricsExposition> {
  const { AggregatorRegistry } = loadPromClient();
  AggregatorRegistry.setRegistries([registry]);
  // Constructing one installs prom-client's answer to the primary's requests in this worker.
  new AggregatorRegistry();
  const waiting = new Map<number, { resolve(exposition: MetricsExposition): void; reject(error: Error): void }>();
  let next = 0;
  process.on("message", (message: unknown) => {
    if (!isMetrics(message)) return;
    const request = waiting.get(message.id);
    waiting.delete(message.id);
    if (message.error !== undefined) request?.reject(new Error(`metrics of the workers: ${message.error}`));
    else request?.resolve({ body: message.body!, contentType: message.contentType! });
  });
  return () =>
    new Promise((resolve, reject) => {
      const id = next++;
      waiting.set(id, { resolve, reject });
      process.send!({ eventService: "metrics", id } satisfies MetricsMessage);
    });
}

/**
 * Runs the primary of `serve --workers N`: runs `migrate` once, forks `workers` processes (which
 * run this same CLI and start one server each), and resolves with the exit code once they have
 * all exited.
 *
 * - During the first start, a worker that exits before it listens is a failed start (a bad
 *   certificate, an unreachable database, a port in use): the primary stops the others and
 *   exits 1 rather than retry it.
 * - Once serving, a worker that exits is logged (`error`, with its pid, exit code and signal)
 *   and replaced, as gunicorn and nginx do, the others serving meanwhile and never stopped for
 *   it: at once, or after {@link replacementDelay} while workers keep dying. A replacement that
 *   cannot start (the database still down: it does not wait for it) exits and is replaced the
 *   same way. Only {@link MAX_FAILED_REPLACEMENTS} replacements in a row that fail to start
 *   while no worker serves at all is a crash loop: the primary exits 1, so the supervisor above
 *   it (systemd, Kubernetes) sees the failure.
 * - SIGTERM or SIGINT is passed to every worker, each drains as a single server does (requests
 *   and delivery attempts in flight finish), and the primary exits 0 once all have exited 0
 *   (1 if any did not).
 */
/** A port free on `host` now: the one the workers then share when the configuration says `0`. */
function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, host, () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export async function runPrimary(options: {
  workers: number;
  logger: Logger;
  migrate: () => Promise<void>;
  /** HOST, where a port of 0 is resolved. */
  host: string;
  /** The listening ports by variable (PORT, HTTP_REDIRECT_PORT); a 0 becomes one free port for all workers. */
  ports: Record<string, number | undefined>;
}): Promise<number> {
  const { workers, logger } = options;
  // Each worker's listen(0) would get a port of its own (node:cluster keys port 0 per worker):
  // one free port is picked here instead and given to all.
  const env: Record<string, string> = {};
  /** Every forked worker until its process has exited (cluster.workers drops one at disconnect already). */
  const alive = new Set<Worker>();
  const listening = new Set<Worker>();
  const deaths: number[] = [];
  /** Replacements in a row that exited before they listened (reset when any worker listens). */
  let failedStarts = 0;
  /** Replacements waiting for their delay. */
  const replacing = new Set<ReturnType<typeof setTimeout>>();
  let stopping: string | undefined;
  let failed = false;
  let announced = false;
  let resolveDone!: (code: number) => void;
  const done = new Promise<number>((resolve) => (resolveDone = resolve));
  // Made at the first worker's request: only workers with METRICS_TOKEN ask, so without it the
  // primary never loads prom-client.
  let aggregator: AggregatorRegistry<PrometheusContentType> | undefined;

  /** Answers a worker's request for every worker's metrics (it times out after 5 s if one does not answer). */
  function sendMetrics(worker: Worker, id: number): void {
    const registry = (aggregator ??= new (loadPromClient().AggregatorRegistry)());
    registry.clusterMetrics().then(
      (body) =>
        worker.isConnected() &&
        worker.send({ eventService: "metrics", id, body, contentType: registry.contentType } satisfies MetricsMessage),
      (error: Error) =>
        worker.isConnected() &&
        worker.send({ eventService: "metrics", id, error: error.message } satisfies MetricsMessage),
    );
  }

  function finishIfEmpty(): void {
    if (alive.size > 0) return;
    logger.info({ exitCode: failed ? 1 : 0 }, "stopped");
    resolveDone(failed ? 1 : 0);
  }

  function stop(reason: string, error = false): void {
    if (error) failed = true;
    if (stopping) return;
    stopping = reason;
    const waiting = replacing.size > 0;
    for (const timer of replacing) clearTimeout(timer);
    replacing.clear();
    // Before the fork (a signal during the migration): nothing to drain; every worker dead and
    // their replacements waiting for their delay: nothing left either.
    if (alive.size === 0) {
      if (waiting) finishIfEmpty();
      return;
    }
    logger.info({ reason, workers: alive.size }, "shutting down");
    // Each worker drains on SIGTERM as a single server does; one still starting stops once it is up.
    for (const worker of alive) worker.process.kill("SIGTERM");
  }

  function fork(): void {
    const worker = cluster.fork(env);
    const pid = worker.process.pid;
    alive.add(worker);
    worker.on("message", (message: unknown) => {
      if (isMetrics(message)) return sendMetrics(worker, message.id);
      if (!isListening(message)) return;
      listening.add(worker);
      failedStarts = 0;
      if (!announced && listening.size === workers) {
        announced = true;
        logger.info({ url: message.url, workers, pids: [...listening].map((w) => w.process.pid) }, "listening");
      }
    });
    worker.on("exit", (code, signal) => {
      alive.delete(worker);
      const hadListened = listening.delete(worker);
      const entry = { worker: worker.id, pid, exitCode: code, signal: signal ?? undefined };
      if (stopping) {
        if (code !== 0) failed = true;
        (code === 0 ? logger.info : logger.error).call(logger, entry, "worker exited");
        finishIfEmpty();
        return;
      }
      if (!announced && !hadListened) {
        logger.error(entry, "worker exited before it listened; stopping the others");
        stop("a worker failed to start", true);
        finishIfEmpty();
        return;
      }
      if (!hadListened) failedStarts++;
      if (listening.size === 0 && failedStarts >= MAX_FAILED_REPLACEMENTS) {
        logger.fatal({ ...entry, failedStarts }, "no worker serves and replacements keep failing to start; stopping");
        stop("workers keep failing to start", true);
        finishIfEmpty();
        return;
      }
      const now = Date.now();
      deaths.push(now);
      while (deaths[0]! < now - CRASH_WINDOW_MS) deaths.shift();
      const delayMs = replacementDelay(deaths.length);
      logger.error(
        { ...entry, ...(!hadListened && { beforeListening: true }), replacementInMs: delayMs },
        "worker died; starting a replacement",
      );
      if (delayMs === 0) return fork();
      const timer = setTimeout(() => {
        replacing.delete(timer);
        fork();
      }, delayMs);
      replacing.add(timer);
    });
  }

  // Caught before the migration: a signal that arrives meanwhile stops before any fork.
  process.once("SIGTERM", () => stop("SIGTERM"));
  process.once("SIGINT", () => stop("SIGINT"));
  await options.migrate();
  for (const [name, port] of Object.entries(options.ports))
    if (port !== undefined) env[name] = String(port === 0 ? await freePort(options.host) : port);
  if (stopping) {
    logger.info({ reason: stopping }, "stopped before starting workers");
    return 0;
  }
  logger.info({ workers }, "starting workers");
  // With round-robin (Node's default), the primary accepts each connection and hands it to a
  // worker over IPC with no timeout: a connection handed to a worker that is killed at that
  // moment is held by the primary, unanswered, until the client gives up. Workers that accept
  // from the shared socket themselves lose nothing they have not taken. An operator's explicit
  // NODE_CLUSTER_SCHED_POLICY (read by node:cluster itself) is left as it is.
  if (!process.env.NODE_CLUSTER_SCHED_POLICY) cluster.schedulingPolicy = cluster.SCHED_NONE;
  for (let i = 0; i < workers; i++) fork();
  return done;
}
