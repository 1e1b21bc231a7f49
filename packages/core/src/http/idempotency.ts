import { createHash } from "node:crypto";
import { ServiceError } from "../errors.ts";
import type { IdempotencyStore } from "../storage/idempotency-store.ts";
import type { Answer } from "./respond.ts";

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

/** Tries at storing a keyed request's answer before giving up. */
const COMPLETE_ATTEMPTS = 3;

/** A POST with an `Idempotency-Key`, as {@link withIdempotency} needs it. */
export interface IdempotentRequest {
  accountId: string;
  /** The `Idempotency-Key` header's value (checked here). */
  key: string;
  method: string;
  /** The path without its version prefix: `/v1/events` and `/api/events` are one request. */
  path: string;
  /** Reads the exact body bytes (after the key is checked: a malformed key is refused without reading the body). */
  body: () => Promise<Uint8Array>;
  nowMs: number;
  /** Where the `documentation` link of a replayed error points (`<docs>#CODE`). */
  docs: string;
}

/**
 * Runs a keyed request at most once per key (24 hours): claims the key, runs `run` and stores
 * its answer, which later requests with the key get back (`Idempotent-Replayed: true`). Throws
 * `INVALID_REQUEST` for a malformed key, `IDEMPOTENCY_KEY_REUSED` for the key with another
 * request and `IDEMPOTENCY_KEY_IN_USE` while the first still runs. When `run` throws (an
 * unexpected error), the claim is released so that a retry runs again.
 */
export async function withIdempotency(
  store: Pick<IdempotencyStore, "claimIdempotencyKey" | "completeIdempotencyKey" | "releaseIdempotencyKey">,
  request: IdempotentRequest,
  run: () => Promise<Answer>,
): Promise<Answer> {
  const { accountId, nowMs, docs } = request;
  const key = assertIdempotencyKey(request.key);
  const requestHash = requestFingerprint(request.method, request.path, await request.body());
  const existing = await store.claimIdempotencyKey({
    accountId,
    key,
    requestHash,
    now: new Date(nowMs).toISOString(),
    expiresAt: new Date(nowMs + IDEMPOTENCY_TTL_MS).toISOString(),
    staleBefore: new Date(nowMs - IDEMPOTENCY_STALE_MS).toISOString(),
  });
  if (existing) {
    if (existing.requestHash !== requestHash) {
      throw new ServiceError("IDEMPOTENCY_KEY_REUSED", { message: `Idempotency-Key ${key} was used with a different request (method, path or body).`, field: "Idempotency-Key" });
    }
    if (existing.state === "running" || !existing.response) {
      throw new ServiceError("IDEMPOTENCY_KEY_IN_USE", { message: `A request with Idempotency-Key ${key} is still running; retry shortly.`, headers: { "retry-after": "1" } });
    }
    const body = JSON.parse(existing.response.body);
    // An answer an erasure replaced (ERASED_ANSWER) was stored without this request's documentation link.
    if (body?.error?.code && body.error.documentation === undefined) body.error.documentation = `${docs}#${body.error.code}`;
    return { status: existing.response.status, body, headers: { "idempotent-replayed": "true" } };
  }
  let answer: Answer;
  try {
    answer = await run();
  } catch (error) {
    await store.releaseIdempotencyKey(accountId, key).catch(() => {});
    throw error;
  }
  // The request's effect has committed by now, so a passing failure of the store (a lock held
  // past the busy timeout) is waited out a few times: a claim left running would, once stale,
  // let a retry run the request again.
  const response = { status: answer.status, body: JSON.stringify(answer.body) };
  for (let attempt = 1; ; attempt++) {
    try {
      await store.completeIdempotencyKey(accountId, key, response);
      return answer;
    } catch (error) {
      if (attempt >= COMPLETE_ATTEMPTS || !(ServiceError.is(error) && error.code === "SERVICE_UNAVAILABLE")) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    }
  }
}
