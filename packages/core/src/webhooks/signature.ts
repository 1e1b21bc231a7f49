/**
 * Signing and verifying webhook deliveries: `X-Service-Signature: sha256=<hex HMAC-SHA256 of
 * the raw body, keyed with the webhook's secret>` (GitHub's format), and the Standard Webhooks
 * headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`) that add replay protection.
 *
 * This module is the `@event-service/core/webhooks` entry: it depends on `node:crypto` only,
 * so a receiver can import it without the rest of the service.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

/** The header that carries the signature. */
export const SIGNATURE_HEADER = "X-Service-Signature";

const PREFIX = "sha256=";

/**
 * The signature header value of a body: `sha256=` and the hex HMAC-SHA256 of its exact bytes.
 *
 * @example
 * const header = signPayload(secret, JSON.stringify(envelope));
 */
export function signPayload(secret: string, rawBody: string | Uint8Array): string {
  return PREFIX + createHmac("sha256", secret).update(rawBody).digest("hex");
}

/**
 * True when `header` is the signature of `rawBody` under `secret`. Compares in constant time;
 * verify the raw bytes as received, before any JSON parsing.
 *
 * @example
 * // in a node:http receiver
 * const ok = verifySignature(process.env.WEBHOOK_SECRET!, rawBody, request.headers["x-service-signature"]);
 */
export function verifySignature(
  secret: string,
  rawBody: string | Uint8Array,
  header: string | null | undefined,
): boolean {
  if (typeof header !== "string" || !header.startsWith(PREFIX)) return false;
  const given = Buffer.from(header.slice(PREFIX.length), "hex");
  const expected = createHmac("sha256", secret).update(rawBody).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}

// Standard Webhooks (https://www.standardwebhooks.com): `webhook-id`, `webhook-timestamp` and
// `webhook-signature` on every attempt, so a receiver can refuse a replayed or tampered
// delivery with our `verifyWebhook` or with any off-the-shelf verifier.

/** The envelope id: the same on every attempt and redelivery of a notification (de-duplicate on it). */
export const WEBHOOK_ID_HEADER = "webhook-id";
/** Unix seconds when this attempt was signed. */
export const WEBHOOK_TIMESTAMP_HEADER = "webhook-timestamp";
/** `v1,<base64 signature>`, space-separated when more than one secret signs (during a rotation). */
export const WEBHOOK_SIGNATURE_HEADER = "webhook-signature";

/** How far a `webhook-timestamp` may be from the receiver's clock, either way, by default: 5 minutes. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

const SECRET_PREFIX = "whsec_";
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The HMAC key of a secret: the base64-decoded part after `whsec_`, as the Standard Webhooks
 * libraries read it. A secret that is not in that form (one given before secrets had to be)
 * is used as its UTF-8 bytes, so that no lenient decoding can shrink it to a weak key.
 */
export function webhookSigningKey(secret: string): Uint8Array {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (encoded.length > 0 && CANONICAL_BASE64.test(encoded)) return Buffer.from(encoded, "base64");
  return Buffer.from(secret, "utf8");
}

function standardSignature(key: Uint8Array, id: string, timestamp: number, rawBody: string | Uint8Array): Buffer {
  return createHmac("sha256", key).update(`${id}.${timestamp}.`).update(rawBody).digest();
}

/**
 * The Standard Webhooks headers of one attempt: `webhook-id`, `webhook-timestamp` and
 * `webhook-signature` with one `v1,` signature per secret (the current one first; during a
 * rotation the previous one too), each the base64 HMAC-SHA256 of `{id}.{timestamp}.{body}`.
 *
 * @example
 * const headers = signWebhook([secret], envelope.id, Math.floor(Date.now() / 1000), body);
 */
export function signWebhook(
  secrets: readonly string[],
  id: string,
  timestamp: number,
  rawBody: string | Uint8Array,
): Record<string, string> {
  const signatures = secrets.map(
    (secret) => `v1,${standardSignature(webhookSigningKey(secret), id, timestamp, rawBody).toString("base64")}`,
  );
  return {
    [WEBHOOK_ID_HEADER]: id,
    [WEBHOOK_TIMESTAMP_HEADER]: String(timestamp),
    [WEBHOOK_SIGNATURE_HEADER]: signatures.join(" "),
  };
}

