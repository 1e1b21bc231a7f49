/**
 * `npm run bench`: the real server (built CLI, SQLite, auth and rate limiting on) against a bare
 * h3 + better-sqlite3 server doing the same reads, driven by autocannon on loopback.
 * Prints requests/s, p50 and p99 latency and the ratio ours / bare for each endpoint, the
 * server's resident memory after the runs, then where the time of a read by id goes: the CPU
 * time of each step of the hot path, in process.
 * Ours registers attendees with a webhook subscribed to `*` on the bench account (so every
 * registration writes the outbox), delivered over HTTPS to a receiver process answering 204;
 * the bare insert writes the row only.
 * Not a test: figures depend on the machine. BENCH_SECONDS (default 8) sets each run's length.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { createEventService, createHandler, createSqlStorage, SCOPES } from "@event-service/core";
import { FastResponse } from "srvx";
import { CONNECTIONS, drive, type Figures, SECONDS } from "./drive.ts";
import { seedBenchData } from "./seed.ts";
import { startProcess } from "./start-process.ts";
import { bareServerScript } from "./bare-server-script.ts";
import { openSqlite } from "@event-service/server";
import { makeCertificate } from "../test/fixtures/conventions.ts";

/** The target for the server's resident memory after the runs: at most this times the bare server's. */
const RSS_TARGET_RATIO = 1.3;

/** A process's resident set size in MB, from /proc (Linux); undefined elsewhere. */
function residentMb(pid: number | undefined): number | undefined {
  try {
    const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  } catch {
    return undefined;
  }
}

/** CPU microseconds per call of `fn`, after a warm-up: steady under other load, unlike wall time. */
async function cpuMicros(fn: () => Promise<unknown>, calls = 20_000): Promise<number> {
  for (let i = 0; i < 2_000; i++) await fn();
  const start = process.cpuUsage();
  for (let i = 0; i < calls; i++) await fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / calls;
}

