import type { WebhookListQuery, WebhookRecord } from "../resources/webhook.ts";
import type { Page } from "./common.ts";

/** The small operations of one webhook transaction ({@link WebhookStore.webhookTransaction}), on one account's webhooks. */
export interface WebhookTransaction {
  /**
   * Locks the account's webhook and reads it (with its secret); `null` when the account has
   * none. Locked, because {@link saveWebhook} writes the row back whole: an attempt recorded
   * meanwhile (its failure count, a disabling) must not be overwritten with what was read before it.
   */
  lockWebhook(id: string): Promise<WebhookRecord | null>;
  /**
   * Writes a webhook locked by {@link lockWebhook} back whole (its id, account and creation
   * stay). Throws `DUPLICATE_WEBHOOK` when its new URL is another webhook's of the account.
   */
  saveWebhook(webhook: WebhookRecord): Promise<void>;
}

/**
 * Webhooks (with their secrets: the API forms leave them out).
 * Each method is atomic (see `Storage`).
 */
export interface WebhookStore {
  /**
   * Stores a new webhook unless its account already holds `maxPerAccount` webhooks (default: no
   * bound); returns `false`, storing nothing, at the bound. Throws `DUPLICATE_WEBHOOK` when the
   * account has one with this URL. Atomic: the count, the URL check and the insert are one
   * transaction under the account's lock, so concurrent inserts never pass the bound.
   */
  insertWebhook(webhook: WebhookRecord, maxPerAccount?: number): Promise<boolean>;
  /** The account's webhook (with its secret), or `null`. */
  getWebhook(accountId: string, id: string): Promise<WebhookRecord | null>;
  /**
   * Runs `fn` in one write transaction that holds the account's lock (as an insert does, so a
   * URL checked free stays free until it commits), with the operations on the account's
   * webhooks: the service reads a webhook locked, decides, and saves it. All of it commits, or
   * none. May run `fn` again (PostgreSQL, after a deadlock), so `fn` must do nothing but call
   * `tx` and compute.
   */
  webhookTransaction<T>(accountId: string, fn: (tx: WebhookTransaction) => Promise<T>): Promise<T>;
  /** Deletes the account's webhook; the deleted record, or `null`. */
  deleteWebhook(accountId: string, id: string): Promise<WebhookRecord | null>;
  /** One page of the account's webhooks, newest first (ties by id). */
  listWebhooks(accountId: string, query: WebhookListQuery): Promise<Page<WebhookRecord>>;
}
