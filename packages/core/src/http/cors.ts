import { ROUTES } from "./routes.ts";

/** Options of the handler's CORS support ({@link HandlerOptions.cors}). */
export interface CorsOptions {
  /**
   * The browser origins allowed to call the API (`https://app.example.com`, scheme, host and
   * port only), or `"*"` for any origin. A malformed origin throws at start.
   */
  origins: readonly string[] | "*";
}

/** What the handler asks of its CORS support, per request. */
export interface Cors {
  /** The CORS headers of an ordinary response to `request` (empty for an origin not allowed). */
  headers(request: Request): Record<string, string>;
  /** The headers answering a preflight (`OPTIONS` with `Access-Control-Request-Method`) from an allowed origin; `null` for any other request. */
  preflight(request: Request): Record<string, string> | null;
}

/** The request headers a browser app needs to send the API. */
export const CORS_ALLOWED_HEADERS = ["Authorization", "Content-Type", "Idempotency-Key", "X-Request-Id"] as const;

/** The response headers a browser app may read (beyond the CORS-safelisted ones). */
export const CORS_EXPOSED_HEADERS = [
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset",
  "Retry-After",
  "Idempotent-Replayed",
  "X-Request-Id",
  "Content-Disposition",
] as const;

/** How long a browser may cache a preflight's answer, in seconds (Chromium caps it at 7200). */
export const CORS_MAX_AGE_SECONDS = 7200;

const ALLOWED_METHODS = [...new Set(["GET", "HEAD", ...ROUTES.map((route) => route.method)])].join(", ");
const ORIGIN_SHAPE = /^https?:\/\/[^/?#@\s]+\/?$/i;

/**
 * The normalised origin (`https://app.example.com`, lower-case host, no default port) of a
 * configured one; throws a `TypeError` saying what is wrong. A trailing `/` is accepted, any
 * other path, a query, credentials or a scheme other than http(s) is not: a browser never sends
 * them in `Origin`, so such an entry would silently match nothing.
 */
export function normaliseOrigin(value: string): string {
  const trimmed = value.trim();
  let url: URL | undefined;
  if (ORIGIN_SHAPE.test(trimmed)) {
    try {
      url = new URL(trimmed);
    } catch {
      url = undefined;
    }
  }
  if (!url)
    throw new TypeError(`"${trimmed}" is not an origin: expected scheme://host[:port], e.g. https://app.example.com`);
  return url.origin;
}

/**
 * Parses a `CORS_ORIGINS`-style list: comma-separated origins, or `*` alone for any origin.
 * Throws a `TypeError` naming the first malformed entry.
 *
 * @example
 * parseCorsOrigins("https://app.example.com, http://localhost:5173"); // ["https://app.example.com", "http://localhost:5173"]
 * parseCorsOrigins("*"); // "*"
 */
export function parseCorsOrigins(value: string): string[] | "*" {
  const entries = value
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  if (entries.length === 0) throw new TypeError("no origin given: expected comma-separated origins or *");
  if (entries.includes("*")) {
    if (entries.length > 1) throw new TypeError("* allows every origin and stands alone");
    return "*";
  }
  return [...new Set(entries.map(normaliseOrigin))];
}

/**
 * The CORS support of the handler. The API authenticates with bearer keys, never cookies, so
 * credentials are not allowed and `*` is safe to offer. With a list of origins, every response
 * carries `Vary: Origin` (it depends on the caller's origin, whoever asks), and only the listed
 * origins get `Access-Control-*` headers.
 */
export function createCors(options: CorsOptions): Cors {
  const any = options.origins === "*";
  const allowed = new Set(any ? [] : (options.origins as readonly string[]).map(normaliseOrigin));
  const exposed = CORS_EXPOSED_HEADERS.join(", ");

  function allowOrigin(request: Request): string | undefined {
    if (any) return "*";
    const origin = request.headers.get("origin");
    return origin !== null && allowed.has(origin) ? origin : undefined;
  }

  return {
    headers(request): Record<string, string> {
      const origin = allowOrigin(request);
      if (origin === undefined) return { vary: "Origin" };
      const headers: Record<string, string> = {
        "access-control-allow-origin": origin,
        "access-control-expose-headers": exposed,
      };
      if (!any) headers.vary = "Origin";
      return headers;
    },
    preflight(request) {
      if (
        request.method !== "OPTIONS" ||
        !request.headers.has("access-control-request-method") ||
        !request.headers.has("origin")
      )
        return null;
      const origin = allowOrigin(request);
      if (origin === undefined) return null;
      return {
        "access-control-allow-origin": origin,
        "access-control-allow-methods": ALLOWED_METHODS,
        "access-control-allow-headers": CORS_ALLOWED_HEADERS.join(", "),
        "access-control-max-age": String(CORS_MAX_AGE_SECONDS),
        ...(!any && { vary: "Origin" }),
      };
    },
  };
}
