/**
 * Core's SQLite dialect (`createSqliteDialect`): kysely's Driver and DatabaseConnection on
 * better-sqlite3, with its statement cache, rows built from raw arrays, transactions and their
 * isolation, errors and closing; and precompiled statements, typed against the schema.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import BetterSqlite from "better-sqlite3";
import { Kysely, SqliteDialect, sql } from "kysely";
import type { Database } from "../src/sql/database.ts";
import { dialectOf, SQLITE, SQLITE_PRAGMAS } from "../src/sql/dialect.ts";
import { type Param, params, precompile } from "../src/sql/precompiled.ts";
import { createSqliteDialect, type SqliteDatabase, SqliteKysely } from "../src/sql/sqlite-driver.ts";
import { createSqlStorage } from "../src/sql/sql-storage.ts";

interface Notes {
  notes: { id: string; text: string | null };
}

/** A database whose `prepare` calls are recorded, on SQLite in memory or in the file `path`. */
function counted(path = ":memory:") {
  const sqlite = new BetterSqlite(path);
  for (const pragma of SQLITE_PRAGMAS) sqlite.pragma(pragma);
  const prepared: string[] = [];
  const database: SqliteDatabase = {
    prepare(text) {
      prepared.push(text);
      return sqlite.prepare(text);
    },
    close: () => sqlite.close(),
  };
  return { sqlite, database, prepared };
}

async function notes(db: Kysely<Notes>) {
  await db.schema
    .createTable("notes")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("text", "text")
    .execute();
}

/** A temporary folder for a database file, removed by `done()`. */
function folder() {
  const dir = mkdtempSync(join(tmpdir(), "event-service-driver-"));
  return { file: join(dir, "db.sqlite"), done: () => rmSync(dir, { recursive: true, force: true }) };
}

