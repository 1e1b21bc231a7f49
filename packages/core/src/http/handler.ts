import { ServiceError } from "../errors.ts";
import { prefersHtml } from "../operations/analytics.ts";
import { onFirstUse } from "../_internal/on-first-use.ts";
import { ownEntry } from "../_internal/own-entry.ts";
import type { LinkPage, PageOutcome } from "../pages/link-page.ts";
import { pageCsp, pageHeaders } from "../pages/page-response.ts";
import type { EventService } from "../service.ts";
import { linkNotFound } from "../resources/vendor.ts";
import { type LinkKind, redactLinkTokens } from "../resources/link-token.ts";
import { ticketNotFound } from "../resources/ticket-link.ts";
import { doorLinkNotFound } from "../resources/check-in-link.ts";
import { DEFAULT_PUBLIC_URL } from "../webhooks/change-notifications.ts";
import { createAuthFailureLimit, createMinuteLimit } from "./auth-failure-limit.ts";
import { assertScope, createAuthenticator } from "./authenticate.ts";
import { compileTrustProxy, type TrustProxy } from "./client-address.ts";
import { type CorsOptions, createCors } from "./cors.ts";
import { httpsRedirect } from "./https-redirect.ts";
import { withIdempotency } from "./idempotency.ts";
import { DEFAULT_DOOR_LINK_LIMIT_PER_MINUTE, DEFAULT_LINK_LIMIT_PER_MINUTE } from "./link-limits.ts";
import type { MetricsEndpointOptions } from "./metrics-endpoint.ts";
import { createPublicRoutes } from "./public-routes.ts";
import { createRequestContexts, type RequestContext } from "./request-context.ts";
import { createRequestCounter } from "./request-counter.ts";
import { bearerToken, MAX_BODY_BYTES, readBodyBytes } from "./request.ts";
import { createResponder, type ResponseConstructor } from "./respond.ts";
import { readRouteInput, runRoute } from "./route-input.ts";
import {
  createRouteTable,
  isApiMatch,
  type LinkEntry,
  normaliseBasePath,
  noRoute,
  type PageFormEntry,
} from "./route-table.ts";
import type { RouteResult } from "./routes.ts";
import { accountContextOf, doorContextOf, linkContextOf, ticketContextOf } from "../service.ts";

/** The page a browser gets when a link fails, loaded by the first such failure (with Preact, which draws it). */
const loadErrorPage = onFirstUse(() => import("../pages/error-page.tsx"));

