/**
 * THE DIALECT-SPECIFIC MODULE. Everything that differs between the databases the SQL
 * storage runs on lives here, and only here; all other SQL is portable kysely.
 *
 * Supported: SQLite (better-sqlite3) and PostgreSQL 14 or newer (node-postgres). The storage
 * asks {@link dialectOf} once for the {@link SqlDialect} of its kysely instance and passes that
 * object to whatever needs one.
 */
import {
  type Expression,
  type Kysely,
  type MigrationProvider,
  type MigrationResultSet,
  Migrator,
  PostgresIntrospector,
  type RawBuilder,
  type SelectQueryBuilder,
  type SqlBool,
  SqliteIntrospector,
  sql,
} from "kysely";
import type { BucketGranularity } from "../analytics/date-buckets.ts";
import type { StoreFault } from "../storage/lifecycle-store.ts";
import type { Database } from "./database.ts";

/** The databases the storage runs on. */
export type DialectName = "sqlite" | "postgres";

/** A unique index or constraint, as {@link SqlDialect.isUniqueViolation} recognises it. */
export interface UniqueIndex {
  /** Its name (what PostgreSQL reports). */
  name: string;
  /** Its table and columns (what SQLite reports). */
  table: string;
  columns: readonly string[];
}

/** Any select kysely builds, for the locking helpers. */
// biome-ignore lint/suspicious/noExplicitAny: the helpers take a select of any table and give back the same type.
type AnySelect = SelectQueryBuilder<any, any, any>;

/** Everything that differs between the databases, given once to the storage. */
export interface SqlDialect {
  readonly name: DialectName;
  /**
   * Runs `fn` in a transaction in which a read-check-write is safe against other connections
   * and processes, provided the rows it decides on are read through {@link lockRows} (or the
   * write itself is guarded). May run `fn` again (PostgreSQL, after a serialization failure or
   * a deadlock), so `fn` must do nothing but database work. A COMMIT whose answer is lost with
   * the connection is resolved (PostgreSQL: by the transaction's id): `fn`'s result when it
   * committed, the error when it did not, so a failure never hides a committed write.
   */
  writeTransaction<T>(db: Kysely<Database>, fn: (trx: Kysely<Database>) => Promise<T>): Promise<T>;
  /**
   * Marks a select as locking the rows it reads (of the tables `of`, default all) until the
   * transaction ends: another transaction's lock of the same rows waits. SQLite: nothing (the
   * write transaction holds the whole database); PostgreSQL: `FOR NO KEY UPDATE`.
   */
  lockRows<Q extends AnySelect>(query: Q, of?: readonly string[]): Q;
  /**
   * Marks a select as holding the rows it reads against change and deletion until the transaction
   * ends, shared with other transactions that read them so: many writers of other rows may hold
   * it at once. SQLite: nothing (as {@link lockRows}); PostgreSQL: `FOR SHARE`.
   */
  shareRows<Q extends AnySelect>(query: Q): Q;
  /**
   * Like {@link lockRows}, but rows another transaction holds are skipped, not waited for: for
   * work queues, so that two workers never claim one row and never wait on each other.
   * PostgreSQL: `FOR NO KEY UPDATE SKIP LOCKED`.
   */
  claimRows<Q extends AnySelect>(query: Q, of?: readonly string[]): Q;
  /**
   * `condition`, checked on the rows the statement's key finds and never used to find them.
   * SQLite plans without statistics, and may prefer a range of an index that covers the
   * condition (a whole backlog) to a few primary keys: `+(…)` keeps it from planning the
   * condition on an index. PostgreSQL plans from statistics: the condition as it is.
   */
  checkOnly(condition: Expression<SqlBool>): Expression<SqlBool>;
  /** Runs the migrations once, also when several processes start together on one database. */
  migrate(db: Kysely<Database>, provider: MigrationProvider): Promise<MigrationResultSet>;
  /**
   * Why the store cannot serve right now, when `error` means it cannot (locked or busy past a
   * timeout, unreachable, closed, out of space or connections, read-only); `null` for a bug, a
   * bad query or a constraint. The service answers the former with `503 SERVICE_UNAVAILABLE`
   * and `Retry-After`.
   */
  storeFault(error: unknown): StoreFault | null;
  /** True when `error` is a violation of the unique index `index`. */
  isUniqueViolation(error: unknown, index: UniqueIndex): boolean;
  /**
   * The first day (`YYYY-MM-DD` text) of the calendar period holding the ISO 8601 UTC timestamp
   * in `column`: the day, the Monday of its ISO week, the first of its month or of its quarter.
   * The JavaScript twin is `bucketStart` in `analytics/date-buckets.ts`.
   */
  bucketStart(column: RawBuilder<unknown>, granularity: BucketGranularity): RawBuilder<string>;
  /** A table expression with one row per element of the JSON array of text in `column`, the element in its column `value`. */
  jsonArrayElements(column: RawBuilder<unknown>, alias: string): ReturnType<RawBuilder<unknown>["as"]>;
  /** 1 when the JSON object (text) in `column` has `key` true, else 0 (also for SQL null). */
  jsonFlag(column: RawBuilder<unknown>, key: string): RawBuilder<number>;
  /** 1 when the JSON object (text) in `column` has a non-empty text under `key`, else 0. */
  jsonTextPresent(column: RawBuilder<unknown>, key: string): RawBuilder<number>;
  /** The ISO 8601 timestamp `value` in days (fractional, a float) since 1970-01-01 UTC: the SQL twin of `epochDays` (`rules/kept-tallies.ts`). */
  epochDays(value: RawBuilder<unknown>): RawBuilder<number>;
  /**
   * `text` with its ASCII letters lower-cased (and no other), as a sort key ordered by code
   * point: the documented sorts "ignoring the case of ASCII letters" are the same on every
   * database, whatever PostgreSQL's locale (whose `lower()` folds every script, and whose
   * collation may ignore punctuation).
   */
  asciiCaseFold(text: RawBuilder<unknown>): RawBuilder<string>;
}

