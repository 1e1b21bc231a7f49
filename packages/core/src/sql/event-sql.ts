import { type ExpressionBuilder, type Selectable, sql } from "kysely";
import type { CarbonSettings } from "../carbon/carbon-settings.ts";
import type { EventListQuery, EventWithStats } from "../resources/event.ts";
import type { Page } from "../storage.ts";
import { scoreSql, scoreThreshold } from "./carbon-sql.ts";
import type { Database, EventsTable } from "./database.ts";
import { type Param, type Precompiled, precompile } from "./precompiled.ts";
import { rowToEvent, rowToKeptFigures } from "./rows.ts";
import { eventStatsOf } from "../rules/kept-figures.ts";
import type { SqlContext } from "./sql-context.ts";
import { likePattern, readPage } from "./sql-context.ts";
import type { EventStore } from "../storage/event-store.ts";

/** An event row with the figures the storage keeps on it. */
export type EventRow = Selectable<EventsTable>;

/** The event of a row with the figures kept on the row. */
export function toEventWithStats(row: EventRow, carbon: CarbonSettings): EventWithStats {
  const event = rowToEvent(row);
  // Added to the new object, not spread into another: see createResponder.
  return Object.assign(event, eventStatsOf(event, rowToKeptFigures(row), carbon));
}

/** Reads of events and their kept figures (`EventStore`) on SQL; their writes are `transaction-sql.ts`'s. */
export function createEventStore(ctx: SqlContext): EventStore {
  const { db, dialect } = ctx;
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
        conditions.push(
          eb.exists(
            eb
              .selectFrom("event_tags as t")
              .select("t.event_id")
              .whereRef("t.event_id", "=", "e.id")
              .where("t.tag", "in", tags),
          ),
        );
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

  // The list without a filter (an account's events in one order, a page at a time) is the common
  // one: its statements are compiled once per order instead of built by kysely on every request.
  const countQuery = precompile(db, (conn, param: Param<{ account: string }>) =>
    conn.selectFrom("events as e").where("e.account_id", "=", param("account")).select(sql<number>`count(*)`.as("n")),
  );
  const pageQueries = new Map<string, Precompiled<{ account: string; limit: number; offset: number }, EventRow>>();
  function pageQuery(sortBy: EventListQuery["sortBy"], direction: EventListQuery["order"]) {
    const key = `${sortBy} ${direction}`;
    let query = pageQueries.get(key);
    if (!query) {
      query = precompile(db, (conn, param: Param<{ account: string; limit: number; offset: number }>) =>
        conn
          .selectFrom("events as e")
          .where("e.account_id", "=", param("account"))
          .selectAll("e")
          .orderBy(EVENT_SORT_COLUMNS[sortBy], direction)
          .orderBy("e.id", direction)
          .limit(param("limit"))
          .offset(param("offset")),
      );
      pageQueries.set(key, query);
    }
    return query;
  }
  const unfiltered = (query: EventListQuery) =>
    query.status === undefined &&
    query.category === undefined &&
    query.startDate === undefined &&
    query.endDate === undefined &&
    query.search === undefined &&
    query.tags === undefined &&
    query.minScore === undefined;

  return {
    async getEvent(accountId, id, carbon) {
      const [row] = (await eventQuery({ id, account: accountId })).rows;
      return row ? toEventWithStats(row, carbon) : null;
    },

    async listEvents(accountId, query, carbon): Promise<Page<EventWithStats>> {
      const direction = query.order;
      if (unfiltered(query)) {
        const [count, items] = await Promise.all([
          countQuery({ account: accountId }),
          pageQuery(
            query.sortBy,
            direction,
          )({
            account: accountId,
            limit: query.limit,
            offset: (query.page - 1) * query.limit,
          }),
        ]);
        return {
          items: items.rows.map((row) => toEventWithStats(row, carbon)),
          total: Number(count.rows[0]?.n ?? 0),
        };
      }
      const base = db
        .selectFrom("events as e")
        .where(eventFilters(accountId, query))
        .$if(query.minScore !== undefined, (q) => q.where(scoreSql(carbon), ">=", scoreThreshold(query.minScore!)));
      const page = await readPage(base, query, (q) =>
        q.selectAll("e").orderBy(EVENT_SORT_COLUMNS[query.sortBy], direction).orderBy("e.id", direction),
      );
      return { items: page.items.map((row) => toEventWithStats(row, carbon)), total: page.total };
    },
  };
}
