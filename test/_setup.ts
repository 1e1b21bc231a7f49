/**
 * Shared helpers of the end-to-end tests: each suite starts the real server (the built CLI,
 * `event-service serve`) on a free port against a temporary SQLite file, or with
 * `E2E_BACKEND=postgres` against a fresh PostgreSQL database on `TEST_DATABASE_URL`'s server, and
 * talks to it over HTTP. Any 500 answer fails the test that got it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Database as Schema } from "@event-service/core";
import type { Kysely } from "kysely";
import { dropDatabase } from "../packages/core/test/_drop-database.ts";
import type pg from "pg";

/**
 * The database drivers, kysely and core, loaded when first used: a file that makes no key and
 * reads no database (and the runner, test/run.ts) does without them, some 0.9 s of CPU each
 * under tsx.
 */
const loadPg = async () => (await import("pg")).default;
const loadSqlite = async () => (await import("better-sqlite3")).default;

export const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));
export const CLI = join(ROOT, "packages/server/dist/cli.js");

/** TEST_DATABASE_URL: an admin connection string to a PostgreSQL server, or undefined (PostgreSQL tests then skip and say so). */
export const POSTGRES_URL: string | undefined = process.env.TEST_DATABASE_URL || undefined;

/** Why PostgreSQL tests skip: pass as `{ skip: POSTGRES_SKIP }` to a test or describe. */
export const POSTGRES_SKIP: string | false = POSTGRES_URL
  ? false
  : "PostgreSQL: skipped (set TEST_DATABASE_URL=postgres://user:password@host:5432/postgres)";

/** Which database the e2e suite runs on: "postgres" when E2E_BACKEND=postgres, else "sqlite". */
export const E2E_BACKEND: "sqlite" | "postgres" = process.env.E2E_BACKEND === "postgres" ? "postgres" : "sqlite";

if (E2E_BACKEND === "postgres" && !POSTGRES_URL)
  throw new Error("E2E_BACKEND=postgres needs TEST_DATABASE_URL (an admin connection string)");

/**
 * fetch in this process closes a connection once it has been idle for 100 ms, instead of keeping
 * it for the server's `Keep-Alive: timeout=5` (less a second). A server given SIGTERM keeps each
 * idle keep-alive connection open until the client closes it or its timeout runs out (so that a
 * request sent on it just then gets a 503, not a reset): with fetch's default every `stop()` after
 * a request waited some 3 s for nothing. Requests sent one after another still share a connection.
 * Node's fetch reads its dispatcher from this symbol (undici's setGlobalDispatcher sets it); the
 * dispatcher Node made is an undici Agent, whose class builds ours, so no undici package is needed.
 * The tests of keep-alive itself use agents and sockets of their own.
 */
const GLOBAL_DISPATCHER = Symbol.for("undici.globalDispatcher.1");
await fetch("data:,");
const NodeAgent = (globalThis as Record<symbol, { constructor: new (options: object) => unknown } | undefined>)[
  GLOBAL_DISPATCHER
]?.constructor;
if (typeof NodeAgent === "function")
  (globalThis as Record<symbol, unknown>)[GLOBAL_DISPATCHER] = new NodeAgent({
    keepAliveTimeout: 100,
    keepAliveMaxTimeout: 100,
  });

/**
 * Why a test skips in the PostgreSQL pass when the processes it starts get a database of their
 * own, not the pass's (`:memory:`, a SQLite file: configuration errors that stop `serve` before
 * it opens one): that pass would run exactly what the SQLite pass runs. Pass as `{ skip: ... }`.
 */
export const SQLITE_PASS_ONLY: string | false =
  E2E_BACKEND === "postgres" ? "no PostgreSQL database involved: the SQLite pass runs it" : false;

/** Runs `sql` on a short-lived admin connection to POSTGRES_URL's server. */
async function adminQuery(sql: string, values: unknown[] = []): Promise<pg.QueryResult> {
  if (!POSTGRES_URL) throw new Error("TEST_DATABASE_URL is not set");
  const client = new (await loadPg()).Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    return await client.query(sql, values);
  } finally {
    await client.end();
  }
}

