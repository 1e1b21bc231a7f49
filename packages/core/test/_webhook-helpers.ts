/** Test helpers that run the webhook side's business transactions on a storage, as the service and the worker do. */
import type { WebhookRecord } from "../src/resources/webhook.ts";
import type {
  AttemptRecorded,
  ClaimedDelivery,
  DeliveryAttemptRecord,
  DeliveryRecord,
} from "../src/resources/webhook-delivery.ts";
import {
  createPingDelivery as pingTransaction,
  recordDeliveryAttempts as recordTransaction,
  redeliverDelivery as redeliverTransaction,
} from "../src/service/delivery-operations.ts";
import { changeWebhook as changeTransaction } from "../src/service/webhook-changes.ts";
import type { Storage } from "../src/storage.ts";
import type { TransactionStore } from "../src/storage/transaction.ts";

/**
 * Changes a webhook as the service does (`service/webhook-changes.ts`): locked, decided by
 * `change`, saved, in one `storage.transaction`. `null` when the account has no such webhook.
 */
export function changeWebhook(
  storage: TransactionStore,
  accountId: string,
  id: string,
  decide: (current: WebhookRecord) => WebhookRecord,
): Promise<{ before: WebhookRecord; after: WebhookRecord } | null> {
  return changeTransaction({ storage }, { accountId, id }, decide);
}

/** Records attempts in one transaction as a worker does (`service/delivery-operations.ts`), webhooks disabled after `disableAfter` failures (default 10). */
export function recordDeliveryAttempts(
  storage: TransactionStore,
  records: readonly DeliveryAttemptRecord[],
  disableAfter?: number,
): Promise<AttemptRecorded[]> {
  return recordTransaction({ storage }, { records, disableAfter });
}

/** Queues one more attempt of the account's webhook's delivery, as the service does; `null` when there is none. */
export function redeliverDelivery(
  storage: TransactionStore,
  accountId: string,
  webhookId: string,
  deliveryId: string,
  now: string,
): Promise<DeliveryRecord | null> {
  return redeliverTransaction({ storage }, { accountId, webhookId, deliveryId, now });
}

/** Stores a ping of the account's webhook held by `hold.workerId`, as the service does; `null` when there is no such webhook. */
export function createPingDelivery(
  storage: TransactionStore,
  accountId: string,
  webhookId: string,
  hold: { workerId: string; now: string; leaseUntil: string },
): Promise<ClaimedDelivery | null> {
  return pingTransaction({ storage }, { accountId, webhookId, ...hold });
}

/** Records one attempt as a worker does (`recordDeliveryAttempts`), its webhook disabled after `disableAfter` failures (default 10). */
export async function recordAttempt(
  storage: Storage,
  { disableAfter, ...record }: DeliveryAttemptRecord & { disableAfter?: number },
): Promise<AttemptRecorded> {
  return (await recordDeliveryAttempts(storage, [record], disableAfter))[0]!;
}
