/**
 * @event-service/client: a typed client of the Event Service REST API, on ofetch. Its types
 * come from `@event-service/core` by `import type` only, and the build writes them out into the
 * package's own declarations (scripts/inline-core-types.ts): core is a development dependency,
 * and the installed package is this and ofetch, for Node 20.19+ and browsers alike.
 *
 * @example
 * import { createClient, EventServiceError } from "@event-service/client";
 * const client = createClient({ baseUrl: "http://127.0.0.1:3000", apiKey: process.env.EVENT_SERVICE_KEY! });
 * const page = await client.events.list({ status: "published", limit: 10 });
 */
export { createClient } from "./client.ts";
export type {
  ActivitiesResource,
  ActivityListParams,
  AnalyticsResource,
  AttendeeListParams,
  AttendeesResource,
  CallOptions,
  ClientOptions,
  DeliveryListParams,
  EventListParams,
  EventServiceClient,
  EventsResource,
  ListParams,
  QueryParams,
  SustainabilityParams,
  ThresholdListParams,
  ThresholdsResource,
  TrendParams,
  WebhookListParams,
  WebhooksResource,
} from "./client.ts";
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
  CarbonOffset,
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
  Webhook,
  WebhookCreateInput,
  WebhookDelivery,
  WebhookEventType,
  WebhookUpdateInput,
} from "@event-service/core";
