import { ServiceError } from "../errors.ts";
import { addressBucket } from "./client-address.ts";

/** Requests without a valid key allowed per client address and minute, by default. */
export const DEFAULT_AUTH_FAILURE_LIMIT_PER_MINUTE = 60;
/** Addresses remembered per process within a minute; past this many the oldest is forgotten. */
const MAX_ADDRESSES = 10_000;
const MINUTE_MS = 60_000;

/** Options of {@link createAuthFailureLimit}. */
export interface AuthFailureLimitOptions {
  /** Requests without a valid key allowed per address and clock minute (default 60). */
  perMinute?: number;
  /** How many addresses one process keeps count of at most (default 10,000). */
  maxAddresses?: number;
}

/** The per-address limit on requests that present no valid API key; see {@link createAuthFailureLimit}. */
export interface AuthFailureLimit {
  /**
   * Takes one of `address`'s requests of the current minute, to be spent on a request that may
   * fail authentication. Throws `429 RATE_LIMIT_EXCEEDED` with `Retry-After` when the address has
   * none left.
   */
  take(address: string, nowMs: number): void;
  /** Gives back a request taken by {@link AuthFailureLimit.take} (the key turned out valid). */
  refund(address: string, nowMs: number): void;
  /** Whether `address` has no request left in the current minute. */
  exhausted(address: string, nowMs: number): boolean;
}

/**
 * Counts, per client address and clock minute, the requests that present no valid API key
 * (none, unknown or revoked), in this process's memory: exact within the process, no database
 * involved. Memory is bounded: counts start over each minute, and past `maxAddresses` addresses
 * the one counted first is forgotten, so an attacker rotating addresses cannot grow it. IPv6
 * addresses are counted by their `/64`.
 */
export function createAuthFailureLimit(options: AuthFailureLimitOptions = {}): AuthFailureLimit {
  const perMinute = options.perMinute ?? DEFAULT_AUTH_FAILURE_LIMIT_PER_MINUTE;
  const maxAddresses = options.maxAddresses ?? MAX_ADDRESSES;
  if (!Number.isSafeInteger(perMinute) || perMinute < 1)
    throw new TypeError(`authFailureLimitPerMinute must be a positive integer, not ${perMinute}`);
  let window = 0;
  let counts = new Map<string, number>();

  /** The counts of the minute `nowMs` falls in (a new minute starts them over). */
  function current(nowMs: number): Map<string, number> {
    const minute = Math.floor(nowMs / MINUTE_MS);
    if (minute !== window) {
      window = minute;
      counts = new Map();
    }
    return counts;
  }

  return {
    take(address, nowMs) {
      const map = current(nowMs);
      const bucket = addressBucket(address);
      const used = map.get(bucket) ?? 0;
      if (used >= perMinute) {
        const resetMs = (window + 1) * MINUTE_MS;
        const resetAt = new Date(resetMs).toISOString();
        throw new ServiceError("RATE_LIMIT_EXCEEDED", {
          message: `Too many requests without a valid API key from this address (limit ${perMinute} per minute); retry after ${resetAt}.`,
          details: { window: "minute", limit: perMinute, resetAt, scope: "address" },
          headers: { "retry-after": String(Math.max(1, Math.ceil((resetMs - nowMs) / 1000))) },
        });
      }
      if (used === 0 && map.size >= maxAddresses) map.delete(map.keys().next().value!);
      map.set(bucket, used + 1);
    },
    refund(address, nowMs) {
      const map = current(nowMs);
      const bucket = addressBucket(address);
      const used = map.get(bucket);
      if (used === undefined) return;
      if (used <= 1) map.delete(bucket);
      else map.set(bucket, used - 1);
    },
    exhausted(address, nowMs) {
      return (current(nowMs).get(addressBucket(address)) ?? 0) >= perMinute;
    },
  };
}
