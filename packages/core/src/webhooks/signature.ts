/**
 * Signing and verifying webhook deliveries: `X-Service-Signature: sha256=<hex HMAC-SHA256 of
 * the raw body, keyed with the webhook's secret>` (GitHub's format).
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
export function verifySignature(secret: string, rawBody: string | Uint8Array, header: string | null | undefined): boolean {
  if (typeof header !== "string" || !header.startsWith(PREFIX)) return false;
  const given = Buffer.from(header.slice(PREFIX.length), "hex");
  const expected = createHmac("sha256", secret).update(rawBody).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}
