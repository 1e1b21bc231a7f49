import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { test } from "node:test";
import ts from "typescript";

// The public surface of @event-service/core, as built: a change to these lists is a change to the
// API. Runtime names are read from the modules; type-only names from their declarations, as a
// TypeScript user of the package sees them.

/** Every name a subpath's declarations export, values and types alike, sorted. */
function declaredNames(specifier: string): string[] {
  const file = createRequire(import.meta.url)
    .resolve("@event-service/core/package.json")
    .replace(/package\.json$/, "__exports__.ts");
  const host = ts.createCompilerHost({});
  const read = host.readFile;
  host.fileExists = (
    (exists) => (name: string) =>
      name === file || exists(name)
  )(host.fileExists);
  host.readFile = (name) => (name === file ? `export * from "${specifier}";` : read(name));
  const options = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  };
  const program = ts.createProgram([file], options, host);
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file)!;
  return checker
    .getExportsOfModule(checker.getSymbolAtLocation(source)!)
    .map((symbol) => symbol.name)
    .sort();
}

/** The type-only names of a subpath: declared, with no runtime value. */
function typeOnlyNames(specifier: string, runtime: string[]): string[] {
  return declaredNames(specifier).filter((name) => !runtime.includes(name));
}

const PUBLIC_RUNTIME = [
  "ACTIVITY_KINDS",
  "ACTIVITY_UNITS",
  "ATTENDEE_STATUSES",
  "Activity",
  "ActivityFactor",
  "ActivityInput",
  "ActivityListQuery",
  "ActivityUpdateInput",
  "ApiKeyCreateInput",
  "Attendee",
  "AttendeeCreateInput",
  "AttendeeExportQuery",
  "AttendeeListQuery",
  "AttendeeUpdateInput",
  "BOOKING_STATUSES",
  "Booking",
  "BookingCreateInput",
  "BookingListQuery",
  "BookingUpdateInput",
  "BookingWithLink",
  "Certification",
  "CheckInInput",
  "CreatedWebhook",
  "Currency",
  "DATA_QUALITIES",
  "DEFAULT_EMISSION_FACTORS",
  "DELIVERY_STATUSES",
  "DeleteResult",
  "DeliveryAttempt",
  "DeliveryListQuery",
  "ERROR_CODES",
  "EVENT_STATUSES",
  "EmissionFactorSet",
  "EmissionFactorSetResponse",
  "Event",
  "EventAnalytics",
  "EventCreateInput",
  "EventListQuery",
  "EventUpdateInput",
  "Methodology",
  "Money",
  "PAYMENT_METHODS",
  "PAYMENT_PROVIDERS",
  "PAYMENT_STATUSES",
  "Pagination",
  "Payment",
  "PaymentInput",
  "REFUND_POLICIES",
  "RefundInput",
  "RotatedWebhook",
  "SCOPES",
  "ServiceError",
  "SustainabilityQuery",
  "SustainabilityReport",
  "SustainabilityReportDocument",
  "THRESHOLD_COMPARISONS",
  "THRESHOLD_METRICS",
  "TIERS",
  "Threshold",
  "ThresholdCreateInput",
  "ThresholdListQuery",
  "ThresholdUpdateInput",
  "TicketType",
  "TicketTypeInput",
  "TrendQuery",
  "TrendReport",
  "VENDOR_CATEGORIES",
  "Vendor",
  "VendorActivityInput",
  "VendorActivityUpdateInput",
  "VendorAnswerInput",
  "VendorCreateInput",
  "VendorListQuery",
  "VendorRequest",
  "VendorUpdateInput",
  "WEBHOOK_EVENT_TYPES",
  "Webhook",
  "WebhookCreateInput",
  "WebhookDelivery",
  "WebhookListQuery",
  "WebhookUpdateInput",
  "createBackgroundPurge",
  "createChangeNotifier",
  "createDeliveryWorker",
  "createEventService",
  "createHandler",
  "createPaymentWorker",
  "createSqlStorage",
  "redactLinkTokens",
];

test("the root export holds exactly these runtime names", async () => {
  const core = await import("@event-service/core");
  assert.deepEqual(Object.keys(core).sort(), PUBLIC_RUNTIME);
});

test("the root export holds exactly these type-only names", () => {
  assert.deepEqual(typeOnlyNames("@event-service/core", PUBLIC_RUNTIME), [
    "AccessibilityNeeds",
    "AccountOperations",
    "AccountOptions",
    "AccountPaymentSettings",
    "ActivityKind",
    "ActivityOperations",
    "ActivityUnit",
    "AnalyticsOperations",
    "ApiKeyInfo",
    "AttendeeExport",
    "AttendeeOperations",
    "AttendeeStatus",
    "AuthContext",
    "BackgroundPurge",
    "BackgroundPurgeOptions",
    "BookingOperations",
    "BookingStatus",
    "CarbonOffset",
    "CarbonSettings",
    "ChangeNotifier",
    "ChangeNotifierOptions",
    "Coordinates",
    "CorsOptions",
    "CreatedApiKey",
    "DataQuality",
    "Database",
    "DeliveryStatus",
    "DeliveryWorker",
    "DeliveryWorkerOptions",
    "EmergencyContact",
    "EmissionFactorSetInput",
    "Envelope",
    "ErrorBody",
    "ErrorCode",
    "EventMetrics",
    "EventOperations",
    "EventService",
    "EventServiceOptions",
    "EventStatus",
    "ExportFormat",
    "FetchHandler",
    "HandlerOptions",
    "HostResolver",
    "KeyOperations",
    "ListResult",
    "Location",
    "MetricsEndpointOptions",
    "MetricsExposition",
    "Notification",
    "PaymentMethod",
    "PaymentOperations",
    "PaymentPass",
    "PaymentProvider",
    "PaymentSettings",
    "PaymentSettingsInput",
    "PaymentStatus",
    "PaymentWorker",
    "PaymentWorkerOptions",
    "RefundPolicy",
    "RequestLogEntry",
    "Scope",
    "ServiceErrorOptions",
    "ServiceHandler",
    "SqlStorageOptions",
    "Storage",
    "StripeClient",
    "StripeEvent",
    "StripePaymentIntent",
    "StripeRefund",
    "StripeRequestOptions",
    "SustainabilityGoals",
    "ThresholdComparison",
    "ThresholdMetric",
    "ThresholdOperations",
    "Tier",
    "TravelMode",
    "TrendMetric",
    "TrustProxy",
    "VendorCategory",
    "VendorContact",
    "VendorLinkOperations",
    "VendorLocation",
    "VendorOperations",
    "WebhookEventType",
    "WebhookOperations",
  ]);
});

test("the SQLite subpath exports exactly these names", async () => {
  const sqlite = await import("@event-service/core/sqlite");
  assert.deepEqual(Object.keys(sqlite).sort(), ["SQLITE_PRAGMAS", "SqliteKysely", "createSqliteDialect"]);
});

// Internal: what the bundled server needs beyond the public API. Not covered by semver; pinned
// so that nothing is added to it without a reason.
test("INTERNAL: the ./internal subpath exports exactly these names", async () => {
  const internal = await import("@event-service/core/internal");
  assert.deepEqual(Object.keys(internal).sort(), [
    "DEFAULT_AUTH_FAILURE_LIMIT_PER_MINUTE",
    "DEFAULT_RETRY_DELAYS_MS",
    "compileTrustProxy",
    "parseCorsOrigins",
  ]);
  assert.deepEqual(typeOnlyNames("@event-service/core/internal", Object.keys(internal)), []);
});
