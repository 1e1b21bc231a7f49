import { ServiceError } from "../errors.ts";
import { type AuthContext, hashApiKey, limitsFor } from "../resources/api-key.ts";
import type { Storage } from "../storage.ts";
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
 * Authenticates a request's API key and counts it against its account's rate limits, with one
 * statement per request (`Storage.countRequest`). That statement checks the key is live, so a
 * revoked key is refused at once in every process; what never changes about a key (account,
 * tier, scopes) is remembered after its first request, and the account's own limits come fresh
 * with every count. Throws `401 UNAUTHORIZED`; judging the counts is `assertWithinLimits`'s.
 */
export function createAuthenticator(storage: Storage): (token: string, nowMs: number) => Promise<Admission> {
  const remembered = new Map<string, KeyAttributes>();
  const refuse = () =>
    new ServiceError("UNAUTHORIZED", { message: "Invalid or revoked API key.", headers: { "www-authenticate": 'Bearer realm="event-service", error="invalid_token"' } });

  return async function admit(token, nowMs) {
    const hash = hashApiKey(token);
    const counted = await storage.countRequest(hash, currentWindows(nowMs));
    if (!counted) {
      remembered.delete(hash);
      throw refuse();
    }
    let key = remembered.get(hash);
    if (!key) {
      const auth = await storage.authenticate(hash);
      if (!auth) throw refuse();
      const { limits: _limits, ...attributes } = auth;
      if (remembered.size >= MAX_REMEMBERED_KEYS) remembered.clear();
      remembered.set(hash, (key = attributes));
    }
    return { auth: { ...key, limits: limitsFor(key.tier, counted.perMinute, counted.perDay) }, counts: counted };
  };
}
