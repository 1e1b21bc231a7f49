import { closeSync, mkdirSync, openSync } from "node:fs";
import { dirname, resolve } from "node:path";
import Database from "better-sqlite3";
import type { Database as Schema } from "@event-service/core";
import { SQLITE_PRAGMAS, SqliteKysely } from "@event-service/core/sqlite";
import type { Kysely } from "kysely";
import { startCheckpointer } from "./checkpointer.ts";

/** The SQLite file (or `:memory:`) that a `DATABASE_URL` names; throws for a PostgreSQL URL. */
export function sqlitePath(databaseUrl: string): string {
  if (databaseUrl === ":memory:") return databaseUrl;
  if (/^postgres(ql)?:\/\//i.test(databaseUrl))
    throw new Error("DATABASE_URL: a PostgreSQL URL is not a SQLite file (open it with openDatabase).");
  const path = databaseUrl.replace(/^(sqlite|file):(\/\/)?/, "");
  return resolve(path);
}

/** Options of {@link openSqlite}. */
export interface OpenSqliteOptions {
  /** Told if the checkpointer thread fails (the connection then checkpoints in its commits, as SQLite does by default). */
  onCheckpointerError?: (error: Error) => void;
}

/**
 * Opens the SQLite database of `databaseUrl` (creating its folder and file) with WAL, foreign
 * keys, a busy timeout and core's SQLite dialect (a prepared-statement cache, rows built from raw arrays), as a kysely
 * instance for `createSqlStorage` (`SqliteKysely`: reads that find the connection free run at once).
 * A file's checkpoints run in a thread of their own (`startCheckpointer`) until it is closed.
 * A folder it creates is `0700` and a file `0600` (SQLite gives its WAL and shared-memory files
 * the same mode): the file holds personal data and key hashes. Existing ones are left as they are.
 */
export function openSqlite(databaseUrl: string, options: OpenSqliteOptions = {}): Kysely<Schema> {
  const path = sqlitePath(databaseUrl);
  if (path !== ":memory:") {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    // "a": creates the file with this mode when missing, leaves an existing one untouched.
    closeSync(openSync(path, "a", 0o600));
  }
  const database = new Database(path);
  for (const pragma of SQLITE_PRAGMAS) applyPragma(database, pragma);
  if (path !== ":memory:") startCheckpointer(database, path, options.onCheckpointerError);
  return new SqliteKysely<Schema>(database);
}

/** How long a pragma refused with `SQLITE_BUSY` is retried: the busy timeout of the pragmas. */
const PRAGMA_BUSY_RETRY_MS = 5_000;
const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Applies one pragma. Switching a new file to WAL takes an exclusive lock, and SQLite refuses it
 * at once with `SQLITE_BUSY`, without waiting out the busy timeout (that could deadlock), while
 * another process is switching the same file: several processes starting together on a new file
 * (tried: about 1 in 250 of six at once) retry it, with short pauses, for up to 5 seconds.
 */
function applyPragma(database: Database.Database, pragma: string): void {
  const deadline = Date.now() + PRAGMA_BUSY_RETRY_MS;
  for (let wait = 5; ; wait = Math.min(wait * 2, 100)) {
    try {
      database.pragma(pragma);
      return;
    } catch (error) {
      if ((error as { code?: unknown }).code !== "SQLITE_BUSY" || Date.now() >= deadline) throw error;
      // Synchronous like the pragma itself: the store is being opened, nothing else runs yet.
      Atomics.wait(pause, 0, 0, wait);
    }
  }
}