/**
 * A fresh, empty PostgreSQL database with a random name on POSTGRES_URL's server: its URL, and
 * drop() (terminates its connections, drops it). Throws when POSTGRES_URL is unset.
 */
export async function freshPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  if (!POSTGRES_URL) throw new Error("freshPostgresDatabase needs TEST_DATABASE_URL");
  // A name of lower-case letters and digits only, so it needs no quoting beyond the double quotes.
  const name = `es_test_${randomBytes(8).toString("hex")}`;
  await adminQuery(`CREATE DATABASE "${name}"`);
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  let dropped: Promise<void> | undefined;
  return {
    url: url.toString(),
    drop: () =>
      (dropped ??= (async () => {
        // A server killed with SIGKILL leaves no session, but a pool being closed may still hold one for a moment.
        await dropDatabase(adminQuery, name);
      })()),
  };
}

/**
 * A database for one test on the e2e backend that outlives the servers started on it (pass its
 * `url` as `startServer({ database })`): a SQLite file in a temporary folder, or a fresh
 * PostgreSQL database. drop() removes it.
 */
export async function testDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  if (E2E_BACKEND === "postgres") return freshPostgresDatabase();
  const dir = mkdtempSync(join(tmpdir(), "event-service-db-"));
  return { url: join(dir, "events.sqlite"), drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

/** Whether a server's `database` is a PostgreSQL connection string (else a SQLite file). */
export const isPostgres = (database: string): boolean => /^postgres(ql)?:\/\//.test(database);

/**
 * Runs one statement on a server's database from outside the server (a SQLite file opened on its
 * own, or a PostgreSQL connection of its own) and returns the rows: for checks of what is stored
 * that the API does not show. `?` placeholders on both (numbered for PostgreSQL here). PostgreSQL
 * returns `bigint` columns as strings.
 */
export async function queryDatabase<T = Record<string, unknown>>(
  database: string,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  if (isPostgres(database)) {
    let n = 0;
    const client = new (await loadPg()).Client({ connectionString: database });
    await client.connect();
    try {
      return (
        await client.query(
          sql.replace(/\?/g, () => `$${++n}`),
          params,
        )
      ).rows as T[];
    } finally {
      await client.end();
    }
  }
  const db = new (await loadSqlite())(database, { fileMustExist: true });
  try {
    db.pragma("busy_timeout = 5000");
    const statement = db.prepare(sql);
    return (statement.reader ? statement.all(...params) : (statement.run(...params), [])) as T[];
  } finally {
    db.close();
  }
}

/** The names of the tables of a server's database (the schema's, not the engine's own). */
export async function databaseTables(database: string): Promise<string[]> {
  const rows = isPostgres(database)
    ? await queryDatabase<{ name: string }>(
        database,
        "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
      )
    : await queryDatabase<{ name: string }>(
        database,
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
      );
  return rows.map((row) => row.name).sort();
}

/**
 * How long `stop` waits for the server to exit before it kills it and fails: past the server's
 * shutdown timeout and the longest webhook timeout a suite sets (30 s), with room to spare.
 */
const STOP_DEADLINE_MS = 60_000;

/** Whether a process with this pid still exists (signal 0 checks without sending anything). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The PostgreSQL databases startServer created, by URL, with the number of running servers on
 * each: the last one stopped drops it.
 */
const ownedDatabases = new Map<string, { servers: number; drop(): Promise<void> }>();

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CreatedKey {
  id: string;
  key: string;
  accountId: string;
  tier: string;
  scopes: string[];
  accountCreated: boolean;
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  /** API key sent as `Authorization: Bearer`; omit for none. */
  key?: string;
  /** JSON-encoded unless `raw` is set. */
  body?: unknown;
  /** Sent as is (with `headers` deciding the content type). */
  raw?: string | Uint8Array;
  headers?: Record<string, string>;
  /** Lets this request answer 500 without failing the test. */
  allow500?: boolean;
}

export interface TestServer {
  url: string;
  /** The server's DATABASE_URL: a SQLite file, or a PostgreSQL connection string with E2E_BACKEND=postgres. */
  database: string;
  /** A temporary folder removed at stop. */
  dir: string;
  /** The server process's pid (with `--workers`, the primary's). */
  pid: number;
  /** Everything the server printed so far. */
  output(): string;
  /** Runs the CLI against the same database. */
  cli(args: string[]): Promise<CliResult>;
  /**
   * Creates an API key on the server's database from this process, or from the runner's under
   * npm test (see {@link createKeyOn}), as `keys create --json` would; the CLI's own commands are tested in packages/server/test/cli.test.ts
   * and test/auth.test.ts.
   */
  createKey(options?: KeyOptions): Promise<CreatedKey>;
  /** An HTTP request to the server; the body is parsed as JSON when it is JSON. */
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  /** Sends `signal` (default SIGTERM), waits for the exit and removes the temporary folder. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** What `createKey` takes: the options of `keys create` (`perMinute`/`perDay` for enterprise keys). */
export interface KeyOptions {
  account?: string;
  tier?: string;
  scopes?: string[];
  perMinute?: number;
  perDay?: number;
}

/**
 * Creates an API key (and its account when new) on `database` through core's public API, as the
 * CLI's `keys create` does, but in this process (or, under npm test, in the runner's: see
 * KEY_SERVICE below): a CLI process per key cost most of a second each. The server reads keys
 * from the database, so it sees this one as it would the CLI's.
 * The database is already migrated (a server started on it). Opened and closed per call, so
 * nothing holds it when its server stops or the database is dropped. Calls run one at a time:
 * better-sqlite3 waits for a lock synchronously, so a second connection of this process waiting
 * for the first's write transaction would block the thread that has to finish it.
 */
export function createKeyOn(database: string, options: KeyOptions = {}): Promise<CreatedKey> {
  if (KEY_SERVICE) return createKeyThroughService(database, options);
  const created = keyQueue.then(() => createKeyNow(database, options));
  keyQueue = created.catch(() => {});
  return created;
}

let keyQueue: Promise<unknown> = Promise.resolve();

/**
 * The runner's key service (test/run.ts sets TEST_KEY_SERVICE for the files it starts): keys are
 * then made in the runner's process, which loads core, kysely and the drivers once for the whole
 * run, instead of in every test file's process (some 0.6 s of CPU each under tsx's loader). The
 * same createKeyOn makes them there, one at a time; a file run alone makes its own. The CLI's
 * commands other than `serve` run there too (see runCli).
 */
const KEY_SERVICE = process.env.TEST_KEY_SERVICE;

async function createKeyThroughService(database: string, options: KeyOptions): Promise<CreatedKey> {
  const response = await fetch(`${KEY_SERVICE}/keys`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ database, options }),
  });
  const body = (await response.json()) as CreatedKey | { error: string };
  if ("error" in body) throw new Error(`the key service (${KEY_SERVICE}) could not make the key: ${body.error}`);
  return body;
}

