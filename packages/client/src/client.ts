import type {
  AccountPaymentSettings,
  CheckInLink,
  Activity,
  Attendee,
  Booking,
  BookingWithLink,
  CreatedWebhook,
  DeleteResult,
  EmissionFactorSetResponse,
  Event,
  EventAnalytics,
  ListResult,
  RotatedWebhook,
  SustainabilityReport,
  Threshold,
  TrendReport,
  Vendor,
  Webhook,
  WebhookDelivery,
  SustainabilityReportDocument,
  OperationTypes,
} from "@event-service/core";
import type { RetryOptions } from "./retry.ts";
import { type CallOptions, createTransport } from "./transport.ts";

export type { CallOptions } from "./transport.ts";

/** Options of {@link createClient}. */
export interface ClientOptions {
  /** The service's address, e.g. `https://events.example.com` (the client adds `/v1`). */
  baseUrl: string;
  /** An API key (`esk_…`), sent as `Authorization: Bearer`. */
  apiKey: string;
  /** Retrying `429` and `503` answers (and `409 IDEMPOTENCY_KEY_IN_USE`); `false` turns it off. */
  retry?: RetryOptions | false;
  /**
   * Send a generated `Idempotency-Key` with every `POST` that has none, so a retried create
   * never creates twice. Default true. Without one, a `POST` is never retried.
   */
  idempotencyKeys?: boolean;
  /** Time-out of one attempt in ms. Default 30 s. */
  timeoutMs?: number;
  /** A fetch implementation; default the global one. */
  fetch?: typeof globalThis.fetch;
}

/**
 * A query-string value as a call takes it: numbers and booleans are sent as text (so their text,
 * e.g. read from a URL, is taken too), a list comma-separated.
 */
type ParamValue<T> = T extends readonly (infer E)[]
  ? E[] | string
  : T extends number
    ? number | string
    : T extends boolean
      ? boolean | "true" | "false"
      : T;

/** The body an operation takes, its query as the service parses it, and its answer: from core's definition of the operation, by its id. */
type Body<K extends keyof OperationTypes> = OperationTypes[K]["body"];
type Query<K extends keyof OperationTypes> = OperationTypes[K]["query"];
type Result<K extends keyof OperationTypes> = OperationTypes[K]["result"];
export type { Body as OperationBody, Result as OperationResult };

/** A call's query parameters, named and typed after the service's query schema. */
export type QueryParams<Q> = { [K in keyof Q]?: ParamValue<Q[K]> };
/** A list call's query parameters, named and typed after the service's list schema. */
export type ListParams<Q> = QueryParams<Q> & { perPage?: number };

export type EventListParams = ListParams<Query<"events.list">>;
export type ActivityListParams = ListParams<Query<"activities.list">>;
export type AttendeeListParams = ListParams<Query<"attendees.list">>;
/** Query of `events.checkInLinks.list`: paging only. */
export type CheckInLinkListParams = ListParams<Query<"events.listCheckInLinks">>;
/** Query of `attendees.export`: `format`, `csv` (default) or `ndjson`. */
export type AttendeeExportParams = QueryParams<Query<"attendees.export">>;
export type WebhookListParams = ListParams<Query<"webhooks.list">>;
export type DeliveryListParams = ListParams<Query<"webhooks.deliveries">>;
export type ThresholdListParams = ListParams<Query<"thresholds.list">>;
/** Query of `vendors.list`: `category`, `search` (part of the name) and paging. */
export type VendorListParams = ListParams<Query<"vendors.list">>;
/** Query of `bookings.list`: `status` and paging. */
export type BookingListParams = ListParams<Query<"bookings.list">>;
/** Query of `analytics.sustainability`: `startDate`, `endDate`, `eventIds` (a list, or comma-separated), `granularity`. */
export type SustainabilityParams = QueryParams<Query<"analytics.sustainability">>;
/** Query of `analytics.trends`: `metric`, `startDate`, `endDate`, `granularity`, `category`, `includeBenchmark`. */
export type TrendParams = QueryParams<Query<"analytics.trends">>;
/** Query of `analytics.emissionFactors`: `year` (the set that prices an event starting in it; default: the latest set). */
export type EmissionFactorsParams = QueryParams<Query<"analytics.emissionFactors">>;

