/**
 * `npm run bench` (scale-out part): the API on SQLite and on PostgreSQL, with one server
 * process (`serve`) and with two on one port (`serve --workers 2`), both processes on one
 * database: GET /api/events/:id, GET /api/events?limit=20 and POST /api/attendees (all
 * registrations for one event, so every write locks the same event row), driven by
 * autocannon on loopback. Prints requests/s and p50 / p99 latency of each.
 *
 * PostgreSQL comes from BENCH_DATABASE_URL or TEST_DATABASE_URL (an admin connection string):
 * a fresh database is created for the run and dropped after. Without either, its rows print as
 * skipped. Each database is seeded as `bench/run.ts` seeds its file (500 events, 10,000
 * registrations). Not a test: figures depend on the machine and on what else runs on it.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { CONNECTIONS, drive, type Figures, SECONDS } from "./drive.ts";
import { SEED_EVENTS, SEED_REGISTRATIONS_PER_EVENT, seedBenchData } from "./seed.ts";
import { startProcess } from "./start-process.ts";

const POSTGRES_ADMIN_URL = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;
const PROCESSES = [1, 2] as const;

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

/** A database for one backend's runs: its DATABASE_URL and how to remove it. */
interface BenchDatabase {
  url: string;
  /** Events written at once while seeding (SQLite has one writer; PostgreSQL takes several). */
  seedParallel: number;
  drop(): Promise<void>;
}

async function sqliteDatabase(): Promise<BenchDatabase> {
  const dir = mkdtempSync(join(tmpdir(), "event-service-bench-"));
  return {
    url: join(dir, "bench.sqlite"),
    seedParallel: 1,
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

async function postgresDatabase(): Promise<BenchDatabase> {
  // Lower-case letters and digits only: safe inside the double quotes.
  const name = `es_bench_${randomBytes(6).toString("hex")}`;
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(POSTGRES_ADMIN_URL!);
  url.pathname = `/${name}`;
  return { url: url.toString(), seedParallel: 8, drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}

const BACKENDS: Array<{ name: string; open: (() => Promise<BenchDatabase>) | string }> = [
  { name: "SQLite (one file)", open: sqliteDatabase },
  {
    name: "PostgreSQL",
    open: POSTGRES_ADMIN_URL ? postgresDatabase : "skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL",
  },
];

const rows: string[] = [];
const row = (cells: Array<string | number>) => rows.push(`| ${cells.join(" | ")} |`);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");

for (const backend of BACKENDS) {
  if (typeof backend.open === "string") {
    for (const processes of PROCESSES) row([backend.name, processes, "all", backend.open, "", ""]);
    continue;
  }
  const database = await backend.open();
  try {
    process.stdout.write(
      `${backend.name}: seeding ${SEED_EVENTS} events and ${SEED_EVENTS * SEED_REGISTRATIONS_PER_EVENT} registrations…\n`,
    );
    const { key, eventId } = await seedBenchData(database.url, database.seedParallel);
    for (const processes of PROCESSES) {
      const args = [
        "packages/server/bin/event-service.js",
        "serve",
        ...(processes > 1 ? ["--workers", String(processes)] : []),
      ];
      const server = await startProcess(
        args,
        { PORT: "0", DATABASE_URL: database.url, LOG_LEVEL: "info", WORKERS: undefined },
        (entry) => (processes > 1 ? entry.workers === processes : true),
      );
      try {
        const tag = `${process.pid}-${processes}-${backend.name.length}`;
        const attendee = (n: number) => ({
          eventId,
          firstName: "Bench",
          lastName: `N${n}`,
          email: `scale-${tag}-${n}@example.com`,
          ticketType: "general",
        });
        const cases: Array<[string, () => Promise<Figures>]> = [
          ["GET /api/events/:id", () => drive(server.url, `/api/events/${eventId}`, { key })],
          ["GET /api/events?limit=20", () => drive(server.url, "/api/events?limit=20", { key })],
          ["POST /api/attendees", () => drive(server.url, "/api/attendees", { key, post: attendee })],
        ];
        for (const [name, run] of cases) {
          process.stdout.write(`  ${processes} process${processes > 1 ? "es" : ""}: ${name} (load ${load()})\n`);
          const figures = await run();
          if (figures.non2xx) process.stdout.write(`  warning: ${figures.non2xx} non-2xx answers\n`);
          row([
            backend.name,
            processes,
            name,
            figures.rps.toFixed(0),
            `${figures.p50} / ${figures.p99}`,
            figures.non2xx,
          ]);
        }
      } finally {
        const exited = new Promise((done) => server.child.once("exit", done));
        server.child.kill("SIGTERM");
        await exited;
      }
    }
  } finally {
    await database.drop();
  }
}

process.stdout.write(
  `\nScale-out: ${cpus().length} x ${cpus()[0]?.model.trim()}, Node ${process.version}; autocannon ${CONNECTIONS} connections, ${SECONDS} s per run; ` +
    `2 processes = serve --workers 2 on one port; load average at the end ${load()}.\n\n` +
    "| database | processes | endpoint | req/s | p50 / p99 ms | non-2xx |\n|---|---|---|---|---|---|\n" +
    `${rows.join("\n")}\n`,
);
