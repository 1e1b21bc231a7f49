/**
 * `npm run bench` (on-sale part): a ticket drop on PostgreSQL. One event with 5,000 places and a
 * waiting list, 10,000 buyers (distinct emails) at 200 connections, against two server
 * processes on one fresh database (`serve --workers 2`: one port, as an operator runs them;
 * the cluster spreads the connections over both). The account has a `*` webhook on an HTTPS
 * receiver (its own process), so every registration writes its notifications to the outbox.
 * Beside it, the ceiling: a bare h3 + pg server (`bench/bare-postgres-server.ts`, two processes
 * too) inserting one row per request into the same database at the same concurrency.
 *
 * Prints registrations/s, p50/p99, the ratio to the bare insert, the CPU time per
 * registration of the server processes and of the database's PostgreSQL backends, and checks
 * (each printed ok or FAILED; the process exits 1 on a failure): exactly 5,000 confirmed and
 * 5,000 waitlisted (answers, API and database), the waiting list's positions 1..5,000 once
 * each, every 201 stored once and every stored row answered once, no two with one email, every
 * notification in the outbox once per registration, and every delivery received once.
 *
 * PostgreSQL comes from BENCH_DATABASE_URL or TEST_DATABASE_URL (an admin connection string); a
 * fresh database is made for the run and dropped after. Without either it prints that it skips.
 * BENCH_ONSALE_BUYERS sets the buyers (default 10,000; the places are half of them);
 * BENCH_PROFILE=<dir> writes V8 CPU profiles of the server's processes there.
 * Not a test: figures depend on the machine and on what else runs on it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import autocannon from "autocannon";
import pg from "pg";
import { createEventService, createSqlStorage } from "@event-service/core";
import { openDatabase } from "@event-service/server";
import { makeCertificate } from "../test/fixtures/conventions.ts";
import { freshPostgres, POSTGRES_ADMIN_URL, POSTGRES_SKIPPED } from "./databases.ts";
import { ROOT, startProcess, stopProcess, type StartedProcess } from "./start-process.ts";

const BUYERS = Number(process.env.BENCH_ONSALE_BUYERS ?? 10_000);
const PLACES = Math.floor(BUYERS / 2);
const CONNECTIONS = 200;
const PROCESSES = 2;
/** Registrations of another event before each timed run: connections opened, code warmed. */
const WARM_UP = 500;

if (!POSTGRES_ADMIN_URL) {
  process.stdout.write(`\nOn-sale (one event on PostgreSQL): ${POSTGRES_SKIPPED}\n`);
  process.exit(0);
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");

const failures: string[] = [];
const checks: string[] = [];
function check(what: string, ok: boolean, detail = ""): void {
  checks.push(`| ${what} | ${ok ? "ok" : "FAILED"}${detail ? ` (${detail})` : ""} |`);
  if (!ok) failures.push(what);
}

/** The user and system CPU time (ms) of each process of `pids`, from /proc. */
function cpuMs(pids: readonly number[]): Map<number, number> {
  const times = new Map<number, number>();
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      // Fields after the command (which may hold spaces) in parentheses: utime and stime are the 12th and 13th.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      times.set(pid, ((Number(fields[11]) + Number(fields[12])) * 1000) / 100);
    } catch {
      // Gone, or not on Linux: counted as nothing.
    }
  }
  return times;
}

/** `pid` and its descendants (the workers of a cluster). */
function processTree(pid: number): number[] {
  const pids = [pid];
  for (let i = 0; i < pids.length; i++) {
    try {
      const children = readFileSync(`/proc/${pids[i]}/task/${pids[i]}/children`, "utf8").trim();
      if (children) pids.push(...children.split(" ").map(Number));
    } catch {
      // Not on Linux, or gone.
    }
  }
  return pids;
}

/** CPU (ms) the processes of `pids()` spent from now until `stop()`; processes that start meanwhile count whole. */
function cpuMeter(pids: () => Promise<number[]>): Promise<{ stop: () => Promise<number> }> {
  return pids().then((initial) => {
    const before = cpuMs(initial);
    return {
      async stop() {
        let spent = 0;
        for (const [pid, ms] of cpuMs(await pids())) spent += ms - (before.get(pid) ?? 0);
        return spent;
      },
    };
  });
}

const database = await freshPostgres("es_onsale_");
const databaseName = new URL(database.url).pathname.slice(1);
const sqlClient = new pg.Client({ connectionString: database.url });
const backends = async () =>
  (
    await sqlClient.query<{ pid: number }>(
      "select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()",
      [databaseName],
    )
  ).rows.map((row) => row.pid);