/**
 * The dialect of a kysely instance, told by the class of its introspector (public API, made by its
 * kysely dialect); throws for one the storage does not support.
 */
export function dialectOf(db: Kysely<Database>): SqlDialect {
  const introspector = db.introspection;
  if (introspector instanceof SqliteIntrospector) return SQLITE;
  if (introspector instanceof PostgresIntrospector) return POSTGRES;
  throw new Error(
    "Unsupported SQL dialect: Event Service runs on SQLite (createSqliteDialect or kysely's SqliteDialect) or kysely's PostgresDialect.",
  );
}

/** The error code (SQLite's `SQLITE_…`, PostgreSQL's SQLSTATE, Node's `E…`) of a driver error, if any. */
function codeOf(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : null;
}

/** Ends a transaction on `conn` with COMMIT (`db` is the database, for what else it needs to know). */
type Commit = (conn: Kysely<Database>, db: Kysely<Database>) => Promise<void>;

const plainCommit: Commit = async (conn) => {
  await sql`commit`.execute(conn);
};

/** Runs `fn` on one connection between `begin` (as given) and `commit`, rolling back on any error. */
async function onOneConnection<T>(
  db: Kysely<Database>,
  begin: string,
  fn: (trx: Kysely<Database>) => Promise<T>,
  commit = plainCommit,
): Promise<T> {
  return db.connection().execute(async (conn) => {
    await sql.raw(begin).execute(conn);
    try {
      const result = await fn(conn);
      await commit(conn, db);
      return result;
    } catch (error) {
      await sql`rollback`.execute(conn).catch(() => {});
      throw error;
    }
  });
}

/** SQLite's result codes (extended ones start with the primary's name) that mean the store cannot serve now. */
const SQLITE_FAULTS: ReadonlyArray<readonly [RegExp, StoreFault]> = [
  [/^SQLITE_(BUSY|LOCKED)/, "timeout"],
  [/^SQLITE_FULL/, "disk_full"],
  [/^SQLITE_READONLY/, "read_only"],
  [/^SQLITE_IOERR/, "io_error"],
  [/^SQLITE_(CANTOPEN|PROTOCOL|NOTADB)/, "unreachable"],
];

