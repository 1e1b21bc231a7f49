/**
 * `npm run bench` (door part): a door handles a queue of people. Seeds one published event with
 * 20,000 registrations (BENCH_DOOR_REGISTRATIONS), all confirmed and free (admitted), written in
 * bulk through kysely with the event's kept figures and tallies as the service keeps them; starts
 * the real server (built CLI) with the check-in link's budget lifted (DOOR_LINK_LIMIT_PER_MINUTE),
 * makes the door's check-in link through the API, then:
 * - downloads the offline list several times (BENCH_DOOR_DOWNLOADS, default 10) before and after
 *   the queue: its size, its gzip size, whether the server compressed it, min / median / max of
 *   the download; the target is every download under 1 s on loopback;
 * - scans every registration once through `POST /v1/check-in/:token/scan`, a different code each
 *   request, from autocannon's connections at once (several doors on one link): scans per second,
 *   p50 and p99; then checks that each scan checked one person in.
 *
 * Runs on a SQLite file, and on PostgreSQL when BENCH_DATABASE_URL or TEST_DATABASE_URL (an
 * admin connection string) is set: a fresh database, vacuumed and analysed once seeded, dropped after.
 * Not a test: figures depend on the machine and on what else runs on it.
 */
import { createHash } from "node:crypto";
import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { gzipSync } from "node:zlib";
import { createEventService, createSqlStorage } from "@event-service/core";
import { openDatabase } from "@event-service/server";
import { sql } from "kysely";
import type { AttendeeRecord } from "../packages/core/src/resources/attendee.ts";
import { insertRegistrations, parameterLimit } from "./bulk-registrations.ts";
import { type FreshDatabase, freshPostgres, freshSqlite, POSTGRES_ADMIN_URL, POSTGRES_SKIPPED } from "./databases.ts";
import { CONNECTIONS, drive } from "./drive.ts";
import { startProcess, stopProcess } from "./start-process.ts";

const REGISTRATIONS = Number(process.env.BENCH_DOOR_REGISTRATIONS ?? 20_000);
const DOWNLOADS = Number(process.env.BENCH_DOOR_DOWNLOADS ?? 10);
const TARGET_DOWNLOAD_MS = 1_000;

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

/** The `n`th registration's confirmation code, in its stored form: `EVT-` and 8 base-36 digits of `n`. */
function codeOf(n: number): string {
  const digits = n.toString(36).toUpperCase().padStart(8, "0");
  return `EVT-${digits.slice(0, 4)}-${digits.slice(4)}`;
}

/** The `n`th seeded registration of the event: confirmed, free, not checked in. */
function registration(accountId: string, eventId: string, n: number): AttendeeRecord {
  const registered = new Date(Date.parse("2038-03-01T00:00:00.000Z") + n * 60_000).toISOString();
  return {
    id: `att_door${String(n).padStart(8, "0")}`,
    accountId,
    eventId,
    firstName: ["Ada", "Grace", "Alan", "Katherine", "Tim", "Margaret"][n % 6]!,
    lastName: `Doorgoer ${n}`,
    email: `door${n}@example.com`,
    phone: null,
    company: null,
    title: null,
    ticketType: n % 10 === 0 ? "vip" : "general",
    dietaryPreferences: [],
    accessibilityNeeds: null,
    carbonOffset: null,
    emergencyContact: null,
    customFields: {},
    status: "confirmed",
    waitlistPosition: null,
    confirmationCode: codeOf(n),
    registrationDate: registered,
    updatedAt: registered,
    checkedInAt: null,
    cancelledAt: null,
    payment: null,
  };
}

interface BenchDatabase extends FreshDatabase {
  postgres: boolean;
}

