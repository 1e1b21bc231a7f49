import type * as z from "zod";
import { EventAnalytics } from "../analytics/event-analytics.ts";
import { EmissionFactorSetResponse } from "../carbon/emission-factors.ts";
import { SustainabilityQuery, SustainabilityReport } from "../analytics/sustainability-report.ts";
import { TrendQuery, TrendReport } from "../analytics/trend-report.ts";
import type { ErrorCode } from "../errors.ts";
import {
  Attendee,
  AttendeeCreateInput,
  AttendeeListQuery,
  AttendeeUpdateInput,
  CheckInInput,
} from "../resources/attendee.ts";
import { AttendeeExportQuery, EXPORT_MEDIA_TYPES } from "../export/attendee-export.ts";
import type { Scope } from "../resources/api-key.ts";
import { Activity, ActivityInput, VendorActivityInput } from "../resources/activity.ts";
import { ActivityListQuery, ActivityUpdateInput, VendorActivityUpdateInput } from "../resources/priced-activity.ts";
import { DeleteResult } from "../resources/common.ts";
import { AccountPaymentSettings, PaymentInput, PaymentSettingsInput, RefundInput } from "../resources/payment.ts";
import { SustainabilityReportDocument } from "../analytics/report-document.ts";
import { renderReportPage, REPORT_PAGE_CSP } from "../analytics/report-page.ts";
import { Event, EventCreateInput, EventListQuery, EventUpdateInput } from "../resources/event.ts";
import {
  CreatedWebhook,
  RotatedWebhook,
  Webhook,
  WebhookCreateInput,
  WebhookListQuery,
  WebhookUpdateInput,
} from "../resources/webhook.ts";
import { DeliveryListQuery, WebhookDelivery } from "../resources/webhook-delivery.ts";
import {
  Booking,
  BookingCreateInput,
  BookingListQuery,
  BookingUpdateInput,
  BookingWithLink,
  Vendor,
  VendorAnswerInput,
  VendorCreateInput,
  VendorListQuery,
  VendorRequest,
  VendorUpdateInput,
} from "../resources/vendor.ts";
import { Threshold, ThresholdCreateInput, ThresholdListQuery, ThresholdUpdateInput } from "../resources/threshold.ts";
import type { AccountOperations, VendorLinkOperations } from "../service.ts";
import { listOf } from "./schemas.ts";

/** What a route handler gets, whoever it serves. */
export interface BaseRouteContext {
  request: Request;
  url: URL;
  params: Record<string, string>;
  /** The query string as an object (each parameter once). */
  query: Record<string, string>;
  /**
   * The parsed JSON body (reads and checks the transport on first call), typed as the input of
   * the operation it is handed to, which validates it (`parseInput`) with the route's `body` schema.
   */
  body<T = unknown>(): Promise<T>;
  /** {@link body} of a route whose body is optional: `undefined` for an empty one. */
  optionalBody<T = unknown>(): Promise<T | undefined>;
}

/** What an authenticated route's handler gets: the caller's account operations too. */
export interface RouteContext extends BaseRouteContext {
  account: AccountOperations;
}

/** What a vendor link route's handler gets: the operations of the booking its token opens. */
export interface LinkRouteContext extends BaseRouteContext {
  link: VendorLinkOperations;
}

/** A route's answer: a body for `status`, JSON-encoded (a `ReadableStream` is sent as it is), and headers to add. */
export interface RouteResult {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** What a replay of this answer (Idempotency-Key) shows, where it must differ from `body`: a secret shown once is not kept. */
  replay?: unknown;
}

/**
 * What every API route declares, served under every version prefix. Its schemas are the ones
 * the service validates with, and the OpenAPI document is generated from them.
 */
export interface RouteSpec {
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** Path after the version prefix, rou3 syntax (`/events/:id`). */
  path: string;
  operationId: string;
  summary: string;
  tag:
    | "Events"
    | "Attendees"
    | "Webhooks"
    | "Analytics"
    | "Activities"
    | "Thresholds"
    | "Vendors"
    | "Vendor link"
    | "Payments";
  /** The query schema of a route that takes query parameters; any other route rejects them. */
  query?: z.ZodType;
  /** The JSON body schema. */
  body?: z.ZodType;
  /** The body may be left out (confirm, decline: an optional message). */
  bodyOptional?: true;
  /**
   * Success status and body schema. `media` replaces the JSON body in the document for a route
   * that streams another format: the media types it answers with, each described in words.
   */
  response: {
    status: 200 | 201 | 202;
    schema: z.ZodType;
    name: string;
    description: string;
    media?: Record<string, string>;
    /** With `media`: the route answers JSON as well (by `Accept`), so the document lists both. */
    jsonToo?: boolean;
  };
  /** Errors particular to this route (the ones every route can answer are added by the document). */
  errors: readonly ErrorCode[];
}

