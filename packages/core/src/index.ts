/**
 * @event-service/core: the framework-agnostic core of Event Service.
 *
 * This root export is the public API (covered by semver): the service and its handler, the SQL
 * storage, the webhook delivery worker and background purge a host runs beside them, the error
 * class, and the resource schemas and types. The SQLite helpers are in `@event-service/core/sqlite`,
 * webhook verification for receivers in `@event-service/core/webhooks`.
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
  EventServiceOptions,
  PaymentSettings,
  KeyOperations,
  ListResult,
  BookingOperations,
  ThresholdOperations,
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
export { createChangeNotifier } from "./webhooks/change-notifications.ts";
export type { ChangeNotifierOptions } from "./webhooks/change-notifications.ts";
export type { ChangeNotifier } from "./storage.ts";

// Webhook delivery (the outbox's worker) and the background purge, which a host runs beside the service
export { createDeliveryWorker } from "./webhooks/delivery-worker.ts";
export type { DeliveryWorker, DeliveryWorkerOptions } from "./webhooks/delivery-worker.ts";
export type { HostResolver } from "./webhooks/ssrf.ts";
export { createBackgroundPurge } from "./background-purge.ts";
export { createPaymentWorker } from "./payment-worker.ts";
export type { PaymentWorker, PaymentWorkerOptions } from "./payment-worker.ts";
export type { PaymentPass } from "./service/stripe-payments.ts";
export type {
  StripeClient,
  StripeEvent,
  StripePaymentIntent,
  StripeRefund,
  StripeRequestOptions,
} from "./payments/stripe-client.ts";
export type { AccountPaymentSettings, PaymentSettingsInput } from "./resources/payment.ts";
export type { PaymentOperations } from "./service/payment-operations.ts";
export type { BackgroundPurge, BackgroundPurgeOptions } from "./background-purge.ts";
export type { Envelope, Notification } from "./storage/envelope.ts";

// Resources: schemas (runtime) and their types
export { Event, EventCreateInput, EventListQuery, EventUpdateInput } from "./resources/event.ts";
export type { Coordinates, Location, SustainabilityGoals } from "./resources/event.ts";
export { EVENT_STATUSES } from "./resources/event.ts";
export type { EventStatus } from "./resources/event.ts";
export {
  Attendee,
  AttendeeCreateInput,
  AttendeeListQuery,
  AttendeeUpdateInput,
  CheckInInput,
} from "./resources/attendee.ts";
export type { AccessibilityNeeds, CarbonOffset, EmergencyContact } from "./resources/attendee.ts";
export { ATTENDEE_STATUSES } from "./resources/attendee.ts";
export type { AttendeeStatus } from "./resources/attendee.ts";
export { AttendeeExportQuery } from "./export/attendee-export.ts";
export type { ExportFormat } from "./export/attendee-export.ts";
export { DeleteResult, Pagination } from "./resources/common.ts";
export {
  CreatedWebhook,
  RotatedWebhook,
  Webhook,
  WebhookCreateInput,
  WEBHOOK_EVENT_TYPES,
  WebhookListQuery,
  WebhookUpdateInput,
} from "./resources/webhook.ts";
export type { WebhookEventType } from "./resources/webhook.ts";
export {
  Threshold,
  THRESHOLD_COMPARISONS,
  THRESHOLD_METRICS,
  ThresholdCreateInput,
  ThresholdListQuery,
  ThresholdUpdateInput,
} from "./resources/threshold.ts";
export type { ThresholdComparison, ThresholdMetric } from "./resources/threshold.ts";
export type { EventMetrics } from "./rules/goals.ts";
export {
  DeliveryAttempt,
  DeliveryListQuery,
  DELIVERY_STATUSES,
  WebhookDelivery,
} from "./resources/webhook-delivery.ts";
export type { DeliveryStatus } from "./resources/webhook-delivery.ts";
export { Activity, ActivityFactor, ActivityInput, VendorActivityInput } from "./resources/activity.ts";
export { ActivityListQuery, ActivityUpdateInput, VendorActivityUpdateInput } from "./resources/priced-activity.ts";
export { ACTIVITY_KINDS, ACTIVITY_UNITS, DATA_QUALITIES } from "./carbon/activity-kinds.ts";
export type { ActivityKind, ActivityUnit, DataQuality } from "./carbon/activity-kinds.ts";
export {
  Booking,
  BookingCreateInput,
  BookingListQuery,
  BookingUpdateInput,
  BookingWithLink,
  BOOKING_STATUSES,
  Certification,
  Vendor,
  VendorAnswerInput,
  VENDOR_CATEGORIES,
  VendorCreateInput,
  VendorListQuery,
  VendorRequest,
  VendorUpdateInput,
  redactLinkTokens,
} from "./resources/vendor.ts";
export type { BookingStatus, VendorCategory, VendorContact, VendorLocation } from "./resources/vendor.ts";
export {
  Currency,
  Money,
  REFUND_POLICIES,
  TicketType,
  TicketTypeInput,
} from "./resources/ticket-type.ts";
export type { RefundPolicy } from "./resources/ticket-type.ts";
export {
  Payment,
  PAYMENT_METHODS,
  PAYMENT_PROVIDERS,
  PAYMENT_STATUSES,
  PaymentInput,
  RefundInput,
} from "./resources/payment.ts";
export type { PaymentMethod, PaymentProvider, PaymentStatus } from "./resources/payment.ts";
export { ApiKeyCreateInput, SCOPES, TIERS } from "./resources/api-key.ts";
export type { ApiKeyInfo, AuthContext, CreatedApiKey, Scope, Tier } from "./resources/api-key.ts";

// Carbon model: the emission factor set (a host loads its own file with `EmissionFactorSet`)
export { DEFAULT_EMISSION_FACTORS, EmissionFactorSet, EmissionFactorSetResponse } from "./carbon/emission-factors.ts";
export type { EmissionFactorSetInput, TravelMode } from "./carbon/emission-factors.ts";
export type { CarbonSettings } from "./carbon/carbon-settings.ts";

// Analytics: query and report schemas (runtime) and their types
export { Methodology } from "./analytics/methodology.ts";
export { SustainabilityQuery, SustainabilityReport } from "./analytics/sustainability-report.ts";
export { SustainabilityReportDocument } from "./analytics/report-document.ts";
export { EventAnalytics } from "./analytics/event-analytics.ts";
export { TrendQuery, TrendReport } from "./analytics/trend-report.ts";
export type { TrendMetric } from "./analytics/trend-metrics.ts";
