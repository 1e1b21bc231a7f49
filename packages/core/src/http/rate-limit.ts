import { ServiceError } from "../errors.ts";
import type { RateLimitWindows } from "../storage/account-store.ts";

const MINUTE = 60;
const DAY = 86_400;

/** The minute and UTC-day windows `nowMs` falls in, each named by its first second. */
export function currentWindows(nowMs: number): RateLimitWindows {
  const now = Math.floor(nowMs / 1000);
  return { minute: now - (now % MINUTE), day: now - (now % DAY) };
}

/**
 * Judges a counted request against its account's per-minute and per-day limits (fixed windows,
 * UTC days) and returns the `X-RateLimit-*` headers for the response. Throws `429
 * RATE_LIMIT_EXCEEDED` with `Retry-After` when either window is used up; a refused request
 * counts too, so a client that keeps hammering stays refused until the window ends.
 *
 * `X-RateLimit-Limit` is the per-minute limit, `X-RateLimit-Remaining` what is left of it (0
 * once the day is used up), `X-RateLimit-Reset` the epoch second the binding window ends.
 */
export function assertWithinLimits(
  counts: { minute: number; day: number },
  limits: { perMinute: number; perDay: number },
  nowMs: number,
): Record<string, string> {
  const now = Math.floor(nowMs / 1000);
  const { minute, day } = currentWindows(nowMs);
  const { perMinute, perDay } = limits;
  const dayExhausted = counts.day > perDay;
  const reset = dayExhausted ? day + DAY : minute + MINUTE;
  const headers = {
    "x-ratelimit-limit": String(perMinute),
    "x-ratelimit-remaining": String(dayExhausted ? 0 : Math.max(0, perMinute - counts.minute)),
    "x-ratelimit-reset": String(reset),
  };
  if (dayExhausted || counts.minute > perMinute) {
    const window = dayExhausted ? "day" : "minute";
    throw new ServiceError("RATE_LIMIT_EXCEEDED", {
      message: `Rate limit of ${dayExhausted ? `${perDay} requests per day` : `${perMinute} requests per minute`} exceeded; retry after ${new Date(reset * 1000).toISOString()}.`,
      details: { window, limit: dayExhausted ? perDay : perMinute, resetAt: new Date(reset * 1000).toISOString() },
      headers: { ...headers, "retry-after": String(Math.max(1, reset - now)) },
    });
  }
  return headers;
}
