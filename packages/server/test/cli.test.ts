/**
 * The CLI's commands, run in this process through its entry (`main(argv, io)`, what the bin
 * runs) with their output and exit code captured: the same code as `dist/cli.js`, without a
 * process and the bundle's load per command. The tests about processes (the bin's exit codes
 * and streams, processes migrating one database at once) spawn the built bin.
 */
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { SCOPES } from "@event-service/core";
import { main } from "../src/cli.ts";

const CLI = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "event-service-cli-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const database = join(dir, "cli.sqlite");

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the command `args` in this process, on `env` added to this process's environment. */
async function cliWith(args: string[], env: Record<string, string>): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const code = await main(args, {
    env: { ...process.env, ...env },
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, stdout, stderr };
}

/** Runs the command `args` in this process on the test's SQLite file. */
const cli = (...args: string[]) => cliWith(args, { DATABASE_URL: database });

/** Runs the built bin (`dist/cli.js`) as a process of its own, without waiting for it. */
function spawnCli(
  args: string[],
  env: Record<string, string> = { DATABASE_URL: database },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [CLI, ...args],
      { env: { ...process.env, ...env }, encoding: "utf8" },
      (_error, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }),
    );
  });
}

test("the bin: the usage on stdout and 0; a usage error on stderr and 2; a failed command's message and 1", async () => {
  const [help, usage, failed] = await Promise.all([
    spawnCli(["--help"]),
    spawnCli(["frobnicate"]),
    spawnCli(["serve"], { PORT: "0", DATABASE_URL: ":memory:", WORKERS: "0" }),
  ]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage: event-service <command>/);
  assert.equal(help.stderr, "");
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /^event-service: unknown command: frobnicate\n\nUsage: event-service <command>/);
  assert.equal(usage.stdout, "");
  assert.equal(failed.code, 1);
  assert.match(failed.stderr, /^event-service: Invalid configuration: WORKERS/);
});

test("--help prints the usage", async () => {
  const result = await cli("--help");
  assert.equal(result.code, 0);
  assert.match(result.stdout, /^Usage: event-service <command>/);
  assert.match(result.stdout, /keys create --account NAME/);
});

test("usage errors exit 2 with a message", async () => {
  // One at a time: the keys commands open the file, and this process's connections would wait on each other's locks.
  for (const [args, message] of [
    [["frobnicate"], /unknown command: frobnicate/],
    [["keys", "create"], /keys create needs --account NAME/],
    [["keys", "rotate"], /unknown keys command: rotate/],
    [["keys", "revoke"], /exactly one key id/],
    [["keys", "create", "--account", "A", "--per-minute", "ten"], /--per-minute must be a whole number/],
    [["--colour"], /Unknown option '--colour'/],
    [["keys", "create", "--account", "A", "--scopes", ""], /--scopes names no scope/],
    [["keys", "create", "--account", "A", "--scopes", " , "], /--scopes names no scope/],
  ] as const) {
    const result = await cli(...args);
    assert.equal(result.code, 2, args.join(" "));
    assert.match(result.stderr, message);
  }
});

test("--workers takes a whole number from 1 to 64; WORKERS out of range is a configuration error", async () => {
  const results = await Promise.all(
    ["0", "65", "1.5", "two", "-2", ""].map(
      async (bad) =>
        [bad, await cliWith(["serve", `--workers=${bad}`], { PORT: "0", DATABASE_URL: ":memory:" })] as const,
    ),
  );
  for (const [bad, result] of results) {
    assert.equal(result.code, 2, `--workers ${bad}`);
    assert.match(result.stderr, /--workers must be a whole number from 1 to 64/);
  }
  const result = await cliWith(["serve"], { PORT: "0", DATABASE_URL: ":memory:", WORKERS: "0" });
  assert.equal(result.code, 1);
  assert.match(result.stderr, /Invalid configuration: WORKERS/);
});

test("migrate, then keys create, list and revoke", async () => {
  const migrated = await cli("migrate");
  assert.equal(migrated.code, 0, migrated.stderr);
  const created = await cli(
    "keys",
    "create",
    "--account",
    "Acme",
    "--tier",
    "enterprise",
    "--per-minute",
    "100",
    "--scopes",
    "events:read,analytics:read",
    "--json",
  );
  assert.equal(created.code, 0, created.stderr);
  const key = JSON.parse(created.stdout);
  assert.match(key.key, /^esk_[0-9a-f]{48}$/);
  assert.match(key.id, /^key_[0-9a-f]{24}$/);
  assert.match(key.accountId, /^acct_[0-9a-f]{24}$/);
  assert.equal(key.tier, "enterprise");
  assert.deepEqual(key.scopes, ["events:read", "analytics:read"]);
  assert.equal(key.accountCreated, true);

  const second = JSON.parse((await cli("keys", "create", "--account", "Acme", "--json")).stdout);
  assert.equal(second.accountId, key.accountId);
  assert.equal(second.accountCreated, false);
  assert.equal(second.tier, "free");
  assert.equal(second.scopes.length, SCOPES.length);

  const text = await cli("keys", "create", "--account", "Globex");
  assert.equal(text.code, 0);
  assert.match(text.stdout, /^Created account Globex \(acct_[0-9a-f]{24}\) and API key key_[0-9a-f]{24} \(tier free, /);
  assert.match(text.stdout, /shown only now/);
  const added = await cli("keys", "create", "--account", "Globex", "--scopes", "analytics:read");
  assert.match(
    added.stdout,
    /^Added API key key_[0-9a-f]{24} to the existing account acct_[0-9a-f]{24} \(tier free, scopes analytics:read\)/,
  );

  const listed = await cli("keys", "list", "--account", "Acme", "--json");
  const keys = JSON.parse(listed.stdout);
  assert.deepEqual(keys.map((k: { id: string }) => k.id).sort(), [key.id, second.id].sort());
  assert.doesNotMatch(listed.stdout, new RegExp(key.key.slice(4)));
  assert.equal(
    keys.every((k: { revokedAt: unknown }) => k.revokedAt === null),
    true,
  );

  assert.equal((await cli("keys", "revoke", key.id)).code, 0);
  const again = await cli("keys", "revoke", key.id);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /not found/);
  assert.match((await cli("keys", "list")).stdout, /revoked/);
});

