import { randomUUID } from "node:crypto";
import { type ProxyTrust, resolveClientAddress } from "./client-address.ts";
import type { Cors } from "./cors.ts";
import type { BodySource } from "./request.ts";

/**
 * One request as the handler's steps see it: what was asked, by whom, and what every response to
 * it carries. Made once per request by {@link createRequestContexts}; the steps add to `headers`
 * (rate-limit headers) and note what the log needs (`route`, `accountId`).
 */
export interface RequestContext {
  readonly request: Request;
  /** The request's URL; `http://invalid/` when it could not be parsed (`malformedUrl`). */
  readonly url: URL;
  readonly malformedUrl: boolean;
  /** The client's `X-Request-Id` when well-formed, else a new UUID; echoed on the response. */
  readonly requestId: string;
  /** `performance.now()` when the handler took the request, for the log's duration. */
  readonly startedAt: number;
  /** The method routes are looked up with: a `HEAD` is answered by the `GET` route. */
  readonly method: string;
  /** A `HEAD`: every response to it is built without a body (see `createResponder`). */
  readonly head: boolean;
  /** The client's address, when the host says who the peer is (through trusted proxies). */
  readonly clientAddress: string | undefined;
  /** The peer is a trusted proxy: its forwarded headers count. */
  readonly proxied: boolean;
  /** Headers every response to this request carries, gathered on the way: request id, CORS, HSTS, rate limits. */
  readonly headers: Record<string, string>;
  /** The base of the links handed out (`qrCode`, report URLs), with the base path. */
  readonly linkBase: string;
  /** Where the `documentation` links of error bodies point; `undefined` for a malformed URL. */
  readonly docsUrl: string | undefined;
  /** The route template that took the request, for the log and metrics (`/v1/events/:id`). */
  route?: string;
  /** The authenticated account, for the log. */
  accountId?: string;
  /** A browser asked a link for its page: an error answers as a page too. */
  page?: boolean;
  /** How the host reads the body without a web stream, when it can (see `HandlerOptions.requestBody`). */
  readonly bodySource: BodySource | undefined;
}

/** What {@link createRequestContexts} needs from the handler's options. */
export interface RequestContextOptions {
  /** Which peers are trusted proxies (see `compileTrustProxy`). */
  trust: ProxyTrust;
  peerAddress: (request: Request) => string | undefined;
  cors: Cors | undefined;
  /** The service's `publicUrl`, which wins over every other origin. */
  publicUrl: string | undefined;
  linkOrigin: string | ((request: Request) => string);
  /** The normalised base path (`""` for the root). */
  basePath: string;
  docsUrl: string | undefined;
  bodySource?: BodySource;
}

const REQUEST_ID = /^[\x21-\x7e]{1,128}$/;
const HSTS = "max-age=31536000; includeSubDomains";
const INVALID_URL = "http://invalid/";
/** A host name or IP address with an optional port, as `X-Forwarded-Host` may carry. */
const FORWARDED_HOST =
  /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/** The first value of a forwarded header (the hop nearest the client), if any. */
export function forwardedHeader(request: Request, name: string): string | undefined {
  return request.headers.get(name)?.split(",")[0]?.trim() || undefined;
}

/** The origin a trusted proxy forwarded (`X-Forwarded-Host`, with `X-Forwarded-Proto` or the connection's scheme), when it is a well-formed one. */
function forwardedOrigin(request: Request, url: URL): string | undefined {
  const host = forwardedHeader(request, "x-forwarded-host");
  if (host === undefined) return undefined;
  const proto = forwardedHeader(request, "x-forwarded-proto") ?? url.protocol.slice(0, -1);
  // Only a bare host[:port]: anything else (a path, credentials) would not make an origin.
  if ((proto !== "http" && proto !== "https") || !FORWARDED_HOST.test(host)) return undefined;
  return URL.parse(`${proto}://${host}`)?.origin;
}

/**
 * Makes the context of each request. The links handed out use the service's `publicUrl`, else
 * the origin a trusted proxy forwarded, else `linkOrigin`; never the request's own `Host`: a
 * client must not shape the links the service hands out, or stores in notifications.
 */
export function createRequestContexts(options: RequestContextOptions): (request: Request) => RequestContext {
  const { trust, peerAddress, cors, publicUrl, linkOrigin, basePath } = options;

  function linkBase(request: Request, url: URL, proxied: boolean): string {
    if (publicUrl !== undefined) return publicUrl;
    const origin =
      (proxied ? forwardedOrigin(request, url) : undefined) ??
      (typeof linkOrigin === "string" ? linkOrigin : linkOrigin(request));
    return `${origin.replace(/\/+$/, "")}${basePath}`;
  }

  return function createRequestContext(request) {
    const startedAt = performance.now();
    const given = request.headers.get("x-request-id");
    const requestId = given !== null && REQUEST_ID.test(given) ? given : randomUUID();
    const peer = peerAddress(request);
    const proxied = trust(peer ?? "", 0);
    const headers: Record<string, string> = Object.assign({ "x-request-id": requestId }, cors?.headers(request));
    let url: URL;
    let malformedUrl = false;
    try {
      url = new URL(request.url);
    } catch {
      // A host's request whose URL does not parse is answered 400 by the first step.
      url = new URL(INVALID_URL);
      malformedUrl = true;
    }
    let base = "";
    let docsUrl: string | undefined;
    if (!malformedUrl) {
      base = linkBase(request, url, proxied);
      docsUrl = options.docsUrl ?? `${base}/docs`;
      const https =
        ((proxied ? forwardedHeader(request, "x-forwarded-proto") : undefined) ?? url.protocol.slice(0, -1)) ===
        "https";
      if (https) headers["strict-transport-security"] = HSTS;
    }
    const head = request.method === "HEAD";
    return {
      request,
      url,
      malformedUrl,
      requestId,
      startedAt,
      method: head ? "GET" : request.method,
      head,
      clientAddress: resolveClientAddress(peer, request.headers.get("x-forwarded-for"), trust),
      proxied,
      headers,
      linkBase: base,
      docsUrl,
      bodySource: options.bodySource,
    };
  };
}
