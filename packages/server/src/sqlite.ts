import { closeSync, mkdirSync, openSync } from "node:fs";
import { dirname, resolve } from "node:path";
import Database from "better-sqlite3";
import { type Database as Schema, SQLITE_PRAGMAS, withStatementCache } from "@event-service/core";
import { Kysely, SqliteDialect } from "kysely";

/** The SQLite file (or `:memory:`) that a `DATABASE_URL` names; throws for other databases. */
export function sqlitePath(databaseUrl: string): string {
  if (databaseUrl === ":memory:") return databaseUrl;
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new Error("DATABASE_URL: PostgreSQL is on the roadmap but not supported yet; use a SQLite file path or :memory:.");
  }
  const path = databaseUrl.replace(/^(sqlite|file):(\/\/)?/, "");
  return resolve(path);
}

/**
 * Opens the SQLite database of `databaseUrl` (creating its folder and file) with WAL, foreign
 * keys, a busy timeout and a prepared-statement cache, as a kysely instance for `createSqlStorage`.
 * A folder it creates is `0700` and a file `0600` (SQLite gives its WAL and shared-memory files
 * the same mode): the file holds personal data and key hashes. Existing ones are left as they are.
 */
export function openSqlite(databaseUrl: string): Kysely<Schema> {
  const path = sqlitePath(databaseUrl);
  if (path !== ":memory:") {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    // "a": creates the file with this mode when missing, leaves an existing one untouched.
    closeSync(openSync(path, "a", 0o600));
  }
  const database = new Database(path);
  for (const pragma of SQLITE_PRAGMAS) database.pragma(pragma);
  return new Kysely<Schema>({ dialect: new SqliteDialect({ database: withStatementCache(database) }) });
}
