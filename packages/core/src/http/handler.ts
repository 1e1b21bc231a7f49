import { addRoute, createRouter, findRoute } from "rou3";
import { ServiceError } from "../errors.ts";
import type { EventService } from "../service.ts";
import { errorResponse, json, BASE_HEADERS } from "./respond.ts";
import { bearerToken, readJsonBody, readQuery } from "./request.ts";
import { type Route, ROUTES, VERSION_PREFIXES } from "./routes.ts";

/** Options of {@link createHandler}. */
export interface HandlerOptions {
  /**
   * Called with every unexpected error (a 500) and its request, for the host's log. The
   * response never shows it.
   */
  onError?: (error: unknown, request: Request) => void;
  /**
   * Where the `documentation` links of error bodies point (`<docsUrl>#CODE`). Default: the
   * service's public URL, or else the request's origin, plus `/docs`.
   */
  docsUrl?: string;
  /** Honour `X-Forwarded-Proto` and `X-Forwarded-Host` when building the request's origin (behind a proxy). */
  trustProxy?: boolean;
}

/** A web-standard request handler: any host that speaks `Request`/`Response` can mount it. */
export type FetchHandler = (request: Request) => Promise<Response>;

const QR_PATH = /^\/(?:v1|api)\/qr\/([A-Za-z0-9_]+)\.(png|svg)$/;

/** The origin the caller used to reach us. */
function requestOrigin(request: Request, url: URL, trustProxy: boolean): string {
  if (!trustProxy) return url.origin;
  const proto = request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim();
  const host = request.headers.get("x-forwarded-host")?.split(",")[0]?.trim();
  return `${proto || url.protocol.slice(0, -1)}://${host || url.host}`;
}

/**
 * The service's HTTP interface as a `(Request) => Promise<Response>` handler: every route
 * under `/v1` and `/api`, `GET /health`, the public QR images, one error body for every
 * failure and a JSON `404` for unknown routes.
 *
 * @example
 * import { createServer } from "node:http";
 * const handler = createHandler(service);
 * // with any adapter from node:http to fetch handlers, e.g. srvx or h3's `fromWebHandler`
 */
export function createHandler(service: EventService, options: HandlerOptions = {}): FetchHandler {
  const router = createRouter<Route>();
  for (const prefix of VERSION_PREFIXES) {
    for (const route of ROUTES) addRoute(router, route.method, `${prefix}${route.path}`, route);
  }
  const trustProxy = options.trustProxy ?? false;

  async function authenticate(request: Request) {
    const token = bearerToken(request);
    if (!token) throw new ServiceError("UNAUTHORIZED", { message: "Missing API key: send Authorization: Bearer <key>." });
    const auth = await service.keys.authenticate(token);
    if (!auth) throw new ServiceError("UNAUTHORIZED", { message: "Invalid or revoked API key." });
    return auth;
  }

  async function route(request: Request, url: URL, origin: string): Promise<Response> {
    const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, "") : url.pathname;
    if (path === "/health" && request.method === "GET") {
      try {
        await service.storage.ping();
        return json({ status: "ok" });
      } catch (cause) {
        throw new ServiceError("SERVICE_UNAVAILABLE", { message: "The store cannot be reached.", headers: { "retry-after": "5" }, cause });
      }
    }
    const qr = request.method === "GET" ? QR_PATH.exec(path) : null;
    if (qr) {
      const image = await service.qrCode(qr[1]!, qr[2] as "png" | "svg");
      if (!image) throw new ServiceError("NOT_FOUND", { message: "QR code not found." });
      return new Response(image.body as BodyInit, {
        headers: { ...BASE_HEADERS, "content-type": image.contentType, "cache-control": "private, max-age=3600" },
      });
    }
    const match = findRoute(router, request.method, path);
    if (!match) throw new ServiceError("NOT_FOUND", { message: `No route for ${request.method} ${url.pathname}.` });
    const auth = await authenticate(request);
    const endpoint = match.data;
    if (!auth.scopes.includes(endpoint.scope)) {
      throw new ServiceError("FORBIDDEN", { message: `This API key lacks the ${endpoint.scope} scope.`, details: { requiredScope: endpoint.scope } });
    }
    const query = readQuery(url);
    const unexpected = endpoint.query ? undefined : Object.keys(query)[0];
    if (unexpected !== undefined) {
      throw new ServiceError("INVALID_REQUEST", { message: `${unexpected}: unknown query parameter`, field: unexpected });
    }
    let body: Promise<unknown> | undefined;
    const result = await endpoint.handle({
      request,
      url,
      params: match.params ?? {},
      query,
      body: () => (body ??= readJsonBody(request)),
      account: service.forAccount(auth.accountId, { baseUrl: origin }),
    });
    return json(result.body, result.status);
  }

  return async function handler(request: Request): Promise<Response> {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return errorResponse(new ServiceError("INVALID_REQUEST", { message: "Malformed request URL." }), "/docs");
    }
    const origin = requestOrigin(request, url, trustProxy);
    const docs = options.docsUrl ?? `${origin}/docs`;
    try {
      return await route(request, url, origin);
    } catch (thrown) {
      const error = ServiceError.from(thrown);
      if (error.code === "INTERNAL_ERROR") options.onError?.(thrown, request);
      return errorResponse(error, docs);
    }
  };
}