test("the database folder and file it creates are private: 0700 and 0600", {
  skip: process.platform === "win32",
}, async () => {
  const nested = join(dir, "private", "deeper", "events.sqlite");
  const result = await cliWith(["migrate"], { DATABASE_URL: nested });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(statSync(join(dir, "private")).mode & 0o777, 0o700);
  assert.equal(statSync(join(dir, "private", "deeper")).mode & 0o777, 0o700);
  assert.equal(statSync(nested).mode & 0o777, 0o600);
});

test("bad input to keys create and configuration errors exit 1", async () => {
  const tier = await cli("keys", "create", "--account", "Bad Tier", "--tier", "gold");
  assert.equal(tier.code, 1);
  assert.match(tier.stderr, /tier: /);
  const scope = await cli(
    "keys",
    "create",
    "--account",
    "Bad Scope",
    "--scopes",
    "events:read,events:delete",
    "--json",
  );
  assert.equal(scope.code, 1);
  assert.match(scope.stderr, /scopes/);
  for (const account of ["Bad Tier", "Bad Scope"])
    assert.deepEqual(
      JSON.parse((await cli("keys", "list", "--account", account, "--json")).stdout),
      [],
      `no key or account ${account} was created`,
    );
  const limits = await cli("keys", "create", "--account", "Acme", "--per-day", "5");
  assert.equal(limits.code, 1);
  assert.match(limits.stderr, /enterprise keys only/);
  // Nothing listens on port 1: a clear message, without the password, and exit 1 (as for a SQLite file that cannot be opened).
  const pg = await cliWith(["migrate"], { DATABASE_URL: "postgres://es:hunter2@127.0.0.1:1/x" });
  assert.equal(pg.code, 1);
  assert.match(
    pg.stderr,
    /^event-service: Cannot connect to PostgreSQL at postgres:\/\/es:\*\*\*@127\.0\.0\.1:1\/x: .*ECONNREFUSED/,
  );
  assert.doesNotMatch(pg.stderr, /hunter2/);
});

test("processes starting at once on a new file migrate one after the other", async () => {
  for (let round = 0; round < 4; round++) {
    const file = join(dir, `race-${round}.sqlite`);
    const run = () =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [CLI, "migrate"], { env: { ...process.env, DATABASE_URL: file } });
        let stderr = "";
        child.stderr.on("data", (chunk) => (stderr += chunk));
        child.on("close", (code) => resolve({ code, stderr }));
      });
    const results = await Promise.all([run(), run(), run()]);
    assert.deepEqual(
      results.map((r) => r.code),
      [0, 0, 0],
      results.map((r) => r.stderr).join("\n"),
    );
  }
});

const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;

test("on PostgreSQL: processes starting at once migrate once; keys create, list and revoke", {
  skip: TEST_DATABASE_URL ? false : "TEST_DATABASE_URL is not set",
}, async () => {
  const { default: pg } = await import("pg");
  const name = `es_cli_${process.pid}_${Date.now().toString(36)}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    await client.query(statement).finally(() => client.end());
  };
  await admin(`create database ${name}`);
  try {
    const url = new URL(TEST_DATABASE_URL!);
    url.pathname = `/${name}`;
    const env = { ...process.env, DATABASE_URL: url.toString(), DATABASE_POOL_SIZE: "2" };
    const run = (...args: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [CLI, ...args], { env });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (chunk) => (stdout += chunk));
        child.stderr.on("data", (chunk) => (stderr += chunk));
        child.on("close", (code) => resolve({ code, stdout, stderr }));
      });
    // kysely's migrator holds an advisory lock: the three run one after another, the first migrates.
    const results = await Promise.all([run("migrate"), run("migrate"), run("migrate")]);
    assert.deepEqual(
      results.map((r) => r.code),
      [0, 0, 0],
      results.map((r) => r.stderr).join("\n"),
    );
    assert.match(results[0]!.stdout, /^Database postgres:\/\/.* is up to date\.$/m);
    if (url.password) assert.equal(results[0]!.stdout.includes(`:${url.password}@`), false);
    // The keys commands, in this process, on the database the processes migrated.
    const keys = (...args: string[]) =>
      cliWith(["keys", ...args], { DATABASE_URL: env.DATABASE_URL, DATABASE_POOL_SIZE: "2" });
    const created = await keys("create", "--account", "Acme", "--json");
    assert.equal(created.code, 0, created.stderr);
    const key = JSON.parse(created.stdout);
    assert.equal(key.accountCreated, true);
    const listed = JSON.parse((await keys("list", "--json")).stdout);
    assert.deepEqual(
      listed.map((k: { id: string }) => k.id),
      [key.id],
    );
    assert.equal((await keys("revoke", key.id)).code, 0);
    assert.match((await keys("list")).stdout, /revoked/);
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    const { rows } = await client.query("select name from kysely_migration order by name").finally(() => client.end());
    assert.equal(rows[0].name, "0001_foundation");
  } finally {
    await admin(`drop database if exists ${name} with (force)`);
  }
});