describe("SQLite driver: statements", () => {
  test("a statement is prepared once per SQL text and reused", async () => {
    const { database, prepared } = counted();
    const db = new Kysely<Notes>({ dialect: createSqliteDialect(database) });
    await notes(db);
    prepared.length = 0;
    for (const id of ["n1", "n2", "n3"])
      await db
        .insertInto("notes")
        .values({ id, text: `note ${id}` })
        .execute();
    for (const id of ["n1", "n2", "n3"]) await db.selectFrom("notes").selectAll().where("id", "=", id).execute();
    assert.deepEqual(prepared, [
      'insert into "notes" ("id", "text") values (?, ?)',
      'select * from "notes" where "id" = ?',
    ]);
    await db.destroy();
  });

  test("the cache keeps at most statementCacheSize statements, dropping the least recently used", async () => {
    const { database, prepared } = counted();
    const db = new Kysely<Notes>({ dialect: createSqliteDialect(database, { statementCacheSize: 2 }) });
    const run = (n: number) => sql.raw(`select ${n} as n`).execute(db);
    for (const n of [1, 2, 1, 3]) await run(n);
    assert.deepEqual(
      prepared,
      ["select 1 as n", "select 2 as n", "select 3 as n"],
      "1 was used after 2: 2 made way for 3",
    );
    await run(1);
    assert.equal(prepared.length, 3, "1 is still cached");
    await run(2);
    assert.deepEqual(prepared.slice(3), ["select 2 as n"], "2 was dropped and is prepared again");
    assert.throws(() => createSqliteDialect(database, { statementCacheSize: 0 }), RangeError);
    await db.destroy();
  });

  test("rows are objects keyed by the statement's column names: aliases, a repeated name keeps its last value, as better-sqlite3's objects do", async () => {
    const { sqlite, database } = counted();
    const db = new Kysely<Notes>({ dialect: createSqliteDialect(database) });
    const select = `select 1 as "n", 'a' as "s", null as "z", 2.5 as "f", x'00ff' as "b", 9007199254740993 as "big", 3 as "n"`;
    const { rows } = await sql.raw(select).execute(db);
    assert.deepEqual(rows, sqlite.prepare(select).all());
    assert.deepEqual(rows, [{ n: 3, s: "a", z: null, f: 2.5, b: Buffer.from([0, 255]), big: 9007199254740992 }]);
    assert.deepEqual(Object.keys(rows[0] as object), ["n", "s", "z", "f", "b", "big"]);
    // A join with two tables' columns of the same name: the last one, as better-sqlite3 gives it.
    await notes(db);
    await db
      .insertInto("notes")
      .values([
        { id: "n1", text: "one" },
        { id: "n2", text: "two" },
      ])
      .execute();
    const joined = await db
      .selectFrom("notes as a")
      .innerJoin("notes as b", (join) => join.on("b.id", "=", "n2"))
      .selectAll()
      .where("a.id", "=", "n1")
      .execute();
    assert.deepEqual(joined, [{ id: "n2", text: "two" }]);
    const aliased = await db.selectFrom("notes").select(["id as key", "text as body"]).orderBy("id").execute();
    assert.deepEqual(aliased, [
      { key: "n1", body: "one" },
      { key: "n2", body: "two" },
    ]);
    await db.destroy();
  });

  test("a __proto__ column is an own key, never the prototype", async () => {
    const { database } = counted();
    const db = new Kysely<Notes>({ dialect: createSqliteDialect(database) });
    const [row] = (await sql.raw(`select 'p' as "__proto__", 1 as "n"`).execute(db)).rows as Array<
      Record<string, unknown>
    >;
    assert.equal(Object.getPrototypeOf(row), Object.prototype);
    assert.deepEqual(Object.entries(row!), [
      ["__proto__", "p"],
      ["n", 1],
    ]);
    await db.destroy();
  });

  test("a cached select * takes the columns a migration adds", async () => {
    const { sqlite, database } = counted();
    const db = new Kysely<Notes>({ dialect: createSqliteDialect(database) });
    await notes(db);
    await db.insertInto("notes").values({ id: "n1", text: "kept" }).execute();
    assert.deepEqual(await db.selectFrom("notes").selectAll().execute(), [{ id: "n1", text: "kept" }]);
    // SQLite prepares the cached statement again on its next run: wider rows than it was built for.
    sqlite.exec("alter table notes add column extra text default 'x'");
    assert.deepEqual(await db.selectFrom("notes").selectAll().execute(), [{ id: "n1", text: "kept", extra: "x" }]);
    await db.destroy();
  });

  test("writes report their changes; a write with returning is a reader and gives its rows", async () => {
    const { database } = counted();
    const db = new Kysely<Notes>({ dialect: createSqliteDialect(database) });
    await notes(db);
    const inserted = await db
      .insertInto("notes")
      .values([
        { id: "n1", text: "a" },
        { id: "n2", text: "b" },
      ])
      .executeTakeFirstOrThrow();
    assert.equal(inserted.numInsertedOrUpdatedRows, 2n);
    assert.equal(inserted.insertId, 2n);
    const updated = await db.updateTable("notes").set({ text: "c" }).executeTakeFirstOrThrow();
    assert.equal(updated.numUpdatedRows, 2n);
    const returned = await db
      .updateTable("notes")
      .set({ text: "d" })
      .where("id", "=", "n2")
      .returning(["id", "text"])
      .execute();
    assert.deepEqual(returned, [{ id: "n2", text: "d" }]);
    const streamed: unknown[] = [];
    for await (const row of db.selectFrom("notes").select("id").orderBy("id").stream()) streamed.push(row);
    assert.deepEqual(streamed, [{ id: "n1" }, { id: "n2" }]);
    await db.destroy();
  });

  test("the dialect is detected as SQLite, as kysely's own SqliteDialect is", () => {
    const { database } = counted();
    assert.equal(dialectOf(new Kysely<Database>({ dialect: createSqliteDialect(database) })), SQLITE);
    assert.equal(
      dialectOf(new Kysely<Database>({ dialect: new SqliteDialect({ database: new BetterSqlite(":memory:") }) })),
      SQLITE,
    );
  });
});

