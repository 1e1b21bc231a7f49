import { type ExpressionBuilder, type Kysely, sql } from "kysely";
import { leaseFree, PENDING } from "./outbox-sql.ts";
import type { Database } from "./database.ts";
import { factorSetIdentity } from "../carbon/emission-factors.ts";
import { factorSetsCurrent, repriceForFactorSets } from "./factor-set-sql.ts";
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
   * Brings the kept figures to the factor sets in use (`repriceForFactorSets`): the events whose
   * set changed are priced again and the sets recorded, in one write transaction, so a reader
   * sees an event's old figures or its new ones, never a mix. Nothing is written while every
   * event's set stays the same. Only a storage given its sets reprices (a `keys` command leaves
   * the figures to the server).
   */
  async function repriceStaleEvents(): Promise<void> {
    if (!ctx.factorsGiven || (await factorSetsCurrent(db, ctx.factorSets))) return;
    // Read again under the write lock: another process may have just done it.
    await write((trx) => repriceForFactorSets(trx, dialect, ctx.factorSets, ctx.now().toISOString()));
  }

  /** The set that priced an event of `factorYear` (its set, or the one its year falls to when that set is gone). */
  const setOf = (factorYear: number | null) =>
    factorYear === null
      ? ctx.factorSets.latest
      : (ctx.factorSets.ofYear(factorYear) ?? ctx.factorSets.forYear(factorYear));

  /**
   * Counts the tallies again, in the write transaction `trx`, when they were counted under
   * another definition (read under its lock). An event whose travel this storage priced with
   * another set than the one recorded for it (a `keys` command knows only the bundled set) is
   * marked unpriced, so the next start given the deployment's sets prices it again.
   */
  async function recountStaleTallies(trx: Kysely<Database>): Promise<void> {
    if ((await talliesState(trx, dialect))?.definition === TALLY_DEFINITION) return;
    await recountTallies(trx, dialect, setOf, ctx.now().toISOString());
    for (const { year, identity } of await trx.selectFrom("factor_sets").select(["year", "identity"]).execute()) {
      if (identity !== factorSetIdentity(setOf(Number(year))))
        await trx.updateTable("events").set({ factor_year: null }).where("factor_year", "=", Number(year)).execute();
    }
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
      // Nothing to do while the tallies are current; else counted again under the write lock
      // (another process may have just done it).
      const tallies = await db.selectFrom("kept_tallies").selectAll().where("id", "=", 1).executeTakeFirst();
      if (tallies?.definition !== TALLY_DEFINITION) await write(recountStaleTallies);
      await repriceStaleEvents();
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
