/**
 * `npm run bench` (footprint part): one festival's whole footprint at the size issue 23 names.
 * Seeds one event with 200,000 registrations (mixed statuses, travel modes and distances, bulk
 * inserts through kysely, then the event's kept figures summed in SQL as the service defines
 * them) and 1,000 activity records of every kind (written through the service, which prices
 * each and keeps the event's activity figures), checks that the answers add up, starts the real
 * server (built CLI) and times, with sequential requests (BENCH_FOOTPRINT_REQUESTS, default 50),
 * the per-event analytics, the sustainability report as JSON and as HTML, and the first page of
 * the activities. Prints p50, p95 and max latency; the target is a p95 under 200 ms.
 *
 * Runs on a SQLite file, and on PostgreSQL when BENCH_DATABASE_URL or TEST_DATABASE_URL (an
 * admin connection string) is set: a fresh database is created for the run, vacuumed and analysed
 * once seeded (as autovacuum would be), and dropped after.
 * Not a test: figures depend on the machine and on what else runs on it.
 */
import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { type ActivityInput, createEventService, createSqlStorage } from "@event-service/core";
import { openDatabase } from "@event-service/server";
import { sql } from "kysely";
// Internal to the core: the benchmark checks its answers against the one definition.
import { contributionOf } from "../packages/core/src/rules/kept-figures.ts";
import type { AttendeeRecord } from "../packages/core/src/resources/attendee.ts";
import { insertRegistrations, parameterLimit } from "./bulk-registrations.ts";
import { type FreshDatabase, freshPostgres, freshSqlite, POSTGRES_ADMIN_URL, POSTGRES_SKIPPED } from "./databases.ts";
import { startProcess, stopProcess } from "./start-process.ts";

const REGISTRATIONS = Number(process.env.BENCH_FOOTPRINT_REGISTRATIONS ?? 200_000);
const ACTIVITIES = Number(process.env.BENCH_FOOTPRINT_ACTIVITIES ?? 1_000);
const REQUESTS = Number(process.env.BENCH_FOOTPRINT_REQUESTS ?? 50);
const TARGET_P95_MS = 200;

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

/** A database for one backend's run, and how many parameters one statement may bind. */
interface BenchDatabase extends FreshDatabase {
  parameters: number;
  postgres: boolean;
}

async function sqliteDatabase(): Promise<BenchDatabase> {
  return { ...freshSqlite("event-service-bench-footprint-"), parameters: parameterLimit(false), postgres: false };
}

async function postgresDatabase(): Promise<BenchDatabase> {
  return { ...(await freshPostgres("es_bench_footprint_")), parameters: parameterLimit(true), postgres: true };
}

const TRAVEL = [
  // mode, share in tenths of a percent, distance range in km
  ["car", 380, 15, 400],
  ["train", 220, 30, 900],
  ["bus", 120, 20, 600],
  ["flight", 60, 300, 6_000],
  ["bike", 50, 2, 40],
  ["walk", 30, 1, 5],
  [null, 140, 0, 0],
] as const;
const STATUSES = [
  ["confirmed", 700],
  ["checked-in", 150],
  ["pending", 50],
  ["cancelled", 100],
] as const;
const DIETS = [[], [], [], ["vegetarian"], ["vegan"], ["vegan", "gluten-free"], ["halal"], ["kosher"]];

/** Picks from weighted entries (weights sum to 1,000) by `n`, spread so neighbours differ. */
function pick<T extends readonly [unknown, number, ...unknown[]]>(entries: readonly T[], n: number): T {
  let rest = (n * 617) % 1_000;
  for (const entry of entries) {
    if (rest < entry[1]) return entry;
    rest -= entry[1];
  }
  return entries[entries.length - 1]!;
}

/** The `n`th seeded registration of the event. */
function registration(accountId: string, eventId: string, n: number): AttendeeRecord {
  const [mode, , low, high] = pick(TRAVEL, n);
  const [status] = pick(STATUSES, Math.floor(n / 7));
  // Registrations over the 200 days before the festival; check-ins on its first day.
  const registered = new Date(Date.parse("2037-12-01T00:00:00.000Z") + ((n * 86_413) % (200 * 86_400)) * 1000);
  const opted = n % 4 === 0;
  return {
    id: `att_fest${String(n).padStart(8, "0")}`,
    accountId,
    eventId,
    firstName: "Festival",
    lastName: `Goer ${n}`,
    email: `goer${n}@example.com`,
    phone: null,
    company: n % 5 === 0 ? `Company ${n % 211}` : null,
    title: null,
    ticketType: n % 20 === 0 ? "vip" : n % 7 === 0 ? "day" : "weekend",
    dietaryPreferences: DIETS[n % DIETS.length]!,
    accessibilityNeeds: n % 40 === 0 ? { wheelchairAccess: n % 80 === 0, signLanguage: n % 120 === 0 } : null,
    carbonOffset:
      mode === null && !opted
        ? null
        : {
            opted,
            amount: opted ? 2 + (n % 15) : 0,
            ...(mode !== null && { travelMode: mode, travelDistance: low + ((n * 7_919) % (high - low + 1)) }),
          },
    emergencyContact: null,
    customFields: {},
    status,
    waitlistPosition: null,
    confirmationCode: `FEST-${String(n).padStart(8, "0")}`,
    registrationDate: registered.toISOString(),
    updatedAt: registered.toISOString(),
    checkedInAt: status === "checked-in" ? "2038-07-01T10:00:00.000Z" : null,
    cancelledAt: status === "cancelled" ? registered.toISOString() : null,
    payment: null,
  };
}