/** An event's check-in links: each opens the event's door without an API key ({@link createCheckInLinkClient}). */
export interface CheckInLinksResource {
  /** Makes a link (optional `label` and `expiresAt`); its `url` is in this answer only (null in lists and replays). */
  create(
    eventId: string,
    input?: Body<"events.createCheckInLink">,
    call?: CallOptions,
  ): Promise<Result<"events.createCheckInLink">>;
  /** One page of the event's links, oldest first, without their url. */
  list(eventId: string, query?: CheckInLinkListParams, call?: CallOptions): Promise<Result<"events.listCheckInLinks">>;
  /** Revokes a link: it answers `404` from the next request on. */
  revoke(eventId: string, linkId: string, call?: CallOptions): Promise<Result<"events.revokeCheckInLink">>;
}

/** Events of the caller's account. */
export interface EventsResource {
  /** Creates an event (a draft). */
  create(input: Body<"events.create">, call?: CallOptions): Promise<Result<"events.create">>;
  get(eventId: string, call?: CallOptions): Promise<Result<"events.get">>;
  /** A partial update; `status` follows the event status rules. */
  update(eventId: string, input: Body<"events.update">, call?: CallOptions): Promise<Result<"events.update">>;
  /** Deletes the event and its registrations. */
  delete(eventId: string, call?: CallOptions): Promise<Result<"events.delete">>;
  /** One page of events. */
  list(query?: EventListParams, call?: CallOptions): Promise<Result<"events.list">>;
  /** Every event the query matches, fetched page by page as you iterate. */
  listAll(query?: EventListParams, call?: CallOptions): AsyncGenerator<Event, void, undefined>;
  /** Checks a registration in by its confirmation code (what its QR code holds). */
  checkIn(eventId: string, input: Body<"events.checkIn">, call?: CallOptions): Promise<Result<"events.checkIn">>;
  /** Undoes a mistaken check-in: the registration goes back to `confirmed`. */
  undoCheckIn(eventId: string, attendeeId: string, call?: CallOptions): Promise<Result<"events.undoCheckIn">>;
  /** The event's check-in links, for its door staff. */
  checkInLinks: CheckInLinksResource;
  /** The event's sustainability report: footprint by kind and scope, waste, energy, travel, goals and every factor used. */
  sustainabilityReport(eventId: string, call?: CallOptions): Promise<Result<"analytics.report">>;
  /** The same report as a printable HTML page (self-contained: inline SVG charts, no script, nothing from another origin). */
  sustainabilityReportPage(eventId: string, call?: CallOptions): Promise<string>;
}

/** Registrations of the caller's account. */
export interface AttendeesResource {
  /**
   * Registers an attendee (confirmed). The answer's `ticketUrl` is the attendee's own link
   * ({@link createTicketLinkClient}), shown here only: null in every other answer and in a replay.
   */
  register(input: Body<"attendees.register">, call?: CallOptions): Promise<Result<"attendees.register">>;
  /** A new ticket link for the attendee (`ticketUrl` in the answer, shown there only); every older one stops working. */
  ticketLink(attendeeId: string, call?: CallOptions): Promise<Result<"attendees.ticketLink">>;
  get(attendeeId: string, call?: CallOptions): Promise<Result<"attendees.get">>;
  /** A partial update; `status` follows the registration status rules. */
  update(attendeeId: string, input: Body<"attendees.update">, call?: CallOptions): Promise<Result<"attendees.update">>;
  /** One page of registrations. */
  list(query?: AttendeeListParams, call?: CallOptions): Promise<Result<"attendees.list">>;
  /** Every registration the query matches, fetched page by page as you iterate. */
  listAll(query?: AttendeeListParams, call?: CallOptions): AsyncGenerator<Attendee, void, undefined>;
  /**
   * Erases a registration: its personal data leaves the service (stored webhook payloads
   * included), an active one frees its place, and `attendee.deleted` is sent.
   */
  delete(attendeeId: string, call?: CallOptions): Promise<Result<"attendees.delete">>;
  /**
   * Every registration of the event, in registration order, as the service streams it: CSV
   * (default; a header row, RFC 4180) or NDJSON (one attendee a line). Resolves once the answer's
   * headers arrive, with the body as a web `ReadableStream` of bytes to read at your pace; an
   * error answer (an unknown event, a bad format) rejects with an {@link EventServiceError}.
   *
   * @example
   * const csv = await client.attendees.export(event.id);
   * await pipeline(Readable.fromWeb(csv), createWriteStream("attendees.csv"));
   */
  export(eventId: string, query?: AttendeeExportParams, call?: CallOptions): Promise<ReadableStream<Uint8Array>>;
  /**
   * Records money taken by hand for a priced registration (at the door, by bank transfer); paid
   * in full, it is `confirmed`. Needs `payments:write`.
   *
   * @example
   * await client.attendees.pay(attendee.id, { amount: 4500, method: "bank_transfer", reference: "INV-1042" });
   */
  pay(attendeeId: string, input: Body<"attendees.pay">, call?: CallOptions): Promise<Result<"attendees.pay">>;
  /** Refunds part (`amount`) or all of what the registration paid, through the provider it was paid with. Needs `payments:write`. */
  refund(attendeeId: string, input?: Body<"attendees.refund">, call?: CallOptions): Promise<Result<"attendees.refund">>;
}

