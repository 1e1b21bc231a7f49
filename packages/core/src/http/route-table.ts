import { addRoute, createRouter, findRoute } from "rou3";
import { ServiceError } from "../errors.ts";
import type { PublicRoute } from "./public-routes.ts";
import type { RequestContext } from "./request-context.ts";
import type { AnyOperation } from "../operations/define.ts";
import { LINK_KINDS, type LinkKind } from "../resources/link-token.ts";
import { LINK_PAGES, LINK_ROUTES, type PageLoader, type Route, ROUTES, VERSION_PREFIXES } from "./routes.ts";

/** Where Stripe sends its notifications, under each version prefix. */
export const STRIPE_WEBHOOK_PATH = "/payments/stripe/webhook";

/** An authenticated API route under one version prefix. */
export interface ApiEntry {
  kind: "api";
  route: Route;
  /** The version prefix the route was reached under (`/v1`). */
  prefix: string;
  /** The route's template with its prefix (`/v1/events/:id`): its label in the log and metrics. */
  label: string;
}

/** A route of a link under one version prefix: no API key, its token opens one booking (a vendor's) or registration (a ticket). */
export interface LinkEntry {
  kind: "link";
  /** Which kind of link's token the path holds. */
  link: LinkKind;
  route: AnyOperation;
  /** The route's template with its prefix (`/v1/vendor-requests/:token`): its label in the log and metrics. */
  label: string;
  /** The page a browser gets at this URL instead of the JSON (`Accept` preferring `text/html`), loaded on first use. */
  loadPage?: PageLoader;
}

/** A page's form posted to its link's URL (`POST /v1/vendor-requests/:token`): no API key, the token opens the link. */
export interface PageFormEntry {
  kind: "page-form";
  /** Which kind of link's token the path holds. */
  link: LinkKind;
  loadPage: PageLoader;
  label: string;
}

/** Stripe's notifications (`POST /v1/payments/stripe/webhook`): no API key, Stripe's signature instead. */
export interface StripeEntry {
  kind: "stripe";
  label: string;
}

/** A route served without an API key (health, the OpenAPI document, QR images, ...). */
export interface PublicEntry {
  kind: "public";
  route: PublicRoute;
}

/** What a request's path matched, with the path's parameters. */
export interface RouteMatch<
  T extends ApiEntry | LinkEntry | PageFormEntry | PublicEntry | StripeEntry =
    | ApiEntry
    | LinkEntry
    | PageFormEntry
    | PublicEntry
    | StripeEntry,
> {
  entry: T;
  params: Record<string, string>;
  /** The path below the base path, without a trailing slash (`/v1/events`). */
  path: string;
}

/** Whether a request matched an API route (not a route served without a key, nor none). */
export function isApiMatch(match: RouteMatch | undefined): match is RouteMatch<ApiEntry> {
  return match?.entry.kind === "api";
}

/** The answer to a path (or method) the API does not serve. */
export function noRoute(ctx: Pick<RequestContext, "request" | "url">): ServiceError {
  return new ServiceError("NOT_FOUND", { message: `No route for ${ctx.request.method} ${ctx.url.pathname}.` });
}

/** `/events-api` of `events-api/` and the like; `""` for the root. */
export function normaliseBasePath(basePath = ""): string {
  const trimmed = basePath.replace(/^\/+|\/+$/g, "");
  return trimmed ? `/${trimmed}` : "";
}

/**
 * Every route the handler serves in one rou3 table: the API's routes and each kind of link's under
 * each version prefix, and the routes served without a key (no path matches two). The returned function finds a
 * request's route by its context's `method` (a `HEAD` looks up the `GET` route), below the base
 * path: `undefined` when none matches, `404` for a path outside the base path.
 */
export function createRouteTable(
  basePath: string,
  publicRoutes: readonly PublicRoute[],
): (ctx: RequestContext) => RouteMatch | undefined {
  const router = createRouter<ApiEntry | LinkEntry | PageFormEntry | PublicEntry | StripeEntry>();
  for (const prefix of VERSION_PREFIXES) {
    const label = `${prefix}${STRIPE_WEBHOOK_PATH}`;
    addRoute(router, "POST", label, { kind: "stripe", label });
    for (const link of LINK_KINDS)
      for (const route of LINK_ROUTES[link]) {
        const label = `${prefix}${route.path}`;
        const loadPage = route.method === "GET" ? LINK_PAGES[route.path]?.loadPage : undefined;
        addRoute(
          router,
          route.method,
          label,
          loadPage ? { kind: "link", link, route, label, loadPage } : { kind: "link", link, route, label },
        );
      }
    for (const [path, { link, loadPage }] of Object.entries(LINK_PAGES)) {
      const label = `${prefix}${path}`;
      addRoute(router, "POST", label, { kind: "page-form", link, loadPage, label });
    }
    for (const route of ROUTES)
      addRoute(router, route.method, `${prefix}${route.path}`, {
        kind: "api",
        route,
        prefix,
        label: `${prefix}${route.path}`,
      });
  }
  for (const route of publicRoutes) addRoute(router, "GET", route.path, { kind: "public", route });

  return function matchRoute(ctx) {
    const { pathname } = ctx.url;
    const mounted = pathname.slice(basePath.length);
    if (!pathname.startsWith(basePath) || (mounted !== "" && !mounted.startsWith("/"))) throw noRoute(ctx);
    const path = mounted.length > 1 ? mounted.replace(/\/+$/, "") : mounted || "/";
    const match = findRoute(router, ctx.method, path);
    return match && { entry: match.data, params: match.params ?? {}, path };
  };
}
