import Database from "better-sqlite3";
import type { Database as Schema } from "../src/sql/database.ts";
import { SQLITE_PRAGMAS } from "../src/sql/dialect.ts";
import { SqliteKysely } from "../src/sql/sqlite-driver.ts";
import { createSqlStorage } from "../src/sql/sql-storage.ts";
import type { Storage } from "../src/storage.ts";

/**
 * A migrated SQL storage on a SQLite file (or `:memory:`), set up as the server does.
 */
export async function sqliteStorage(path = ":memory:"): Promise<Storage> {
  const database = new Database(path);
  for (const pragma of SQLITE_PRAGMAS) database.pragma(pragma);
  const storage = createSqlStorage({ db: new SqliteKysely<Schema>(database) });
  await storage.migrate();
  return storage;
}
