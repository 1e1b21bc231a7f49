import { ServiceError } from "../errors.ts";
import type { Storage } from "../storage.ts";
import { storeUnavailable } from "../storage/lifecycle-store.ts";

/** How long a ping's answer stands for the store's health: `/health` pings at most once per this. */
export const HEALTH_CHECK_INTERVAL_MS = 1_000;
/** How long `/health` waits for a ping: one that takes longer (a pool with no free connection, a lock) is a `503`. */
export const HEALTH_CHECK_TIMEOUT_MS = 500;

/** Options of {@link createHealthCheck}. */
export interface HealthCheckOptions {
  /** How long one ping's answer is remembered (default {@link HEALTH_CHECK_INTERVAL_MS}). */
  intervalMs?: number;
  /** How long a ping may take before checks answer that the store did not answer in time (default {@link HEALTH_CHECK_TIMEOUT_MS}). */
  timeoutMs?: number;
  /** A monotonic clock in milliseconds (default `performance.now`); tests pass their own. */
  now?: () => number;
}

/**
 * What `GET /health` asks: whether the store answers (and writes, after a write failed for a
 * full disk or a read-only store: see `Storage.ping`). A load balancer polling every instance,
 * or a burst of checks, must not cost a database round trip each, so the last ping's outcome is
 * remembered for `intervalMs` (from when that ping started) and checks that arrive while a ping
 * is in flight share it. A store that goes down is reported within about `intervalMs` plus a
 * ping, and so is its recovery.
 *
 * No check waits longer than `timeoutMs` from the ping's start: a ping queued behind a busy
 * pool, or stuck on a lock, answers `timeout` meanwhile, and the next ping starts once it ends.
 *
 * The returned function resolves while the store answered its last ping and throws
 * `SERVICE_UNAVAILABLE` (with `Retry-After`, and the fault in `details.fault`) while it did not.
 */
export function createHealthCheck(
  storage: Pick<Storage, "ping">,
  options: HealthCheckOptions = {},
): () => Promise<void> {
  const intervalMs = options.intervalMs ?? HEALTH_CHECK_INTERVAL_MS;
  const timeoutMs = options.timeoutMs ?? HEALTH_CHECK_TIMEOUT_MS;
  const now = options.now ?? (() => performance.now());
  let checkedAt = Number.NEGATIVE_INFINITY;
  /** The last ping's outcome: `undefined` when it answered, else the 503 to answer. */
  let failure: ServiceError | undefined;
  let inFlight: { done: Promise<void>; startedAt: number } | undefined;

  async function ping(startedAt: number): Promise<void> {
    try {
      await storage.ping();
      failure = undefined;
    } catch (cause) {
      // The storage's own 503 names the fault; anything else thrown means it could not be reached.
      failure =
        ServiceError.is(cause) && cause.code === "SERVICE_UNAVAILABLE" ? cause : storeUnavailable("unreachable", cause);
    } finally {
      checkedAt = startedAt;
      inFlight = undefined;
    }
  }

  /** Whether the ping in flight ends within its time (counted from its start). */
  async function settles(flight: { done: Promise<void>; startedAt: number }): Promise<boolean> {
    const left = flight.startedAt + timeoutMs - now();
    if (left <= 0) return false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<false>((resolve) => (timer = setTimeout(resolve, left, false)));
    try {
      return await Promise.race([flight.done.then(() => true as const), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  return async function check(): Promise<void> {
    if (!inFlight && now() - checkedAt >= intervalMs) {
      const startedAt = now();
      inFlight = { done: ping(startedAt), startedAt };
    }
    if (inFlight && !(await settles(inFlight))) throw storeUnavailable("timeout");
    if (failure) throw failure;
  };
}
