import { ServiceError } from "../errors.ts";
import type { Storage } from "../storage.ts";

/** How long a ping's answer stands for the store's health: `/health` pings at most once per this. */
export const HEALTH_CHECK_INTERVAL_MS = 1_000;

/** Options of {@link createHealthCheck}. */
export interface HealthCheckOptions {
  /** How long one ping's answer is remembered (default {@link HEALTH_CHECK_INTERVAL_MS}). */
  intervalMs?: number;
  /** A monotonic clock in milliseconds (default `performance.now`); tests pass their own. */
  now?: () => number;
}

/**
 * What `GET /health` asks: whether the store answers. A load balancer polling every instance,
 * or a burst of checks, must not cost a database round trip each, so the last ping's outcome is
 * remembered for `intervalMs` (from when that ping started) and checks that arrive while a ping
 * is in flight share it. A store that goes down is reported within about `intervalMs` plus a
 * ping, and so is its recovery.
 *
 * The returned function resolves while the store answered its last ping and throws
 * `SERVICE_UNAVAILABLE` (with `Retry-After`) while it did not.
 */
export function createHealthCheck(storage: Pick<Storage, "ping">, options: HealthCheckOptions = {}): () => Promise<void> {
  const intervalMs = options.intervalMs ?? HEALTH_CHECK_INTERVAL_MS;
  const now = options.now ?? (() => performance.now());
  let checkedAt = Number.NEGATIVE_INFINITY;
  /** The last ping's outcome: `undefined` when it answered, else what it threw. */
  let failure: { cause: unknown } | undefined;
  let inFlight: Promise<void> | undefined;

  async function ping(): Promise<void> {
    const startedAt = now();
    try {
      await storage.ping();
      failure = undefined;
    } catch (cause) {
      failure = { cause };
    } finally {
      checkedAt = startedAt;
      inFlight = undefined;
    }
  }

  return async function check(): Promise<void> {
    if (now() - checkedAt >= intervalMs) await (inFlight ??= ping());
    if (failure) {
      throw new ServiceError("SERVICE_UNAVAILABLE", { message: "The store cannot be reached.", headers: { "retry-after": "5" }, cause: failure.cause });
    }
  };
}