async function runCliThroughService(args: string[], env: Record<string, string | undefined>): Promise<CliResult> {
  const response = await fetch(`${KEY_SERVICE}/cli`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ args, env }),
  });
  const body = (await response.json()) as CliResult | { error: string };
  if ("error" in body) throw new Error(`the key service (${KEY_SERVICE}) could not run the CLI: ${body.error}`);
  return body;
}

/**
 * Runs a CLI command (not `serve`) in this process through the CLI's entry, after the keys and
 * commands queued before it: a SQLite connection of this process waiting for another's lock
 * would block the thread that has to release it.
 */
function runCliHere(args: string[], env: Record<string, string | undefined>): Promise<CliResult> {
  if (args[0] === "serve") throw new Error("serve runs in a process of its own");
  const result = keyQueue.then(async () => {
    const { main } = await import("../packages/server/src/cli.ts");
    let stdout = "";
    let stderr = "";
    const code = await main(args, {
      env,
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
    });
    return { code, stdout, stderr };
  });
  keyQueue = result.catch(() => {});
  return result;
}

/** Serves {@link createKeyOn} and the CLI's commands on 127.0.0.1 for the test files of a run: see KEY_SERVICE. */
export async function startKeyService(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", async () => {
      let answer: { status: number; body: unknown };
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        if (request.url === "/cli") {
          const { args, env } = body as { args: string[]; env: Record<string, string | undefined> };
          answer = { status: 200, body: await runCliHere(args, env) };
        } else {
          const { database, options } = body as { database: string; options: KeyOptions };
          answer = { status: 200, body: await createKeyOn(database, options) };
        }
      } catch (error) {
        answer = { status: 500, body: { error: error instanceof Error ? error.message : String(error) } };
      }
      response.writeHead(answer.status, { "content-type": "application/json" }).end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolvePromise) => server.listen(0, "127.0.0.1", resolvePromise));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolvePromise) => server.close(() => resolvePromise())),
  };
}

