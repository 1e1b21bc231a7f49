/**
 * The checkpointer thread of a SQLite file in WAL mode (see checkpointer.ts): a PASSIVE
 * checkpoint every `intervalMs` on a connection of its own. A message from the parent closes the
 * connection and ends the thread.
 */
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";

const { path, intervalMs } = workerData as { path: string; intervalMs: number };
const database = new Database(path, { fileMustExist: true });
const timer = setInterval(() => database.pragma("wal_checkpoint(PASSIVE)"), intervalMs);
parentPort!.once("message", () => {
  clearInterval(timer);
  database.close();
  parentPort!.close();
});