/** The `i`th activity record: every kind in turn, with its qualifiers and a plausible quantity. */
function activity(i: number): ActivityInput {
  const round = Math.floor(i / 9);
  const dataQuality = i % 3 === 0 ? "estimated" : "measured";
  const vary = (low: number, high: number) => low + ((i * 7_919) % (high - low + 1));
  const of = <T>(values: readonly T[]) => values[round % values.length]!;
  switch (i % 9) {
    case 0:
      return {
        kind: "electricity",
        unit: "kWh",
        quantity: vary(200, 5_000),
        source: of(["grid", "grid", "renewable_tariff", "onsite_renewable"] as const),
        dataQuality,
      };
    case 1:
      return {
        kind: "fuel",
        fuel: of(["diesel", "diesel", "hvo", "petrol", "lpg", "natural_gas"] as const),
        unit: of(["litres", "litres", "kg", "kWh"] as const),
        quantity: vary(50, 2_000),
        dataQuality,
        note: "Generator log",
      };
    case 2:
      return {
        kind: "catering",
        unit: "meals",
        mealType: of(["meat", "fish", "vegetarian", "vegan"] as const),
        quantity: vary(100, 3_000),
        dataQuality,
      };
    case 3:
      return {
        kind: "accommodation",
        unit: "room_nights",
        country: of(["GB", "GB", "FR", "NL", "DE", "IE"] as const),
        quantity: vary(5, 200),
        dataQuality,
      };
    case 4:
      return {
        kind: "materials",
        unit: "kg",
        material: of(["paper", "card", "plastic", "textiles", "timber", "metal", "glass", "mixed"] as const),
        recycledContent: round % 2 === 0,
        quantity: vary(5, 800),
        dataQuality,
      };
    case 5:
      return {
        kind: "freight",
        unit: "tonne_km",
        mode: of(["van", "hgv", "hgv", "rail", "air", "sea"] as const),
        quantity: vary(10, 2_000),
        dataQuality,
      };
    case 6:
      return {
        kind: "waste",
        unit: "kg",
        stream: of(["landfill", "incineration", "recycling", "composting", "anaerobic_digestion", "reuse"] as const),
        material: of([null, "food", "plastic", "glass", "card", "mixed", "metal"] as const),
        quantity: vary(20, 2_500),
        dataQuality,
      };
    case 7:
      return { kind: "water", unit: "m3", quantity: vary(1, 120), dataQuality };
    default:
      return {
        kind: "staff_travel",
        unit: "passenger_km",
        mode: of(["car", "train", "bus", "flight", "bike"] as const),
        quantity: vary(20, 2_000),
        dataQuality,
      };
  }
}

/** What the seed wrote, as the service defines it, to check the answers against. */
interface Expected {
  travelKg: number;
  active: number;
  /** Registrations of every status, and the mean days from an active one's registration to the start. */
  registered: number;
  leadDays: number;
  companies: number;
  activityKg: number;
  wasteKg: number;
  electricityKwh: number;
}

