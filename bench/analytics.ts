/**
 * `npm run bench` (second part): the analytics endpoints on a large account. Seeds 1,000 events
 * and 200,000 registrations into a SQLite file (bulk inserts through kysely in one transaction),
 * starts the real server (built CLI), and times each analytics endpoint with sequential requests
 * (BENCH_ANALYTICS_REQUESTS, default 50), printing p50, p95 and max latency. The target is a
 * p95 under 200 ms. Not a test: figures depend on the machine.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createEventService, createSqlStorage } from "@event-service/core";
// The row mappers are internal to the core; the benchmark uses them to write real rows fast.
import { attendeeToRow, eventToRow } from "../packages/core/src/sql/rows.ts";
import { startProcess } from "./start-process.ts";
import { sql } from "kysely";
import { openSqlite } from "@event-service/server";

const EVENTS = 1_000;
const PER_EVENT = 200;
const REQUESTS = Number(process.env.BENCH_ANALYTICS_REQUESTS ?? 50);
const TARGET_P95_MS = 200;

async function seed(file: string) {
  const db = openSqlite(file);
  const storage = createSqlStorage({ db });
  await storage.migrate();
  const service = createEventService({ storage });
  const { key, accountId } = await service.keys.create({
    account: "Analytics Bench",
    tier: "enterprise",
    perMinute: 1_000_000,
    perDay: 100_000_000,
  });

  const categories = ["conference", "meetup", "workshop", "festival"];
  const modes = ["car", "train", "bus", "flight", "bike", "walk", null] as const;
  const statuses = [
    "confirmed",
    "confirmed",
    "confirmed",
    "confirmed",
    "confirmed",
    "confirmed",
    "confirmed",
    "checked-in",
    "pending",
    "cancelled",
  ] as const;
  const diets = [[], ["vegan"], ["vegetarian"], ["vegan", "gluten-free"], ["halal"], []];
  const now = "2037-01-01T00:00:00.000Z";
  const start = Date.parse("2037-01-01T09:00:00.000Z");
  const eventIds: string[] = [];
  let code = 0;
  await db.transaction().execute(async (trx) => {
    for (let e = 0; e < EVENTS; e++) {
      // Spread over two years, about 1.4 events a day.
      const startDate = new Date(
        start + Math.floor((e * 730) / EVENTS) * 86_400_000 + (e % 8) * 3_600_000,
      ).toISOString();
      const id = `evt_bench${String(e).padStart(6, "0")}`;
      eventIds.push(id);
      await trx
        .insertInto("events")
        .values(
          eventToRow({
            id,
            accountId,
            name: `Bench event ${e}`,
            description: null,
            location: {
              address: "Main St 1",
              city: "Berlin",
              state: null,
              country: "DE",
              zipCode: null,
              coordinates: null,
            },
            startDate,
            endDate: new Date(Date.parse(startDate) + 8 * 3_600_000).toISOString(),
            capacity: 500,
            category: categories[e % categories.length]!,
            sustainabilityGoals: {
              carbonNeutral: e % 3 === 0,
              renewableEnergy: e % 2 === 0,
              localSourcing: e % 5 === 0,
              wasteReduction: (e * 7) % 101,
            },
            tags: [],
            status: "published",
            waitlistEnabled: false,
            ticketTypes: [],
            refundPolicy: "full",
            timeZone: null,
            createdAt: now,
            updatedAt: now,
          }),
        )
        .execute();
      const rows = [];
      for (let a = 0; a < PER_EVENT; a++) {
        const n = e * PER_EVENT + a;
        const mode = modes[n % modes.length]!;
        code += 1;
        rows.push(
          attendeeToRow({
            id: `att_bench${String(n).padStart(8, "0")}`,
            accountId,
            eventId: id,
            firstName: "Ada",
            lastName: `L${a}`,
            email: `b${n}@example.com`,
            phone: null,
            company: a % 4 === 0 ? null : `Company ${a % 37}`,
            title: null,
            ticketType: a % 10 === 0 ? "vip" : "general",
            dietaryPreferences: diets[n % diets.length]!,
            accessibilityNeeds: a % 25 === 0 ? { wheelchairAccess: true } : null,
            carbonOffset: mode
              ? {
                  opted: n % 3 === 0,
                  amount: n % 3 === 0 ? 5 + (n % 20) : 0,
                  travelMode: mode,
                  travelDistance: 10 + ((n * 37) % 2500),
                }
              : null,
            emergencyContact: null,
            customFields: {},
            status: statuses[n % statuses.length]!,
            waitlistPosition: null,
            confirmationCode: `EVT-B${String(code).padStart(8, "0")}`,
            registrationDate: now,
            updatedAt: now,
            checkedInAt: null,
            cancelledAt: null,
            payment: null,
          }),
        );
      }
      // 200 rows of 28 columns stay under SQLite's 32,766 bound parameters.
      await trx.insertInto("attendees").values(rows).execute();
    }
  });
  // The events' tallies (the per-event report's counts), counted from the rows by the storage's
  // own recount, as when it starts on registrations it has not counted.
  await db.updateTable("kept_tallies").set({ definition: 0 }).execute();
  await storage.migrate();
  // Planner statistics, as a long-running database gathers them (`PRAGMA optimize`).
  if (process.env.BENCH_ANALYZE === "1") await sql`analyze`.execute(db);
  await storage.close();
  return { key, eventId: eventIds[500]! };
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;

async function time(url: string, key: string): Promise<{ p50: number; p95: number; max: number }> {
  const headers = { authorization: `Bearer ${key}` };
  const first = await fetch(url, { headers });
  if (first.status !== 200) throw new Error(`${url}: ${first.status} ${await first.text()}`);
  await first.arrayBuffer();
  const samples: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const began = performance.now();
    const response = await fetch(url, { headers });
    await response.arrayBuffer();
    samples.push(performance.now() - began);
    if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
  }
  samples.sort((a, b) => a - b);
  return { p50: quantile(samples, 0.5), p95: quantile(samples, 0.95), max: samples[samples.length - 1]! };
}

const dir = mkdtempSync(join(tmpdir(), "event-service-bench-analytics-"));
const file = join(dir, "bench.sqlite");
try {
  process.stdout.write(
    `Seeding ${EVENTS.toLocaleString("en")} events and ${(EVENTS * PER_EVENT).toLocaleString("en")} registrations in ${file}…\n`,
  );
  const seeded = performance.now();
  const { key, eventId } = await seed(file);
  process.stdout.write(`Seeded in ${((performance.now() - seeded) / 1000).toFixed(1)} s.\n`);
  const server = await startProcess(["packages/server/bin/event-service.js", "serve"], {
    PORT: "0",
    DATABASE_URL: file,
    LOG_LEVEL: "info",
  });
  const cases = [
    "/api/analytics/sustainability",
    "/api/analytics/sustainability?granularity=monthly",
    "/api/analytics/sustainability?granularity=daily&startDate=2038-01-01&endDate=2038-12-31",
    `/api/analytics/sustainability?eventIds=${eventId},evt_bench000001,evt_bench000999`,
    `/api/analytics/events/${eventId}`,
    "/api/analytics/trends?metric=carbon_emissions&granularity=monthly&includeBenchmark=true",
    "/api/analytics/trends?metric=offset_participation&granularity=weekly&startDate=2038-01-01&endDate=2038-12-31",
    "/api/analytics/trends?metric=attendance&granularity=quarterly&category=conference",
  ];
  // The per-event report counts the event's registrations (from its tallies), so its timing is of a real answer.
  const report = await fetch(`${server.url}/api/analytics/events/${eventId}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  const registered = ((await report.json()) as { attendance?: { registered?: number } }).attendance?.registered;
  if (registered !== PER_EVENT)
    throw new Error(`the per-event report counts ${registered} registrations, not ${PER_EVENT}`);
  const rows: string[] = [];
  for (const path of cases) {
    const figures = await time(`${server.url}${path}`, key);
    rows.push(
      `| \`GET ${path.replace(eventId, ":id")}\` | ${figures.p50.toFixed(1)} | ${figures.p95.toFixed(1)} | ${figures.max.toFixed(1)} | ${figures.p95 < TARGET_P95_MS ? "yes" : "NO"} |`,
    );
  }
  process.stdout.write(
    `\nMachine: ${cpus().length} x ${cpus()[0]?.model.trim()}, Node ${process.version}; ${REQUESTS} sequential requests per endpoint after one warm-up.\n\n` +
      `| endpoint | p50 ms | p95 ms | max ms | p95 < ${TARGET_P95_MS} ms |\n|---|---|---|---|---|\n${rows.join("\n")}\n`,
  );
  server.child.kill("SIGTERM");
} finally {
  setTimeout(() => rmSync(dir, { recursive: true, force: true }), 500);
}