/** The hot path of `GET /api/events/:id` step by step, in this process, on the seeded file. */
async function hotPath(file: string, key: string, accountId: string, eventId: string): Promise<string> {
  // Opened as the server opens it (WAL, busy timeout, statement cache).
  const storage = createSqlStorage({ db: openSqlite(file) });
  const service = createEventService({ storage });
  const handler = createHandler(service, { Response: FastResponse });
  const request = new Request(`http://127.0.0.1/api/events/${eventId}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  const windows = { minute: Math.floor(Date.now() / 60_000) * 60, day: Math.floor(Date.now() / 86_400_000) * 86_400 };
  const scope = { baseUrl: "http://127.0.0.1", scopes: SCOPES, tier: "enterprise" } as const;
  // The steps of the path, one row each: edit this list as the path changes.
  const steps: Array<[string, () => Promise<unknown>]> = [
    ["whole handler (auth, rate limit, route, read, JSON)", () => handler(request)],
    ["auth from memory: KeyOperations.authenticate (a remembered key)", () => service.keys.authenticate(key)],
    [
      "a reservation of counts: Storage.reserveRequests (one transaction, every ~100 ms per busy account)",
      () => storage.reserveRequests({ accountId, windows, want: 0, limits: { perMinute: 1e9, perDay: 1e9 } }),
    ],
    ["the account's operations: EventService.forAccount", async () => service.forAccount(accountId, scope)],
    ["the read: Storage.getEvent", () => storage.getEvent(accountId, eventId, service.carbon)],
  ];
  const rows: string[] = [];
  for (const [name, fn] of steps) rows.push(`| ${name} | ${(await cpuMicros(fn)).toFixed(1)} |`);
  await storage.close();
  return `| step | CPU µs per call |\n|---|---|\n${rows.join("\n")}\n`;
}

const dir = mkdtempSync(join(tmpdir(), "event-service-bench-"));
const file = join(dir, "bench.sqlite");
try {
  process.stdout.write(`Seeding 500 events and 10,000 registrations in ${file}…\n`);
  const { key, accountId, eventId } = await seedBenchData(file);
  // The receiver's self-signed certificate for 127.0.0.1, trusted by our server only.
  const tls = makeCertificate();
  const receiver = await startProcess(["--import", "tsx", "bench/webhook-receiver.ts", tls.certPath, tls.keyPath]);
  const ours = await startProcess(["packages/server/bin/event-service.js", "serve"], {
    PORT: "0",
    DATABASE_URL: file,
    LOG_LEVEL: "info",
    NODE_EXTRA_CA_CERTS: tls.certPath,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
  });
  // Plain node, as ours runs: tsx's loader would count in the bare server's memory.
  const bare = await startProcess([bareServerScript(), file, accountId]);
  // Through the API, as a user would: every registration then writes a notification to the outbox.
  const subscribed = await fetch(`${ours.url}/api/webhooks`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ url: `${receiver.url}/bench`, events: ["*"] }),
  });
  if (subscribed.status !== 201)
    throw new Error(`subscribing the bench webhook: ${subscribed.status} ${await subscribed.text()}`);
  process.stdout.write(
    `Webhook subscribed to * on the bench account (${receiver.url}/bench, answering 204): POST /api/attendees writes the outbox.\n`,
  );
  const attendee = (n: number) => ({
    eventId,
    firstName: "Bench",
    lastName: `N${n}`,
    email: `bench-${process.pid}-${n}@example.com`,
    ticketType: "general",
  });
  const bareAttendee = (n: number) => ({ ...attendee(n), email: `bare-${process.pid}-${n}@example.com` });

  const cases: Array<[string, () => Promise<Figures>, () => Promise<Figures>]> = [
    [
      `GET /api/events/:id`,
      () => drive(ours.url, `/api/events/${eventId}`, { key }),
      () => drive(bare.url, `/api/events/${eventId}`),
    ],
    [
      `GET /api/events?limit=20`,
      () => drive(ours.url, "/api/events?limit=20", { key }),
      () => drive(bare.url, "/api/events"),
    ],
    // The floor of our stack against the bare read: no key, no rate limit, no query (the
    // store's health is remembered for a second), the log line and the headers. No read with
    // auth can beat it.
    [
      `GET /health (ours) vs the bare read by id`,
      () => drive(ours.url, "/health"),
      () => drive(bare.url, `/api/events/${eventId}`),
    ],
    // Last, so the deliveries it queues do not run during the other runs.
    [
      `POST /api/attendees (ours: webhook on *)`,
      () => drive(ours.url, "/api/attendees", { key, post: attendee }),
      () => drive(bare.url, "/api/attendees", { post: bareAttendee }),
    ],
  ];
  const rows: string[] = [];
  for (const [name, runOurs, runBare] of cases) {
    const b = await runBare();
    const o = await runOurs();
    if (o.non2xx || b.non2xx) process.stdout.write(`  warning: non-2xx answers (ours ${o.non2xx}, bare ${b.non2xx})\n`);
    rows.push(
      `| ${name} | ${o.rps.toFixed(0)} | ${o.p50} / ${o.p99} | ${b.rps.toFixed(0)} | ${b.p50} / ${b.p99} | ${((100 * o.rps) / b.rps).toFixed(0)}% |`,
    );
  }
  process.stdout.write(
    `\nMachine: ${cpus().length} x ${cpus()[0]?.model.trim()}, Node ${process.version}; autocannon ${CONNECTIONS} connections, ${SECONDS} s per run.\n\n` +
      "| endpoint | ours req/s | ours p50 / p99 ms | bare req/s | bare p50 / p99 ms | ours / bare |\n|---|---|---|---|---|---|\n" +
      `${rows.join("\n")}\n`,
  );
  const rss = residentMb(ours.child.pid);
  const bareRss = residentMb(bare.child.pid);
  process.stdout.write(
    rss === undefined || bareRss === undefined
      ? "\nServer RSS after the runs: unknown (no /proc)\n"
      : `\nServer RSS after the runs: ours ${rss.toFixed(0)} MB, bare ${bareRss.toFixed(0)} MB, ours / bare ${(rss / bareRss).toFixed(2)} (target: at most ${RSS_TARGET_RATIO})\n`,
  );
  ours.child.kill("SIGTERM");
  bare.child.kill("SIGTERM");
  receiver.child.kill("SIGTERM");
  rmSync(tls.dir, { recursive: true, force: true });
  process.stdout.write(
    `\nWhere a read by id goes, in process (no HTTP):\n\n${await hotPath(file, key, accountId, eventId)}`,
  );
} finally {
  setTimeout(() => rmSync(dir, { recursive: true, force: true }), 500);
}
