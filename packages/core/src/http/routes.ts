import type { Scope } from "../resources/api-key.ts";
import type { AccountScope } from "../service.ts";

/** What a route handler gets. */
export interface RouteContext {
  request: Request;
  url: URL;
  params: Record<string, string>;
  /** The query string as an object (each parameter once). */
  query: Record<string, string>;
  /** The parsed JSON body (reads and validates the transport on first call). */
  body(): Promise<unknown>;
  /** The caller's account operations. */
  account: AccountScope;
}

/** A route's answer: a body for `status`, JSON-encoded, and headers to add. */
export interface RouteResult {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** One authenticated API route; served under every version prefix. */
export interface Route {
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** Path after the version prefix, rou3 syntax (`/events/:id`). */
  path: string;
  /** The scope the caller's key must hold. */
  scope: Scope;
  /** True when the route reads query parameters; any other route rejects them. */
  query?: true;
  handle(ctx: RouteContext): Promise<RouteResult>;
}

const ok = (body: unknown): RouteResult => ({ status: 200, body });
const created = (body: unknown): RouteResult => ({ status: 201, body });

/** Every authenticated route of the API. */
export const ROUTES: readonly Route[] = [
  { method: "POST", path: "/events", scope: "events:write", handle: async (c) => created(await c.account.events.create((await c.body()) as never)) },
  { method: "GET", path: "/events", scope: "events:read", query: true, handle: async (c) => ok(await c.account.events.list(c.query)) },
  { method: "GET", path: "/events/:id", scope: "events:read", handle: async (c) => ok(await c.account.events.get(c.params.id!)) },
  { method: "PUT", path: "/events/:id", scope: "events:write", handle: async (c) => ok(await c.account.events.update(c.params.id!, (await c.body()) as never)) },
  { method: "DELETE", path: "/events/:id", scope: "events:write", handle: async (c) => ok(await c.account.events.delete(c.params.id!)) },
  {
    method: "POST",
    path: "/events/:id/check-in",
    scope: "attendees:write",
    handle: async (c) => ok(await c.account.events.checkIn(c.params.id!, (await c.body()) as never)),
  },
  { method: "POST", path: "/attendees", scope: "attendees:write", handle: async (c) => created(await c.account.attendees.register((await c.body()) as never)) },
  { method: "GET", path: "/attendees", scope: "attendees:read", query: true, handle: async (c) => ok(await c.account.attendees.list(c.query)) },
  { method: "GET", path: "/attendees/:id", scope: "attendees:read", handle: async (c) => ok(await c.account.attendees.get(c.params.id!)) },
  {
    method: "PUT",
    path: "/attendees/:id",
    scope: "attendees:write",
    handle: async (c) => ok(await c.account.attendees.update(c.params.id!, (await c.body()) as never)),
  },
];

/** The path prefixes every route is served under: the versioned base and the reference pages' alias. */
export const VERSION_PREFIXES = ["/v1", "/api"] as const;
