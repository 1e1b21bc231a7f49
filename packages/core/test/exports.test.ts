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

// What an embedder calls or checks against at run time: the service, its handler, the storage,
// the workers and the purge, the error class and its codes, the value lists behind the union
// types, the factor set a host loads from its own file, and the schemas of the main resources and
// inputs (for an app that validates on its own side). Every other shape is a type only.
const PUBLIC_RUNTIME = [
  "ACTIVITY_KINDS",
  "ACTIVITY_UNITS",
  "ATTENDEE_STATUSES",
  "Activity",
  "ActivityInput",
  "ActivityUpdateInput",
  "Attendee",
  "AttendeeCreateInput",
  "AttendeeListQuery",
  "AttendeeUpdateInput",
  "BOOKING_STATUSES",
  "Booking",
  "BookingCreateInput",
  "BookingUpdateInput",
  "CheckInInput",
  "DATA_QUALITIES",
  "DEFAULT_EMISSION_FACTORS",
  "DELIVERY_STATUSES",
  "DOOR_RESULTS",
  "ERROR_CODES",
  "EVENT_STATUSES",
  "EmissionFactorSet",
  "Event",
  "EventCreateInput",
  "EventListQuery",
  "EventUpdateInput",
  "Money",
  "PAYMENT_METHODS",
  "PAYMENT_PROVIDERS",
  "PAYMENT_STATUSES",
  "PaymentInput",
  "REFUND_POLICIES",
  "RefundInput",
  "SCOPES",
  "ServiceError",
  "THRESHOLD_COMPARISONS",
  "THRESHOLD_METRICS",
  "TIERS",
  "Threshold",
  "ThresholdCreateInput",
  "ThresholdUpdateInput",
  "TicketTypeInput",
  "VENDOR_CATEGORIES",
  "Vendor",
  "VendorCreateInput",
  "VendorUpdateInput",
  "WEBHOOK_EVENT_TYPES",
  "Webhook",
  "WebhookCreateInput",
  "WebhookUpdateInput",
  "createBackgroundPurge",
  "createDeliveryWorker",
  "createEmailWorker",
  "createEventService",
  "createHandler",
  "createPaymentWorker",
  "createSqlStorage",
  "redactLinkTokens",
];

test("the root export holds exactly these runtime names, at most 60", async () => {
  const core = await import("@event-service/core");
  assert.deepEqual(Object.keys(core).sort(), PUBLIC_RUNTIME);
  assert.ok(Object.keys(core).length <= 60, `${Object.keys(core).length} runtime names at the root`);
});

test("the root export holds exactly these type-only names", () => {
  assert.deepEqual(typeOnlyNames("@event-service/core", PUBLIC_RUNTIME), [
    "AccessibilityNeeds",
    "AccountOperations",
    "AccountOptions",
    "AccountPaymentSettings",
    "ActivityFactor",
    "ActivityKind",
    "ActivityListQuery",
    "ActivityOperations",
    "ActivityUnit",
    "AnalyticsOperations",
    "ApiKeyCreateInput",
    "ApiKeyInfo",
    "AttendeeExport",
    "AttendeeExportQuery",
    "AttendeeOperations",
    "AttendeeStatus",
    "AuthContext",
    "BackgroundPurge",
    "BackgroundPurgeOptions",
    "BookingListQuery",
    "BookingOperations",
    "BookingStatus",
    "BookingWithLink",
    "CarbonOffset",
    "CarbonSettings",
    "Certification",
    "CheckInLink",
    "CheckInLinkCreateInput",
    "CheckoutUrls",
    "Coordinates",
    "CorsOptions",
    "CreatedApiKey",
    "CreatedWebhook",
    "Currency",
    "DataQuality",
    "Database",
    "DeleteResult",
    "DeliveryAttempt",
    "DeliveryListQuery",
    "DeliveryStatus",
    "DeliveryWorker",
    "DeliveryWorkerOptions",
    "Door",
    "DoorAttendee",
    "DoorEvent",
    "DoorLinkOperations",
    "DoorResult",
    "DoorScan",
    "DoorScanInput",
    "DoorSearch",
    "EmailAttemptInfo",
    "EmailKind",
    "EmailMessage",
    "EmailReason",
    "EmailSettings",
    "EmailStatus",
    "EmailTransport",
    "EmailWorker",
    "EmailWorkerOptions",
    "EmergencyContact",
    "EmissionFactorSetInput",
    "EmissionFactorSetResponse",
    "Envelope",
    "ErrorBody",
    "ErrorCode",
    "EventAnalytics",
    "EventMetrics",
    "EventOperations",
    "EventService",
    "EventServiceOptions",
    "EventStatus",
    "ExportFormat",
    "FactorSets",
    "FetchHandler",
    "HandlerOptions",
    "HostResolver",
    "KeyOperations",
    "ListResult",
    "Location",
    "Methodology",
    "MetricsEndpointOptions",
    "MetricsExposition",
    "Notification",
    "OfflineEntry",
    "OfflineList",
    "OperationTypes",
    "Pagination",
    "Payment",
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
    "RotatedWebhook",
    "Scope",
    "ServiceErrorOptions",
    "ServiceHandler",
    "SqlStorageOptions",
    "Storage",
    "StripeCheckoutSession",
    "StripeCheckoutSessionParams",
    "StripeClient",
    "StripeEvent",
    "StripePaymentIntent",
    "StripeRefund",
    "StripeRequestOptions",
    "SustainabilityGoals",
    "SustainabilityQuery",
    "SustainabilityReport",
    "SustainabilityReportDocument",
    "ThresholdComparison",
    "ThresholdListQuery",
    "ThresholdMetric",
    "ThresholdOperations",
    "Ticket",
    "TicketLinkOperations",
    "TicketTravelInput",
    "TicketType",
    "TicketUpdateInput",
    "Tier",
    "TravelMode",
    "TrendMetric",
    "TrendQuery",
    "TrendReport",
    "TrustProxy",
    "VendorActivityInput",
    "VendorActivityUpdateInput",
    "VendorAnswerInput",
    "VendorCategory",
    "VendorContact",
    "VendorLinkOperations",
    "VendorListQuery",
    "VendorLocation",
    "VendorOperations",
    "VendorRequest",
    "WebhookDelivery",
    "WebhookEventType",
    "WebhookListQuery",
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
    "DEFAULT_DOOR_LINK_LIMIT_PER_MINUTE",
    "DEFAULT_RETRY_DELAYS_MS",
    "compileTrustProxy",
    "createFactorSets",
    "onFirstUse",
    "parseCorsOrigins",
  ]);
  assert.deepEqual(typeOnlyNames("@event-service/core/internal", Object.keys(internal)), []);
});
