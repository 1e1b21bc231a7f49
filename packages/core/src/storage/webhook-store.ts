import type { WebhookListQuery, WebhookRecord } from "../resources/webhook.ts";
import type { Page } from "./common.ts";

/**
 * Webhooks (with their secrets: the API forms leave them out).
 * Each method is atomic (see `Storage`). A change of a webhook is a business transaction of the
 * service over `storage.transaction` (`tx.webhooks`).
 */
export interface WebhookStore {
  /**
   * Stores a new webhook unless its account already holds `maxPerAccount` webhooks (default: no
   * bound); returns `false`, storing nothing, at the bound. Throws `StorageConflict` (`webhook-url`),
   * storing nothing, when the account has one with this URL. Atomic: the count, the URL check and
   * the insert are one transaction under the account's lock, so concurrent inserts never pass the
   * bound; the unique index on the URL is the backstop (also a `StorageConflict`).
   */
  insertWebhook(webhook: WebhookRecord, maxPerAccount?: number): Promise<boolean>;
  /** The account's webhook (with its secret), or `null`. */
  getWebhook(accountId: string, id: string): Promise<WebhookRecord | null>;
  /** Deletes the account's webhook; the deleted record, or `null`. */
  deleteWebhook(accountId: string, id: string): Promise<WebhookRecord | null>;
  /** One page of the account's webhooks, newest first (ties by id). */
  listWebhooks(accountId: string, query: WebhookListQuery): Promise<Page<WebhookRecord>>;
}
