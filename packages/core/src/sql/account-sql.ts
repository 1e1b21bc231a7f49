import { sql } from "kysely";
import { limitsFor, type Tier } from "../resources/api-key.ts";
import { param, precompile } from "./precompiled.ts";
import { rowToApiKeyInfo } from "./rows.ts";
import type { SqlContext } from "./sql-context.ts";
import type { AccountStore } from "../storage/account-store.ts";

/** Accounts, API keys and request counts (`AccountStore`) on SQL. */
export function createAccountStore(ctx: SqlContext): AccountStore {
  const { db, write } = ctx;
  // The hot path (every request authenticates and counts; reads by id are the most common),
  // compiled once.
  const authQuery = precompile<{ id: string; account_id: string; tier: string; scopes: string; name: string; per_minute: number | null; per_day: number | null }, "hash">(
    db,
    (conn) =>
      conn
        .selectFrom("api_keys as k")
        .innerJoin("accounts as a", "a.id", "k.account_id")
        .select(["k.id", "k.account_id", "k.tier", "k.scopes", "a.name", "a.per_minute", "a.per_day"])
        .where("k.key_hash", "=", param("hash"))
        .where("k.revoked_at", "is", null),
  );
  // Authentication and counting in one statement: the insert's select finds the live key, and
  // a revoked or unknown key selects nothing, so nothing is counted and no row comes back.
  const countQuery = precompile<
    { account_id: string; minute_count: number; day_count: number; per_minute: number | null; per_day: number | null },
    "hash" | "minute" | "day"
  >(db, (conn) => {
    const current = (start: "minute_start" | "day_start", count: "minute_count" | "day_count") => ({
      [count]: sql<number>`case when excluded.${sql.ref(start)} > rate_limit_counters.${sql.ref(start)} then 1 else rate_limit_counters.${sql.ref(count)} + 1 end`,
      [start]: sql<number>`case when excluded.${sql.ref(start)} > rate_limit_counters.${sql.ref(start)} then excluded.${sql.ref(start)} else rate_limit_counters.${sql.ref(start)} end`,
    });
    const limit = (column: "per_minute" | "per_day") =>
      conn.selectFrom("accounts").select(column).whereRef("accounts.id", "=", "rate_limit_counters.account_id").as(column);
    return conn
      .insertInto("rate_limit_counters")
      .columns(["account_id", "minute_start", "minute_count", "day_start", "day_count"])
      .expression(
        conn
          .selectFrom("api_keys")
          .select([
            "account_id",
            sql<number>`cast(${param("minute")} as bigint)`.as("minute_start"),
            sql<number>`1`.as("minute_count"),
            sql<number>`cast(${param("day")} as bigint)`.as("day_start"),
            sql<number>`1`.as("day_count"),
          ])
          .where("key_hash", "=", param("hash"))
          .where("revoked_at", "is", null),
      )
      .onConflict((oc) => oc.column("account_id").doUpdateSet({ ...current("minute_start", "minute_count"), ...current("day_start", "day_count") }))
      .returning(["account_id", "minute_count", "day_count", limit("per_minute"), limit("per_day")]);
  });

  return {
    async findAccount(idOrName) {
      const row = await db.selectFrom("accounts").selectAll().where((eb) => eb.or([eb("id", "=", idOrName), eb("name", "=", idOrName)])).orderBy(sql`case when id = ${idOrName} then 0 else 1 end`).executeTakeFirst();
      return row ? { id: row.id, name: row.name, perMinute: row.per_minute, perDay: row.per_day, createdAt: row.created_at } : null;
    },

    async createApiKey(key) {
      return write(async (trx) => {
        const byIdOrName = () =>
          trx.selectFrom("accounts").selectAll().where((eb) => eb.or([eb("id", "=", key.account), eb("name", "=", key.account)])).executeTakeFirst();
        let account = await byIdOrName();
        if (!account) {
          // A new name: insert ... on conflict (name) do nothing, then read, so that two processes
          // creating keys for the same new name make one account (the unique index on the name
          // decides, and the loser's insert waits for the winner and then does nothing).
          await trx
            .insertInto("accounts")
            .values({ id: key.newAccountId, name: key.account, per_minute: null, per_day: null, created_at: key.now })
            .onConflict((oc) => oc.column("name").doNothing())
            .execute();
          account = await trx.selectFrom("accounts").selectAll().where("name", "=", key.account).executeTakeFirstOrThrow();
        }
        if (key.limits && (key.limits.perMinute !== undefined || key.limits.perDay !== undefined)) {
          await trx
            .updateTable("accounts")
            .set({
              ...(key.limits.perMinute !== undefined && { per_minute: key.limits.perMinute }),
              ...(key.limits.perDay !== undefined && { per_day: key.limits.perDay }),
            })
            .where("id", "=", account.id)
            .execute();
        }
        const row = {
          id: key.id,
          account_id: account.id,
          key_hash: key.hash,
          prefix: key.prefix,
          tier: key.tier,
          scopes: key.scopes.join(" "),
          created_at: key.now,
          revoked_at: null,
        };
        await trx.insertInto("api_keys").values(row).execute();
        return rowToApiKeyInfo({ ...row, name: account.name });
      });
    },

    async authenticate(hash) {
      const [row] = (await authQuery({ hash })).rows;
      if (!row) return null;
      const tier = row.tier as Tier;
      return {
        keyId: row.id,
        accountId: row.account_id,
        accountName: row.name,
        tier,
        scopes: rowToApiKeyInfo({ ...row, key_hash: "", prefix: "", created_at: "", revoked_at: null }).scopes,
        limits: limitsFor(tier, row.per_minute === null ? null : Number(row.per_minute), row.per_day === null ? null : Number(row.per_day)),
      };
    },

    async listApiKeys(account) {
      const rows = await db
        .selectFrom("api_keys as k")
        .innerJoin("accounts as a", "a.id", "k.account_id")
        .selectAll("k")
        .select("a.name")
        .$if(account !== undefined, (q) => q.where((eb) => eb.or([eb("a.id", "=", account!), eb("a.name", "=", account!)])))
        .orderBy("k.created_at", "desc")
        .orderBy("k.id", "desc")
        .execute();
      return rows.map(rowToApiKeyInfo);
    },

    async revokeApiKey(id, now) {
      const result = await db.updateTable("api_keys").set({ revoked_at: now }).where("id", "=", id).where("revoked_at", "is", null).executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async countRequest(keyHash, windows) {
      const [row] = (await countQuery({ hash: keyHash, minute: windows.minute, day: windows.day })).rows;
      if (!row) return null;
      return {
        accountId: row.account_id,
        minute: Number(row.minute_count),
        day: Number(row.day_count),
        perMinute: row.per_minute === null ? null : Number(row.per_minute),
        perDay: row.per_day === null ? null : Number(row.per_day),
      };
    },

  };
}