describe("SQLite driver: transactions", () => {
  test("db.transaction() takes the write lock up front (BEGIN IMMEDIATE), a read-only one does not", async () => {
    const { file, done } = folder();
    const { database } = counted(file);
    const db = new Kysely<Notes>({ dialect: createSqliteDialect(database) });
    await notes(db);
    const other = new BetterSqlite(file, { timeout: 0 });
    try {
      await db.transaction().execute(async () => {
        // Nothing written yet, and another connection already cannot write.
        assert.throws(() => other.exec("begin immediate"), { code: "SQLITE_BUSY" });
      });
      await db
        .transaction()
        .setAccessMode("read only")
        .execute(async (trx) => {
          await trx.selectFrom("notes").selectAll().execute();
          other.exec("begin immediate");
          other.exec("rollback");
        });
    } finally {
      other.close();
      await db.destroy();
      done();
    }
  });

  for (const [name, open, read] of [
    [
      "a query built on a kysely instance of the dialect",
      (database: SqliteDatabase) => new Kysely<Database>({ dialect: createSqliteDialect(database) }),
      (db: Kysely<Database>, id: string) => db.selectFrom("accounts").select("id").where("id", "=", id).execute(),
    ],
    [
      "SqliteKysely's executeQuery, which runs at once when the connection is free",
      (database: SqliteDatabase) => new SqliteKysely<Database>(database),
      async (db: Kysely<Database>, id: string) =>
        (await db.executeQuery(db.selectFrom("accounts").select("id").where("id", "=", id))).rows,
    ],
  ] as const) {
    test(`a read waits for an open write transaction on the same instance: it sees what the transaction committed, never what it rolled back (${name})`, async () => {
      const db = open(counted().database);
      await createSqlStorage({ db }).migrate();
      const account = (id: string) => ({
        id,
        name: id,
        per_minute: null,
        per_day: null,
        created_at: "2026-01-01T00:00:00.000Z",
      });
      for (const outcome of ["commit", "rollback"] as const) {
        const id = `acct_${outcome}`;
        let during: Promise<unknown[]> | undefined;
        let settled = false;
        const transaction = SQLITE.writeTransaction(db, async (trx) => {
          await trx.insertInto("accounts").values(account(id)).execute();
          during = read(db, id);
          void during.then(() => (settled = true));
          await new Promise((resolve) => setTimeout(resolve, 10));
          assert.equal(settled, false, "the read waits for the transaction to end");
          if (outcome === "rollback") throw new Error("roll back");
        });
        if (outcome === "rollback") await assert.rejects(transaction, /roll back/);
        else await transaction;
        assert.deepEqual(await during, outcome === "commit" ? [{ id }] : []);
      }
      await db.destroy();
    });
  }

  test("SqliteKysely's executeQuery runs a query on a free connection before returning, and a failing one rejects and frees it", async () => {
    const { sqlite, database } = counted();
    const db = new SqliteKysely<Notes>(database);
    await notes(db);
    const running = db.executeQuery(db.insertInto("notes").values({ id: "n1", text: "now" }));
    // Through kysely's executor the insert would wait for the connection's hand-off (promises).
    assert.deepEqual(sqlite.prepare("select id, text from notes").all(), [{ id: "n1", text: "now" }]);
    assert.equal((await running).numAffectedRows, 1n);
    const duplicate = await db.executeQuery(db.insertInto("notes").values({ id: "n1", text: "again" })).then(
      () => null,
      (error: unknown) => error,
    );
    assert.equal((duplicate as { code?: string }).code, "SQLITE_CONSTRAINT_PRIMARYKEY");
    assert.deepEqual((await db.executeQuery(db.selectFrom("notes").select(["id", "text"]))).rows, [
      { id: "n1", text: "now" },
    ]);
    // A plain kysely instance derived from it (a plugin) still runs through the dialect.
    assert.deepEqual(await db.withoutPlugins().selectFrom("notes").select("id").execute(), [{ id: "n1" }]);
    assert.equal(dialectOf(db as unknown as Kysely<Database>), SQLITE);
    await db.destroy();
    assert.equal(sqlite.open, false);
    const closed = await db.executeQuery(db.selectFrom("notes").select("id")).then(
      () => null,
      (error: unknown) => error,
    );
    assert.equal(SQLITE.storeFault(closed), "unreachable");
  });

  test("another connection to the file reads the last committed state while a write transaction is open, without waiting (WAL)", async () => {
    const { file, done } = folder();
    const writer = new Kysely<Database>({ dialect: createSqliteDialect(counted(file).database) });
    const reader = new Kysely<Notes>({ dialect: createSqliteDialect(counted(file).database) });
    try {
      await notes(reader);
      await reader.insertInto("notes").values({ id: "n1", text: "before" }).execute();
      await SQLITE.writeTransaction(writer, async (trx) => {
        await sql`update notes set text = 'during' where id = 'n1'`.execute(trx);
        assert.deepEqual(await reader.selectFrom("notes").select("text").execute(), [{ text: "before" }]);
      });
      assert.deepEqual(await reader.selectFrom("notes").select("text").execute(), [{ text: "during" }]);
    } finally {
      await reader.destroy();
      await writer.destroy();
      done();
    }
  });

  test("savepoints roll back part of a transaction", async () => {
    const { database } = counted();
    const db = new Kysely<Notes>({ dialect: createSqliteDialect(database) });
    await notes(db);
    const trx = await db.startTransaction().execute();
    await trx.insertInto("notes").values({ id: "n1", text: "kept" }).execute();
    const inner = await trx.savepoint("inner").execute();
    await inner.insertInto("notes").values({ id: "n2", text: "dropped" }).execute();
    await inner.rollbackToSavepoint("inner").execute();
    await trx.commit().execute();
    assert.deepEqual(await db.selectFrom("notes").select("id").execute(), [{ id: "n1" }]);
    await db.destroy();
  });
});