async function seed(database: BenchDatabase): Promise<{ key: string; eventId: string }> {
  const db = await openDatabase({ DATABASE_URL: database.url, DATABASE_POOL_SIZE: 2 });
  const storage = createSqlStorage({ db });
  try {
    await storage.migrate();
    const service = createEventService({ storage });
    const { key, accountId } = await service.keys.create({
      account: "Door Bench",
      tier: "enterprise",
      perMinute: 1_000_000,
      perDay: 100_000_000,
    });
    const organiser = service.forAccount(accountId);
    const event = await organiser.events.create({
      name: "Door Bench Festival",
      description: "One gate, a queue of 20,000: seeded for the door benchmark",
      location: { address: "Worthy Farm", city: "Pilton", country: "GB" },
      startDate: "2038-07-01T10:00:00Z",
      endDate: "2038-07-04T23:00:00Z",
      capacity: REGISTRATIONS,
      category: "festival",
    });
    // The door checks people in only while its event is published.
    await organiser.events.update(event.id, { status: "published" });
    await insertRegistrations(db, storage, {
      eventId: event.id,
      count: REGISTRATIONS,
      parameters: parameterLimit(database.postgres),
      record: (n) => registration(accountId, event.id, n),
    });
    // What autovacuum does after a bulk load: without it the plans are guessed from an empty table's.
    if (database.postgres) await sql`vacuum analyze`.execute(db);
    return { key, eventId: event.id };
  } finally {
    await storage.close();
  }
}

