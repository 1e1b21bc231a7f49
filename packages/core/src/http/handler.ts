import { randomUUID } from "node:crypto";
import { addRoute, createRouter, findRoute } from "rou3";
import { ServiceError } from "../errors.ts";
import { holdsScope, scopesGranting } from "../resources/api-key.ts";
import type { EventService } from "../service.ts";
import { DEFAULT_PUBLIC_URL } from "../webhooks/change-notifications.ts";
import { type CorsOptions, createCors } from "./cors.ts";
import { withIdempotency } from "./idempotency.ts";
import { createAuthenticator } from "./authenticate.ts";
import { createAuthFailureLimit } from "./auth-failure-limit.ts";
import { compileTrustProxy, resolveClientAddress, type TrustProxy } from "./client-address.ts";
import type { MetricsEndpointOptions } from "./metrics-endpoint.ts";
import { createPublicRouter } from "./public-routes.ts";
import { createRequestCounter } from "./request-counter.ts";
import { type Answer, createResponder, type ResponseConstructor } from "./respond.ts";
import { assertNoBody, bearerToken, parseJsonBody, readBodyBytes, readQuery } from "./request.ts";
import { type Route, ROUTES, VERSION_PREFIXES } from "./routes.ts";

/** Options of {@link createHandler}. */
export interface HandlerOptions {
  /**
   * Called with every unexpected error (a 500) and its request, for the host's log. The
   * response never shows it.
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

/** Per-request state gathered on the way: headers for the response, who asked. */
interface RequestState {
  headers: Record<string, string>;
  accountId?: string;
  clientAddress?: string | undefined;
  /** The peer is a trusted proxy: its forwarded headers count. */
  proxied: boolean;
  route?: string;
}

/** An API route matched to a path, with its parameters; `undefined` when none matched. */
type ApiMatch = ReturnType<typeof findRoute<Route>>;

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

const VERSION_PREFIX = /^\/(?:v1|api)(?=\/)/;
const HSTS = "max-age=31536000; includeSubDomains";
const REQUEST_ID = /^[\x21-\x7e]{1,128}$/;
/** A host name or IP address with an optional port, as `X-Forwarded-Host` may carry. */
const FORWARDED_HOST = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;
/** The answer to a path (or method) the API does not serve. */
function noRoute(request: Request, url: URL): ServiceError {
  return new ServiceError("NOT_FOUND", { message: `No route for ${request.method} ${url.pathname}.` });
}

/** The method a request is routed by: `HEAD` is answered as `GET`, without the body. */
function routingMethod(request: Request): string {
  return request.method === "HEAD" ? "GET" : request.method;
}

/** `/events-api` of `events-api/` and the like; `""` for the root. */
function normaliseBasePath(basePath = ""): string {
  const trimmed = basePath.replace(/^\/+|\/+$/g, "");
  return trimmed ? `/${trimmed}` : "";
}

/** The first value of a forwarded header (the hop nearest the client), if any. */
function forwarded(request: Request, name: string): string | undefined {
  return request.headers.get(name)?.split(",")[0]?.trim() || undefined;
}

/** Whether the request reached the service over HTTPS (as a trusted proxy says, else as the connection was). */
function isHttps(request: Request, url: URL, proxied: boolean): boolean {
  return ((proxied ? forwarded(request, "x-forwarded-proto") : undefined) ?? url.protocol.slice(0, -1)) === "https";
}

/** The origin a trusted proxy forwarded (`X-Forwarded-Host`, with `X-Forwarded-Proto` or the connection's scheme), when it is a well-formed one. */
function forwardedOrigin(request: Request, url: URL): string | undefined {
  const host = forwarded(request, "x-forwarded-host");
  if (host === undefined) return undefined;
  const proto = forwarded(request, "x-forwarded-proto") ?? url.protocol.slice(0, -1);
  // Only a bare host[:port]: anything else (a path, credentials) would not make an origin.
  if ((proto !== "http" && proto !== "https") || !FORWARDED_HOST.test(host)) return undefined;
  return URL.parse(`${proto}://${host}`)?.origin;
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
  const router = createRouter<Route>();
  for (const prefix of VERSION_PREFIXES) {
    for (const route of ROUTES) addRoute(router, route.method, `${prefix}${route.path}`, route);
  }
  const { storage } = service;
  const trust = compileTrustProxy(options.trustProxy ?? false);
  const peerAddress = options.clientAddress ?? ((request: Request) => {
    const ip = (request as { ip?: unknown }).ip;
    return typeof ip === "string" && ip !== "" ? ip : undefined;
  });
  const serveDocs = options.docs ?? true;
  const basePath = normaliseBasePath(options.basePath);
  const { linkOrigin = DEFAULT_PUBLIC_URL } = options;
  /**
   * The base of the links handed out for `request`: the service's `publicUrl`, else the origin a
   * trusted proxy forwarded, else `linkOrigin`; never the request's own `Host` (see DECISIONS:
   * a client must not shape the links the service hands out, or stores in notifications).
   */
  function linkBase(request: Request, url: URL, proxied: boolean): string {
    if (service.publicUrl !== undefined) return service.publicUrl;
    const origin = (proxied ? forwardedOrigin(request, url) : undefined) ?? (typeof linkOrigin === "string" ? linkOrigin : linkOrigin(request));
    return `${origin.replace(/\/+$/, "")}${basePath}`;
  }
  const reply = createResponder(options.Response);
  const cors = options.cors ? createCors(options.cors) : undefined;
  const publicRouter = createPublicRouter({ service, reply, basePath, docs: serveDocs, ...(options.metrics && { metrics: options.metrics }) });
  const authenticate = createAuthenticator(service.keys, createAuthFailureLimit(options.authFailureLimitPerMinute === undefined ? {} : { perMinute: options.authFailureLimitPerMinute }));
  const counter = createRequestCounter(storage);


  /** Runs a route, answering its errors in the error body (so an idempotent replay can store them). */
  async function run(endpoint: Route, ctx: Parameters<Route["handle"]>[0], docs: string): Promise<Answer> {
    try {
      return await endpoint.handle(ctx);
    } catch (thrown) {
      if (!ServiceError.is(thrown) || thrown.status >= 500) throw thrown;
      return { status: thrown.status, body: thrown.toJSON(docs), ...(thrown.headers && { headers: thrown.headers }) };
    }
  }

  async function api(request: Request, url: URL, path: string, origin: string, docs: string, state: RequestState, match: ApiMatch): Promise<Answer> {
    state.route = match ? `${VERSION_PREFIX.exec(path)![0]}${match.data.path}` : undefined;
    const token = bearerToken(request);
    // Without a key, an unknown route is simply 404; with one, it is counted and answered like
    // any authenticated request (rate-limit headers included), as GitHub does.
    if (!match && !token) throw noRoute(request, url);
    const nowMs = service.clock().getTime();
    const auth = await authenticate(token, nowMs, state.clientAddress);
    state.accountId = auth.accountId;
    Object.assign(state.headers, await counter.count(auth.accountId, auth.limits, nowMs));
    if (!match) throw noRoute(request, url);
    const endpoint = match.data;
    if (!holdsScope(auth.scopes, endpoint.scope)) {
      throw new ServiceError("FORBIDDEN", { message: `This API key lacks the ${scopesGranting(endpoint.scope).join(" or the ")} scope.`, details: { requiredScope: endpoint.scope } });
    }
    const query = readQuery(url);
    const unexpected = endpoint.query ? undefined : Object.keys(query)[0];
    if (unexpected !== undefined) {
      throw new ServiceError("INVALID_REQUEST", { message: `${unexpected || "(empty name)"}: unknown query parameter`, ...(unexpected && { field: unexpected }) });
    }
    let bytes: Promise<Uint8Array> | undefined;
    const readBytes = () => (bytes ??= readBodyBytes(request));
    // An operation without a body schema takes no body, and refuses one rather than ignore it.
    // A GET's body never reaches here (the Request interface gives none), so it is not read.
    if (!endpoint.body && endpoint.method !== "GET") assertNoBody(await readBytes());
    const ctx = {
      request,
      url,
      params: match.params ?? {},
      query,
      // Typed by the route as its operation's input; the operation validates it.
      body: async <T>() => parseJsonBody(await readBytes(), request.headers.get("content-type")) as T,
      account: service.forAccount(auth.accountId, { baseUrl: origin, scopes: auth.scopes, tier: auth.tier }),
    };

    const idempotencyHeader = request.method === "POST" ? request.headers.get("idempotency-key") : null;
    if (idempotencyHeader === null) return run(endpoint, ctx, docs);

    return withIdempotency(
      storage,
      { accountId: auth.accountId, key: idempotencyHeader, method: request.method, path: path.replace(VERSION_PREFIX, ""), body: readBytes, nowMs, docs },
      () => run(endpoint, ctx, docs),
    );
  }

  async function route(request: Request, url: URL, origin: string, docs: string, state: RequestState): Promise<Response> {
    if (state.proxied && request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() === "http") {
      // Behind a TLS-terminating proxy, a plain-HTTP request is sent to HTTPS, method and body kept.
      const host = request.headers.get("x-forwarded-host")?.split(",")[0]?.trim() || url.host;
      return reply.raw(null, 308, { ...state.headers, location: `https://${host}${url.pathname}${url.search}` });
    }
    if (options.isDraining?.()) {
      throw new ServiceError("SERVICE_UNAVAILABLE", { message: "The server is shutting down; retry shortly.", headers: { "retry-after": "5", connection: "close" } });
    }
    const mounted = url.pathname.slice(basePath.length);
    if (!url.pathname.startsWith(basePath) || (mounted !== "" && !mounted.startsWith("/"))) {
      throw noRoute(request, url);
    }
    const path = mounted.length > 1 ? mounted.replace(/\/+$/, "") : mounted || "/";
    const method = routingMethod(request);
    // The API's routes first: they take nearly every request, and no path matches both tables.
    const match = findRoute(router, method, path);
    const open = match ? undefined : findRoute(publicRouter, method, path);
    if (open) {
      const params = open.params ?? {};
      state.route = open.data.label(params);
      const response = await open.data.serve(request, params, state.headers);
      if (response) return response;
    }
    const answer = await api(request, url, path, origin, docs, state, match);
    // Merged by Object.assign, not spreads, on this path: see createResponder.
    const headers = answer.headers ? Object.assign({}, state.headers, answer.headers) : state.headers;
    // A streamed answer (an export) goes out as it is read: the host writes it with back-pressure.
    if (answer.body instanceof ReadableStream) return reply.raw(answer.body, answer.status, headers);
    return reply.json(answer.body, answer.status, headers);
  }

  async function respond(request: Request, url: URL, state: RequestState): Promise<Response> {
    const base = linkBase(request, url, state.proxied);
    const docs = options.docsUrl ?? `${base}/docs`;
    if (isHttps(request, url, state.proxied)) state.headers["strict-transport-security"] = HSTS;
    try {
      return await route(request, url, base, docs, state);
    } catch (thrown) {
      const error = ServiceError.from(thrown);
      if (error.code === "INTERNAL_ERROR") options.onError?.(thrown, request);
      return reply.json(error.toJSON(docs), error.status, error.headers ? Object.assign({}, state.headers, error.headers) : state.headers);
    }
  }

  async function handler(request: Request): Promise<Response> {
    const started = performance.now();
    const given = request.headers.get("x-request-id");
    const requestId = given !== null && REQUEST_ID.test(given) ? given : randomUUID();
    const peer = peerAddress(request);
    const state: RequestState = {
      headers: Object.assign({ "x-request-id": requestId }, cors?.headers(request)),
      clientAddress: resolveClientAddress(peer, request.headers.get("x-forwarded-for"), trust),
      proxied: trust(peer ?? "", 0),
    };
    const preflight = cors?.preflight(request);
    let url: URL;
    let response: Response;
    try {
      url = new URL(request.url);
      // A preflight is answered before routing: it carries no key and is never counted.
      response = preflight ? reply.raw(null, 204, Object.assign({}, state.headers, preflight)) : await respond(request, url, state);
    } catch {
      url = new URL("http://invalid/");
      response = reply.json(new ServiceError("INVALID_REQUEST", { message: "Malformed request URL." }).toJSON(), 400, state.headers);
    }
    // HEAD: the GET answer's status and headers, no body.
    if (request.method === "HEAD") {
      await response.body?.cancel();
      response = reply.raw(null, response.status, Object.fromEntries(response.headers));
    }
    if (options.onRequestEnd) {
      const entry: RequestLogEntry = {
        requestId,
        method: request.method,
        path: url.pathname,
        status: response.status,
        durationMs: Math.round((performance.now() - started) * 100) / 100,
      };
      if (state.route !== undefined) entry.route = state.route;
      if (state.accountId !== undefined) entry.accountId = state.accountId;
      if (state.clientAddress !== undefined) entry.clientAddress = state.clientAddress;
      options.onRequestEnd(entry);
    }
    return response;
  }

  return Object.assign(handler, { close: () => counter.close() });
}
