import type { Door, DoorScan, DoorSearch, OfflineList } from "@event-service/core";
import type { OperationResult as Result } from "./client.ts";
import type { RetryOptions } from "./retry.ts";
import { createLinkTransport, type LinkKindOfClient } from "./link-transport.ts";
import type { CallOptions } from "./transport.ts";

export type { Door, DoorScan, DoorSearch, OfflineList } from "@event-service/core";

/** Options of {@link createCheckInLinkClient}. */
export interface CheckInLinkClientOptions {
  /**
   * The check-in link's `url` as its creation answered it, e.g.
   * `https://events.example.com/v1/check-in/chk_…`: the door's only credential (no API key).
   * `null` (what lists and replays show) is refused with a `TypeError`: make a new link.
   */
  link: string | null;
  /** Retrying `429` and `503` answers (and `409 IDEMPOTENCY_KEY_IN_USE`); `false` turns it off. */
  retry?: RetryOptions | false;
  /**
   * Send a generated `Idempotency-Key` with every scan that has none, so a retried scan is
   * answered once (the service keeps a door's keys under its link). Default true.
   */
  idempotencyKeys?: boolean;
  /** Time-out of one attempt in ms. Default 30 s. */
  timeoutMs?: number;
  /** A fetch implementation; default the global one. */
  fetch?: typeof globalThis.fetch;
}

/** The client {@link createCheckInLinkClient} returns. */
export interface CheckInLinkClient {
  /** The door's event, its label, whether the door is open, and the counts checked in and expected. */
  get(call?: CallOptions): Promise<Result<"door.view">>;
  /**
   * Scans a ticket: its confirmation code in any case and spacing, or its QR code's content.
   * Always answers (never throws) for a person's code: `result` says what it came to. Pass the
   * same `idempotencyKey` when sending a scan again (an offline queue), and it counts once.
   * `{ attendeeId }` instead checks in a registration found by name (`search`).
   */
  scan(code: string | { attendeeId: string }, call?: CallOptions): Promise<Result<"door.scan">>;
  /** Undoes a check-in of the door's event (`422 INVALID_STATE_TRANSITION` when not checked in). */
  undo(attendeeId: string, call?: CallOptions): Promise<Result<"door.undo">>;
  /** The event's registrations whose name holds `search` (none under 2 characters), at most 20. */
  search(search: string, call?: CallOptions): Promise<Result<"door.search">>;
  /** Every registration of the event as an offline door decides from it (codes as hashes). */
  offlineList(call?: CallOptions): Promise<Result<"door.offlineList">>;
}

/** A check-in link as its client checks it. */
const LINK_KIND: LinkKindOfClient = {
  factory: "createCheckInLinkClient",
  segment: "check-in",
  name: "the check-in link's url",
  example: "https://events.example.com/v1/check-in/chk_…",
  missing:
    "a check-in link's url is shown in its create answer only (null in lists and replays); make a new one with events.checkInLinks.create.",
};

/**
 * Creates a client of one door's check-in link, for a door's app or page, with the link as the
 * only credential: pass its `url`, or options with it as `link`. Errors, retries and
 * `Idempotency-Key`s are {@link createClient}'s: an unknown, revoked or expired link is `404
 * NOT_FOUND`, and a person's ticket is never an error (the scan's `result` says what is wrong).
 *
 * @example
 * const door = createCheckInLinkClient("https://events.example.com/v1/check-in/chk_…");
 * const { result, attendee } = await door.scan("EVT-7KQ2-M9XH");
 */
export function createCheckInLinkClient(options: string | null | CheckInLinkClientOptions): CheckInLinkClient {
  const given = typeof options === "string" || options === null ? { link: options } : options;
  const { request } = createLinkTransport(given, LINK_KIND);
  return {
    get: (call) => request<Door>("GET", "", call),
    scan: (code, call) =>
      request<DoorScan>("POST", "/scan", { body: typeof code === "string" ? { code } : code, ...call }),
    undo: (attendeeId, call) => request<DoorScan>("DELETE", `/scan/${encodeURIComponent(attendeeId)}`, call),
    search: (search, call) => request<DoorSearch>("GET", "/attendees", { query: { search }, ...call }),
    offlineList: (call) => request<OfflineList>("GET", "/offline-list", call),
  };
}
