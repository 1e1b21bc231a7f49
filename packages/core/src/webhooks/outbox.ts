/**
 * The transactional outbox's writing side: inside a change's transaction, hands the change to the
 * {@link ChangeNotifier}, wraps each notification it returns in its envelope (docs/api.md, Envelope and types) and
 * appends one delivery per notification and active webhook subscribed to its type, so a
 * rolled-back change sends nothing and a committed one is never lost.
 */
import { createId } from "../_internal/ids.ts";
import type { ChangeNotifier, OutboxReader, StoredChange } from "../storage/change-notifier.ts";
import type { Envelope, Notification } from "../storage/envelope.ts";
import type { NewDelivery, StorageTransaction, Subscription } from "../storage/transaction.ts";

/** True when a webhook subscribed to `types` receives notifications of `type`. */
export function isSubscribed(types: readonly string[], type: string): boolean {
  return types.includes("*") || types.includes(type);
}

/** The envelope of a delivery of `notification` from `account`, made at `at`; its `id` is the delivery's, the same on every attempt. */
export function createEnvelope(
  notification: Notification,
  account: { id: string; name: string },
  at: string,
): Envelope {
  return {
    id: createId("delivery"),
    type: notification.type,
    createdAt: at,
    data: notification.data,
    account: { id: account.id, name: account.name },
  };
}

/** One delivery per notification and subscription that receives its type, each with an envelope of its own. */
export function deliveriesOf(
  subscriptions: readonly Subscription[],
  account: { id: string; name: string },
  notifications: readonly Notification[],
  at: string,
): NewDelivery[] {
  const deliveries: NewDelivery[] = [];
  for (const subscription of subscriptions) {
    for (const notification of notifications) {
      if (isSubscribed(subscription.types, notification.type))
        deliveries.push({ webhookId: subscription.webhookId, envelope: createEnvelope(notification, account, at) });
    }
  }
  return deliveries;
}

/**
 * Appends `notifications` of the account, made at `at` by a step of a change's transaction
 * `tx` rather than by its notifier (a configured threshold crossed), to the outbox: one delivery
 * per notification and active webhook subscribed to its type. Returns how many were appended.
 */
export async function appendNotificationsToOutbox(
  tx: StorageTransaction,
  accountId: string,
  notifications: readonly Notification[],
  at: string,
): Promise<number> {
  if (notifications.length === 0) return 0;
  const subscriptions = await tx.outbox.subscriptions(accountId);
  if (subscriptions.length === 0) return 0;
  const account = await tx.outbox.account(accountId);
  if (!account) throw new Error(`Account ${accountId} has no row to address its notifications from.`);
  const deliveries = deliveriesOf(subscriptions, account, notifications, at);
  if (deliveries.length > 0) await tx.outbox.append(deliveries);
  return deliveries.length;
}

/**
 * Hands `change` of the account to `notifier` inside the change's transaction `tx`, with a reader
 * of what it may need, and appends the deliveries of what it returns to the outbox. Nothing when
 * no notifier is given or the account has no active webhook (then the notifier is not called).
 * Returns how many deliveries were appended.
 */
export async function appendToOutbox(
  tx: StorageTransaction,
  accountId: string,
  change: StoredChange,
  notifier: ChangeNotifier | undefined,
): Promise<number> {
  if (!notifier) return 0;
  const subscriptions = await tx.outbox.subscriptions(accountId);
  if (subscriptions.length === 0) return 0;
  const wants = (type: string) => subscriptions.some((subscription) => isSubscribed(subscription.types, type));
  const reader: OutboxReader = {
    wants,
    keptFigures: (eventId) => tx.figures.read(eventId),
    activityFigures: (eventId) => tx.figures.readActivities(eventId),
    confirmedVendors: (eventId) => tx.bookings.confirmedVendors(eventId),
    recordOneTime: (eventId, kind) => tx.outbox.recordOneTime(eventId, kind, change.at),
    hasThreshold: (account, metric) => tx.thresholds.accountHas(account, metric),
    eventAnalyticsFigures: (account, eventId) => tx.figures.eventAnalytics(account, eventId),
  };
  const wanted = (await notifier(change, reader)).filter((notification) => wants(notification.type));
  if (wanted.length === 0) return 0;
  const account = await tx.outbox.account(accountId);
  if (!account) throw new Error(`Account ${accountId} has no row to address its notifications from.`);
  const deliveries = deliveriesOf(subscriptions, account, wanted, change.at);
  await tx.outbox.append(deliveries);
  return deliveries.length;
}

/**
 * {@link appendToOutbox} of several changes of the account made by one transaction (an event's
 * cancellation and the registrations it cancels): the subscriptions and the account read once,
 * what the notifier reads of an event read once for all of them (they are handed it after every
 * write of the transaction), and their deliveries appended together, in the changes' order.
 * Returns how many deliveries were appended.
 */
export async function appendChangesToOutbox(
  tx: StorageTransaction,
  accountId: string,
  changes: readonly StoredChange[],
  notifier: ChangeNotifier | undefined,
): Promise<number> {
  if (!notifier || changes.length === 0) return 0;
  const subscriptions = await tx.outbox.subscriptions(accountId);
  if (subscriptions.length === 0) return 0;
  const wants = (type: string) => subscriptions.some((subscription) => isSubscribed(subscription.types, type));
  const once = <K, V>(read: (key: K) => Promise<V>) => {
    const seen = new Map<K, Promise<V>>();
    return (key: K) => {
      let value = seen.get(key);
      if (!value) seen.set(key, (value = read(key)));
      return value;
    };
  };
  // Asked for each change once the event's capacity rule is met: read once for all of them.
  const hasThreshold = once((key: string) => {
    const [account, metric] = key.split("\u0000") as [string, Parameters<OutboxReader["hasThreshold"]>[1]];
    return tx.thresholds.accountHas(account, metric);
  });
  // A one-time notification recorded for one of the changes is not the others' to record.
  const marked = new Set<string>();
  const reader: OutboxReader = {
    wants,
    keptFigures: once((eventId: string) => tx.figures.read(eventId)),
    activityFigures: once((eventId: string) => tx.figures.readActivities(eventId)),
    confirmedVendors: once((eventId: string) => tx.bookings.confirmedVendors(eventId)),
    recordOneTime: async (eventId, kind) => {
      const key = `${eventId}\u0000${kind}`;
      if (marked.has(key)) return false;
      marked.add(key);
      return tx.outbox.recordOneTime(eventId, kind, changes[0]!.at);
    },
    hasThreshold: (account, metric) => hasThreshold(`${account}\u0000${metric}`),
    eventAnalyticsFigures: (account, eventId) => tx.figures.eventAnalytics(account, eventId),
  };
  const deliveries: NewDelivery[] = [];
  let account: { id: string; name: string } | null = null;
  for (const change of changes) {
    const wanted = (await notifier(change, reader)).filter((notification) => wants(notification.type));
    if (wanted.length === 0) continue;
    account ??= await tx.outbox.account(accountId);
    if (!account) throw new Error(`Account ${accountId} has no row to address its notifications from.`);
    deliveries.push(...deliveriesOf(subscriptions, account, wanted, change.at));
  }
  if (deliveries.length > 0) await tx.outbox.append(deliveries);
  return deliveries.length;
}
