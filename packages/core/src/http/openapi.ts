import * as z from "zod";
import { ERROR_CODES, type ErrorCode } from "../errors.ts";
import { SCOPES, scopesGranting, TIER_LIMITS } from "../resources/api-key.ts";
import { NUMBER_PARAM_DOCS } from "../resources/common.ts";
import { exampleDates } from "../operations/define.ts";
import {
  DOOR_LINK_ROUTES,
  type Route,
  ROUTES,
  type RouteSpec,
  TICKET_LINK_ROUTES,
  VENDOR_LINK_ROUTES,
} from "./routes.ts";
import { API_VERSION } from "./api-version.ts";
import { ErrorBodySchema, HealthSchema, ServiceIndexSchema } from "./schemas.ts";

type JsonSchema = Record<string, unknown>;

/** Errors any authenticated route can answer. */
const COMMON_ERRORS: readonly ErrorCode[] = [
  "INVALID_REQUEST",
  "UNAUTHORIZED",
  "FORBIDDEN",
  "RATE_LIMIT_EXCEEDED",
  "INTERNAL_ERROR",
  "SERVICE_UNAVAILABLE",
];
/** Errors of routes that read a JSON body. */
const BODY_ERRORS: readonly ErrorCode[] = ["PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"];
/** Errors of POST routes (Idempotency-Key). */
const IDEMPOTENCY_ERRORS: readonly ErrorCode[] = ["IDEMPOTENCY_KEY_IN_USE", "IDEMPOTENCY_KEY_REUSED"];

const RATE_LIMIT_HEADERS = {
  "X-RateLimit-Limit": { description: "Requests allowed per minute for the account.", schema: { type: "integer" } },
  "X-RateLimit-Remaining": {
    description: "Requests left in the current minute (0 once the day's limit is used up).",
    schema: { type: "integer" },
  },
  "X-RateLimit-Reset": {
    description: "Unix epoch second when the binding window resets.",
    schema: { type: "integer" },
  },
  "X-Request-Id": { description: "The request's id (the one sent, or a generated UUID).", schema: { type: "string" } },
};

/** What a date and a date-time look like in the document: one example each, instead of zod's long `pattern`. */
interface DateForms {
  /** A date-time as sent (`2027-05-01T09:00:00+02:00`). */
  input: string;
  /** The same instant as answered, in UTC (`2027-05-01T07:00:00.000Z`). */
  output: string;
  date: string;
}

function jsonSchema(schema: z.ZodType, io: "input" | "output", forms: DateForms): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
    io,
    unrepresentable: "any",
    target: "draft-2020-12",
    override: ({ zodSchema, jsonSchema }) => {
      const documented = NUMBER_PARAM_DOCS.get(zodSchema);
      if (documented) {
        for (const key of Object.keys(jsonSchema)) delete (jsonSchema as Record<string, unknown>)[key];
        Object.assign(jsonSchema, documented);
        return;
      }
      if (jsonSchema.format !== "date-time" && jsonSchema.format !== "date") return;
      delete jsonSchema.pattern;
      const example = jsonSchema.format === "date" ? forms.date : io === "input" ? forms.input : forms.output;
      jsonSchema.examples ??= [example];
    },
  }) as JsonSchema;
  return rest;
}

/**
 * Builds the OpenAPI 3.1 document from the route table and the zod schemas the service validates
 * with; its examples are dated from `now`.
 */
