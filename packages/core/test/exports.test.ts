import assert from "node:assert/strict";
import { test } from "node:test";

// The public surface of @event-service/core, as built: a change here is a change to the API.
test("the built package exports exactly these names", async () => {
  const core = await import("@event-service/core");
  assert.deepEqual(Object.keys(core).sort(), [
    "ACTIVE_ATTENDEE_STATUSES", "ATTENDEE_SORT_FIELDS", "ATTENDEE_STATUSES", "ATTENDEE_TRANSITIONS", "ApiKeyCreateInput",
    "Attendee", "AttendeeCreateInput", "AttendeeExportQuery", "AttendeeListQuery", "AttendeeUpdateInput", "BENCHMARKS", "CAPACITY_THRESHOLD_PERCENT",
    "CERTIFICATIONS", "CheckInInput", "CreatedWebhook", "DEFAULT_AUTH_FAILURE_LIMIT_PER_MINUTE", "DEFAULT_CARBON_SETTINGS",
    "DEFAULT_EMISSION_FACTORS", "DEFAULT_RETRY_DELAYS_MS", "DEFAULT_WEBHOOK_RETENTION_DAYS", "DEFAULT_WEBHOOK_TIMEOUT_MS", "DELIVERY_STATUSES",
    
    "DISABLE_AFTER_FAILURES", "DNS_TIMEOUT_MS", "DeleteResult", "DeliveryAttempt", "DeliveryListQuery",
    "EMISSION_FACTORS_KG_PER_KM", "EMISSION_FACTOR_UNIT", "ERROR_CODES", "EVENT_SORT_FIELDS", "EVENT_STATUSES", "EVENT_TRANSITIONS", "EXPORT_FORMATS",
    "EmissionFactorSet", "EmissionFactorSetResponse", "Event",
    "EventAnalytics", "EventCreateInput", "EventListQuery", "EventUpdateInput", "FLIGHT_BANDS", "MAX_BODY_BYTES",
    "MAX_RETRY_AFTER_EXTRA_MS", "MIGRATIONS", "Methodology", "PING_EVENT_TYPE", "Pagination", "READ_SCOPE_BY_FAMILY", "RotatedWebhook",
    "SCOPES", "SECRET_ROTATION_OVERLAP_MS", "ServiceError", "SustainabilityQuery", "SustainabilityReport",
    "TIERS", "TIER_LIMITS", "TRAVEL_MODES", "TREND_METRICS", "TrendQuery", "TrendReport", "VERSION_PREFIXES",
    "WEBHOOK_EVENT_TYPES", "WEBHOOK_LIMITS", "WEBHOOK_USER_AGENT", "Webhook", "WebhookCreateInput", "WebhookDelivery",
    "WebhookListQuery", "WebhookUpdateInput", "assertAttendeeTransition", "assertEventTransition", "canReadNotification",
    "compileTrustProxy", "createBackgroundPurge", "createChangeNotifier", "createDeliveryWorker", "createEventService", "createHandler",
    "createSqlStorage", "isAttendeeTransitionAllowed", "isCountryCode", "isEventTransitionAllowed", "isNonPublicAddress",
    "offsetKg", "openApiDocument", "parseCorsOrigins", "sustainabilityScore",
    "toApiAttendee", "toApiDelivery", "toApiEvent", "toApiWebhook", "travelEmissionsKg",
  ]);
});

test("the SQLite subpath exports exactly these names", async () => {
  const sqlite = await import("@event-service/core/sqlite");
  assert.deepEqual(Object.keys(sqlite).sort(), ["SQLITE_PRAGMAS", "createSqliteDialect"]);
});
