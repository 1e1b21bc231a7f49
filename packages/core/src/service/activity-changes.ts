/**
 * The business transactions of activity records: create, update, delete. Each runs in one
 * storage transaction under the event's lock (`changeActivities`), so that what an event's
 * records add up to is exact for whatever the transaction decides after the change.
 */
import { ActivityInput } from "../resources/activity.ts";
import type { EventRecord } from "../resources/event.ts";
import {
  activityInputOf,
  type ActivityUpdateInput,
  newActivityRecord,
  type PricedActivity,
  priceActivity,
} from "../resources/priced-activity.ts";
import type { ActivityCreate, ActivityRecord } from "../resources/activity.ts";
import { parseInput } from "../_internal/parse-input.ts";
import { ServiceError } from "../errors.ts";
import { notFound } from "./not-found.ts";
import { checkEventThresholds } from "./threshold-checks.ts";
import type { TransactionContext } from "./transaction-context.ts";
import { appendNotifications, runTransaction, type Steps } from "./transaction-steps.ts";

/**
 * Runs `change` of the account's event's activity records in one transaction, under the
 * event's lock; `NOT_FOUND` when the account has no such event. Every activity change goes
 * through here, and then, in the same transaction, the event's activity figures are recounted
 * from its records, its goals judged (`activity.changed` to the notifier) and its footprint
 * thresholds.
 */
export function changeActivities<T>(
  context: TransactionContext,
  { accountId, eventId, now }: { accountId: string; eventId: string; now: string },
  change: (steps: Steps, event: EventRecord) => Promise<T>,
): Promise<T> {
  return runTransaction(context, async (steps) => {
    const event = await steps.tx.events.lock(accountId, eventId);
    if (!event) throw notFound("Event", eventId);
    const result = await change(steps, event);
    await steps.tx.figures.recountActivities(eventId);
    await appendNotifications(steps, accountId, { op: "activity.changed", event, at: now });
    await checkEventThresholds(steps, event, now, { footprint: true });
    return result;
  });
}

/** `record` with the figures its event's factor set (by the event's start) gives it. */
export function priced(steps: Steps, event: Pick<EventRecord, "startDate">, record: ActivityRecord): PricedActivity {
  return { ...record, ...priceActivity(steps.factorSets.forStart(event.startDate), record) };
}

/** Throws `NOT_FOUND` (field `vendorId`) unless the account has the vendor a record is attributed to. */
async function assertVendorOf(steps: Steps, accountId: string, vendorId: string | null): Promise<void> {
  if (vendorId !== null && !(await steps.tx.vendors.lock(accountId, vendorId)))
    throw notFound("Vendor", vendorId, "vendorId");
}

/**
 * `current` with `patch` merged in and the whole checked again as a new record (`ActivityInput`):
 * a unit or qualifier that no longer fits is `INVALID_REQUEST` naming it, and so is a `kind`
 * other than the record's. Priced again and written; keeps its booking.
 */
export async function reviseActivity(
  steps: Steps,
  event: EventRecord,
  current: PricedActivity,
  patch: ActivityUpdateInput,
  now: string,
): Promise<PricedActivity> {
  if (patch.kind !== undefined && patch.kind !== current.kind) {
    throw new ServiceError("INVALID_REQUEST", {
      message: `kind: an activity's kind cannot change (this one is ${current.kind}); delete it and record a new one.`,
      field: "kind",
      details: { issues: [{ path: "kind", message: `cannot change from ${current.kind}` }] },
    });
  }
  const given = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
  const merged = parseInput(ActivityInput, { ...activityInputOf(current), ...given });
  const record = newActivityRecord(merged, {
    id: current.id,
    accountId: current.accountId,
    eventId: current.eventId,
    eventCountry: event.location.country,
    now,
  });
  if (record.vendorId !== current.vendorId) {
    // A record its vendor made through a booking's link stays that vendor's: the link edits it.
    if (current.bookingId !== null) {
      throw new ServiceError("INVALID_REQUEST", {
        message: "vendorId: this record was made through its vendor's booking link and stays that vendor's",
        field: "vendorId",
        details: { issues: [{ path: "vendorId", message: "set by the booking that recorded it" }] },
      });
    }
    await assertVendorOf(steps, current.accountId, record.vendorId);
  }
  const activity = priced(steps, event, { ...record, bookingId: current.bookingId, createdAt: current.createdAt });
  await steps.tx.activities.update(activity);
  return activity;
}

/**
 * Stores a new activity record of `input` for the account's event, priced with the storage's
 * factor set (electricity's `country` defaults to the event's). Throws `NOT_FOUND` (event).
 */
export function insertActivity(
  context: TransactionContext,
  {
    accountId,
    eventId,
    activity: input,
    id,
    now,
  }: { accountId: string; eventId: string; activity: ActivityCreate; id: string; now: string },
): Promise<PricedActivity> {
  return changeActivities(context, { accountId, eventId, now }, async (steps, event) => {
    const record = newActivityRecord(input, {
      id,
      now,
      accountId,
      eventId,
      eventCountry: event.location.country,
    });
    await assertVendorOf(steps, accountId, record.vendorId);
    const activity = priced(steps, event, record);
    await steps.tx.activities.insert(activity);
    return activity;
  });
}

/**
 * Merges `patch` (parsed by `ActivityUpdateInput`) into the account's activity record and
 * checks the whole again as a new record (`ActivityInput`): a unit or qualifier that no longer
 * fits is `INVALID_REQUEST` naming it, and so is a `kind` other than the record's. The record
 * is priced again. Throws `NOT_FOUND` (event or activity).
 */
export function updateActivity(
  context: TransactionContext,
  {
    accountId,
    eventId,
    id,
    patch,
    now,
  }: { accountId: string; eventId: string; id: string; patch: ActivityUpdateInput; now: string },
): Promise<PricedActivity> {
  return changeActivities(context, { accountId, eventId, now }, async (steps, event) => {
    const current = await steps.tx.activities.get(accountId, eventId, id);
    if (!current) throw notFound("Activity", id);
    return reviseActivity(steps, event, current, patch, now);
  });
}

/** Deletes the account's activity record; `false` when the event has none with this id. Throws `NOT_FOUND` (event). */
export function deleteActivity(
  context: TransactionContext,
  { accountId, eventId, id, now }: { accountId: string; eventId: string; id: string; now: string },
): Promise<boolean> {
  return changeActivities(context, { accountId, eventId, now }, (steps) =>
    steps.tx.activities.delete(accountId, eventId, id),
  );
}
