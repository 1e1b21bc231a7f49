import { type ExpressionBuilder, type Kysely, sql } from "kysely";
import { leaseFree, PENDING } from "./outbox-sql.ts";
import type { Database } from "./database.ts";
import { factorSetIdentity } from "../carbon/emission-factors.ts";
import { ACTIVITY_FIGURE_COLUMNS, activityFiguresSql, contributionSql } from "./carbon-sql.ts";
import { priceActivity } from "../resources/priced-activity.ts";
import { repriceActivities } from "./activity-sql.ts";
import { migrationProvider } from "./migrations.ts";
import { recountTallies, talliesState } from "./tally-sql.ts";
import { TALLY_DEFINITION } from "../rules/kept-tallies.ts";
import type { SqlContext } from "./sql-context.ts";
import type { StorageLifecycle } from "../storage/lifecycle-store.ts";
import { FINAL_DELIVERY_STATUSES } from "../rules/delivery-status.ts";
import { FINAL_EMAIL_STATUSES } from "../rules/emails.ts";

/** Deliveries deleted per write transaction of a purge: small enough not to hold up the API's writes. */
const PURGE_BATCH = 500;

/** Migrating, pinging, closing and purging (`StorageLifecycle`) on SQL. */
export function createLifecycleStore(ctx: SqlContext): StorageLifecycle {
  const { db, dialect, write } = ctx;

  /** Deletes the final emails last attempted before `before`, a batch per write transaction. */
  async function purgeEmails(before: string): Promise<number> {
    let emails = 0;
    for (;;) {
      const gone = await write(async (trx) => {
        const rows = await dialect
          .claimRows(
            trx
              .selectFrom("email_outbox")
              .select("id")
              .where("status", "in", FINAL_EMAIL_STATUSES)
              .where("updated_at", "<", before)
              .limit(PURGE_BATCH),
          )
          .execute();
        if (rows.length === 0) return 0;
        const deleted = await trx
          .deleteFrom("email_outbox")
          .where(
            "id",
            "in",
            rows.map((row) => row.id),
          )
          .executeTakeFirst();
        return Number(deleted.numDeletedRows);
      });
      emails += gone;
      if (gone < PURGE_BATCH) return emails;
    }
  }

  /**
   * Deletes the deliveries past retention that will never be sent again, with their attempts,
   * a batch per write transaction (selected under its lock, so a redelivery cannot slip in between).
   */
  async function purgeDeliveries(now: string, before: string): Promise<{ deliveries: number; attempts: number }> {
    const expired = (eb: ExpressionBuilder<Database, "webhook_deliveries">) =>
      eb.and([
        eb("webhook_deliveries.updated_at", "<", before),
        eb.or([
          eb("webhook_deliveries.status", "in", FINAL_DELIVERY_STATUSES),
          eb.and([
            eb("webhook_deliveries.status", "=", PENDING),
            leaseFree(now)(eb),
            eb.exists(
              eb
                .selectFrom("webhooks")
                .select("webhooks.id")
                .whereRef("webhooks.id", "=", "webhook_deliveries.webhook_id")
                .where("webhooks.active", "=", 0),
            ),
          ]),
        ]),
      ]);
    let deliveries = 0;
    let attempts = 0;
    for (;;) {
      const batch = await write(async (trx) => {
        // Rows another transaction holds (a purge in another process, a worker recording) are skipped, not waited for.
        const rows = await dialect
          .claimRows(trx.selectFrom("webhook_deliveries").select("id").where(expired).limit(PURGE_BATCH))
          .execute();
        const ids = rows.map((row) => row.id);
        if (ids.length === 0) return { ids: 0, deliveries: 0, attempts: 0 };
        // Attempts first: counted, and gone whether or not the store cascades.
        const removed = await trx.deleteFrom("webhook_attempts").where("delivery_id", "in", ids).executeTakeFirst();
        const gone = await trx.deleteFrom("webhook_deliveries").where("id", "in", ids).executeTakeFirst();
        return { ids: ids.length, deliveries: Number(gone.numDeletedRows), attempts: Number(removed.numDeletedRows) };
      });
      deliveries += batch.deliveries;
      attempts += batch.attempts;
      if (batch.ids < PURGE_BATCH) return { deliveries, attempts };
    }
  }

  /**
   * Brings the kept emissions to the factor set in use: when the set recorded beside them is
   * another, every event's `emissions_kg` is summed again from its registrations (the SQL twin
   * of the write-time figures), every activity record priced again by the set (`priceActivity`),
   * and the set recorded, in one write transaction, so a reader sees the old figures or the new
   * ones, never a mix. Nothing happens while the set stays the same.
   */
  async function recomputeForFactorSet(): Promise<void> {
    if (!ctx.factorsGiven) return;
    const identity = factorSetIdentity(ctx.factors);
    const recorded = (conn: Kysely<Database>) =>
      conn.selectFrom("emission_factor_set").select("identity").where("id", "=", 1).executeTakeFirst();
    if ((await recorded(db))?.identity === identity) return;
    await write(async (trx) => {
      // Read again under the write lock: another process may have just done it.
      const current = await recorded(trx);
      if (current?.identity === identity) return;
      const emissions = contributionSql(ctx.factors).emissions_kg;
      await trx
        .updateTable("events")
        .set((eb) => ({
          emissions_kg: eb
            .selectFrom("attendees as a")
            .whereRef("a.event_id", "=", "events.id")
            .select(sql<number>`coalesce(sum(${emissions}), 0)`.as("n")),
        }))
        .execute();
      await recountStaleTallies(trx);
      await repriceActivities(trx, (activity) => priceActivity(ctx.factors, activity));
      // The activity figures kept on each event, summed again from its re-priced records.
      const sums = activityFiguresSql();
      await trx
        .updateTable("events")
        .set((eb) =>
          Object.fromEntries(
            Object.entries(ACTIVITY_FIGURE_COLUMNS).map(([figure, column]) => [
              column,
              eb
                .selectFrom("activities")
                .whereRef("activities.event_id", "=", "events.id")
                .select(sums[figure as keyof typeof sums].as("n")),
            ]),
          ),
        )
        .execute();
      const updatedAt = ctx.now().toISOString();
      if (current)
        await trx
          .updateTable("emission_factor_set")
          .set({ identity, updated_at: updatedAt })
          .where("id", "=", 1)
          .execute();
      else await trx.insertInto("emission_factor_set").values({ id: 1, identity, updated_at: updatedAt }).execute();
    });
  }

  /**
   * What of the stored tallies is out of date for this storage: all of them when they were
   * counted under another definition than `TALLY_DEFINITION` (or never: a store that has just
   * gained them), their travel sums when they were counted with another factor set than the
   * storage's, else nothing. Only a storage given its set reprices (as `recomputeForFactorSet`):
   * a `keys` command of a deployment with its own factors leaves the travel sums to the server.
   */
  function staleTallies(state: { definition: number; factor_set: string } | undefined): "all" | "travel" | null {
    if (state?.definition !== TALLY_DEFINITION) return "all";
    return ctx.factorsGiven && state.factor_set !== factorSetIdentity(ctx.factors) ? "travel" : null;
  }

  /** Counts again, in the write transaction `trx`, what of the tallies is out of date (read under its lock). */
  async function recountStaleTallies(trx: Kysely<Database>): Promise<void> {
    const stale = staleTallies(await talliesState(trx, dialect));
    if (stale) await recountTallies(trx, dialect, ctx.factors, ctx.now().toISOString(), stale === "travel");
  }

  return {
    async migrate() {
      const { error, results } = await dialect.migrate(db, migrationProvider);
      const failed = results?.find((result) => result.status === "Error");
      if (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new Error(
          failed ? `Migration ${failed.migrationName} failed: ${reason}` : `Migrations could not run: ${reason}`,
          { cause: error },
        );
      }
      await recomputeForFactorSet();
      // Nothing to do while the tallies are current; else counted again under the write lock
      // (another process may have just done it).
      if (staleTallies(await db.selectFrom("kept_tallies").selectAll().where("id", "=", 1).executeTakeFirst()))
        await write(recountStaleTallies);
    },

    async ping() {
      await sql`select 1`.execute(db);
    },

    async close() {
      await db.destroy();
    },

    async purgeExpired({ now, deliveriesBefore, emailsBefore }) {
      const keys = await db.deleteFrom("idempotency_keys").where("expires_at", "<=", now).executeTakeFirst();
      const purged = await purgeDeliveries(now, deliveriesBefore);
      const emails = await purgeEmails(emailsBefore);
      return { idempotencyKeys: Number(keys.numDeletedRows), ...purged, emails };
    },
  };
}