const { dir, certPath, keyPath } = makeCertificate();
let receiver: ChildProcess | undefined;
let receiverCount: Promise<number> | undefined;
const servers: StartedProcess[] = [];

/** Runs `amount` POSTs of `body(n)` at CONNECTIONS connections; every answer's status and body kept. */
async function drive(url: string, key: string | undefined, amount: number, body: (n: number) => unknown) {
  let n = 0;
  const answers: Array<{ status: number; body: string }> = [];
  const began = performance.now();
  const result = await autocannon({
    url: `${url}/api/attendees`,
    connections: CONNECTIONS,
    amount,
    // A buyer waits for the answer: one dropped after autocannon's default 10 s would be a
    // registration stored without its 201.
    timeout: 120,
    method: "POST",
    headers: { "content-type": "application/json", ...(key && { authorization: `Bearer ${key}` }) },
    requests: [
      {
        setupRequest: (request: autocannon.Request) => ({ ...request, body: JSON.stringify(body(n++)) }),
        onResponse: (status: number, responseBody: string) => {
          answers.push({ status, body: responseBody });
        },
      },
    ],
  });
  const seconds = (performance.now() - began) / 1000;
  // Registrations a second: the 201s, not every answer (a 503 is none).
  const created = answers.filter((answer) => answer.status === 201).length;
  return { rps: created / seconds, p50: result.latency.p50, p99: result.latency.p99, answers, result };
}

/** The receiver of the deliveries (bench/webhook-receiver.ts), and the count it prints when stopped. */
function startReceiver(): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "bench/webhook-receiver.ts", certPath, keyPath], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    receiver = child;
    let err = "";
    child.stderr!.on("data", (chunk: Buffer) => (err += chunk));
    receiverCount = new Promise((done) =>
      child.once("exit", () => done(Number(/(\d+) deliveries taken/.exec(err)?.[1] ?? -1))),
    );
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk;
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once("error", reject);
  });
}

