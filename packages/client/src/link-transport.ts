import type { RetryOptions } from "./retry.ts";
import { createTransport, type Transport } from "./transport.ts";

/** What a link's client is built with: the link and the transport's options. */
export interface LinkTransportOptions {
  link: string | null;
  retry?: RetryOptions | false;
  idempotencyKeys?: boolean;
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
}

/** One kind of link as its client checks it, and the words of its refusals. */
export interface LinkKindOfClient {
  /** The factory, opening every message (`createTicketLinkClient`). */
  factory: string;
  /** The path segment before the token (`tickets`). */
  segment: string;
  /** The link in words (`the registration's ticketUrl`). */
  name: string;
  /** The link's form, shown when it has another (`https://events.example.com/v1/tickets/tkt_…`). */
  example: string;
  /** What to do when the link is `null`: answers show it once. */
  missing: string;
}

/** The link's address without query, fragment or trailing slash; a `TypeError` for anything but a link of `kind`. */
function linkBase(link: string | null, kind: LinkKindOfClient): string {
  if (link === null) throw new TypeError(`${kind.factory}: no link: ${kind.missing}`);
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    throw new TypeError(`${kind.factory}: \`link\` must be ${kind.name}, an absolute URL.`);
  }
  const path = url.pathname.replace(/\/+$/, "");
  const below = new RegExp(`/${kind.segment}/[^/]+$`);
  if (!/^https?:$/.test(url.protocol) || !below.test(path))
    throw new TypeError(`${kind.factory}: \`link\` must be ${kind.name}, e.g. ${kind.example}.`);
  return `${url.origin}${path}`;
}

/**
 * The transport of a client of one link (a vendor's, a ticket's, a door's): its requests go below
 * the link's own address, which is checked first, and the link is their only credential.
 */
export function createLinkTransport(options: LinkTransportOptions, kind: LinkKindOfClient): Transport {
  return createTransport({
    baseUrl: linkBase(options.link, kind),
    headers: { accept: "application/json" },
    retry: options.retry,
    idempotencyKeys: options.idempotencyKeys,
    timeoutMs: options.timeoutMs,
    fetch: options.fetch,
  });
}
