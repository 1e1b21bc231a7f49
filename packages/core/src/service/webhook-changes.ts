/**
 * The business transactions of webhooks: an insert, and a change read locked, decided and saved in
 * one storage transaction under the account's lock, so that a URL found free stays free until it
 * commits and an attempt recorded meanwhile (its failure count, a disabling) is not overwritten.
 * A URL another webhook of the account has is answered as `DUPLICATE_WEBHOOK` here, the storage
 * reporting it as a `StorageConflict`.
 */
import { duplicateWebhook, type WebhookRecord } from "../resources/webhook.ts";
import { StorageConflict, type TransactionStore } from "../storage/transaction.ts";
import type { WebhookStore } from "../storage/webhook-store.ts";
import type { StorageContext } from "./transaction-context.ts";

/**
 * Stores a new webhook unless its account already holds `maxPerAccount` (`WebhookStore.insertWebhook`;
 * `Infinity`: no bound): `false`, storing nothing, at the bound. Throws `DUPLICATE_WEBHOOK` when the
 * account has one with this URL.
 */
export async function insertWebhook(
  { storage }: StorageContext<TransactionStore & Pick<WebhookStore, "insertWebhook">>,
  { webhook, maxPerAccount }: { webhook: WebhookRecord; maxPerAccount: number },
): Promise<boolean> {
  try {
    return await storage.insertWebhook(webhook, maxPerAccount);
  } catch (error) {
    if (StorageConflict.is(error, "webhook-url"))
      await assertUrlFree(storage, webhook.accountId, webhook.url, webhook.id);
    throw error;
  }
}

/**
 * Locks the account's webhook, asks `decide` what it becomes, and saves that: what a change may
 * do depends on the webhook as it is when the change is written. `decide` may throw (nothing is
 * written then). Throws `DUPLICATE_WEBHOOK` when the new URL is another webhook's of the
 * account. Returns the webhook before and after, or `null` when the account has no such webhook.
 */
export async function changeWebhook(
  { storage }: StorageContext,
  { accountId, id }: { accountId: string; id: string },
  decide: (current: WebhookRecord) => WebhookRecord,
): Promise<{ before: WebhookRecord; after: WebhookRecord } | null> {
  let saved: WebhookRecord | undefined;
  try {
    return await storage.transaction(async (tx) => {
      saved = undefined;
      // The account's lock first, as an insert takes it: the URL checked below stays free until commit.
      await tx.webhooks.lockAccount(accountId);
      const before = await tx.webhooks.lock(accountId, id);
      if (!before) return null;
      const after = decide(before);
      if (after.url !== before.url) {
        const taken = await tx.webhooks.findByUrl(accountId, after.url, id);
        if (taken !== null) throw duplicateWebhook(after.url, taken);
      }
      saved = after;
      await tx.webhooks.update(after);
      return { before, after };
    });
  } catch (error) {
    // The unique index's backstop (a race the account's lock did not cover): name the webhook that took the URL.
    if (saved && StorageConflict.is(error, "webhook-url")) await assertUrlFree(storage, accountId, saved.url, saved.id);
    throw error;
  }
}

/** Throws `DUPLICATE_WEBHOOK` when a webhook of the account other than `exceptId` has `url`, read in a transaction of its own. */
async function assertUrlFree(
  storage: Pick<TransactionStore, "transaction">,
  accountId: string,
  url: string,
  exceptId: string,
): Promise<void> {
  const taken = await storage.transaction((tx) => tx.webhooks.findByUrl(accountId, url, exceptId));
  if (taken !== null) throw duplicateWebhook(url, taken);
}
