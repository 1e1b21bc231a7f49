/** Test helpers that run the webhook side's business transactions on a storage, as the service and the worker do. */
import type { WebhookRecord } from "../src/resources/webhook.ts";
import { type AttemptRecorded, type DeliveryAttemptRecord, recordDeliveryAttempts } from "../src/service/delivery-operations.ts";
import type { Storage } from "../src/storage.ts";

/**
 * Changes a webhook as the service does: locked, decided by `change`, saved, in one webhook
 * transaction. `null` when the account has no such webhook.
 */
export function changeWebhook(
  storage: Pick<Storage, "webhookTransaction">,
  accountId: string,
  id: string,
  change: (current: WebhookRecord) => WebhookRecord,
): Promise<{ before: WebhookRecord; after: WebhookRecord } | null> {
  return storage.webhookTransaction(accountId, async (tx) => {
    const before = await tx.lockWebhook(id);
    if (!before) return null;
    const after = change(before);
    await tx.saveWebhook(after);
    return { before, after };
  });
}

/** Records one attempt as a worker does (`recordDeliveryAttempts`), its webhook disabled after `disableAfter` failures (default 10). */
export async function recordAttempt(storage: Storage, { disableAfter, ...record }: DeliveryAttemptRecord & { disableAfter?: number }): Promise<AttemptRecorded> {
  return (await recordDeliveryAttempts(storage, [record], disableAfter))[0]!;
}

