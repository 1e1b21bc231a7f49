import { type ExpressionBuilder, type Kysely, type Selectable, sql } from "kysely";
import { createConfirmationCode } from "../_internal/ids.ts";
import type { CarbonSettings } from "../carbon/carbon-settings.ts";
import { offsetKg } from "../carbon/carbon-settings.ts";
import { LOW_CARBON_TRAVEL_MODES, travelEmissionsKg } from "../carbon/emission-factors.ts";
import { sustainabilityScore } from "../carbon/sustainability-score.ts";
import { ServiceError } from "../errors.ts";
import { applyAttendeeUpdate, type AttendeeListQuery, type AttendeeRecord } from "../resources/attendee.ts";
import { limitsFor, type Tier } from "../resources/api-key.ts";
import { applyEventUpdate, type EventListQuery, type EventRecord, type EventStats } from "../resources/event.ts";
import { ACTIVE_ATTENDEE_STATUSES, isActiveAttendeeStatus } from "../rules/attendee-status.ts";
import { EVENT_STATUSES_OPEN_FOR_REGISTRATION } from "../rules/event-status.ts";
import { buildEventAnalytics } from "../analytics/event-analytics.ts";
import { createAnalyticsQueries } from "./analytics-queries.ts";
import type { EventWithStats, NotifyContext, Page, Storage } from "../storage.ts";
import { DEFAULT_CARBON_SETTINGS } from "../carbon/carbon-settings.ts";
import { toApiAttendee, toApiEvent } from "../service.ts";
import {
  attendeeDeletedNotification, attendeeUpdateNotifications, completionReports, eventUpdateNotifications, type Notification,
  registrationNotifications,
} from "../webhooks/payloads.ts";
import { ERASED_ANSWER } from "../http/idempotency.ts";
import { redactDeliveries, replaceStoredAnswers } from "./erasure-sql.ts";
import { createDeliveryMethods } from "./delivery-sql.ts";
import { derivedNotifications, eventFigures, subscriptions, writeNotifications } from "./outbox-sql.ts";
import { scoreSql, scoreThreshold } from "./carbon-sql.ts";
import type { Database, EventsTable } from "./database.ts";
import { param, precompile } from "./precompiled.ts";
import { dialectOf, type UniqueIndex } from "./dialect.ts";
import { migrationProvider } from "./migrations.ts";
import { attendeeToRow, eventToRow, rowToApiKeyInfo, rowToAttendee, rowToEvent, rowToWebhook, webhookToRow } from "./rows.ts";

/** Options of {@link createSqlStorage}. */
export interface SqlStorageOptions {
  /** A kysely instance on SQLite (`SqliteDialect`) or PostgreSQL (`PostgresDialect`). The storage does not own its driver's settings. */
  db: Kysely<Database>;
}

const ACTIVE = [...ACTIVE_ATTENDEE_STATUSES];
/*
 * Unique indexes with a documented answer. The storage checks under a lock first and answers
 * from what it finds; a violation of one of these is the backstop (a race the locks did not
 * cover), answered the same way instead of with a 500.
 */
const WEBHOOK_URL_INDEX: UniqueIndex = { name: "webhooks_account_url", table: "webhooks", columns: ["account_id", "url"] };
const ACTIVE_EMAIL_INDEX: UniqueIndex = { name: "attendees_event_email_active", table: "attendees", columns: ["event_id", "email_key"] };
/** Deliveries deleted per write transaction of a purge: small enough not to hold up the API's writes. */
const PURGE_BATCH = 500;

/** `%text%` for a case-insensitive LIKE, with LIKE's wildcards escaped. */
function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The right-hand side of a LIKE that uses our escape character. */
function likePattern(text: string) {
  return sql`${containsPattern(text)} escape '\\'`;
}

/** What one registration adds to its event's kept figures: nothing unless it is active. */
function contribution(attendee: AttendeeRecord | null) {
  if (!attendee || !isActiveAttendeeStatus(attendee.status)) return { active: 0, emissionsKg: 0, offsetUsd: 0, travelReported: 0, lowCarbon: 0 };
  const offset = attendee.carbonOffset;
  const mode = offset?.travelMode ?? null;
  return {
    active: 1,
    // The JS twin of emissionsSql, which the migration's backfill and the analytics use.
    emissionsKg: mode === null ? 0 : travelEmissionsKg(mode, offset?.travelDistance ?? 0),
    offsetUsd: offset?.opted ? (offset.amount ?? 0) : 0,
    travelReported: mode === null ? 0 : 1,
    lowCarbon: mode !== null && (LOW_CARBON_TRAVEL_MODES as readonly string[]).includes(mode) ? 1 : 0,
  };
}

