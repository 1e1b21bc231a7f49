/**
 * The dialect object: which database a kysely instance speaks, and how each database's errors
 * are read (store unavailable, unique violations), on real errors of every backend.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import BetterSqlite from "better-sqlite3";
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  Kysely,
  PostgresAdapter,
  PostgresDialect,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteDialect,
  sql,
} from "kysely";
import pg from "pg";
import { ServiceError } from "../src/errors.ts";
import type { Database } from "../src/sql/database.ts";
import { dialectOf, POSTGRES, SQLITE, transactionStatus, type UniqueIndex } from "../src/sql/dialect.ts";
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
        const account = {
          id: "acct_1",
          name: "Acme",
          per_minute: null,
          per_day: null,
          created_at: "2026-01-01T00:00:00.000Z",
        };
        await database.db.insertInto("accounts").values(account).execute();
        const violation = await database.db
          .insertInto("accounts")
          .values({ ...account, id: "acct_2" })
          .execute()
          .then(
            () => null,
            (error: unknown) => error,
          );
        assert.ok(violation, "the second insert fails");
        assert.equal(dialect.isUniqueViolation(violation, ACCOUNT_NAME), true);
        assert.equal(dialect.isUniqueViolation(violation, WEBHOOK_URL), false);
        assert.equal(dialect.storeFault(violation), null);
        const syntax = await sql`select * from no_such_table`.execute(database.db).then(
          () => null,
          (error: unknown) => error,
        );
        assert.equal(dialect.storeFault(syntax), null);
        // The sort key of the name sorts: ASCII letters folded, nothing else, code point order.
        const names = ["banana", "Äpfel", "apple", "Zebra", "a-b", "ab", "äpfel", "_x"];
        const { rows } = await sql<{ name: string }>`select name from (${sql.join(
          names.map((name) => sql`select ${name} as name`),
          sql` union all `,
        )}) as t order by ${dialect.asciiCaseFold(sql.ref("name"))}, name`.execute(database.db);
        assert.deepEqual(
          rows.map((row) => row.name),
          ["_x", "a-b", "ab", "apple", "banana", "Zebra", "Äpfel", "äpfel"],
        );
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
      ECONNREFUSED: "unreachable",
      ECONNRESET: "unreachable",
      ETIMEDOUT: "unreachable",
      "57P01": "unreachable",
      "57P02": "unreachable",
      "57P03": "unreachable",
      "08006": "unreachable",
      "08001": "unreachable",
      "08P01": "unreachable",
      "57014": "timeout",
      "55P03": "timeout",
      "25P03": "timeout",
      "53300": "overloaded",
      "53200": "overloaded",
      "53100": "disk_full",
      "25006": "read_only",
      "58030": "io_error",
    };
    for (const [code, fault] of Object.entries(faults)) assert.equal(POSTGRES.storeFault(error(code)), fault, code);
    assert.equal(POSTGRES.storeFault(new Error("Connection terminated unexpectedly")), "unreachable");
    assert.equal(POSTGRES.storeFault(new Error("timeout exceeded when trying to connect")), "timeout");
    assert.equal(POSTGRES.storeFault(new AggregateError([error("ECONNREFUSED")], "")), "unreachable");
    for (const code of ["23505", "23503", "42P01", "42703", "22P02", "40001", "40P01"]) {
      assert.equal(POSTGRES.storeFault(error(code)), null, code);
    }
    const sqlite: Record<string, string> = {
      SQLITE_BUSY: "timeout",
      SQLITE_BUSY_SNAPSHOT: "timeout",
      SQLITE_FULL: "disk_full",
      SQLITE_READONLY: "read_only",
      SQLITE_READONLY_DBMOVED: "read_only",
      SQLITE_IOERR_WRITE: "io_error",
      SQLITE_CANTOPEN: "unreachable",
    };
    for (const [code, fault] of Object.entries(sqlite)) assert.equal(SQLITE.storeFault(error(code)), fault, code);
    for (const code of ["SQLITE_CONSTRAINT_UNIQUE", "SQLITE_ERROR", "SQLITE_MISMATCH"])
      assert.equal(SQLITE.storeFault(error(code)), null, code);
    assert.equal(
      POSTGRES.isUniqueViolation(Object.assign(error("23505"), { constraint: "webhooks_account_url" }), WEBHOOK_URL),
      true,
    );
    assert.equal(
      POSTGRES.isUniqueViolation(Object.assign(error("23505"), { constraint: "accounts_name_key" }), WEBHOOK_URL),
      false,
    );
  });

  test("a PostgreSQL server that cannot be reached: every storage call is 503 SERVICE_UNAVAILABLE", async () => {
    // Nothing listens on port 1.
    const pool = new pg.Pool({
      connectionString: "postgres://es:es@127.0.0.1:1/none",
      max: 1,
      connectionTimeoutMillis: 2000,
    });
    const storage = createSqlStorage({ db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }) });
    try {
      for (const call of [
        () => storage.ping(),
        () => storage.authenticate("x"),
        () =>
          storage.claimIdempotencyKey({
            accountId: "a",
            key: "k",
            requestHash: "h",
            now: "",
            expiresAt: "",
            staleBefore: "",
          }),
      ]) {
        await assert.rejects(
          call(),
          (thrown: unknown) =>
            ServiceError.is(thrown) && thrown.code === "SERVICE_UNAVAILABLE" && thrown.status === 503,
        );
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

  test("a COMMIT whose answer is lost: a write that committed is reported done, with its result; one that did not, failed", {
    skip: postgres ? false : "TEST_DATABASE_URL is not set",
  }, async () => {
    const { db, state } = losingCommits(process.env.TEST_DATABASE_URL!);
    const table = `es_commit_${Date.now().toString(36)}`;
    const rows = async () =>
      (await sql<{ id: number }>`select id from ${sql.table(table)} order by id`.execute(db)).rows.map((row) => row.id);
    await sql`create table ${sql.table(table)} (id int)`.execute(db);
    try {
      const insert = (id: number) =>
        POSTGRES.writeTransaction(db, async (trx) => {
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
      await assert.rejects(
        POSTGRES.writeTransaction(db, async (trx) => (await sql`select 1`.execute(trx)).rows),
        /Connection terminated unexpectedly/,
      );
    } finally {
      await sql`drop table if exists ${sql.table(table)}`.execute(db);
      await db.destroy();
    }
  });
  test("a lost COMMIT's id looked up after a crash: one the server never logged, or one another transaction holds since, is not taken as committed", {
    skip: postgres ? false : "TEST_DATABASE_URL is not set",
  }, async () => {
    const database = await postgres!.open();
    try {
      const { rows } = await sql<{
        xid: string;
        started: string;
      }>`select pg_current_xact_id()::text as xid, pg_postmaster_start_time()::text as started`.execute(database.db);
      const { xid, started } = rows[0]!;
      // Committed (its own statement), on the same server: what it is.
      assert.equal(await transactionStatus(database.db, xid, started), "committed");
      // Beyond the server's next id (a crash lost it from the log): aborted at once, not polled
      // until a new transaction takes the id and commits.
      const future = String(BigInt(xid) + 1_000_000n);
      const began = Date.now();
      assert.equal(await transactionStatus(database.db, future, started), "aborted");
      assert.ok(Date.now() - began < 1_000, "answered at once");
      // An id in progress on a server that restarted since is another transaction's.
      await database.db.transaction().execute(async (trx) => {
        const held = (await sql<{ xid: string }>`select pg_current_xact_id()::text as xid`.execute(trx)).rows[0]!.xid;
        assert.equal(await transactionStatus(database.db, held, "2000-01-01 00:00:00+00"), "aborted");
      });
    } finally {
      await database.drop();
    }
  });
  test("a transaction aborted by a serialization failure runs again, a bounded number of times; other errors are not retried", {
    skip: postgres ? false : "TEST_DATABASE_URL is not set",
  }, async () => {
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
      await assert.rejects(
        run(() => error("40P01")),
        { code: "40P01" },
      );
      assert.equal(runs, 5);
      await assert.rejects(
        run(() => error("23505")),
        { code: "23505" },
      );
      assert.equal(runs, 1);
    } finally {
      await database.drop();
    }
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
          const due = eb.and([eb("status", "=", "pending"), eb("next_attempt_at", "<=", "2041-01-01")]);
          return check ? SQLITE.checkOnly(due) : due;
        })
        .compile();
      return (sqlite.prepare(`explain query plan ${query.sql}`).all(...query.parameters) as Array<{ detail: string }>)
        .map((row) => row.detail)
        .join("; ");
    };
    assert.match(guarded(true), /USING INDEX sqlite_autoindex_webhook_deliveries_1 \(id=\?\)/);
    // Without it, SQLite (no statistics) walks the due index: the reason for checkOnly.
    assert.match(guarded(false), /webhook_deliveries_due_claim/);
    // PostgreSQL plans from statistics: the condition is left as it is.
    const condition = sql<boolean>`true`;
    assert.equal(POSTGRES.checkOnly(condition), condition);
  });
});
