import type { SqlContext } from "./sql-context.ts";
import type { IdempotencyStore } from "../storage/idempotency-store.ts";
import { isClaimLive } from "../rules/idempotency-claim.ts";

/** Idempotency-Key claims and their stored answers (`IdempotencyStore`) on SQL. */
export function createIdempotencyStore(ctx: SqlContext): IdempotencyStore {
  const { db, dialect, write } = ctx;

  return {
    async claimIdempotencyKey(claim) {
      const running = {
        request_hash: claim.requestHash,
        state: "running",
        response_status: null,
        response_body: null,
        created_at: claim.now,
        expires_at: claim.expiresAt,
      };
      return write(async (trx) => {
        // Race-free by construction, with no select-then-insert: the insert is the claim, and it
        // either creates the row or finds the key taken (ON CONFLICT DO NOTHING waits for a
        // concurrent claim of the same key to commit or roll back, so two never both win). Only
        // then is the existing row read, under its lock, and an expired or stale claim taken over
        // in place by an update (the lock holds it while we decide).
        for (;;) {
          const inserted = await trx
            .insertInto("idempotency_keys")
            .values({ account_id: claim.accountId, key: claim.key, ...running })
            .onConflict((oc) => oc.columns(["account_id", "key"]).doNothing())
            .executeTakeFirst();
          if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return null;
          const row = await dialect
            .lockRows(
              trx
                .selectFrom("idempotency_keys")
                .selectAll()
                .where("account_id", "=", claim.accountId)
                .where("key", "=", claim.key),
            )
            .executeTakeFirst();
          // Released or purged between the insert and the read: claim it again.
          if (!row) continue;
          const live = isClaimLive({ state: row.state, createdAt: row.created_at, expiresAt: row.expires_at }, claim);
          if (live) {
            return {
              accountId: row.account_id,
              key: row.key,
              requestHash: row.request_hash,
              state: row.state as "running" | "done",
              response:
                row.response_status === null
                  ? null
                  : { status: Number(row.response_status), body: row.response_body ?? "" },
              createdAt: row.created_at,
              expiresAt: row.expires_at,
            };
          }
          await trx
            .updateTable("idempotency_keys")
            .set(running)
            .where("account_id", "=", claim.accountId)
            .where("key", "=", claim.key)
            .execute();
          return null;
        }
      });
    },

    async completeIdempotencyKey(accountId, key, response) {
      await db
        .updateTable("idempotency_keys")
        .set({ state: "done", response_status: response.status, response_body: response.body })
        .where("account_id", "=", accountId)
        .where("key", "=", key)
        .execute();
    },

    async releaseIdempotencyKey(accountId, key) {
      await db
        .deleteFrom("idempotency_keys")
        .where("account_id", "=", accountId)
        .where("key", "=", key)
        .where("state", "=", "running")
        .execute();
    },
  };
}