function buildDocument(now: Date): Record<string, unknown> {
  const dates = exampleDates(now);
  const start = dates.startDate;
  const forms: DateForms = { input: start, output: new Date(start).toISOString(), date: start.slice(0, 10) };
  const components: Record<string, JsonSchema> = {};
  const named = new Map<z.ZodType, string>();
  const ref = (schema: z.ZodType, name: string, io: "input" | "output") => {
    if (!named.has(schema)) {
      named.set(schema, name);
      const { $defs, ...root } = jsonSchema(schema, io, forms);
      // A schema given an id (`.meta({ id })`) comes out once, in $defs, referred to from
      // everywhere it appears: it becomes a component of its own (under its id), and the
      // refs point there. A root that is itself one of them is that component.
      const defs = ($defs ?? {}) as Record<string, JsonSchema>;
      const lifted = JSON.parse(JSON.stringify({ root, defs }).replaceAll('"#/$defs/', '"#/components/schemas/')) as {
        root: JsonSchema;
        defs: Record<string, JsonSchema>;
      };
      for (const [id, def] of Object.entries(lifted.defs)) components[id] ??= def;
      const self = `#/components/schemas/${name}`;
      if (!(lifted.root.$ref === self && Object.keys(lifted.root).length === 1)) components[name] = lifted.root;
    }
    return { $ref: `#/components/schemas/${named.get(schema)}` };
  };
  const errorRef = ref(ErrorBodySchema, "Error", "output");

  const errorResponses = (codes: readonly ErrorCode[]) => {
    const byStatus = new Map<number, ErrorCode[]>();
    for (const code of new Set(codes)) {
      const status = ERROR_CODES[code].status;
      byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
    }
    return Object.fromEntries(
      [...byStatus]
        .sort(([a], [b]) => a - b)
        .map(([status, list]) => [
          String(status),
          {
            description: list.map((code) => `\`${code}\`: ${ERROR_CODES[code].message}`).join(" "),
            headers:
              status === 429 || status === 503
                ? { "Retry-After": { description: "Seconds to wait before retrying.", schema: { type: "integer" } } }
                : undefined,
            content: { "application/json": { schema: errorRef } },
          },
        ]),
    );
  };

  const operation = (route: RouteSpec & Partial<Pick<Route, "scope" | "orScope">>) => {
    const pathParams = [...route.path.matchAll(/:(\w+)/g)].map((m) => ({
      name: m[1],
      in: "path",
      required: true,
      schema: { type: "string" },
    }));
    const queryProps = route.query
      ? ((jsonSchema(route.query, "input", forms).properties ?? {}) as Record<string, JsonSchema>)
      : {};
    const queryParams = Object.entries(queryProps).map(([name, schema]) => ({
      name,
      in: "query",
      required: false,
      schema,
      ...(typeof schema.description === "string" && { description: schema.description }),
    }));
    const headerParams = [
      ...(route.method === "POST"
        ? [
            {
              name: "Idempotency-Key",
              in: "header",
              required: false,
              description: "Makes a retry safe: the first answer is replayed for 24 hours.",
              schema: { type: "string", minLength: 1, maxLength: 255 },
            },
          ]
        : []),
      {
        name: "X-Request-Id",
        in: "header",
        required: false,
        description: "Your id for this request, echoed back and logged.",
        schema: { type: "string", maxLength: 128 },
      },
    ];
    const name = route.operationId.charAt(0).toUpperCase() + route.operationId.slice(1);
    // A route without a body still reads one to refuse it (`INVALID_REQUEST`), and so may find it too large.
    const bodyErrors = route.body ? BODY_ERRORS : route.method === "GET" ? [] : (["PAYLOAD_TOO_LARGE"] as const);
    const codes = [
      ...COMMON_ERRORS,
      ...route.errors,
      ...bodyErrors,
      ...(route.method === "POST" ? IDEMPOTENCY_ERRORS : []),
    ];
    return {
      operationId: route.operationId,
      summary: route.summary,
      tags: [route.tag],
      ...(route.scope === undefined && { security: [] }),
      description: [
        route.scope === undefined && route.tag === "Check-in link"
          ? "No API key: the door's check-in link (its token, in the path) is the capability. A token that opens no door (unknown, revoked, expired, or its event deleted) is `404` and counts against its address's limit of requests without a valid key."
          : route.scope === undefined && route.tag === "Ticket link"
            ? "No API key: the attendee's ticket link (its token, in the path) is the capability. A token that opens no registration (unknown, replaced by a new link, or its registration erased) is `404` and counts against its address's limit of requests without a valid key."
            : route.scope === undefined
              ? "No API key: the vendor's link (its token, in the path) is the capability. A token that opens no booking (unknown, rotated, or its booking cancelled) is `404` and counts against its address's limit of requests without a valid key."
              : `Needs the ${[...scopesGranting(route.scope), ...(route.orScope ? scopesGranting(route.orScope) : [])]
                  .map((scope) => `\`${scope}\``)
                  .join(" or the ")} scope.`,
        ...(!route.body && route.method !== "GET"
          ? ["Takes no body: a non-empty one (anything but `{}`) is `400 INVALID_REQUEST`."]
          : []),
        `Also served under \`/api${route.path.replace(/:(\w+)/g, "{$1}")}\`.`,
      ].join(" "),
      parameters: [...pathParams, ...queryParams, ...headerParams],
      ...(route.body && {
        requestBody: {
          required: route.bodyOptional !== true,
          content: {
            "application/json": {
              schema: ref(route.body, `${name}Body`, "input"),
              ...(route.example && {
                examples: { [route.operationId]: { summary: "Example", value: route.example(dates) } },
              }),
            },
          },
        },
      }),
      responses: {
        [String(route.response.status)]: {
          description: route.response.description,
          headers: {
            ...RATE_LIMIT_HEADERS,
            ...(route.method === "POST" && {
              "Idempotent-Replayed": { description: "`true` on a replayed answer.", schema: { type: "string" } },
            }),
          },
          content: {
            // A route that answers JSON too (`media` adds to it) lists its schema first.
            ...((!route.response.media || route.response.jsonToo) && {
              "application/json": { schema: ref(route.response.schema, route.response.name, "output") },
            }),
            ...Object.fromEntries(
              Object.entries(route.response.media ?? {}).map(([type, description]) => [
                type,
                { schema: { type: "string", description } },
              ]),
            ),
          },
        },
        ...errorResponses(codes),
      },
    };
  };

  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of [...ROUTES, ...VENDOR_LINK_ROUTES, ...TICKET_LINK_ROUTES, ...DOOR_LINK_ROUTES]) {
    const path = `/v1${route.path.replace(/:(\w+)/g, "{$1}")}`;
    (paths[path] ??= {})[route.method.toLowerCase()] = operation(route);
  }
  paths["/"] = {
    get: {
      operationId: "serviceIndex",
      summary: "What this service is, with links to its reference page, its OpenAPI document and its health check",
      tags: ["Service"],
      security: [],
      responses: {
        "200": {
          description: "The index",
          content: { "application/json": { schema: ref(ServiceIndexSchema, "ServiceIndex", "output") } },
        },
      },
    },
  };
  paths["/health"] = {
    get: {
      operationId: "health",
      summary: "Is the service up (and its store reachable)?",
      tags: ["Service"],
      security: [],
      responses: {
        "200": {
          description: "Up",
          content: { "application/json": { schema: ref(HealthSchema, "Health", "output") } },
        },
        ...errorResponses(["SERVICE_UNAVAILABLE"]),
      },
    },
  };
  paths["/v1/payments/stripe/webhook"] = {
    post: {
      operationId: "stripeWebhook",
      summary:
        "Stripe's notifications (payment_intent.succeeded, payment_intent.payment_failed): no API key, the Stripe-Signature is verified",
      tags: ["Payments"],
      security: [],
      parameters: [{ name: "Stripe-Signature", in: "header", required: true, schema: { type: "string" } }],
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: {
              type: "object",
              description:
                "A Stripe Event, as Stripe sends it; for the two types handled, `data.object` is a PaymentIntent (`id`, `amount`, `amount_received`, `currency`, `metadata`).",
              properties: {
                id: { type: "string" },
                type: { type: "string" },
                data: { type: "object", properties: { object: { type: "object" } }, required: ["object"] },
              },
              required: ["id", "type", "data"],
            },
          },
        },
      },
      responses: {
        "200": {
          description: "Received (also for an event handled before, or of no interest)",
          content: {
            "application/json": {
              schema: { type: "object", properties: { received: { const: true } }, required: ["received"] },
            },
          },
        },
        ...errorResponses([
          "INVALID_REQUEST",
          "INVALID_SIGNATURE",
          "NOT_FOUND",
          "PAYLOAD_TOO_LARGE",
          "RATE_LIMIT_EXCEEDED",
        ]),
      },
    },
  };
  paths["/v1/qr/{attendeeId}.{format}"] = {
    get: {
      operationId: "qrCode",
      summary: "The QR code image of a registration's confirmation code (public: the attendee id is the capability)",
      tags: ["Attendees"],
      security: [],
      parameters: [
        { name: "attendeeId", in: "path", required: true, schema: { type: "string" } },
        { name: "format", in: "path", required: true, schema: { type: "string", enum: ["png", "svg"] } },
      ],
      responses: {
        "200": {
          description: "The image",
          content: {
            "image/png": { schema: { type: "string", contentMediaType: "image/png" } },
            "image/svg+xml": { schema: { type: "string" } },
          },
        },
        ...errorResponses(["NOT_FOUND"]),
      },
    },
  };

  const limits = Object.entries(TIER_LIMITS)
    .map(([tier, l]) => `| ${tier} | ${l.perMinute} | ${l.perDay} |`)
    .join("\n");
  return {
    openapi: "3.1.0",
    info: {
      title: "Event Service API",
      version: API_VERSION,
      summary: "Sustainable events: events, registrations, check-in, carbon figures, analytics.",
      description: [
        "Every route is served under `/v1` and, identically, under `/api`. Authenticate with `Authorization: Bearer <API key>`.",
        "Every failure answers one error body (see the `Error` schema and the list of codes on this page); its message says how to fix the input.",
        "Amounts of money are whole numbers in the currency's minor units: `4500` is 45.00 EUR (JSON's `45.00` is the number 45, so 0.45 EUR).",
        "",
        "## Getting a key",
        "",
        "Whoever runs the server makes API keys with its command line, on the same database (an unknown account name creates the account). The key is shown once; only its hash is stored:",
        "",
        "```sh",
        'npx event-service keys create --account "Acme" --tier professional --json',
        "```",
        "",
        `\`--scopes events:read,attendees:write\` limits what the key may do (${SCOPES.map((scope) => `\`${scope}\``).join(", ")}; none named: all of them). \`--tier\` (${Object.keys(
          TIER_LIMITS,
        )
          .map((tier) => `\`${tier}\``)
          .join(", ")}) sets the rate limits below. Send the key on every request:`,
        "",
        "```sh",
        'curl http://127.0.0.1:3000/v1/events -H "Authorization: Bearer esk_…"',
        "```",
        "",
        "## Rate limits",
        "",
        "Rate limits count per account, per minute and per UTC day (enterprise accounts set their own):",
        "",
        "| tier | per minute | per day |",
        "|---|---|---|",
        limits,
      ].join("\n"),
      license: { name: "MIT", identifier: "MIT" },
    },
    servers: [{ url: "/", description: "This service" }],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: "Events", description: "Events and check-in" },
      { name: "Attendees", description: "Registrations" },
      { name: "Webhooks", description: "HTTPS endpoints notified of changes" },
      { name: "Analytics", description: "Read-only sustainability metrics, per-event analytics and trends" },
      {
        name: "Activities",
        description:
          "An event's activity records (energy, fuel, catering, waste, ...), priced with the factor set in use",
      },
      { name: "Thresholds", description: "Configured metric thresholds, notified as analytics.threshold_exceeded" },
      {
        name: "Vendors",
        description: "Suppliers of the account's events and their bookings, each with the vendor's own link",
      },
      {
        name: "Vendor link",
        description:
          "What a vendor does through its booking's link, without an API key: see the request, confirm or decline, report its activity data",
      },
      {
        name: "Ticket link",
        description:
          "What an attendee does through their own ticket link, without an API key: see the ticket, change their details and travel, cancel, add the event to a calendar",
      },
      {
        name: "Check-in link",
        description:
          "What a door does through its event's check-in link, without an API key: scan tickets (a person's ticket is never a 4xx: the result says what is wrong), undo a check-in, find a registration by name, download the offline list",
      },
      {
        name: "Payments",
        description: "Money for priced registrations: recorded by hand, refunded",
      },
      { name: "Service", description: "Health" },
    ],
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          description: `An API key, e.g. \`esk_…\`. Its scopes (${SCOPES.map((scope) => `\`${scope}\``).join(", ")}; a key made without naming any has all) decide what it may do; a \`:write\` scope includes the \`:read\` of its family, and a read-only key never writes.`,
        },
      },
    },
  };
}

let cached: string | undefined;

/** The OpenAPI 3.1 document of the API, as JSON text (built once). */
export function openApiDocument(): string {
  cached ??= JSON.stringify(buildDocument(new Date()));
  return cached;
}
