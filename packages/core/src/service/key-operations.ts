import { createId } from "../_internal/ids.ts";
import { parseInput } from "../_internal/parse-input.ts";
import { ServiceError } from "../errors.ts";
import {
  type ApiKeyInfo, ApiKeyCreateInput, apiKeyPrefix, type AuthContext, type CreatedApiKey, generateApiKey, hashApiKey,
} from "../resources/api-key.ts";
import type { AccountStore } from "../storage/account-store.ts";
import { notFound } from "./operation-context.ts";

/** Issuing and checking API keys. */
export interface KeyOperations {
  /** Creates a key (and its account when new); the only time the secret is returned. */
  create(input: ApiKeyCreateInput): Promise<CreatedApiKey>;
  /** Every key, without secrets, optionally of one account (id or name). */
  list(account?: string): Promise<ApiKeyInfo[]>;
  /** Throws `NOT_FOUND` for an unknown or already revoked key. */
  revoke(id: string): Promise<void>;
  /** The context of a valid key, or `null`. */
  authenticate(key: string): Promise<AuthContext | null>;
}

/** Issuing, listing, revoking and checking API keys (an operator's operations, of no one account). */
export function createKeyOperations(storage: AccountStore, now: () => string): KeyOperations {
  const keys: KeyOperations = {
    async create(input) {
      const parsed = parseInput(ApiKeyCreateInput, input);
      if (parsed.tier !== "enterprise" && (parsed.perMinute !== undefined || parsed.perDay !== undefined)) {
        throw new ServiceError("INVALID_REQUEST", { message: "perMinute and perDay are set for enterprise keys only", field: "tier" });
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
        now: now(),
      });
      // The store picks the account in the key's transaction: it took the new id only if it created it.
      return { id: info.id, key, accountId: info.accountId, tier: info.tier, scopes: info.scopes, accountCreated: info.accountId === newAccountId };
    },
    list: (account) => storage.listApiKeys(account),
    async revoke(id) {
      if (!(await storage.revokeApiKey(id, now()))) throw notFound("API key", id);
    },
    authenticate: (key) => storage.authenticate(hashApiKey(key)),
  };

  return keys;
}
