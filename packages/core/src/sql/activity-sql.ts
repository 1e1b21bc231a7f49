import type { Insertable, Kysely, Selectable } from "kysely";
import type { ActivityKind, ActivityUnit, DataQuality } from "../carbon/activity-kinds.ts";
import type { ActivityFactor, ActivityQualifiers } from "../resources/activity.ts";
import type { PricedActivity } from "../resources/priced-activity.ts";
import type { ActivityStore } from "../storage/activity-store.ts";
import type { ActivityWrites } from "../storage/transaction.ts";
import type { ActivitiesTable, Database } from "./database.ts";
import { readPage, type SqlContext } from "./sql-context.ts";

/** The row of a stored activity. */
export function activityToRow(activity: PricedActivity): Insertable<ActivitiesTable> {
  return {
    id: activity.id,
    account_id: activity.accountId,
    event_id: activity.eventId,
    kind: activity.kind,
    quantity: activity.quantity,
    unit: activity.unit,
    source: activity.source,
    country: activity.country,
    fuel: activity.fuel,
    meal_type: activity.mealType,
    material: activity.material,
    recycled_content: activity.recycledContent === null ? null : activity.recycledContent ? 1 : 0,
    mode: activity.mode,
    stream: activity.stream,
    data_quality: activity.dataQuality,
    vendor_id: activity.vendorId,
    booking_id: activity.bookingId,
    note: activity.note,
    emissions_kg: activity.emissionsKg,
    factor: activity.factor === null ? null : JSON.stringify(activity.factor),
    created_at: activity.createdAt,
    updated_at: activity.updatedAt,
  };
}

/** The stored activity of a row. */
export function rowToActivity(row: Selectable<ActivitiesTable>): PricedActivity {
  return {
    id: row.id,
    accountId: row.account_id,
    eventId: row.event_id,
    kind: row.kind as ActivityKind,
    quantity: Number(row.quantity),
    unit: row.unit as ActivityUnit,
    source: row.source as ActivityQualifiers["source"],
    country: row.country,
    fuel: row.fuel as ActivityQualifiers["fuel"],
    mealType: row.meal_type as ActivityQualifiers["mealType"],
    material: row.material as ActivityQualifiers["material"],
    recycledContent: row.recycled_content === null ? null : Number(row.recycled_content) === 1,
    mode: row.mode as ActivityQualifiers["mode"],
    stream: row.stream as ActivityQualifiers["stream"],
    dataQuality: row.data_quality as DataQuality,
    vendorId: row.vendor_id,
    bookingId: row.booking_id,
    note: row.note,
    emissionsKg: row.emissions_kg === null ? null : Number(row.emissions_kg),
    factor: row.factor === null ? null : (JSON.parse(row.factor) as ActivityFactor),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The account's activity of the event read on `conn` (the instance, or a transaction of it), or `null`. */
async function readActivity(
  conn: Kysely<Database>,
  accountId: string,
  eventId: string,
  id: string,
): Promise<PricedActivity | null> {
  const row = await conn
    .selectFrom("activities")
    .selectAll()
    .where("id", "=", id)
    .where("account_id", "=", accountId)
    .where("event_id", "=", eventId)
    .executeTakeFirst();
  return row ? rowToActivity(row) : null;
}

/** The activity operations of `storage.transaction` (`tx.activities`) on SQL, bound to one transaction's connection. */
export function createActivityWrites(trx: Kysely<Database>): ActivityWrites {
  return {
    async insert(activity) {
      await trx.insertInto("activities").values(activityToRow(activity)).execute();
    },
    get(accountId, eventId, id) {
      return readActivity(trx, accountId, eventId, id);
    },
    async update(activity) {
      const {
        id,
        account_id: accountId,
        event_id: eventId,
        created_at: _created,
        ...changes
      } = activityToRow(activity);
      await trx
        .updateTable("activities")
        .set(changes)
        .where("id", "=", id)
        .where("account_id", "=", accountId)
        .where("event_id", "=", eventId)
        .execute();
    },
    async delete(accountId, eventId, id) {
      const result = await trx
        .deleteFrom("activities")
        .where("id", "=", id)
        .where("account_id", "=", accountId)
        .where("event_id", "=", eventId)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}

/** Reads of activities (`ActivityStore`) on SQL; their writes are `createActivityWrites`'. */
export function createActivityStore(ctx: SqlContext): ActivityStore {
  const { db } = ctx;
  return {
    getActivity(accountId, eventId, id) {
      return readActivity(db, accountId, eventId, id);
    },
    async listActivities(accountId, eventId, query) {
      const base = db.selectFrom("activities").where("event_id", "=", eventId).where("account_id", "=", accountId);
      const page = await readPage(base, query, (q) => q.selectAll().orderBy("created_at").orderBy("id"));
      return { items: page.items.map(rowToActivity), total: page.total };
    },
  };
}

/** Activities re-priced per statement batch of {@link repriceActivities}. */
const REPRICE_BATCH = 500;

/**
 * Writes the figures of the activities of the events `eventIds` again as `price` gives them (the
 * factor set's pricing, decided in core), on `trx`: a keyset walk by id, a batch at a time, with
 * one update per record whose figures changed. Runs in the caller's transaction.
 */
export async function repriceActivities(
  trx: Kysely<Database>,
  price: (activity: PricedActivity) => Pick<PricedActivity, "emissionsKg" | "factor">,
  eventIds: readonly string[],
): Promise<void> {
  if (eventIds.length === 0) return;
  let after = "";
  for (;;) {
    const rows = await trx
      .selectFrom("activities")
      .selectAll()
      .where("event_id", "in", eventIds)
      .where("id", ">", after)
      .orderBy("id")
      .limit(REPRICE_BATCH)
      .execute();
    for (const row of rows) {
      const priced = price(rowToActivity(row));
      const factor = priced.factor === null ? null : JSON.stringify(priced.factor);
      if (factor === row.factor && priced.emissionsKg === (row.emissions_kg === null ? null : Number(row.emissions_kg)))
        continue;
      await trx
        .updateTable("activities")
        .set({ emissions_kg: priced.emissionsKg, factor })
        .where("id", "=", row.id)
        .execute();
    }
    if (rows.length < REPRICE_BATCH) return;
    after = rows.at(-1)!.id;
  }
}
