/**
 * The storage backends the tests run on: SQLite in memory and in a file always, PostgreSQL when
 * `TEST_DATABASE_URL` names a server (an admin connection that may `CREATE DATABASE`). Every
 * `open()` gets a database of its own (a copy of one migrated once per process: in memory, in a
 * fresh file, or a PostgreSQL database with a random name), so test files and parallel test runs
 * never share one; `drop()` removes it.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import { after } from "node:test";
import pg from "pg";
import type { Database } from "../src/sql/database.ts";
import { SQLITE_PRAGMAS } from "../src/sql/dialect.ts";
import { createSqliteDialect } from "../src/sql/sqlite-driver.ts";
import { createSqlStorage, type SqlStorageOptions } from "../src/sql/sql-storage.ts";
import type { Storage } from "../src/storage.ts";
import { dropDatabase } from "./_drop-database.ts";
import { migratedSqliteImage } from "./_sqlite.ts";

export interface TestDatabase {
  storage: Storage;
  /** The kysely instance under `storage` (for tests that look at rows directly). */
  db: Kysely<Database>;
  /**
   * A second, independent storage on the same database (its own connection(s)): "another
   * process". Migrated already. For `sqlite-memory` there is no other connection to one
   * in-memory database: it returns `storage` itself. For `sqlite-file` it has its own
   * connection to the file, but the connections of one process take turns (see `sqliteKysely`).
   */
  another(options?: Omit<SqlStorageOptions, "db">): Promise<Storage>;
  /** Closes everything opened and drops the database (PG) or deletes the file. */
  drop(): Promise<void>;
}

export interface TestBackend {
  name: "sqlite-memory" | "sqlite-file" | "postgres" | "pglite";
  /** True when transactions from one process really run in parallel (PostgreSQL); SQLite serialises a process's work. */
  parallel: boolean;
  open(): Promise<TestDatabase>;
}

/** The connections of each PostgreSQL storage the tests open: small, since many test files share one server. */
const PG_POOL_SIZE = 4;

/** A lock shared by the SQLite connections of one test database (see `sqliteKysely`). */
function createTurns() {
  let last: Promise<void> = Promise.resolve();
  return {
    async take(): Promise<() => void> {
      let release!: () => void;
      const previous = last;
      last = new Promise<void>((resolve) => (release = resolve));
      await previous;
      return release;
    },
  };
}
type Turns = ReturnType<typeof createTurns>;

/**
 * A kysely instance on its own connection to the SQLite file `path`. better-sqlite3 is
 * synchronous: a second connection of the same process waiting for the write lock would block
 * the very thread that holds it (until the busy timeout). So the connections of one test
 * database take `turns`, one statement or transaction at a time, as kysely already makes the
 * users of one connection do; separate processes would wait on SQLite's own lock instead.
 * The file's connections are made as the server makes them (`createSqliteDialect`, core's own
 * driver); the in-memory database (`path`: a migrated database's bytes, `migratedSqliteImage()`)
 * uses kysely's plain `SqliteDialect`, so that both ways of embedding core run the suite.
 */
function sqliteKysely(path: string | Buffer, turns?: Turns): Kysely<Database> {
  const database = new BetterSqlite(path);
  for (const pragma of SQLITE_PRAGMAS) database.pragma(pragma);
  const dialect = typeof path !== "string" ? new SqliteDialect({ database }) : createSqliteDialect(database);
  if (!turns) return new Kysely<Database>({ dialect });
  const createDriver = dialect.createDriver.bind(dialect);
  dialect.createDriver = () => {
    const driver = createDriver();
    const held = new WeakMap<object, () => void>();
    const acquire = driver.acquireConnection.bind(driver);
    const release = driver.releaseConnection.bind(driver);
    driver.acquireConnection = async () => {
      const done = await turns.take();
      const connection = await acquire();
      held.set(connection, done);
      return connection;
    };
    driver.releaseConnection = async (connection) => {
      await release(connection);
      held.get(connection)?.();
      held.delete(connection);
    };
    return driver;
  };
  return new Kysely<Database>({ dialect });
}

