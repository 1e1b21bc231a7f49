/**
 * `npm run bench`: the real server (built CLI, SQLite, auth and rate limiting on) against a bare
 * h3 + better-sqlite3 server doing the same reads, driven by autocannon on loopback, at 16 and at
 * 50 connections.
 * Prints requests/s, p50 and p99 latency, each server's CPU time per request (from /proc) and the
 * ratio ours / bare for each endpoint, the server's resident memory after the runs, then where the
 * time of a read by id goes: the CPU time of each step of the hot path, in process.
 * Ours registers attendees twice against a bare insert run just before: first with no webhook,
 * then with a webhook subscribed to `*` on the bench account (so every registration writes the
 * outbox), delivered over HTTPS to a receiver process answering 204; the bare insert writes the
 * row only. The CPU per registration with the webhook counts until every delivery is made.
 * Not a test: figures depend on the machine. BENCH_SECONDS (default 8) sets each run's length.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createEventService, createHandler, createSqlStorage, SCOPES } from "@event-service/core";
import Database from "better-sqlite3";
import { FastResponse } from "srvx";
import { cpuSeconds, drive, type Figures, loadAverage, SECONDS } from "./drive.ts";
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

/** The connections each case runs at: the targets hold at both. */
const CONNECTION_COUNTS = [16, 50];

/** A run's figures and the server's CPU time per request in it. */
interface Measured extends Figures {
  cpuMicros: number | undefined;
}

/** Runs `run` against the process `pid`, reading its CPU time around it (and until `settled`, if given). */
async function measured(
  pid: number | undefined,
  run: () => Promise<Figures>,
  settled?: () => Promise<void>,
): Promise<Measured> {
  const before = cpuSeconds(pid);
  const figures = await run();
  await settled?.();
  const after = cpuSeconds(pid);
  const cpuMicros =
    before === undefined || after === undefined || figures.requests === 0
      ? undefined
      : ((after - before) * 1e6) / figures.requests;
  return { ...figures, cpuMicros };
}

const micros = (value: number | undefined) => (value === undefined ? "?" : value.toFixed(0));

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
  // Read-only, to see the outbox drain after the runs with the webhook.
  const observer = new Database(file, { readonly: true });
  const pendingDeliveries = observer
    .prepare("select count(*) from webhook_deliveries where status = 'pending'")
    .pluck();
  async function deliveriesMade(): Promise<void> {
    const deadline = Date.now() + 120_000;
    while ((pendingDeliveries.get() as number) > 0 && Date.now() < deadline) await sleep(100);
  }

  // Each registration run has emails of its own: the service refuses a second registration of one.
  let runs = 0;
  const registrations = () => {
    const run = ++runs;
    return {
      ours: (n: number) => ({
        eventId,
        firstName: "Bench",
        lastName: `N${n}`,
        email: `bench-${process.pid}-${run}-${n}@example.com`,
        ticketType: "general",
      }),
      bare: (n: number) => ({
        eventId,
        firstName: "Bench",
        lastName: `N${n}`,
        email: `bare-${process.pid}-${run}-${n}@example.com`,
        ticketType: "general",
      }),
    };
  };

  const rows: string[] = [];
  function row(name: string, connections: number, o: Measured, b: Measured, target: string): void {
    if (o.non2xx || b.non2xx) process.stdout.write(`  warning: non-2xx answers (ours ${o.non2xx}, bare ${b.non2xx})\n`);
    const line = `| ${name} | ${connections} | ${o.rps.toFixed(0)} | ${o.p50} / ${o.p99} | ${micros(o.cpuMicros)} | ${b.rps.toFixed(0)} | ${b.p50} / ${b.p99} | ${micros(b.cpuMicros)} | ${((100 * o.rps) / b.rps).toFixed(0)}% | ${target} | ${loadAverage()} |`;
    rows.push(line);
    process.stdout.write(`${line}\n`);
  }
  const oursPid = ours.child.pid;
  const barePid = bare.child.pid;

  // Warmed first (unmeasured), so that the first rows do not pay for the JIT's start.
  for (const path of [`/api/events/${eventId}`, "/api/events?limit=20"]) {
    await drive(bare.url, path.split("?")[0]!, { amount: 5_000 });
    await drive(ours.url, path, { key, amount: 5_000 });
  }
  for (const connections of CONNECTION_COUNTS) {
    const byIdBare = await measured(barePid, () => drive(bare.url, `/api/events/${eventId}`, { connections }));
    const byId = await measured(oursPid, () => drive(ours.url, `/api/events/${eventId}`, { key, connections }));
    row("GET /api/events/:id", connections, byId, byIdBare, ">= 60%");
    const listBare = await measured(barePid, () => drive(bare.url, "/api/events", { connections }));
    const list = await measured(oursPid, () => drive(ours.url, "/api/events?limit=20", { key, connections }));
    row("GET /api/events?limit=20", connections, list, listBare, ">= 60%");
    // The floor of our stack against the bare read just measured: no key, no rate limit, no
    // query (the store's health is remembered for a second), the log line and the headers. No
    // read with auth can beat it.
    const health = await measured(oursPid, () => drive(ours.url, "/health", { connections }));
    row("GET /health (ours) vs the bare read by id", connections, health, byIdBare, "");
  }
  // Registrations last, so the rows they add do not change the reads' runs.
  for (const connections of CONNECTION_COUNTS) {
    const post = registrations();
    const insert = await measured(barePid, () => drive(bare.url, "/api/attendees", { post: post.bare, connections }));
    const registered = await measured(oursPid, () =>
      drive(ours.url, "/api/attendees", { key, post: post.ours, connections }),
    );
    row("POST /api/attendees (no webhook) vs a bare insert", connections, registered, insert, ">= 40%");
  }
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
  for (const connections of CONNECTION_COUNTS) {
    const post = registrations();
    const insert = await measured(barePid, () => drive(bare.url, "/api/attendees", { post: post.bare, connections }));
    const began = Date.now();
    const registered = await measured(
      oursPid,
      () => drive(ours.url, "/api/attendees", { key, post: post.ours, connections }),
      deliveriesMade,
    );
    process.stdout.write(
      `  the outbox drained ${((Date.now() - began) / 1000 - SECONDS).toFixed(1)} s after the run\n`,
    );
    row("POST /api/attendees (webhook on *, delivered) vs a bare insert", connections, registered, insert, ">= 35%");
  }
  observer.close();
  process.stdout.write(
    `\nMachine: ${cpus().length} x ${cpus()[0]?.model.trim()}, Node ${process.version}; autocannon, ${SECONDS} s per run.\n\n` +
      "| endpoint | connections | ours req/s | ours p50 / p99 ms | ours CPU µs/req | bare req/s | bare p50 / p99 ms | bare CPU µs/req | ours / bare | target | load |\n|---|---|---|---|---|---|---|---|---|---|---|\n" +
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
