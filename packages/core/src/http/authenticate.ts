import { ServiceError } from "../errors.ts";
import { type AuthContext, holdsScope, type Scope, scopesGranting } from "../resources/api-key.ts";
import type { KeyOperations } from "../service/key-operations.ts";
import type { AuthFailureLimit } from "./auth-failure-limit.ts";

/**
 * Authenticates a request's API key.
 *
 * A key this process has seen live is remembered (`KeyOperations.authenticate`): it costs no
 * database round trip, and a revocation reaches it within a second. Any other token is looked
 * up read-only, so a missing, unknown or revoked key never costs a write; such requests are
 * limited per client address by `failures` (when the host says who the client is), and an
 * address past that limit costs nothing in the database at all: only keys this process
 * remembers are still served from it.
 *
 * Throws `401 UNAUTHORIZED`, or `429 RATE_LIMIT_EXCEEDED` for an address past its limit.
 */
export function createAuthenticator(
  keys: Pick<KeyOperations, "authenticate">,
  failures?: AuthFailureLimit,
): (token: string | null, nowMs: number, address?: string) => Promise<AuthContext> {
  const refuse = (token: string | null) =>
    token === null
      ? new ServiceError("UNAUTHORIZED", {
          message: "Missing API key: send Authorization: Bearer <key>.",
          headers: { "www-authenticate": 'Bearer realm="event-service"' },
        })
      : new ServiceError("UNAUTHORIZED", {
          message: "Invalid or revoked API key.",
          headers: { "www-authenticate": 'Bearer realm="event-service", error="invalid_token"' },
        });

  // Lookups under way, by token: a burst with a live key this process has not seen yet (a
  // fresh worker) must not spend one of its address's requests per request, which past the
  // limit refused a valid key with 429. A request whose key is already being looked up is
  // charged only if the key turns out not live.
  const inFlight = new Map<string, Promise<AuthContext | null>>();

  return async function authenticate(token, nowMs, address) {
    // A request that may present no valid key spends one of its address's requests before it
    // may cost even a read (refunded when the key turns out live).
    const charge = () => {
      if (address !== undefined) failures?.take(address, nowMs);
    };
    if (token === null) {
      charge();
      throw refuse(token);
    }
    let charged = false;
    let joined = false;
    const lookup: Promise<AuthContext | null> = keys.authenticate(token, {
      // Called once the key was found in no memory (after an await), so `lookup` is assigned.
      beforeLookup: () => {
        if (inFlight.has(token)) {
          joined = true;
          return;
        }
        charge();
        charged = true;
        inFlight.set(token, lookup);
      },
    });
    let auth: AuthContext | null;
    try {
      auth = await lookup;
    } finally {
      if (inFlight.get(token) === lookup) inFlight.delete(token);
    }
    if (!auth) {
      if (joined) charge();
      throw refuse(token);
    }
    if (charged && address !== undefined) failures?.refund(address, nowMs);
    return auth;
  };
}

/**
 * Throws `403 FORBIDDEN` naming the scope a route needs unless the caller's scopes grant it (a
 * `:write` grants its `:read`), or grant `alternative`, a scope that serves the route too.
 */
export function assertScope(scopes: readonly Scope[], required: Scope, alternative?: Scope): void {
  if (holdsScope(scopes, required) || (alternative !== undefined && holdsScope(scopes, alternative))) return;
  const granting = [...scopesGranting(required), ...(alternative === undefined ? [] : scopesGranting(alternative))];
  const message = `This API key lacks the ${granting.join(" or the ")} scope.`;
  throw new ServiceError("FORBIDDEN", { message, details: { requiredScope: required } });
}