/** The account's payment settings. */
export interface PaymentsResource {
  /** The deployment's provider and hold, and the account's own Stripe account. Needs `payments:read`. */
  settings(call?: CallOptions): Promise<Result<"payments.settings">>;
  /**
   * Links (or with `null` unlinks) the account's own Stripe account, for Connect direct charges.
   * Needs `payments:write`.
   *
   * @example
   * await client.payments.updateSettings({ stripeAccountId: "acct_1Nv0FGQ9RKHgCVdK" });
   */
  updateSettings(
    input: Body<"payments.updateSettings">,
    call?: CallOptions,
  ): Promise<Result<"payments.updateSettings">>;
}

/** Webhooks of the caller's account. */
export interface WebhooksResource {
  /** Registers a webhook; the answer is the only one that shows its signing secret. */
  create(input: Body<"webhooks.create">, call?: CallOptions): Promise<Result<"webhooks.create">>;
  get(webhookId: string, call?: CallOptions): Promise<Result<"webhooks.get">>;
  /** A partial update; `active: true` re-enables a disabled webhook. */
  update(webhookId: string, input: Body<"webhooks.update">, call?: CallOptions): Promise<Result<"webhooks.update">>;
  delete(webhookId: string, call?: CallOptions): Promise<Result<"webhooks.delete">>;
  /** One page of webhooks (never their secrets). */
  list(query?: WebhookListParams, call?: CallOptions): Promise<Result<"webhooks.list">>;
  /** Every webhook the query matches, fetched page by page as you iterate. */
  listAll(query?: WebhookListParams, call?: CallOptions): AsyncGenerator<Webhook, void, undefined>;
  /** One page of the webhook's delivery log (notifications with every attempt), newest first. */
  deliveries(webhookId: string, query?: DeliveryListParams, call?: CallOptions): Promise<Result<"webhooks.deliveries">>;
  /** Every delivery of the webhook the query matches, page by page. */
  allDeliveries(
    webhookId: string,
    query?: DeliveryListParams,
    call?: CallOptions,
  ): AsyncGenerator<WebhookDelivery, void, undefined>;
  /** Queues one more attempt of a delivery, with the same envelope, due now. */
  redeliver(webhookId: string, deliveryId: string, call?: CallOptions): Promise<Result<"webhooks.redeliver">>;
  /** Sends a signed `webhook.ping` now; the answer holds the attempt's result. */
  ping(webhookId: string, call?: CallOptions): Promise<Result<"webhooks.ping">>;
  /** Gives the webhook a new signing secret, shown this once; the previous one keeps signing beside it for 24 hours. */
  rotateSecret(webhookId: string, call?: CallOptions): Promise<Result<"webhooks.rotateSecret">>;
}

/**
 * Configured metric thresholds of the caller's account: crossing one sends
 * `analytics.threshold_exceeded` (once per crossing). Reading needs `events:read` or
 * `analytics:read`, changing `events:write`.
 */
