import type { Account, ApiKeyInfo, Scope, Tier } from "../resources/api-key.ts";

/**
 * A key found by its hash, with its account's own limits as stored (`null`: none set). What its
 * requests are counted against is the service's to compute (`limitsFor`).
 */
export interface StoredKey {
  keyId: string;
  accountId: string;
  accountName: string;
  tier: Tier;
  scopes: readonly Scope[];
  perMinute: number | null;
  perDay: number | null;
}

/** The current minute and day windows, each named by its first second (epoch seconds). */
export interface RateLimitWindows {
  minute: number;
  day: number;
}

/** A request for counts of an account's current windows (see `AccountStore.reserveRequests`). */
export interface RequestReservation {
  accountId: string;
  windows: RateLimitWindows;
  /** Requests wanted (0 to only give back). */
  want: number;
  /** The limits the requests are counted against: no grant takes either window past them. */
  limits: { perMinute: number; perDay: number };
  /** Unspent requests of an earlier reservation, given back first to the windows they were taken from. */
  giveBack?: { windows: RateLimitWindows; count: number };
}

/** What a reservation got: requests granted (0 to `want`) and the windows' counts including them. */
export interface ReservedRequests {
  granted: number;
  minute: number;
  day: number;
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
    /** Empty: every scope, including those added later. */
    scopes: readonly Scope[];
    limits?: { perMinute?: number | undefined; perDay?: number | undefined };
    now: string;
  }): Promise<ApiKeyInfo>;
  /** The key with this hash and its account's stored limits; `null` if unknown or revoked. One indexed query. */
  authenticate(hash: string): Promise<StoredKey | null>;
  /** Every key, newest first, optionally of one account (id or name). Never holds secrets. */
  listApiKeys(account?: string): Promise<ApiKeyInfo[]>;
  /** Revokes a key; `false` when no such key or already revoked. */
  revokeApiKey(id: string, now: string): Promise<boolean>;
  /**
   * The revision of keys and account limits: raised in the same transaction as every revocation
   * and every change of an account's limits, so a process that remembers keys can tell, by one
   * small read, that what it remembers may be stale.
   */
  keysRevision(): Promise<number>;
  /**
   * Reserves counts of the account's current minute and day windows for the caller to spend in
   * memory, atomically: first gives back `giveBack.count` to the windows it names, where they are
   * still the stored ones (a window newer than the stored one starts again at 0), then grants
   * `min(want, perMinute - minute, perDay - day)` (never less than 0) and adds it to both windows.
   * Exact with several processes on one database: the windows never go past the limits given.
   */
  reserveRequests(reservation: RequestReservation): Promise<ReservedRequests>;
}
