/**
 * The delivery side of the outbox on SQL: claiming due deliveries under a lease, recording
 * attempts (and the webhook's failure count), the delivery log, redelivery and pings.
 */
import { type ExpressionBuilder, type Kysely, type Selectable, sql } from "kysely";
import type { ClaimedDelivery, DeliveryRecord, DeliveryStatus } from "../resources/webhook-delivery.ts";
import type { Storage } from "../storage.ts";
import type { Database, WebhookAttemptsTable, WebhookDeliveriesTable } from "./database.ts";
import type { SqlDialect } from "./dialect.ts";
import { deliveryRow, leaseFree, PENDING } from "./outbox-sql.ts";
import { type Param, params, precompile } from "./precompiled.ts";
import type { AttemptRecorded, DeliveryAttemptRecord } from "../storage/delivery-store.ts";
import type { Envelope } from "../storage/envelope.ts";

type DeliveryMethods = Pick<
  Storage,
  "claimDueDeliveries" | "recordDeliveryAttempt" | "recordDeliveryAttempts" | "listDeliveries" | "getDelivery" | "redeliver" | "createHeldDelivery" | "outboxBacklog"
>;

/** How many due candidates a claim looks at per delivery it may hand out (the rest may be over their webhook's bound). */
const CANDIDATES_PER_SLOT = 4;

