import type { Activity, DeleteResult, ListResult, VendorAnswerInput, VendorRequest } from "@event-service/core";
import type { ActivityListParams, OperationBody as Body, OperationResult as Result } from "./client.ts";
import type { RetryOptions } from "./retry.ts";
import { createLinkTransport, type LinkKindOfClient } from "./link-transport.ts";
import type { CallOptions } from "./transport.ts";

export type { VendorActivityInput, VendorActivityUpdateInput } from "@event-service/core";

/** Options of {@link createVendorLinkClient}. */
export interface VendorLinkClientOptions {
  /**
   * The booking's `vendorLink` as the organiser was given it, e.g.
   * `https://events.example.com/v1/vendor-requests/vrq_…`: the link is the vendor's only
   * credential (no API key). `null` (what a replayed booking answer shows) is refused with a
   * `TypeError`: rotate the link for a new one.
   */
  link: string | null;
  /** Retrying `429` and `503` answers (and `409 IDEMPOTENCY_KEY_IN_USE`); `false` turns it off. */
  retry?: RetryOptions | false;
  /**
   * Send a generated `Idempotency-Key` with every `POST` that has none, so a retried call never
   * records twice (the service keeps a link's keys under its booking, apart from the account's).
   * Default true. Without one, a `POST` is never retried; `false` also makes a bare `confirm()` or
   * `decline()` a request a browser sends without a preflight.
   */
  idempotencyKeys?: boolean;
  /** Time-out of one attempt in ms. Default 30 s. */
  timeoutMs?: number;
  /** A fetch implementation; default the global one. */
  fetch?: typeof globalThis.fetch;
}

/**
 * The vendor's own activity records of the event: only the kinds the booking asks for
 * (`dataRequested`), once the booking is confirmed and until 30 days after the event ends
 * (`dataAcceptedUntil`); each is recorded with the vendor's id and priced like the organiser's.
 */
export interface VendorLinkActivitiesResource {
  /**
   * Records one activity: `400 INVALID_REQUEST` naming `kind` for a kind the booking does not
   * ask for, `422 INVALID_STATE_TRANSITION` before confirmation, once declined, or after the data window.
   */
  create(input: Body<"link.activities.create">, call?: CallOptions): Promise<Result<"link.activities.create">>;
  /** One page of the records made through this link, oldest first (once the booking is confirmed). */
  list(query?: ActivityListParams, call?: CallOptions): Promise<Result<"link.activities.list">>;
  /** Every record made through this link, fetched page by page as you iterate. */
  listAll(query?: ActivityListParams, call?: CallOptions): AsyncGenerator<Activity, void, undefined>;
  /** A partial update of one of this link's records, checked whole; the kind cannot change. */
  update(
    activityId: string,
    input: Body<"link.activities.update">,
    call?: CallOptions,
  ): Promise<Result<"link.activities.update">>;
  delete(activityId: string, call?: CallOptions): Promise<Result<"link.activities.delete">>;
}

/** The client {@link createVendorLinkClient} returns. */
export interface VendorLinkClient {
  /** What the organiser asks: the booking's services and requested data, the event's name, dates and place. */
  get(call?: CallOptions): Promise<Result<"link.view">>;
  /** Accepts the booking, with an optional message to the organiser; the answer shows it `confirmed`. */
  confirm(input?: Body<"link.confirm">, call?: CallOptions): Promise<Result<"link.confirm">>;
  /** Declines the booking, with an optional message; the link then still shows it and refuses records. */
  decline(input?: Body<"link.decline">, call?: CallOptions): Promise<Result<"link.decline">>;
  activities: VendorLinkActivitiesResource;
}

/** A vendor's link as its client checks it. */
const LINK_KIND: LinkKindOfClient = {
  factory: "createVendorLinkClient",
  segment: "vendor-requests",
  name: "the booking's vendorLink",
  example: "https://events.example.com/v1/vendor-requests/vrq_…",
  missing:
    "a replayed booking answer shows vendorLink null (the link is shown once); rotate it with bookings.rotateLink for a new one.",
};

/**
 * Creates a client of one vendor link, for the vendor's own use: in its browser or its systems,
 * with the link as the only credential. Its calls send no header beyond `accept`, a JSON body's
 * `content-type` and a `POST`'s `Idempotency-Key`, all of which a service started with CORS
 * origins allows from a browser. Errors, retries and `Idempotency-Key`s are
 * {@link createClient}'s: every failure is an {@link EventServiceError}; an unknown, rotated or
 * cancelled link is `404 NOT_FOUND`.
 *
 * @example
 * const vendor = createVendorLinkClient({ link: "https://events.example.com/v1/vendor-requests/vrq_…" });
 * const request = await vendor.get();
 * await vendor.confirm({ message: "Happy to cater, see you there." });
 * await vendor.activities.create({ kind: "catering", quantity: 120, unit: "meals", mealType: "vegan" });
 */
export function createVendorLinkClient(options: VendorLinkClientOptions): VendorLinkClient {
  const { request, walk } = createLinkTransport(options, LINK_KIND);
  const id = (value: string) => encodeURIComponent(value);
  // No body unless one is given: a bare POST is the simplest request a browser can send.
  const answer = (path: string, input: VendorAnswerInput | undefined, call: CallOptions | undefined) =>
    request<VendorRequest>("POST", path, { ...(input !== undefined && { body: input }), ...call });

  return {
    get: (call) => request<VendorRequest>("GET", "", call),
    confirm: (input, call) => answer("/confirm", input, call),
    decline: (input, call) => answer("/decline", input, call),
    activities: {
      create: (input, call) => request<Activity>("POST", "/activities", { body: input, ...call }),
      list: (query = {}, call) => request<ListResult<"activities", Activity>>("GET", "/activities", { query, ...call }),
      listAll: (query = {}, call) => walk<"activities", Activity>("activities", "/activities", query, call),
      update: (activityId, input, call) =>
        request<Activity>("PUT", `/activities/${id(activityId)}`, { body: input, ...call }),
      delete: (activityId, call) => request<DeleteResult>("DELETE", `/activities/${id(activityId)}`, call),
    },
  };
}
