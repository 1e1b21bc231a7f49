/**
 * The delivery side of the outbox on SQL: claiming due deliveries under a lease, the small
 * operations of `tx.deliveries` (record an attempt, lock and requeue a delivery, insert one held
 * to be sent at once) and the delivery log. What an attempt or a redelivery means is decided in
 * `rules/` (run by `service/delivery-operations.ts`): this module applies it.
 */
import { type ExpressionBuilder, type Kysely, type Selectable, sql } from "kysely";
import type { ClaimedDelivery, DeliveryRecord, DeliveryStatus } from "../resources/webhook-delivery.ts";
import type { Storage } from "../storage.ts";
import type { Database, WebhookAttemptsTable, WebhookDeliveriesTable } from "./database.ts";
import type { SqlDialect } from "./dialect.ts";
import { leaseFree, PENDING, pendingDeliveryRow } from "./outbox-sql.ts";
import { type Param, params, precompile } from "./precompiled.ts";
import { readPage } from "./sql-context.ts";
import type { RoomPerKey } from "../storage/delivery-store.ts";
import type { DeliveryWrites } from "../storage/transaction.ts";
import type { Envelope } from "../storage/envelope.ts";

type DeliveryMethods = Pick<Storage, "claimDueDeliveries" | "listDeliveries" | "getDelivery" | "outboxBacklog">;

/** How many due candidates a claim looks at per delivery it may hand out (the rest may be over their webhook's bound). */
const CANDIDATES_PER_SLOT = 4;

function toRecord(
  row: Selectable<WebhookDeliveriesTable>,
  attempts: Array<Selectable<WebhookAttemptsTable>>,
): DeliveryRecord {
  return {
    id: row.id,
    webhookId: row.webhook_id,
    accountId: row.account_id,
    type: row.type,
    status: row.status as DeliveryStatus,
    attemptCount: Number(row.attempt_count),
    nextAttemptAt: row.status === PENDING ? row.next_attempt_at : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    payload: JSON.parse(row.payload) as Record<string, unknown>,
    attempts: attempts
      .filter((attempt) => attempt.delivery_id === row.id)
      .sort((a, b) => Number(a.number) - Number(b.number))
      .map((attempt) => ({
        number: Number(attempt.number),
        startedAt: attempt.started_at,
        durationMs: Number(attempt.duration_ms),
        statusCode: attempt.status_code === null ? null : Number(attempt.status_code),
        error: attempt.error,
        responseExcerpt: attempt.response_excerpt,
        succeeded: Number(attempt.succeeded) === 1,
      })),
  };
}

/** True when an erasure redacted the envelope (`redactEnvelope` marks it with `erasedAt`). */
function isRedacted(payload: string): boolean {
  return (JSON.parse(payload) as Envelope).erasedAt !== undefined;
}

/**
 * What a claim may take at `now`: pending, due, and held by no worker. The read that looks for
 * work, the candidates and the guarded update all ask exactly this.
 */
const claimable = (now: string) => (eb: ExpressionBuilder<Database, "webhook_deliveries">) =>
  eb.and([
    eb("webhook_deliveries.status", "=", PENDING),
    eb("webhook_deliveries.next_attempt_at", "<=", now),
    leaseFree(now)(eb),
  ]);

/** The keys `room` gives no room to (a claim leaves their deliveries out). */
function withoutRoom(room: RoomPerKey | undefined): string[] {
  if (!room) return [];
  return Object.entries(room.left)
    .filter(([, left]) => left <= 0)
    .map(([key]) => key);
}

/** The room left per key while a claim chooses its deliveries. */
function roomLeft(room: RoomPerKey | undefined) {
  const left = new Map(Object.entries(room?.left ?? {}));
  const of = (key: string) => left.get(key) ?? room?.each ?? Infinity;
  return {
    has: (key: string) => of(key) > 0,
    take: (key: string) => left.set(key, of(key) - 1),
  };
}

