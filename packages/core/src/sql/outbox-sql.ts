/**
 * The transactional outbox: writes the notifications of a change into `webhook_deliveries`
 * inside the change's own write transaction (one row per subscribed active webhook), so a
 * rolled-back change sends nothing and a committed one is never lost. Which notifications a
 * change causes is the core's `ChangeNotifier`'s to say; this module only reads for it and saves.
 */
import type { ExpressionBuilder, Kysely } from "kysely";
import { createId } from "../_internal/ids.ts";
import type { EventAnalyticsFigures } from "../analytics/analytics-figures.ts";
import type { DeliveryStatus } from "../resources/webhook-delivery.ts";
import type { ChangeNotifier, OutboxReader, StoredChange } from "../storage/change-notifier.ts";
import type { Envelope, Notification } from "../storage/envelope.ts";
import type { Database } from "./database.ts";
import { readKeptFigures } from "./kept-figures-sql.ts";

/** The status of a delivery that still has an attempt to make. */
export const PENDING = "pending" satisfies DeliveryStatus;

/** A delivery no worker holds at `now`: never leased, or its lease ran out (a crashed worker's). */
export const leaseFree = (now: string) => (eb: ExpressionBuilder<Database, "webhook_deliveries">) =>
  eb.or([eb("webhook_deliveries.lease_until", "is", null), eb("webhook_deliveries.lease_until", "<", now)]);

/** Records that a one-time notification of an event was written; false when it already was. */
async function markOnce(trx: Kysely<Database>, eventId: string, kind: string, now: string): Promise<boolean> {
  const result = await trx
    .insertInto("notification_marks")
    .values({ event_id: eventId, kind, created_at: now })
    .onConflict((oc) => oc.columns(["event_id", "kind"]).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

/** The account's active webhooks and the types they subscribe to, read once per change. */
export interface Subscriptions {
  webhooks: Array<{ id: string; types: string[] }>;
  /** True when some active webhook receives `type`. */
  wants(type: string): boolean;
}

/** Reads the account's subscriptions inside the change's transaction. */
export async function subscriptions(trx: Kysely<Database>, accountId: string): Promise<Subscriptions> {
  const rows = await trx.selectFrom("webhooks").select(["id", "events"]).where("account_id", "=", accountId).where("active", "=", 1).execute();
  const webhooks = rows.map((row) => ({ id: row.id, types: JSON.parse(row.events) as string[] }));
  return { webhooks, wants: (type) => webhooks.some((webhook) => isSubscribed(webhook.types, type)) };
}

/**
 * Hands `change` to `notifier` inside the change's transaction, with a reader of what it may
 * need, and writes the notifications it returns to the outbox (nothing when the account has
 * no active webhook, or no notifier is given). Returns how many deliveries were written.
 */
export async function notifyChange(
  trx: Kysely<Database>,
  accountId: string,
  change: StoredChange,
  notifier: ChangeNotifier | undefined,
  eventAnalyticsFigures: (conn: Kysely<Database>, accountId: string, eventId: string) => Promise<EventAnalyticsFigures | null>,
): Promise<number> {
  if (!notifier) return 0;
  const subs = await subscriptions(trx, accountId);
  if (subs.webhooks.length === 0) return 0;
  const reader: OutboxReader = {
    wants: subs.wants,
    keptFigures: (eventId) => readKeptFigures(trx, eventId),
    markOnce: (eventId, kind) => markOnce(trx, eventId, kind, change.at),
    eventAnalyticsFigures: (account, eventId) => eventAnalyticsFigures(trx, account, eventId),
  };
  const notifications = await notifier(change, reader);
  return writeNotifications(trx, accountId, subs, notifications, change.at);
}

/** True when a webhook subscribed to `types` receives notifications of `type`. */
export function isSubscribed(types: readonly string[], type: string): boolean {
  return types.includes("*") || types.includes(type);
}

/**
 * Writes `notifications` of one account to the outbox: one pending delivery, due now, per
 * notification and active webhook subscribed to its type. Returns how many were written.
 */
export async function writeNotifications(
  trx: Kysely<Database>,
  accountId: string,
  subs: Subscriptions,
  notifications: readonly Notification[],
  now: string,
): Promise<number> {
  const wanted = notifications.filter((notification) => subs.wants(notification.type));
  if (wanted.length === 0) return 0;
  const account = await trx.selectFrom("accounts").select(["id", "name"]).where("id", "=", accountId).executeTakeFirstOrThrow();
  const rows = [];
  for (const webhook of subs.webhooks) {
    for (const notification of wanted) {
      if (isSubscribed(webhook.types, notification.type)) rows.push(deliveryRow(webhook.id, { id: account.id, name: account.name }, notification, now));
    }
  }
  await trx.insertInto("webhook_deliveries").values(rows).execute();
  return rows.length;
}

/** A new pending delivery row, its envelope serialised once: the bytes every attempt sends. */
export function deliveryRow(webhookId: string, account: { id: string; name: string }, notification: Notification, now: string) {
  const id = createId("delivery");
  const envelope: Envelope = { id, type: notification.type, createdAt: now, data: notification.data, account };
  return {
    id,
    webhook_id: webhookId,
    account_id: account.id,
    type: notification.type,
    payload: JSON.stringify(envelope),
    status: PENDING,
    attempt_count: 0,
    final_attempt: null,
    counts_failures: 1,
    next_attempt_at: now,
    lease_owner: null,
    lease_until: null,
    created_at: now,
    updated_at: now,
  };
}
