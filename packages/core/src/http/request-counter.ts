import type { AccountStore, RateLimitWindows } from "../storage/account-store.ts";
import { assertWithinLimits, currentWindows } from "./rate-limit.ts";

/** A lease aims to last about this long at the account's recent rate in this process. */
const LEASE_SPAN_MS = 100;
/** No lease holds more than this share of a window's limit, so other processes are refused early by little. */
const MAX_LEASE_SHARE = 1 / 20;
/** Accounts tracked per process; past this many, those of past windows are given back and dropped. */
const MAX_ACCOUNTS = 10_000;

type Limits = { perMinute: number; perDay: number };

/** One account's counts in this process. */
interface AccountCounts {
  /** The windows `unspent` was leased in. */
  windows: RateLimitWindows;
  /** Leased and not yet spent. */
  unspent: number;
  /** The store's counts of `windows` after the last lease (the other processes' leases included). */
  minute: number;
  day: number;
  /** Unspent counts of past windows, to give back with the next lease. */
  stale?: { windows: RateLimitWindows; count: number };
  /** When the last lease was granted, and how much: the rate the next one is sized by. */
  leasedAtMs: number;
  granted: number;
  /** The limits the store last refused a lease under, in `windows`: refused here without asking again. */
  refused?: Limits;
  leasing?: Promise<void>;
}

/**
 * Counts requests against their account's rate limits without a database write per request:
 * the store leases this process blocks of the account's current minute and day windows
 * (`AccountStore.reserveRequests`), which are spent here in memory.
 *
 * A block is sized to last about {@link LEASE_SPAN_MS} at the rate this process has just seen
 * (1 at first, so a quiet account leases one at a time), and never more than a twentieth of a
 * window's limit: two processes sharing a free key's 60 a minute lease at most 3 at a time, so
 * together they are never over the limit and neither is refused while more than a few remain.
 * Concurrent requests that find the block spent wait for one lease together. Once the store
 * grants nothing, requests are refused here, without a write, until the window ends.
 *
 * With one process the `X-RateLimit-*` headers are exact; with several, `Remaining` is this
 * process's view (docs/api.md, Rate limits). `close` gives the unspent counts back.
 */
export interface RequestCounter {
  /** Counts one request of the account; returns the `X-RateLimit-*` headers, or throws `429 RATE_LIMIT_EXCEEDED`. */
  count(accountId: string, limits: Limits, nowMs: number): Promise<Record<string, string>>;
  /** Gives every unspent count back to the store (at shutdown). */
  close(): Promise<void>;
}

export function createRequestCounter(storage: Pick<AccountStore, "reserveRequests">): RequestCounter {
  const accounts = new Map<string, AccountCounts>();

  const sameWindows = (a: RateLimitWindows, b: RateLimitWindows) => a.minute === b.minute && a.day === b.day;

  /** Moves `state` to `windows`: what is unspent of the old ones is given back with the next lease. */
  function roll(state: AccountCounts, windows: RateLimitWindows): void {
    if (state.unspent > 0) state.stale = { windows: state.windows, count: state.unspent + (state.stale?.count ?? 0) };
    Object.assign(state, {
      windows,
      unspent: 0,
      minute: 0,
      day: state.windows.day === windows.day ? state.day : 0,
      refused: undefined,
    });
  }

  function leaseSize(state: AccountCounts, limits: Limits, nowMs: number): number {
    const cap = Math.max(1, Math.floor(Math.min(limits.perMinute, limits.perDay) * MAX_LEASE_SHARE));
    if (state.granted === 0) return 1;
    const perMs = state.granted / Math.max(1, nowMs - state.leasedAtMs);
    return Math.min(cap, Math.max(1, Math.ceil(perMs * LEASE_SPAN_MS)));
  }

  async function lease(accountId: string, state: AccountCounts, limits: Limits, nowMs: number): Promise<void> {
    const windows = state.windows;
    const stale = state.stale;
    state.stale = undefined;
    let leased: Awaited<ReturnType<typeof storage.reserveRequests>>;
    try {
      leased = await storage.reserveRequests({
        accountId,
        windows,
        want: leaseSize(state, limits, nowMs),
        limits,
        ...(stale && { giveBack: stale }),
      });
    } catch (error) {
      state.stale ??= stale;
      throw error;
    }
    if (!sameWindows(windows, state.windows)) {
      // The window ended while the lease was on its way: what it granted belongs to the old one.
      // (`roll` may have set `stale` meanwhile; TypeScript cannot see that across the await.)
      const earlier = state.stale as AccountCounts["stale"];
      if (leased.granted > 0)
        state.stale = { windows: earlier?.windows ?? windows, count: leased.granted + (earlier?.count ?? 0) };
      return;
    }
    state.unspent += leased.granted;
    state.minute = leased.minute;
    state.day = leased.day;
    state.leasedAtMs = nowMs;
    state.granted = leased.granted;
    if (leased.granted === 0) state.refused = { ...limits };
  }

  const giveBackTo = (accountId: string, giveBack: { windows: RateLimitWindows; count: number }) =>
    storage.reserveRequests({
      accountId,
      windows: giveBack.windows,
      want: 0,
      limits: { perMinute: 0, perDay: 0 },
      giveBack,
    });

  /** Drops the accounts of past windows (giving their unspent counts back), when too many are tracked. */
  function prune(windows: RateLimitWindows): void {
    for (const [accountId, state] of accounts) {
      if (state.leasing || sameWindows(state.windows, windows)) continue;
      roll(state, windows);
      accounts.delete(accountId);
      if (state.stale) void giveBackTo(accountId, state.stale).catch(() => {});
    }
  }

  return {
    async count(accountId, limits, nowMs) {
      const windows = currentWindows(nowMs);
      let state = accounts.get(accountId);
      if (!state) {
        if (accounts.size >= MAX_ACCOUNTS) prune(windows);
        state = { windows, unspent: 0, minute: 0, day: 0, leasedAtMs: nowMs, granted: 0 };
        accounts.set(accountId, state);
      }
      for (;;) {
        if (!sameWindows(state.windows, windows) && state.windows.minute < windows.minute) roll(state, windows);
        if (state.unspent > 0) {
          state.unspent -= 1;
          // Used so far, as the store counts them, less what this process still holds.
          return assertWithinLimits(
            { minute: state.minute - state.unspent, day: state.day - state.unspent },
            limits,
            nowMs,
          );
        }
        if (state.refused && state.refused.perMinute === limits.perMinute && state.refused.perDay === limits.perDay) {
          // Throws: counted as one more than the store holds, this request is past a limit.
          assertWithinLimits({ minute: state.minute + 1, day: state.day + 1 }, limits, nowMs);
        }
        if (!state.leasing) {
          const current = state;
          current.leasing = lease(accountId, current, limits, nowMs).finally(() => (current.leasing = undefined));
        }
        await state.leasing;
      }
    },

    async close() {
      const giveBacks = [...accounts].flatMap(([accountId, state]) => {
        const unspent = state.unspent > 0 ? [{ windows: state.windows, count: state.unspent }] : [];
        return [...(state.stale ? [state.stale] : []), ...unspent].map((giveBack) => ({ accountId, giveBack }));
      });
      accounts.clear();
      await Promise.allSettled(giveBacks.map(({ accountId, giveBack }) => giveBackTo(accountId, giveBack)));
    },
  };
}
