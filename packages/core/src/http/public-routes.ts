import { ServiceError } from "../errors.ts";
import type { EventService } from "../service.ts";
import { onFirstUse } from "../_internal/on-first-use.ts";
import { API_VERSION } from "./api-version.ts";
import { DOCS_ASSETS, type DocsAsset, docsAsset } from "./docs-assets.ts";
import { isPageAsset, PAGE_ASSETS, pageAsset } from "../pages/page-assets.ts";
import { createHealthCheck } from "./health-check.ts";
import { type MetricsEndpointOptions, serveMetrics } from "./metrics-endpoint.ts";
import type { RequestContext } from "./request-context.ts";
import type { Responder } from "./respond.ts";
import type { ServiceIndex } from "./schemas.ts";
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
 * A route served without an API key (the index, health, the OpenAPI document, the reference page and its
 * assets, QR images, metrics): its path, its label in metrics, and how it answers; `undefined`
 * when the path turns out not to be one it serves (an unknown asset), which then goes on to the API.
 */
export interface PublicRoute {
  /** rou3 syntax, below the base path; answered to `GET` (and so `HEAD`). */
  path: string;
  label: (params: Record<string, string>) => string | undefined;
  /** Answers with the headers gathered so far (`ctx.headers`: request id, CORS) added. */
  serve: (ctx: RequestContext, params: Record<string, string>) => Promise<Response | undefined>;
}

/** The OpenAPI document's builder, loaded by the first request for it (the document is built then, once). */
const loadOpenApi = onFirstUse(() => import("./openapi.ts"));

/** Whether an `If-None-Match` header names `etag` (the weak comparison RFC 9110 prescribes for it). */
function etagMatches(header: string | null, etag: string): boolean {
  if (header === null) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);
}

/** What the routes served without a key need from the handler. */
export interface PublicRoutesOptions {
  service: EventService;
  reply: Responder;
  /** The normalised prefix the handler is mounted under (`""` for the root). */
  basePath: string;
  /** Serve `/docs` and its assets. */
  docs: boolean;
  metrics?: MetricsEndpointOptions;
}

/**
 * The routes answered without an API key: `/` (an index of the others), `/metrics` (when configured), `/health`,
 * `/openapi.json`, `/docs` and its assets, and the public QR images under every version prefix.
 */
export function createPublicRoutes(options: PublicRoutesOptions): PublicRoute[] {
  const { service, reply, basePath } = options;
  const { storage } = service;
  const routes: PublicRoute[] = [];
  const fixed = (path: string, serve: PublicRoute["serve"]) => routes.push({ path, label: () => path, serve });
  if (options.metrics) {
    const metricsOptions = options.metrics;
    fixed("/metrics", async (ctx) => {
      const metrics = await serveMetrics(ctx.request, metricsOptions);
      return reply.raw(ctx, metrics.body, 200, {
        ...ctx.headers,
        "content-type": metrics.contentType,
        "cache-control": "no-store",
      });
    });
  }
  // Where a newcomer who opens the service's address finds out what it is; links as every link handed out is built.
  fixed("/", async (ctx) => {
    const index: ServiceIndex = {
      name: "Event Service",
      version: API_VERSION,
      docs: ctx.docsUrl ?? `${ctx.linkBase}/docs`,
      openapi: `${ctx.linkBase}/openapi.json`,
      health: `${ctx.linkBase}/health`,
    };
    return reply.json(ctx, index, 200, ctx.headers);
  });
  // The store's last ping, remembered for a second: a load balancer's polls cost no round trip each.
  const healthy = createHealthCheck(storage);
  fixed("/health", async (ctx) => {
    await healthy();
    return reply.json(ctx, { status: "ok" }, 200, ctx.headers);
  });
  fixed("/openapi.json", async (ctx) =>
    reply.raw(ctx, (await loadOpenApi()).openApiDocument(), 200, {
      ...ctx.headers,
      "content-type": "application/json; charset=utf-8",
      "cache-control": "public, max-age=300",
    }),
  );
  if (options.docs) {
    // Rendered once, by the first request (with Preact, which draws it): the page depends only
    // on the base path, fixed for this handler.
    const docs = onFirstUse(() =>
      import("./docs-page.tsx").then(({ docsPage, DOCS_CSP }) => ({ page: docsPage(basePath), csp: DOCS_CSP })),
    );
    fixed("/docs", async (ctx) => {
      const { page, csp } = await docs();
      return reply.raw(ctx, page, 200, {
        ...ctx.headers,
        "content-type": "text/html; charset=utf-8",
        "cache-control": "public, max-age=300",
        "content-security-policy": csp,
      });
    });
    routes.push({
      path: "/docs/:asset",
      label: ({ asset }) => (asset !== undefined && Object.hasOwn(DOCS_ASSETS, asset) ? "/docs/:asset" : undefined),
      async serve(ctx, { asset }) {
        if (asset === undefined || !Object.hasOwn(DOCS_ASSETS, asset)) return undefined;
        return reply.raw(ctx, (await docsAsset(asset as DocsAsset)) as BodyInit, 200, {
          ...ctx.headers,
          "content-type": DOCS_ASSETS[asset as DocsAsset],
          "cache-control": "public, max-age=86400",
        });
      },
    });
  }
  // The pages' script and the decoder it loads: the same for every link, so caches may keep them a day.
  routes.push({
    path: "/pages/:asset",
    label: ({ asset }) => (asset !== undefined && isPageAsset(asset) ? "/pages/:asset" : undefined),
    async serve(ctx, { asset }) {
      if (asset === undefined || !isPageAsset(asset)) return undefined;
      return reply.raw(ctx, (await pageAsset(asset)) as BodyInit, 200, {
        ...ctx.headers,
        "content-type": PAGE_ASSETS[asset],
        "cache-control": "public, max-age=86400",
        "x-content-type-options": "nosniff",
        // The door's service worker keeps the pages of the check-in links, which are not under /pages/.
        ...(asset === "sw.js" && { "service-worker-allowed": "/" }),
      });
    },
  });
  for (const prefix of VERSION_PREFIXES) {
    routes.push({
      path: `${prefix}/qr/:file`,
      label: ({ file }) => {
        const format = QR_FILE.exec(file ?? "")?.[2];
        return format ? `${prefix}/qr/:code.${format}` : undefined;
      },
      async serve(ctx, { file }) {
        const qr = QR_FILE.exec(file ?? "");
        if (!qr) return undefined;
        const image = await service.qrCode(qr[1]!, qr[2] as "png" | "svg");
        if (!image) throw new ServiceError("NOT_FOUND", { message: "QR code not found." });
        const cached = { ...ctx.headers, etag: image.etag, "cache-control": QR_CACHE_CONTROL };
        if (etagMatches(ctx.request.headers.get("if-none-match"), image.etag)) return reply.raw(ctx, null, 304, cached);
        return reply.raw(ctx, image.body as BodyInit, 200, { ...cached, "content-type": image.contentType });
      },
    });
  }
  return routes;
}
