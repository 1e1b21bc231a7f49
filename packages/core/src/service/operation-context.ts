import type { CarbonSettings } from "../carbon/carbon-settings.ts";
import type { EmissionFactorSet } from "../carbon/emission-factors.ts";
import { ServiceError } from "../errors.ts";
import type { Scope, Tier } from "../resources/api-key.ts";
import type { Pagination } from "../resources/common.ts";
import type { PaymentTerms } from "../rules/payments.ts";
import type { StripePayments } from "./stripe-payments.ts";
import type { ChangeNotifier } from "../storage/change-notifier.ts";

/** A list response: the items under `key` and the pagination object. */
export type ListResult<K extends string, T> = { [P in K]: T[] } & { pagination: Pagination };

/** Who acts, for whom, and with what: what each resource's operations of one account share. */
export interface OperationContext {
  accountId: string;
  /** The base of the links handed out (`qrCode`). */
  baseUrl: string;
  /** The caller's scopes: what its webhooks may subscribe to and its delivery log shows. */
  scopes: readonly Scope[];
  /** The caller's tier, which caps the account's webhooks. */
  tier: Tier;
  carbon: CarbonSettings;
  /** The travel emission factor set of every figure. */
  emissionFactors: EmissionFactorSet;
  /** The service's clock. A time handed on is ISO text (`clock().toISOString()`), named `at`, `...At`, or `now` for the current one (see `Storage`). */
  clock: () => Date;
  /** What this account's writes notify (`createChangeNotifier` with `baseUrl` and `carbon`). */
  notifier: ChangeNotifier;
  /** Called after a write that may have queued deliveries. */
  queued: () => void;
  /** How priced registrations pay (provider, hold). */
  payments: PaymentTerms;
  /** Stripe's side of the payments, when the service takes them through Stripe. */
  stripe?: Pick<StripePayments, "ensureIntent" | "closeIntent"> | undefined;
}

/** `NOT_FOUND` for a resource of this account, naming the request's `field` that held its id when given. */
export function notFound(what: string, id: string, field?: string): ServiceError {
  return new ServiceError("NOT_FOUND", { message: `${what} ${id} not found.`, ...(field !== undefined && { field }) });
}