try {
  await sqlClient.connect();
  const receiverUrl = await startReceiver();
  process.stdout.write(`On-sale: seeding the account, the webhook and the events (load ${load()})…\n`);
  const storage = createSqlStorage({ db: await openDatabase({ DATABASE_URL: database.url, DATABASE_POOL_SIZE: 2 }) });
  let key: string;
  let accountId: string;
  const events: Record<"onSale" | "warmUp" | "bare" | "bareWarmUp", string> = {
    onSale: "",
    warmUp: "",
    bare: "",
    bareWarmUp: "",
  };
  try {
    await storage.migrate();
    const service = createEventService({ storage, webhooks: { allowPrivateNetworks: true } });
    ({ key, accountId } = await service.keys.create({
      account: "On sale",
      tier: "enterprise",
      perMinute: 1_000_000,
      perDay: 100_000_000,
    }));
    const account = service.forAccount(accountId);
    const event = (name: string, capacity: number) =>
      account.events.create({
        name,
        location: { address: "Main St 1", city: "Berlin", country: "DE" },
        startDate: "2038-05-01T09:00:00Z",
        endDate: "2038-05-01T17:00:00Z",
        capacity,
        waitlistEnabled: true,
        category: "conference",
      });
    events.onSale = (await event("The drop", PLACES)).id;
    events.warmUp = (await event("Warm-up", 1_000_000)).id;
    events.bare = (await event("Bare inserts", 1_000_000)).id;
    events.bareWarmUp = (await event("Bare warm-up", 1_000_000)).id;
    await account.webhooks.create({ url: `${receiverUrl}onsale`, events: ["*"] });
  } finally {
    await storage.close();
  }
  const buyer = (tag: string, eventId: string) => (n: number) => ({
    eventId,
    firstName: "Buyer",
    lastName: `N${n}`,
    email: `${tag}-${n}@example.com`,
    ticketType: "general",
  });

  // The ceiling first: the bare server inserting into the same database.
  const bare = await startProcess([
    "--import",
    "tsx",
    "bench/bare-postgres-server.ts",
    database.url,
    accountId,
    String(PROCESSES),
  ]);
  servers.push(bare);
  let bareRun: Awaited<ReturnType<typeof drive>>;
  let bareCpu: number;
  let barePgCpu: number;
  try {
    await drive(bare.url, undefined, WARM_UP, buyer("bare-warm", events.bareWarmUp));
    process.stdout.write(`  bare insert: ${BUYERS} at ${CONNECTIONS} connections (load ${load()})\n`);
    const meter = await cpuMeter(async () => processTree(bare.child.pid!));
    const pgMeter = await cpuMeter(backends);
    bareRun = await drive(bare.url, undefined, BUYERS, buyer("bare", events.bare));
    bareCpu = await meter.stop();
    barePgCpu = await pgMeter.stop();
  } finally {
    await stopProcess(bare);
    servers.pop();
  }
  const bareStored = Number(
    (await sqlClient.query("select count(*) as n from attendees where event_id = $1", [events.bare])).rows[0].n,
  );
  check(
    `bare: ${BUYERS} answered 201 and stored`,
    bareRun.result.non2xx === 0 && bareStored === BUYERS,
    `${bareStored} stored`,
  );

  const server = await startProcess(
    [
      ...(process.env.BENCH_PROFILE ? ["--cpu-prof", "--cpu-prof-dir", process.env.BENCH_PROFILE] : []),
      "packages/server/bin/event-service.js",
      "serve",
      "--workers",
      String(PROCESSES),
    ],
    {
      PORT: "0",
      DATABASE_URL: database.url,
      LOG_LEVEL: "info",
      WORKERS: undefined,
      NODE_EXTRA_CA_CERTS: certPath,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
      // A receiver slowed by the load is waited for, not retried: every delivery is then received once.
      WEBHOOK_TIMEOUT_MS: "60000",
    },
    (entry) => entry.workers === PROCESSES,
  );
  servers.push(server);
  let run: Awaited<ReturnType<typeof drive>>;
  let serverCpu: number;
  let pgCpu: number;
  const loadBefore = load();
  try {
    await drive(server.url, key, WARM_UP, buyer("warm", events.warmUp));
    process.stdout.write(
      `  on-sale: ${BUYERS} buyers of ${PLACES} places at ${CONNECTIONS} connections (load ${load()})\n`,
    );
    const serverMeter = await cpuMeter(async () => processTree(server.child.pid!));
    const pgMeter = await cpuMeter(backends);
    run = await drive(server.url, key, BUYERS, buyer("buyer", events.onSale));
    serverCpu = await serverMeter.stop();
    pgCpu = await pgMeter.stop();

    // The API's view, then every delivery out before the server stops.
    const apiEvent = (await (
      await fetch(`${server.url}/api/events/${events.onSale}`, { headers: { authorization: `Bearer ${key}` } })
    ).json()) as { attendeeCount: number; waitlistCount: number };
    check(
      `API: ${PLACES} admitted, ${BUYERS - PLACES} waitlisted`,
      apiEvent.attendeeCount === PLACES && apiEvent.waitlistCount === BUYERS - PLACES,
      `${apiEvent.attendeeCount} / ${apiEvent.waitlistCount}`,
    );
    const deadline = Date.now() + 300_000;
    for (;;) {
      const { rows } = await sqlClient.query(
        "select count(*) as n from webhook_deliveries where status <> 'succeeded'",
      );
      if (Number(rows[0].n) === 0 || Date.now() > deadline) break;
      await new Promise((done) => setTimeout(done, 500));
    }
  } finally {
    await stopProcess(server);
    servers.pop();
  }

  // The answers.
  const statuses = new Map<number, number>();
  for (const answer of run.answers) statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
  const created = run.answers
    .filter((answer) => answer.status === 201)
    .map((answer) => JSON.parse(answer.body) as { id: string; status: string; waitlistPosition: number | null });
  check(
    `every buyer answered 201`,
    created.length === BUYERS && run.answers.length === BUYERS,
    [...statuses].map(([status, count]) => `${count} x ${status}`).join(", "),
  );
  const answeredIds = new Set(created.map((attendee) => attendee.id));
  check("no id answered twice", answeredIds.size === created.length);
  const confirmed = created.filter((attendee) => attendee.status === "confirmed").length;
  const waitlisted = created.filter((attendee) => attendee.status === "waitlisted");
  check(
    `answers: ${PLACES} confirmed, ${BUYERS - PLACES} waitlisted`,
    confirmed === PLACES && waitlisted.length === BUYERS - PLACES,
    `${confirmed} / ${waitlisted.length}`,
  );

  // The database.
  const stored = (
    await sqlClient.query<{ id: string; status: string; email_key: string; waitlist_position: number | null }>(
      "select id, status, email_key, waitlist_position from attendees where event_id = $1",
      [events.onSale],
    )
  ).rows;
  const storedIds = new Set(stored.map((row) => row.id));
  check(
    "every 201 stored once, every row answered",
    stored.length === answeredIds.size && [...answeredIds].every((id) => storedIds.has(id)),
    `${stored.length} rows`,
  );
  check("no email stored twice", new Set(stored.map((row) => row.email_key)).size === stored.length);
  const byStatus = (status: string) => stored.filter((row) => row.status === status).length;
  check(
    `database: ${PLACES} confirmed, ${BUYERS - PLACES} waitlisted`,
    byStatus("confirmed") === PLACES && byStatus("waitlisted") === BUYERS - PLACES,
    `${byStatus("confirmed")} / ${byStatus("waitlisted")}`,
  );
  const positions = stored
    .filter((row) => row.status === "waitlisted")
    .map((row) => Number(row.waitlist_position))
    .sort((a, b) => a - b);
  check(
    `waiting list: positions 1..${BUYERS - PLACES} once each`,
    positions.length === BUYERS - PLACES && positions.every((position, i) => position === i + 1),
  );
  const { rows: kept } = await sqlClient.query("select active_count, waitlist_count from events where id = $1", [
    events.onSale,
  ]);
  check(
    "kept figures agree",
    Number(kept[0].active_count) === PLACES && Number(kept[0].waitlist_count) === BUYERS - PLACES,
  );

  // The outbox: each notification of each registration once.
  const deliveries = (
    await sqlClient.query<{ type: string; payload: string; status: string }>(
      "select type, payload, status from webhook_deliveries",
    )
  ).rows;
  const perType = new Map<string, Map<string, number>>();
  let onSaleDeliveries = 0;
  for (const delivery of deliveries) {
    const data = (
      JSON.parse(delivery.payload) as { data: { attendee?: { id: string; eventId: string }; event?: { id: string } } }
    ).data;
    const subject = data.attendee?.id ?? data.event?.id ?? "";
    if (data.attendee && data.attendee.eventId !== events.onSale) continue;
    if (!data.attendee && data.event?.id !== events.onSale) continue;
    onSaleDeliveries++;
    const counts = perType.get(delivery.type) ?? new Map<string, number>();
    counts.set(subject, (counts.get(subject) ?? 0) + 1);
    perType.set(delivery.type, counts);
  }
  const registered = perType.get("attendee.registered") ?? new Map();
  check(
    "outbox: attendee.registered once per registration",
    registered.size === storedIds.size && [...storedIds].every((id) => registered.get(id) === 1),
    `${[...registered.values()].reduce((a, b) => a + b, 0)} deliveries`,
  );
  for (const [type, counts] of perType)
    check(
      `outbox: ${type} never twice for one subject`,
      [...counts.values()].every((count) => count === 1),
      `${counts.size}`,
    );
  const succeeded = deliveries.filter((delivery) => delivery.status === "succeeded").length;
  receiver!.kill("SIGTERM");
  const received = await receiverCount!;
  check(
    "every delivery succeeded and was received once",
    succeeded === deliveries.length && received === deliveries.length,
    `${deliveries.length} in the outbox (${onSaleDeliveries} of the drop), ${succeeded} succeeded, ${received} received`,
  );

  const ratio = run.rps / bareRun.rps;
  process.stdout.write(
    `\nOn-sale: ${cpus().length} x ${cpus()[0]?.model.trim()}, Node ${process.version}; ${BUYERS} buyers of one event with ${PLACES} places and a waiting list, ` +
      `${CONNECTIONS} connections, ${PROCESSES} processes (serve --workers ${PROCESSES}; the bare server as many, node:cluster) on one PostgreSQL database; ` +
      `a * webhook; load average before ${loadBefore}, at the end ${load()}.\n\n` +
      "| server | registrations (201) /s | p50 / p99 ms | server CPU per registration | PostgreSQL backends' CPU per registration |\n|---|---|---|---|---|\n" +
      `| bare insert (h3 + pg) | ${bareRun.rps.toFixed(0)} | ${bareRun.p50} / ${bareRun.p99} | ${((bareCpu * 1000) / BUYERS).toFixed(0)} µs | ${((barePgCpu * 1000) / BUYERS).toFixed(0)} µs |\n` +
      `| Event Service | ${run.rps.toFixed(0)} | ${run.p50} / ${run.p99} | ${((serverCpu * 1000) / BUYERS).toFixed(0)} µs | ${((pgCpu * 1000) / BUYERS).toFixed(0)} µs |\n` +
      `\nRatio to the bare insert: ${ratio.toFixed(2)}\n\n| check | result |\n|---|---|\n${checks.join("\n")}\n`,
  );
} finally {
  for (const server of servers) await stopProcess(server).catch(() => {});
  if (receiver && receiver.exitCode === null) receiver.kill("SIGTERM");
  await sqlClient.end().catch(() => {});
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
}
if (failures.length > 0) {
  process.stdout.write(`\nFAILED: ${failures.join("; ")}\n`);
  process.exitCode = 1;
}