async function seed(database: BenchDatabase) {
  const db = await openDatabase({ DATABASE_URL: database.url, DATABASE_POOL_SIZE: 2 });
  const storage = createSqlStorage({ db });
  try {
    await storage.migrate();
    const service = createEventService({ storage });
    const { key, accountId } = await service.keys.create({
      account: "Footprint Bench",
      tier: "enterprise",
      perMinute: 1_000_000,
      perDay: 100_000_000,
    });
    const festival = service.forAccount(accountId);
    const event = await festival.events.create({
      name: "Bench Festival",
      description: "Four days, three stages, camping: seeded for the footprint benchmark",
      location: { address: "Worthy Farm", city: "Pilton", country: "GB" },
      startDate: "2038-07-01T10:00:00Z",
      endDate: "2038-07-04T23:00:00Z",
      capacity: REGISTRATIONS,
      category: "festival",
      tags: ["festival", "outdoor"],
      sustainabilityGoals: { carbonNeutral: true, renewableEnergy: true, wasteReduction: 60 },
    });

    const expected: Expected = {
      travelKg: 0,
      active: 0,
      registered: REGISTRATIONS,
      leadDays: 0,
      companies: 0,
      activityKg: 0,
      wasteKg: 0,
      electricityKwh: 0,
    };
    const companies = new Set<string>();
    for (let n = 0; n < REGISTRATIONS; n++) {
      const record = registration(accountId, event.id, n);
      const adds = contributionOf(record);
      expected.travelKg += adds.emissionsKg;
      expected.active += adds.activeRegistrations;
      if (adds.activeRegistrations === 1) {
        expected.leadDays += (Date.parse(event.startDate) - Date.parse(record.registrationDate)) / 86_400_000;
        if (record.company !== null) companies.add(record.company);
      }
    }
    await insertRegistrations(db, storage, {
      eventId: event.id,
      count: REGISTRATIONS,
      parameters: database.parameters,
      record: (n) => registration(accountId, event.id, n),
    });
    expected.leadDays /= expected.active;
    expected.companies = companies.size;

    // Through the service: each record priced with the factor set, the event's activity figures
    // recounted and its thresholds and goals judged, as the API does.
    for (let i = 0; i < ACTIVITIES; i++) {
      const input = activity(i);
      const created = await festival.activities.create(event.id, input);
      expected.activityKg += created.emissionsKg ?? 0;
      if (input.kind === "waste") expected.wasteKg += input.quantity;
      if (input.kind === "electricity") expected.electricityKwh += input.quantity;
    }
    // What autovacuum does after a bulk load (statistics, the visibility map): without it the
    // run's plans are guessed from an empty table's, and autovacuum may start in the middle of it.
    if (database.postgres) await sql`vacuum analyze`.execute(db);
    return { key, eventId: event.id, expected };
  } finally {
    await storage.close();
  }
}

const close = (a: number, b: number) => Math.abs(a - b) <= 0.01 + 1e-9 * Math.abs(b);