/** A delivery's rows with their attempts, read on `conn`. */
async function withAttempts(
  conn: Kysely<Database>,
  rows: Array<Selectable<WebhookDeliveriesTable>>,
): Promise<DeliveryRecord[]> {
  if (rows.length === 0) return [];
  const attempts = await conn
    .selectFrom("webhook_attempts")
    .selectAll()
    .where(
      "delivery_id",
      "in",
      rows.map((row) => row.id),
    )
    .execute();
  return rows.map((row) => toRecord(row, attempts));
}

async function findDelivery(conn: Kysely<Database>, accountId: string, webhookId: string, deliveryId: string) {
  return conn
    .selectFrom("webhook_deliveries")
    .selectAll()
    .where("id", "=", deliveryId)
    .where("webhook_id", "=", webhookId)
    .where("account_id", "=", accountId)
    .executeTakeFirst();
}

/** The delivery operations of `storage.transaction` (`tx.deliveries`) on SQL: compiled once, bound to each transaction's connection. */
export function createDeliveryWrites(
  db: Kysely<Database>,
  dialect: SqlDialect,
): (trx: Kysely<Database>) => DeliveryWrites {
  // An attempt's record, compiled once: every attempt runs these.
  const lockedAttemptQuery = precompile(db, (conn, param: Param<{ id: string; worker: string; count: number }>) =>
    dialect.lockRows(
      conn
        .selectFrom("webhook_deliveries")
        .select(["webhook_id", "counts_failures", "payload"])
        .where("id", "=", param("id"))
        .where("lease_owner", "=", param("worker"))
        .where("status", "=", PENDING)
        .where("attempt_count", "=", param("count")),
    ),
  );
  const ATTEMPT_COLUMNS = [
    "delivery_id",
    "number",
    "started_at",
    "duration_ms",
    "status_code",
    "error",
    "response_excerpt",
    "succeeded",
  ] as const satisfies ReadonlyArray<keyof WebhookAttemptsTable>;
  const insertAttemptQuery = precompile(db, (conn, param: Param<WebhookAttemptsTable>) =>
    conn.insertInto("webhook_attempts").values(params(param, ATTEMPT_COLUMNS)),
  );
  const settleQuery = precompile(
    db,
    (conn, param: Param<{ id: string; status: string; count: number; next: string | null; now: string }>) =>
      conn
        .updateTable("webhook_deliveries")
        .set({
          status: param("status"),
          attempt_count: param("count"),
          next_attempt_at: param("next"),
          lease_owner: null,
          lease_until: null,
          updated_at: param("now"),
        })
        .where("id", "=", param("id")),
  );

  return (trx) => ({
    async recordAttempt(write) {
      const { attempt } = write;
      // Under the row's lock: PostgreSQL re-reads the row when the lock is granted, so a worker
      // that took the delivery over in between finds its attempt count moved on.
      const row = (
        await lockedAttemptQuery({ id: write.deliveryId, worker: write.workerId, count: attempt.number - 1 }, trx)
      ).rows[0];
      if (!row) return null;
      await insertAttemptQuery(
        {
          delivery_id: write.deliveryId,
          number: attempt.number,
          started_at: attempt.startedAt,
          duration_ms: attempt.durationMs,
          status_code: attempt.statusCode,
          error: attempt.error,
          // An erasure redacted the payload while this attempt was out: a receiver's echo of the old bytes is not kept.
          response_excerpt: isRedacted(row.payload) ? null : attempt.responseExcerpt,
          succeeded: attempt.succeeded ? 1 : 0,
        },
        trx,
      );
      await settleQuery(
        {
          id: write.deliveryId,
          status: write.status,
          count: attempt.number,
          next: write.nextAttemptAt,
          now: write.now,
        },
        trx,
      );
      return { webhookId: row.webhook_id, countsFailures: Number(row.counts_failures) === 1 };
    },

    async lock(accountId, webhookId, deliveryId) {
      const row = await dialect
        .lockRows(
          trx
            .selectFrom("webhook_deliveries")
            .select(["status", "attempt_count", "final_attempt"])
            .where("id", "=", deliveryId)
            .where("webhook_id", "=", webhookId)
            .where("account_id", "=", accountId),
        )
        .executeTakeFirst();
      if (!row) return null;
      return {
        status: row.status as DeliveryStatus,
        attemptCount: Number(row.attempt_count),
        finalAttempt: row.final_attempt === null ? null : Number(row.final_attempt),
      };
    },

    async requeue(deliveryId, change) {
      const result = await trx
        .updateTable("webhook_deliveries")
        .set({
          status: change.status,
          next_attempt_at: change.now,
          final_attempt: change.finalAttempt,
          updated_at: change.now,
        })
        .where("id", "=", deliveryId)
        // Not while an attempt is running: the worker holding it records that attempt first.
        .where(leaseFree(change.now))
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async get(accountId, webhookId, deliveryId) {
      const row = await findDelivery(trx, accountId, webhookId, deliveryId);
      return row ? (await withAttempts(trx, [row]))[0]! : null;
    },

    async insertHeld(delivery, hold) {
      const row = {
        ...pendingDeliveryRow(delivery.webhookId, delivery.envelope),
        final_attempt: hold.finalAttempt,
        counts_failures: hold.countsFailures ? 1 : 0,
        lease_owner: hold.workerId,
        lease_until: hold.leaseUntil,
      };
      await trx.insertInto("webhook_deliveries").values(row).execute();
      return row.payload;
    },
  });
}

/** The delivery methods of the SQL storage. `write` runs a function in a write transaction. */
export function createDeliveryMethods(
  db: Kysely<Database>,
  dialect: SqlDialect,
  write: <T>(fn: (trx: Kysely<Database>) => Promise<T>) => Promise<T>,
): DeliveryMethods {
  return {
    async claimDueDeliveries(claim) {
      if (claim.limit <= 0) return [];
      // Keys without room are left out in SQL: otherwise a slow webhook's backlog could fill the
      // candidate window and starve the others, and one account's slow receivers hold every slot.
      const fullWebhooks = withoutRoom(claim.webhookRoom);
      const fullAccounts = withoutRoom(claim.accountRoom);
      // A read first: most wake-ups find nothing due, and a read takes no write lock from the API's
      // writes. It leaves out the full webhooks and accounts too: a backlog waiting only for a
      // busy receiver's slots (every registration wakes the worker) then costs no write transaction.
      const anyDue = await db
        .selectFrom("webhook_deliveries")
        .select("id")
        .where(claimable(claim.now))
        .$if(fullWebhooks.length > 0, (q) => q.where("webhook_id", "not in", fullWebhooks))
        .$if(fullAccounts.length > 0, (q) => q.where("account_id", "not in", fullAccounts))
        .limit(1)
        .executeTakeFirst();
      if (!anyDue) return [];
      return write(async (trx) => {
        // Candidates first, from the covering index alone (ids and keys, no payload), in due
        // order. PostgreSQL locks the deliveries' rows only, none of the subquery's webhooks.
        const candidates = await dialect
          .claimRows(
            trx
              .selectFrom("webhook_deliveries")
              .select(["id", "webhook_id", "account_id"])
              .where(claimable(claim.now))
              .where("webhook_id", "in", (eb) =>
                eb.selectFrom("webhooks").select("webhooks.id").where("webhooks.active", "=", 1),
              )
              .$if(fullWebhooks.length > 0, (q) => q.where("webhook_id", "not in", fullWebhooks))
              .$if(fullAccounts.length > 0, (q) => q.where("account_id", "not in", fullAccounts))
              .orderBy("next_attempt_at")
              .orderBy("id")
              .limit(claim.limit * CANDIDATES_PER_SLOT),
          )
          .execute();
        const webhookRoom = roomLeft(claim.webhookRoom);
        const accountRoom = roomLeft(claim.accountRoom);
        const chosen: string[] = [];
        for (const candidate of candidates) {
          if (chosen.length >= claim.limit) break;
          if (!webhookRoom.has(candidate.webhook_id) || !accountRoom.has(candidate.account_id)) continue;
          webhookRoom.take(candidate.webhook_id);
          accountRoom.take(candidate.account_id);
          chosen.push(candidate.id);
        }
        if (chosen.length === 0) return [];
        // The guard repeats the selection: a delivery another worker took in between is not
        // taken twice. The ids find the rows (not the due index, which holds the whole backlog).
        const taken = await trx
          .updateTable("webhook_deliveries")
          .set({ lease_owner: claim.workerId, lease_until: claim.leaseUntil })
          .where("id", "in", chosen)
          .where((eb) => dialect.checkOnly(claimable(claim.now)(eb)))
          .returning(["id"])
          .execute();
        if (taken.length === 0) return [];
        // Then what the taken ones send, read by key.
        const rows = await trx
          .selectFrom("webhook_deliveries as d")
          .innerJoin("webhooks as w", "w.id", "d.webhook_id")
          .select([
            "d.id",
            "d.webhook_id",
            "d.account_id",
            "d.type",
            "d.payload",
            "d.attempt_count",
            "d.final_attempt",
            "w.url",
            "w.secret",
            "w.previous_secret",
            "w.previous_secret_expires_at",
          ])
          .where(
            "d.id",
            "in",
            taken.map((row) => row.id),
          )
          .execute();
        const byId = new Map(rows.map((row) => [row.id, row]));
        // In the order chosen (due order), as before.
        return chosen.flatMap((id): ClaimedDelivery[] => {
          const row = byId.get(id);
          if (!row) return [];
          return [
            {
              id: row.id,
              webhookId: row.webhook_id,
              accountId: row.account_id,
              url: row.url,
              secret: row.secret,
              previousSecret: row.previous_secret,
              previousSecretExpiresAt: row.previous_secret_expires_at,
              type: row.type,
              payload: row.payload,
              attemptCount: Number(row.attempt_count),
              finalAttempt: row.final_attempt === null ? null : Number(row.final_attempt),
            },
          ];
        });
      });
    },

    async listDeliveries(accountId, webhookId, query) {
      const webhook = await db
        .selectFrom("webhooks")
        .select("id")
        .where("id", "=", webhookId)
        .where("account_id", "=", accountId)
        .executeTakeFirst();
      if (!webhook) return null;
      const base = db
        .selectFrom("webhook_deliveries")
        .where("webhook_id", "=", webhookId)
        .$if(query.status !== undefined, (q) => q.where("status", "=", query.status!));
      const page = await readPage(base, query, (q) =>
        q.selectAll().orderBy("created_at", "desc").orderBy("id", "desc"),
      );
      return { items: await withAttempts(db, page.items), total: page.total };
    },

    async getDelivery(accountId, webhookId, deliveryId) {
      const row = await findDelivery(db, accountId, webhookId, deliveryId);
      return row ? (await withAttempts(db, [row]))[0]! : null;
    },

    async outboxBacklog(now) {
      const pending = db
        .selectFrom("webhook_deliveries as d")
        .innerJoin("webhooks as w", "w.id", "d.webhook_id")
        .where("d.status", "=", PENDING);
      const [counts, oldest] = await Promise.all([
        pending
          .select([
            sql<number>`coalesce(sum(case when w.active = 1 and d.next_attempt_at <= ${now} then 1 else 0 end), 0)`.as(
              "due",
            ),
            sql<number>`coalesce(sum(case when w.active = 1 and d.next_attempt_at > ${now} then 1 else 0 end), 0)`.as(
              "scheduled",
            ),
            sql<number>`coalesce(sum(case when w.active = 1 then 0 else 1 end), 0)`.as("paused"),
          ])
          .executeTakeFirstOrThrow(),
        // In index order, the first pending delivery of an active webhook: one step unless many of the earliest are held.
        pending
          .select("d.next_attempt_at")
          .where("w.active", "=", 1)
          .orderBy("d.next_attempt_at")
          .limit(1)
          .executeTakeFirst(),
      ]);
      return {
        due: Number(counts.due),
        scheduled: Number(counts.scheduled),
        paused: Number(counts.paused),
        oldestNextAttemptAt: oldest?.next_attempt_at ?? null,
      };
    },
  };
}
