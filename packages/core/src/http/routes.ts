import {
  ACCOUNT_OPERATIONS,
  DOOR_LINK_OPERATIONS,
  TICKET_LINK_OPERATIONS,
  VENDOR_LINK_OPERATIONS,
} from "../operations/all.ts";
import type { AccountContext, DoorContext, LinkContext, TicketContext } from "../operations/context.ts";
import type { LinkKind } from "../resources/link-token.ts";
import type { AnyOperation } from "../operations/define.ts";
import { onFirstUse } from "../_internal/on-first-use.ts";
import type { LinkPage } from "../pages/link-page.ts";
import type { Scope } from "../resources/api-key.ts";

export type { RouteResult } from "../operations/define.ts";

/** What every route declares: its operation's definition (operations/), whoever it serves. */
export type RouteSpec = AnyOperation;

/** One API route authenticated by an API key: an account's operation, with the scope its key must hold. */
export type Route = AnyOperation<AccountContext> & { scope: Scope };

/** One route of a vendor's link (`/vendor-requests/:token/...`): no API key, the token in its path is the capability. */
export type LinkRoute = AnyOperation<LinkContext>;

/** One route of an attendee's ticket link (`/tickets/:token/...`): no API key, the token in its path is the capability. */
export type TicketLinkRoute = AnyOperation<TicketContext>;

/** Every authenticated route of the API: the account's operations. */
export const ROUTES: readonly Route[] = ACCOUNT_OPERATIONS;

/**
 * The routes of a vendor's link, served without an API key: the token in the path opens one
 * booking, and a token that opens none (unknown, rotated, cancelled) is `404` and counts against
 * its address's limit of requests without a valid key.
 */
export const VENDOR_LINK_ROUTES: readonly LinkRoute[] = VENDOR_LINK_OPERATIONS;

/**
 * The routes of an attendee's ticket link, served without an API key: the token in the path opens
 * one registration, and a token that opens none (unknown, rotated, erased) is `404` and counts
 * against its address's limit of requests without a valid key.
 */
export const TICKET_LINK_ROUTES: readonly TicketLinkRoute[] = TICKET_LINK_OPERATIONS;

/** One route of a door's check-in link (`/check-in/:token/...`): no API key, the token in its path is the capability. */
export type DoorLinkRoute = AnyOperation<DoorContext>;

/**
 * The routes of a door's check-in link, served without an API key: the token in the path opens
 * one event's door, and a token that opens none (unknown, revoked, expired, its event deleted) is
 * `404` and counts against its address's limit of requests without a valid key.
 */
export const DOOR_LINK_ROUTES: readonly DoorLinkRoute[] = DOOR_LINK_OPERATIONS;

/** The routes opened by a link's token, by the kind of link. */
export const LINK_ROUTES: Readonly<Record<LinkKind, readonly AnyOperation[]>> = {
  vendor: VENDOR_LINK_ROUTES,
  ticket: TICKET_LINK_ROUTES,
  door: DOOR_LINK_ROUTES,
};

/** The path prefixes every route is served under: the versioned base and the reference pages' alias. */
export const VERSION_PREFIXES = ["/v1", "/api"] as const;

/**
 * A link's page, loaded by the first browser that asks for one of its kind: the pages and Preact,
 * which draws them, stay out of a process that serves only the API.
 */
export type PageLoader = () => Promise<LinkPage<never>>;

/** The pages at links' URLs (a browser's `GET`, and the forms it posts there), by the path of their JSON twin. */
export const LINK_PAGES: Readonly<Record<string, { link: LinkKind; loadPage: PageLoader }>> = {
  "/vendor-requests/:token": {
    link: "vendor",
    loadPage: onFirstUse(() =>
      import("../pages/vendor-page.tsx").then((module) => module.VENDOR_PAGE as LinkPage<never>),
    ),
  },
  "/tickets/:token": {
    link: "ticket",
    loadPage: onFirstUse(() =>
      import("../pages/ticket-page.tsx").then((module) => module.TICKET_PAGE as LinkPage<never>),
    ),
  },
  "/check-in/:token": {
    link: "door",
    loadPage: onFirstUse(() => import("../pages/door-page.tsx").then((module) => module.DOOR_PAGE as LinkPage<never>)),
  },
};