/** Fails the run unless one answer of each kind holds the seeded figures, so the timings are of a real answer. */
async function verify(url: string, key: string, eventId: string, expected: Expected): Promise<string> {
  const headers = { authorization: `Bearer ${key}` };
  const get = async (path: string) => {
    const response = await fetch(`${url}${path}`, { headers });
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as any;
  };
  const analytics = await get(`/v1/analytics/events/${eventId}`);
  const report = await get(`/v1/events/${eventId}/sustainability-report`);
  const page = await get(`/v1/events/${eventId}/activities?limit=100`);
  const event = await get(`/v1/events/${eventId}`);
  const problems: string[] = [];
  const check = (what: string, actual: unknown, wanted: number) => {
    if (typeof actual !== "number" || !close(actual, wanted)) problems.push(`${what}: ${actual}, expected ${wanted}`);
  };
  for (const [name, footprint] of [
    ["analytics", analytics.footprint],
    ["report", report.footprint],
  ] as const) {
    const byKind = footprint.byKind as Array<{ kind: string; emissionsKg: number; records: number }>;
    const travel = byKind.find((k) => k.kind === "attendee_travel")?.emissionsKg;
    const activityKinds = byKind.filter((k) => k.kind !== "attendee_travel");
    check(`${name} travel kg`, travel, expected.travelKg);
    check(
      `${name} activity kg`,
      activityKinds.reduce((sum, k) => sum + k.emissionsKg, 0),
      expected.activityKg,
    );
    check(
      `${name} activity records`,
      activityKinds.reduce((sum, k) => sum + k.records, 0),
      ACTIVITIES,
    );
    check(
      `${name} total kg = travel + activities`,
      footprint.totalEmissionsKg,
      expected.travelKg + expected.activityKg,
    );
    check(
      `${name} per attendee kg`,
      footprint.perAttendeeKg,
      (expected.travelKg + expected.activityKg) / expected.active,
    );
  }
  // The kept figures the seed summed in SQL, as the service would have kept them.
  check("event attendeeCount", event.attendeeCount, expected.active);
  // The tallies the storage counted from the rows.
  check("analytics registered", analytics.attendance.registered, expected.registered);
  check("analytics active", analytics.attendance.active, expected.active);
  check("analytics companies", analytics.demographics.companies.distinct, expected.companies);
  check("analytics lead days", analytics.engagement.averageLeadTimeDays, expected.leadDays);
  check("event carbonFootprint", event.carbonFootprint, expected.travelKg);
  check("report waste kg", report.waste?.totalKg, expected.wasteKg);
  check("report electricity kWh", report.energy?.electricityKwh, expected.electricityKwh);
  check("activities total", page.pagination?.total, ACTIVITIES);
  check("activities on the page", page.activities?.length, Math.min(100, ACTIVITIES));
  if (problems.length) throw new Error(`The answers do not add up:\n  ${problems.join("\n  ")}`);
  return (
    `footprint ${Math.round(analytics.footprint.totalEmissionsKg).toLocaleString("en")} kg ` +
    `(travel ${Math.round(expected.travelKg).toLocaleString("en")} + activities ${Math.round(expected.activityKg).toLocaleString("en")}), ` +
    `${expected.active.toLocaleString("en")} active registrations, ${ACTIVITIES} activity records`
  );
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;

async function time(
  url: string,
  headers: Record<string, string>,
  type: string,
): Promise<{ p50: number; p95: number; max: number }> {
  const once = async () => {
    const began = performance.now();
    const response = await fetch(url, { headers });
    await response.arrayBuffer();
    const took = performance.now() - began;
    if (response.status !== 200 || !response.headers.get("content-type")?.startsWith(type))
      throw new Error(`${url}: ${response.status} ${response.headers.get("content-type")}`);
    return took;
  };
  await once();
  const samples: number[] = [];
  for (let i = 0; i < REQUESTS; i++) samples.push(await once());
  samples.sort((a, b) => a - b);
  return { p50: quantile(samples, 0.5), p95: quantile(samples, 0.95), max: samples[samples.length - 1]! };
}

const BACKENDS: Array<{ name: string; open: (() => Promise<BenchDatabase>) | string }> = [
  { name: "SQLite", open: sqliteDatabase },
  {
    name: "PostgreSQL",
    open: POSTGRES_ADMIN_URL ? postgresDatabase : POSTGRES_SKIPPED,
  },
];

const rows: string[] = [];
const notes: string[] = [];
for (const backend of BACKENDS) {
  if (typeof backend.open === "string") {
    rows.push(`| ${backend.name} | all | ${backend.open} | | | |`);
    continue;
  }
  const database = await backend.open();
  try {
    process.stdout.write(
      `${backend.name}: seeding 1 event, ${REGISTRATIONS.toLocaleString("en")} registrations and ${ACTIVITIES.toLocaleString("en")} activity records (load ${load()})…\n`,
    );
    const seeded = performance.now();
    const { key, eventId, expected } = await seed(database);
    process.stdout.write(`  seeded in ${((performance.now() - seeded) / 1000).toFixed(1)} s\n`);
    const server = await startProcess(["packages/server/bin/event-service.js", "serve"], {
      PORT: "0",
      DATABASE_URL: database.url,
      LOG_LEVEL: "info",
      WORKERS: undefined,
    });
    try {
      const checked = await verify(server.url, key, eventId, expected);
      notes.push(`${backend.name}: ${checked}.`);
      process.stdout.write(`  checked: ${checked}\n`);
      const json = { authorization: `Bearer ${key}` };
      const cases: Array<[string, string, Record<string, string>, string]> = [
        ["GET /v1/analytics/events/:id", `/v1/analytics/events/${eventId}`, json, "application/json"],
        [
          "GET /v1/events/:id/sustainability-report",
          `/v1/events/${eventId}/sustainability-report`,
          json,
          "application/json",
        ],
        [
          "GET /v1/events/:id/sustainability-report (Accept: text/html)",
          `/v1/events/${eventId}/sustainability-report`,
          { ...json, accept: "text/html" },
          "text/html",
        ],
        [
          "GET /v1/events/:id/activities?limit=100",
          `/v1/events/${eventId}/activities?limit=100`,
          json,
          "application/json",
        ],
      ];
      for (const [name, path, headers, type] of cases) {
        process.stdout.write(`  ${name} (load ${load()})\n`);
        const figures = await time(`${server.url}${path}`, headers, type);
        rows.push(
          `| ${backend.name} | \`${name}\` | ${figures.p50.toFixed(1)} | ${figures.p95.toFixed(1)} | ${figures.max.toFixed(1)} | ${figures.p95 < TARGET_P95_MS ? "yes" : "NO"} |`,
        );
      }
    } finally {
      await stopProcess(server);
    }
  } finally {
    await database.drop();
  }
}

process.stdout.write(
  `\nFootprint: ${cpus().length} x ${cpus()[0]?.model.trim()}, Node ${process.version}; one festival, ` +
    `${REGISTRATIONS.toLocaleString("en")} registrations, ${ACTIVITIES.toLocaleString("en")} activity records; ` +
    `${REQUESTS} sequential requests per endpoint after one warm-up; load average at the end ${load()}.\n` +
    `${notes.join("\n")}\n\n` +
    `| database | endpoint | p50 ms | p95 ms | max ms | p95 < ${TARGET_P95_MS} ms |\n|---|---|---|---|---|---|\n${rows.join("\n")}\n`,
);
