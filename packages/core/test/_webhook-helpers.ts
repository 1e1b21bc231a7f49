/** Test helpers that run the webhook side's business transactions on a storage, as the service and the worker do. */
import {
  type AttemptRecorded,
  type DeliveryAttemptRecord,
  recordDeliveryAttempts,
} from "../src/service/delivery-operations.ts";
import type { Storage } from "../src/storage.ts";

/**
 * Changes a webhook as the service does (`service/webhook-changes.ts`): locked, decided by
 * `change`, saved, in one `storage.transaction`. `null` when the account has no such webhook.
 */
export { changeWebhook } from "../src/service/webhook-changes.ts";

/** Records one attempt as a worker does (`recordDeliveryAttempts`), its webhook disabled after `disableAfter` failures (default 10). */
export async function recordAttempt(
  storage: Storage,
  { disableAfter, ...record }: DeliveryAttemptRecord & { disableAfter?: number },
): Promise<AttemptRecorded> {
  return (await recordDeliveryAttempts(storage, [record], disableAfter))[0]!;
}
