import { createId } from "../_internal/ids.ts";
import { parseInput } from "../_internal/parse-input.ts";
import { ServiceError } from "../errors.ts";
import {
  type ApiKeyInfo,
  ApiKeyCreateInput,
  apiKeyPrefix,
  type AuthContext,
  type CreatedApiKey,
  generateApiKey,
  hashApiKey,
  limitsFor,
} from "../resources/api-key.ts";
import type { AccountStore } from "../storage/account-store.ts";
import { createKeyMemory } from "./key-memory.ts";
import { notFound } from "./not-found.ts";

/** Options of {@link KeyOperations.authenticate}. */
export interface AuthenticateOptions {
  /**
   * Called when the key is not remembered, before the store is read: the place to charge a
   * client's address for a lookup (it may throw to refuse the request without the read).
   */
  beforeLookup?: () => void;
}

/** Issuing and checking API keys. */
export interface KeyOperations {
  /** Creates a key (and its account when new); the only time the secret is returned. */
  create(input: ApiKeyCreateInput): Promise<CreatedApiKey>;
  /** Every key, without secrets, optionally of one account (id or name). */
  list(account?: string): Promise<ApiKeyInfo[]>;
  /** Throws `NOT_FOUND` for an unknown or already revoked key. */
  revoke(id: string): Promise<void>;
  /**
   * The context of a live key, or `null`. A key this process has seen live is remembered
   * (`service/key-memory.ts`): it costs no database round trip, and a revocation reaches it at
   * once through this process and within a second from any other.
   */
  authenticate(key: string, options?: AuthenticateOptions): Promise<AuthContext | null>;
}

/** Issuing, listing, revoking and checking API keys (an operator's operations, of no one account). */
export function createKeyOperations(storage: AccountStore, clock: () => Date): KeyOperations {
  const memory = createKeyMemory(storage);
  const keys: KeyOperations = {
    async create(input) {
      const parsed = parseInput(ApiKeyCreateInput, input);
      if (parsed.tier !== "enterprise" && (parsed.perMinute !== undefined || parsed.perDay !== undefined)) {
        throw new ServiceError("INVALID_REQUEST", {
          message: "perMinute and perDay are set for enterprise keys only",
          field: "tier",
        });
      }
      const key = generateApiKey();
      const newAccountId = createId("account");
      const info = await storage.createApiKey({
        id: createId("apiKey"),
        account: parsed.account,
        newAccountId,
        hash: hashApiKey(key),
        prefix: apiKeyPrefix(key),
        tier: parsed.tier,
        scopes: parsed.scopes,
        limits: { perMinute: parsed.perMinute, perDay: parsed.perDay },
        now: clock().toISOString(),
      });
      // New limits of an existing account apply at once here (other processes: on their next check).
      if (parsed.perMinute !== undefined || parsed.perDay !== undefined) memory.forget();
      // The store picks the account in the key's transaction: it took the new id only if it created it.
      return {
        id: info.id,
        key,
        accountId: info.accountId,
        tier: info.tier,
        scopes: info.scopes,
        accountCreated: info.accountId === newAccountId,
      };
    },
    list: (account) => storage.listApiKeys(account),
    async revoke(id) {
      const revoked = await storage.revokeApiKey(id, clock().toISOString());
      memory.forget();
      if (!revoked) throw notFound("API key", id);
    },
    async authenticate(key, options = {}) {
      const hash = hashApiKey(key);
      const remembered = await memory.recall(hash);
      if (remembered) return remembered;
      options.beforeLookup?.();
      return memory.load(hash, async () => {
        const stored = await storage.authenticate(hash);
        if (!stored) return null;
        const { perMinute, perDay, ...key } = stored;
        return { ...key, limits: limitsFor(key.tier, perMinute, perDay) };
      });
    },
  };

  return keys;
}