/** One API route authenticated by an API key. */
export interface Route extends RouteSpec {
  /** The scope the caller's key must hold. */
  scope: Scope;
  /** Another scope that serves the route too (a threshold is read with `events:read` or `analytics:read`). */
  orScope?: Scope;
  handle(ctx: RouteContext): Promise<RouteResult>;
}

/** One route of a vendor's link (`/vendor-requests/:token/...`): no API key, the token in its path is the capability. */
export interface LinkRoute extends RouteSpec {
  handle(ctx: LinkRouteContext): Promise<RouteResult>;
}

const ok = (body: unknown): RouteResult => ({ status: 200, body });

/**
 * Whether an `Accept` header asks for HTML before JSON: `text/html` listed with a quality above 0
 * and at least that of `application/json` (a browser's header does; `*\/*` alone does not).
 */
export function prefersHtml(accept: string | null): boolean {
  if (!accept) return false;
  const quality = (type: string) => {
    for (const part of accept.split(",")) {
      const [name, ...params] = part.trim().toLowerCase().split(";");
      if (name?.trim() !== type) continue;
      const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
      const value = q === undefined ? 1 : Number(q.slice(2));
      return Number.isFinite(value) ? value : 0;
    }
    return null;
  };
  const html = quality("text/html");
  const json = quality("application/json");
  return html !== null && html > 0 && (json === null || html >= json);
}
const created = (body: unknown): RouteResult => ({ status: 201, body });
/** A booking's answer with its vendor's link, which its replay does not show: the link is kept nowhere in the clear. */
const withLinkShownOnce = (status: number, booking: BookingWithLink): RouteResult => ({
  status,
  body: booking,
  replay: { ...booking, vendorLink: null },
});
const accepted = (body: unknown): RouteResult => ({ status: 202, body });

