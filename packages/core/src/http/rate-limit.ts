import { ServiceError } from "../errors.ts";
import type { AuthContext } from "../resources/api-key.ts";
import type { Storage } from "../storage.ts";

const MINUTE = 60;
const DAY = 86_400;

/**
 * Counts a request against its account's per-minute and per-day limits (fixed windows, UTC
 * days) and returns the `X-RateLimit-*` headers for the response. Throws `429
 * RATE_LIMIT_EXCEEDED` with `Retry-After` when either window is used up; a refused request
 * counts too, so a client that keeps hammering stays refused until the window ends.
 *
 * `X-RateLimit-Limit` is the per-minute limit, `X-RateLimit-Remaining` what is left of it (0
 * once the day is used up), `X-RateLimit-Reset` the epoch second the binding window ends.
 */
export async function consumeRateLimit(storage: Storage, auth: AuthContext, nowMs: number): Promise<Record<string, string>> {
  const now = Math.floor(nowMs / 1000);
  const minute = now - (now % MINUTE);
  const day = now - (now % DAY);
  const counts = await storage.countRequest(auth.accountId, { minute, day });
  const { perMinute, perDay } = auth.limits;
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

/** The start of the oldest window still worth keeping: yesterday's day window. */
export function oldestLiveWindow(nowMs: number): number {
  const now = Math.floor(nowMs / 1000);
  return now - (now % DAY) - DAY;
}
