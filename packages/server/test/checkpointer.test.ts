/**
 * The SQLite checkpointer thread: the log is copied into the database file off the event loop,
 * commits only checkpoint at the backstop, and closing the database ends the thread.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { sql } from "kysely";
// The built package: the thread runs its built module (`npm test` builds first).
import { openSqlite } from "../dist/index.js";

/** `BACKSTOP_PAGES` of checkpointer.ts. */
const BACKSTOP_PAGES = 10_000;

const dir = mkdtempSync(join(tmpdir(), "event-service-checkpointer-"));
after(() => rmSync(dir, { recursive: true, force: true }));

async function until(what: string, condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    assert.ok(Date.now() < deadline, `gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test("the thread copies the log into the file while commits leave it to the thread; closing ends the thread and the log", async () => {
  const path = join(dir, "store.sqlite");
  const db = openSqlite(path);
  const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db);
  assert.equal(rows[0]!.wal_autocheckpoint, BACKSTOP_PAGES);
  await sql`create table notes (id integer primary key, text text not null)`.execute(db);
  const before = statSync(path).size;
  // 2,000 commits of 2 KB each: about 2,000 pages of log, past SQLite's own 1,000 but short of the backstop.
  for (let i = 0; i < 2_000; i++) await sql`insert into notes (text) values (${"x".repeat(2_000)})`.execute(db);
  await until("the file to take the log's pages", () => statSync(path).size > before + 3_000_000);
  await db.destroy();
  // The thread's connection was the last: closing, it checkpointed and removed the log.
  await until("the log to be removed", () => !existsSync(`${path}-wal`));
  const reopened = openSqlite(path);
  const { rows: count } = await sql<{ n: number }>`select count(*) as n from notes`.execute(reopened);
  assert.equal(count[0]!.n, 2_000);
  await reopened.destroy();
});

test("an in-memory database has no thread, and checkpoints stay SQLite's", async () => {
  const db = openSqlite(":memory:");
  const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db);
  assert.equal(rows[0]!.wal_autocheckpoint, 1_000);
  await db.destroy();
});