/** Every authenticated route of the API. */
export const ROUTES: readonly Route[] = [
  {
    method: "POST",
    path: "/events",
    scope: "events:write",
    tag: "Events",
    operationId: "createEvent",
    summary: "Create an event (as a draft)",
    body: EventCreateInput,
    response: { status: 201, schema: Event, name: "Event", description: "The created event" },
    errors: ["INVALID_REQUEST"],
    handle: async (c) => created(await c.account.events.create(await c.body<EventCreateInput>())),
  },
  {
    method: "GET",
    path: "/events",
    scope: "events:read",
    tag: "Events",
    operationId: "listEvents",
    summary: "List events",
    query: EventListQuery,
    response: { status: 200, schema: listOf("events", Event), name: "EventList", description: "One page of events" },
    errors: ["INVALID_REQUEST"],
    handle: async (c) => ok(await c.account.events.list(c.query)),
  },
  {
    method: "GET",
    path: "/events/:id",
    scope: "events:read",
    tag: "Events",
    operationId: "getEvent",
    summary: "Get an event",
    response: { status: 200, schema: Event, name: "Event", description: "The event" },
    errors: ["NOT_FOUND"],
    handle: async (c) => ok(await c.account.events.get(c.params.id!)),
  },
  {
    method: "PUT",
    path: "/events/:id",
    scope: "events:write",
    tag: "Events",
    operationId: "updateEvent",
    summary: "Update an event (partial; status rules apply)",
    body: EventUpdateInput,
    response: { status: 200, schema: Event, name: "Event", description: "The updated event" },
    errors: ["INVALID_REQUEST", "NOT_FOUND", "INVALID_STATE_TRANSITION"],
    handle: async (c) => ok(await c.account.events.update(c.params.id!, await c.body<EventUpdateInput>())),
  },
  {
    method: "DELETE",
    path: "/events/:id",
    scope: "events:write",
    tag: "Events",
    operationId: "deleteEvent",
    summary: "Delete an event and its registrations",
    response: { status: 200, schema: DeleteResult, name: "DeleteResult", description: "The deletion" },
    errors: ["NOT_FOUND"],
    handle: async (c) => ok(await c.account.events.delete(c.params.id!)),
  },
  {
    method: "POST",
    path: "/events/:id/check-in",
    scope: "attendees:write",
    tag: "Events",
    operationId: "checkIn",
    summary: "Check a registration in by its confirmation code (the QR code's content)",
    body: CheckInInput,
    response: { status: 200, schema: Attendee, name: "Attendee", description: "The registration, now checked in" },
    errors: ["INVALID_REQUEST", "NOT_FOUND", "ALREADY_CHECKED_IN", "INVALID_STATE_TRANSITION"],
    handle: async (c) => ok(await c.account.events.checkIn(c.params.id!, await c.body<CheckInInput>())),
  },
  {
    method: "DELETE",
    path: "/events/:id/check-in/:attendeeId",
    scope: "attendees:write",
    tag: "Events",
    operationId: "undoCheckIn",
    summary: "Undo a mistaken check-in: the registration goes back to confirmed",
    response: { status: 200, schema: Attendee, name: "Attendee", description: "The registration, confirmed again" },
    errors: ["NOT_FOUND", "INVALID_STATE_TRANSITION"],
    handle: async (c) => ok(await c.account.events.undoCheckIn(c.params.id!, c.params.attendeeId!)),
  },
  {
    method: "POST",
    path: "/attendees",
    scope: "attendees:write",
    tag: "Attendees",
    operationId: "registerAttendee",
    summary: "Register an attendee",
    body: AttendeeCreateInput,
    response: { status: 201, schema: Attendee, name: "Attendee", description: "The registration, confirmed" },
    errors: ["INVALID_REQUEST", "EVENT_FULL", "NOT_FOUND", "DUPLICATE_REGISTRATION"],
    handle: async (c) => created(await c.account.attendees.register(await c.body<AttendeeCreateInput>())),
  },
  {
    method: "GET",
    path: "/attendees",
    scope: "attendees:read",
    tag: "Attendees",
    operationId: "listAttendees",
    summary: "List registrations",
    query: AttendeeListQuery,
    response: {
      status: 200,
      schema: listOf("attendees", Attendee),
      name: "AttendeeList",
      description: "One page of registrations",
    },
    errors: ["INVALID_REQUEST"],
    handle: async (c) => ok(await c.account.attendees.list(c.query)),
  },
  {
    method: "GET",
    path: "/attendees/:id",
    scope: "attendees:read",
    tag: "Attendees",
    operationId: "getAttendee",
    summary: "Get a registration",
    response: { status: 200, schema: Attendee, name: "Attendee", description: "The registration" },
    errors: ["NOT_FOUND"],
    handle: async (c) => ok(await c.account.attendees.get(c.params.id!)),
  },
  {
    method: "PUT",
    path: "/attendees/:id",
    scope: "attendees:write",
    tag: "Attendees",
    operationId: "updateAttendee",
    summary: "Update a registration (partial; status rules apply)",
    body: AttendeeUpdateInput,
    response: { status: 200, schema: Attendee, name: "Attendee", description: "The updated registration" },
    errors: ["INVALID_REQUEST", "NOT_FOUND", "INVALID_STATE_TRANSITION", "EVENT_FULL", "DUPLICATE_REGISTRATION"],
    handle: async (c) => ok(await c.account.attendees.update(c.params.id!, await c.body<AttendeeUpdateInput>())),
  },
  {
    method: "DELETE",
    path: "/attendees/:id",
    scope: "attendees:write",
    tag: "Attendees",
    operationId: "deleteAttendee",
    summary:
      "Erase a registration: its personal data leaves every table and stored payload; an active one frees its place",
    response: { status: 200, schema: DeleteResult, name: "DeleteResult", description: "The erasure" },
    errors: ["NOT_FOUND"],
    handle: async (c) => ok(await c.account.attendees.delete(c.params.id!)),
  },
  {
    method: "POST",
    path: "/attendees/:id/payments",
    scope: "payments:write",
    tag: "Payments",
    operationId: "recordPayment",
    summary: "Record money taken by hand for a priced registration (at the door, by bank transfer)",
    body: PaymentInput,
    response: { status: 200, schema: Attendee, name: "Attendee", description: "The registration with its payment" },
    errors: ["INVALID_REQUEST", "NOT_FOUND", "INVALID_STATE_TRANSITION"],
    handle: async (c) => ok(await c.account.attendees.pay(c.params.id!, await c.body<PaymentInput>())),
  },
  {
    method: "POST",
    path: "/attendees/:id/refunds",
    scope: "payments:write",
    tag: "Payments",
    operationId: "refundAttendee",
    summary: "Refund part or all of what a registration paid (default: all), through the provider it was paid with",
    body: RefundInput,
    bodyOptional: true,
    response: { status: 200, schema: Attendee, name: "Attendee", description: "The registration with its payment" },
    errors: ["INVALID_REQUEST", "NOT_FOUND"],
    handle: async (c) => ok(await c.account.attendees.refund(c.params.id!, await c.optionalBody<RefundInput>())),
  },
  {
    method: "GET",
    path: "/payment-settings",
    scope: "payments:read",
    tag: "Payments",
    operationId: "getPaymentSettings",
    summary: "The account's payment settings: the deployment's provider and hold, the account's own Stripe account",
    response: { status: 200, schema: AccountPaymentSettings, name: "PaymentSettings", description: "The settings" },
    errors: [],
    handle: async (c) => ok(await c.account.payments.settings()),
  },
  {
    method: "PUT",
    path: "/payment-settings",
    scope: "payments:write",
    tag: "Payments",
    operationId: "updatePaymentSettings",
    summary: "Link (or unlink, with null) the account's own Stripe account, for Connect direct charges",
    body: PaymentSettingsInput,
    response: { status: 200, schema: AccountPaymentSettings, name: "PaymentSettings", description: "The settings" },
    errors: ["INVALID_REQUEST"],
    handle: async (c) => ok(await c.account.payments.updateSettings(await c.body<PaymentSettingsInput>())),
  },
  {
    method: "GET",
    path: "/events/:id/attendees/export",
    scope: "attendees:read",
    tag: "Attendees",
    operationId: "exportAttendees",
    summary: "Export every registration of an event in registration order, streamed, as CSV or NDJSON",
    query: AttendeeExportQuery,
    response: {
      status: 200,
      schema: Attendee,
      name: "Attendee",
      description: "The registrations, streamed as they are read",
      media: {
        "text/csv":
          "A header row, then one row a registration: the fields of Attendee, nested ones flattened with dots (`carbonOffset.opted`), lists joined with `;`, `customFields` as JSON; RFC 4180, CRLF; a cell starting with =, +, -, @, a tab or CR is prefixed with '.",
        "application/x-ndjson": "One Attendee object a line.",
      },
    },
    errors: ["INVALID_REQUEST", "NOT_FOUND"],
    handle: async (c) => {
      const { format, stream } = await c.account.attendees.export(c.params.id!, c.query);
      const headers = {
        "content-type": EXPORT_MEDIA_TYPES[format],
        "content-disposition": `attachment; filename="attendees-${c.params.id}.${format}"`,
        "cache-control": "no-store",
      };
      return { status: 200, body: stream, headers };
    },
  },
  {
    method: "POST",
    path: "/webhooks",
    scope: "webhooks:write",
    tag: "Webhooks",
    operationId: "createWebhook",
    summary: "Register a webhook (the answer is the only one that shows its secret)",
    body: WebhookCreateInput,
    response: {
      status: 201,
      schema: CreatedWebhook,
      name: "CreatedWebhook",
      description: "The webhook with its secret",
    },
    errors: ["INVALID_REQUEST", "INVALID_URL", "INVALID_EVENT_TYPE", "DUPLICATE_WEBHOOK"],
    handle: async (c) => created(await c.account.webhooks.create(await c.body<WebhookCreateInput>())),
  },
  {
    method: "GET",
    path: "/webhooks",
    scope: "webhooks:read",
    tag: "Webhooks",
    operationId: "listWebhooks",
    summary: "List webhooks (never their secrets)",
    query: WebhookListQuery,
    response: {
      status: 200,
      schema: listOf("webhooks", Webhook),
      name: "WebhookList",
      description: "One page of webhooks",
    },
    errors: ["INVALID_REQUEST"],
    handle: async (c) => ok(await c.account.webhooks.list(c.query)),
  },
  {
    method: "GET",
    path: "/webhooks/:id",
    scope: "webhooks:read",
    tag: "Webhooks",
    operationId: "getWebhook",
    summary: "Get a webhook",
    response: { status: 200, schema: Webhook, name: "Webhook", description: "The webhook" },
    errors: ["NOT_FOUND"],
    handle: async (c) => ok(await c.account.webhooks.get(c.params.id!)),
  },
  {
    method: "PUT",
    path: "/webhooks/:id",
    scope: "webhooks:write",
    tag: "Webhooks",
    operationId: "updateWebhook",
    summary: "Update a webhook (partial; active: true re-enables it and resets its failure count)",
    body: WebhookUpdateInput,
    response: { status: 200, schema: Webhook, name: "Webhook", description: "The updated webhook" },
    errors: ["INVALID_REQUEST", "NOT_FOUND", "INVALID_URL", "INVALID_EVENT_TYPE", "DUPLICATE_WEBHOOK"],
    handle: async (c) => ok(await c.account.webhooks.update(c.params.id!, await c.body<WebhookUpdateInput>())),
  },
  {
    method: "DELETE",
    path: "/webhooks/:id",
    scope: "webhooks:write",
    tag: "Webhooks",
    operationId: "deleteWebhook",
    summary: "Remove a webhook",
    response: { status: 200, schema: DeleteResult, name: "DeleteResult", description: "The deletion" },
    errors: ["NOT_FOUND"],
    handle: async (c) => ok(await c.account.webhooks.delete(c.params.id!)),
  },
  {
    method: "GET",
    path: "/analytics/sustainability",
    scope: "analytics:read",
    tag: "Analytics",
    operationId: "getSustainabilityAnalytics",
    summary:
      "Sustainability metrics across the account's events: footprint, waste, energy, adoption, certifications, trend, summary",
    query: SustainabilityQuery,
    response: {
      status: 200,
      schema: SustainabilityReport,
      name: "SustainabilityReport",
      description: "The sustainability report",
    },
    errors: ["INVALID_REQUEST", "INVALID_DATE_RANGE", "NOT_FOUND"],
    handle: async (c) => ok(await c.account.analytics.sustainability(c.query)),
  },
  {
    method: "GET",
    path: "/analytics/events/:id",
    scope: "analytics:read",
    tag: "Analytics",
    operationId: "getEventAnalytics",
    summary: "Analytics of one event: attendance, demographics, sustainability, engagement, financial, feedback",
    response: { status: 200, schema: EventAnalytics, name: "EventAnalytics", description: "The event's analytics" },
    errors: ["NOT_FOUND"],
    handle: async (c) => ok(await c.account.analytics.event(c.params.id!)),
  },
  {
    method: "GET",
    path: "/events/:id/sustainability-report",
    scope: "events:read",
    tag: "Events",
    operationId: "getSustainabilityReport",
    summary:
      "The event's sustainability report: JSON, or with Accept: text/html a printable page (inline SVG charts, the methodology and every factor)",
    response: {
      status: 200,
      schema: SustainabilityReportDocument,
      name: "SustainabilityReportDocument",
      description: "The report (JSON unless the request's Accept prefers text/html)",
      jsonToo: true,
      media: {
        "text/html":
          "A printable HTML page of the same figures, loading nothing from another origin (Content-Security-Policy default-src 'none').",
      },
    },
    errors: ["NOT_FOUND"],
    handle: async (c) => {
      const report = await c.account.analytics.report(c.params.id!);
      if (!prefersHtml(c.request.headers.get("accept")))
        return { status: 200, body: report, headers: { vary: "accept" } };
      const page = new TextEncoder().encode(renderReportPage(report));
      const headers = {
        "content-type": "text/html; charset=utf-8",
        // frame-ancestors holds in a header only (a meta tag cannot carry it).
        "content-security-policy": `${REPORT_PAGE_CSP}; frame-ancestors 'none'`,
        "cache-control": "no-store",
        vary: "accept",
      };
      return { status: 200, body: new Blob([page]).stream(), headers };
    },
  },
  {
    method: "GET",
    path: "/analytics/trends",
    scope: "analytics:read",
    tag: "Analytics",
    operationId: "getTrendAnalytics",
    summary:
      "Trend of one metric over time: data points, statistics, benchmark comparison, insights and recommendations",
    query: TrendQuery,
    response: { status: 200, schema: TrendReport, name: "TrendReport", description: "The trend analysis" },
    errors: ["INVALID_REQUEST", "INVALID_DATE_RANGE", "INSUFFICIENT_DATA"],
    handle: async (c) => ok(await c.account.analytics.trends(c.query)),
  },
  {
    method: "GET",
    path: "/analytics/emission-factors",
    scope: "analytics:read",
    tag: "Analytics",
    operationId: "getEmissionFactors",
    summary:
      "The travel emission factor set in use: name, year, source, each travel mode's factor (by distance band) and unit",
    response: {
      status: 200,
      schema: EmissionFactorSetResponse,
      name: "EmissionFactorSet",
      description: "The factor set every emission figure is computed with",
    },
    errors: [],
    handle: async (c) => ok(c.account.analytics.emissionFactors()),
  },
  {
    method: "GET",
    path: "/webhooks/:id/deliveries",
    scope: "webhooks:read",
    tag: "Webhooks",
    operationId: "listWebhookDeliveries",
    summary: "The delivery log: notifications sent to the webhook with every attempt, newest first",
    query: DeliveryListQuery,
    response: {
      status: 200,
      schema: listOf("deliveries", WebhookDelivery),
      name: "WebhookDeliveryList",
      description: "One page of deliveries",
    },
    errors: ["INVALID_REQUEST", "NOT_FOUND"],
    handle: async (c) => ok(await c.account.webhooks.deliveries(c.params.id!, c.query)),
  },
  {
    method: "POST",
    path: "/webhooks/:id/deliveries/:deliveryId/redeliver",
    scope: "webhooks:write",
    tag: "Webhooks",
    operationId: "redeliverWebhookDelivery",
    summary: "Queue one more attempt of a delivery, with the same envelope, due now",
    response: {
      status: 202,
      schema: WebhookDelivery,
      name: "WebhookDelivery",
      description: "The delivery, pending again",
    },
    errors: ["NOT_FOUND"],
    handle: async (c) => accepted(await c.account.webhooks.redeliver(c.params.id!, c.params.deliveryId!)),
  },
  {
    method: "POST",
    path: "/webhooks/:id/ping",
    scope: "webhooks:write",
    tag: "Webhooks",
    operationId: "pingWebhook",
    summary: "Send a signed webhook.ping now and answer with the attempt's result",
    response: {
      status: 200,
      schema: WebhookDelivery,
      name: "WebhookDelivery",
      description: "The ping's delivery with its one attempt",
    },
    errors: ["NOT_FOUND"],
    handle: async (c) => ok(await c.account.webhooks.ping(c.params.id!)),
  },
  {
    method: "POST",
    path: "/webhooks/:id/rotate-secret",
    scope: "webhooks:write",
    tag: "Webhooks",
    operationId: "rotateWebhookSecret",
    summary: "Give the webhook a new secret (shown this once); the previous one keeps signing beside it for 24 hours",
    response: {
      status: 200,
      schema: RotatedWebhook,
      name: "RotatedWebhook",
      description: "The webhook with its new secret",
    },
    errors: ["NOT_FOUND"],
    handle: async (c) => ok(await c.account.webhooks.rotateSecret(c.params.id!)),
  },
  {
    method: "POST",
    path: "/events/:id/activities",
    scope: "events:write",
    tag: "Activities",
    operationId: "createActivity",
    summary:
      "Record an activity of the event (energy, fuel, catering, accommodation, materials, freight, waste, water, staff travel)",
    body: ActivityInput,
    response: {
      status: 201,
      schema: Activity,
      name: "Activity",
      description: "The activity, priced with the factor set in use",
    },
    errors: ["INVALID_REQUEST", "NOT_FOUND"],
    handle: async (c) => created(await c.account.activities.create(c.params.id!, await c.body<ActivityInput>())),
  },
  {
    method: "GET",
    path: "/events/:id/activities",
    scope: "events:read",
    tag: "Activities",
    operationId: "listActivities",
    summary: "List the event's activities, oldest first",
    query: ActivityListQuery,
    response: {
      status: 200,
      schema: listOf("activities", Activity),
      name: "ActivityList",
      description: "One page of activities",
    },
    errors: ["INVALID_REQUEST", "NOT_FOUND"],
    handle: async (c) => ok(await c.account.activities.list(c.params.id!, c.query)),
  },
  {
    method: "GET",
    path: "/events/:id/activities/:activityId",
    scope: "events:read",
    tag: "Activities",
    operationId: "getActivity",
    summary: "Get an activity",
    response: { status: 200, schema: Activity, name: "Activity", description: "The activity" },
    errors: ["NOT_FOUND"],
    handle: async (c) => ok(await c.account.activities.get(c.params.id!, c.params.activityId!)),
  },
  {
    method: "PUT",
    path: "/events/:id/activities/:activityId",
    scope: "events:write",
    tag: "Activities",
    operationId: "updateActivity",
    summary: "Update an activity (partial; the result is checked whole, and its kind cannot change)",
    body: ActivityUpdateInput,
    response: { status: 200, schema: Activity, name: "Activity", description: "The updated activity, priced again" },
    errors: ["INVALID_REQUEST", "NOT_FOUND"],
    handle: async (c) =>
      ok(await c.account.activities.update(c.params.id!, c.params.activityId!, await c.body<ActivityUpdateInput>())),
  },
  {
    method: "DELETE",
    path: "/events/:id/activities/:activityId",
    scope: "events:write",
    tag: "Activities",
    operationId: "deleteActivity",
    summary: "Delete an activity",
    response: { status: 200, schema: DeleteResult, name: "DeleteResult", description: "The deletion" },
    errors: ["NOT_FOUND"],
    handle: async (c) => ok(await c.account.activities.delete(c.params.id!, c.params.activityId!)),
  },
  {
    method: "POST",
    path: "/thresholds",
    scope: "events:write",
    tag: "Thresholds",
    operationId: "createThreshold",
    summary: "Configure a metric threshold for one event or every event of the account",
    body: ThresholdCreateInput,
    response: { status: 201, schema: Threshold, name: "Threshold", description: "The created threshold" },
    errors: ["INVALID_REQUEST", "NOT_FOUND"],
    handle: async (c) => created(await c.account.thresholds.create(await c.body<ThresholdCreateInput>())),
  },
  {
    method: "GET",
    path: "/thresholds",
    scope: "events:read",
    orScope: "analytics:read",
    tag: "Thresholds",
    operationId: "listThresholds",
    summary: "List the account's thresholds",
    query: ThresholdListQuery,
    response: {
      status: 200,
      schema: listOf("thresholds", Threshold),
      name: "ThresholdList",
      description: "One page of thresholds",
    },
    errors: ["INVALID_REQUEST"],
    handle: async (c) => ok(await c.account.thresholds.list(c.query)),
  },
  {
    method: "GET",
    path: "/thresholds/:id",
    scope: "events:read",
    orScope: "analytics:read",
    tag: "Thresholds",
    operationId: "getThreshold",
    summary: "Get a threshold",
    response: { status: 200, schema: Threshold, name: "Threshold", description: "The threshold" },
    errors: ["NOT_FOUND"],
    handle: async (c) => ok(await c.account.thresholds.get(c.params.id!)),
  },
  {
    method: "PUT",
    path: "/thresholds/:id",
    scope: "events:write",
    tag: "Thresholds",
    operationId: "updateThreshold",
    summary: "Update a threshold (partial; a changed threshold is judged afresh at its metric's next change)",
    body: ThresholdUpdateInput,
    response: { status: 200, schema: Threshold, name: "Threshold", description: "The updated threshold" },
    errors: ["INVALID_REQUEST", "NOT_FOUND"],
    handle: async (c) => ok(await c.account.thresholds.update(c.params.id!, await c.body<ThresholdUpdateInput>())),
  },
  {
    method: "DELETE",
    path: "/thresholds/:id",
    scope: "events:write",
    tag: "Thresholds",
    operationId: "deleteThreshold",
    summary: "Remove a threshold and its crossing state",
    response: { status: 200, schema: DeleteResult, name: "DeleteResult", description: "The deletion" },
    errors: ["NOT_FOUND"],
    handle: async (c) => ok(await c.account.thresholds.delete(c.params.id!)),
  },
  {
    method: "POST",
    path: "/vendors",
    scope: "vendors:write",
    tag: "Vendors",
    operationId: "createVendor",
    summary: "Add a vendor (a supplier of the account's events)",
    body: VendorCreateInput,
    response: { status: 201, schema: Vendor, name: "Vendor", description: "The created vendor" },
    errors: ["INVALID_REQUEST"],
    handle: async (c) => created(await c.account.vendors.create(await c.body<VendorCreateInput>())),
  },
  {
    method: "GET",
    path: "/vendors",
    scope: "vendors:read",
    tag: "Vendors",
    operationId: "listVendors",
    summary: "List the account's vendors, newest first",
    query: VendorListQuery,
    response: {
      status: 200,
      schema: listOf("vendors", Vendor),
      name: "VendorList",
      description: "One page of vendors",
    },
    errors: ["INVALID_REQUEST"],
    handle: async (c) => ok(await c.account.vendors.list(c.query)),
  },
  {
    method: "GET",
    path: "/vendors/:id",
    scope: "vendors:read",
    tag: "Vendors",
    operationId: "getVendor",
    summary: "Get a vendor",
    response: { status: 200, schema: Vendor, name: "Vendor", description: "The vendor" },
    errors: ["NOT_FOUND"],
    handle: async (c) => ok(await c.account.vendors.get(c.params.id!)),
  },
  {
    method: "PUT",
    path: "/vendors/:id",
    scope: "vendors:write",
    tag: "Vendors",
    operationId: "updateVendor",
    summary: "Update a vendor (partial; a given contact or location replaces the stored one)",
    body: VendorUpdateInput,
    response: { status: 200, schema: Vendor, name: "Vendor", description: "The updated vendor" },
    errors: ["INVALID_REQUEST", "NOT_FOUND"],
    handle: async (c) => ok(await c.account.vendors.update(c.params.id!, await c.body<VendorUpdateInput>())),
  },
  {
    method: "DELETE",
    path: "/vendors/:id",
    scope: "vendors:write",
    tag: "Vendors",
    operationId: "deleteVendor",
    summary: "Delete a vendor and its contact data (not while a booking of it is requested or confirmed)",
    response: { status: 200, schema: DeleteResult, name: "DeleteResult", description: "The deletion" },
    errors: ["NOT_FOUND", "VENDOR_IN_USE"],
    handle: async (c) => ok(await c.account.vendors.delete(c.params.id!)),
  },
  {
    method: "POST",
    path: "/events/:id/vendors",
    scope: "vendors:write",
    tag: "Vendors",
    operationId: "createBooking",
    summary: "Book a vendor for the event: the answer holds the vendor's own link (shown this once)",
    body: BookingCreateInput,
    response: {
      status: 201,
      schema: BookingWithLink,
      name: "BookingWithLink",
      description: "The booking, requested, with its vendor's link",
    },
    errors: ["INVALID_REQUEST", "NOT_FOUND", "DUPLICATE_BOOKING"],
    handle: async (c) =>
      withLinkShownOnce(201, await c.account.bookings.create(c.params.id!, await c.body<BookingCreateInput>())),
  },
  {
    method: "GET",
    path: "/events/:id/vendors",
    scope: "vendors:read",
    tag: "Vendors",
    operationId: "listBookings",
    summary: "List the event's vendor bookings, oldest first",
    query: BookingListQuery,
    response: {
      status: 200,
      schema: listOf("bookings", Booking),
      name: "BookingList",
      description: "One page of bookings",
    },
    errors: ["INVALID_REQUEST", "NOT_FOUND"],
    handle: async (c) => ok(await c.account.bookings.list(c.params.id!, c.query)),
  },
  {
    method: "GET",
    path: "/events/:id/vendors/:bookingId",
    scope: "vendors:read",
    tag: "Vendors",
    operationId: "getBooking",
    summary: "Get a vendor booking",
    response: { status: 200, schema: Booking, name: "Booking", description: "The booking" },
    errors: ["NOT_FOUND"],
    handle: async (c) => ok(await c.account.bookings.get(c.params.id!, c.params.bookingId!)),
  },
  {
    method: "PUT",
    path: "/events/:id/vendors/:bookingId",
    scope: "vendors:write",
    tag: "Vendors",
    operationId: "updateBooking",
    summary:
      "Change a booking's services, data asked or status (requested -> confirmed | declined | cancelled, confirmed -> cancelled)",
    body: BookingUpdateInput,
    response: { status: 200, schema: Booking, name: "Booking", description: "The updated booking" },
    errors: ["INVALID_REQUEST", "NOT_FOUND", "INVALID_STATE_TRANSITION"],
    handle: async (c) =>
      ok(await c.account.bookings.update(c.params.id!, c.params.bookingId!, await c.body<BookingUpdateInput>())),
  },
  {
    method: "POST",
    path: "/events/:id/vendors/:bookingId/rotate-link",
    scope: "vendors:write",
    tag: "Vendors",
    operationId: "rotateBookingLink",
    summary: "Give the booking a new vendor link (shown this once); the old one answers 404 from now on",
    response: {
      status: 200,
      schema: BookingWithLink,
      name: "BookingWithLink",
      description: "The booking with its new link",
    },
    errors: ["NOT_FOUND", "INVALID_STATE_TRANSITION"],
    handle: async (c) => withLinkShownOnce(200, await c.account.bookings.rotateLink(c.params.id!, c.params.bookingId!)),
  },
];

