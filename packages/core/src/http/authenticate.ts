import { ServiceError } from "../errors.ts";
import { type AuthContext, hashApiKey, limitsFor } from "../resources/api-key.ts";
import type { AccountStore } from "../storage/account-store.ts";
import type { AuthFailureLimit } from "./auth-failure-limit.ts";
import { currentWindows } from "./rate-limit.ts";

/** What a key says about itself that never changes: everything of its context but the account's limits. */
type KeyAttributes = Omit<AuthContext, "limits">;

/** Keys remembered per process; past this many the memory starts over. */
const MAX_REMEMBERED_KEYS = 10_000;

/** An authenticated, counted request: who asked, and its account's counts including it. */
export interface Admission {
  auth: AuthContext;
  counts: { minute: number; day: number };
}

/**
 * Authenticates a request's API key and counts it against its account's rate limits.
 *
 * A key this process knows to be live costs one statement (`Storage.countRequest`), which checks
 * the key is still live, so a revoked key is refused at once in every process; what never changes
 * about a key (account, tier, scopes) is remembered after its first request, and the account's own
 * limits come fresh with every count. Any other token is first looked up read-only
 * (`Storage.authenticate`), so a missing, unknown or revoked key never costs a write; such requests
 * are limited per client address by `failures` (when the host says who the client is), and an
 * address past that limit costs nothing in the database at all: only keys this process already
 * knows to be live are still served from it.
 *
 * Throws `401 UNAUTHORIZED` or `429 RATE_LIMIT_EXCEEDED`; judging the counts is `assertWithinLimits`'s.
 */
export function createAuthenticator(
  storage: Pick<AccountStore, "countRequest" | "authenticate">,
  failures?: AuthFailureLimit,
): (token: string | null, nowMs: number, address?: string) => Promise<Admission> {
  const remembered = new Map<string, KeyAttributes>();
  const refuse = (token: string | null) =>
    token === null
      ? new ServiceError("UNAUTHORIZED", { message: "Missing API key: send Authorization: Bearer <key>.", headers: { "www-authenticate": 'Bearer realm="event-service"' } })
      : new ServiceError("UNAUTHORIZED", { message: "Invalid or revoked API key.", headers: { "www-authenticate": 'Bearer realm="event-service", error="invalid_token"' } });

  async function count(hash: string, key: KeyAttributes, nowMs: number): Promise<Admission | null> {
    const counted = await storage.countRequest(hash, currentWindows(nowMs));
    if (!counted) {
      remembered.delete(hash);
      return null;
    }
    return { auth: { ...key, limits: limitsFor(key.tier, counted.perMinute, counted.perDay) }, counts: counted };
  }

  return async function admit(token, nowMs, address) {
    const hash = token === null ? null : hashApiKey(token);
    const known = hash === null ? undefined : remembered.get(hash);
    if (hash !== null && known) {
      const admission = await count(hash, known, nowMs);
      if (admission) return admission;
    }
    // From here on the request may present no valid key: it spends one of its address's requests
    // (refunded if the key turns out live) before it may cost even a read.
    if (address !== undefined) failures?.take(address, nowMs);
    if (hash === null) throw refuse(token);
    const auth = await storage.authenticate(hash);
    if (!auth) throw refuse(token);
    if (address !== undefined) failures?.refund(address, nowMs);
    const { limits: _limits, ...attributes } = auth;
    if (remembered.size >= MAX_REMEMBERED_KEYS) remembered.clear();
    remembered.set(hash, attributes);
    const admission = await count(hash, attributes, nowMs);
    if (!admission) throw refuse(token);
    return admission;
  };
}