/** SQLite: one writer at a time per database file, so a write transaction needs no row locks. */
export const SQLITE: SqlDialect = {
  name: "sqlite",

  /**
   * `BEGIN IMMEDIATE` takes the database's single write lock up front (a plain `BEGIN` would
   * fail with SQLITE_BUSY when a reader upgrades after another process wrote). Other processes
   * wait up to the connection's busy timeout; nothing can conflict, so nothing is retried.
   */
  writeTransaction: (db, fn) => onOneConnection(db, "begin immediate", fn),

  // The write transaction already holds the whole database: SQLite has no row locks (and no FOR UPDATE).
  lockRows: (query) => query,
  shareRows: (query) => query,
  claimRows: (query) => query,
  checkOnly: (condition) => sql<SqlBool>`+(${condition})`,

  // Inside the write transaction: two processes starting on one new file migrate one after the other.
  migrate: (db, provider) =>
    SQLITE.writeTransaction(db, (trx) =>
      new Migrator({ db: trx, provider, disableTransactions: true }).migrateToLatest(),
    ),

  storeFault(error) {
    if (!(error instanceof Error)) return null;
    const code = codeOf(error) ?? "";
    const fault = SQLITE_FAULTS.find(([pattern]) => pattern.test(code));
    if (fault) return fault[1];
    return /database connection is not open|driver has already been destroyed/i.test(error.message)
      ? "unreachable"
      : null;
  },

  isUniqueViolation(error, index) {
    const code = codeOf(error);
    if (code !== "SQLITE_CONSTRAINT_UNIQUE" && code !== "SQLITE_CONSTRAINT_PRIMARYKEY") return false;
    // SQLite names the columns, not the index: "UNIQUE constraint failed: webhooks.account_id, webhooks.url".
    const columns = (error as Error).message.replace(/^.*constraint failed: /i, "").split(/,\s*/);
    return (
      columns.length === index.columns.length &&
      index.columns.every((column, i) => columns[i] === `${index.table}.${column}`)
    );
  },

  bucketStart(column, granularity) {
    switch (granularity) {
      case "daily":
        return sql<string>`substr(${column}, 1, 10)`;
      case "weekly":
        // `date(x, '-6 days', 'weekday 1')` steps back six days, then forward to the next Monday
        // (staying put on a Monday). The week of 0000-01-01 began in the year -1, which SQLite
        // writes '-0001-…': clamped, as in JS.
        return sql<string>`max(date(${column}, '-6 days', 'weekday 1'), '0000-01-01')`;
      case "monthly":
        return sql<string>`substr(${column}, 1, 7) || '-01'`;
      case "quarterly":
        return sql<string>`substr(${column}, 1, 5) || (case when substr(${column}, 6, 2) <= '03' then '01-01' when substr(${column}, 6, 2) <= '06' then '04-01' when substr(${column}, 6, 2) <= '09' then '07-01' else '10-01' end)`;
    }
  },

  jsonArrayElements: (column, alias) => sql`json_each(${column})`.as(alias),
  // json_extract gives JSON true as 1.
  jsonFlag: (column, key) =>
    sql<number>`(case when json_extract(${column}, ${sql.lit(`$.${key}`)}) = 1 then 1 else 0 end)`,
  jsonTextPresent: (column, key) =>
    sql<number>`(case when coalesce(json_extract(${column}, ${sql.lit(`$.${key}`)}), '') <> '' then 1 else 0 end)`,
  // 2440587.5: the Julian day of 1970-01-01T00:00Z.
  epochDays: (value) => sql<number>`(julianday(${value}) - 2440587.5)`,
  // SQLite's lower() folds ASCII only, and its default collation (BINARY) orders UTF-8 by code point.
  asciiCaseFold: (text) => sql<string>`lower(${text})`,
};

/**
 * SQLSTATEs (or their classes) PostgreSQL answers when it cannot serve now, most specific first:
 * a statement or lock wait past its timeout, disk full, a read-only server (a standby, or
 * `default_transaction_read_only`), out of connections or memory, shutting down, connection
 * failures, system I/O errors.
 */
const PG_FAULTS: ReadonlyArray<readonly [RegExp, StoreFault]> = [
  [/^(57014|55P03|25P03)$/, "timeout"],
  [/^53100$/, "disk_full"],
  [/^25006$/, "read_only"],
  [/^53/, "overloaded"],
  [/^(08|57P0)/, "unreachable"],
  [/^58/, "io_error"],
];
/** Node's errors when a connection cannot be made or is lost. */
const NET_UNAVAILABLE = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
]);
/** A transaction aborted only because another ran at the same time: serialization failure, deadlock. Running it again succeeds. */
const PG_RETRYABLE = new Set(["40001", "40P01"]);
/** How many times a write transaction runs at most when PostgreSQL aborts it for a conflict. */
const PG_ATTEMPTS = 5;

