import { sql } from "kysely";
import { storedScopes, type Tier } from "../resources/api-key.ts";
import { type Param, precompile } from "./precompiled.ts";
import { rowToApiKeyInfo } from "./rows.ts";
import type { SqlContext } from "./sql-context.ts";
import type { AccountStore } from "../storage/account-store.ts";
import { reserveInWindows } from "../rules/rate-limit.ts";

/** Accounts, API keys and request counts (`AccountStore`) on SQL. */
export function createAccountStore(ctx: SqlContext): AccountStore {
  const { db, dialect, write } = ctx;
  // The hot path (every request authenticates and counts; reads by id are the most common),
  // compiled once.
  const authQuery = precompile(db, (conn, param: Param<{ hash: string }>) =>
    conn
      .selectFrom("api_keys as k")
      .innerJoin("accounts as a", "a.id", "k.account_id")
      .select(["k.id", "k.account_id", "k.tier", "k.scopes", "a.name", "a.per_minute", "a.per_day"])
      .where("k.key_hash", "=", param("hash"))
      .where("k.revoked_at", "is", null),
  );
  const revisionQuery = precompile(db, (conn) =>
    conn.selectFrom("key_revision").select("revision").where("id", "=", 1),
  );
  const raiseRevision = (trx: typeof db) =>
    trx
      .updateTable("key_revision")
      .set((eb) => ({ revision: eb("revision", "+", 1) }))
      .where("id", "=", 1)
      .execute();

  return {
    async findAccount(idOrName) {
      const row = await db
        .selectFrom("accounts")
        .selectAll()
        .where((eb) => eb.or([eb("id", "=", idOrName), eb("name", "=", idOrName)]))
        .orderBy(sql`case when id = ${idOrName} then 0 else 1 end`)
        .executeTakeFirst();
      return row
        ? { id: row.id, name: row.name, perMinute: row.per_minute, perDay: row.per_day, createdAt: row.created_at }
        : null;
    },

    async createApiKey(key) {
      return write(async (trx) => {
        const byIdOrName = () =>
          trx
            .selectFrom("accounts")
            .selectAll()
            .where((eb) => eb.or([eb("id", "=", key.account), eb("name", "=", key.account)]))
            .executeTakeFirst();
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
          account = await trx
            .selectFrom("accounts")
            .selectAll()
            .where("name", "=", key.account)
            .executeTakeFirstOrThrow();
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
          // Processes remembering this account's keys learn of the new limits.
          await raiseRevision(trx);
        }
        const row = {
          id: key.id,
          account_id: account.id,
          key_hash: key.hash,
          prefix: key.prefix,
          tier: key.tier,
          scopes: storedScopes(key.scopes),
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
      return {
        keyId: row.id,
        accountId: row.account_id,
        accountName: row.name,
        tier: row.tier as Tier,
        scopes: rowToApiKeyInfo({ ...row, key_hash: "", prefix: "", created_at: "", revoked_at: null }).scopes,
        perMinute: row.per_minute === null ? null : Number(row.per_minute),
        perDay: row.per_day === null ? null : Number(row.per_day),
      };
    },

    async listApiKeys(account) {
      const rows = await db
        .selectFrom("api_keys as k")
        .innerJoin("accounts as a", "a.id", "k.account_id")
        .selectAll("k")
        .select("a.name")
        .$if(account !== undefined, (q) =>
          q.where((eb) => eb.or([eb("a.id", "=", account!), eb("a.name", "=", account!)])),
        )
        .orderBy("k.created_at", "desc")
        .orderBy("k.id", "desc")
        .execute();
      return rows.map(rowToApiKeyInfo);
    },

    async revokeApiKey(id, now) {
      return write(async (trx) => {
        const result = await trx
          .updateTable("api_keys")
          .set({ revoked_at: now })
          .where("id", "=", id)
          .where("revoked_at", "is", null)
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) !== 1) return false;
        await raiseRevision(trx);
        return true;
      });
    },

    async keysRevision() {
      const [row] = (await revisionQuery({})).rows;
      return Number(row?.revision ?? 0);
    },

    async reserveRequests({ accountId, windows, want, limits, giveBack }) {
      return write(async (trx) => {
        await trx
          .insertInto("rate_limit_counters")
          .values({
            account_id: accountId,
            minute_start: windows.minute,
            minute_count: 0,
            day_start: windows.day,
            day_count: 0,
          })
          .onConflict((oc) => oc.column("account_id").doNothing())
          .execute();
        const row = await dialect
          .lockRows(trx.selectFrom("rate_limit_counters").selectAll().where("account_id", "=", accountId))
          .executeTakeFirstOrThrow();
        const stored = {
          minuteStart: Number(row.minute_start),
          minute: Number(row.minute_count),
          dayStart: Number(row.day_start),
          day: Number(row.day_count),
        };
        const { minuteStart, minute, dayStart, day, granted } = reserveInWindows(stored, {
          windows,
          want,
          limits,
          giveBack,
        });
        await trx
          .updateTable("rate_limit_counters")
          .set({ minute_start: minuteStart, minute_count: minute, day_start: dayStart, day_count: day })
          .where("account_id", "=", accountId)
          .execute();
        return { granted, minute, day };
      });
    },
  };
}
