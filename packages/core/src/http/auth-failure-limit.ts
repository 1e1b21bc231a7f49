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

/** A limit of requests per key (an address, a booking) and minute; see {@link createMinuteLimit}. */
export interface MinuteLimit {
  /**
   * Takes one of `key`'s requests of the current minute (for the per-address limit: to be spent
   * on a request that may fail authentication). Throws `429 RATE_LIMIT_EXCEEDED` with
   * `Retry-After` when the key has none left.
   */
  take(key: string, nowMs: number): void;
  /** Gives back a request taken by {@link MinuteLimit.take} (an API key turned out valid). */
  refund(key: string, nowMs: number): void;
  /** Whether `key` has no request left in the current minute. */
  exhausted(key: string, nowMs: number): boolean;
}

/** The per-address limit on requests that present no valid API key; see {@link createAuthFailureLimit}. */
export type AuthFailureLimit = MinuteLimit;

/**
 * Counts, per client address and clock minute, the requests that present no valid API key
 * (none, unknown or revoked), in this process's memory: exact within the process, no database
 * involved. Memory is bounded: counts start over each minute, and past `maxAddresses` addresses
 * the one counted first is forgotten, so an attacker rotating addresses cannot grow it. IPv6
 * addresses are counted by their `/64`.
 */
export function createAuthFailureLimit(options: AuthFailureLimitOptions = {}): AuthFailureLimit {
  const perMinute = options.perMinute ?? DEFAULT_AUTH_FAILURE_LIMIT_PER_MINUTE;
  if (!Number.isSafeInteger(perMinute) || perMinute < 1)
    throw new TypeError(`authFailureLimitPerMinute must be a positive integer, not ${perMinute}`);
  return createMinuteLimit({
    perMinute,
    maxKeys: options.maxAddresses ?? MAX_ADDRESSES,
    bucket: addressBucket,
    refusal: (resetAt) => ({
      message: `Too many requests without a valid API key from this address (limit ${perMinute} per minute); retry after ${resetAt}.`,
      scope: "address",
    }),
  });
}

/** Options of {@link createMinuteLimit}. */
export interface MinuteLimitOptions {
  perMinute: number;
  /** How many keys one process keeps count of at most; past this many the one counted first is forgotten. */
  maxKeys: number;
  /** What a key is counted by (an IPv6 address by its `/64`); default the key itself. */
  bucket?: (key: string) => string;
  /** The message of the `429` and the `details.scope` it names. */
  refusal: (resetAt: string) => { message: string; scope: string };
}

/**
 * A limit of requests per key and clock minute, counted in this process's memory (no database
 * involved): `take` throws `429 RATE_LIMIT_EXCEEDED` with `Retry-After` past it. Counts start over
 * each minute; memory is bounded by `maxKeys`.
 */
export function createMinuteLimit(options: MinuteLimitOptions): MinuteLimit {
  const { perMinute, maxKeys } = options;
  const bucketOf = options.bucket ?? ((key: string) => key);
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
    take(key, nowMs) {
      const map = current(nowMs);
      const bucket = bucketOf(key);
      const used = map.get(bucket) ?? 0;
      if (used >= perMinute) {
        const resetMs = (window + 1) * MINUTE_MS;
        const resetAt = new Date(resetMs).toISOString();
        const { message, scope } = options.refusal(resetAt);
        throw new ServiceError("RATE_LIMIT_EXCEEDED", {
          message,
          details: { window: "minute", limit: perMinute, resetAt, scope },
          headers: { "retry-after": String(Math.max(1, Math.ceil((resetMs - nowMs) / 1000))) },
        });
      }
      if (used === 0 && map.size >= maxKeys) map.delete(map.keys().next().value!);
      map.set(bucket, used + 1);
    },
    refund(key, nowMs) {
      const map = current(nowMs);
      const bucket = bucketOf(key);
      const used = map.get(bucket);
      if (used === undefined) return;
      if (used <= 1) map.delete(bucket);
      else map.set(bucket, used - 1);
    },
    exhausted(key, nowMs) {
      return (current(nowMs).get(bucketOf(key)) ?? 0) >= perMinute;
    },
  };
}