function toRecord(row: Selectable<WebhookDeliveriesTable>, attempts: Array<Selectable<WebhookAttemptsTable>>): DeliveryRecord {
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
  eb.and([eb("webhook_deliveries.status", "=", PENDING), eb("webhook_deliveries.next_attempt_at", "<=", now), leaseFree(now)(eb)]);

/** The delivery methods of the SQL storage. `write` runs a function in a write transaction. */
export function createDeliveryMethods(
  db: Kysely<Database>,
  dialect: SqlDialect,
  write: <T>(fn: (trx: Kysely<Database>) => Promise<T>) => Promise<T>,
): DeliveryMethods {
  async function withAttempts(conn: Kysely<Database>, rows: Array<Selectable<WebhookDeliveriesTable>>): Promise<DeliveryRecord[]> {
    if (rows.length === 0) return [];
    const attempts = await conn.selectFrom("webhook_attempts").selectAll().where("delivery_id", "in", rows.map((row) => row.id)).execute();
    return rows.map((row) => toRecord(row, attempts));
  }

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
  const ATTEMPT_COLUMNS = ["delivery_id", "number", "started_at", "duration_ms", "status_code", "error", "response_excerpt", "succeeded"] as const satisfies ReadonlyArray<keyof WebhookAttemptsTable>;
  const insertAttemptQuery = precompile(db, (conn, param: Param<WebhookAttemptsTable>) =>
    conn.insertInto("webhook_attempts").values(params(param, ATTEMPT_COLUMNS)),
  );
  const settleQuery = precompile(db, (conn, param: Param<{ id: string; status: string; count: number; next: string | null; now: string }>) =>
    conn
      .updateTable("webhook_deliveries")
      .set({ status: param("status"), attempt_count: param("count"), next_attempt_at: param("next"), lease_owner: null, lease_until: null, updated_at: param("now") })
      .where("id", "=", param("id")),
  );
  // The webhook's side of its attempts (see `recordDeliveryAttempt`). Each guard compares start
  // times (fixed-width UTC text, so text order is time order) in the UPDATE itself, which
  // PostgreSQL re-checks on the row's latest version once it holds the row: no read first.
  const successQuery = precompile(db, (conn, param: Param<{ id: string; started: string }>) =>
    conn
      .updateTable("webhooks")
      .set({ consecutive_failures: 0, last_success_started_at: param("started") })
      .where("id", "=", param("id"))
      .where((eb) => eb.or([eb("last_success_started_at", "is", null), eb("last_success_started_at", "<", param("started"))])),
  );
  const failureQuery = precompile(db, (conn, param: Param<{ id: string; started: string }>) =>
    conn
      .updateTable("webhooks")
      .set((eb) => ({ consecutive_failures: eb("consecutive_failures", "+", 1) }))
      .where("id", "=", param("id"))
      .where((eb) => eb.or([eb("last_success_started_at", "is", null), eb("last_success_started_at", "<", param("started"))])),
  );

  /** An attempt recorded for a delivery that counts towards its webhook's failures, and where its result goes. */
  interface Counted {
    webhookId: string;
    record: DeliveryAttemptRecord;
    result: AttemptRecorded;
  }

  /** One attempt's delivery side (see `recordDeliveryAttempt`), in the write transaction `trx`: what its webhook must count, if anything. */
  async function recordIn(trx: Kysely<Database>, record: DeliveryAttemptRecord, result: AttemptRecorded): Promise<Counted | null> {
    const { attempt } = record;
    // Under the row's lock: a worker that took the delivery over after this one's lease ran
    // out cannot record the same attempt number in between (PostgreSQL re-reads the row when the lock is granted).
    const row = (await lockedAttemptQuery({ id: record.deliveryId, worker: record.workerId, count: attempt.number - 1 }, trx)).rows[0];
    if (!row) return null;
    await insertAttemptQuery(
      {
        delivery_id: record.deliveryId,
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
    const status = attempt.succeeded ? "succeeded" : record.nextAttemptAt === null ? "failed" : PENDING;
    await settleQuery({ id: record.deliveryId, status, count: attempt.number, next: status === PENDING ? record.nextAttemptAt : null, now: record.now }, trx);
    result.recorded = true;
    return Number(row.counts_failures) === 1 ? { webhookId: row.webhook_id, record, result } : null;
  }

  /**
   * The webhooks' side of recorded attempts, one webhook at a time in id order (two workers'
   * transactions lock webhook rows in the same order, so never in a circle): the latest success
   * first, then each failure, counted only if it began after the latest success.
   */
  async function countIn(trx: Kysely<Database>, counted: Counted[]): Promise<void> {
    const byWebhook = new Map<string, Counted[]>();
    for (const entry of counted) byWebhook.set(entry.webhookId, [...(byWebhook.get(entry.webhookId) ?? []), entry]);
    for (const webhookId of [...byWebhook.keys()].sort()) {
      const entries = byWebhook.get(webhookId)!.sort((a, b) => (a.record.attempt.startedAt < b.record.attempt.startedAt ? -1 : 1));
      const successes = entries.filter((entry) => entry.record.attempt.succeeded);
      const failures = entries.filter((entry) => !entry.record.attempt.succeeded);
      if (successes.length > 0) await successQuery({ id: webhookId, started: successes.at(-1)!.record.attempt.startedAt }, trx);
      let countedAny = false;
      for (const failure of failures) {
        const update = await failureQuery({ id: webhookId, started: failure.record.attempt.startedAt }, trx);
        if (Number(update.numAffectedRows ?? 0) > 0) countedAny = true;
      }
      // A 410 answer disables at once, whenever it began; otherwise only a failure just counted can reach the bound.
      const gone = failures.find((failure) => failure.record.disable);
      if (!gone && !countedAny) continue;
      const disabled = await trx
        .updateTable("webhooks")
        .set({ active: 0, disabled_at: entries[0]!.record.now, updated_at: entries[0]!.record.now })
        .where("id", "=", webhookId)
        .where("active", "=", 1)
        .$if(!gone, (q) => q.where("consecutive_failures", ">=", Math.min(...failures.map((failure) => failure.record.disableAfter))))
        .executeTakeFirst();
      // Reported once: on the 410 answer, else on the latest failure.
      if (Number(disabled.numUpdatedRows) === 1) (gone ?? failures.at(-1)!).result.webhookDisabled = true;
    }
  }

  /** Records `records` (see `recordDeliveryAttempts`) in the write transaction `trx`; the results in the order given. */
  async function recordAllIn(trx: Kysely<Database>, records: readonly DeliveryAttemptRecord[]): Promise<AttemptRecorded[]> {
    const results = records.map((): AttemptRecorded => ({ recorded: false, webhookDisabled: false }));
    // Locked in the order of their ids: two workers' batches cannot wait on each other in a circle.
    const order = records.map((record, index) => ({ record, index })).sort((a, b) => (a.record.deliveryId < b.record.deliveryId ? -1 : 1));
    const counted: Counted[] = [];
    for (const { record, index } of order) {
      const entry = await recordIn(trx, record, results[index]!);
      if (entry) counted.push(entry);
    }
    await countIn(trx, counted);
    return results;
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

  return {
    async claimDueDeliveries(claim) {
      if (claim.limit <= 0) return [];
      // Webhooks at their bound are left out in SQL: otherwise a slow webhook's backlog could fill the candidate window and starve the others.
      const saturated = Object.entries(claim.inFlight).filter(([, count]) => count >= claim.perWebhook).map(([id]) => id);
      // Accounts at their bound likewise: one account's slow receivers cannot hold every slot.
      const perAccountBound = claim.perAccount ?? Infinity;
      const busyAccounts = Object.entries(claim.inFlightByAccount ?? {}).filter(([, count]) => count >= perAccountBound).map(([id]) => id);
      // A read first: most wake-ups find nothing due, and a read takes no write lock from the API's
      // writes. It leaves out the bounded webhooks and accounts too: a backlog waiting only for a
      // busy receiver's slots (every registration wakes the worker) then costs no write transaction.
      const anyDue = await db
        .selectFrom("webhook_deliveries")
        .select("id")
        .where(claimable(claim.now))
        .$if(saturated.length > 0, (q) => q.where("webhook_id", "not in", saturated))
        .$if(busyAccounts.length > 0, (q) => q.where("account_id", "not in", busyAccounts))
        .limit(1)
        .executeTakeFirst();
      if (!anyDue) return [];
      return write(async (trx) => {
        // Candidates first, from the covering index alone (ids and bounds, no payload), in due
        // order. PostgreSQL locks the deliveries' rows only, none of the subquery's webhooks.
        const candidates = await dialect.claimRows(
          trx
            .selectFrom("webhook_deliveries")
            .select(["id", "webhook_id", "account_id"])
            .where(claimable(claim.now))
            .where("webhook_id", "in", (eb) => eb.selectFrom("webhooks").select("webhooks.id").where("webhooks.active", "=", 1))
            .$if(saturated.length > 0, (q) => q.where("webhook_id", "not in", saturated))
            .$if(busyAccounts.length > 0, (q) => q.where("account_id", "not in", busyAccounts))
            .orderBy("next_attempt_at")
            .orderBy("id")
            .limit(claim.limit * CANDIDATES_PER_SLOT),
        ).execute();
        const perWebhook = new Map(Object.entries(claim.inFlight));
        const perAccount = new Map(Object.entries(claim.inFlightByAccount ?? {}));
        const chosen: string[] = [];
        for (const candidate of candidates) {
          if (chosen.length >= claim.limit) break;
          const held = perWebhook.get(candidate.webhook_id) ?? 0;
          const heldByAccount = perAccount.get(candidate.account_id) ?? 0;
          if (held >= claim.perWebhook || heldByAccount >= perAccountBound) continue;
          perWebhook.set(candidate.webhook_id, held + 1);
          perAccount.set(candidate.account_id, heldByAccount + 1);
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
          .select(["d.id", "d.webhook_id", "d.account_id", "d.type", "d.payload", "d.attempt_count", "d.final_attempt", "w.url", "w.secret", "w.previous_secret", "w.previous_secret_expires_at"])
          .where("d.id", "in", taken.map((row) => row.id))
          .execute();
        const byId = new Map(rows.map((row) => [row.id, row]));
        // In the order chosen (due order), as before.
        return chosen.flatMap((id): ClaimedDelivery[] => {
          const row = byId.get(id);
          if (!row) return [];
          return [{
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
          }];
        });
      });
    },

    async recordDeliveryAttempt(record) {
      return (await write((trx) => recordAllIn(trx, [record])))[0]!;
    },

    async recordDeliveryAttempts(records) {
      if (records.length === 0) return [];
      return write((trx) => recordAllIn(trx, records));
    },

    async listDeliveries(accountId, webhookId, query) {
      const webhook = await db.selectFrom("webhooks").select("id").where("id", "=", webhookId).where("account_id", "=", accountId).executeTakeFirst();
      if (!webhook) return null;
      const base = db.selectFrom("webhook_deliveries").where("webhook_id", "=", webhookId).$if(query.status !== undefined, (q) => q.where("status", "=", query.status!));
      const [count, rows] = await Promise.all([
        base.select(sql<number>`count(*)`.as("n")).executeTakeFirstOrThrow(),
        base.selectAll().orderBy("created_at", "desc").orderBy("id", "desc").limit(query.limit).offset((query.page - 1) * query.limit).execute(),
      ]);
      return { items: await withAttempts(db, rows), total: Number(count.n) };
    },

    async getDelivery(accountId, webhookId, deliveryId) {
      const row = await findDelivery(db, accountId, webhookId, deliveryId);
      return row ? (await withAttempts(db, [row]))[0]! : null;
    },

    async redeliver(accountId, webhookId, deliveryId, now) {
      return write(async (trx) => {
        // Locked: the status read decides the new final attempt, so no attempt may be recorded in between.
        const row = await dialect
          .lockRows(trx.selectFrom("webhook_deliveries").selectAll().where("id", "=", deliveryId).where("webhook_id", "=", webhookId).where("account_id", "=", accountId))
          .executeTakeFirst();
        if (!row) return null;
        await trx
          .updateTable("webhook_deliveries")
          // A pending delivery keeps its schedule (it is only brought forward); a final one gets one more attempt.
          .set((eb) => ({
            status: PENDING,
            next_attempt_at: now,
            final_attempt: row.status === PENDING ? row.final_attempt : eb("attempt_count", "+", 1),
            updated_at: now,
          }))
          .where("id", "=", deliveryId)
          // Not while an attempt is running: the worker holding it records that attempt first.
          .where(leaseFree(now))
          .execute();
        const after = await findDelivery(trx, accountId, webhookId, deliveryId);
        return (await withAttempts(trx, [after!]))[0]!;
      });
    },

    async createHeldDelivery(accountId, webhookId, notification, hold) {
      return write(async (trx) => {
        const webhook = await trx.selectFrom("webhooks").select(["id", "url", "secret", "previous_secret", "previous_secret_expires_at"]).where("id", "=", webhookId).where("account_id", "=", accountId).executeTakeFirst();
        if (!webhook) return null;
        const account = await trx.selectFrom("accounts").select(["id", "name"]).where("id", "=", accountId).executeTakeFirstOrThrow();
        const row = {
          ...deliveryRow(webhookId, account, notification, hold.now),
          final_attempt: 1,
          counts_failures: 0,
          lease_owner: hold.workerId,
          lease_until: hold.leaseUntil,
        };
        await trx.insertInto("webhook_deliveries").values(row).execute();
        return {
          id: row.id, webhookId, accountId, url: webhook.url, secret: webhook.secret,
          previousSecret: webhook.previous_secret, previousSecretExpiresAt: webhook.previous_secret_expires_at, type: row.type, payload: row.payload, attemptCount: 0, finalAttempt: 1,
        };
      });
    },

    async outboxBacklog(now) {
      const pending = db.selectFrom("webhook_deliveries as d").innerJoin("webhooks as w", "w.id", "d.webhook_id").where("d.status", "=", PENDING);
      const [counts, oldest] = await Promise.all([
        pending
          .select([
            sql<number>`coalesce(sum(case when w.active = 1 and d.next_attempt_at <= ${now} then 1 else 0 end), 0)`.as("due"),
            sql<number>`coalesce(sum(case when w.active = 1 and d.next_attempt_at > ${now} then 1 else 0 end), 0)`.as("scheduled"),
            sql<number>`coalesce(sum(case when w.active = 1 then 0 else 1 end), 0)`.as("paused"),
          ])
          .executeTakeFirstOrThrow(),
        // In index order, the first pending delivery of an active webhook: one step unless many of the earliest are held.
        pending.select("d.next_attempt_at").where("w.active", "=", 1).orderBy("d.next_attempt_at").limit(1).executeTakeFirst(),
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