/** An event row with the figures the storage keeps on it. */
type EventRow = Selectable<EventsTable>;

/** The event of a row (or `event`, a state of that row's event in a write), with the figures kept on the row. */
function toEventWithStats(row: EventRow, carbon: CarbonSettings, event: EventRecord = rowToEvent(row)): EventWithStats {
  const emissionsKg = Number(row.emissions_kg);
  const stats: EventStats = {
    attendeeCount: Number(row.active_count),
    carbonFootprint: Math.round(emissionsKg * 1000) / 1000,
    sustainabilityScore: sustainabilityScore({
      goals: event.sustainabilityGoals,
      travelReported: Number(row.travel_reported),
      lowCarbonTravel: Number(row.low_carbon),
      emissionsKg,
      offsetKg: offsetKg(Number(row.offset_usd), carbon),
    }),
  };
  return { ...event, ...stats };
}

/**
 * The storage on SQL through kysely: SQLite or PostgreSQL, with the same code. All dialect
 * differences are in `sql/dialect.ts`.
 *
 * @example
 * const storage = createSqlStorage({ db: new Kysely({ dialect: new SqliteDialect({ database: new Database(":memory:") }) }) });
 * await storage.migrate();
 */
export function createSqlStorage(options: SqlStorageOptions): Storage {
  const { db } = options;
  const dialect = dialectOf(db);
  const write = <T>(fn: (trx: Kysely<Database>) => Promise<T>) => dialect.writeTransaction(db, fn);
  const analytics = createAnalyticsQueries(db, dialect);

  /**
   * Moves an event's kept figures from what registration `before` contributed to what `after`
   * does (either may be `null`: none). Runs in the write transaction of the change, under the
   * event's lock, so the figures stay exact with several processes; an increment, so a
   * registration costs the same in an event of ten or of fifty thousand.
   */
  async function adjustEventStats(conn: Kysely<Database>, eventId: string, before: AttendeeRecord | null, after: AttendeeRecord | null) {
    const [was, is] = [contribution(before), contribution(after)];
    const delta = {
      active_count: is.active - was.active,
      emissions_kg: is.emissionsKg - was.emissionsKg,
      offset_usd: is.offsetUsd - was.offsetUsd,
      travel_reported: is.travelReported - was.travelReported,
      low_carbon: is.lowCarbon - was.lowCarbon,
    };
    if (Object.values(delta).every((value) => value === 0)) return;
    await conn
      .updateTable("events")
      .set((eb) => Object.fromEntries(Object.entries(delta).map(([column, by]) => [column, eb(column as keyof typeof delta, "+", by)])))
      .where("id", "=", eventId)
      .execute();
  }

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
  const eventQuery = precompile<EventRow, "id" | "account">(db, (conn) =>
    conn.selectFrom("events").selectAll().where("id", "=", param("id")).where("account_id", "=", param("account")),
  );

  /**
   * The event's active registrations, as kept on its row: exact inside a write transaction that
   * holds the event's lock (every registration change adjusts it there), and one row to read
   * however many registrations the event has.
   */
  async function countActive(conn: Kysely<Database>, eventId: string): Promise<number> {
    const row = await conn.selectFrom("events").select("active_count").where("id", "=", eventId).executeTakeFirstOrThrow();
    return Number(row.active_count);
  }

  /** Locks and returns the event row (the lock that serialises everything about its registrations). */
  async function lockEvent(conn: Kysely<Database>, accountId: string, eventId: string) {
    const row = await dialect.lockRows(conn.selectFrom("events").selectAll().where("id", "=", eventId).where("account_id", "=", accountId)).executeTakeFirst();
    return row ? rowToEvent(row) : null;
  }

  async function assertNoActiveDuplicate(conn: Kysely<Database>, attendee: AttendeeRecord) {
    const duplicate = await conn
      .selectFrom("attendees")
      .select("id")
      .where("event_id", "=", attendee.eventId)
      .where("email_key", "=", attendee.email.toLowerCase())
      // Active means not cancelled; written as the literal of the partial unique index
      // attendees_event_email_active, so the planner uses it instead of reading every
      // registration of the event.
      .where("status", "<>", sql.lit("cancelled"))
      .where("id", "<>", attendee.id)
      .executeTakeFirst();
    if (duplicate) {
      throw new ServiceError("DUPLICATE_REGISTRATION", {
        message: `${attendee.email} already holds an active registration for event ${attendee.eventId}.`,
        field: "email",
        details: { attendeeId: duplicate.id },
      });
    }
  }

  async function assertCapacityLeft(conn: Kysely<Database>, event: EventRecord) {
    const active = await countActive(conn, event.id);
    if (active >= event.capacity) {
      throw new ServiceError("EVENT_FULL", {
        message: `Event ${event.id} is full (${event.capacity} of ${event.capacity} places taken).`,
        details: { capacity: event.capacity, activeRegistrations: active },
      });
    }
  }

  function assertOpenForRegistration(event: EventRecord) {
    if (!EVENT_STATUSES_OPEN_FOR_REGISTRATION.includes(event.status)) {
      throw new ServiceError("INVALID_REQUEST", {
        message: `eventId: event ${event.id} is ${event.status} and takes no registrations`,
        field: "eventId",
        details: { eventStatus: event.status },
      });
    }
  }

  function eventFilters(accountId: string, query: EventListQuery) {
    return (eb: ExpressionBuilder<any, any>) => {
      const conditions = [eb("e.account_id", "=", accountId)];
      if (query.status) conditions.push(eb("e.status", "=", query.status));
      if (query.category) conditions.push(eb("e.category", "=", query.category));
      if (query.startDate) conditions.push(eb("e.start_date", ">=", query.startDate));
      if (query.endDate) conditions.push(eb("e.end_date", "<=", query.endDate));
      if (query.search) {
        conditions.push(eb(sql`e.search_key`, "like", likePattern(query.search)));
      }
      if (query.tags) {
        const tags = query.tags;
        conditions.push(eb.exists(eb.selectFrom("event_tags as t").select("t.event_id").whereRef("t.event_id", "=", "e.id").where("t.tag", "in", tags)));
      }
      return eb.and(conditions);
    };
  }

  const EVENT_SORT_COLUMNS = {
    createdAt: sql.ref("e.created_at"),
    startDate: sql.ref("e.start_date"),
    name: dialect.asciiCaseFold(sql.ref("e.name")),
    capacity: sql.ref("e.capacity"),
    carbonFootprint: sql.ref("e.emissions_kg"),
  } as const;

  const ATTENDEE_SORT_COLUMNS = {
    registrationDate: sql.ref("registration_date"),
    firstName: dialect.asciiCaseFold(sql.ref("first_name")),
    lastName: dialect.asciiCaseFold(sql.ref("last_name")),
    company: dialect.asciiCaseFold(sql.ref("company")),
  } as const;

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

  /**
   * Runs `fn`, answering a violation of `index` (a concurrent write committed first) with what
   * `answer` throws: the documented error, read outside the failed transaction.
   */
  async function backstop<T>(index: UniqueIndex, fn: () => Promise<T>, answer: () => Promise<void>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      if (dialect.isUniqueViolation(error, index)) await answer();
      throw error;
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
          eb("webhook_deliveries.status", "in", ["succeeded", "failed"]),
          eb.and([
            eb("webhook_deliveries.status", "=", "pending"),
            eb.or([eb("webhook_deliveries.lease_until", "is", null), eb("webhook_deliveries.lease_until", "<", now)]),
            eb.exists(
              eb.selectFrom("webhooks").select("webhooks.id").whereRef("webhooks.id", "=", "webhook_deliveries.webhook_id").where("webhooks.active", "=", 0),
            ),
          ]),
        ]),
      ]);
    let deliveries = 0;
    let attempts = 0;
    for (;;) {
      const batch = await write(async (trx) => {
        // Rows another transaction holds (a purge in another process, a worker recording) are skipped, not waited for.
        const rows = await dialect.claimRows(trx.selectFrom("webhook_deliveries").select("id").where(expired).limit(PURGE_BATCH)).execute();
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

  const notifyDefaults = (notify?: NotifyContext): NotifyContext => ({
    baseUrl: notify?.baseUrl ?? "http://localhost:3000",
    carbon: notify?.carbon ?? DEFAULT_CARBON_SETTINGS,
  });
  /** The API form of states of events whose rows exist in this write, with the figures kept on the rows. */
  const apiEvents = async (conn: Kysely<Database>, events: EventRecord[], carbon: CarbonSettings) => {
    const rows = await conn.selectFrom("events").selectAll().where("id", "in", [...new Set(events.map((event) => event.id))]).execute();
    const byId = new Map(rows.map((row) => [row.id, row]));
    return events.map((event) => toApiEvent(toEventWithStats(byId.get(event.id)!, carbon, event)));
  };
  const offsetOf = (attendee: AttendeeRecord, carbon: CarbonSettings) => (attendee.carbonOffset?.opted ? offsetKg(attendee.carbonOffset.amount ?? 0, carbon) : 0);

  /** The outbox rows of a change to a registration: its own notifications and the event's one-time ones. */
  async function notifyAttendeeChange(trx: Kysely<Database>, event: EventRecord, own: Notification[], notify: NotifyContext, now: string) {
    const subs = await subscriptions(trx, event.accountId);
    if (subs.webhooks.length === 0) return;
    const derived = await derivedNotifications(trx, event, notify.carbon, now, subs);
    await writeNotifications(trx, event.accountId, subs, [...own, ...derived], now);
  }

  const storage: Storage = {
    ...createDeliveryMethods(db, dialect, write),

    async migrate() {
      const { error, results } = await dialect.migrate(db, migrationProvider);
      const failed = results?.find((result) => result.status === "Error");
      if (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new Error(failed ? `Migration ${failed.migrationName} failed: ${reason}` : `Migrations could not run: ${reason}`, { cause: error });
      }
    },

    async ping() {
      await sql`select 1`.execute(db);
    },

    async close() {
      await db.destroy();
    },

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
            .lockRows(trx.selectFrom("idempotency_keys").selectAll().where("account_id", "=", claim.accountId).where("key", "=", claim.key))
            .executeTakeFirst();
          // Released or purged between the insert and the read: claim it again.
          if (!row) continue;
          const live = row.expires_at > claim.now && !(row.state === "running" && row.created_at < claim.staleBefore);
          if (live) {
            return {
              accountId: row.account_id,
              key: row.key,
              requestHash: row.request_hash,
              state: row.state as "running" | "done",
              response: row.response_status === null ? null : { status: Number(row.response_status), body: row.response_body ?? "" },
              createdAt: row.created_at,
              expiresAt: row.expires_at,
            };
          }
          await trx.updateTable("idempotency_keys").set(running).where("account_id", "=", claim.accountId).where("key", "=", claim.key).execute();
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
      await db.deleteFrom("idempotency_keys").where("account_id", "=", accountId).where("key", "=", key).where("state", "=", "running").execute();
    },

    async purgeExpired({ now, deliveriesBefore }) {
      const keys = await db.deleteFrom("idempotency_keys").where("expires_at", "<=", now).executeTakeFirst();
      const purged = await purgeDeliveries(now, deliveriesBefore);
      return { idempotencyKeys: Number(keys.numDeletedRows), ...purged };
    },

    async insertEvent(event, notify) {
      await write(async (trx) => {
        await trx.insertInto("events").values(eventToRow(event)).execute();
        if (event.tags.length) await trx.insertInto("event_tags").values(event.tags.map((tag) => ({ event_id: event.id, tag }))).execute();
        const subs = await subscriptions(trx, event.accountId);
        if (subs.wants("event.created")) {
          const [created] = await apiEvents(trx, [event], notifyDefaults(notify).carbon);
          await writeNotifications(trx, event.accountId, subs, [{ type: "event.created", data: { event: created } }], event.createdAt);
        }
      });
    },

    async getEvent(accountId, id, carbon) {
      const [row] = (await eventQuery({ id, account: accountId })).rows;
      return row ? toEventWithStats(row, carbon) : null;
    },

    async updateEvent(accountId, id, update, now, notifyOptions) {
      return write(async (trx) => {
        const before = await lockEvent(trx, accountId, id);
        if (!before) throw new ServiceError("NOT_FOUND", { message: `Event ${id} not found.` });
        const after = applyEventUpdate(before, update, await countActive(trx, id), now);
        const { id: _id, account_id: _account, created_at: _created, ...changes } = eventToRow(after);
        await trx.updateTable("events").set(changes).where("id", "=", id).execute();
        if (update.tags !== undefined) {
          await trx.deleteFrom("event_tags").where("event_id", "=", id).execute();
          if (after.tags.length) await trx.insertInto("event_tags").values(after.tags.map((tag) => ({ event_id: id, tag }))).execute();
        }
        const subs = await subscriptions(trx, accountId);
        if (subs.webhooks.length > 0) {
          const notify = notifyDefaults(notifyOptions);
          const [apiBefore, apiAfter] = await apiEvents(trx, [before, after], notify.carbon);
          const notifications = eventUpdateNotifications(apiBefore!, apiAfter!);
          if (notifications.length > 0) {
            const completed = before.status !== "completed" && after.status === "completed";
            if (completed && (subs.wants("sustainability.report_generated") || subs.wants("analytics.report_ready"))) {
              const figures = await eventFigures(trx, after, notify.carbon);
              const analyticsFigures = subs.wants("analytics.report_ready") ? await createAnalyticsQueries(trx, dialect).eventFigures(accountId, id) : null;
              const report = analyticsFigures && buildEventAnalytics(analyticsFigures, notify.carbon);
              notifications.push(...completionReports(after, figures, now, `${notify.baseUrl}/v1/analytics/events/${id}`, report));
            }
            notifications.push(...(await derivedNotifications(trx, after, notify.carbon, now, subs)));
            await writeNotifications(trx, accountId, subs, notifications, now);
          }
        }
        return { before, after };
      });
    },

    async deleteEvent(accountId, id, notify, erasure = { now: new Date().toISOString(), replay: ERASED_ANSWER }) {
      return write(async (trx) => {
        const event = await lockEvent(trx, accountId, id);
        if (!event) return null;
        // Its registrations' data leaves the stored copies first, so that event.deleted (event data only) is written after.
        await redactDeliveries(trx, accountId, { eventId: id }, erasure.now);
        const registrations = await trx.selectFrom("attendees").select("id").where("event_id", "=", id).execute();
        if (registrations.length > 0) await replaceStoredAnswers(trx, accountId, id, new Set(registrations.map((row) => row.id)), erasure);
        const subs = await subscriptions(trx, accountId);
        if (subs.wants("event.deleted")) {
          const [deleted] = await apiEvents(trx, [event], notifyDefaults(notify).carbon);
          await writeNotifications(trx, accountId, subs, [{ type: "event.deleted", data: { event: deleted } }], erasure.now);
        }
        await trx.deleteFrom("attendees").where("event_id", "=", id).execute();
        await trx.deleteFrom("event_tags").where("event_id", "=", id).execute();
        await trx.deleteFrom("events").where("id", "=", id).execute();
        return event;
      });
    },

    async listEvents(accountId, query, carbon): Promise<Page<EventWithStats>> {
      const direction = query.order;
      const base = db
        .selectFrom("events as e")
        .where(eventFilters(accountId, query))
        .$if(query.minScore !== undefined, (q) => q.where(scoreSql(carbon), ">=", scoreThreshold(query.minScore!)));
      const [count, rows] = await Promise.all([
        base.select(sql<number>`count(*)`.as("n")).executeTakeFirstOrThrow(),
        base
          .selectAll("e")
          .orderBy(EVENT_SORT_COLUMNS[query.sortBy], direction)
          .orderBy("e.id", direction)
          .limit(query.limit)
          .offset((query.page - 1) * query.limit)
          .execute(),
      ]);
      return { items: rows.map((row) => toEventWithStats(row, carbon)), total: Number(count.n) };
    },

    async registerAttendee(attendee, notifyOptions) {
      return backstop(ACTIVE_EMAIL_INDEX, () => write(async (trx) => {
        const event = await lockEvent(trx, attendee.accountId, attendee.eventId);
        if (!event) throw new ServiceError("NOT_FOUND", { message: `Event ${attendee.eventId} not found.`, field: "eventId" });
        assertOpenForRegistration(event);
        // Duplicates first: "already registered" tells more than "full" when both hold.
        await assertNoActiveDuplicate(trx, attendee);
        await assertCapacityLeft(trx, event);
        let record = attendee;
        while (await trx.selectFrom("attendees").select("id").where("confirmation_code", "=", record.confirmationCode).executeTakeFirst()) {
          record = { ...record, confirmationCode: createConfirmationCode() };
        }
        await trx.insertInto("attendees").values(attendeeToRow(record)).execute();
        await adjustEventStats(trx, record.eventId, null, record);
        const notify = notifyDefaults(notifyOptions);
        const own = registrationNotifications(toApiAttendee(record, notify.baseUrl), event, offsetOf(record, notify.carbon));
        await notifyAttendeeChange(trx, event, own, notify, record.registrationDate);
        return record;
      }), () => assertNoActiveDuplicate(db, attendee));
    },

    async getAttendee(accountId, id) {
      const row = await db.selectFrom("attendees").selectAll().where("id", "=", id).where("account_id", "=", accountId).executeTakeFirst();
      return row ? rowToAttendee(row) : null;
    },

    async updateAttendee(accountId, id, update, now, notifyOptions) {
      let attempted: AttendeeRecord | undefined;
      return backstop(ACTIVE_EMAIL_INDEX, () => write(async (trx) => {
        // The event's lock first (it serialises everything about its registrations), then the
        // registration read under it: read before the lock, a concurrent change could be lost.
        // A registration never moves to another event, so its event found unlocked is the one to lock.
        const found = await trx.selectFrom("attendees").select("event_id").where("id", "=", id).where("account_id", "=", accountId).executeTakeFirst();
        const event = found && (await lockEvent(trx, accountId, found.event_id));
        const row = event && (await trx.selectFrom("attendees").selectAll().where("id", "=", id).where("account_id", "=", accountId).executeTakeFirst());
        if (!event || !row) throw new ServiceError("NOT_FOUND", { message: `Attendee ${id} not found.` });
        const before = rowToAttendee(row);
        const after = applyAttendeeUpdate(before, update, now);
        attempted = after;
        const reactivated = !isActiveAttendeeStatus(before.status) && isActiveAttendeeStatus(after.status);
        if (reactivated) {
          assertOpenForRegistration(event);
          // The registration is cancelled, so the kept count does not hold its place.
          await assertCapacityLeft(trx, event);
        }
        const emailChanged = after.email.toLowerCase() !== before.email.toLowerCase();
        if (isActiveAttendeeStatus(after.status) && (reactivated || emailChanged)) await assertNoActiveDuplicate(trx, after);
        const { id: _id, account_id: _account, event_id: _event, confirmation_code: _code, registration_date: _date, ...changes } = attendeeToRow(after);
        await trx.updateTable("attendees").set(changes).where("id", "=", id).execute();
        await adjustEventStats(trx, before.eventId, before, after);
        const notify = notifyDefaults(notifyOptions);
        const own = attendeeUpdateNotifications(toApiAttendee(before, notify.baseUrl), toApiAttendee(after, notify.baseUrl), event, offsetOf(after, notify.carbon));
        if (own.length > 0) await notifyAttendeeChange(trx, event, own, notify, now);
        return { before, after };
      }), () => assertNoActiveDuplicate(db, attempted!));
    },

    async checkIn(accountId, eventId, confirmationCode, now, notifyOptions) {
      return write(async (trx) => {
        const event = await lockEvent(trx, accountId, eventId);
        if (!event) throw new ServiceError("NOT_FOUND", { message: `Event ${eventId} not found.` });
        const row = await trx.selectFrom("attendees").selectAll().where("event_id", "=", eventId).where("confirmation_code", "=", confirmationCode).executeTakeFirst();
        if (!row) {
          throw new ServiceError("NOT_FOUND", { message: `No registration with confirmation code ${confirmationCode} for event ${eventId}.`, field: "confirmationCode" });
        }
        const before = rowToAttendee(row);
        if (before.status === "checked-in") return { before, after: before };
        const after = applyAttendeeUpdate(before, { status: "checked-in" }, now);
        // The event's figures stay: checked-in counts as active, like the confirmed or pending it was.
        await trx.updateTable("attendees").set({ status: after.status, checked_in_at: after.checkedInAt, updated_at: now }).where("id", "=", row.id).execute();
        const notify = notifyDefaults(notifyOptions);
        const own = attendeeUpdateNotifications(toApiAttendee(before, notify.baseUrl), toApiAttendee(after, notify.baseUrl), event, offsetOf(after, notify.carbon));
        if (own.length > 0) await writeNotifications(trx, accountId, await subscriptions(trx, accountId), own, now);
        return { before, after };
      });
    },

    async eraseAttendee(accountId, id, erasure, notifyOptions) {
      return write(async (trx) => {
        const found = await trx.selectFrom("attendees").select("event_id").where("id", "=", id).where("account_id", "=", accountId).executeTakeFirst();
        if (!found) return null;
        const event = await lockEvent(trx, accountId, found.event_id);
        // Read again under the event's lock: a concurrent erasure may have taken it meanwhile.
        const row = event && (await trx.selectFrom("attendees").selectAll().where("id", "=", id).where("account_id", "=", accountId).executeTakeFirst());
        if (!event || !row) return null;
        const erased = rowToAttendee(row);
        await trx.deleteFrom("attendees").where("id", "=", id).execute();
        await adjustEventStats(trx, erased.eventId, erased, null);
        await redactDeliveries(trx, accountId, { attendeeId: id, eventId: erased.eventId }, erasure.now);
        await replaceStoredAnswers(trx, accountId, id, new Set([id]), erasure);
        await notifyAttendeeChange(trx, event, [attendeeDeletedNotification(erased)], notifyDefaults(notifyOptions), erasure.now);
        return erased;
      });
    },

    async findAttendeeById(id) {
      const row = await db.selectFrom("attendees").selectAll().where("id", "=", id).executeTakeFirst();
      return row ? rowToAttendee(row) : null;
    },

    async listAttendees(accountId, query) {
      let base = db.selectFrom("attendees").where("account_id", "=", accountId);
      if (query.eventId) base = base.where("event_id", "=", query.eventId);
      if (query.status) base = base.where("status", "=", query.status);
      if (query.ticketType) base = base.where("ticket_type", "=", query.ticketType);
      if (query.carbonOffset !== undefined) base = base.where("offset_opted", "=", query.carbonOffset ? 1 : 0);
      if (query.search) {
        base = base.where(sql`search_key`, "like", likePattern(query.search));
      }
      const direction = query.order;
      const [count, rows] = await Promise.all([
        base.select(sql<number>`count(*)`.as("n")).executeTakeFirstOrThrow(),
        base
          .selectAll()
          .$if(query.sortBy === "company", (q) => q.orderBy(sql`case when company is null then 1 else 0 end`))
          .orderBy(ATTENDEE_SORT_COLUMNS[query.sortBy], direction)
          .orderBy("id", direction)
          .limit(query.limit)
          .offset((query.page - 1) * query.limit)
          .execute(),
      ]);
      return { items: rows.map(rowToAttendee), total: Number(count.n) };
    },

    async insertWebhook(webhook, maxPerAccount = Infinity) {
      return backstop(WEBHOOK_URL_INDEX, () => write(async (trx) => {
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
      return backstop(WEBHOOK_URL_INDEX, () => write(async (trx) => {
        // The account's lock, as for an insert: a URL checked free stays free until this commits.
        await dialect.lockRows(trx.selectFrom("accounts").select("id").where("id", "=", accountId)).executeTakeFirst();
        const row = await trx.selectFrom("webhooks").selectAll().where("id", "=", id).where("account_id", "=", accountId).executeTakeFirst();
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

    async analyticsFigures(scope, carbon) {
      if (scope.eventIds !== undefined) {
        const found = new Set(await analytics.existingEventIds(scope.accountId, scope.eventIds));
        const missing = scope.eventIds.filter((id) => !found.has(id));
        if (missing.length) {
          throw new ServiceError("NOT_FOUND", { message: `eventIds: no event ${missing.join(", ")} in this account.`, field: "eventIds", details: { missing } });
        }
      }
      return analytics.figures(scope, carbon);
    },

    async eventAnalyticsFigures(accountId, eventId) {
      return analytics.eventFigures(accountId, eventId);
    },
  };

  return withAvailability(storage, (error) => dialect.isStoreUnavailable(error));
}

/** Turns errors that mean "the store cannot serve now" into `503 SERVICE_UNAVAILABLE`, on every method. */
function withAvailability(storage: Storage, unavailable: (error: unknown) => boolean): Storage {
  const wrapped = {} as Record<string, unknown>;
  for (const [name, method] of Object.entries(storage) as Array<[string, (...args: unknown[]) => Promise<unknown>]>) {
    wrapped[name] = async (...args: unknown[]) => {
      try {
        return await method(...args);
      } catch (error) {
        if (ServiceError.is(error) || !unavailable(error)) throw error;
        throw new ServiceError("SERVICE_UNAVAILABLE", { message: "The store cannot be reached; retry shortly.", headers: { "retry-after": "5" }, cause: error });
      }
    };
  }
  return wrapped as unknown as Storage;
}
