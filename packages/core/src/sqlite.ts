/**
 * @event-service/core/sqlite: what a host needs to run the SQL storage on SQLite (better-sqlite3
 * or any driver of its shape): the pragmas every connection gets, the dialect with a
 * prepared-statement cache and rows built in JavaScript, and `SqliteKysely`, a kysely instance on
 * it whose reads skip kysely's executor when the connection is free (kysely's plain
 * `SqliteDialect` works too, slower). Core never imports the driver; the host opens the database
 * and hands it over.
 *
 * @example
 * import Database from "better-sqlite3";
 * import { createSqlStorage } from "@event-service/core";
 * import { SQLITE_PRAGMAS, SqliteKysely } from "@event-service/core/sqlite";
 *
 * const sqlite = new Database("events.sqlite");
 * for (const pragma of SQLITE_PRAGMAS) sqlite.pragma(pragma);
 * const storage = createSqlStorage({ db: new SqliteKysely(sqlite) });
 */
export { SQLITE_PRAGMAS } from "./sql/dialect.ts";
export { createSqliteDialect, SqliteKysely } from "./sql/sqlite-driver.ts";
export type { SqliteDatabase, SqliteDialectOptions, SqliteStatement } from "./sql/sqlite-driver.ts";
