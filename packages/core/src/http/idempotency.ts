import { createHash } from "node:crypto";
import { ServiceError } from "../errors.ts";

/** How long a stored response is replayed: 24 hours. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * After this long, a claim whose request never finished (its process died) is abandoned and
 * the key may run again.
 */
export const IDEMPOTENCY_STALE_MS = 60 * 1000;

/** An Idempotency-Key header value: 1 to 255 visible ASCII characters. */
export function assertIdempotencyKey(value: string): string {
  if (!/^[\x21-\x7e]{1,255}$/.test(value)) {
    throw new ServiceError("INVALID_REQUEST", {
      message: "Idempotency-Key: must be 1 to 255 visible ASCII characters (a UUID is a good choice)",
      field: "Idempotency-Key",
    });
  }
  return value;
}

/** Fingerprint of a request: method, path (without version prefix) and the exact body bytes. */
export function requestFingerprint(method: string, path: string, body: Uint8Array): string {
  return createHash("sha256").update(`${method} ${path}\n`).update(body).digest("hex");
}
