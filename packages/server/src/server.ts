import { readFileSync } from "node:fs";
import type { Server as HttpServer } from "node:http";
import { type AddressInfo, isIPv4, isIPv6 } from "node:net";
import {
  type CarbonSettings,
  createBackgroundPurge,
  createPaymentWorker,
  createDeliveryWorker,
  createEmailWorker,
  createEventService,
  createHandler,
  createSqlStorage,
  type EventService,
  redactLinkTokens,
} from "@event-service/core";
import { DEFAULT_RETRY_DELAYS_MS } from "@event-service/core/internal";
import { FastResponse, type ServerRequest, serve } from "srvx";
import { createApp } from "./app.ts";
import { collectAcrossWorkers, isClusterWorker } from "./cluster.ts";
import type { ServerConfig } from "./config.ts";
import { createLogger, type Logger, logRepeated, requestLogger } from "./log.ts";
import { createMetrics } from "./metrics.ts";
import { trackConnections } from "./connections.ts";
import { countRequestsInFlight } from "./requests-in-flight.ts";
import { answerParserErrors } from "./parser-errors.ts";
import { createRedirectServer } from "./redirect.ts";
import { redactSmtpUrl, smtpTransport } from "./email.ts";
import { stripeClient } from "./stripe.ts";
import { isPostgresUrl, openDatabase, redactDatabaseUrl } from "./database.ts";

/** A running server. */
export interface RunningServer {
  /** The address it listens on, e.g. `http://127.0.0.1:3000/`. */
  url: string;
  /** The plain-HTTP redirect listener's address, when `HTTP_REDIRECT_PORT` is set. */
  redirectUrl?: string;
  service: EventService;
  /**
   * Shuts down gracefully: new requests get `503` while the listeners stop accepting, requests
   * in flight finish, the delivery worker finishes its attempts in flight, then the store is
   * closed. At `SHUTDOWN_TIMEOUT_MS` the connections still open are closed, but never one whose
   * request has been read whole and not yet answered: that one ends after its answer.
   */
  close(): Promise<void>;
}

/** Whether `host` (HOST) names this machine's loopback interface only. */
function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  return bare === "localhost" || bare === "::1" || (isIPv4(bare) && bare.startsWith("127."));
}

/**
 * The origin of the links handed out when neither PUBLIC_URL nor a trusted proxy gives one: the
 * address the server listens on, with the unspecified addresses (`0.0.0.0`, `::`) read as this
 * machine's loopback, the one address sure to reach them.
 */
export function listenOrigin(host: string, port: number, https: boolean): string {
  const bare = host.replace(/^\[|\]$/g, "");
  const reachable = bare === "0.0.0.0" ? "127.0.0.1" : bare === "::" ? "::1" : bare;
  return `${https ? "https" : "http"}://${isIPv6(reachable) ? `[${reachable}]` : reachable}:${port}`;
}

function listen(server: HttpServer, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve(server.address() as AddressInfo));
  });
}

/**
 * Starts the bundled server: opens (and migrates) the store (SQLite, or PostgreSQL for a `postgres://` `DATABASE_URL`), mounts core on h3 and
 * listens on `HOST:PORT`, over HTTPS when `TLS_CERT` and `TLS_KEY` are set.
 */
