/**
 * @event-service/core: the framework-agnostic core of Event Service.
 *
 * This root export is the public API (covered by semver): the service and its handler, the SQL
 * storage, the webhook delivery worker, payment worker and background purge a host runs beside
 * them, the error class, the value lists behind the union types, the emission factor set, the
 * schemas of the main resources and inputs, and the types of every other shape. The SQLite helpers are in `@event-service/core/sqlite`,
 * webhook verification for receivers in `@event-service/core/webhooks`; docs/embedding.md
 * ("What the package exports") lists each group.
 *
 * @example
 * import Database from "better-sqlite3";
 * import { createEventService, createHandler, createSqlStorage } from "@event-service/core";
 * import { SQLITE_PRAGMAS, SqliteKysely } from "@event-service/core/sqlite";
 *
 * const sqlite = new Database("events.sqlite");
 * for (const pragma of SQLITE_PRAGMAS) sqlite.pragma(pragma);
 * const storage = createSqlStorage({ db: new SqliteKysely(sqlite) });
 * await storage.migrate();
 * const service = createEventService({ storage });
 * const handler = createHandler(service); // (Request) => Promise<Response>
 */

// Service
export { createEventService } from "./service.ts";
export type {
  AccountOperations,
  AccountOptions,
  ActivityOperations,
  AnalyticsOperations,
  AttendeeExport,
  AttendeeOperations,
  EventOperations,
  EventService,
  EmailSettings,
  EventServiceOptions,
  PaymentSettings,
  KeyOperations,
  ListResult,
  BookingOperations,
  ThresholdOperations,
  TicketLinkOperations,
  DoorLinkOperations,
  VendorLinkOperations,
  VendorOperations,
  WebhookOperations,
} from "./service.ts";

// HTTP
export { createHandler } from "./http/handler.ts";
export type { FetchHandler, HandlerOptions, RequestLogEntry, ServiceHandler } from "./http/handler.ts";
export type { MetricsEndpointOptions, MetricsExposition } from "./http/metrics-endpoint.ts";
export type { TrustProxy } from "./http/client-address.ts";
export type { CorsOptions } from "./http/cors.ts";

// Errors
export { ERROR_CODES, ServiceError } from "./errors.ts";
export type { ErrorBody, ErrorCode, ServiceErrorOptions } from "./errors.ts";

// Storage
export { createSqlStorage } from "./sql/sql-storage.ts";
export type { SqlStorageOptions } from "./sql/sql-storage.ts";
export type { Storage } from "./storage.ts";
export type { Database } from "./sql/database.ts";

// Webhook delivery (the outbox's worker) and the background purge, which a host runs beside the service
export { createDeliveryWorker } from "./delivery-worker.ts";
export type { DeliveryWorker, DeliveryWorkerOptions } from "./delivery-worker.ts";
export { createEmailWorker } from "./email-worker.ts";
export type { EmailAttemptInfo, EmailWorker, EmailWorkerOptions } from "./email-worker.ts";
export type { EmailKind, EmailMessage, EmailReason, EmailStatus, EmailTransport } from "./resources/email.ts";
export type { HostResolver } from "./webhooks/ssrf.ts";
export { createBackgroundPurge } from "./background-purge.ts";
export { createPaymentWorker } from "./payment-worker.ts";
export type { PaymentWorker, PaymentWorkerOptions } from "./payment-worker.ts";
export type { CheckoutUrls, PaymentPass } from "./service/stripe-payments.ts";
export type {
  StripeCheckoutSession,
  StripeCheckoutSessionParams,
  StripeClient,
  StripeEvent,
  StripePaymentIntent,
  StripeRefund,
  StripeRequestOptions,
} from "./payments/stripe-client.ts";
export type { AccountPaymentSettings, PaymentSettingsInput } from "./resources/payment.ts";
export type { PaymentOperations } from "./service.ts";
export type { OperationTypes } from "./operations/all.ts";
export type { BackgroundPurge, BackgroundPurgeOptions } from "./background-purge.ts";
export type { Envelope, Notification } from "./storage/envelope.ts";

