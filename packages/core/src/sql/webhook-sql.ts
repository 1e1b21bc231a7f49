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

/** Webhooks (`WebhookStore`) on SQL; inserts and URL changes under the account's lock. */
export function createWebhookStore(ctx: SqlContext): WebhookStore {
  const { db, dialect, write } = ctx;
  /** Throws `DUPLICATE_WEBHOOK` naming the webhook that took `url` (after a unique violation). */
  async function duplicateWebhook(accountId: string, url: string, exceptId?: string): Promise<void> {
    await assertUniqueWebhookUrl(db, accountId, url, exceptId);
  }

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
      }), () => duplicateWebhook(webhook.accountId, webhook.url));
    },

    async getWebhook(accountId, id) {
      const row = await db.selectFrom("webhooks").selectAll().where("id", "=", id).where("account_id", "=", accountId).executeTakeFirst();
      return row ? rowToWebhook(row) : null;
    },

    async updateWebhook(accountId, id, change) {
      let url: string | undefined;
      return backstop(dialect, WEBHOOK_URL_INDEX, () => write(async (trx) => {
        // The account's lock, as for an insert: a URL checked free stays free until this commits.
        await dialect.lockRows(trx.selectFrom("accounts").select("id").where("id", "=", accountId)).executeTakeFirst();
        // Locked: the row is written back whole, and an attempt recorded meanwhile (its failure
        // count, a disabling) must not be overwritten with what was read before it.
        const row = await dialect.lockRows(trx.selectFrom("webhooks").selectAll().where("id", "=", id).where("account_id", "=", accountId)).executeTakeFirst();
        if (!row) throw new ServiceError("NOT_FOUND", { message: `Webhook ${id} not found.` });
        const before = rowToWebhook(row);
        const after = change(before);
        url = after.url;
        if (after.url !== before.url) await assertUniqueWebhookUrl(trx, accountId, after.url, id);
        const { id: _id, account_id: _account, created_at: _created, ...changes } = webhookToRow(after);
        await trx.updateTable("webhooks").set(changes).where("id", "=", id).execute();
        return { before, after };
      }), () => duplicateWebhook(accountId, url!, id));
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
