import { createHash } from "node:crypto";

/** The CSP source that allows exactly one inline stylesheet (`'sha256-…'`): the page needs no `'unsafe-inline'`. */
export function styleSource(style: string): string {
  return `'sha256-${createHash("sha256").update(style, "utf8").digest("base64")}'`;
}

/**
 * The headers of a page that is someone's own (a ticket, a booking, a report behind a key):
 * nothing keeps it (`no-store`), no search engine lists it, and no link on it tells the next site
 * the address it was opened at, which may hold a token.
 */
export function documentHeaders(csp: string): Record<string, string> {
  return {
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": csp,
    "cache-control": "no-store",
    "x-robots-tag": "noindex",
    "referrer-policy": "no-referrer",
    vary: "accept",
  };
}