async function createKeyNow(
  database: string,
  { account = "Acme", tier = "professional", scopes, perMinute, perDay }: KeyOptions,
): Promise<CreatedKey> {
  const [{ createEventService, createSqlStorage }, { Kysely, PostgresDialect, SqliteDialect }] = await Promise.all([
    import("@event-service/core"),
    import("kysely"),
  ]);
  let db: Kysely<Schema>;
  if (isPostgres(database)) {
    const pool = new (await loadPg()).Pool({ connectionString: database, max: 1 });
    pool.on("error", () => {});
    db = new Kysely<Schema>({ dialect: new PostgresDialect({ pool }) });
  } else {
    const sqlite = new (await loadSqlite())(database, { fileMustExist: true });
    sqlite.pragma("busy_timeout = 5000");
    db = new Kysely<Schema>({ dialect: new SqliteDialect({ database: sqlite }) });
  }
  const storage = createSqlStorage({ db });
  try {
    const created = await createEventService({ storage }).keys.create({
      account,
      tier: tier as never,
      ...(scopes !== undefined && { scopes: scopes as never }),
      ...(perMinute !== undefined && { perMinute }),
      ...(perDay !== undefined && { perDay }),
    });
    return { ...created, scopes: [...created.scopes] };
  } finally {
    await storage.close();
  }
}

/**
 * Runs the CLI with `env` added to this process's environment. Under npm test, a command other
 * than `serve` runs in the runner's process (see KEY_SERVICE), through the CLI's own entry
 * (`main(argv, io)`, what the bin runs) with its output and exit code captured: another process
 * than the server's still, without a process and the bundle's load per command. `serve` and a
 * file run alone spawn the built CLI; the bin itself is tested in packages/server/test/cli.test.ts.
 */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  if (KEY_SERVICE && args[0] !== "serve") return runCliThroughService(args, { ...process.env, ...env });
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolvePromise({ code, stdout, stderr }));
  });
}

function waitForListening(child: ChildProcess, output: () => string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in 20 s:\n${output()}`)), 20_000);
    const onData = () => {
      for (const line of output().split("\n")) {
        if (!line.startsWith("{")) continue;
        const entry = JSON.parse(line) as { msg?: string; url?: string; pid?: number };
        // With `serve --workers`, each worker's line carries its pid; the primary's, once all listen, does not.
        if (entry.msg === "listening" && entry.url && entry.pid === undefined) {
          clearTimeout(timer);
          child.stdout?.off("data", onData);
          resolvePromise(entry.url.replace(/\/$/, ""));
          return;
        }
      }
    };
    child.stdout?.on("data", onData);
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${output()}`));
    });
  });
}

/** Releases one server's hold on a database startServer created; the last one drops it. */
async function releaseDatabase(database: string): Promise<void> {
  const owned = ownedDatabases.get(database);
  if (!owned || --owned.servers > 0) return;
  ownedDatabases.delete(database);
  await owned.drop();
}

/**
 * Starts `event-service serve` on 127.0.0.1 and a free port, on a new database of the e2e
 * backend (a SQLite file, or with E2E_BACKEND=postgres a fresh PostgreSQL database dropped when
 * the last server on it stops), or on `options.database` to share one, and waits until it
 * listens. `args` go after `serve`.
 */