export interface ThresholdsResource {
  /** Configures a threshold for one event (`eventId`) or every event of the account (`eventId` null or left out). */
  create(input: Body<"thresholds.create">, call?: CallOptions): Promise<Result<"thresholds.create">>;
  get(thresholdId: string, call?: CallOptions): Promise<Result<"thresholds.get">>;
  /** A partial update; a changed threshold is judged afresh at its metric's next change. */
  update(
    thresholdId: string,
    input: Body<"thresholds.update">,
    call?: CallOptions,
  ): Promise<Result<"thresholds.update">>;
  delete(thresholdId: string, call?: CallOptions): Promise<Result<"thresholds.delete">>;
  /** One page of the account's thresholds, newest first. */
  list(query?: ThresholdListParams, call?: CallOptions): Promise<Result<"thresholds.list">>;
  /** Every threshold of the account, fetched page by page as you iterate. */
  listAll(query?: ThresholdListParams, call?: CallOptions): AsyncGenerator<Threshold, void, undefined>;
}

/** Read-only analytics of the caller's account. */
export interface AnalyticsResource {
  /** Footprint, waste, energy, adoption, certifications, trend buckets and summary statistics. */
  sustainability(query?: SustainabilityParams, call?: CallOptions): Promise<Result<"analytics.sustainability">>;
  /** One event's attendance, demographics, sustainability, engagement, financial and feedback figures. */
  event(eventId: string, call?: CallOptions): Promise<Result<"analytics.event">>;
  /** A metric over time with statistics, an optional industry benchmark, insights and recommendations. */
  trends(query?: TrendParams, call?: CallOptions): Promise<Result<"analytics.trends">>;
  /** The emission factor set of a year (default: the latest set): name, year, source, each mode's factor (by distance band) and unit, the activity factors. */
  emissionFactors(query?: EmissionFactorsParams, call?: CallOptions): Promise<Result<"analytics.emissionFactors">>;
}

/**
 * Activity records of the caller's events: what an event used, burned, served, shipped and
 * threw away, each priced with the service's factor set (`emissionsKg`, `factor`, `scope`).
 *
 * @example
 * const diesel = await client.activities.create(event.id, { kind: "fuel", quantity: 400, unit: "litres", fuel: "diesel" });
 * console.log(diesel.emissionsKg, diesel.factor?.source);
 */
export interface ActivitiesResource {
  /** Records an activity of the event (one kind, its unit and qualifiers). */
  create(eventId: string, input: Body<"activities.create">, call?: CallOptions): Promise<Result<"activities.create">>;
  get(eventId: string, activityId: string, call?: CallOptions): Promise<Result<"activities.get">>;
  /** A partial update, checked whole; the kind cannot change. */
  update(
    eventId: string,
    activityId: string,
    input: Body<"activities.update">,
    call?: CallOptions,
  ): Promise<Result<"activities.update">>;
  delete(eventId: string, activityId: string, call?: CallOptions): Promise<Result<"activities.delete">>;
  /** One page of the event's activities, oldest first. */
  list(eventId: string, query?: ActivityListParams, call?: CallOptions): Promise<Result<"activities.list">>;
  /** Every activity of the event, fetched page by page as you iterate. */
  listAll(eventId: string, query?: ActivityListParams, call?: CallOptions): AsyncGenerator<Activity, void, undefined>;
}

/**
 * The suppliers of the caller's account (caterers, venues, transport…), with where they operate
 * from and the certifications they hold: what an event's local-sourcing and certified shares are
 * measured by. Reading needs `vendors:read`, changing `vendors:write`.
 *
 * @example
 * const caterer = await client.vendors.create({ name: "Green Fork", category: "catering",
 *   location: { city: "Potsdam", country: "DE", coordinates: { lat: 52.39, lng: 13.06 } },
 *   certifications: [{ scheme: "ISO 20121" }] });
 */
export interface VendorsResource {
  create(input: Body<"vendors.create">, call?: CallOptions): Promise<Result<"vendors.create">>;
  get(vendorId: string, call?: CallOptions): Promise<Result<"vendors.get">>;
  /** A partial update; a given `contact` or `location` replaces the stored one whole, `null` clears it. */
  update(vendorId: string, input: Body<"vendors.update">, call?: CallOptions): Promise<Result<"vendors.update">>;
  /** Deletes the vendor; `409 VENDOR_IN_USE` while one of its bookings is requested or confirmed. */
  delete(vendorId: string, call?: CallOptions): Promise<Result<"vendors.delete">>;
  /** One page of the account's vendors. */
  list(query?: VendorListParams, call?: CallOptions): Promise<Result<"vendors.list">>;
  /** Every vendor the query matches, fetched page by page as you iterate. */
  listAll(query?: VendorListParams, call?: CallOptions): AsyncGenerator<Vendor, void, undefined>;
}