/** A GET of the door's JSON twin, failing the run unless it answers 200. */
async function getJson(url: string): Promise<any> {
  const response = await fetch(url);
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

const median = (sorted: number[]) => sorted[Math.floor((sorted.length - 1) / 2)]!;

interface ListFigures {
  bytes: number;
  gzipBytes: number;
  encoding: string;
  minMs: number;
  medianMs: number;
  maxMs: number;
}

/**
 * Downloads the offline list DOWNLOADS times after one warm-up, as a browser asks for it (gzip,
 * deflate and br accepted), and checks the last one holds every registration with the hash of
 * the first one's code.
 */
async function downloadList(doorUrl: string, checkedIn: number | null): Promise<ListFigures> {
  const once = async () => {
    const began = performance.now();
    // Node's fetch decodes a compressed body; its header tells whether there was one.
    const response = await fetch(`${doorUrl}/offline-list`, { headers: { "accept-encoding": "gzip, deflate, br" } });
    const body = Buffer.from(await response.arrayBuffer());
    const took = performance.now() - began;
    if (response.status !== 200) throw new Error(`offline list: ${response.status} ${body}`);
    return { took, body, encoding: response.headers.get("content-encoding") ?? "none" };
  };
  let last = await once();
  const samples: number[] = [];
  for (let i = 0; i < DOWNLOADS; i++) {
    last = await once();
    samples.push(last.took);
  }
  const list = JSON.parse(last.body.toString("utf8")) as {
    attendees: Array<{ codeHash: string; status: string; checkedInAt: string | null }>;
  };
  const problems: string[] = [];
  if (list.attendees.length !== REGISTRATIONS)
    problems.push(`${list.attendees.length} entries, expected ${REGISTRATIONS}`);
  const first = createHash("sha256").update(codeOf(0)).digest("hex");
  if (!list.attendees.some((entry) => entry.codeHash === first)) problems.push(`no entry has ${codeOf(0)}'s hash`);
  const inList = list.attendees.filter((entry) => entry.status === "checked-in" && entry.checkedInAt).length;
  if (checkedIn !== null && inList !== checkedIn) problems.push(`${inList} checked in, expected ${checkedIn}`);
  if (problems.length) throw new Error(`The offline list is not the event's:\n  ${problems.join("\n  ")}`);
  samples.sort((a, b) => a - b);
  return {
    bytes: last.body.length,
    gzipBytes: gzipSync(last.body).length,
    encoding: last.encoding,
    minMs: samples[0]!,
    medianMs: median(samples),
    maxMs: samples[samples.length - 1]!,
  };
}

const BACKENDS: Array<{ name: string; open: (() => Promise<BenchDatabase>) | string }> = [
  { name: "SQLite", open: async () => ({ ...freshSqlite("event-service-bench-door-"), postgres: false }) },
  {
    name: "PostgreSQL",
    open: POSTGRES_ADMIN_URL
      ? async () => ({ ...(await freshPostgres("es_bench_door_")), postgres: true })
      : POSTGRES_SKIPPED,
  },
];

const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;
const scanRows: string[] = [];
const listRows: string[] = [];
for (const backend of BACKENDS) {
  if (typeof backend.open === "string") {
    scanRows.push(`| ${backend.name} | ${backend.open} | | | | |`);
    listRows.push(`| ${backend.name} | ${backend.open} | | | | | |`);
    continue;
  }
  const database = await backend.open();
  try {
    process.stdout.write(
      `${backend.name}: seeding 1 event and ${REGISTRATIONS.toLocaleString("en")} registrations (load ${load()})…\n`,
    );
    const seeded = performance.now();
    const { key, eventId } = await seed(database);
    process.stdout.write(`  seeded in ${((performance.now() - seeded) / 1000).toFixed(1)} s\n`);
    const server = await startProcess(["packages/server/bin/event-service.js", "serve"], {
      PORT: "0",
      DATABASE_URL: database.url,
      LOG_LEVEL: "info",
      WORKERS: undefined,
      // The queue is far faster than any door: the link's own budget would refuse most of it.
      DOOR_LINK_LIMIT_PER_MINUTE: "1000000000",
    });
    try {
      const created = await fetch(`${server.url}/v1/events/${eventId}/check-in-links`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ label: "Main gate" }),
      });
      if (created.status !== 201) throw new Error(`the check-in link: ${created.status} ${await created.text()}`);
      const doorUrl = ((await created.json()) as { url: string }).url;
      const doorPath = new URL(doorUrl).pathname;
      const before = await getJson(doorUrl);
      if (before.counts.checkedIn !== 0 || before.counts.expected !== REGISTRATIONS)
        throw new Error(`the door before the queue: ${JSON.stringify(before.counts)}`);

      process.stdout.write(`  the offline list, ${DOWNLOADS} downloads, nobody in yet (load ${load()})\n`);
      const empty = await downloadList(doorUrl, 0);

      process.stdout.write(
        `  ${REGISTRATIONS.toLocaleString("en")} scans, ${CONNECTIONS} connections (load ${load()})\n`,
      );
      const scans = await drive(server.url, `${doorPath}/scan`, {
        amount: REGISTRATIONS,
        post: (n) => ({ code: codeOf(n) }),
      });
      const after = await getJson(doorUrl);
      const repeat = await fetch(`${doorUrl}/scan`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ code: codeOf(0) }),
      });
      const repeated = (await repeat.json()) as { result: string };
      if (scans.non2xx || after.counts.checkedIn !== REGISTRATIONS || repeated.result !== "already_checked_in")
        throw new Error(
          `the queue did not check everyone in once: ${scans.non2xx} non-2xx, ${JSON.stringify(after.counts)}, a repeat ${repeated.result}`,
        );
      scanRows.push(
        `| ${backend.name} | ${REGISTRATIONS.toLocaleString("en")} | ${scans.rps.toFixed(0)} | ${scans.p50} | ${scans.p99} | ${after.counts.checkedIn.toLocaleString("en")} of ${after.counts.expected.toLocaleString("en")} |`,
      );

      process.stdout.write(`  the offline list, ${DOWNLOADS} downloads, everyone in (load ${load()})\n`);
      const full = await downloadList(doorUrl, REGISTRATIONS);
      for (const [when, figures] of [
        ["nobody checked in", empty],
        ["everyone checked in", full],
      ] as const) {
        listRows.push(
          `| ${backend.name} | ${when} | ${kb(figures.bytes)} | ${kb(figures.gzipBytes)} | ${figures.encoding} | ${figures.minMs.toFixed(0)} / ${figures.medianMs.toFixed(0)} / ${figures.maxMs.toFixed(0)} | ${figures.maxMs < TARGET_DOWNLOAD_MS ? "yes" : "NO"} |`,
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
  `\nDoor: ${cpus().length} x ${cpus()[0]?.model.trim()}, Node ${process.version}; one published event of ` +
    `${REGISTRATIONS.toLocaleString("en")} confirmed registrations, one check-in link; load average at the end ${load()}.\n\n` +
    `Scans through POST /v1/check-in/:token/scan, each registration's code once, ${CONNECTIONS} connections at once:\n\n` +
    `| database | scans | scans/s | p50 ms | p99 ms | checked in after |\n|---|---|---|---|---|---|\n${scanRows.join("\n")}\n\n` +
    `GET /v1/check-in/:token/offline-list, ${DOWNLOADS} downloads after one warm-up (gzip: what the body would be compressed, level 6; ` +
    `"encoding": what the server sent for Accept-Encoding: gzip, deflate, br):\n\n` +
    `| database | when | size | gzip | encoding | min / median / max ms | every download < ${TARGET_DOWNLOAD_MS} ms |\n|---|---|---|---|---|---|---|\n${listRows.join("\n")}\n`,
);