/** Options of {@link createHandler}. */
export interface HandlerOptions {
  /**
   * Called with every unexpected error (a 500) and its request, for the host's log. The
   * response never shows it. A link's path (a vendor's, a ticket's) holds its token, a credential:
   * log the path through `redactLinkTokens` (exported), as `RequestLogEntry.path` is.
   */
  onError?: (error: unknown, request: Request) => void;
  /**
   * Where the `documentation` links of error bodies point (`<docsUrl>#CODE`). Default: the base
   * of the links handed out (see {@link HandlerOptions.linkOrigin}) plus `/docs`.
   */
  docsUrl?: string;
  /**
   * The origin of the links handed out (`qrCode`, report URLs, `documentation`) when the service
   * has no `publicUrl` and no trusted proxy forwarded `X-Forwarded-Host`: a fixed origin (the
   * bundled server gives the address it listens on), or a function of the request. Default
   * `http://localhost:3000`. A request's own URL (its `Host` header, or an absolute-form target)
   * is the client's to choose and never used on its own; a host whose front end has already
   * checked `Host` may opt in with `linkOrigin: (request) => new URL(request.url).origin`.
   */
  linkOrigin?: string | ((request: Request) => string);
  /**
   * The proxies trusted to forward requests (default none): `true` for one hop, or their addresses
   * and CIDR ranges. A request whose peer is trusted has its `X-Forwarded-Proto` and
   * `X-Forwarded-Host` honoured (a plain-HTTP one gets `308` to HTTPS, links use the forwarded
   * origin unless the service has a `publicUrl`), and its client address is the nearest
   * `X-Forwarded-For` hop that is not trusted.
   */
  trustProxy?: TrustProxy;
  /**
   * The address of the connection's peer (the client, or the nearest proxy). Default: the
   * request's `ip` property, which srvx (and so h3) sets. Without one, the per-address limit on
   * requests without a valid key does not apply.
   */
  clientAddress?: (request: Request) => string | undefined;
  /** Requests without a valid API key allowed per client address and minute (default 60), counted in this process. */
  authFailureLimitPerMinute?: number;
  /**
   * Requests through one link allowed per minute (default 120), counted in this process: each
   * vendor link (by its booking) and each ticket link (by its registration) has its own budget.
   * A door's check-in link has {@link HandlerOptions.doorLinkLimitPerMinute} instead.
   */
  linkLimitPerMinute?: number;
  /**
   * Requests through one door's check-in link allowed per minute (default 1,200: a gate's
   * phones may share a link, and a door back online sends its queue at once), counted in this
   * process, each link its own budget.
   */
  doorLinkLimitPerMinute?: number;
  /** @deprecated The former name of {@link HandlerOptions.linkLimitPerMinute}, still read when that is not given. */
  vendorLinkLimitPerMinute?: number;
  /** While this answers true (the host is shutting down), every request gets `503 SERVICE_UNAVAILABLE`. */
  isDraining?: () => boolean;
  /** Serve the API reference page at `/docs` (default true); `/openapi.json` is always served. */
  docs?: boolean;
  /**
   * The path the handler is mounted under in a host app (`/events-api`): requests are served
   * with it stripped, links handed out (QR codes, documentation) include it, and any other path
   * answers `404`. Default: the root.
   */
  basePath?: string;
  /** Called once per request after its response is ready: the place for an access log. Never sees keys or bodies. */
  onRequestEnd?: (entry: RequestLogEntry) => void;
  /**
   * The class responses are built with (default: the global `Response`). A host may pass a
   * faster implementation of the same interface, such as srvx's `FastResponse`, which Node
   * serves without web streams; the bundled server does.
   */
  Response?: ResponseConstructor;
  /**
   * The request's body as the host reads it, in chunks, without building a web stream (the
   * bundled server gives Node's request stream, which srvx hands over as `runtime.node.req`);
   * `undefined` for a request whose body the host does not give this way, which is then read
   * from `request.body`. Default: always `request.body`.
   */
  requestBody?: (request: Request) => AsyncIterable<Uint8Array> | undefined;
  /**
   * Serve `GET /metrics` behind a bearer token, with the exposition the host renders (the
   * bundled server: Prometheus, through prom-client). Off by default: `/metrics` is then `404`.
   */
  metrics?: MetricsEndpointOptions;
  /**
   * Let browser apps on these origins call the API (off by default): preflights are answered and
   * every response to an allowed origin, errors included, carries the CORS headers.
   */
  cors?: CorsOptions;
}

/** What the handler tells {@link HandlerOptions.onRequestEnd} about a request. */
export interface RequestLogEntry {
  requestId: string;
  method: string;
  /** The request's path, a link's token cut to its prefix (`/v1/vendor-requests/vrq_…`, `/v1/tickets/tkt_…`): it is a credential. */
  path: string;
  status: number;
  durationMs: number;
  /**
   * The template of the route that took the request, with its version prefix
   * (`/v1/events/:id`, `/health`); absent when no route matched. Bounded, unlike `path`: the
   * label for metrics.
   */
  route?: string;
  /** The authenticated account, once known. */
  accountId?: string;
  /** The client's address, when known (see {@link HandlerOptions.clientAddress}). */
  clientAddress?: string;
}

/** A web-standard request handler: any host that speaks `Request`/`Response` can mount it. */
export type FetchHandler = (request: Request) => Promise<Response>;

/** What {@link createHandler} returns: a {@link FetchHandler} with `close()` for the host's shutdown. */
export interface ServiceHandler extends FetchHandler {
  /**
   * Gives the rate-limit counts this process leased and did not spend back to the store, so
   * other processes may use them. Call it once requests have stopped, before closing the
   * storage; a handler that is never closed holds them until their minute ends.
   */
  close(): Promise<void>;
}

/** Each kind of link as its limit's refusal names it: in the message and in `details.scope`. */
const LINK_LIMIT_NAMES: Readonly<Record<LinkKind, { words: string; scope: string }>> = {
  vendor: { words: "vendor link", scope: "vendorLink" },
  ticket: { words: "ticket link", scope: "ticketLink" },
  door: { words: "check-in link", scope: "checkInLink" },
};