export async function startServer(
  config: ServerConfig,
  logger: Logger = createLogger(config.LOG_LEVEL),
): Promise<RunningServer> {
  const tls =
    config.TLS_CERT && config.TLS_KEY
      ? { cert: readFileSync(config.TLS_CERT, "utf8"), key: readFileSync(config.TLS_KEY, "utf8") }
      : undefined;
  // Always given (the bundled set alone without a file): start brings the kept figures to the configured sets.
  const emissionFactors = config.EMISSION_FACTORS_FILE ?? [];
  if (isPostgresUrl(config.DATABASE_URL)) {
    // A migration, or the kept figures' recomputation, may take longer than a request's statement
    // timeout: they run first, on a connection without it.
    const migrating = createSqlStorage({
      db: await openDatabase({ ...config, DATABASE_POOL_SIZE: 1 }),
      emissionFactors,
    });
    try {
      await migrating.migrate();
    } finally {
      await migrating.close();
    }
  }
  const db = await openDatabase({
    ...config,
    statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
    onPoolError: logRepeated(logger, "warn", "database connection lost; the pool replaces it"),
    onCheckpointerError: (error) =>
      logger.warn({ err: error }, "the SQLite checkpointer thread failed; commits checkpoint again"),
  });
  const storage = createSqlStorage({ db, emissionFactors });
  // SQLite migrated here; PostgreSQL above (this finds nothing to do).
  await storage.migrate();
  // Only with a token: metrics without one would tell anyone the traffic and the backlog.
  const metrics = config.METRICS_TOKEN ? createMetrics({ storage }) : undefined;
  const worker = createDeliveryWorker({
    storage,
    retryDelaysMs: config.WEBHOOK_RETRY_DELAYS_MS ?? DEFAULT_RETRY_DELAYS_MS,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
    // Ids, type and outcome only: never the secret or the payload.
    onAttempt: (info) => {
      const { deliveryId, webhookId, type, attempt, final, webhookDisabled } = info;
      logger.info(
        {
          deliveryId,
          webhookId,
          type,
          attempt: attempt.number,
          statusCode: attempt.statusCode,
          succeeded: attempt.succeeded,
          durationMs: attempt.durationMs,
          error: attempt.error ?? undefined,
          final,
          webhookDisabled,
        },
        "webhook delivery attempt",
      );
      metrics?.observeAttempt(info);
    },
    // Polled twice a second: a store that is down would log an error per poll.
    onError: logRepeated(logger, "error", "webhook delivery worker error"),
  });
  // Expired idempotency records, and deliveries past WEBHOOK_RETENTION_DAYS, off the requests' path.
  const purge = createBackgroundPurge({
    storage,
    webhookRetentionDays: config.WEBHOOK_RETENTION_DAYS,
    onPurged: (removed) => logger.info(removed, "purged expired records"),
    onError: logRepeated(logger, "error", "background purge error"),
  });
  // Known once listening (PORT may be 0); read by the handler for each request's links and by the emails' links.
  let linkOrigin = "";
  // Only with SMTP_URL: without it nothing is queued, and the links are in the answers alone.
  const transport = config.SMTP_URL && smtpTransport(config.SMTP_URL);
  const mailer =
    transport &&
    createEmailWorker({
      storage,
      transport,
      from: config.EMAIL_FROM!,
      baseUrl: () => config.PUBLIC_URL?.replace(/\/+$/, "") || linkOrigin,
      ...(config.EMAIL_RETRY_DELAYS_MS && { retryDelaysMs: config.EMAIL_RETRY_DELAYS_MS }),
      // Ids, kind and outcome, and the recipient's domain at most: never the address, the link or the body.
      onAttempt: (info) => {
        logger.info(info, "email attempt");
        metrics?.observeEmail(info);
      },
      onError: logRepeated(logger, "error", "email worker error"),
    });
  const service = createEventService({
    storage,
    ...(config.PUBLIC_URL && { publicUrl: config.PUBLIC_URL }),
    ...(mailer && { emails: { onQueued: mailer.wake } }),
    webhooks: {
      allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      onQueued: worker.wake,
      secretOverlapMs: config.WEBHOOK_SECRET_OVERLAP_MS,
    },
    carbon: carbonSettingsOf(config),
    payments: {
      ...(config.STRIPE_SECRET_KEY && { stripe: stripeClient(config.STRIPE_SECRET_KEY, config.STRIPE_API_URL) }),
      webhookSecrets: config.STRIPE_WEBHOOK_SECRET ?? [],
      holdMinutes: config.PAYMENT_HOLD_MINUTES,
    },
  });
  // Holds that run out, PaymentIntents still to make, refunds to make at Stripe (a no-op without Stripe).
  const payments = createPaymentWorker(service, {
    intervalMs: config.PAYMENT_WORKER_INTERVAL_MS,
    onPass: (pass) =>
      logger.info(
        { intentsMade: pass.intentsMade, holdsExpired: pass.holdsExpired, refundsMade: pass.refundsMade },
        "payment worker pass",
      ),
    onError: logRepeated(logger, "error", "payment worker error"),
  });
  let draining = false;
  // A 503 (the store unreachable, or draining) at warn, worth an operator's look; the rest at info.
  const logRequest = requestLogger(logger);
  const handler = createHandler(service, {
    // srvx serves its own Response class without web streams: a large share of a small request's cost.
    Response: FastResponse,
    trustProxy: config.TRUST_PROXY,
    // Without PUBLIC_URL (which the service holds) and a trusted proxy's X-Forwarded-Host: never the client's Host.
    linkOrigin: () => linkOrigin,
    // srvx's request knows the connection's peer; core walks X-Forwarded-For from it.
    clientAddress: (request) => (request as { ip?: string }).ip,
    // Node's request stream, which srvx hands over: read as it is, the body costs no web stream.
    requestBody: (request) => (request as ServerRequest).runtime?.node?.req,
    authFailureLimitPerMinute: config.AUTH_FAILURE_LIMIT_PER_MINUTE,
    doorLinkLimitPerMinute: config.DOOR_LINK_LIMIT_PER_MINUTE,
    ...(config.CORS_ORIGINS && { cors: { origins: config.CORS_ORIGINS } }),
    isDraining: () => draining,
    onRequestEnd: (entry) => {
      logRequest(entry);
      metrics?.observeRequest(entry);
    },
    // In a worker of `serve --workers`, the scrape shows every worker's counts, not just this one's.
    ...(metrics && {
      metrics: {
        token: config.METRICS_TOKEN!,
        collect: isClusterWorker() ? collectAcrossWorkers(metrics.registry) : metrics.collect,
      },
    }),
    onError: (error, request) =>
      logger.error(
        { err: error, method: request.method, path: redactLinkTokens(new URL(request.url).pathname) },
        "unexpected error",
      ),
  });
  // Counted, so that the store closes only after every request has been answered.
  const requests = countRequestsInFlight(createApp(handler).fetch);
  // srvx, h3's own server layer, serves the app's fetch (what h3's serve() does for a routed app).
  const server = serve({
    fetch: requests.fetch,
    port: config.PORT,
    hostname: config.HOST,
    silent: true,
    gracefulShutdown: false,
    ...(tls && { tls }),
    // srvx listens exclusively by default; not exclusive, the workers of `serve --workers`
    // (node:cluster) share the primary's socket. Outside a cluster it changes nothing.
    node: { exclusive: false },
  });
  const nodeServer = server.node!.server!;
  // What Node's HTTP parser refuses gets the error body too, not a bare status line.
  const docsUrl = () => `${service.publicUrl ?? linkOrigin}/docs`;
  // The open connections, for the parser's answers and the shutdown.
  const connections = trackConnections(nodeServer, tls !== undefined);
  answerParserErrors(nodeServer, { docsUrl, https: tls !== undefined, busy: connections.busy });
  await server.ready();
  const address = server.node?.server?.address() as AddressInfo | null;
  const port = address?.port ?? config.PORT;
  const host = config.HOST.includes(":") ? `[${config.HOST}]` : config.HOST;
  const url = `${tls ? "https" : "http"}://${host}:${port}/`;
  linkOrigin = listenOrigin(config.HOST, port, tls !== undefined);

  worker.start();
  mailer?.start();
  purge.start();
  payments.start();

  let redirect: HttpServer | undefined;
  let redirectUrl: string | undefined;
  if (tls && config.HTTP_REDIRECT_PORT !== undefined) {
    redirect = createRedirectServer(port, config.HOST);
    answerParserErrors(redirect, { docsUrl, https: false });
    const redirectAddress = await listen(redirect, config.HTTP_REDIRECT_PORT, config.HOST);
    redirectUrl = `http://${host}:${redirectAddress.port}/`;
  }

  logger.info(
    {
      url,
      ...(redirectUrl && { redirectUrl }),
      database: redactDatabaseUrl(config.DATABASE_URL),
      ...(config.SMTP_URL && { smtp: redactSmtpUrl(config.SMTP_URL) }),
    },
    "listening",
  );
  if (!config.PUBLIC_URL && !isLoopback(config.HOST)) {
    logger.warn(
      { host: config.HOST, links: linkOrigin },
      `listening on a non-loopback address without PUBLIC_URL: the links handed out (qrCode, reports, documentation) use ${config.TRUST_PROXY !== false ? "the trusted proxy's X-Forwarded-Host, else " : ""}${linkOrigin}; set PUBLIC_URL to the service's public address`,
    );
  }
  if (!tls) {
    logger.warn(
      config.TRUST_PROXY !== false
        ? "serving plain HTTP behind a trusted proxy: the proxy must terminate TLS"
        : "serving plain HTTP: no TLS_CERT/TLS_KEY configured; use it for local development only",
    );
  }

  let closing: Promise<void> | undefined;
  return {
    url,
    ...(redirectUrl && { redirectUrl }),
    service,
    close() {
      closing ??= (async () => {
        draining = true;
        connections.drain();
        const force = setTimeout(() => {
          // A request read whole and not yet answered keeps its connection until its answer is
          // written: its change may be committing, and a cut connection would tell its client nothing.
          const { closed, answering } = connections.closeUnlessWorking();
          logger.warn(
            { timeoutMs: config.SHUTDOWN_TIMEOUT_MS, closed, answering },
            "connections still open at the shutdown timeout; closing them, but those whose request is being answered",
          );
        }, config.SHUTDOWN_TIMEOUT_MS);
        force.unref();
        await Promise.all([
          server.close(),
          redirect && new Promise<void>((resolve) => redirect.close(() => resolve())),
          // The worker finishes (and records) the attempts in flight before the store closes.
          worker.stop(),
          mailer?.stop(),
          purge.stop(),
          payments.stop(),
        ]);
        transport?.close();
        clearTimeout(force);
        // A request whose client left is still at work (a transaction, a lost COMMIT's lookup):
        // the store stays open for it.
        await requests.settled();
        // Requests have stopped: the rate-limit counts leased and not spent go back for other processes.
        await handler
          .close()
          .catch((error) => logger.warn({ err: error }, "could not give back the unspent rate-limit counts"));
        await storage.close();
      })();
      return closing;
    },
  };
}

/** The carbon settings the configuration sets; the service's defaults for the rest. */
function carbonSettingsOf(config: ServerConfig): Partial<CarbonSettings> {
  return {
    ...(config.CARBON_OFFSET_PRICE_USD_PER_TONNE !== undefined && {
      offsetPriceUsdPerTonne: config.CARBON_OFFSET_PRICE_USD_PER_TONNE,
    }),
    ...(config.LOCAL_SOURCING_RADIUS_KM !== undefined && { localSourcingRadiusKm: config.LOCAL_SOURCING_RADIUS_KM }),
    ...(config.LOCAL_SOURCING_TARGET_PERCENT !== undefined && {
      localSourcingTargetPercent: config.LOCAL_SOURCING_TARGET_PERCENT,
    }),
  };
}
