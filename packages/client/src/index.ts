/**
 * @event-service/client: a typed client of the Event Service REST API, on ofetch. Its types
 * come from `@event-service/core` by `import type` only, and the build writes them out into the
 * package's own declarations (scripts/inline-core-types.ts): core is a development dependency,
 * and the installed package is this and ofetch, for Node 20.19+ and browsers alike.
 * `createClient` takes an API key; `createVendorLinkClient` takes a booking's `vendorLink`, the
 * vendor's only credential, and runs in the vendor's browser as well; `createTicketLinkClient`
 * takes a registration's `ticketUrl`, the attendee's; `createCheckInLinkClient` takes a check-in
 * link's `url`, a door's.
 *
 * @example
 * import { createClient, EventServiceError } from "@event-service/client";
 * const client = createClient({ baseUrl: "http://127.0.0.1:3000", apiKey: process.env.EVENT_SERVICE_KEY! });
 * const page = await client.events.list({ status: "published", limit: 10 });
 */
export { createClient } from "./client.ts";
export { createTicketLinkClient } from "./ticket-link-client.ts";
export { createCheckInLinkClient } from "./check-in-link-client.ts";
export { createVendorLinkClient } from "./vendor-link-client.ts";
export type {
  ActivitiesResource,
  ActivityListParams,
  AnalyticsResource,
  AttendeeListParams,
  AttendeesResource,
  BookingListParams,
  BookingsResource,
  CallOptions,
  CheckInLinkListParams,
  CheckInLinksResource,
  ClientOptions,
  DeliveryListParams,
  EmissionFactorsParams,
  EventListParams,
  EventServiceClient,
  EventsResource,
  ListParams,
  QueryParams,
  SustainabilityParams,
  ThresholdListParams,
  ThresholdsResource,
  TrendParams,
  VendorListParams,
  VendorsResource,
  WebhookListParams,
  WebhooksResource,
} from "./client.ts";
export type {
  Ticket,
  TicketLinkClient,
  TicketLinkClientOptions,
  TicketTravelInput,
  TicketUpdateInput,
} from "./ticket-link-client.ts";
export type {
  CheckInLinkClient,
  CheckInLinkClientOptions,
  Door,
  DoorScan,
  DoorSearch,
  OfflineList,
} from "./check-in-link-client.ts";
export type {
  VendorActivityInput,
  VendorActivityUpdateInput,
  VendorLinkActivitiesResource,
  VendorLinkClient,
  VendorLinkClientOptions,
} from "./vendor-link-client.ts";
export { EventServiceError } from "./errors.ts";
export type { ClientErrorCode } from "./errors.ts";
export type { RetryOptions } from "./retry.ts";
export type {
  AccessibilityNeeds,
  Activity,
  ActivityFactor,
  ActivityInput,
  ActivityKind,
  ActivityUnit,
  ActivityUpdateInput,
  Attendee,
  AttendeeCreateInput,
  AttendeeUpdateInput,
  Booking,
  BookingCreateInput,
  BookingStatus,
  BookingUpdateInput,
  BookingWithLink,
  CarbonOffset,
  Certification,
  CheckInInput,
  CreatedWebhook,
  DeleteResult,
  EmergencyContact,
  EmissionFactorSetResponse,
  ErrorCode,
  Event,
  EventAnalytics,
  EventCreateInput,
  EventUpdateInput,
  ListResult,
  Location,
  Pagination,
  RotatedWebhook,
  Methodology,
  SustainabilityGoals,
  SustainabilityReport,
  SustainabilityReportDocument,
  Threshold,
  ThresholdComparison,
  ThresholdCreateInput,
  ThresholdMetric,
  ThresholdUpdateInput,
  TrendReport,
  Vendor,
  VendorAnswerInput,
  VendorCategory,
  VendorContact,
  VendorCreateInput,
  VendorLocation,
  VendorRequest,
  VendorUpdateInput,
  Webhook,
  WebhookCreateInput,
  WebhookDelivery,
  WebhookEventType,
  WebhookUpdateInput,
} from "@event-service/core";
