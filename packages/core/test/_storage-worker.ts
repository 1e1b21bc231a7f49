/**
 * A worker thread with a storage of its own on a SQLite file: its own connection, as another
 * process would have. better-sqlite3 is synchronous, so two connections in one thread would wait
 * for each other on the busy timeout; in threads of their own they really contend for the lock.
 *
 * Protocol (see `_parallel.ts`): `{ calls, go }` prepares calls and answers `"ready"`; the
 * worker then waits until `go[0]` turns 1 (all workers start together), runs its calls at once
 * and answers their outcomes in order. `"close"` closes the storage.
 */
import { parentPort, workerData } from "node:worker_threads";
import BetterSqlite from "better-sqlite3";
import { Kysely } from "kysely";
import type { Database } from "../src/sql/database.ts";
import { SQLITE_PRAGMAS } from "../src/sql/dialect.ts";
import { createSqliteDialect } from "../src/sql/sqlite-driver.ts";
import { createSqlStorage } from "../src/sql/sql-storage.ts";
import { type Call, type Outcome, runCall } from "./_parallel.ts";
import type { Storage } from "../src/storage.ts";

const { path } = workerData as { path: string };
const database = new BetterSqlite(path);
for (const pragma of SQLITE_PRAGMAS) database.pragma(pragma);
const storage: Storage = createSqlStorage({ db: new Kysely<Database>({ dialect: createSqliteDialect(database) }) });

parentPort!.on("message", async (message: { calls: Call[]; go: SharedArrayBuffer } | "close") => {
  if (message === "close") {
    await storage.close();
    parentPort!.close();
    return;
  }
  const go = new Int32Array(message.go);
  parentPort!.postMessage("ready");
  Atomics.wait(go, 0, 0);
  const outcomes: Outcome[] = await Promise.all(message.calls.map((call) => runCall(storage, call)));
  parentPort!.postMessage(outcomes);
});
