import { type ExpressionBuilder, type Kysely, type Selectable, sql } from "kysely";
import type { CarbonSettings } from "../carbon/carbon-settings.ts";
import { ServiceError } from "../errors.ts";
import { applyEventUpdate, type EventListQuery, type EventRecord, type EventWithStats } from "../resources/event.ts";
import type { Page } from "../storage.ts";
import { ERASED_ANSWER } from "../storage/erasure.ts";
import { redactDeliveries, replaceStoredAnswers } from "./erasure-sql.ts";
import { scoreSql, scoreThreshold } from "./carbon-sql.ts";
import type { Database, EventsTable } from "./database.ts";
import { type Param, precompile } from "./precompiled.ts";
import { eventToRow, rowToEvent, rowToKeptFigures } from "./rows.ts";
import type { SqlDialect } from "./dialect.ts";
import { eventStatsOf } from "../resources/kept-figures.ts";
import type { SqlContext } from "./sql-context.ts";
import { promoteWaitlisted } from "./waitlist-sql.ts";
import { likePattern } from "./sql-context.ts";
import type { EventStore } from "../storage/event-store.ts";

/** An event row with the figures the storage keeps on it. */
export type EventRow = Selectable<EventsTable>;

/** The event of a row with the figures kept on the row. */
export function toEventWithStats(row: EventRow, carbon: CarbonSettings): EventWithStats {
  const event = rowToEvent(row);
  // Added to the new object, not spread into another: see createResponder.
  return Object.assign(event, eventStatsOf(event, rowToKeptFigures(row), carbon));
}

/**
 * The event's active registrations, as kept on its row: exact inside a write transaction that
 * holds the event's lock (every registration change adjusts it there), and one row to read
 * however many registrations the event has.
 */
export async function countActive(conn: Kysely<Database>, eventId: string): Promise<number> {
  const row = await conn.selectFrom("events").select("active_count").where("id", "=", eventId).executeTakeFirstOrThrow();
  return Number(row.active_count);
}

/** Events and their kept figures (`EventStore`) on SQL. */
export function createEventStore(ctx: SqlContext): EventStore {
  const { db, dialect, write, notify } = ctx;
  const clock = ctx.now;
  const eventQuery = precompile(db, (conn, param: Param<{ id: string; account: string }>) =>
    conn.selectFrom("events").selectAll().where("id", "=", param("id")).where("account_id", "=", param("account")),
  );


  function eventFilters(accountId: string, query: EventListQuery) {
    return (eb: ExpressionBuilder<Database & { e: EventsTable }, "e">) => {
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


  return {
    async insertEvent(event, notifier) {
      await write(async (trx) => {
        await trx.insertInto("events").values(eventToRow(event)).execute();
        if (event.tags.length) await trx.insertInto("event_tags").values(event.tags.map((tag) => ({ event_id: event.id, tag }))).execute();
        await notify(trx, event.accountId, { op: "event.created", event, at: event.createdAt }, notifier);
      });
    },

    async getEvent(accountId, id, carbon) {
      const [row] = (await eventQuery({ id, account: accountId })).rows;
      return row ? toEventWithStats(row, carbon) : null;
    },

    async updateEvent(accountId, id, update, now, notifier) {
      return write(async (trx) => {
        const before = await ctx.lockEvent(trx, accountId, id);
        if (!before) throw new ServiceError("NOT_FOUND", { message: `Event ${id} not found.` });
        const after = applyEventUpdate(before, update, await countActive(trx, id), now);
        const { id: _id, account_id: _account, created_at: _created, ...changes } = eventToRow(after);
        await trx.updateTable("events").set(changes).where("id", "=", id).execute();
        if (update.tags !== undefined) {
          await trx.deleteFrom("event_tags").where("event_id", "=", id).execute();
          if (after.tags.length) await trx.insertInto("event_tags").values(after.tags.map((tag) => ({ event_id: id, tag }))).execute();
        }
        await notify(trx, accountId, { op: "event.updated", before, after, at: now }, notifier);
        // A raised capacity frees places for those waiting.
        if (after.capacity > before.capacity) await promoteWaitlisted(ctx, trx, after, now, notifier);
        return { before, after };
      });
    },

    async deleteEvent(accountId, id, notifier, erasure = { now: clock().toISOString(), replay: ERASED_ANSWER }) {
      return write(async (trx) => {
        const event = await ctx.lockEvent(trx, accountId, id);
        if (!event) return null;
        // Its registrations' data leaves the stored copies first, so that event.deleted (event data only) is written after.
        await redactDeliveries(trx, accountId, { eventId: id }, erasure.now);
        const registrations = await trx.selectFrom("attendees").select("id").where("event_id", "=", id).execute();
        if (registrations.length > 0) await replaceStoredAnswers(trx, accountId, id, new Set(registrations.map((row) => row.id)), erasure);
        await notify(trx, accountId, { op: "event.deleted", event, at: erasure.now }, notifier);
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

  };
}
