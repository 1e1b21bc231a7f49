import { type Kysely, sql } from "kysely";
import { hasWebhookRoom } from "../rules/webhook-quota.ts";
import type { Database } from "./database.ts";
import type { SqlDialect, UniqueIndex } from "./dialect.ts";
import { type Param, precompile } from "./precompiled.ts";
import { rowToWebhook, webhookToRow } from "./rows.ts";
import { readPage, type SqlContext } from "./sql-context.ts";
import { StorageConflict, type WebhookWrites } from "../storage/transaction.ts";
import type { WebhookStore } from "../storage/webhook-store.ts";

/* A violation of this unique index (a race the account's lock did not cover) is reported as a StorageConflict, which the service answers with DUPLICATE_WEBHOOK, not a 500. */
export const WEBHOOK_URL_INDEX: UniqueIndex = {
  name: "webhooks_account_url",
  table: "webhooks",
  columns: ["account_id", "url"],
};

/** Locks the account's row: the lock that serialises its webhook inserts and URL changes. */
function lockAccount(conn: Kysely<Database>, dialect: SqlDialect, accountId: string) {
  return dialect.lockRows(conn.selectFrom("accounts").select("id").where("id", "=", accountId)).executeTakeFirst();
}

/** The account's webhook read on `conn`, without a lock, or `null`. */
async function readWebhook(conn: Kysely<Database>, accountId: string, id: string) {
  const row = await conn
    .selectFrom("webhooks")
    .selectAll()
    .where("id", "=", id)
    .where("account_id", "=", accountId)
    .executeTakeFirst();
  return row ? rowToWebhook(row) : null;
}

/** The webhook operations of `storage.transaction` (`tx.webhooks`) on SQL: compiled once, bound to each transaction's connection. */
export function createWebhookWrites(
  db: Kysely<Database>,
  dialect: SqlDialect,
): (trx: Kysely<Database>) => WebhookWrites {
  // Every attempt that counts towards a webhook's failures runs these.
  const lockedFailuresQuery = precompile(db, (conn, param: Param<{ id: string }>) =>
    dialect.lockRows(
      conn
        .selectFrom("webhooks")
        .select(["consecutive_failures", "last_success_started_at", "active"])
        .where("id", "=", param("id")),
    ),
  );
  const setFailuresQuery = precompile(
    db,
    (conn, param: Param<{ id: string; failures: number; success: string | null }>) =>
      conn
        .updateTable("webhooks")
        .set({ consecutive_failures: param("failures"), last_success_started_at: param("success") })
        .where("id", "=", param("id")),
  );

  return (trx) => ({
    async lockAccount(accountId) {
      await lockAccount(trx, dialect, accountId);
    },

    async lock(accountId, id) {
      const row = await dialect
        .lockRows(trx.selectFrom("webhooks").selectAll().where("id", "=", id).where("account_id", "=", accountId))
        .executeTakeFirst();
      return row ? rowToWebhook(row) : null;
    },

    get(accountId, id) {
      return readWebhook(trx, accountId, id);
    },

    async findByUrl(accountId, url, exceptId) {
      const row = await trx
        .selectFrom("webhooks")
        .select("id")
        .where("account_id", "=", accountId)
        .where("url", "=", url)
        .where("id", "<>", exceptId)
        .executeTakeFirst();
      return row?.id ?? null;
    },

    async update(webhook) {
      const { id: _id, account_id: _account, created_at: _created, ...changes } = webhookToRow(webhook);
      await trx
        .updateTable("webhooks")
        .set(changes)
        .where("id", "=", webhook.id)
        .where("account_id", "=", webhook.accountId)
        .execute();
    },

    async lockFailures(webhookId) {
      const row = (await lockedFailuresQuery({ id: webhookId }, trx)).rows[0];
      if (!row) return null;
      return {
        consecutiveFailures: Number(row.consecutive_failures),
        lastSuccessStartedAt: row.last_success_started_at,
        active: Number(row.active) === 1,
      };
    },

    async setFailures(webhookId, count, disabledAt) {
      if (disabledAt === null) {
        await setFailuresQuery(
          { id: webhookId, failures: count.consecutiveFailures, success: count.lastSuccessStartedAt },
          trx,
        );
        return;
      }
      await trx
        .updateTable("webhooks")
        .set({
          consecutive_failures: count.consecutiveFailures,
          last_success_started_at: count.lastSuccessStartedAt,
          active: 0,
          disabled_at: disabledAt,
          updated_at: disabledAt,
        })
        .where("id", "=", webhookId)
        .execute();
    },
  });
}

/** Webhooks (`WebhookStore`) on SQL; inserts under the account's lock. */
export function createWebhookStore(ctx: SqlContext): WebhookStore {
  const { db, dialect, write } = ctx;

  return {
    async insertWebhook(webhook, maxPerAccount = Infinity) {
      try {
        return await write(async (trx) => {
          // The account's row is the lock that serialises its webhook inserts, so the count and the insert are one step.
          await lockAccount(trx, dialect, webhook.accountId);
          if (Number.isFinite(maxPerAccount)) {
            const { n } = await trx
              .selectFrom("webhooks")
              .select(sql<number>`count(*)`.as("n"))
              .where("account_id", "=", webhook.accountId)
              .executeTakeFirstOrThrow();
            if (!hasWebhookRoom(Number(n), maxPerAccount)) return false;
          }
          const taken = await trx
            .selectFrom("webhooks")
            .select("id")
            .where("account_id", "=", webhook.accountId)
            .where("url", "=", webhook.url)
            .executeTakeFirst();
          if (taken) throw new StorageConflict("webhook-url");
          await trx.insertInto("webhooks").values(webhookToRow(webhook)).execute();
          return true;
        });
      } catch (error) {
        if (dialect.isUniqueViolation(error, WEBHOOK_URL_INDEX))
          throw new StorageConflict("webhook-url", { cause: error });
        throw error;
      }
    },

    getWebhook(accountId, id) {
      return readWebhook(db, accountId, id);
    },

    async deleteWebhook(accountId, id) {
      return write(async (trx) => {
        const webhook = await readWebhook(trx, accountId, id);
        if (!webhook) return null;
        await trx.deleteFrom("webhooks").where("id", "=", id).execute();
        return webhook;
      });
    },

    async listWebhooks(accountId, query) {
      let base = db.selectFrom("webhooks").where("account_id", "=", accountId);
      if (query.active !== undefined) base = base.where("active", "=", query.active ? 1 : 0);
      const page = await readPage(base, query, (q) =>
        q.selectAll().orderBy("created_at", "desc").orderBy("id", "desc"),
      );
      return { items: page.items.map(rowToWebhook), total: page.total };
    },
  };
}
