import type { Tier } from "../resources/api-key.ts";

/** How many webhooks an account may hold, by the tier of the key that creates one (like its rate limits). */
export const WEBHOOK_LIMITS = { free: 5, starter: 20, professional: 50, enterprise: 200 } as const satisfies Record<
  Tier,
  number
>;

/**
 * True when an account holding `held` webhooks may add one under a limit of `limit`: every
 * webhook it holds counts, a disabled one too (delete one to make room).
 */
export function hasWebhookRoom(held: number, limit: number): boolean {
  return held < limit;
}
