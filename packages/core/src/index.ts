/**
 * @event-service/core: the framework-agnostic core of Event Service.
 *
 * @example
 * import Database from "better-sqlite3";
 * import { Kysely, SqliteDialect } from "kysely";
 * import { createEventService, createHandler, createSqlStorage } from "@event-service/core";
 * import { SQLITE_PRAGMAS } from "@event-service/core/sqlite";
 *
 * const sqlite = new Database("events.sqlite");
 * for (const pragma of SQLITE_PRAGMAS) sqlite.pragma(pragma);
 * const storage = createSqlStorage({ db: new Kysely({ dialect: new SqliteDialect({ database: sqlite }) }) });
 * await storage.migrate();
 * const service = createEventService({ storage });
 * const handler = createHandler(service); // (Request) => Promise<Response>
 */

// Service
export { createEventService } from "./service.ts";
export { toApiWebhook } from "./resources/webhook.ts";
export { toApiDelivery } from "./resources/webhook-delivery.ts";
export { toApiAttendee } from "./resources/attendee.ts";
export { toApiEvent } from "./resources/event.ts";
export type {
  AccountOperations, AccountOptions, AnalyticsOperations, AttendeeExport, AttendeeOperations, EventOperations, EventService, EventServiceOptions, KeyOperations, ListResult,
  WebhookOperations,
} from "./service.ts";

// HTTP
export { createHandler } from "./http/handler.ts";
export type { FetchHandler, HandlerOptions, RequestLogEntry, ServiceHandler } from "./http/handler.ts";
export type { MetricsEndpointOptions, MetricsExposition } from "./http/metrics-endpoint.ts";
export { MAX_BODY_BYTES } from "./http/request.ts";
export { compileTrustProxy } from "./http/client-address.ts";
export type { TrustProxy } from "./http/client-address.ts";
export { DEFAULT_AUTH_FAILURE_LIMIT_PER_MINUTE } from "./http/auth-failure-limit.ts";
export { VERSION_PREFIXES } from "./http/routes.ts";
export { openApiDocument } from "./http/openapi.ts";
export { parseCorsOrigins } from "./http/cors.ts";
export type { CorsOptions } from "./http/cors.ts";

// Errors
export { ERROR_CODES, ServiceError } from "./errors.ts";
export type { ErrorBody, ErrorCode, ServiceErrorOptions } from "./errors.ts";

// Storage
export type {
  AccountStore, AnalyticsStore, AttendeeStore, Change, ChangeNotifier, DeliveryStore, Erasure, EventStore, EventWithStats,
  IdempotencyRecord, IdempotencyStore, OutboxBacklog, OutboxReader, Page, PurgeResult, RateLimitWindows, RequestReservation, ReservedRequests, Storage, StorageLifecycle, StoreFault, StoredChange,
  WebhookStore,
} from "./storage.ts";
export { createSqlStorage } from "./sql/sql-storage.ts";
export type { SqlStorageOptions } from "./sql/sql-storage.ts";
export type { Database } from "./sql/database.ts";
export { MIGRATIONS } from "./sql/migrations.ts";

// Resources: schemas (runtime) and their types
export {
  Attendee, AttendeeCreateInput, AttendeeListQuery, AttendeeUpdateInput, ATTENDEE_SORT_FIELDS, CheckInInput,
} from "./resources/attendee.ts";
export { Event, EventCreateInput, EventListQuery, EventUpdateInput, EVENT_SORT_FIELDS, isCountryCode } from "./resources/event.ts";
export type { Coordinates, Location, SustainabilityGoals } from "./resources/event.ts";
export type { AccessibilityNeeds, CarbonOffset, EmergencyContact } from "./resources/attendee.ts";
export { AttendeeExportQuery, EXPORT_FORMATS } from "./export/attendee-export.ts";
export type { ExportFormat } from "./export/attendee-export.ts";
export { DeleteResult, Pagination } from "./resources/common.ts";
export {
  canReadNotification, CreatedWebhook, READ_SCOPE_BY_FAMILY, RotatedWebhook, SECRET_ROTATION_OVERLAP_MS, Webhook, WebhookCreateInput,
  WEBHOOK_EVENT_TYPES, WEBHOOK_LIMITS, WebhookListQuery, WebhookUpdateInput,
} from "./resources/webhook.ts";
export type { WebhookEventType } from "./resources/webhook.ts";
export { DeliveryAttempt, DeliveryListQuery, DELIVERY_STATUSES, WebhookDelivery } from "./resources/webhook-delivery.ts";
export type { ClaimedDelivery, DeliveryRecord, DeliveryStatus } from "./resources/webhook-delivery.ts";
export { DNS_TIMEOUT_MS, isNonPublicAddress } from "./webhooks/ssrf.ts";