// Resources: the types of what the API takes and returns, and the value lists behind their unions
export type { Coordinates, Location, SustainabilityGoals } from "./resources/event.ts";
export { EVENT_STATUSES } from "./resources/event.ts";
export type { EventStatus } from "./resources/event.ts";
export type { AccessibilityNeeds, CarbonOffset, EmergencyContact } from "./resources/attendee.ts";
export { ATTENDEE_STATUSES } from "./resources/attendee.ts";
export type { AttendeeStatus } from "./resources/attendee.ts";
export type { AttendeeExportQuery, ExportFormat } from "./export/attendee-export.ts";
export type { DeleteResult, Pagination } from "./resources/common.ts";
export { WEBHOOK_EVENT_TYPES } from "./resources/webhook.ts";
export type { CreatedWebhook, RotatedWebhook, WebhookListQuery, WebhookEventType } from "./resources/webhook.ts";
export { THRESHOLD_COMPARISONS, THRESHOLD_METRICS } from "./resources/threshold.ts";
export type { ThresholdListQuery, ThresholdComparison, ThresholdMetric } from "./resources/threshold.ts";
export type { EventMetrics } from "./rules/goals.ts";
export { DELIVERY_STATUSES } from "./resources/webhook-delivery.ts";
export type {
  DeliveryAttempt,
  DeliveryListQuery,
  WebhookDelivery,
  DeliveryStatus,
} from "./resources/webhook-delivery.ts";
export type { ActivityFactor, VendorActivityInput } from "./resources/activity.ts";
export type { ActivityListQuery, VendorActivityUpdateInput } from "./resources/priced-activity.ts";
export { ACTIVITY_KINDS, ACTIVITY_UNITS, DATA_QUALITIES } from "./carbon/activity-kinds.ts";
export type { ActivityKind, ActivityUnit, DataQuality } from "./carbon/activity-kinds.ts";
export { BOOKING_STATUSES, VENDOR_CATEGORIES } from "./resources/vendor.ts";
export { redactLinkTokens } from "./resources/link-token.ts";
export type {
  BookingListQuery,
  BookingWithLink,
  Certification,
  VendorAnswerInput,
  VendorListQuery,
  VendorRequest,
  BookingStatus,
  VendorCategory,
  VendorContact,
  VendorLocation,
} from "./resources/vendor.ts";
export type { Ticket, TicketTravelInput, TicketUpdateInput } from "./resources/ticket-link.ts";
export { DOOR_RESULTS } from "./resources/check-in-link.ts";
export type {
  CheckInLink,
  CheckInLinkCreateInput,
  Door,
  DoorAttendee,
  DoorEvent,
  DoorResult,
  DoorScan,
  DoorScanInput,
  DoorSearch,
  OfflineEntry,
  OfflineList,
} from "./resources/check-in-link.ts";
export { REFUND_POLICIES } from "./resources/ticket-type.ts";
export type { Currency, TicketType, RefundPolicy } from "./resources/ticket-type.ts";
export { PAYMENT_METHODS, PAYMENT_PROVIDERS, PAYMENT_STATUSES } from "./resources/payment.ts";
export type { Payment, PaymentMethod, PaymentProvider, PaymentStatus } from "./resources/payment.ts";
export { SCOPES, TIERS } from "./resources/api-key.ts";
export type { ApiKeyCreateInput, ApiKeyInfo, AuthContext, CreatedApiKey, Scope, Tier } from "./resources/api-key.ts";

// Carbon model: the emission factor set (a host loads its own file with `EmissionFactorSet`)
export { DEFAULT_EMISSION_FACTORS, EmissionFactorSet } from "./carbon/emission-factors.ts";
export type { FactorSets } from "./carbon/factor-sets.ts";
export type { EmissionFactorSetResponse, EmissionFactorSetInput, TravelMode } from "./carbon/emission-factors.ts";
export type { CarbonSettings } from "./carbon/carbon-settings.ts";

// Analytics: the types of its queries and reports
export type { Methodology } from "./analytics/methodology.ts";
export type { SustainabilityQuery, SustainabilityReport } from "./analytics/sustainability-report.ts";
export type { SustainabilityReportDocument } from "./analytics/report-document.ts";
export type { EventAnalytics } from "./analytics/event-analytics.ts";
export type { TrendQuery, TrendReport } from "./analytics/trend-report.ts";
export type { TrendMetric } from "./analytics/trend-metrics.ts";

// Schemas (zod) of the main resources and inputs, for an app that validates or builds forms on its
// own side with the rules the service applies; every other shape is a type only.
export { Event, EventCreateInput, EventUpdateInput, EventListQuery } from "./resources/event.ts";
export {
  Attendee,
  AttendeeCreateInput,
  AttendeeUpdateInput,
  AttendeeListQuery,
  CheckInInput,
} from "./resources/attendee.ts";
export { Webhook, WebhookCreateInput, WebhookUpdateInput } from "./resources/webhook.ts";
export { Threshold, ThresholdCreateInput, ThresholdUpdateInput } from "./resources/threshold.ts";
export { Activity, ActivityInput } from "./resources/activity.ts";
export { ActivityUpdateInput } from "./resources/priced-activity.ts";
export {
  Vendor,
  VendorCreateInput,
  VendorUpdateInput,
  Booking,
  BookingCreateInput,
  BookingUpdateInput,
} from "./resources/vendor.ts";
export { Money, TicketTypeInput } from "./resources/ticket-type.ts";
export { PaymentInput, RefundInput } from "./resources/payment.ts";
