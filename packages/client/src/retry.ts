/** How the client retries answers that say "later" (`429` and `503`). */
export interface RetryOptions {
  /** Retries after the first attempt; 0 turns retrying off. Default 2. */
  retries?: number;
  /** The first backoff when the answer names no `Retry-After`; doubled each retry, with jitter. Default 500 ms. */
  baseDelayMs?: number;
  /** The longest the client waits before a retry; an answer asking for more is thrown to the caller. Default 30 s. */
  maxDelayMs?: number;
}

/** The statuses worth retrying: the service asks to come back later. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/** Seconds of a `Retry-After` header (seconds or an HTTP date), or `undefined`. */
export function parseRetryAfterSeconds(value: string | null, nowMs = Date.now()): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - nowMs) / 1000);
}

/**
 * The wait before retry number `attempt` (1-based): the answer's `Retry-After` when it gave
 * one, else exponential backoff with full jitter; `undefined` when that is past `maxDelayMs`
 * (the caller then gets the error rather than a long hidden wait).
 */
export function retryDelayMs(
  attempt: number,
  retryAfterSeconds: number | undefined,
  options: Required<RetryOptions>,
  random = Math.random,
): number | undefined {
  const delay =
    retryAfterSeconds !== undefined
      ? retryAfterSeconds * 1000
      : options.baseDelayMs * 2 ** (attempt - 1) * (0.5 + random() / 2);
  return delay > options.maxDelayMs ? undefined : delay;
}