async function migrated(db: Kysely<Database>, options: Omit<SqlStorageOptions, "db"> = {}): Promise<Storage> {
  const storage = createSqlStorage({ db, ...options });
  await storage.migrate();
  return storage;
}

/**
 * A database with one connection (SQLite in memory, PGlite): there is no other, so `another()`
 * is the same storage; `drop()` closes it (and then `closeMore`) once.
 */
function singleConnection(db: Kysely<Database>, storage: Storage, closeMore?: () => Promise<void>): TestDatabase {
  let dropped = false;
  return {
    storage,
    db,
    another: async () => storage,
    async drop() {
      if (dropped) return;
      dropped = true;
      await storage.close().catch(() => {});
      await closeMore?.();
    },
  };
}

/** Closes storages once each (closing twice would throw on some drivers). */
function closer() {
  const open = new Set<Storage>();
  return {
    add<S extends Storage>(storage: S): S {
      open.add(storage);
      return storage;
    },
    async closeAll() {
      const all = [...open];
      open.clear();
      await Promise.allSettled(all.map((storage) => storage.close()));
    },
  };
}

const sqliteMemory: TestBackend = {
  name: "sqlite-memory",
  parallel: false,
  async open() {
    const db = sqliteKysely(await migratedSqliteImage());
    return singleConnection(db, await migrated(db));
  },
};

const sqliteFile: TestBackend = {
  name: "sqlite-file",
  parallel: false,
  async open() {
    const dir = mkdtempSync(join(tmpdir(), "event-service-test-"));
    const path = join(dir, "events.sqlite");
    // A copy of the migrated database, as the PostgreSQL backend copies its template.
    writeFileSync(path, await migratedSqliteImage());
    const storages = closer();
    const turns = createTurns();
    const db = sqliteKysely(path, turns);
    const storage = storages.add(await migrated(db));
    return {
      storage,
      db,
      another: async (options) => storages.add(await migrated(sqliteKysely(path, turns), options)),
      async drop() {
        await storages.closeAll();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

/** A PostgreSQL URL with its database replaced by `name`. */
function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

function postgresKysely(url: string): Kysely<Database> {
  return new Kysely<Database>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: PG_POOL_SIZE }) }),
  });
}

/** Runs one statement on the admin connection of `TEST_DATABASE_URL`. */
async function admin(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * Drops the database `name` once its connections are gone. A pool's `end()` resolves when its
 * clients are taken out of it, while their sockets still close; a forced drop at that moment
 * terminates them, and a client that sees that error emits it with no one listening (an
 * uncaught exception in the test that opened it). So wait (up to 5 s) for them to leave first.
 */
async function dropWhenDisconnected(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await waitForDisconnection(client, name);
    await dropDatabase((statement) => client.query(statement), name);
  } finally {
    await client.end();
  }
}

