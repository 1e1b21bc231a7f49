/**
 * The server's resident memory (VmRSS, Linux) with the settings `npm start` gives (one process,
 * a SQLite file, no METRICS_TOKEN), at start and after the loads of `bench/run.ts`: the same
 * data, the same `*` webhook delivered over HTTPS, and the same runs of our server (read by id,
 * list, /health, registration; BENCH_SECONDS each, 16 connections). With RSS_BARE=1, each run
 * then starts the bare server of bench/run.ts (plain node, see bare-server-script.ts) on the same
 * copy, drives it with the same loads (its own reads and insert) and reads its VmRSS likewise,
 * for the ratio the issue sets (ours at most 1.3 times the bare server's).
 * `npm run build && node --import tsx bench/rss.ts [runs]`: each run starts a server on a fresh
 * copy of the seeded file (no deliveries left over from the run before); prints each run's
 * figures and their medians.
 * RSS_VARIANTS compares servers, alternating between them run by run: a JSON list of
 * `{ "name", "entry"?, "nodeArgs"? }` (the CLI's entry, default the built one, and flags for its
 * `node`), e.g. `[{"name":"as built"},{"name":"semi 4","nodeArgs":["--max-semi-space-size=4"]}]`.
 */
import type { ChildProcess } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { drive } from "./drive.ts";
import { seedBenchData } from "./seed.ts";
import { startProcess, stopProcess } from "./start-process.ts";
import { bareServerScript } from "./bare-server-script.ts";
import { makeCertificate } from "../test/fixtures/conventions.ts";

/** A process's resident set size in MB, from /proc. */
function residentMb(pid: number): number {
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for ${pid}`);
  return Number(kb) / 1024;
}

/** Subscribes a webhook to `*` on the bench account: every registration then writes the outbox. */
async function subscribe(url: string, key: string, target: string): Promise<void> {
  const subscribed = await fetch(`${url}/api/webhooks`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ url: target, events: ["*"] }),
  });
  if (subscribed.status !== 201)
    throw new Error(`subscribing the bench webhook: ${subscribed.status} ${await subscribed.text()}`);
}

interface Variant {
  name: string;
  entry?: string;
  nodeArgs?: string[];
}

/** A fresh copy of the seeded file, named `name`. */
function copyOf(seeded: string, name: string): string {
  const file = join(dir, `${name}.sqlite`);
  copyFileSync(seeded, file);
  return file;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** The bare server's VmRSS after the same loads as ours, on `file`: MB. */
async function bareAfterRuns(file: string, accountId: string, eventId: string, run: number): Promise<number> {
  const bare = await startProcess([bareServerScript(), file, accountId]);
  try {
    for (const [path, options] of [
      [`/api/events/${eventId}`, {}],
      ["/api/events", {}],
      [`/api/events/${eventId}`, {}],
      [
        "/api/attendees",
        {
          post: (n: number) => ({
            eventId,
            firstName: "Bench",
            lastName: `N${n}`,
            email: `rss-bare-${process.pid}-${run}-${n}@example.com`,
            ticketType: "general",
          }),
        },
      ],
    ] as const)
      await drive(bare.url, path, options);
    return residentMb(bare.child.pid!);
  } finally {
    await stopProcess(bare);
  }
}

const runs = Number(process.argv[2] ?? 3);
const withBare = process.env.RSS_BARE === "1";
const variants: Variant[] = process.env.RSS_VARIANTS ? JSON.parse(process.env.RSS_VARIANTS) : [{ name: "as built" }];
const dir = mkdtempSync(join(tmpdir(), "event-service-rss-"));
const seeded = join(dir, "seeded.sqlite");
const tls = makeCertificate();
/** Every process started, killed at the end even when a run fails. */
const started: ChildProcess[] = [];
try {
  const { key, accountId, eventId } = await seedBenchData(seeded);
  const receiver = await startProcess(["--import", "tsx", "bench/webhook-receiver.ts", tls.certPath, tls.keyPath]);
  started.push(receiver.child);
  const figures = new Map<Variant, Array<{ start: number; after: number; bare?: number; rps: number[] }>>(
    variants.map((variant) => [variant, []]),
  );
  for (let run = 0; run < runs * variants.length; run++) {
    const variant = variants[run % variants.length]!;
    const file = copyOf(seeded, `run-${run}`);
    const ours = await startProcess(
      [...(variant.nodeArgs ?? []), variant.entry ?? "packages/server/bin/event-service.js", "serve"],
      {
        PORT: "0",
        DATABASE_URL: file,
        LOG_LEVEL: "info",
        NODE_EXTRA_CA_CERTS: tls.certPath,
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
        METRICS_TOKEN: undefined,
        WORKERS: undefined,
      },
    );
    started.push(ours.child);
    const pid = ours.child.pid!;
    // Past the start's own allocations (migration check, first timers).
    await sleep(1_000);
    const start = residentMb(pid);
    // Through the API, as bench/run.ts does.
    await subscribe(ours.url, key, `${receiver.url}/bench`);
    const attendee = (n: number) => ({
      eventId,
      firstName: "Bench",
      lastName: `N${n}`,
      email: `rss-${process.pid}-${run}-${n}@example.com`,
      ticketType: "general",
    });
    const rps: number[] = [];
    for (const [path, options] of [
      [`/api/events/${eventId}`, { key }],
      ["/api/events?limit=20", { key }],
      ["/health", {}],
      ["/api/attendees", { key, post: attendee }],
    ] as const) {
      const result = await drive(ours.url, path, options);
      if (result.non2xx) process.stdout.write(`  warning: ${result.non2xx} non-2xx answers on ${path}\n`);
      rps.push(result.rps);
    }
    // Read at once, as bench/run.ts does.
    const after = residentMb(pid);
    const exited = new Promise((resolve) => ours.child.once("exit", resolve));
    ours.child.kill("SIGTERM");
    await exited;
    // On a copy of its own: the same rows as ours found, none of ours.
    const bare = withBare ? await bareAfterRuns(copyOf(seeded, `bare-${run}`), accountId, eventId, run) : undefined;
    figures.get(variant)!.push({ start, after, rps, ...(bare !== undefined && { bare }) });
    process.stdout.write(
      `${variant.name}, run ${Math.floor(run / variants.length) + 1}: RSS ${start.toFixed(0)} MB at start, ${after.toFixed(0)} MB after${bare === undefined ? "" : ` (bare ${bare.toFixed(0)} MB, ours / bare ${(after / bare).toFixed(2)})`}; req/s ${rps.map((r) => r.toFixed(0)).join(" / ")} (by id / list / health / register)\n`,
    );
  }
  for (const [variant, runsOf] of figures) {
    const rpsMedians = runsOf[0]!.rps.map((_, i) => median(runsOf.map((f) => f.rps[i]!)).toFixed(0));
    const ratios = runsOf.flatMap((f) => (f.bare === undefined ? [] : [f.after / f.bare]));
    process.stdout.write(
      `${variant.name}, median: RSS ${median(runsOf.map((f) => f.start)).toFixed(0)} MB at start, ${median(runsOf.map((f) => f.after)).toFixed(0)} MB after${ratios.length ? `, ours / bare ${median(ratios).toFixed(2)} (target: at most 1.3)` : ""}; req/s ${rpsMedians.join(" / ")}\n`,
    );
  }
} finally {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
  rmSync(tls.dir, { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
}
