/**
 * SQLite checkpoints off the event loop. A checkpoint copies the write-ahead log into the
 * database file and syncs both (fsync: milliseconds each); SQLite runs one inside the commit that
 * takes the log past 1,000 pages, which stalls the event loop under steady writes (figures in
 * docs/performance.md). A worker thread on a connection
 * of its own runs a PASSIVE checkpoint every {@link CHECKPOINT_INTERVAL_MS} instead: it never
 * takes the write lock, so commits go on meanwhile. SQLite's own checkpoint stays as a backstop at
 * {@link BACKSTOP_PAGES}: under steady writes the thread never catches up with the log's end, and
 * the log only starts over after a checkpoint that does, so the backstop's is what resets it
 * (cheaply: the thread has copied nearly everything already).
 */
import { Worker } from "node:worker_threads";
import type Database from "better-sqlite3";

/** How often the thread checkpoints: nothing to copy costs it a read of the log's index. */
export const CHECKPOINT_INTERVAL_MS = 100;
/** The log's length (pages of 4 KiB) at which a commit still checkpoints itself: about 40 MB. */
export const BACKSTOP_PAGES = 10_000;
/** The thread's module, built beside this one into dist (run from source, the thread fails and SQLite checkpoints as by default). */
const THREAD = new URL("./checkpoint-thread.js", import.meta.url);
/** SQLite's default: what a connection goes back to if the thread fails. */
const SQLITE_AUTOCHECKPOINT_PAGES = 1_000;

/**
 * Starts the checkpointer thread of the file `path`, opened in WAL mode by `database`, and
 * moves `database`'s own checkpoints to the backstop. The thread ends when `database` closes. If
 * it fails, `database` checkpoints as SQLite does by default again, and `onError` is told.
 */
export function startCheckpointer(
  database: Database.Database,
  path: string,
  onError: (error: Error) => void = () => {},
): void {
  const thread = new Worker(THREAD, { workerData: { path, intervalMs: CHECKPOINT_INTERVAL_MS } });
  // Never what keeps the process alive.
  thread.unref();
  thread.once("error", (error) => {
    if (database.open) database.pragma(`wal_autocheckpoint = ${SQLITE_AUTOCHECKPOINT_PAGES}`);
    onError(error);
  });
  database.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
  const close = database.close.bind(database);
  database.close = () => {
    // This connection first, then the thread's: closing alone, the thread's is the last one,
    // which checkpoints and removes the log (two closing at once could each leave it to the other).
    try {
      return close();
    } finally {
      thread.postMessage("close");
    }
  };
}
