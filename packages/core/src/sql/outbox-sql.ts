/**
 * The transactional outbox: writes the notifications of a change into `webhook_deliveries`
 * inside the change's own write transaction (one row per subscribed active webhook), so a
 * rolled-back change sends nothing and a committed one is never lost.
 */
import { type Kysely, sql } from "kysely";
import { createId } from "../_internal/ids.ts";
import { type CarbonSettings, offsetKg } from "../carbon/carbon-settings.ts";
import { sustainabilityScore } from "../carbon/sustainability-score.ts";
import type { EventRecord } from "../resources/event.ts";
import { ACTIVE_ATTENDEE_STATUSES } from "../rules/attendee-status.ts";
import {
  type Envelope, type EventFigures, goalAchievedNotification, isCarbonNeutralAchieved, type Notification, thresholdNotification,
  CAPACITY_THRESHOLD_PERCENT,
} from "../webhooks/payloads.ts";
import { emissionsSql, lowCarbonModesSql } from "./carbon-sql.ts";
import type { Database } from "./database.ts";

/** The status of a delivery that still has an attempt to make. */
export const PENDING = "pending";

/** The figures of one event, read inside the transaction. */
export async function eventFigures(trx: Kysely<Database>, event: EventRecord, carbon: CarbonSettings): Promise<EventFigures> {
  const active = sql`status in (${sql.join(ACTIVE_ATTENDEE_STATUSES.map((status) => sql.lit(status)))})`;
  const row = await trx
    .selectFrom("attendees")
    .select([
      sql<number>`count(*)`.as("total"),
      sql<number>`sum(case when status = 'confirmed' then 1 else 0 end)`.as("confirmed"),
      sql<number>`sum(case when status = 'pending' then 1 else 0 end)`.as("pending"),
      sql<number>`sum(case when status = 'checked-in' then 1 else 0 end)`.as("checked_in"),
      sql<number>`sum(case when status = 'cancelled' then 1 else 0 end)`.as("cancelled"),
      sql<number>`sum(case when ${active} then ${emissionsSql()} else 0 end)`.as("emissions_kg"),
      sql<number>`sum(case when ${active} and offset_opted = 1 then offset_amount else 0 end)`.as("offset_usd"),
      sql<number>`sum(case when ${active} and travel_mode is not null then 1 else 0 end)`.as("travel_reported"),
      sql<number>`sum(case when ${active} and travel_mode in (${lowCarbonModesSql}) then 1 else 0 end)`.as("low_carbon"),
    ])
    .where("event_id", "=", event.id)
    .executeTakeFirstOrThrow();
  const n = (value: unknown) => Number(value ?? 0);
  const registrations = { total: n(row.total), confirmed: n(row.confirmed), pending: n(row.pending), checkedIn: n(row.checked_in), cancelled: n(row.cancelled) };
  const emissionsKg = n(row.emissions_kg);
  const offsetUsd = n(row.offset_usd);
  const figures = {
    capacity: event.capacity,
    registrations,
    activeRegistrations: registrations.confirmed + registrations.pending + registrations.checkedIn,
    emissionsKg,
    offsetUsd,
    offsetKg: offsetKg(offsetUsd, carbon),
    travelReported: n(row.travel_reported),
    lowCarbonTravel: n(row.low_carbon),
  };
  const score = sustainabilityScore({
    goals: event.sustainabilityGoals,
    travelReported: figures.travelReported,
    lowCarbonTravel: figures.lowCarbonTravel,
    emissionsKg,
    offsetKg: figures.offsetKg,
  });
  return { ...figures, sustainabilityScore: score };
}

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
 * The one-time notifications a change of an event's registrations or goals may cause: the
 * carbon-neutral goal first achieved, capacity utilization first at the threshold. Computed
 * (and marked as sent) only while some webhook subscribes to the type, so an account without
 * webhooks pays nothing for them.
 */
export async function derivedNotifications(
  trx: Kysely<Database>,
  event: EventRecord,
  carbon: CarbonSettings,
  now: string,
  subs: Subscriptions,
): Promise<Notification[]> {
  const wantsGoal = Boolean(event.sustainabilityGoals.carbonNeutral) && subs.wants("sustainability.goal_achieved");
  const wantsThreshold = subs.wants("analytics.threshold_exceeded");
  if (!wantsGoal && !wantsThreshold) return [];
  const figures = await eventFigures(trx, event, carbon);
  const notifications: Notification[] = [];
  if (wantsGoal && isCarbonNeutralAchieved(event.sustainabilityGoals.carbonNeutral, figures) && (await markOnce(trx, event.id, "goal_achieved:carbon_neutral", now))) {
    notifications.push(goalAchievedNotification(event, figures));
  }
  const reached = figures.activeRegistrations * 100 >= CAPACITY_THRESHOLD_PERCENT * figures.capacity;
  if (wantsThreshold && reached && (await markOnce(trx, event.id, "threshold:capacity_utilization", now))) {
    notifications.push(thresholdNotification(event, figures));
  }
  return notifications;
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
