/**
 * THE DIALECT-SPECIFIC MODULE. Everything that differs between the databases the SQL
 * storage runs on lives here, and only here; all other SQL is portable kysely.
 *
 * Supported now: SQLite (better-sqlite3). PostgreSQL is on the roadmap: add its branch to
 * each function below (`FOR UPDATE` row locks, a plain transaction) and run the storage
 * test suite against it.
 */
import { type Kysely, type RawBuilder, SqliteAdapter, sql } from "kysely";
import type { BucketGranularity } from "../analytics/date-buckets.ts";
import type { Database } from "./database.ts";

export type DialectName = "sqlite";

/** Which dialect a kysely instance speaks; throws for one the storage does not support yet. */
export function detectDialect(db: Kysely<Database>): DialectName {
  const adapter = db.getExecutor().adapter;
  if (adapter instanceof SqliteAdapter || adapter.constructor.name === "SqliteAdapter") return "sqlite";
  throw new Error(`Unsupported SQL dialect (${adapter.constructor.name}); Event Service supports SQLite for now.`);
}

/**
 * Runs `fn` in a transaction that holds the write lock from its first statement, so that a
 * read-check-write inside it is safe against other connections and processes.
 *
 * SQLite: `BEGIN IMMEDIATE` takes the database's single write lock up front (a plain `BEGIN`
 * would fail with SQLITE_BUSY when a reader upgrades after another process wrote). Other
 * processes wait up to the connection's busy timeout.
 */
export async function writeTransaction<T>(
  db: Kysely<Database>,
  _dialect: DialectName,
  fn: (trx: Kysely<Database>) => Promise<T>,
): Promise<T> {
  return db.connection().execute(async (conn) => {
    await sql`begin immediate`.execute(conn);
    try {
      const result = await fn(conn);
      await sql`commit`.execute(conn);
      return result;
    } catch (error) {
      await sql`rollback`.execute(conn).catch(() => {});
      throw error;
    }
  });
}

/**
 * Marks a select as locking the rows it reads until the transaction ends. SQLite needs
 * nothing (the write transaction already holds the database lock); PostgreSQL will add
 * `FOR UPDATE`.
 */
export function lockRows<Q>(query: Q, _dialect: DialectName): Q {
  return query;
}

/**
 * True when an error means the store cannot serve right now (locked past the busy timeout,
 * unreachable, closed, out of space), as opposed to a bug or a bad query: the service answers
 * those with `503 SERVICE_UNAVAILABLE` and `Retry-After`.
 */
export function isStoreUnavailable(error: unknown, _dialect: DialectName): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && /^SQLITE_(BUSY|LOCKED|CANTOPEN|IOERR|FULL|READONLY|PROTOCOL|NOTADB)/.test(code)) return true;
  return /database connection is not open|driver has already been destroyed/i.test(error.message);
}

/** The part of a better-sqlite3 `Database` that statement caching needs (declared here: core never imports the driver). */
export interface SqliteDatabaseLike {
  prepare(sql: string): unknown;
  close(): unknown;
}

/**
 * Wraps a better-sqlite3 database so that `prepare` reuses one statement per SQL text (up to
 * `max`, least recently used dropped). kysely prepares every query anew, and preparing costs
 * more than running the small indexed queries of the hot path; the statements are run one at a
 * time on the single connection, so sharing them is safe.
 */
export function withStatementCache<D extends SqliteDatabaseLike>(database: D, max = 500): D {
  const cache = new Map<string, unknown>();
  return new Proxy(database, {
    get(target, property, receiver) {
      if (property !== "prepare") {
        const value = Reflect.get(target, property, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      }
      return (sql: string) => {
        let statement = cache.get(sql);
        if (statement === undefined) {
          statement = target.prepare(sql);
          if (cache.size >= max) cache.delete(cache.keys().next().value!);
        } else {
          cache.delete(sql);
        }
        cache.set(sql, statement);
        return statement;
      };
    },
  });
}

/**
 * Applied to every new SQLite connection by hosts: the busy timeout first (switching to WAL
 * takes a lock), WAL, foreign keys, and `secure_delete`, which overwrites deleted content with
 * zeros, so that an erased registration's data does not linger in free pages of the file.
 */
export const SQLITE_PRAGMAS = ["busy_timeout = 5000", "journal_mode = WAL", "foreign_keys = ON", "synchronous = NORMAL", "secure_delete = ON"] as const;

/**
 * The first day (`YYYY-MM-DD` text) of the calendar period holding the ISO 8601 UTC timestamp
 * in `column`: the day, the Monday of its ISO week, the first of its month or of its quarter.
 * The JavaScript twin is `bucketStart` in `analytics/date-buckets.ts`.
 *
 * SQLite: `date(x, '-6 days', 'weekday 1')` steps back six days, then forward to the next
 * Monday (staying put on a Monday), which lands on the week's Monday. PostgreSQL will use
 * `to_char(date_trunc('week', x::timestamptz at time zone 'UTC'), 'YYYY-MM-DD')` and friends.
 */
export function bucketStartSql(column: RawBuilder<unknown>, granularity: BucketGranularity, _dialect: DialectName): RawBuilder<string> {
  switch (granularity) {
    case "daily":
      return sql<string>`substr(${column}, 1, 10)`;
    case "weekly":
      // The week of 0000-01-01 began in the year -1, which SQLite writes '-0001-…': clamped, as in JS.
      return sql<string>`max(date(${column}, '-6 days', 'weekday 1'), '0000-01-01')`;
    case "monthly":
      return sql<string>`substr(${column}, 1, 7) || '-01'`;
    case "quarterly":
      return sql<string>`substr(${column}, 1, 5) || (case when substr(${column}, 6, 2) <= '03' then '01-01' when substr(${column}, 6, 2) <= '06' then '04-01' when substr(${column}, 6, 2) <= '09' then '07-01' else '10-01' end)`;
  }
}

/**
 * A table expression with one row per element of the JSON array of text in `column`, the
 * element in its column `value`. SQLite: `json_each`; PostgreSQL: `jsonb_array_elements_text`.
 */
export function jsonArrayElementsSql(column: RawBuilder<unknown>, alias: string, _dialect: DialectName) {
  return sql`json_each(${column})`.as(alias);
}

/** 1 when the JSON object in `column` has `key` true, else 0 (also for SQL null). SQLite: `json_extract` gives 1/0. */
export function jsonFlagSql(column: RawBuilder<unknown>, key: string, _dialect: DialectName): RawBuilder<number> {
  return sql<number>`(case when json_extract(${column}, ${sql.lit(`$.${key}`)}) = 1 then 1 else 0 end)`;
}

/** 1 when the JSON object in `column` has a non-empty text under `key`, else 0. */
export function jsonTextPresentSql(column: RawBuilder<unknown>, key: string, _dialect: DialectName): RawBuilder<number> {
  return sql<number>`(case when coalesce(json_extract(${column}, ${sql.lit(`$.${key}`)}), '') <> '' then 1 else 0 end)`;
}

/** Days (fractional) from the ISO timestamp `from` to `to`. SQLite: `julianday`; PostgreSQL: `extract(epoch from ...) / 86400`. */
export function daysBetweenSql(from: RawBuilder<unknown>, to: RawBuilder<unknown>, _dialect: DialectName): RawBuilder<number> {
  return sql<number>`(julianday(${to}) - julianday(${from}))`;
}