/** How long a COMMIT whose answer was lost is looked up before it counts as failed (a restart's worth). */
const PG_OUTCOME_WITHIN_MS = 10_000;

/**
 * COMMIT, knowing its outcome when its answer is lost: a connection that dies while COMMIT runs
 * (PostgreSQL restarted, the network cut) leaves it unknown whether the transaction committed,
 * and a write reported as failed that did commit would be repeated by the retry the failure
 * asks for. The transaction's id, read first, is then looked up on another connection
 * (`pg_xact_status`, once the server answers again, for up to {@link PG_OUTCOME_WITHIN_MS}):
 * committed, the write succeeded; aborted (or never known), the error stands. A transaction
 * that wrote nothing has no id and nothing to repeat.
 */
const pgCommit: Commit = async (conn, db) => {
  const { rows } = await sql<{
    xid: string | null;
    started: string;
  }>`select pg_current_xact_id_if_assigned()::text as xid, pg_postmaster_start_time()::text as started`.execute(conn);
  const xid = rows[0]?.xid ?? null;
  try {
    await sql`commit`.execute(conn);
  } catch (error) {
    if (xid === null || POSTGRES.storeFault(error) !== "unreachable") throw error;
    if ((await transactionStatus(db, xid, rows[0]!.started)) !== "committed") throw error;
  }
};

/**
 * `pg_xact_status` of the transaction `xid` (begun on the server started at `started`), asked
 * again until the server answers and the transaction has ended; null when that takes too long.
 * An id the server calls "in the future" never reached its log (it crashed first and restarted
 * with an earlier next id): the transaction did not commit, and the id will go to another
 * transaction, whose outcome must not be taken for this one's, so it is `aborted` at once.
 */
