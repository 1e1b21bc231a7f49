/**
 * The benchmarks' databases: a fresh SQLite file, or a fresh PostgreSQL database on the server
 * BENCH_DATABASE_URL or TEST_DATABASE_URL names (an admin connection string), each removed by
 * its `drop()`.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

export const POSTGRES_ADMIN_URL = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;
/** What a benchmark prints for PostgreSQL without a server to run on. */
export const POSTGRES_SKIPPED = "skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL";

/** A database made for one run: its DATABASE_URL, and how to remove it. */
export interface FreshDatabase {
  url: string;
  drop(): Promise<void>;
}

/** Runs one statement on a short-lived admin connection. */
async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** A SQLite file in a new temporary folder named from `prefix`. */
export function freshSqlite(prefix: string): FreshDatabase {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { url: join(dir, "bench.sqlite"), drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

/** A new PostgreSQL database named `${prefix}` and random hex (`prefix`: lower-case letters, digits and `_`). */
export async function freshPostgres(prefix: string): Promise<FreshDatabase> {
  // Lower-case letters and digits only: safe inside the double quotes.
  const name = `${prefix}${randomBytes(6).toString("hex")}`;
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(POSTGRES_ADMIN_URL!);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}
