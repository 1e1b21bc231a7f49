import { randomBytes } from "node:crypto";
import * as z from "zod";
import { ServiceError } from "../errors.ts";
import { holdsScope, type Scope } from "./api-key.ts";
import { BooleanParam, KeyValueMap, pagingParams, plainText, resolvePaging, Timestamp } from "./common.ts";

/** The type of the test notification of `POST /webhooks/:id/ping` (not subscribable). */
export const PING_EVENT_TYPE = "webhook.ping";

/** Every notification type a webhook can subscribe to (docs/api.md, Envelope and types); `*` subscribes to all. */
export const WEBHOOK_EVENT_TYPES = [
  "event.created",
  "event.updated",
  "event.deleted",
  "event.published",
  "event.cancelled",
  "event.completed",
  "attendee.registered",
  "attendee.updated",
  "attendee.cancelled",
  "attendee.checked_in",
  // A waiting registration got a place (the waiting list).
  "attendee.promoted",
  // Sent by DELETE /attendees/:id, the erasure of a registration.
  "attendee.deleted",
  "sustainability.goal_achieved",
  "sustainability.carbon_offset",
  "sustainability.report_generated",
  "analytics.report_ready",
  "analytics.threshold_exceeded",
  // Vendor coordination: a booking's request, its vendor's answer, its cancellation, the vendor's data.
  "vendor.booking_requested",
  "vendor.confirmed",
  "vendor.declined",
  "vendor.cancelled",
  "vendor.data_submitted",
  // Payments: a priced registration paid, declined, expired unpaid, or refunded.
  "payment.succeeded",
  "payment.failed",
  "payment.expired",
  "payment.refunded",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/**
 * The scope a key needs to read a notification type's data directly, by the type's family (the
 * part before the dot): a key reaches through webhooks only what its scopes let it read
 * (docs/api.md, Webhooks (registration)). The one rule behind both the subscription check ({@link assertSubscribable}) and
 * the delivery log's redaction ({@link canReadNotification}).
 */
export const READ_SCOPE_BY_FAMILY = {
  event: "events:read",
  sustainability: "events:read",
  attendee: "attendees:read",
  analytics: "analytics:read",
  vendor: "vendors:read",
  payment: "payments:read",
} as const satisfies Record<string, Scope>;

/**
 * Types whose data carries more than their family reads: `sustainability.carbon_offset` holds the
 * registration (name, email), which only `attendees:read` reads directly.
 */
const EXTRA_READ_SCOPES: Partial<Record<string, readonly Scope[]>> = {
  "sustainability.carbon_offset": ["attendees:read"],
};

/** The scopes that read every type: what `*` needs. */
const ALL_READ_SCOPES: readonly Scope[] = [...new Set(Object.values(READ_SCOPE_BY_FAMILY))];

/**
 * The scopes a key needs to read notifications of `type` directly: none for `webhook.ping`
 * (its data is the webhook itself), every read scope for `*` and, failing closed, for any type
 * of no known family.
 */
export function readScopesFor(type: string): readonly Scope[] {
  if (type === PING_EVENT_TYPE) return [];
  const family = type.slice(0, type.indexOf(".")) as keyof typeof READ_SCOPE_BY_FAMILY;
  if (!Object.hasOwn(READ_SCOPE_BY_FAMILY, family)) return ALL_READ_SCOPES;
  return [READ_SCOPE_BY_FAMILY[family], ...(EXTRA_READ_SCOPES[type] ?? [])];
}

/** The read scopes notifications of `types` need that `scopes` do not grant (a `:write` grants its `:read`), each once. */
export function missingReadScopes(types: readonly string[], scopes: readonly Scope[]): Scope[] {
  const needed = new Set(types.flatMap(readScopesFor));
  return ALL_READ_SCOPES.filter((scope) => needed.has(scope) && !holdsScope(scopes, scope));
}

/** True when a key with `scopes` may read the data of a notification of `type` directly. */
export function canReadNotification(type: string, scopes: readonly Scope[]): boolean {
  return missingReadScopes([type], scopes).length === 0;
}

/** `DUPLICATE_WEBHOOK` (field `url`): the account's webhook `takenBy` already has `url` (one webhook per URL and account). */
export function duplicateWebhook(url: string, takenBy: string): ServiceError {
  return new ServiceError("DUPLICATE_WEBHOOK", {
    message: `Webhook ${takenBy} already uses ${url}.`,
    field: "url",
    details: { webhookId: takenBy },
  });
}

/**
 * Throws `403 FORBIDDEN` when a key with `scopes` may not subscribe to every one of `types`:
 * `attendee.*` needs `attendees:read`, `event.*` and `sustainability.*` `events:read`
 * (`sustainability.carbon_offset` `attendees:read` too: it carries the registration),
 * `analytics.*` `analytics:read`, and `*` all three; each read is granted by its family's
 * `:write` too ({@link holdsScope}). `details.requiredScopes` names the missing read scopes.
 */
export function assertSubscribable(types: readonly string[], scopes: readonly Scope[]): void {
  const missing = missingReadScopes(types, scopes);
  if (missing.length === 0) return;
  throw new ServiceError("FORBIDDEN", {
    message: `This API key lacks the ${missing.join(" and ")} scope${missing.length > 1 ? "s" : ""} needed to subscribe to these event types.`,
    field: "events",
    details: { requiredScopes: missing },
  });
}

const URL_MAX = 2048;

const webhookFields = {
  url: z
    .string()
    .trim()
    .min(1)
    .max(URL_MAX)
    .meta({ description: "An https:// URL that resolves to a public address." }),
  // Any string here: an unknown name is INVALID_EVENT_TYPE (assertEventTypes), not a schema error.
  events: z
    .array(z.string().max(URL_MAX))
    .min(1)
    .max(100)
    .transform((types) => [...new Set(types)])
    .meta({ description: "Event types (docs/api.md, Webhooks), or `*` for all." }),
  description: plainText(500).nullish(),
  active: z.boolean().optional(),
  metadata: KeyValueMap.nullish(),
};

/** Body of `POST /webhooks`. */
export const WebhookCreateInput = z.strictObject({
  ...webhookFields,
  secret: z
    .string()
    .max(256)
    .refine(isValidClientSecret, "must be whsec_ followed by the base64 of 24 to 64 random bytes")
    .optional()
    .meta({
      description:
        "Signing secret, `whsec_` and the base64 of 24 to 64 random bytes (Standard Webhooks form); generated when omitted. Returned only in this response.",
    }),
});
export type WebhookCreateInput = z.input<typeof WebhookCreateInput>;
export type WebhookCreate = z.output<typeof WebhookCreateInput>;

/** Body of `PUT /webhooks/:id`: a partial update. `active: true` re-enables and resets the failure count. */
export const WebhookUpdateInput = z.strictObject({
  url: webhookFields.url.optional(),
  events: webhookFields.events.optional(),
  description: webhookFields.description,
  active: webhookFields.active,
  metadata: webhookFields.metadata,
});
export type WebhookUpdateInput = z.input<typeof WebhookUpdateInput>;
export type WebhookUpdate = z.output<typeof WebhookUpdateInput>;

/** A webhook as stored. */
export const WebhookRecord = z.object({
  id: z.string(),
  accountId: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  description: z.string().nullable(),
  secret: z.string(),
  /** The secret before the last rotation: it signs too until `previousSecretExpiresAt`. */
  previousSecret: z.string().nullable(),
  previousSecretExpiresAt: Timestamp.nullable(),
  active: z.boolean(),
  metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
  consecutiveFailures: z.int(),
  disabledAt: Timestamp.nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type WebhookRecord = z.infer<typeof WebhookRecord>;

/** A webhook as the API lists it: never its secret. */
export const Webhook = WebhookRecord.omit({
  accountId: true,
  secret: true,
  previousSecret: true,
  previousSecretExpiresAt: true,
});
export type Webhook = z.infer<typeof Webhook>;

/** The API form of a webhook: never its secret. */
export function toApiWebhook(webhook: WebhookRecord): Webhook {
  const {
    accountId: _accountId,
    secret: _secret,
    previousSecret: _previous,
    previousSecretExpiresAt: _expires,
    ...rest
  } = webhook;
  return rest;
}

/** The create response: the only time the secret is shown. */
export const CreatedWebhook = Webhook.extend({ secret: z.string() });
export type CreatedWebhook = z.infer<typeof CreatedWebhook>;

/** The answer of `POST /webhooks/:id/rotate-secret`: the new secret, shown this once, and when the previous one stops signing. */
export const RotatedWebhook = CreatedWebhook.extend({
  previousSecretExpiresAt: Timestamp.meta({
    description: "Until then deliveries are signed with the previous secret too.",
  }),
});
export type RotatedWebhook = z.infer<typeof RotatedWebhook>;

/** How long a rotated-out secret keeps signing beside the new one: 24 hours. */
export const SECRET_ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** Query of `GET /webhooks`. */
export const WebhookListQuery = z
  .strictObject({ ...pagingParams, active: BooleanParam.optional() })
  .transform(resolvePaging);
export type WebhookListQuery = z.output<typeof WebhookListQuery>;

/**
 * A new signing secret in the Standard Webhooks form: `whsec_` and the base64 of 32 bytes
 * from the CSPRNG. (Secrets generated before were `whsec_` and 64 hex digits: valid base64
 * too, so they keep verifying with the same rule.)
 */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

/** True for `whsec_` followed by the canonical base64 of 24 to 64 bytes. */
export function isValidClientSecret(secret: string): boolean {
  if (!secret.startsWith("whsec_")) return false;
  const encoded = secret.slice("whsec_".length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return false;
  const bytes = Buffer.from(encoded, "base64");
  // The round trip refuses non-canonical forms (bad padding, stray bits) that would decode to something else.
  return bytes.toString("base64") === encoded && bytes.length >= 24 && bytes.length <= 64;
}

/**
 * The lowest port a webhook URL may name besides 443 (https' own, which the URL parser stores as
 * no port): below it live SSH, SMTP and the other well-known services a key could otherwise
 * probe through ping's error messages.
 */
export const MIN_WEBHOOK_PORT = 1024;

/**
 * Throws `INVALID_URL` unless `value` is an absolute https:// URL without credentials whose port
 * is 443 or 1024-65535. Checked at create and update, and again before every attempt, so a row
 * stored before a rule was added is refused rather than connected to.
 */
export function assertHttpsUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ServiceError("INVALID_URL", { message: "url: not a valid absolute URL", field: "url" });
  }
  if (url.protocol !== "https:")
    throw new ServiceError("INVALID_URL", { message: "url: must use https://", field: "url" });
  if (url.username || url.password)
    throw new ServiceError("INVALID_URL", {
      message: "url: must not carry credentials (user or password)",
      field: "url",
    });
  if (url.port !== "" && Number(url.port) < MIN_WEBHOOK_PORT) {
    throw new ServiceError("INVALID_URL", {
      message: `url: port ${url.port} is not allowed; use 443 or a port from ${MIN_WEBHOOK_PORT} to 65535`,
      field: "url",
    });
  }
  // A fragment never reaches the receiver: dropped, so the same endpoint is one URL (DUPLICATE_WEBHOOK).
  url.hash = "";
  return url;
}

/** Throws `INVALID_EVENT_TYPE` for a type that is neither `*` nor one of {@link WEBHOOK_EVENT_TYPES}. */
export function assertEventTypes(types: readonly string[]): void {
  types.forEach((type, index) => {
    if (type !== "*" && !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(type)) {
      throw new ServiceError("INVALID_EVENT_TYPE", {
        message: `events.${index}: unknown event type ${JSON.stringify(type)}`,
        field: `events.${index}`,
        details: { allowed: ["*", ...WEBHOOK_EVENT_TYPES] },
      });
    }
  });
}