/** The answer to a link's token that opens nothing, by the kind of link. */
const LINK_NOT_FOUND: Readonly<Record<LinkKind, () => ServiceError>> = {
  vendor: linkNotFound,
  ticket: ticketNotFound,
  door: doorLinkNotFound,
};

/** The answer to every request while the host shuts down: the client retries, on a new connection. */
function shuttingDown(): ServiceError {
  const headers = { "retry-after": "5", connection: "close" };
  return new ServiceError("SERVICE_UNAVAILABLE", { message: "The server is shutting down; retry shortly.", headers });
}

/** The peer's address as srvx (and so h3) gives it: the request's `ip` property. */
function requestIp(request: Request): string | undefined {
  const ip = (request as { ip?: unknown }).ip;
  return typeof ip === "string" && ip !== "" ? ip : undefined;
}

/**
 * The service's HTTP interface as a `(Request) => Promise<Response>` handler: every route
 * under `/v1` and `/api`, `GET /health`, the public QR images, authentication and scopes,
 * rate limits, `Idempotency-Key` on POST, one error body for every failure and a JSON `404`
 * for unknown routes.
 *
 * @example
 * const handler = createHandler(service);
 * const response = await handler(new Request("http://localhost/health"));
 */
export function createHandler(service: EventService, options: HandlerOptions = {}): ServiceHandler {
  const { storage } = service;
  const basePath = normaliseBasePath(options.basePath);
  const reply = createResponder(options.Response);
  const cors = options.cors ? createCors(options.cors) : undefined;
  const contextOf = createRequestContexts({
    trust: compileTrustProxy(options.trustProxy ?? false),
    peerAddress: options.clientAddress ?? requestIp,
    cors,
    publicUrl: service.publicUrl,
    linkOrigin: options.linkOrigin ?? DEFAULT_PUBLIC_URL,
    basePath,
    docsUrl: options.docsUrl,
    ...(options.requestBody && { bodySource: options.requestBody }),
  });
  const publicRoutes = createPublicRoutes({
    service,
    reply,
    basePath,
    docs: options.docs ?? true,
    ...(options.metrics && { metrics: options.metrics }),
  });
  const matchRoute = createRouteTable(basePath, publicRoutes);
  const failureLimit = createAuthFailureLimit(
    options.authFailureLimitPerMinute === undefined ? {} : { perMinute: options.authFailureLimitPerMinute },
  );
  const authenticate = createAuthenticator(service.keys, failureLimit);
  const linkPerMinute = options.linkLimitPerMinute ?? options.vendorLinkLimitPerMinute ?? DEFAULT_LINK_LIMIT_PER_MINUTE;
  const linkLimitOf = (kind: LinkKind, perMinute: number) =>
    createMinuteLimit({
      perMinute,
      maxKeys: 10_000,
      refusal: (resetAt) => ({
        message: `Too many requests through this ${LINK_LIMIT_NAMES[kind].words} (limit ${perMinute} per minute); retry after ${resetAt}.`,
        scope: LINK_LIMIT_NAMES[kind].scope,
      }),
    });
  const linkLimits = {
    vendor: linkLimitOf("vendor", linkPerMinute),
    ticket: linkLimitOf("ticket", linkPerMinute),
    door: linkLimitOf("door", options.doorLinkLimitPerMinute ?? DEFAULT_DOOR_LINK_LIMIT_PER_MINUTE),
  };

  /**
   * What a link's token opens, by its kind: whose it is (the booking's, the registration's or the
   * check-in link's own id: its budget and its Idempotency-Keys' namespace) and the context its operations run with;
   * `null` when it opens nothing.
   */
  async function openLink(
    kind: LinkKind,
    token: string,
    baseUrl: string,
  ): Promise<{ ownerId: string; context: unknown } | null> {
    if (kind === "vendor") {
      const link = await service.vendorLink(token, { baseUrl });
      return link && { ownerId: link.booking.id, context: linkContextOf(link) };
    }
    if (kind === "ticket") {
      const ticket = await service.ticketLink(token, { baseUrl });
      return ticket && { ownerId: ticket.attendee.id, context: ticketContextOf(ticket) };
    }
    const door = await service.doorLink(token, { baseUrl });
    return door && { ownerId: door.link.id, context: doorContextOf(door) };
  }
  const counter = createRequestCounter(storage);

  /**
   * A request's way through, step by step. The order matters: a CORS preflight carries no key
   * and is never counted, so it is answered first; the redirect to HTTPS and the refusal while
   * draining hold whatever the path; the routes served without a key answer before anyone is
   * authenticated. The per-address limit is charged inside authentication, because only the
   * lookup tells whether the key is live (a live key costs its address nothing). The account's
   * rate limit comes next and before the scope check, so a refused request still counts; the
   * idempotency record wraps only the route's work, so a replay is authenticated, counted and
   * authorised like the first request.
   */
  async function serve(ctx: RequestContext): Promise<Response> {
    // A host whose request URL does not parse (a malformed Host) gets 400 before anything else.
    if (ctx.malformedUrl) throw new ServiceError("INVALID_REQUEST", { message: "Malformed request URL." });
    const preflight = cors?.preflight(ctx.request);
    if (preflight) return reply.raw(ctx, null, 204, Object.assign({}, ctx.headers, preflight));
    const location = httpsRedirect(ctx);
    if (location !== undefined) return reply.raw(ctx, null, 308, { ...ctx.headers, location });
    if (options.isDraining?.()) throw shuttingDown();

    const match = matchRoute(ctx);
    if (match?.entry.kind === "public") {
      ctx.route = match.entry.route.label(match.params);
      const response = await match.entry.route.serve(ctx, match.params);
      if (response) return response;
    }
    if (match?.entry.kind === "link") return serveLink(ctx, match.entry, match.params);
    if (match?.entry.kind === "page-form") return servePageForm(ctx, match.entry, match.params);
    if (match?.entry.kind === "stripe") return serveStripe(ctx, match.entry.label);
    const api = isApiMatch(match) ? match : undefined;
    ctx.route = api?.entry.label;

    const token = bearerToken(ctx.request);
    // Without a key, an unknown route is simply 404; with one, it is counted and answered like
    // any authenticated request (rate-limit headers included), as GitHub does.
    if (!api && token === null) throw noRoute(ctx);
    const nowMs = service.clock().getTime();
    const auth = await authenticate(token, nowMs, ctx.clientAddress);
    ctx.accountId = auth.accountId;
    Object.assign(ctx.headers, await counter.count(auth.accountId, auth.limits, nowMs));
    if (!api) throw noRoute(ctx);
    const { route, prefix } = api.entry;
    assertScope(auth.scopes, route.scope, route.orScope);

    const account = service.forAccount(auth.accountId, { baseUrl: ctx.linkBase, scopes: auth.scopes, tier: auth.tier });
    const context = accountContextOf(account);
    const input = await readRouteInput(ctx, route, api.params);
    const run = () => runRoute(route, context, input, ctx.request);
    const idempotencyKey = ctx.request.method === "POST" ? ctx.request.headers.get("idempotency-key") : null;
    if (idempotencyKey === null) return sendResult(ctx, await run());
    // The path without its version prefix: `/v1/events` and `/api/events` are one request.
    const path = api.path.slice(prefix.length);
    const keyed = {
      accountId: auth.accountId,
      key: idempotencyKey,
      method: "POST",
      path,
      body: input.bodyBytes,
      nowMs,
      docs: ctx.docsUrl,
    };
    return sendResult(ctx, await withIdempotency(storage, keyed, run));
  }

  /**
   * A link's token (a vendor's, a ticket's), looked up like an API key: a token that opens nothing
   * spends one of its address's requests without a valid key (`429` past the limit, before any
   * lookup) and a live one gets its request back. A live link spends its own budget.
   */
  async function enterLink(ctx: RequestContext, kind: LinkKind, label: string, params: Record<string, string>) {
    ctx.route = label;
    const nowMs = service.clock().getTime();
    const address = ctx.clientAddress;
    if (address !== undefined) failureLimit.take(address, nowMs);
    const link = await openLink(kind, params.token ?? "", ctx.linkBase);
    if (!link) throw LINK_NOT_FOUND[kind]();
    if (address !== undefined) failureLimit.refund(address, nowMs);
    // A vendor or an attendee is not the account's caller, so its link does not spend the account's requests: it has its own budget.
    linkLimits[kind].take(link.ownerId, nowMs);
    return { link, nowMs };
  }

  /** A request to a link's JSON route, or its page when a browser asks (`Accept` preferring `text/html`). */
  async function serveLink(ctx: RequestContext, entry: LinkEntry, params: Record<string, string>): Promise<Response> {
    if (entry.loadPage && prefersHtml(ctx.request.headers.get("accept"))) ctx.page = true;
    const { link, nowMs } = await enterLink(ctx, entry.link, entry.label, params);
    if (ctx.page && entry.loadPage) return sendPage(ctx, await entry.loadPage(), link.context, 200);
    const input = await readRouteInput(ctx, entry.route, params);
    const run = () => runRoute(entry.route, link.context, input, ctx.request);
    const idempotencyKey = ctx.request.method === "POST" ? ctx.request.headers.get("idempotency-key") : null;
    if (idempotencyKey === null) return sendResult(ctx, await run());
    // Kept under the booking's or registration's id, a namespace of its own (never the token):
    // a link's keys meet neither the account's nor another link's.
    const keyed = {
      accountId: link.ownerId,
      key: idempotencyKey,
      method: "POST",
      path: entry.route.path.replace("/:token", ""),
      body: input.bodyBytes,
      nowMs,
      docs: ctx.docsUrl,
    };
    return sendResult(ctx, await withIdempotency(storage, keyed, run));
  }

  /**
   * A form posted by a link's page to its own URL: its `action` runs through the link's
   * operations; a success redirects back to the page (`303`), or where the form's outcome names
   * (the payment page "Pay" made), a refusal draws the page again
   * with the reason and the request's status, keeping what was typed.
   */
  async function servePageForm(
    ctx: RequestContext,
    entry: PageFormEntry,
    params: Record<string, string>,
  ): Promise<Response> {
    ctx.page = true;
    const { link } = await enterLink(ctx, entry.link, entry.label, params);
    const type = ctx.request.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
    if (type !== "application/x-www-form-urlencoded")
      throw new ServiceError("UNSUPPORTED_MEDIA_TYPE", {
        message: "A page's form is sent as application/x-www-form-urlencoded.",
      });
    const form = new URLSearchParams(
      new TextDecoder().decode(await readBodyBytes(ctx.request, MAX_BODY_BYTES, ctx.bodySource)),
    );
    const page = await entry.loadPage();
    const action = ownEntry(page.actions, form.get("action"));
    const context = link.context;
    if (!action) {
      const error = new ServiceError("INVALID_REQUEST", { message: "The form asked for nothing this page does." });
      return sendPage(ctx, page, context, error.status, { error, form });
    }
    let done: PageOutcome;
    try {
      done = await action(context as never, form);
    } catch (thrown) {
      if (!ServiceError.is(thrown) || thrown.status >= 500 || thrown.code === "NOT_FOUND") throw thrown;
      return sendPage(ctx, page, context, thrown.status, { error: thrown, form });
    }
    if (typeof done === "object" && "show" in done)
      return sendPage(ctx, page, context, 200, { shown: done.show, fresh: true });
    const location = typeof done === "string" ? `${ctx.url.pathname}?done=${done}` : done.redirect;
    return reply.raw(ctx, null, 303, { ...ctx.headers, location });
  }

  /** A link's page, drawn for its link, with what the last form did or why it was refused. */
  async function sendPage(
    ctx: RequestContext,
    page: LinkPage<never>,
    context: unknown,
    status: number,
    state: { error?: ServiceError; form?: URLSearchParams; shown?: unknown; fresh?: boolean } = {},
  ): Promise<Response> {
    // A page drawn as a form's answer takes nothing from the URL's query: the form said what to show.
    const query = state.fresh ? new URLSearchParams() : ctx.url.searchParams;
    const done = status === 200 ? query.get("done") : null;
    const html = await page.render(context as never, {
      done,
      error: state.error ?? null,
      form: state.form ?? null,
      shown: state.shown ?? null,
      query,
    });
    const csp = pageCsp({ script: page.script !== undefined, formTargets: page.formTargets });
    return reply.raw(ctx, html, status, Object.assign({}, ctx.headers, pageHeaders(csp)));
  }

  /**
   * A notification from Stripe: its signature is its credential. One that does not verify
   * spends one of its address's requests without a valid key (as a bad key does); a verified one
   * gets it back, and is applied once however often it arrives (`StripePayments.receive`).
   * Without Stripe configured, the endpoint does not exist (`404`).
   */
  async function serveStripe(ctx: RequestContext, label: string): Promise<Response> {
    ctx.route = label;
    if (!service.stripe) throw noRoute(ctx);
    const nowMs = service.clock().getTime();
    const address = ctx.clientAddress;
    if (address !== undefined) failureLimit.take(address, nowMs);
    const raw = new TextDecoder().decode(await readBodyBytes(ctx.request, MAX_BODY_BYTES, ctx.bodySource));
    try {
      await service.stripe.receive(raw, ctx.request.headers.get("stripe-signature"));
    } catch (error) {
      // Verified and refused all the same (malformed): it was Stripe's, so it costs nothing either.
      if (address !== undefined && !(ServiceError.is(error) && error.code === "INVALID_SIGNATURE"))
        failureLimit.refund(address, nowMs);
      throw error;
    }
    if (address !== undefined) failureLimit.refund(address, nowMs);
    return reply.json(ctx, { received: true }, 200, ctx.headers);
  }

  /** A route's result as the response, with the headers gathered on the way (its own win). */
  function sendResult(ctx: RequestContext, result: RouteResult): Response {
    // Merged by Object.assign, not spreads, on this path: see createResponder.
    const headers = result.headers ? Object.assign({}, ctx.headers, result.headers) : ctx.headers;
    // A streamed result (an export) goes out as it is read: the host writes it with back-pressure.
    if (result.body instanceof ReadableStream) return reply.raw(ctx, result.body, result.status, headers);
    return reply.json(ctx, result.body, result.status, headers);
  }

  /**
   * The one error path: whatever a step threw becomes the error body, with the headers gathered
   * so far (request id, CORS, rate limits) and the error's own. An unexpected error is a `500
   * INTERNAL_ERROR` whose cause goes to `onError`, never to the body. A link's page gets the
   * error page instead, once its renderer has loaded.
   */
  function sendError(ctx: RequestContext, thrown: unknown): Response | Promise<Response> {
    const error = ServiceError.from(thrown);
    if (error.code === "INTERNAL_ERROR") options.onError?.(thrown, ctx.request);
    const headers = error.headers ? Object.assign({}, ctx.headers, error.headers) : ctx.headers;
    if (ctx.page) return sendErrorPage(ctx, error, headers);
    return reply.json(ctx, error.toJSON(ctx.docsUrl), error.status, headers);
  }

  /** The error page of a link's page; the error body when the page's renderer cannot load (the failure to the log). */
  async function sendErrorPage(
    ctx: RequestContext,
    error: ServiceError,
    headers: Record<string, string>,
  ): Promise<Response> {
    let renderErrorPage: (error: ServiceError) => string;
    try {
      ({ renderErrorPage } = await loadErrorPage());
    } catch (thrown) {
      options.onError?.(thrown, ctx.request);
      return reply.json(ctx, error.toJSON(ctx.docsUrl), error.status, headers);
    }
    return reply.raw(ctx, renderErrorPage(error), error.status, Object.assign({}, headers, pageHeaders()));
  }

  /** Tells the host's `onRequestEnd` how the request went; never keys or bodies. */
  function logRequest(ctx: RequestContext, response: Response, onRequestEnd: (entry: RequestLogEntry) => void): void {
    const entry: RequestLogEntry = {
      requestId: ctx.requestId,
      method: ctx.request.method,
      path: redactLinkTokens(ctx.url.pathname),
      status: response.status,
      durationMs: Math.round((performance.now() - ctx.startedAt) * 100) / 100,
    };
    if (ctx.route !== undefined) entry.route = ctx.route;
    if (ctx.accountId !== undefined) entry.accountId = ctx.accountId;
    if (ctx.clientAddress !== undefined) entry.clientAddress = ctx.clientAddress;
    onRequestEnd(entry);
  }

  async function handler(request: Request): Promise<Response> {
    const ctx = contextOf(request);
    let response: Response;
    try {
      response = await serve(ctx);
    } catch (thrown) {
      response = await sendError(ctx, thrown);
    }
    if (options.onRequestEnd) logRequest(ctx, response, options.onRequestEnd);
    return response;
  }

  return Object.assign(handler, { close: () => counter.close() });
}
