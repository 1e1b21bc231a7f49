import { hash, randomBytes } from "node:crypto";
import * as z from "zod";
import { text, Timestamp } from "./common.ts";

/** Every scope a key can carry. A key created with no scopes named carries all of them. */
export const SCOPES = [
  "events:read",
  "events:write",
  "attendees:read",
  "attendees:write",
  "webhooks:read",
  "webhooks:write",
  "analytics:read",
  "vendors:read",
  "vendors:write",
  "payments:read",
  "payments:write",
] as const;
export type Scope = (typeof SCOPES)[number];

/**
 * The scopes that grant what each scope permits: itself and, for a `:read` scope, the `:write`
 * of its family (a write scope includes its read, as Stripe's restricted keys do, so
 * a door scanner's key reads the attendee it checks in). A `:write` is granted by itself only:
 * a read-only key never writes.
 */
const GRANTED_BY = {} as Record<Scope, readonly Scope[]>;
for (const scope of SCOPES) {
  const write = scope.endsWith(":read")
    ? SCOPES.find((other) => other === scope.replace(/:read$/, ":write"))
    : undefined;
  GRANTED_BY[scope] = write ? [scope, write] : [scope];
}

/** The scopes any one of which grants `scope` (`attendees:read`: itself and `attendees:write`). */
export function scopesGranting(scope: Scope): readonly Scope[] {
  return GRANTED_BY[scope];
}

/**
 * Whether a key holding `held` may do what `scope` permits: the one place where a key's scopes
 * become permissions, behind the routes' checks, the webhook subscription rules and the delivery
 * log's redaction alike. A key's scopes are kept and shown as given; only this reads them.
 */
export function holdsScope(held: readonly Scope[], scope: Scope): boolean {
  return GRANTED_BY[scope].some((granting) => held.includes(granting));
}

/** Rate-limit tiers (docs/api.md, Rate limits). */
export const TIERS = ["free", "starter", "professional", "enterprise"] as const;
export type Tier = (typeof TIERS)[number];

/** Requests per minute and per day of each tier; enterprise limits are set per account. */
export const TIER_LIMITS = {
  free: { perMinute: 60, perDay: 1_000 },
  starter: { perMinute: 300, perDay: 10_000 },
  professional: { perMinute: 1_200, perDay: 50_000 },
  enterprise: { perMinute: 6_000, perDay: 1_000_000 },
} as const satisfies Record<Tier, { perMinute: number; perDay: number }>;

export const Account = z.object({
  id: z.string(),
  name: z.string(),
  /** Enterprise limits, set when an enterprise key is created; null means the tier's defaults. */
  perMinute: z.int().nullable(),
  perDay: z.int().nullable(),
  createdAt: Timestamp,
});
export type Account = z.infer<typeof Account>;

/**
 * The limits a key's requests are counted against: an enterprise account's own limits where
 * set, else its tier's.
 */
export function limitsFor(
  tier: Tier,
  perMinute: number | null,
  perDay: number | null,
): { perMinute: number; perDay: number } {
  const own = tier === "enterprise";
  return {
    perMinute: own && perMinute !== null ? perMinute : TIER_LIMITS[tier].perMinute,
    perDay: own && perDay !== null ? perDay : TIER_LIMITS[tier].perDay,
  };
}

/** What the caller of `createApiKey` gives. */
export const ApiKeyCreateInput = z.strictObject({
  /** Name or id of the account; an unknown name creates the account. */
  account: text(200),
  tier: z.enum(TIERS).default("free"),
  /** None named (empty): every scope, including those added later. */
  scopes: z
    .array(z.enum(SCOPES))
    .default([])
    .transform((scopes) => [...new Set(scopes)]),
  /** Enterprise only: requests per minute and per day of the account. */
  perMinute: z.int().min(1).max(1_000_000).optional(),
  perDay: z.int().min(1).max(100_000_000).optional(),
});
export type ApiKeyCreateInput = z.input<typeof ApiKeyCreateInput>;

/**
 * What a key created with no scope named keeps in place of a list: every scope there is when it
 * is read, so a scope added later reaches it too.
 */
export const EVERY_SCOPE = "*";

/** The stored form of a key's scopes: `*` for none named (every scope), else the names, space-separated. */
export function storedScopes(scopes: readonly Scope[]): string {
  return scopes.length === 0 ? EVERY_SCOPE : scopes.join(" ");
}

/** A key's scopes from their stored form (`*`: every scope of this version). */
export function scopesOf(stored: string): Scope[] {
  return stored === EVERY_SCOPE ? [...SCOPES] : (stored.split(" ").filter(Boolean) as Scope[]);
}

/** A key as listed: everything but the secret, which is never stored. */
export const ApiKeyInfo = z.object({
  id: z.string(),
  accountId: z.string(),
  accountName: z.string(),
  /** The key's first characters, enough to recognise it (`esk_3f9a…`). */
  prefix: z.string(),
  tier: z.enum(TIERS),
  scopes: z.array(z.enum(SCOPES)),
  createdAt: Timestamp,
  revokedAt: Timestamp.nullable(),
});
export type ApiKeyInfo = z.infer<typeof ApiKeyInfo>;

/** The answer to creating a key: the only time the secret `key` is shown. */
export interface CreatedApiKey {
  id: string;
  key: string;
  accountId: string;
  tier: Tier;
  scopes: Scope[];
  /** Whether this call created the account (`false`: the key was added to an existing one). */
  accountCreated: boolean;
}

/** What authenticating a key yields. */
export interface AuthContext {
  keyId: string;
  accountId: string;
  accountName: string;
  tier: Tier;
  scopes: readonly Scope[];
  limits: { perMinute: number; perDay: number };
}

const KEY_PREFIX = "esk_";

/** A new secret API key: `esk_` and 48 hex characters (192 random bits). */
export function generateApiKey(): string {
  return KEY_PREFIX + randomBytes(24).toString("hex");
}

/**
 * The stored form of a key. Keys are long random secrets, so a plain SHA-256 is enough (no
 * password hashing needed) and keeps lookup to one indexed query.
 */
export function hashApiKey(key: string): string {
  return hash("sha256", key);
}

/** The displayable start of a key. */
export function apiKeyPrefix(key: string): string {
  return `${key.slice(0, KEY_PREFIX.length + 6)}…`;
}
