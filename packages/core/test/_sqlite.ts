import Database from "better-sqlite3";
import type { Database as Schema } from "../src/sql/database.ts";
import { SQLITE_PRAGMAS } from "../src/sql/dialect.ts";
import { SqliteKysely } from "../src/sql/sqlite-driver.ts";
import { createSqlStorage } from "../src/sql/sql-storage.ts";
import type { Storage } from "../src/storage.ts";

let image: Promise<Buffer> | undefined;

/**
 * A SQLite database migrated once for this process, as its bytes (better-sqlite3's
 * `serialize()`): `sqliteStorage()` and the SQLite backends of `_backends.ts` open copies of it,
 * each the very database a fresh one is once migrated, for a fraction of the cost (most unit
 * tests open one). Made as `sqliteStorage` made them: the server's pragmas, then core's
 * `migrate()` on an empty database; `migrate()` still runs on each copy and finds it up to date.
 * `migrations.test.ts` migrates empty databases of its own.
 */
export function migratedSqliteImage(): Promise<Buffer> {
  image ??= (async () => {
    const database = new Database(":memory:");
    for (const pragma of SQLITE_PRAGMAS) database.pragma(pragma);
    const storage = createSqlStorage({ db: new SqliteKysely<Schema>(database) });
    try {
      await storage.migrate();
      return database.serialize();
    } finally {
      await storage.close();
    }
  })();
  return image;
}

/**
 * A migrated SQL storage on a SQLite file (or `:memory:`, a copy of `migratedSqliteImage()`),
 * set up as the server does.
 */
export async function sqliteStorage(path = ":memory:"): Promise<Storage> {
  const database = new Database(path === ":memory:" ? await migratedSqliteImage() : path);
  for (const pragma of SQLITE_PRAGMAS) database.pragma(pragma);
  const storage = createSqlStorage({ db: new SqliteKysely<Schema>(database) });
  await storage.migrate();
  return storage;
}