/**
 * An event's vendor bookings: booking a vendor asks it, through its own link (`vendorLink`, no
 * API key: hand it to {@link createVendorLinkClient}), to confirm or decline and to report the
 * activity records named in `dataRequested`. Reading needs `vendors:read`, changing
 * `vendors:write`.
 *
 * @example
 * const booking = await client.bookings.create(event.id, { vendorId: caterer.id, services: "Lunch for 300", dataRequested: ["catering"] });
 * sendToVendor(booking.vendorLink);
 */
export interface BookingsResource {
  /** Books a vendor for the event (`requested`); the answer is one of the two that show `vendorLink`. */
  create(eventId: string, input: Body<"bookings.create">, call?: CallOptions): Promise<Result<"bookings.create">>;
  /** One page of the event's bookings. */
  list(eventId: string, query?: BookingListParams, call?: CallOptions): Promise<Result<"bookings.list">>;
  /** Every booking of the event the query matches, fetched page by page as you iterate. */
  listAll(eventId: string, query?: BookingListParams, call?: CallOptions): AsyncGenerator<Booking, void, undefined>;
  get(eventId: string, bookingId: string, call?: CallOptions): Promise<Result<"bookings.get">>;
  /** A partial update; `status` follows the booking's rules (`requested` to `confirmed`, `declined` or `cancelled`; `confirmed` to `cancelled`). */
  update(
    eventId: string,
    bookingId: string,
    input: Body<"bookings.update">,
    call?: CallOptions,
  ): Promise<Result<"bookings.update">>;
  /** Gives the booking a new `vendorLink`, shown this once; the previous link answers `404` from now. */
  rotateLink(eventId: string, bookingId: string, call?: CallOptions): Promise<Result<"bookings.rotateLink">>;
}

/** The client {@link createClient} returns. */
export interface EventServiceClient {
  events: EventsResource;
  attendees: AttendeesResource;
  webhooks: WebhooksResource;
  analytics: AnalyticsResource;
  activities: ActivitiesResource;
  thresholds: ThresholdsResource;
  vendors: VendorsResource;
  bookings: BookingsResource;
  payments: PaymentsResource;
}

/**
 * Creates a typed client of one service and API key. Every call returns the service's JSON
 * answer typed after core's schemas, or throws an {@link EventServiceError}. `429` and `503`
 * answers are retried after their `Retry-After` (or with exponential backoff): always for
 * `GET`, `PUT` and `DELETE`, and for a `POST` when it carries an `Idempotency-Key`, which the
 * client generates unless told not to.
 *
 * @example
 * const client = createClient({ baseUrl: "http://127.0.0.1:3000", apiKey: process.env.EVENT_SERVICE_KEY! });
 * const event = await client.events.create({ name: "Green Summit", location: { address: "Alexanderplatz 1", city: "Berlin", country: "DE" },
 *   startDate: "2027-05-01T09:00:00Z", endDate: "2027-05-01T17:00:00Z", capacity: 200, category: "conference" });
 * for await (const attendee of client.attendees.listAll({ eventId: event.id })) console.log(attendee.email);
 */
