import type { Kysely, Selectable } from "kysely";
import type { ThresholdComparison, ThresholdMetric, ThresholdRecord } from "../resources/threshold.ts";
import type { ThresholdStore, ThresholdWrites } from "../storage/threshold-store.ts";
import type { Database, ThresholdsTable } from "./database.ts";
import type { SqlDialect } from "./dialect.ts";
import { readPage, type SqlContext } from "./sql-context.ts";

/** A stored threshold from its row. */
function rowToThreshold(row: Selectable<ThresholdsTable>): ThresholdRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    metric: row.metric as ThresholdMetric,
    comparison: row.comparison as ThresholdComparison,
    value: Number(row.value),
    eventId: row.event_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The row of a threshold. */
function thresholdToRow(threshold: ThresholdRecord): ThresholdsTable {
  return {
    id: threshold.id,
    account_id: threshold.accountId,
    event_id: threshold.eventId,
    metric: threshold.metric,
    comparison: threshold.comparison,
    value: threshold.value,
    created_at: threshold.createdAt,
    updated_at: threshold.updatedAt,
  };
}

/** True when the account has the event; locks its row until the transaction ends (a threshold row references it). */
async function lockOwnEvent(trx: Kysely<Database>, dialect: SqlDialect, accountId: string, eventId: string) {
  const row = await dialect
    .lockRows(trx.selectFrom("events").select("id").where("id", "=", eventId).where("account_id", "=", accountId))
    .executeTakeFirst();
  return row !== undefined;
}

/** Configured thresholds (`ThresholdStore`) on SQL. */
export function createThresholdStore(ctx: SqlContext): ThresholdStore {
  const { db, dialect, write } = ctx;

  return {
    insertThreshold(threshold) {
      return write(async (trx) => {
        if (threshold.eventId !== null && !(await lockOwnEvent(trx, dialect, threshold.accountId, threshold.eventId)))
          return false;
        await trx.insertInto("thresholds").values(thresholdToRow(threshold)).execute();
        return true;
      });
    },

    async getThreshold(accountId, id) {
      const row = await db
        .selectFrom("thresholds")
        .selectAll()
        .where("id", "=", id)
        .where("account_id", "=", accountId)
        .executeTakeFirst();
      return row ? rowToThreshold(row) : null;
    },

    updateThreshold(threshold, resetState) {
      return write(async (trx) => {
        const current = await dialect
          .lockRows(
            trx
              .selectFrom("thresholds")
              .select(["id", "event_id"])
              .where("id", "=", threshold.id)
              .where("account_id", "=", threshold.accountId),
          )
          .executeTakeFirst();
        if (!current) return "not-found";
        if (
          threshold.eventId !== null &&
          threshold.eventId !== current.event_id &&
          !(await lockOwnEvent(trx, dialect, threshold.accountId, threshold.eventId))
        )
          return "no-event";
        const { id: _id, account_id: _account, created_at: _created, ...changes } = thresholdToRow(threshold);
        await trx.updateTable("thresholds").set(changes).where("id", "=", threshold.id).execute();
        if (resetState) await trx.deleteFrom("threshold_states").where("threshold_id", "=", threshold.id).execute();
        return "updated";
      });
    },

    deleteThreshold(accountId, id) {
      return write(async (trx) => {
        const row = await dialect
          .lockRows(trx.selectFrom("thresholds").selectAll().where("id", "=", id).where("account_id", "=", accountId))
          .executeTakeFirst();
        if (!row) return null;
        // The foreign key's cascade would take them too; deleted first so no database needs it.
        await trx.deleteFrom("threshold_states").where("threshold_id", "=", id).execute();
        await trx.deleteFrom("thresholds").where("id", "=", id).execute();
        return rowToThreshold(row);
      });
    },

    async listThresholds(accountId, query) {
      const base = db.selectFrom("thresholds").where("account_id", "=", accountId);
      const page = await readPage(base, query, (q) =>
        q.selectAll().orderBy("created_at", "desc").orderBy("id", "desc"),
      );
      return { items: page.items.map(rowToThreshold), total: page.total };
    },
  };
}

/** The threshold operations of `storage.transaction` (`tx.thresholds`) on SQL, bound to each transaction's connection. */
export function createThresholdWrites(dialect: SqlDialect): (trx: Kysely<Database>) => ThresholdWrites {
  return (trx) => ({
    async applicable(accountId, eventId, metrics) {
      if (metrics?.length === 0) return [];
      let query = trx
        .selectFrom("thresholds")
        .selectAll()
        .where("account_id", "=", accountId)
        .where((eb) => eb.or([eb("event_id", "is", null), eb("event_id", "=", eventId)]));
      if (metrics) query = query.where("metric", "in", metrics);
      const rows = await dialect.shareRows(query.orderBy("created_at").orderBy("id")).execute();
      return rows.map(rowToThreshold);
    },

    async states(eventId, thresholdIds) {
      if (thresholdIds.length === 0) return [];
      const rows = await trx
        .selectFrom("threshold_states")
        .select(["threshold_id", "reached"])
        .where("event_id", "=", eventId)
        .where("threshold_id", "in", thresholdIds)
        .execute();
      return rows.map((row) => ({ thresholdId: row.threshold_id, reached: Number(row.reached) === 1 }));
    },

    async setState(thresholdId, eventId, reached, at) {
      const value = reached ? 1 : 0;
      await trx
        .insertInto("threshold_states")
        .values({ threshold_id: thresholdId, event_id: eventId, reached: value, updated_at: at })
        .onConflict((oc) => oc.columns(["threshold_id", "event_id"]).doUpdateSet({ reached: value, updated_at: at }))
        .execute();
    },

    async accountHas(accountId, metric) {
      const row = await trx
        .selectFrom("thresholds")
        .select("id")
        .where("account_id", "=", accountId)
        .where("metric", "=", metric)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },
  });
}
