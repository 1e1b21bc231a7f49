import type { Database as Schema } from "@event-service/core";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
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

/** How the server reaches its database. */
export interface DatabaseOptions {
  /** A SQLite file path (or `:memory:`), or a `postgres://` URL. */
  DATABASE_URL: string;
  /** Connections of the PostgreSQL pool (SQLite has one). */
  DATABASE_POOL_SIZE: number;
  /** Told about errors of idle pooled connections (the server restarting, a network cut): the pool replaces them. */
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
  if (!isPostgresUrl(options.DATABASE_URL)) return openSqlite(options.DATABASE_URL, { onCheckpointerError: options.onCheckpointerError });
  // node-postgres reads sslmode, host, port, user, password and database from the URL.
  const pool = new pg.Pool({ connectionString: options.DATABASE_URL, max: options.DATABASE_POOL_SIZE, connectionTimeoutMillis: 10_000 });
  // Without a listener, an idle connection's error (PostgreSQL restarting) would end the process.
  pool.on("error", (error) => options.onPoolError?.(error));
  try {
    const client = await pool.connect();
    client.release();
  } catch (error) {
    await pool.end().catch(() => {});
    const reason = error instanceof AggregateError ? error.errors.map((inner) => (inner as Error).message).join("; ") : (error as Error).message;
    throw new Error(`Cannot connect to PostgreSQL at ${redactDatabaseUrl(options.DATABASE_URL)}: ${reason}`, { cause: error });
  }
  return new Kysely<Schema>({ dialect: new PostgresDialect({ pool }) });
}
