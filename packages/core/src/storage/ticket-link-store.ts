import type { AttendeeRecord } from "../resources/attendee.ts";
import type { TicketLinkRecord } from "../resources/ticket-link.ts";

/**
 * Attendees' ticket links outside a transaction: each is a token's hash (never the token) naming
 * one registration, which may hold several live links at once. A link goes with its
 * registration: erasing the registration (`tx.attendees.remove`) or deleting its event removes
 * its links.
 */
export interface TicketLinkStore {
  /**
   * Adds `link` to the account's registration `link.attendeeId`, beside its live links (a link
   * made for an email, say), and returns `true`; returns `false` and writes nothing when the
   * account has no such registration. Atomic with an erasure: the registration is held against
   * deletion until the link is written, so a link never outlives its registration.
   */
  addTicketLink(link: TicketLinkRecord): Promise<boolean>;
  /** The registration a live link's token hashes to (`linkHash`), whatever its account, or `null`. */
  findTicketLink(linkHash: string): Promise<AttendeeRecord | null>;
}

/** Ticket links in a write transaction. Call them under the registration's event's lock (`events.lock`). */
export interface TicketLinkWrites {
  /** Adds `link` to its registration, which must exist, beside its live links. */
  add(link: TicketLinkRecord): Promise<void>;
  /** {@link add} of several links (of registrations that exist), in a bounded number of statements. */
  addMany(links: readonly TicketLinkRecord[]): Promise<void>;
  /** Replaces every live link of the registration `link.attendeeId` by `link` alone: the old tokens open nothing any more. */
  replace(link: TicketLinkRecord): Promise<void>;
  /** The id of the registration whose live link hashes to `linkHash`, as of this point of the transaction, or `null`. */
  attendeeOf(linkHash: string): Promise<string | null>;
}