describe("SQLite driver: errors and closing", () => {
  test("a driver error is a rejection with better-sqlite3's code, the connection is free again, and unique violations are recognised", async () => {
    const db = new Kysely<Database>({ dialect: createSqliteDialect(counted().database) });
    await createSqlStorage({ db }).migrate();
    const account = {
      id: "acct_1",
      name: "Acme",
      per_minute: null,
      per_day: null,
      created_at: "2026-01-01T00:00:00.000Z",
    };
    await db.insertInto("accounts").values(account).execute();
    const violation = await db
      .insertInto("accounts")
      .values({ ...account, id: "acct_2" })
      .execute()
      .then(
        () => null,
        (error: unknown) => error,
      );
    assert.equal((violation as { code?: string }).code, "SQLITE_CONSTRAINT_UNIQUE");
    assert.equal(
      SQLITE.isUniqueViolation(violation, { name: "accounts_name_key", table: "accounts", columns: ["name"] }),
      true,
    );
    assert.equal(SQLITE.storeFault(violation), null);
    await assert.rejects(sql`select * from no_such_table`.execute(db), /no such table/);
    assert.deepEqual(await db.selectFrom("accounts").select("id").execute(), [{ id: "acct_1" }]);
    await db.destroy();
  });

  test("destroying the kysely instance closes the database; later queries fail as a store that cannot serve", async () => {
    const { sqlite, database } = counted();
    const db = new Kysely<Notes>({ dialect: createSqliteDialect(database) });
    await sql`select 1`.execute(db);
    await db.destroy();
    assert.equal(sqlite.open, false);
    const error = await sql`select 1`.execute(db).then(
      () => null,
      (caught: unknown) => caught,
    );
    assert.equal(SQLITE.storeFault(error), "unreachable");
  });

  test("a database closed under the driver fails its queries as unreachable", async () => {
    const { sqlite, database } = counted();
    const db = new Kysely<Notes>({ dialect: createSqliteDialect(database) });
    await sql`select 1`.execute(db);
    sqlite.close();
    const error = await sql`select 1`.execute(db).then(
      () => null,
      (caught: unknown) => caught,
    );
    assert.equal(SQLITE.storeFault(error), "unreachable");
  });
});

describe("precompiled statements", () => {
  for (const [name, open] of [
    ["createSqliteDialect", () => new Kysely<Database>({ dialect: createSqliteDialect(new BetterSqlite(":memory:")) })],
    ["SqliteKysely", () => new SqliteKysely<Database>(new BetterSqlite(":memory:"))],
    [
      "kysely's SqliteDialect",
      () => new Kysely<Database>({ dialect: new SqliteDialect({ database: new BetterSqlite(":memory:") }) }),
    ],
  ] as const) {
    test(`run with typed, named parameters, on the instance or a transaction (${name})`, async () => {
      const db = open();
      await createSqlStorage({ db }).migrate();
      const insert = precompile(db, (conn, param: Param<Database["accounts"]>) =>
        conn.insertInto("accounts").values(params(param, ["id", "name", "per_minute", "per_day", "created_at"])),
      );
      // One parameter used twice, and a value compiled in.
      const byIdOrName = precompile(db, (conn, param: Param<{ key: string }>) =>
        conn
          .selectFrom("accounts")
          .select(["id", "name", "per_minute"])
          .where((eb) => eb.or([eb("id", "=", param("key")), eb("name", "=", param("key"))]))
          .where("created_at", ">", "2000-01-01"),
      );
      await insert({
        id: "acct_1",
        name: "Acme",
        per_minute: 5,
        per_day: null,
        created_at: "2026-01-01T00:00:00.000Z",
      });
      await SQLITE.writeTransaction(db, (trx) =>
        insert(
          { id: "acct_2", name: "Globex", per_minute: null, per_day: 7, created_at: "2026-01-02T00:00:00.000Z" },
          trx,
        ),
      );
      const { rows } = await byIdOrName({ key: "Globex" });
      // The row type is the query's: `rows[0].per_minute` is `number | null`.
      const perMinute: number | null | undefined = rows[0]?.per_minute;
      assert.equal(perMinute, null);
      assert.deepEqual(rows, [{ id: "acct_2", name: "Globex", per_minute: null }]);
      assert.deepEqual((await byIdOrName({ key: "acct_1" })).rows, [{ id: "acct_1", name: "Acme", per_minute: 5 }]);
      // @ts-expect-error: a parameter the statement does not declare.
      await byIdOrName({ id: "acct_1" });
      // @ts-expect-error: a value of the wrong type.
      await byIdOrName({ key: 1 });
      // @ts-expect-error: a column the query does not select.
      void rows[0]?.per_day;
      precompile(db, (conn, param: Param<{ id: number }>) =>
        // @ts-expect-error: a number compared with a text column.
        conn.selectFrom("accounts").select("id").where("id", "=", param("id")),
      );
      await db.destroy();
    });
  }
});
