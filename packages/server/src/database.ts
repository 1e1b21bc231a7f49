import type { Database as Schema } from "@event-service/core";
import { Kysely, PostgresDialect } from "kysely";
import { openSqlite } from "./sqlite.ts";

/** True when `databaseUrl` names a PostgreSQL database (`postgres://` or `postgresql://`). */
export function isPostgresUrl(databaseUrl: string): boolean {
  return /^postgres(ql)?:\/\//i.test(databaseUrl);
}

/** The URL without its password, for messages and logs. */
export function redactDatabaseUrl(databaseUrl: string): string {
  if (!isPostgresUrl(databaseUrl)) return databaseUrl;
  try {
    const url = new URL(databaseUrl);
    if (url.password) url.password = "***";
    return url.toString();
  } catch {
    return "postgres://…";
  }
}

/** PostgreSQL's `idle_in_transaction_session_timeout` on the server's pool: far above any pause of the storage's own transactions. */
export const IDLE_IN_TRANSACTION_TIMEOUT_MS = 60_000;

/** How the server reaches its database. */
export interface DatabaseOptions {
  /** A SQLite file path (or `:memory:`), or a `postgres://` URL. */
  DATABASE_URL: string;
  /** Connections of the PostgreSQL pool (SQLite has one). */
  DATABASE_POOL_SIZE: number;
  /**
   * PostgreSQL: how long a statement may run, wait for a lock, or wait for a free pooled
   * connection (`DATABASE_STATEMENT_TIMEOUT_MS`); past it the statement fails, and the storage
   * answers `503`. Absent (the CLI, migrations): no limit.
   */
  statementTimeoutMs?: number;
  /**
   * Told about errors of pooled connections (the server restarting, a network cut), idle or in
   * use: the pool replaces them, and a query in flight on one fails on its own.
   */
  onPoolError?: (error: Error) => void;
  /** SQLite: told if the checkpointer thread fails (see `openSqlite`). */
  onCheckpointerError?: (error: Error) => void;
}

/**
 * Opens the database of `DATABASE_URL` as a kysely instance for `createSqlStorage`: SQLite
 * (see `openSqlite`), or PostgreSQL on a `pg.Pool` of `DATABASE_POOL_SIZE` connections, tried
 * once here so that a wrong address or password fails at start with a clear message.
 */
export async function openDatabase(options: DatabaseOptions): Promise<Kysely<Schema>> {
  if (!isPostgresUrl(options.DATABASE_URL))
    return openSqlite(options.DATABASE_URL, { onCheckpointerError: options.onCheckpointerError });
  // Loaded only for PostgreSQL: a server on SQLite never needs node-postgres.
  const { default: pg } = await import("pg");
  // node-postgres reads sslmode, host, port, user, password and database from the URL.
  const timeout = options.statementTimeoutMs;
  const pool = new pg.Pool({
    connectionString: options.DATABASE_URL,
    max: options.DATABASE_POOL_SIZE,
    // The wait for a free connection (or a new one) is bounded like a statement.
    connectionTimeoutMillis: timeout ?? 10_000,
    // Sent at connect, so they hold for every statement of the connection: a locked table or a
    // runaway query fails (57014, 55P03) instead of holding a pooled connection for as long.
    ...(timeout !== undefined && {
      statement_timeout: timeout,
      lock_timeout: timeout,
      // A transaction left open between statements (its process stalled) releases its locks.
      idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS,
    }),
    keepAlive: true,
  });
  // Without a listener, a connection's error (PostgreSQL restarting) would end the process. The
  // pool passes on the errors of idle connections only, and takes its listener off a connection
  // while it is checked out: each connection gets one of its own, which also hears the one that
  // dies in use (57P01, "Connection terminated unexpectedly"). The pool's event repeats it.
  pool.on("error", () => {});
  pool.on("connect", (client) => client.on("error", (error) => options.onPoolError?.(error)));
  try {
    const client = await pool.connect();
    client.release();
  } catch (error) {
    await pool.end().catch(() => {});
    const reason =
      error instanceof AggregateError
        ? error.errors.map((inner) => (inner as Error).message).join("; ")
        : (error as Error).message;
    throw new Error(`Cannot connect to PostgreSQL at ${redactDatabaseUrl(options.DATABASE_URL)}: ${reason}`, {
      cause: error,
    });
  }
  return new Kysely<Schema>({ dialect: new PostgresDialect({ pool }) });
}