export function createClient(options: ClientOptions): EventServiceClient {
  const { request, walk } = createTransport({
    baseUrl: `${options.baseUrl.replace(/\/+$/, "")}/v1`,
    headers: { authorization: `Bearer ${options.apiKey}`, accept: "application/json" },
    retry: options.retry,
    idempotencyKeys: options.idempotencyKeys,
    timeoutMs: options.timeoutMs,
    fetch: options.fetch,
  });
  const id = (value: string) => encodeURIComponent(value);

  return {
    events: {
      create: (input, call) => request<Event>("POST", "/events", { body: input, ...call }),
      get: (eventId, call) => request<Event>("GET", `/events/${id(eventId)}`, call),
      update: (eventId, input, call) => request<Event>("PUT", `/events/${id(eventId)}`, { body: input, ...call }),
      delete: (eventId, call) => request<DeleteResult>("DELETE", `/events/${id(eventId)}`, call),
      list: (query = {}, call) => request<ListResult<"events", Event>>("GET", "/events", { query, ...call }),
      listAll: (query = {}, call) => walk<"events", Event>("events", "/events", query, call),
      checkIn: (eventId, input, call) =>
        request<Attendee>("POST", `/events/${id(eventId)}/check-in`, { body: input, ...call }),
      undoCheckIn: (eventId, attendeeId, call) =>
        request<Attendee>("DELETE", `/events/${id(eventId)}/check-in/${id(attendeeId)}`, call),
      checkInLinks: {
        create: (eventId, input = {}, call) =>
          request<CheckInLink>("POST", `/events/${id(eventId)}/check-in-links`, { body: input, ...call }),
        list: (eventId, query = {}, call) =>
          request<ListResult<"checkInLinks", CheckInLink>>("GET", `/events/${id(eventId)}/check-in-links`, {
            query,
            ...call,
          }),
        revoke: (eventId, linkId, call) =>
          request<DeleteResult>("DELETE", `/events/${id(eventId)}/check-in-links/${id(linkId)}`, call),
      },
      sustainabilityReport: (eventId, call) =>
        request<SustainabilityReportDocument>("GET", `/events/${id(eventId)}/sustainability-report`, call),
      sustainabilityReportPage: (eventId, call) =>
        request<string>("GET", `/events/${id(eventId)}/sustainability-report`, { html: true, ...call }),
    },
    attendees: {
      register: (input, call) => request<Attendee>("POST", "/attendees", { body: input, ...call }),
      ticketLink: (attendeeId, call) => request<Attendee>("POST", `/attendees/${id(attendeeId)}/ticket-link`, call),
      get: (attendeeId, call) => request<Attendee>("GET", `/attendees/${id(attendeeId)}`, call),
      update: (attendeeId, input, call) =>
        request<Attendee>("PUT", `/attendees/${id(attendeeId)}`, { body: input, ...call }),
      list: (query = {}, call) => request<ListResult<"attendees", Attendee>>("GET", "/attendees", { query, ...call }),
      listAll: (query = {}, call) => walk<"attendees", Attendee>("attendees", "/attendees", query, call),
      export: (eventId, query = {}, call) =>
        request<ReadableStream<Uint8Array>>("GET", `/events/${id(eventId)}/attendees/export`, {
          query,
          stream: true,
          ...call,
        }),
      delete: (attendeeId, call) => request<DeleteResult>("DELETE", `/attendees/${id(attendeeId)}`, call),
      pay: (attendeeId, input, call) =>
        request<Attendee>("POST", `/attendees/${id(attendeeId)}/payments`, { body: input, ...call }),
      refund: (attendeeId, input = {}, call) =>
        request<Attendee>("POST", `/attendees/${id(attendeeId)}/refunds`, { body: input, ...call }),
    },
    webhooks: {
      create: (input, call) => request<CreatedWebhook>("POST", "/webhooks", { body: input, ...call }),
      get: (webhookId, call) => request<Webhook>("GET", `/webhooks/${id(webhookId)}`, call),
      update: (webhookId, input, call) =>
        request<Webhook>("PUT", `/webhooks/${id(webhookId)}`, { body: input, ...call }),
      delete: (webhookId, call) => request<DeleteResult>("DELETE", `/webhooks/${id(webhookId)}`, call),
      list: (query = {}, call) => request<ListResult<"webhooks", Webhook>>("GET", "/webhooks", { query, ...call }),
      listAll: (query = {}, call) => walk<"webhooks", Webhook>("webhooks", "/webhooks", query, call),
      deliveries: (webhookId, query = {}, call) =>
        request<ListResult<"deliveries", WebhookDelivery>>("GET", `/webhooks/${id(webhookId)}/deliveries`, {
          query,
          ...call,
        }),
      allDeliveries: (webhookId, query = {}, call) =>
        walk<"deliveries", WebhookDelivery>("deliveries", `/webhooks/${id(webhookId)}/deliveries`, query, call),
      redeliver: (webhookId, deliveryId, call) =>
        request<WebhookDelivery>("POST", `/webhooks/${id(webhookId)}/deliveries/${id(deliveryId)}/redeliver`, call),
      ping: (webhookId, call) => request<WebhookDelivery>("POST", `/webhooks/${id(webhookId)}/ping`, call),
      rotateSecret: (webhookId, call) =>
        request<RotatedWebhook>("POST", `/webhooks/${id(webhookId)}/rotate-secret`, call),
    },
    analytics: {
      sustainability: (query = {}, call) =>
        request<SustainabilityReport>("GET", "/analytics/sustainability", { query, ...call }),
      event: (eventId, call) => request<EventAnalytics>("GET", `/analytics/events/${id(eventId)}`, call),
      trends: (query = {}, call) => request<TrendReport>("GET", "/analytics/trends", { query, ...call }),
      emissionFactors: (query = {}, call) =>
        request<EmissionFactorSetResponse>("GET", "/analytics/emission-factors", { query, ...call }),
    },
    activities: {
      create: (eventId, input, call) =>
        request<Activity>("POST", `/events/${id(eventId)}/activities`, { body: input, ...call }),
      get: (eventId, activityId, call) =>
        request<Activity>("GET", `/events/${id(eventId)}/activities/${id(activityId)}`, call),
      update: (eventId, activityId, input, call) =>
        request<Activity>("PUT", `/events/${id(eventId)}/activities/${id(activityId)}`, { body: input, ...call }),
      delete: (eventId, activityId, call) =>
        request<DeleteResult>("DELETE", `/events/${id(eventId)}/activities/${id(activityId)}`, call),
      list: (eventId, query = {}, call) =>
        request<ListResult<"activities", Activity>>("GET", `/events/${id(eventId)}/activities`, { query, ...call }),
      listAll: (eventId, query = {}, call) =>
        walk<"activities", Activity>("activities", `/events/${id(eventId)}/activities`, query, call),
    },
    thresholds: {
      create: (input, call) => request<Threshold>("POST", "/thresholds", { body: input, ...call }),
      get: (thresholdId, call) => request<Threshold>("GET", `/thresholds/${id(thresholdId)}`, call),
      update: (thresholdId, input, call) =>
        request<Threshold>("PUT", `/thresholds/${id(thresholdId)}`, { body: input, ...call }),
      delete: (thresholdId, call) => request<DeleteResult>("DELETE", `/thresholds/${id(thresholdId)}`, call),
      list: (query = {}, call) =>
        request<ListResult<"thresholds", Threshold>>("GET", "/thresholds", { query, ...call }),
      listAll: (query = {}, call) => walk<"thresholds", Threshold>("thresholds", "/thresholds", query, call),
    },
    payments: {
      settings: (call) => request<AccountPaymentSettings>("GET", "/payment-settings", call),
      updateSettings: (input, call) =>
        request<AccountPaymentSettings>("PUT", "/payment-settings", { body: input, ...call }),
    },
    vendors: {
      create: (input, call) => request<Vendor>("POST", "/vendors", { body: input, ...call }),
      get: (vendorId, call) => request<Vendor>("GET", `/vendors/${id(vendorId)}`, call),
      update: (vendorId, input, call) => request<Vendor>("PUT", `/vendors/${id(vendorId)}`, { body: input, ...call }),
      delete: (vendorId, call) => request<DeleteResult>("DELETE", `/vendors/${id(vendorId)}`, call),
      list: (query = {}, call) => request<ListResult<"vendors", Vendor>>("GET", "/vendors", { query, ...call }),
      listAll: (query = {}, call) => walk<"vendors", Vendor>("vendors", "/vendors", query, call),
    },
    bookings: {
      create: (eventId, input, call) =>
        request<BookingWithLink>("POST", `/events/${id(eventId)}/vendors`, { body: input, ...call }),
      list: (eventId, query = {}, call) =>
        request<ListResult<"bookings", Booking>>("GET", `/events/${id(eventId)}/vendors`, { query, ...call }),
      listAll: (eventId, query = {}, call) =>
        walk<"bookings", Booking>("bookings", `/events/${id(eventId)}/vendors`, query, call),
      get: (eventId, bookingId, call) =>
        request<Booking>("GET", `/events/${id(eventId)}/vendors/${id(bookingId)}`, call),
      update: (eventId, bookingId, input, call) =>
        request<Booking>("PUT", `/events/${id(eventId)}/vendors/${id(bookingId)}`, { body: input, ...call }),
      rotateLink: (eventId, bookingId, call) =>
        request<BookingWithLink>("POST", `/events/${id(eventId)}/vendors/${id(bookingId)}/rotate-link`, call),
    },
  };
}
