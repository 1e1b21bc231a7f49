import type { AuthContext } from "../resources/api-key.ts";
import type { AccountStore } from "../storage/account-store.ts";

/** How stale a remembered key may be: the store's key revision is read at most this often. */
export const KEY_REVISION_CHECK_MS = 500;

/** Keys remembered per process; past this many the memory starts over. */
const MAX_REMEMBERED_KEYS = 10_000;

/**
 * The live keys this process has seen, by hash, with what the store said of them (account,
 * tier, scopes, the account's limits), so that a known key costs no database round trip.
 *
 * Revocations and limit changes raise the store's key revision (`AccountStore.keysRevision`).
 * `recall` reads it when the last read is {@link KEY_REVISION_CHECK_MS} old (one read in flight
 * at a time, shared) and forgets everything when it moved: a key revoked by another process is
 * refused here within that time plus one read, well inside the second a revocation is promised in. A revocation
 * through this process calls `forget` and takes effect at once.
 */
export interface KeyMemory {
  /** The remembered context of the key with this hash (after the revision check, when due); `undefined` when not remembered. */
  recall(hash: string): Promise<AuthContext | undefined>;
  /**
   * Reads the key with `read` and remembers it when live. The revision is checked first (when
   * due), so that what is remembered is never older than the revision it is judged by.
   */
  load(hash: string, read: () => Promise<AuthContext | null>): Promise<AuthContext | null>;
  /** Forgets every key (after a revocation or a limit change through this process). */
  forget(): void;
}

/** `nowMs` is real time in milliseconds (a service's own clock may be pinned in tests; staleness is not). */
export function createKeyMemory(
  storage: Pick<AccountStore, "keysRevision">,
  nowMs: () => number = Date.now,
): KeyMemory {
  const keys = new Map<string, AuthContext>();
  let revision: number | undefined;
  let checkedAtMs = Number.NEGATIVE_INFINITY;
  let checking: Promise<void> | undefined;
  /** Raised whenever everything is forgotten: a read begun before that must not be remembered after it. */
  let epoch = 0;
  const clear = () => {
    keys.clear();
    epoch += 1;
  };

  /** Reads the revision when the last read is old enough, one read at a time; forgets everything when it moved. */
  async function checkWhenDue(): Promise<void> {
    if (nowMs() - checkedAtMs < KEY_REVISION_CHECK_MS) return;
    checking ??= (async () => {
      const startedAtMs = nowMs();
      const current = await storage.keysRevision();
      if (current !== revision) clear();
      revision = current;
      checkedAtMs = startedAtMs;
    })().finally(() => (checking = undefined));
    await checking;
  }

  return {
    async recall(hash) {
      if (!keys.has(hash)) return undefined;
      await checkWhenDue();
      return keys.get(hash);
    },
    async load(hash, read) {
      await checkWhenDue();
      const readIn = epoch;
      const auth = await read();
      if (auth && readIn === epoch) {
        if (keys.size >= MAX_REMEMBERED_KEYS) keys.clear();
        keys.set(hash, auth);
      }
      return auth;
    },
    forget: clear,
  };
}