/** Why {@link verifyWebhook} refused a request. */
export const WEBHOOK_VERIFICATION_FAILURES = [
  "missing_headers",
  "invalid_timestamp",
  "timestamp_too_old",
  "timestamp_too_new",
  "invalid_signature",
  "invalid_payload",
] as const;
export type WebhookVerificationFailure = (typeof WEBHOOK_VERIFICATION_FAILURES)[number];

/** Thrown by {@link verifyWebhook}: answer the request with a 4xx and do not act on it. */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
  constructor(
    /** What was wrong, for logs and metrics. */
    readonly reason: WebhookVerificationFailure,
    message: string,
  ) {
    super(message);
  }
}

/** A verified delivery. */
export interface VerifiedWebhook {
  /** The `webhook-id`: the envelope id, the same on every attempt and redelivery. Remember it to process a notification once. */
  id: string;
  /** The `webhook-timestamp`, Unix seconds. */
  timestamp: number;
  /** The parsed body: the envelope `{ id, type, createdAt, data, account }`. */
  // biome-ignore lint/suspicious/noExplicitAny: receivers read the envelope's fields without a cast; its shape is documented, not enforced here.
  payload: any;
}

/** Options of {@link verifyWebhook}. */
export interface VerifyWebhookOptions {
  /** How far the timestamp may be from `now`, either way. Default 300 (5 minutes). */
  toleranceSeconds?: number;
  /** The receiver's clock; `new Date()` by default. */
  now?: Date;
}

/** Request headers as `Headers` (fetch, Hono, h3) or a plain object (`node:http`'s `request.headers`). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Verifies a delivery the Standard Webhooks way and returns it parsed. Throws a
 * {@link WebhookVerificationError} (its `reason` says why) when a header is missing, when
 * `webhook-timestamp` is more than `toleranceSeconds` (default 300) away from now, either way
 * (a replay of a captured delivery), or when no `v1` signature of `webhook-signature` is the
 * HMAC of `{webhook-id}.{webhook-timestamp}.{rawBody}` under `secret` (tampered, or another
 * secret). During a secret rotation either secret verifies. Pass the raw body exactly as
 * received, before any JSON parsing; comparisons take constant time.
 *
 * A verified delivery may still arrive twice (a retry after a lost answer): de-duplicate on
 * the returned `id`.
 *
 * @example
 * try {
 *   const { id, payload } = verifyWebhook(process.env.WEBHOOK_SECRET!, request.headers, rawBody);
 *   if (await alreadyProcessed(id)) return reply(200);
 *   await handle(payload);
 * } catch (error) {
 *   if (error instanceof WebhookVerificationError) return reply(400);
 *   throw error;
 * }
 */
export function verifyWebhook(
  secret: string,
  headers: WebhookHeaders,
  rawBody: string | Uint8Array,
  options: VerifyWebhookOptions = {},
): VerifiedWebhook {
  const id = header(headers, WEBHOOK_ID_HEADER);
  const timestampText = header(headers, WEBHOOK_TIMESTAMP_HEADER);
  const signatures = header(headers, WEBHOOK_SIGNATURE_HEADER);
  if (!id || !timestampText || !signatures)
    throw new WebhookVerificationError(
      "missing_headers",
      "webhook-id, webhook-timestamp and webhook-signature are required",
    );
  if (!/^\d{1,12}$/.test(timestampText))
    throw new WebhookVerificationError("invalid_timestamp", "webhook-timestamp is not Unix seconds");
  const timestamp = Number(timestampText);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (timestamp < now - tolerance)
    throw new WebhookVerificationError("timestamp_too_old", `webhook-timestamp is more than ${tolerance} s old`);
  if (timestamp > now + tolerance)
    throw new WebhookVerificationError("timestamp_too_new", `webhook-timestamp is more than ${tolerance} s ahead`);
  const expected = standardSignature(webhookSigningKey(secret), id, timestamp, rawBody);
  let matched = false;
  for (const part of signatures.split(" ")) {
    const [version, encoded] = part.split(",", 2);
    if (version !== "v1" || !encoded) continue;
    const given = Buffer.from(encoded, "base64");
    // No early exit: every signature is compared, each in constant time.
    if (given.length === expected.length && timingSafeEqual(given, expected)) matched = true;
  }
  if (!matched) throw new WebhookVerificationError("invalid_signature", "no webhook-signature matches the secret");
  const text = typeof rawBody === "string" ? rawBody : new TextDecoder().decode(rawBody);
  try {
    return { id, timestamp, payload: JSON.parse(text) };
  } catch {
    throw new WebhookVerificationError("invalid_payload", "the body is not JSON");
  }
}
