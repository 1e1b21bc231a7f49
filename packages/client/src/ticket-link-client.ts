import type { Ticket } from "@event-service/core";
import type { OperationBody as Body, OperationResult as Result } from "./client.ts";
import type { RetryOptions } from "./retry.ts";
import { createLinkTransport, type LinkKindOfClient } from "./link-transport.ts";
import type { CallOptions } from "./transport.ts";

export type { Ticket, TicketTravelInput, TicketUpdateInput } from "@event-service/core";

/** Options of {@link createTicketLinkClient}. */
export interface TicketLinkClientOptions {
  /**
   * The registration's `ticketUrl` as the attendee was given it, e.g.
   * `https://events.example.com/v1/tickets/tkt_…`: the link is the attendee's only credential (no
   * API key). `null` (what every answer but the create answer and a new link's shows) is refused
   * with a `TypeError`: make a new link with `attendees.ticketLink`.
   */
  link: string | null;
  /** Retrying `429` and `503` answers (and `409 IDEMPOTENCY_KEY_IN_USE`); `false` turns it off. */
  retry?: RetryOptions | false;
  /**
   * Send a generated `Idempotency-Key` with every `POST` that has none, so a retried `cancel()`
   * is answered once (the service keeps a link's keys under its registration). Default true.
   * Without one, a `POST` is never retried.
   */
  idempotencyKeys?: boolean;
  /** Time-out of one attempt in ms. Default 30 s. */
  timeoutMs?: number;
  /** A fetch implementation; default the global one. */
  fetch?: typeof globalThis.fetch;
}

/** The client {@link createTicketLinkClient} returns. */
export interface TicketLinkClient {
  /** The attendee's ticket: the event, their registration, its QR code while admitted, the payment due. */
  get(call?: CallOptions): Promise<Result<"ticket.view">>;
  /**
   * Changes the attendee's dietary preferences, accessibility needs, emergency contact or travel
   * (partial; `null` clears); `422 INVALID_STATE_TRANSITION` once the event started or the
   * registration is cancelled.
   */
  update(input: Body<"ticket.update">, call?: CallOptions): Promise<Result<"ticket.update">>;
  /**
   * Cancels the registration: refunded by the event's refund policy, the next in line promoted;
   * `422 INVALID_STATE_TRANSITION` once the event started or when cancelled already.
   */
  cancel(call?: CallOptions): Promise<Result<"ticket.cancel">>;
  /** The event as the text of an iCalendar (`.ics`) file: one VEVENT, its times in UTC. */
  calendar(call?: CallOptions): Promise<string>;
  /**
   * A Stripe Checkout Session paying what the registration still owes: send the attendee to its
   * `url`; Stripe sends them back to the ticket page. `422 INVALID_STATE_TRANSITION` (with
   * `details.reason`) when it takes no payment through Stripe now.
   *
   * @example
   * const { url } = await ticket.checkout();
   * window.location.assign(url);
   */
  checkout(call?: CallOptions): Promise<Result<"ticket.checkout">>;
}

/** A ticket link as its client checks it. */
const LINK_KIND: LinkKindOfClient = {
  factory: "createTicketLinkClient",
  segment: "tickets",
  name: "the registration's ticketUrl",
  example: "https://events.example.com/v1/tickets/tkt_…",
  missing:
    "ticketUrl is shown in the create answer only (null in every other answer); make a new one with attendees.ticketLink.",
};

/**
 * Creates a client of one attendee's ticket link, for the attendee's own use (an app, a page),
 * with the link as the only credential: pass the `ticketUrl`, or options with it as `link`.
 * Errors, retries and `Idempotency-Key`s are {@link createClient}'s: every failure is an
 * {@link EventServiceError}; an unknown, replaced or erased link is `404 NOT_FOUND`.
 *
 * @example
 * const ticket = createTicketLinkClient("https://events.example.com/v1/tickets/tkt_…");
 * const { event, attendee } = await ticket.get();
 * await ticket.update({ carbonOffset: { travelMode: "train", travelDistance: 420 } });
 * const ics = await ticket.calendar();
 */
export function createTicketLinkClient(options: string | null | TicketLinkClientOptions): TicketLinkClient {
  const given = typeof options === "string" || options === null ? { link: options } : options;
  const { request } = createLinkTransport(given, LINK_KIND);
  return {
    get: (call) => request<Ticket>("GET", "", call),
    update: (input, call) => request<Ticket>("PUT", "", { body: input, ...call }),
    cancel: (call) => request<Ticket>("POST", "/cancel", call),
    calendar: (call) => request<string>("GET", "/calendar.ics", { textOf: "text/calendar", ...call }),
    checkout: (call) => request<Result<"ticket.checkout">>("POST", "/checkout", call),
  };
}