export async function transactionStatus(db: Kysely<Database>, xid: string, started: string): Promise<string | null> {
  const deadline = Date.now() + PG_OUTCOME_WITHIN_MS;
  for (;;) {
    try {
      const { rows } = await sql<{
        status: string | null;
        started: string;
      }>`select pg_xact_status(cast(${xid} as xid8)) as status, pg_postmaster_start_time()::text as started`.execute(
        db,
      );
      const status = rows[0]?.status ?? null;
      // After a restart no transaction of before it is still running: one "in progress" under
      // this id is another's.
      if (status === "in progress" && rows[0]?.started !== started) return "aborted";
      if (status !== "in progress") return status;
    } catch (error) {
      if (codeOf(error) === "22023" && /in the future/.test((error as Error).message)) return "aborted";
      // Otherwise the server is not back yet.
    }
    if (Date.now() >= deadline) return null;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A PostgreSQL text expression (parameters come in untyped). */
const text = (value: RawBuilder<unknown>) => sql`cast(${value} as text)`;

/**
 * PostgreSQL at READ COMMITTED, PostgreSQL's default: every read-check-write of the storage
 * locks what it decides on (`SELECT … FOR UPDATE`, {@link SqlDialect.lockRows}) or is a single
 * guarded statement, and the unique indexes are the backstop, mapped to their documented codes.
 */
export const POSTGRES: SqlDialect = {
  name: "postgres",

  async writeTransaction(db, fn) {
    // Row locks taken in different orders can deadlock; PostgreSQL then aborts one of the two,
    // which is safe to run again from the start (after a short, growing, jittered pause).
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await onOneConnection(db, "begin", fn, pgCommit);
      } catch (error) {
        if (attempt >= PG_ATTEMPTS || !PG_RETRYABLE.has(codeOf(error) ?? "")) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
      }
    }
  },

  // FOR NO KEY UPDATE: exclusive among the storage's own locks, yet it lets other transactions
  // insert rows that reference the locked one (their foreign-key checks take KEY SHARE, which
  // FOR UPDATE would block, and which could deadlock against it); the storage never changes a key.
  // biome-ignore lint/suspicious/noExplicitAny: `of` names a table of the caller's select, which kysely types per query.
  lockRows: (query, of) => (of ? query.forNoKeyUpdate(of as any) : query.forNoKeyUpdate()) as typeof query,
  shareRows: (query) => query.forShare() as typeof query,
  claimRows: (query, of) =>
    // biome-ignore lint/suspicious/noExplicitAny: as in lockRows.
    (of ? query.forNoKeyUpdate(of as any) : query.forNoKeyUpdate()).skipLocked() as typeof query,
  checkOnly: (condition) => condition,

  // kysely's Migrator holds a PostgreSQL advisory lock while it migrates, and runs the
  // migrations in one transaction: processes starting together migrate once, one after another.
  migrate: (db, provider) => new Migrator({ db, provider }).migrateToLatest(),

  storeFault(error) {
    if (!(error instanceof Error)) return null;
    const code = codeOf(error);
    if (code !== null && NET_UNAVAILABLE.has(code)) return "unreachable";
    if (code !== null && /^[0-9A-Z]{5}$/.test(code)) {
      const fault = PG_FAULTS.find(([pattern]) => pattern.test(code));
      if (fault) return fault[1];
    }
    // AggregateError: a host name resolving to several addresses, each refused.
    if (error instanceof AggregateError && error.errors.some((inner) => POSTGRES.storeFault(inner) !== null))
      return "unreachable";
    // pg-pool's wait for a free connection (connectionTimeoutMillis), or a connect that took as long.
    if (/timeout exceeded when trying to connect|Connection terminated due to connection timeout/i.test(error.message))
      return "timeout";
    return /Connection terminated|Cannot use a pool after calling end|Client has encountered a connection error|Client was closed|driver has already been destroyed/i.test(
      error.message,
    )
      ? "unreachable"
      : null;
  },

  isUniqueViolation(error, index) {
    return codeOf(error) === "23505" && (error as { constraint?: unknown }).constraint === index.name;
  },

  bucketStart(column, granularity) {
    const value = text(column);
    switch (granularity) {
      case "daily":
        return sql<string>`substr(${value}, 1, 10)`;
      case "weekly": {
        // PostgreSQL has no year 0 (the service stores 0000 to 9999): the date is taken 400 years
        // later, where the calendar repeats exactly (146097 days, 20871 weeks), truncated to its
        // Monday, and the 400 years given back in the text. The week of 0000-01-01, which began
        // in the year -1, is clamped as in JS.
        const monday = sql`cast(date_trunc('week', cast(make_date(cast(substr(${value}, 1, 4) as integer) + 400, cast(substr(${value}, 6, 2) as integer), cast(substr(${value}, 9, 2) as integer)) as timestamp)) as date)`;
        return sql<string>`(case when extract(year from ${monday}) < 400 then '0000-01-01' else lpad(cast(cast(extract(year from ${monday}) as integer) - 400 as text), 4, '0') || to_char(${monday}, '-MM-DD') end)`;
      }
      case "monthly":
        return sql<string>`substr(${value}, 1, 7) || '-01'`;
      case "quarterly":
        return sql<string>`substr(${value}, 1, 5) || (case when substr(${value}, 6, 2) <= '03' then '01-01' when substr(${value}, 6, 2) <= '06' then '04-01' when substr(${value}, 6, 2) <= '09' then '07-01' else '10-01' end)`;
    }
  },

  jsonArrayElements: (column, alias) => sql`jsonb_array_elements_text(cast(${column} as jsonb))`.as(alias),
  jsonFlag: (column, key) =>
    sql<number>`(case when cast(${column} as jsonb) -> ${sql.lit(key)} = 'true'::jsonb then 1 else 0 end)`,
  jsonTextPresent: (column, key) =>
    sql<number>`(case when coalesce(cast(${column} as jsonb) ->> ${sql.lit(key)}, '') <> '' then 1 else 0 end)`,
  // date_part() gives a float (extract() gives numeric, which node-postgres hands over as
  // text), and float arithmetic a row is cheaper than numeric over an event's registrations.
  epochDays: (value) => sql<number>`(date_part('epoch', cast(${text(value)} as timestamptz)) / 86400)`,
  asciiCaseFold: (value) =>
    sql<string>`(translate(${value}, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') collate "C")`,
};

/**
 * Applied to every new SQLite connection by hosts: the busy timeout first (switching to WAL
 * takes a lock), WAL, foreign keys, and `secure_delete`, which overwrites deleted content with
 * zeros, so that an erased registration's data does not linger in free pages of the file.
 */
export const SQLITE_PRAGMAS = [
  "busy_timeout = 5000",
  "journal_mode = WAL",
  "foreign_keys = ON",
  "synchronous = NORMAL",
  "secure_delete = ON",
] as const;
