/**
 * The delivery side's business transactions: recording attempts (the delivery's next state and
 * its webhook's failure count), redelivery, and a ping's delivery. Each asks `rules/` what a change
 * means and has the storage apply it in one `storage.transaction` (`tx.deliveries`, `tx.webhooks`).
 */
import type {
  AttemptRecorded,
  ClaimedDelivery,
  DeliveryAttemptRecord,
  DeliveryRecord,
} from "../resources/webhook-delivery.ts";
import { countAttempts, DISABLE_AFTER_FAILURES } from "../rules/delivery-failures.ts";
import { PING_DELIVERY, redelivery, statusAfterAttempt } from "../rules/delivery-status.ts";
import { createEnvelope } from "../webhooks/outbox.ts";
import { pingNotification } from "../webhooks/payloads.ts";
import type { StorageContext } from "./transaction-context.ts";

/**
 * Records attempts in one transaction (one commit for the attempts a worker saw end together);
 * the results in the order given. Each attempt joins its delivery's log and the delivery becomes
 * `succeeded`, `failed` or stays `pending` until `nextAttemptAt` (`statusAfterAttempt`), unless
 * the worker no longer holds it. Then, unless the delivery is a ping, each webhook's failure
 * count is updated once, by `countAttempts` (`rules/delivery-failures.ts`), on its locked row:
 * a webhook disabled here is reported on its 410 record, else on its latest failure.
 *
 * Deliveries are locked in the order of their ids, then webhooks in the order of theirs: two
 * workers' transactions never wait on each other in a circle.
 */
export async function recordDeliveryAttempts(
  { storage }: StorageContext,
  {
    records,
    disableAfter = DISABLE_AFTER_FAILURES,
  }: {
    records: readonly DeliveryAttemptRecord[];
    /** Consecutive failures that disable a webhook (default `DISABLE_AFTER_FAILURES`). */
    disableAfter?: number | undefined;
  },
): Promise<AttemptRecorded[]> {
  if (records.length === 0) return [];
  const byDelivery = records
    .map((record, index) => ({ record, index }))
    .sort((a, b) => (a.record.deliveryId < b.record.deliveryId ? -1 : 1));
  return storage.transaction(async (tx) => {
    const results = records.map((): AttemptRecorded => ({ recorded: false, webhookDisabled: false }));
    const counted = new Map<string, number[]>();
    for (const { record, index } of byDelivery) {
      const held = await tx.deliveries.recordAttempt({
        deliveryId: record.deliveryId,
        workerId: record.workerId,
        attempt: record.attempt,
        status: statusAfterAttempt(record.attempt.succeeded, record.nextAttemptAt),
        nextAttemptAt: record.nextAttemptAt,
        now: record.now,
      });
      if (!held) continue;
      results[index]!.recorded = true;
      if (held.countsFailures) counted.set(held.webhookId, [...(counted.get(held.webhookId) ?? []), index]);
    }
    for (const webhookId of [...counted.keys()].sort()) {
      const indexes = counted.get(webhookId)!;
      const current = await tx.webhooks.lockFailures(webhookId);
      if (!current) continue;
      const attempts = indexes.map((index) => ({
        startedAt: records[index]!.attempt.startedAt,
        succeeded: records[index]!.attempt.succeeded,
        gone: records[index]!.gone,
      }));
      const { count, disabledBy } = countAttempts(current, attempts, disableAfter);
      const disabledAt = disabledBy === null ? null : records[indexes[disabledBy]!]!.now;
      const changed =
        count.consecutiveFailures !== current.consecutiveFailures ||
        count.lastSuccessStartedAt !== current.lastSuccessStartedAt;
      if (changed || disabledAt !== null) await tx.webhooks.setFailures(webhookId, count, disabledAt);
      if (disabledBy !== null) results[indexes[disabledBy]!]!.webhookDisabled = true;
    }
    return results;
  });
}

/**
 * Queues one more attempt of a delivery of the account's webhook, due at `now`, with the same
 * envelope (`redelivery` in `rules/delivery-status.ts`), on its locked row; a delivery being sent
 * right now is left as it is. The delivery as it is after; `null` when there is none.
 */
export async function redeliverDelivery(
  { storage }: StorageContext,
  { accountId, webhookId, deliveryId, now }: { accountId: string; webhookId: string; deliveryId: string; now: string },
): Promise<DeliveryRecord | null> {
  return storage.transaction(async (tx) => {
    const current = await tx.deliveries.lock(accountId, webhookId, deliveryId);
    if (!current) return null;
    await tx.deliveries.requeue(deliveryId, { ...redelivery(current), now });
    return tx.deliveries.get(accountId, webhookId, deliveryId);
  });
}

/**
 * Stores a `webhook.ping` of the account's webhook (active or not), made from the webhook as it is
 * stored, in an envelope of its own (`webhooks/outbox.ts`), already held by `workerId` until
 * `leaseUntil` so that no worker claims it, with one final attempt whose failure does not count
 * towards disabling the webhook (`PING_DELIVERY`). Returns it to be sent at once by its holder;
 * `null` when the account has no such webhook.
 */
export async function createPingDelivery(
  { storage }: StorageContext,
  {
    accountId,
    webhookId,
    workerId,
    now,
    leaseUntil,
  }: { accountId: string; webhookId: string; workerId: string; now: string; leaseUntil: string },
): Promise<ClaimedDelivery | null> {
  return storage.transaction(async (tx) => {
    const webhook = await tx.webhooks.get(accountId, webhookId);
    if (!webhook) return null;
    const account = await tx.outbox.account(accountId);
    if (!account) throw new Error(`Account ${accountId} has no row to address its ping from.`);
    const envelope = createEnvelope(pingNotification(webhook), account, now);
    const payload = await tx.deliveries.insertHeld({ webhookId, envelope }, { workerId, leaseUntil, ...PING_DELIVERY });
    return {
      id: envelope.id,
      webhookId,
      accountId,
      url: webhook.url,
      secret: webhook.secret,
      previousSecret: webhook.previousSecret,
      previousSecretExpiresAt: webhook.previousSecretExpiresAt,
      type: envelope.type,
      payload,
      attemptCount: 0,
      finalAttempt: PING_DELIVERY.finalAttempt,
    };
  });
}
