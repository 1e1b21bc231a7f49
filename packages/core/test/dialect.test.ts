/**
 * The dialect object: which database a kysely instance speaks, and how each database's errors
 * are read (store unavailable, unique violations), on real errors of every backend.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import BetterSqlite from "better-sqlite3";
import { type CompiledQuery, type DatabaseConnection, type Dialect, Kysely, PostgresAdapter, PostgresDialect, PostgresIntrospector, PostgresQueryCompiler, SqliteDialect, sql } from "kysely";
import pg from "pg";
import { ServiceError } from "../src/errors.ts";
import type { Database } from "../src/sql/database.ts";
import { createSqliteDialect, dialectOf, POSTGRES, SQLITE, type UniqueIndex } from "../src/sql/dialect.ts";
import { param, precompile } from "../src/sql/precompiled.ts";
import { createSqlStorage } from "../src/sql/sql-storage.ts";
import { BACKENDS } from "./_backends.ts";

const WEBHOOK_URL: UniqueIndex = { name: "webhooks_account_url", table: "webhooks", columns: ["account_id", "url"] };
const ACCOUNT_NAME: UniqueIndex = { name: "accounts_name_key", table: "accounts", columns: ["name"] };

for (const backend of BACKENDS) {
  describe(`dialect: ${backend.name}`, () => {
    test("detected from the kysely instance; unique violations recognised by index, and never read as the store unavailable", async () => {
      const database = await backend.open();
      try {
        const dialect = dialectOf(database.db);
        assert.equal(dialect, backend.name === "postgres" ? POSTGRES : SQLITE);
        const account = { id: "acct_1", name: "Acme", per_minute: null, per_day: null, created_at: "2026-01-01T00:00:00.000Z" };
        await database.db.insertInto("accounts").values(account).execute();
        const violation = await database.db.insertInto("accounts").values({ ...account, id: "acct_2" }).execute().then(() => null, (error: unknown) => error);
        assert.ok(violation, "the second insert fails");
        assert.equal(dialect.isUniqueViolation(violation, ACCOUNT_NAME), true);
        assert.equal(dialect.isUniqueViolation(violation, WEBHOOK_URL), false);
        assert.equal(dialect.storeFault(violation), null);
        const syntax = await sql`select * from no_such_table`.execute(database.db).then(() => null, (error: unknown) => error);
        assert.equal(dialect.storeFault(syntax), null);
        // The sort key of the name sorts: ASCII letters folded, nothing else, code point order.
        const names = ["banana", "Äpfel", "apple", "Zebra", "a-b", "ab", "äpfel", "_x"];
        const { rows } = await sql<{ name: string }>`select name from (${sql.join(names.map((name) => sql`select ${name} as name`), sql` union all `)}) as t order by ${dialect.asciiCaseFold(sql.ref("name"))}, name`.execute(database.db);
        assert.deepEqual(rows.map((row) => row.name), ["_x", "a-b", "ab", "apple", "banana", "Zebra", "Äpfel", "äpfel"]);
      } finally {
        await database.drop();
      }
    });
  });
}

describe("dialect: PostgreSQL errors", () => {
  const error = (code: string, message = "x") => Object.assign(new Error(message), { code });

  test("connection failures, shutdowns, timeouts, a full disk, a read-only server and exhausted resources are store faults; constraints and bugs are not", () => {
    const faults: Record<string, string> = {
      ECONNREFUSED: "unreachable", ECONNRESET: "unreachable", ETIMEDOUT: "unreachable", "57P01": "unreachable", "57P02": "unreachable", "57P03": "unreachable",
      "08006": "unreachable", "08001": "unreachable", "08P01": "unreachable", "57014": "timeout", "55P03": "timeout", "25P03": "timeout", "53300": "overloaded",
      "53200": "overloaded", "53100": "disk_full", "25006": "read_only", "58030": "io_error",
    };
    for (const [code, fault] of Object.entries(faults)) assert.equal(POSTGRES.storeFault(error(code)), fault, code);
    assert.equal(POSTGRES.storeFault(new Error("Connection terminated unexpectedly")), "unreachable");
    assert.equal(POSTGRES.storeFault(new Error("timeout exceeded when trying to connect")), "timeout");
    assert.equal(POSTGRES.storeFault(new AggregateError([error("ECONNREFUSED")], "")), "unreachable");
    for (const code of ["23505", "23503", "42P01", "42703", "22P02", "40001", "40P01"]) {
      assert.equal(POSTGRES.storeFault(error(code)), null, code);
    }
    const sqlite: Record<string, string> = {
      SQLITE_BUSY: "timeout", SQLITE_BUSY_SNAPSHOT: "timeout", SQLITE_FULL: "disk_full", SQLITE_READONLY: "read_only", SQLITE_READONLY_DBMOVED: "read_only",
      SQLITE_IOERR_WRITE: "io_error", SQLITE_CANTOPEN: "unreachable",
    };
    for (const [code, fault] of Object.entries(sqlite)) assert.equal(SQLITE.storeFault(error(code)), fault, code);
    for (const code of ["SQLITE_CONSTRAINT_UNIQUE", "SQLITE_ERROR", "SQLITE_MISMATCH"]) assert.equal(SQLITE.storeFault(error(code)), null, code);
    assert.equal(POSTGRES.isUniqueViolation(Object.assign(error("23505"), { constraint: "webhooks_account_url" }), WEBHOOK_URL), true);
    assert.equal(POSTGRES.isUniqueViolation(Object.assign(error("23505"), { constraint: "accounts_name_key" }), WEBHOOK_URL), false);
  });

  test("a PostgreSQL server that cannot be reached: every storage call is 503 SERVICE_UNAVAILABLE", async () => {
    // Nothing listens on port 1.
    const pool = new pg.Pool({ connectionString: "postgres://es:es@127.0.0.1:1/none", max: 1, connectionTimeoutMillis: 2000 });
    const storage = createSqlStorage({ db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }) });
    try {
      for (const call of [() => storage.ping(), () => storage.authenticate("x"), () => storage.claimIdempotencyKey({ accountId: "a", key: "k", requestHash: "h", now: "", expiresAt: "", staleBefore: "" })]) {
        await assert.rejects(call(), (thrown: unknown) => ServiceError.is(thrown) && thrown.code === "SERVICE_UNAVAILABLE" && thrown.status === 503);
      }
    } finally {
      await storage.close();
    }
  });

  const postgres = BACKENDS.find((backend) => backend.name === "postgres");

  /**
   * PostgreSQL through a driver whose COMMIT's answer is lost while `lose` is set: "after", the
   * server commits and the client hears the connection die; "before", the client fails before
   * COMMIT reaches the server. The adapter is PostgreSQL's, so the dialect is POSTGRES.
   */
  function losingCommits(url: string) {
    const state: { lose: "before" | "after" | null } = { lose: null };
    const inner = new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 2 }) });
    const lost = () => new Error("Connection terminated unexpectedly");
    const wrap = (connection: DatabaseConnection): DatabaseConnection => ({
      async executeQuery<R>(query: CompiledQuery) {
        if (state.lose && query.sql === "commit") {
          const when = state.lose;
          state.lose = null;
          if (when === "before") throw lost();
          await connection.executeQuery(query);
          throw lost();
        }
        return connection.executeQuery<R>(query);
      },
      streamQuery: (query, chunkSize) => connection.streamQuery(query, chunkSize),
    });
    const dialect: Dialect = {
      createAdapter: () => new PostgresAdapter(),
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
      createDriver() {
        const driver = inner.createDriver();
        // kysely hands back the connection it was given: the driver releases its own.
        const own = new WeakMap<DatabaseConnection, DatabaseConnection>();
        return {
          init: () => driver.init(),
          async acquireConnection() {
            const connection = await driver.acquireConnection();
            const wrapped = wrap(connection);
            own.set(wrapped, connection);
            return wrapped;
          },
          beginTransaction: (connection, settings) => driver.beginTransaction(own.get(connection)!, settings),
          commitTransaction: (connection) => driver.commitTransaction(own.get(connection)!),
          rollbackTransaction: (connection) => driver.rollbackTransaction(own.get(connection)!),
          releaseConnection: (connection) => driver.releaseConnection(own.get(connection)!),
          destroy: () => driver.destroy(),
        };
      },
    };
    return { db: new Kysely<Database>({ dialect }), state };
  }

  test("a COMMIT whose answer is lost: a write that committed is reported done, with its result; one that did not, failed", { skip: postgres ? false : "TEST_DATABASE_URL is not set" }, async () => {
    const { db, state } = losingCommits(process.env.TEST_DATABASE_URL!);
    const table = `es_commit_${Date.now().toString(36)}`;
    const rows = async () => (await sql<{ id: number }>`select id from ${sql.table(table)} order by id`.execute(db)).rows.map((row) => row.id);
    await sql`create table ${sql.table(table)} (id int)`.execute(db);
    try {
      const insert = (id: number) => POSTGRES.writeTransaction(db, async (trx) => {
        await sql`insert into ${sql.table(table)} values (${id})`.execute(trx);
        return `inserted ${id}`;
      });
      state.lose = "after";
      assert.equal(await insert(1), "inserted 1");
      state.lose = "before";
      await assert.rejects(insert(2), /Connection terminated unexpectedly/);
      assert.deepEqual(await rows(), [1]);
      // A transaction that wrote nothing has nothing to look up: the error stands.
      state.lose = "after";
      await assert.rejects(POSTGRES.writeTransaction(db, async (trx) => (await sql`select 1`.execute(trx)).rows), /Connection terminated unexpectedly/);
    } finally {
      await sql`drop table if exists ${sql.table(table)}`.execute(db);
      await db.destroy();
    }
  });
  test("a transaction aborted by a serialization failure runs again, a bounded number of times; other errors are not retried", { skip: postgres ? false : "TEST_DATABASE_URL is not set" }, async () => {
    const database = await postgres!.open();
    try {
      let runs = 0;
      const run = (fail: (run: number) => Error | null) => {
        runs = 0;
        return POSTGRES.writeTransaction(database.db, async (trx) => {
          runs += 1;
          await sql`select 1`.execute(trx);
          const failure = fail(runs);
          if (failure) throw failure;
          return runs;
        });
      };
      assert.equal(await run((n) => (n === 1 ? error("40001") : null)), 2);
      await assert.rejects(run(() => error("40P01")), { code: "40P01" });
      assert.equal(runs, 5);
      await assert.rejects(run(() => error("23505")), { code: "23505" });
      assert.equal(runs, 1);
    } finally {
      await database.drop();
    }
  });
});

