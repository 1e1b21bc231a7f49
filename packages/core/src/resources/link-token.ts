import { createHash, randomBytes } from "node:crypto";

/**
 * The kinds of link the service hands out, each opening one thing without an API key: a
 * vendor's booking (`/v1/vendor-requests/<token>`), an attendee's registration
 * (`/v1/tickets/<token>`) and an event's door (`/v1/check-in/<token>`).
 */
export const LINK_KINDS = ["vendor", "ticket", "door"] as const;
export type LinkKind = (typeof LINK_KINDS)[number];

/** The prefix of each kind's token: tells what it is when one turns up in a log or a ticket. */
export const LINK_TOKEN_PREFIXES: Readonly<Record<LinkKind, string>> = {
  vendor: "vrq_",
  ticket: "tkt_",
  door: "chk_",
};

/** Characters of 32 random bytes in base64url. */
const TOKEN_BODY_LENGTH = 43;

/** A new link token of `kind`: 256 random bits, URL-safe. Shown once; only its hash is stored. */
export function newLinkToken(kind: LinkKind): string {
  return `${LINK_TOKEN_PREFIXES[kind]}${randomBytes(32).toString("base64url")}`;
}

/** What is stored of a link's token and looked up by: its SHA-256, hex. */
export function linkHashOf(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** Whether `token` has the shape of a `kind` link's token (a lookup of anything else is skipped: it cannot match). */
export function isLinkToken(token: string, kind: LinkKind): boolean {
  const prefix = LINK_TOKEN_PREFIXES[kind];
  return token.startsWith(prefix) && token.length === prefix.length + TOKEN_BODY_LENGTH;
}

const LINK_TOKENS = new RegExp(`(${Object.values(LINK_TOKEN_PREFIXES).join("|")})[A-Za-z0-9_-]+`, "g");

/**
 * `text` (a request's path) with every link token in it, of any kind, cut to its prefix
 * (`/v1/tickets/tkt_…`), for a log: a token is a credential.
 */
export function redactLinkTokens(text: string): string {
  return text.replace(LINK_TOKENS, "$1…");
}
