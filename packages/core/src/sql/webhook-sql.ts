import { type Kysely, sql } from "kysely";
import { ServiceError } from "../errors.ts";
import type { Database } from "./database.ts";
import { type UniqueIndex } from "./dialect.ts";
import { rowToWebhook, webhookToRow } from "./rows.ts";
import type { SqlContext } from "./sql-context.ts";
import { backstop } from "./sql-context.ts";
import type { WebhookStore } from "../storage/webhook-store.ts";

/* A violation of this unique index (a race the account's lock did not cover) is answered as DUPLICATE_WEBHOOK, not a 500. */
const WEBHOOK_URL_INDEX: UniqueIndex = { name: "webhooks_account_url", table: "webhooks", columns: ["account_id", "url"] };

/** Webhooks (`WebhookStore`) on SQL; inserts and webhook transactions under the account's lock. */
export function createWebhookStore(ctx: SqlContext): WebhookStore {
  const { db, dialect, write } = ctx;

  /** Throws `DUPLICATE_WEBHOOK` naming the webhook of the account, other than `exceptId`, that has `url`. */
  async function assertUniqueWebhookUrl(conn: Kysely<Database>, accountId: string, url: string, exceptId?: string) {
    const taken = await conn
      .selectFrom("webhooks")
      .select("id")
      .where("account_id", "=", accountId)
      .where("url", "=", url)
      .$if(exceptId !== undefined, (q) => q.where("id", "<>", exceptId!))
      .executeTakeFirst();
    if (taken) throw new ServiceError("DUPLICATE_WEBHOOK", { message: `Webhook ${taken.id} already uses ${url}.`, field: "url", details: { webhookId: taken.id } });
  }

  return {
    async insertWebhook(webhook, maxPerAccount = Infinity) {
      return backstop(dialect, WEBHOOK_URL_INDEX, () => write(async (trx) => {
        // The account's row is the lock that serialises its webhook inserts, so the count and the insert are one step.
        await dialect.lockRows(trx.selectFrom("accounts").select("id").where("id", "=", webhook.accountId)).executeTakeFirst();
        if (Number.isFinite(maxPerAccount)) {
          const { n } = await trx.selectFrom("webhooks").select(sql<number>`count(*)`.as("n")).where("account_id", "=", webhook.accountId).executeTakeFirstOrThrow();
          if (Number(n) >= maxPerAccount) return false;
        }
        await assertUniqueWebhookUrl(trx, webhook.accountId, webhook.url);
        await trx.insertInto("webhooks").values(webhookToRow(webhook)).execute();
        return true;
      }), () => assertUniqueWebhookUrl(db, webhook.accountId, webhook.url));
    },

    async getWebhook(accountId, id) {
      const row = await db.selectFrom("webhooks").selectAll().where("id", "=", id).where("account_id", "=", accountId).executeTakeFirst();
      return row ? rowToWebhook(row) : null;
    },

    async webhookTransaction(accountId, fn) {
      // The last URL saved: after a unique violation (a race the account's lock did not cover), the webhook that took it is named.
      let saved: { id: string; url: string } | undefined;
      return backstop(dialect, WEBHOOK_URL_INDEX, () => write(async (trx) => {
        saved = undefined;
        await dialect.lockRows(trx.selectFrom("accounts").select("id").where("id", "=", accountId)).executeTakeFirst();
        const lockedUrls = new Map<string, string>();
        return fn({
          async lockWebhook(id) {
            const row = await dialect.lockRows(trx.selectFrom("webhooks").selectAll().where("id", "=", id).where("account_id", "=", accountId)).executeTakeFirst();
            if (!row) return null;
            lockedUrls.set(id, row.url);
            return rowToWebhook(row);
          },
          async saveWebhook(webhook) {
            saved = { id: webhook.id, url: webhook.url };
            if (lockedUrls.get(webhook.id) !== webhook.url) await assertUniqueWebhookUrl(trx, accountId, webhook.url, webhook.id);
            const { id: _id, account_id: _account, created_at: _created, ...changes } = webhookToRow(webhook);
            await trx.updateTable("webhooks").set(changes).where("id", "=", webhook.id).where("account_id", "=", accountId).execute();
          },
        });
      }), async () => {
        if (saved) await assertUniqueWebhookUrl(db, accountId, saved.url, saved.id);
      });
    },

    async deleteWebhook(accountId, id) {
      return write(async (trx) => {
        const row = await trx.selectFrom("webhooks").selectAll().where("id", "=", id).where("account_id", "=", accountId).executeTakeFirst();
        if (!row) return null;
        await trx.deleteFrom("webhooks").where("id", "=", id).execute();
        return rowToWebhook(row);
      });
    },

    async listWebhooks(accountId, query) {
      let base = db.selectFrom("webhooks").where("account_id", "=", accountId);
      if (query.active !== undefined) base = base.where("active", "=", query.active ? 1 : 0);
      const [count, rows] = await Promise.all([
        base.select(sql<number>`count(*)`.as("n")).executeTakeFirstOrThrow(),
        base.selectAll().orderBy("created_at", "desc").orderBy("id", "desc").limit(query.limit).offset((query.page - 1) * query.limit).execute(),
      ]);
      return { items: rows.map(rowToWebhook), total: Number(count.n) };
    },

  };
}