describe("dialect: SQLite direct reads (createSqliteDialect)", () => {
  const open = (direct: boolean) => {
    const executed: string[] = [];
    const sqlite = new BetterSqlite(":memory:");
    const dialect = direct ? createSqliteDialect(sqlite) : new SqliteDialect({ database: sqlite });
    const db = new Kysely<{ notes: { id: string; text: string } }>({ dialect, log: (event) => void executed.push(event.query.sql) });
    return { db, executed, sqlite };
  };

  test("a precompiled read runs on the connection, past kysely's executor, while no transaction is open", async () => {
    const { db, executed, sqlite } = open(true);
    await db.schema.createTable("notes").addColumn("id", "text", (c) => c.primaryKey()).addColumn("text", "text").execute();
    await db.insertInto("notes").values({ id: "n1", text: "kept" }).execute();
    const note = precompile<{ id: string; text: string }, "id">(db, (conn) => conn.selectFrom("notes").selectAll().where("id", "=", param("id")));
    executed.length = 0;
    assert.deepEqual((await note({ id: "n1" })).rows, [{ id: "n1", text: "kept" }]);
    assert.deepEqual((await note({ id: "n2" })).rows, []);
    assert.deepEqual(executed, [], "kysely's executor (and its log) saw neither read");
    // A driver error reaches the caller as a rejection, as through kysely.
    sqlite.close();
    await assert.rejects(note({ id: "n1" }), /not open/);
  });

  test("a read while a transaction is open waits for it through kysely, and never sees what it rolls back", async () => {
    const { db, executed } = open(true);
    await db.schema.createTable("notes").addColumn("id", "text", (c) => c.primaryKey()).addColumn("text", "text").execute();
    const note = precompile<{ id: string; text: string }, "id">(db, (conn) => conn.selectFrom("notes").selectAll().where("id", "=", param("id")));
    let during: Promise<{ rows: unknown[] }> | undefined;
    let settledDuring = false;
    await db
      .transaction()
      .execute(async (trx) => {
        await trx.insertInto("notes").values({ id: "n1", text: "uncommitted" }).execute();
        executed.length = 0;
        during = note({ id: "n1" });
        void during.then(() => (settledDuring = true));
        await new Promise((resolve) => setTimeout(resolve, 10));
        assert.equal(settledDuring, false, "the read waits for the transaction");
        throw new Error("roll back");
      })
      .catch((error: Error) => assert.equal(error.message, "roll back"));
    assert.deepEqual((await during!).rows, [], "the rolled-back row is never read");
    assert.ok(executed.some((text) => text.startsWith('select * from "notes"')), "the read went through kysely");
  });

  test("a precompiled write still goes through kysely's executor", async () => {
    const { db, executed } = open(true);
    await db.schema.createTable("notes").addColumn("id", "text", (c) => c.primaryKey()).addColumn("text", "text").execute();
    const add = precompile<never, "id">(db, (conn) => conn.insertInto("notes").values({ id: param("id"), text: "added" }));
    executed.length = 0;
    await add({ id: "n1" });
    assert.equal(executed.length, 1);
    assert.deepEqual(await db.selectFrom("notes").selectAll().execute(), [{ id: "n1", text: "added" }]);
  });

  test("rows are built in JavaScript with the keys and values better-sqlite3 gives; a __proto__ column is a key, never the prototype", async () => {
    const { db, sqlite } = open(true);
    const select = `select 1 as "n", 'a' as "s", null as "z", 2.5 as "f", x'00ff' as "b", 3 as "n"`;
    // Through kysely (the statement cache), and on the direct path of a precompiled read.
    const viaKysely = (await sql.raw(select).execute(db)).rows;
    assert.deepEqual(viaKysely, sqlite.prepare(select).all());
    assert.deepEqual(viaKysely, [{ n: 3, s: "a", z: null, f: 2.5, b: Buffer.from([0, 255]) }], "the repeated n keeps its last value");
    const columns = ["n", "s", "z", "f", "b"] as const;
    const values = [1, "a", null, 2.5, Buffer.from([0, 255])];
    const precompiled = precompile<Record<string, unknown>, never>(db, (conn) => conn.selectNoFrom((eb) => columns.map((name, i) => eb.val(values[i]).as(name))));
    assert.deepEqual((await precompiled({})).rows, [{ n: 1, s: "a", z: null, f: 2.5, b: Buffer.from([0, 255]) }]);
    const [proto] = (await sql.raw(`select 'p' as "__proto__", 1 as "n"`).execute(db)).rows as Array<Record<string, unknown>>;
    assert.equal(Object.getPrototypeOf(proto), Object.prototype);
    assert.deepEqual(Object.entries(proto!), [["__proto__", "p"], ["n", 1]]);
  });

  test("a cached select * takes the columns a migration adds, on both paths", async () => {
    const { db, sqlite } = open(true);
    await db.schema.createTable("notes").addColumn("id", "text", (c) => c.primaryKey()).addColumn("text", "text").execute();
    await db.insertInto("notes").values({ id: "n1", text: "kept" }).execute();
    const note = precompile<Record<string, unknown>, "id">(db, (conn) => conn.selectFrom("notes").selectAll().where("id", "=", param("id")));
    assert.deepEqual(await db.selectFrom("notes").selectAll().execute(), [{ id: "n1", text: "kept" }]);
    assert.deepEqual((await note({ id: "n1" })).rows, [{ id: "n1", text: "kept" }]);
    // SQLite prepares both statements again on their next run: wider rows than they were built for.
    sqlite.exec("alter table notes add column extra text default 'x'");
    assert.deepEqual(await db.selectFrom("notes").selectAll().execute(), [{ id: "n1", text: "kept", extra: "x" }]);
    assert.deepEqual((await note({ id: "n1" })).rows, [{ id: "n1", text: "kept", extra: "x" }]);
  });

  test("a plain SqliteDialect reads through kysely's executor", async () => {
    const { db, executed } = open(false);
    await db.schema.createTable("notes").addColumn("id", "text", (c) => c.primaryKey()).addColumn("text", "text").execute();
    const note = precompile<{ id: string; text: string }, "id">(db, (conn) => conn.selectFrom("notes").selectAll().where("id", "=", param("id")));
    executed.length = 0;
    assert.deepEqual((await note({ id: "n1" })).rows, []);
    assert.equal(executed.length, 1);
  });
});

