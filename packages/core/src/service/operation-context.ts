import type { Scope, Tier } from "../resources/api-key.ts";
import type { Pagination } from "../resources/common.ts";
import type { ChangeNotifier } from "../storage/change-notifier.ts";
import type { StripePayments } from "./stripe-payments.ts";
import type { TransactionContext } from "./transaction-context.ts";

/** A list response: the items under `key` and the pagination object. */
export type ListResult<K extends string, T> = { [P in K]: T[] } & { pagination: Pagination };

/**
 * Who acts, for whom, and with what: what each resource's operations of one account share. It is
 * also the context of the business transactions they make, built once per account.
 */
export interface OperationContext extends TransactionContext {
  accountId: string;
  /** The base of the links handed out (`qrCode`). */
  baseUrl: string;
  /** The caller's scopes: what its webhooks may subscribe to and its delivery log shows. */
  scopes: readonly Scope[];
  /** The caller's tier, which caps the account's webhooks. */
  tier: Tier;
  /** The service's clock. A time handed on is ISO text (`clock().toISOString()`), named `at`, `...At`, or `now` for the current one (see `Storage`). */
  clock: () => Date;
  /** What this account's writes notify (`createChangeNotifier` with `baseUrl` and `carbon`). */
  notifier: ChangeNotifier;
  /** Called after a write that may have queued deliveries. */
  queued: () => void;
  /** Stripe's side of the payments, when the service takes them through Stripe. */
  stripe?: Pick<StripePayments, "ensureIntent" | "closeIntent"> | undefined;
}