export async function startServer(
  options: { env?: Record<string, string>; database?: string; args?: string[] } = {},
): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), "event-service-test-"));
  let database = options.database;
  if (database === undefined && E2E_BACKEND === "postgres") {
    const fresh = await freshPostgresDatabase();
    ownedDatabases.set(fresh.url, { servers: 0, drop: fresh.drop });
    database = fresh.url;
  }
  database ??= join(dir, "events.sqlite");
  const owned = ownedDatabases.get(database);
  if (owned) owned.servers++;
  const env = { PORT: "0", HOST: "127.0.0.1", DATABASE_URL: database, LOG_LEVEL: "info", ...options.env };
  const child = spawn(process.execPath, [CLI, "serve", ...(options.args ?? [])], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolvePromise) => child.on("exit", (code) => resolvePromise(code)));
  let url: string;
  try {
    url = await waitForListening(child, () => output);
  } catch (error) {
    child.kill("SIGKILL");
    await exited;
    rmSync(dir, { recursive: true, force: true });
    await releaseDatabase(database);
    throw error;
  }

  let stopped = false;
  const server: TestServer = {
    url,
    database,
    dir,
    pid: child.pid!,
    output: () => output,
    cli: (args) => runCli(args, { DATABASE_URL: database }),
    createKey: (keyOptions) => createKeyOn(database, keyOptions),
    async request(method, path, requestOptions = {}) {
      const headers: Record<string, string> = { ...requestOptions.headers };
      if (requestOptions.key) headers.authorization = `Bearer ${requestOptions.key}`;
      let body: string | Uint8Array | undefined = requestOptions.raw;
      if (requestOptions.body !== undefined) {
        body = JSON.stringify(requestOptions.body);
        headers["content-type"] ??= "application/json";
      }
      const response = await fetch(`${url}${path}`, {
        method,
        headers,
        ...(body !== undefined && { body: body as BodyInit }),
      });
      const text = await response.text();
      let parsed: unknown = text;
      if (response.headers.get("content-type")?.includes("json")) parsed = JSON.parse(text);
      if (response.status >= 500 && response.status !== 503 && !requestOptions.allow500) {
        throw new Error(`unexpected ${response.status} for ${method} ${path}: ${text}\nserver output:\n${output}`);
      }
      return { status: response.status, headers: response.headers, body: parsed as never };
    },
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      // A server still running well past its shutdown timeout is a defect to report, not a reason
      // to hang the whole run.
      let overdue: NodeJS.Timeout | undefined;
      const deadline = new Promise<"overdue">(
        (resolvePromise) => (overdue = setTimeout(() => resolvePromise("overdue"), STOP_DEADLINE_MS)),
      );
      const first = await Promise.race([exited, deadline]);
      clearTimeout(overdue);
      let failure: Error | undefined;
      if (first === "overdue") {
        const state = `exitCode ${child.exitCode}, signalCode ${child.signalCode}, pid ${child.pid} ${isAlive(child.pid!) ? "alive" : "gone"}`;
        failure = new Error(
          `server did not exit within ${STOP_DEADLINE_MS / 1000} s of ${signal} (${state}); killed it:\n${output}`,
        );
        child.kill("SIGKILL");
        await Promise.race([exited, new Promise((resolvePromise) => setTimeout(resolvePromise, 5_000))]);
      }
      const code = child.exitCode;
      if (!stopped) {
        stopped = true;
        rmSync(dir, { recursive: true, force: true });
        await releaseDatabase(database);
      }
      if (failure) throw failure;
      return code;
    },
  };
  return server;
}

/** Asserts the one error body of every failure and returns its `error` object. */
export function errorOf(response: ApiResponse): {
  code: string;
  message: string;
  field?: string;
  details?: any;
  documentation?: string;
} {
  const body = response.body as { error?: any };
  if (
    !body ||
    typeof body !== "object" ||
    !body.error ||
    typeof body.error.code !== "string" ||
    typeof body.error.message !== "string"
  ) {
    throw new Error(`not an error body (status ${response.status}): ${JSON.stringify(response.body)}`);
  }
  return body.error;
}