describe("dialect: checkOnly", () => {
  test("SQLite finds the claim's few deliveries by their keys, not by the due index that holds the whole backlog", async () => {
    const sqlite = new BetterSqlite(":memory:");
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
    await createSqlStorage({ db }).migrate();
    const guarded = (check: boolean) => {
      const query = db
        .updateTable("webhook_deliveries")
        .set({ lease_owner: "w" })
        .where("id", "in", ["d1", "d2", "d3", "d4"])
        .where((eb) => {
          const due = eb.and([eb("status", "=", "pending"), eb("next_attempt_at", "<=", "2030-01-01")]);
          return check ? SQLITE.checkOnly(due) : due;
        })
        .compile();
      return (sqlite.prepare(`explain query plan ${query.sql}`).all(...query.parameters) as Array<{ detail: string }>).map((row) => row.detail).join("; ");
    };
    assert.match(guarded(true), /USING INDEX sqlite_autoindex_webhook_deliveries_1 \(id=\?\)/);
    // Without it, SQLite (no statistics) walks the due index: the reason for checkOnly.
    assert.match(guarded(false), /webhook_deliveries_due_claim/);
    // PostgreSQL plans from statistics: the condition is left as it is.
    const condition = sql<boolean>`true`;
    assert.equal(POSTGRES.checkOnly(condition), condition);
  });
});