/** Waits (up to 5 s) until no session is connected to the database `name`. */
async function waitForDisconnection(client: pg.Client, name: string): Promise<void> {
  for (let waited = 0; waited < 5_000; waited += 20) {
    const { rows } = await client.query("select count(*)::int as n from pg_stat_activity where datname = $1", [name]);
    if (rows[0].n === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * A database migrated once for this process, which every `open()` copies (`CREATE DATABASE ...
 * TEMPLATE`): the copy is the very database a fresh one is once migrated, for a fraction of the
 * cost (on the 2-core machine, some 50 ms to copy where creating and migrating took 300 to 450 ms,
 * and the storage contract alone opens 28). Its migration is core's `migrate()` on an empty
 * database, as before; `open()` still runs `migrate()` on the copy (which finds it up to date).
 * Made on the first `open()`, dropped after the process's last test (a root `after` hook); a run
 * killed first leaves it behind, as it would any database (CI drops the role's databases).
 */
function migratedTemplate(adminUrl: string) {
  let made: Promise<string> | undefined;
  after(async () => {
    if (!made) return;
    const name = await made.catch(() => undefined);
    if (name) await dropWhenDisconnected(adminUrl, name);
  });
  return () =>
    (made ??= (async () => {
      const name = `es_template_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
      await admin(adminUrl, `create database ${name}`);
      const storage = createSqlStorage({ db: postgresKysely(withDatabase(adminUrl, name)) });
      try {
        await storage.migrate();
      } finally {
        await storage.close();
      }
      // A template must have no session while it is copied: the pool's may still be closing.
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await waitForDisconnection(client, name);
      } finally {
        await client.end();
      }
      return name;
    })());
}

function postgres(adminUrl: string): TestBackend {
  const template = migratedTemplate(adminUrl);
  return {
    name: "postgres",
    parallel: true,
    async open() {
      const name = `es_test_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
      await admin(adminUrl, `create database ${name} template ${await template()}`);
      const url = withDatabase(adminUrl, name);
      const storages = closer();
      try {
        const db = postgresKysely(url);
        const storage = storages.add(await migrated(db));
        return {
          storage,
          db,
          another: async (options) => storages.add(await migrated(postgresKysely(url), options)),
          async drop() {
            await storages.closeAll();
            await dropWhenDisconnected(adminUrl, name);
          },
        };
      } catch (error) {
        await storages.closeAll();
        await admin(adminUrl, `drop database if exists ${name} with (force)`).catch(() => {});
        throw error;
      }
    },
  };
}

/**
 * PostgreSQL in process (PGlite: PostgreSQL compiled to WebAssembly, one connection, in memory),
 * so that the PostgreSQL dialect is tested on any machine, also without a server. Loaded only when
 * opened.
 */
let pgliteTemplate: Promise<import("@electric-sql/pglite").PGlite> | undefined;
const pglite: TestBackend = {
  name: "pglite",
  parallel: false,
  async open() {
    const [{ PGlite }, { PGliteDialect }] = await Promise.all([
      import("@electric-sql/pglite"),
      import("kysely-pglite-dialect"),
    ]);
    // Starting PGlite costs far more than copying one: every database is a clone of one migrated once.
    pgliteTemplate ??= (async () => {
      const template = new PGlite();
      await createSqlStorage({ db: new Kysely<Database>({ dialect: new PGliteDialect(template) }) }).migrate();
      return template;
    })();
    const client = (await (await pgliteTemplate).clone()) as InstanceType<typeof PGlite>;
    const db = new Kysely<Database>({ dialect: new PGliteDialect(client) });
    return singleConnection(db, await migrated(db), async () => {
      if (!client.closed) await client.close().catch(() => {});
    });
  },
};

const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;

/** Set to 1 to run on PGlite as well: PostgreSQL's dialect without a server, at the cost of a few seconds per database opened. */
const TEST_PGLITE = process.env.TEST_PGLITE === "1";

/**
 * Every backend available here: SQLite memory and file always; PGlite when TEST_PGLITE=1;
 * PostgreSQL when TEST_DATABASE_URL is set (a fresh database per open(), dropped by drop()).
 */
export const BACKENDS: TestBackend[] = [
  sqliteMemory,
  sqliteFile,
  ...(TEST_PGLITE ? [pglite] : []),
  ...(TEST_DATABASE_URL ? [postgres(TEST_DATABASE_URL)] : []),
];

let told = false;
/** Prints once why PostgreSQL is skipped when TEST_DATABASE_URL is unset. */
export function notePostgresSkipped(): void {
  if (told || TEST_DATABASE_URL) return;
  told = true;
  console.log(
    "PostgreSQL skipped: set TEST_DATABASE_URL=postgres://user:password@host:5432/postgres (a role that may CREATE DATABASE) to run these tests on PostgreSQL too (or TEST_PGLITE=1 for PostgreSQL in process, PGlite, slower).",
  );
}
notePostgresSkipped();
