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
import { cpus, loadavg } from "node:os";
import { CONNECTIONS, drive, type Figures, SECONDS } from "./drive.ts";
import { SEED_EVENTS, SEED_REGISTRATIONS_PER_EVENT, seedBenchData } from "./seed.ts";
import { type FreshDatabase, freshPostgres, freshSqlite, POSTGRES_ADMIN_URL, POSTGRES_SKIPPED } from "./databases.ts";
import { startProcess, stopProcess } from "./start-process.ts";

const PROCESSES = [1, 2] as const;

/** A database for one backend's runs. */
interface BenchDatabase extends FreshDatabase {
  /** Events written at once while seeding (SQLite has one writer; PostgreSQL takes several). */
  seedParallel: number;
}

async function sqliteDatabase(): Promise<BenchDatabase> {
  return { ...freshSqlite("event-service-bench-"), seedParallel: 1 };
}

async function postgresDatabase(): Promise<BenchDatabase> {
  return { ...(await freshPostgres("es_bench_")), seedParallel: 8 };
}

const BACKENDS: Array<{ name: string; open: (() => Promise<BenchDatabase>) | string }> = [
  { name: "SQLite (one file)", open: sqliteDatabase },
  {
    name: "PostgreSQL",
    open: POSTGRES_ADMIN_URL ? postgresDatabase : POSTGRES_SKIPPED,
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
        await stopProcess(server);
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