/**
 * The routes of a vendor's link, served without an API key: the token in the path opens one
 * booking, and a token that opens none (unknown, rotated, cancelled) is `404` and counts against
 * its address's limit of requests without a valid key.
 */
export const VENDOR_LINK_ROUTES: readonly LinkRoute[] = [
  {
    method: "GET",
    path: "/vendor-requests/:token",
    tag: "Vendor link",
    operationId: "getVendorRequest",
    summary: "What the vendor is asked: the booking, its services and data, the event's name, dates and city",
    response: { status: 200, schema: VendorRequest, name: "VendorRequest", description: "The request" },
    errors: ["NOT_FOUND"],
    handle: async (c) => ok(await c.link.view()),
  },
  {
    method: "POST",
    path: "/vendor-requests/:token/confirm",
    tag: "Vendor link",
    operationId: "confirmVendorRequest",
    summary: "The vendor confirms the booking (optional message)",
    body: VendorAnswerInput,
    bodyOptional: true,
    response: { status: 200, schema: VendorRequest, name: "VendorRequest", description: "The request, confirmed" },
    errors: ["INVALID_REQUEST", "NOT_FOUND", "INVALID_STATE_TRANSITION"],
    handle: async (c) => ok(await c.link.confirm(await c.optionalBody<VendorAnswerInput>())),
  },
  {
    method: "POST",
    path: "/vendor-requests/:token/decline",
    tag: "Vendor link",
    operationId: "declineVendorRequest",
    summary: "The vendor declines the booking (optional message)",
    body: VendorAnswerInput,
    bodyOptional: true,
    response: { status: 200, schema: VendorRequest, name: "VendorRequest", description: "The request, declined" },
    errors: ["INVALID_REQUEST", "NOT_FOUND", "INVALID_STATE_TRANSITION"],
    handle: async (c) => ok(await c.link.decline(await c.optionalBody<VendorAnswerInput>())),
  },
  {
    method: "POST",
    path: "/vendor-requests/:token/activities",
    tag: "Vendor link",
    operationId: "createVendorActivity",
    summary: "The vendor records activity data for the event (a kind the booking asks for), once confirmed",
    body: VendorActivityInput,
    response: {
      status: 201,
      schema: Activity,
      name: "Activity",
      description: "The activity, attributed to the vendor and priced",
    },
    errors: ["INVALID_REQUEST", "NOT_FOUND", "INVALID_STATE_TRANSITION"],
    handle: async (c) => created(await c.link.activities.create(await c.body<VendorActivityInput>())),
  },
  {
    method: "GET",
    path: "/vendor-requests/:token/activities",
    tag: "Vendor link",
    operationId: "listVendorActivities",
    summary: "The records the vendor made through this link, oldest first",
    query: ActivityListQuery,
    response: {
      status: 200,
      schema: listOf("activities", Activity),
      name: "ActivityList",
      description: "One page of the vendor's activities",
    },
    errors: ["INVALID_REQUEST", "NOT_FOUND", "INVALID_STATE_TRANSITION"],
    handle: async (c) => ok(await c.link.activities.list(c.query)),
  },
  {
    method: "PUT",
    path: "/vendor-requests/:token/activities/:activityId",
    tag: "Vendor link",
    operationId: "updateVendorActivity",
    summary: "The vendor corrects one of its records (partial)",
    body: VendorActivityUpdateInput,
    response: { status: 200, schema: Activity, name: "Activity", description: "The activity, priced again" },
    errors: ["INVALID_REQUEST", "NOT_FOUND", "INVALID_STATE_TRANSITION"],
    handle: async (c) =>
      ok(await c.link.activities.update(c.params.activityId!, await c.body<VendorActivityUpdateInput>())),
  },
  {
    method: "DELETE",
    path: "/vendor-requests/:token/activities/:activityId",
    tag: "Vendor link",
    operationId: "deleteVendorActivity",
    summary: "The vendor deletes one of its records",
    response: { status: 200, schema: DeleteResult, name: "DeleteResult", description: "The deletion" },
    errors: ["NOT_FOUND", "INVALID_STATE_TRANSITION"],
    handle: async (c) => ok(await c.link.activities.delete(c.params.activityId!)),
  },
];

/** The path prefixes every route is served under: the versioned base and the reference pages' alias. */
export const VERSION_PREFIXES = ["/v1", "/api"] as const;
