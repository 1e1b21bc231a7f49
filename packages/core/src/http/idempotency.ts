import { createHash } from "node:crypto";
import { ServiceError } from "../errors.ts";
import type { IdempotencyStore } from "../storage/idempotency-store.ts";
import type { RouteResult } from "./routes.ts";

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

/**
 * How long a keyed request's answer (or the release of its claim, when it failed) is tried at
 * being stored while the store fails: well past a database's restart, and short of the claim's
 * staleness ({@link IDEMPOTENCY_STALE_MS}), after which a retry would run the request again.
 */
const SETTLE_WITHIN_MS = 30_000;
/** How long the answer of a committed request waits for its storing before it goes out anyway. */
const SETTLE_WAIT_MS = 3_000;

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
  /** Where the `documentation` link of a stored or replayed error points (`<docs>#CODE`); none when `undefined`. */
  docs: string | undefined;
}

/**
 * Runs a keyed request at most once per key (24 hours): claims the key, runs `run` and stores
 * its answer, which later requests with the key get back (`Idempotent-Replayed: true`). A
 * refusal `run` throws (a `ServiceError` below 500) is an answer too: its error body is stored,
 * then the error goes on to the handler's error path. Throws `INVALID_REQUEST` for a malformed
 * key, `IDEMPOTENCY_KEY_REUSED` for the key with another request and `IDEMPOTENCY_KEY_IN_USE`
 * while the first still runs. When `run` throws anything else (an unexpected error, the store
 * unavailable), the claim is released so that a retry runs again.
 */
export async function withIdempotency(
  store: Pick<IdempotencyStore, "claimIdempotencyKey" | "completeIdempotencyKey" | "releaseIdempotencyKey">,
  request: IdempotentRequest,
  run: () => Promise<RouteResult>,
): Promise<RouteResult> {
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
      throw new ServiceError("IDEMPOTENCY_KEY_REUSED", {
        message: `Idempotency-Key ${key} was used with a different request (method, path or body).`,
        field: "Idempotency-Key",
      });
    }
    if (existing.state === "running" || !existing.response) {
      throw new ServiceError("IDEMPOTENCY_KEY_IN_USE", {
        message: `A request with Idempotency-Key ${key} is still running; retry shortly.`,
        headers: { "retry-after": "1" },
      });
    }
    const body = JSON.parse(existing.response.body);
    // An answer an erasure replaced (ERASED_ANSWER) was stored without this request's documentation link.
    if (body?.error?.code && body.error.documentation === undefined && docs !== undefined)
      body.error.documentation = `${docs}#${body.error.code}`;
    return { status: existing.response.status, body, headers: { "idempotent-replayed": "true" } };
  }
  let answer: RouteResult;
  try {
    answer = await run();
  } catch (error) {
    if (ServiceError.is(error) && error.status < 500) {
      await keep(store, accountId, key, { status: error.status, body: JSON.stringify(error.toJSON(docs)) });
      throw error;
    }
    // Released, so that the client's retry runs the request rather than meeting a claim still
    // running until it goes stale; in the background, as the answer does not wait for it.
    settle(() => store.releaseIdempotencyKey(accountId, key)).catch(() => {});
    throw error;
  }
  await keep(store, accountId, key, { status: answer.status, body: JSON.stringify(answer.replay ?? answer.body) });
  return answer;
}

/**
 * Stores a keyed request's answer for its retries. The request's effect has committed (or a
 * refusal left none) by now, so the answer is right: while the store fails (a restart), it goes
 * out after a short wait and the storing goes on behind it; a retry meets
 * `IDEMPOTENCY_KEY_IN_USE` until it is stored, then the answer.
 */
async function keep(
  store: Pick<IdempotencyStore, "completeIdempotencyKey">,
  accountId: string,
  key: string,
  response: { status: number; body: string },
): Promise<void> {
  const stored = settle(() => store.completeIdempotencyKey(accountId, key, response));
  stored.catch(() => {});
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([stored, new Promise((resolve) => (timer = setTimeout(resolve, SETTLE_WAIT_MS)))]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs a write of the key's state, waiting out a passing failure of the store (a lock held past
 * the busy timeout, a restart): tried again 100 ms later, then doubling up to 2 s, for up to
 * {@link SETTLE_WITHIN_MS}. Other errors are thrown at once.
 */
async function settle(write: () => Promise<unknown>): Promise<void> {
  const giveUpAt = Date.now() + SETTLE_WITHIN_MS;
  for (let pause = 100; ; pause = Math.min(pause * 2, 2_000)) {
    try {
      await write();
      return;
    } catch (error) {
      if (Date.now() + pause > giveUpAt || !(ServiceError.is(error) && error.code === "SERVICE_UNAVAILABLE"))
        throw error;
      await new Promise((resolve) => setTimeout(resolve, pause).unref?.());
    }
  }
}
