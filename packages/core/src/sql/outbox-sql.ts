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
import type { Database, WebhookDeliveriesTable } from "./database.ts";
import type { KeptFiguresSql } from "./kept-figures-sql.ts";
import { type Param, params, precompile } from "./precompiled.ts";

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

/**
 * Hands `change` to `notifier` inside the change's transaction `trx`, with a reader of what it
 * may need, and writes the notifications it returns to the outbox (nothing when the account has
 * no active webhook, or no notifier is given). Returns how many deliveries were written.
 */
export type NotifyChange = (trx: Kysely<Database>, accountId: string, change: StoredChange, notifier: ChangeNotifier | undefined) => Promise<number>;

/** The outbox's writing side on `db`, its statements compiled once (every change with a subscriber runs them). */
export function createNotifyChange(
  db: Kysely<Database>,
  keptFigures: KeptFiguresSql,
  eventAnalyticsFigures: (conn: Kysely<Database>, accountId: string, eventId: string) => Promise<EventAnalyticsFigures | null>,
): NotifyChange {
  const webhooksQuery = precompile(db, (conn, param: Param<{ account: string }>) =>
    conn.selectFrom("webhooks").select(["id", "events"]).where("account_id", "=", param("account")).where("active", "=", 1),
  );
  const accountQuery = precompile(db, (conn, param: Param<{ id: string }>) => conn.selectFrom("accounts").select(["id", "name"]).where("id", "=", param("id")));
  const insertDelivery = precompile(db, (conn, param: Param<Pick<WebhookDeliveriesTable, DeliveryColumn>>) =>
    conn.insertInto("webhook_deliveries").values(params(param, DELIVERY_COLUMNS)),
  );

  /** The account's subscriptions, read inside the change's transaction. */
  async function subscriptions(trx: Kysely<Database>, accountId: string): Promise<Subscriptions> {
    const { rows } = await webhooksQuery({ account: accountId }, trx);
    const webhooks = rows.map((row) => ({ id: row.id, types: JSON.parse(row.events) as string[] }));
    return { webhooks, wants: (type) => webhooks.some((webhook) => isSubscribed(webhook.types, type)) };
  }

  /** One pending delivery, due now, per notification and active webhook subscribed to its type. */
  async function writeNotifications(trx: Kysely<Database>, accountId: string, subs: Subscriptions, notifications: readonly Notification[], now: string): Promise<number> {
    const wanted = notifications.filter((notification) => subs.wants(notification.type));
    if (wanted.length === 0) return 0;
    const account = (await accountQuery({ id: accountId }, trx)).rows[0];
    if (!account) throw new Error(`Account ${accountId} has no row to address its notifications from.`);
    let written = 0;
    for (const webhook of subs.webhooks) {
      for (const notification of wanted) {
        if (!isSubscribed(webhook.types, notification.type)) continue;
        await insertDelivery(deliveryRow(webhook.id, { id: account.id, name: account.name }, notification, now), trx);
        written += 1;
      }
    }
    return written;
  }

  return async (trx, accountId, change, notifier) => {
    if (!notifier) return 0;
    const subs = await subscriptions(trx, accountId);
    if (subs.webhooks.length === 0) return 0;
    const reader: OutboxReader = {
      wants: subs.wants,
      keptFigures: (eventId) => keptFigures.read(trx, eventId),
      markOnce: (eventId, kind) => markOnce(trx, eventId, kind, change.at),
      eventAnalyticsFigures: (account, eventId) => eventAnalyticsFigures(trx, account, eventId),
    };
    const notifications = await notifier(change, reader);
    return writeNotifications(trx, accountId, subs, notifications, change.at);
  };
}

/** True when a webhook subscribed to `types` receives notifications of `type`. */
export function isSubscribed(types: readonly string[], type: string): boolean {
  return types.includes("*") || types.includes(type);
}

/** Every column of a delivery row, each written by {@link deliveryRow}. */
const DELIVERY_COLUMNS = [
  "id", "webhook_id", "account_id", "type", "payload", "status", "attempt_count", "final_attempt", "counts_failures", "next_attempt_at", "lease_owner", "lease_until", "created_at", "updated_at",
] as const satisfies ReadonlyArray<keyof WebhookDeliveriesTable>;
type DeliveryColumn = (typeof DELIVERY_COLUMNS)[number];

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
  } satisfies Record<DeliveryColumn, unknown>;
}
