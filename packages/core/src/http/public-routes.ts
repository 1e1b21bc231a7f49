import { addRoute, createRouter } from "rou3";
import { ServiceError } from "../errors.ts";
import type { EventService } from "../service.ts";
import { DOCS_ASSETS, DOCS_CSP, type DocsAsset, docsAsset, docsPage } from "./docs-page.ts";
import { createHealthCheck } from "./health-check.ts";
import { type MetricsEndpointOptions, serveMetrics } from "./metrics-endpoint.ts";
import { openApiDocument } from "./openapi.ts";
import type { createResponder } from "./respond.ts";
import { VERSION_PREFIXES } from "./routes.ts";

/** The file name of a QR image: the registration's id and the format. */
const QR_FILE = /^([A-Za-z0-9_]+)\.(png|svg)$/;
/**
 * A registration's QR image never changes while it exists (it encodes the confirmation code,
 * which never changes): cached for a year, by the holder's browser only, since the code admits
 * its holder to the event.
 */
const QR_CACHE_CONTROL = "private, max-age=31536000";

/**
 * A route served without an API key (health, the OpenAPI document, the reference page and its
 * assets, QR images, metrics): its label in metrics, and how it answers; `undefined` when the
 * path turns out not to be one it serves (an unknown asset), which then goes on to the API.
 */
export interface PublicRoute {
  label: (params: Record<string, string>) => string | undefined;
  /** `headers`: the response headers gathered so far (request id, CORS), to send along. */
  serve: (request: Request, params: Record<string, string>, headers: Record<string, string>) => Promise<Response | undefined>;
}

/** Whether an `If-None-Match` header names `etag` (the weak comparison RFC 9110 prescribes for it). */
function etagMatches(header: string | null, etag: string): boolean {
  if (header === null) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);
}

/** What the routes served without a key need from the handler. */
export interface PublicRouterOptions {
  service: EventService;
  reply: ReturnType<typeof createResponder>;
  /** The normalised prefix the handler is mounted under (`""` for the root). */
  basePath: string;
  /** Serve `/docs` and its assets. */
  docs: boolean;
  metrics?: MetricsEndpointOptions;
}

/**
 * The routes answered without an API key, in a rou3 table of their own (looked up when no API
 * route matches; no path matches both): `/metrics` (when configured), `/health`, `/openapi.json`, `/docs` and its assets, and
 * the public QR images under every version prefix.
 */
export function createPublicRouter(options: PublicRouterOptions) {
  const { service, reply, basePath } = options;
  const { storage } = service;
  const publicRouter = createRouter<PublicRoute>();
  const fixed = (path: string, serve: PublicRoute["serve"]) => addRoute(publicRouter, "GET", path, { label: () => path, serve });
  if (options.metrics) {
    const metricsOptions = options.metrics;
    fixed("/metrics", async (request, _params, headers) => {
      const metrics = await serveMetrics(request, metricsOptions);
      return reply.raw(metrics.body, 200, { ...headers, "content-type": metrics.contentType, "cache-control": "no-store" });
    });
  }
  // The store's last ping, remembered for a second: a load balancer's polls cost no round trip each.
  const healthy = createHealthCheck(storage);
  fixed("/health", async (_request, _params, headers) => {
    await healthy();
    return reply.json({ status: "ok" }, 200, headers);
  });
  fixed("/openapi.json", async (_request, _params, headers) =>
    reply.raw(openApiDocument(), 200, { ...headers, "content-type": "application/json; charset=utf-8", "cache-control": "public, max-age=300" }),
  );
  if (options.docs) {
    // Rendered once: the page depends only on the base path, fixed for this handler.
    const page = docsPage(basePath);
    fixed("/docs", async (_request, _params, headers) =>
      reply.raw(page, 200, {
        ...headers,
        "content-type": "text/html; charset=utf-8",
        "cache-control": "public, max-age=300",
        "content-security-policy": DOCS_CSP,
      }),
    );
    addRoute(publicRouter, "GET", "/docs/:asset", {
      label: ({ asset }) => (asset !== undefined && Object.hasOwn(DOCS_ASSETS, asset) ? "/docs/:asset" : undefined),
      async serve(_request, { asset }, headers) {
        if (asset === undefined || !Object.hasOwn(DOCS_ASSETS, asset)) return undefined;
        return reply.raw((await docsAsset(asset as DocsAsset)) as BodyInit, 200, {
          ...headers,
          "content-type": DOCS_ASSETS[asset as DocsAsset],
          "cache-control": "public, max-age=86400",
        });
      },
    });
  }
  for (const prefix of VERSION_PREFIXES) {
    addRoute(publicRouter, "GET", `${prefix}/qr/:file`, {
      label: ({ file }) => {
        const format = QR_FILE.exec(file ?? "")?.[2];
        return format ? `${prefix}/qr/:code.${format}` : undefined;
      },
      async serve(request, { file }, headers) {
        const qr = QR_FILE.exec(file ?? "");
        if (!qr) return undefined;
        const image = await service.qrCode(qr[1]!, qr[2] as "png" | "svg");
        if (!image) throw new ServiceError("NOT_FOUND", { message: "QR code not found." });
        const cached = { ...headers, etag: image.etag, "cache-control": QR_CACHE_CONTROL };
        if (etagMatches(request.headers.get("if-none-match"), image.etag)) return reply.raw(null, 304, cached);
        return reply.raw(image.body as BodyInit, 200, { ...cached, "content-type": image.contentType });
      },
    });
  }
  return publicRouter;
}
