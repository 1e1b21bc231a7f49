import type { Account, ApiKeyInfo, AuthContext, Scope, Tier } from "../resources/api-key.ts";

/** The current minute and day windows, each named by its first second (epoch seconds). */
export interface RateLimitWindows {
  minute: number;
  day: number;
}

/** One request counted for a live key: its account, the windows' counts including it, and the account's own limits. */
export interface CountedRequest {
  accountId: string;
  minute: number;
  day: number;
  /** The account's own limits (enterprise); `null` means the key's tier decides. */
  perMinute: number | null;
  perDay: number | null;
}

/**
 * Accounts, their API keys, and the request counts of the rate limits.
 * Each method is atomic (see `Storage`).
 */
export interface AccountStore {
  /** The account with this id, or else with this name; `null` if none. */
  findAccount(idOrName: string): Promise<Account | null>;
  /**
   * Adds a key to the account named `account` (id or name), creating the account when no
   * account has that id or name. Atomic: two concurrent calls with a new name make one account.
   * `limits`, when given, become the account's own per-minute and per-day limits.
   */
  createApiKey(key: {
    id: string;
    account: string;
    newAccountId: string;
    hash: string;
    prefix: string;
    tier: Tier;
    scopes: readonly Scope[];
    limits?: { perMinute?: number | undefined; perDay?: number | undefined };
    now: string;
  }): Promise<ApiKeyInfo>;
  /** The key with this hash and its account; `null` if unknown or revoked. One indexed query. */
  authenticate(hash: string): Promise<AuthContext | null>;
  /** Every key, newest first, optionally of one account (id or name). Never holds secrets. */
  listApiKeys(account?: string): Promise<ApiKeyInfo[]>;
  /** Revokes a key; `false` when no such key or already revoked. */
  revokeApiKey(id: string, now: string): Promise<boolean>;
  /**
   * Authenticates and counts in one atomic statement, the hot path of every request: when the
   * key with this hash exists and is not revoked, counts one request in its account's minute and
   * day windows (a window newer than the stored one starts again at 1; a request of an older one
   * counts in the current) and returns the counts including it; else counts nothing and returns
   * `null`. Exact with several processes on one database, and a revoked key is refused at once.
   */
  countRequest(keyHash: string, windows: RateLimitWindows): Promise<CountedRequest | null>;
}