// Webhook delivery (the outbox's worker)
export { createDeliveryWorker, DEFAULT_WEBHOOK_TIMEOUT_MS } from "./webhooks/delivery-worker.ts";
export { DEFAULT_RETRY_DELAYS_MS, MAX_RETRY_AFTER_EXTRA_MS } from "./rules/delivery-status.ts";
export { DISABLE_AFTER_FAILURES } from "./rules/delivery-failures.ts";
export type { DeliveryWorker, DeliveryWorkerOptions } from "./webhooks/delivery-worker.ts";
export { createBackgroundPurge, DEFAULT_WEBHOOK_RETENTION_DAYS } from "./background-purge.ts";
export type { BackgroundPurge, BackgroundPurgeOptions } from "./background-purge.ts";
export { CAPACITY_THRESHOLD_PERCENT } from "./webhooks/payloads.ts";
export { PING_EVENT_TYPE } from "./resources/webhook.ts";
export type { Envelope, Notification } from "./storage/envelope.ts";
export { createChangeNotifier } from "./webhooks/change-notifications.ts";
export type { ChangeNotifierOptions } from "./webhooks/change-notifications.ts";
export { WEBHOOK_USER_AGENT } from "./webhooks/send-delivery.ts";
export type { HostResolver } from "./webhooks/ssrf.ts";
export { ApiKeyCreateInput, SCOPES, TIERS, TIER_LIMITS } from "./resources/api-key.ts";
export type { ApiKeyInfo, AuthContext, CreatedApiKey, Scope, Tier } from "./resources/api-key.ts";

// Rules
export { assertEventTransition, EVENT_STATUSES, EVENT_TRANSITIONS, isEventTransitionAllowed } from "./rules/event-status.ts";
export type { EventStatus } from "./rules/event-status.ts";
export {
  ACTIVE_ATTENDEE_STATUSES, assertAttendeeTransition, ATTENDEE_STATUSES, ATTENDEE_TRANSITIONS, isAttendeeTransitionAllowed,
} from "./rules/attendee-status.ts";
export type { AttendeeStatus } from "./rules/attendee-status.ts";

// Carbon model
export {
  DEFAULT_EMISSION_FACTORS, EMISSION_FACTOR_UNIT, EMISSION_FACTORS_KG_PER_KM, EmissionFactorSet, EmissionFactorSetResponse, FLIGHT_BANDS, TRAVEL_MODES,
  travelEmissionsKg,
} from "./carbon/emission-factors.ts";
export type { EmissionFactorSetInput, TravelMode } from "./carbon/emission-factors.ts";
export { Methodology } from "./analytics/methodology.ts";
export { DEFAULT_CARBON_SETTINGS, offsetKg } from "./carbon/carbon-settings.ts";
export type { CarbonSettings } from "./carbon/carbon-settings.ts";
export { sustainabilityScore } from "./carbon/sustainability-score.ts";

// Analytics: query and report schemas (runtime) and their types, the reference values
export { SustainabilityQuery, SustainabilityReport } from "./analytics/sustainability-report.ts";
export { EventAnalytics } from "./analytics/event-analytics.ts";
export { TrendQuery, TrendReport } from "./analytics/trend-report.ts";
export { TREND_METRICS } from "./analytics/trend-metrics.ts";
export type { TrendMetric } from "./analytics/trend-metrics.ts";
export { BENCHMARKS } from "./analytics/benchmarks.ts";
export type { BenchmarkReference } from "./analytics/benchmarks.ts";
export { CERTIFICATIONS } from "./analytics/certifications.ts";
