/**
 * Where a request's CPU goes, ours against the bare server: each case runs on a fresh copy of one
 * seeded SQLite file, with each server process started under `node --cpu-prof`, warmed, driven by
 * autocannon and stopped (SIGTERM, so the profile is written); the profiles' self time is then
 * grouped by what it does (Node's HTTP layer, srvx/h3, web objects, pino, JSON, SQLite…) through
 * the bundle's source map, and printed as a table of shares of the main thread's samples and
 * those shares of the process's CPU time per request (read from /proc around the run). Samples
 * are taken in wall time: on a loaded machine the shares hold better than the sampled times.
 * `node --import tsx bench/profile.ts [by-id|list|register|register-webhook]...` after
 * `npm run build`. PROFILE_DIR keeps the profiles (default: a temporary directory, removed).
 * Not a test: figures depend on the machine. BENCH_SECONDS (default 8) sets each run's length.
 */
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { SourceMap } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { makeCertificate } from "../test/fixtures/conventions.ts";
import { cpuSeconds, drive, type Figures, loadAverage } from "./drive.ts";
import { seedBenchData } from "./seed.ts";
import { startProcess, stopProcess } from "./start-process.ts";

/** A V8 `.cpuprofile`, the parts read here. */
interface CpuProfile {
  nodes: Array<{
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  }>;
  samples: number[];
  timeDeltas: number[];
}

/** What the groups are, in the order the table shows them, by a test on the source's path and the function's name. */
const GROUPS: Array<[group: string, test: (source: string, name: string) => boolean]> = [
  [
    "socket write (native writev)",
    (s, n) => s === "" && /^(writev|writeUtf8String|writeLatin1String|writeBuffer)$/.test(n),
  ],
  ["garbage collection", (s, n) => s === "" && n === "(garbage collector)"],
  [
    "Node's HTTP layer (http, net, streams, events, ticks)",
    (s) =>
      /^node:(internal\/)?(_http|http|net|stream|streams|events|process\/task_queues|timers|internal\/timers|dns|tls|_tls|buffer)/.test(
        s,
      ) ||
      /^node:internal\/(streams|stream_base_commons|http|process\/task_queues|timers|buffer|event_target|net|async_hooks)/.test(
        s,
      ),
  ],
  ["srvx and h3 (the adapter, routing)", (s) => /node_modules\/(srvx|h3|rou3)\//.test(s)],
  [
    "web objects (Request, Headers, URL)",
    (s) =>
      /^node:(internal\/)?(url|deps\/undici|webstreams|internal\/webstreams|internal\/deps\/undici|internal\/url)/.test(
        s,
      ),
  ],
  [
    "pino (the request log)",
    (s) =>
      /node_modules\/(pino|sonic-boom|thread-stream|pino-std-serializers|quick-format-unescaped|fast-redact|safe-stable-stringify|on-exit-leak-free|atomic-sleep)\//.test(
        s,
      ) || /server\/src\/log\.ts$/.test(s),
  ],
  [
    "prom-client (metrics)",
    (s) => /node_modules\/(prom-client|tdigest|bintrees)\//.test(s) || /server\/src\/metrics\.ts$/.test(s),
  ],
  ["connection tracking", (s) => /server\/src\/connections\.ts$/.test(s)],
  ["rate-limit counts and headers", (s) => /core\/src\/http\/(rate-limit|request-counter)\.ts$/.test(s)],
  [
    "JSON (stringify, parse, the JSON response)",
    (s, n) =>
      (s === "" && /^(stringify|parse|JSON\.stringify|JSON\.parse)$/.test(n)) ||
      /core\/src\/http\/respond\.ts$/.test(s),
  ],
  [
    "SQLite (better-sqlite3, our driver, kysely, sql/)",
    (s, n) =>
      /node_modules\/(better-sqlite3|kysely)\//.test(s) ||
      /core\/src\/(sql\/|sqlite)/.test(s) ||
      (s === "" && /^(all|get|run|iterate|raw|pluck|exec|prepare)$/.test(n)),
  ],
  ["zod (validation)", (s) => /node_modules\/zod\//.test(s)],
  ["crypto (hashes, ids, signatures)", (s) => /^node:(internal\/)?crypto/.test(s) || /node_modules\/@noble\//.test(s)],
  ["our code: core's handler (http/)", (s) => /core\/src\/http\//.test(s)],
  ["our code: the rest of core", (s) => /core\/src\//.test(s)],
  ["our code: the server package", (s) => /server\/src\//.test(s)],
  ["the bare server's own code", (s) => /bench\/bare-server\.ts$/.test(s)],
  [
    "module loading and start-up",
    (s) =>
      /^node:(internal\/)?(modules|bootstrap|vm|internal\/modules|internal\/bootstrap)/.test(s) ||
      /node_modules\/(tsx|esbuild|get-tsconfig)\//.test(s),
  ],
  ["other Node internals", (s) => s.startsWith("node:")],
  ["(program) and other native", (s) => s === ""],
  ["other packages", () => true],
];

const sourceMaps = new Map<string, SourceMap | null>();

/** The original source of a profile frame: through the file's source map when it has one (our bundle). */
function originalSource(url: string, line: number, column: number): string {
  if (!url.startsWith("file://")) return url;
  const path = fileURLToPath(url);
  let map = sourceMaps.get(path);
  if (map === undefined) {
    map = existsSync(`${path}.map`) ? new SourceMap(JSON.parse(readFileSync(`${path}.map`, "utf8"))) : null;
    sourceMaps.set(path, map);
  }
  if (!map) return path;
  const entry = map.findEntry(line, column) as { originalSource?: string };
  return entry.originalSource ?? path;
}

/** Self time (µs) by group, and the busy total, of one profile. */
function groupProfile(file: string): { busy: number; groups: Map<string, number> } {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const self = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++)
    self.set(profile.samples[i]!, (self.get(profile.samples[i]!) ?? 0) + (profile.timeDeltas[i] ?? 0));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const groups = new Map<string, number>();
  let busy = 0;
  for (const [id, micros] of self) {
    const { functionName, url, lineNumber, columnNumber } = byId.get(id)!.callFrame;
    // Idle, or pino's writes of its buffer at exit waiting on the pipe (sleeping, not CPU).
    if (functionName === "(idle)" || url.includes("/atomic-sleep/")) continue;
    busy += micros;
    const source = originalSource(url, lineNumber, columnNumber);
    const group = GROUPS.find(([, test]) => test(source, functionName))![0];
    groups.set(group, (groups.get(group) ?? 0) + micros);
  }
  return { busy, groups };
}

/** One server's profile of one case: the grouped self time, the requests it holds and the process's CPU per request. */
interface Profiled {
  busy: number;
  groups: Map<string, number>;
  /** Requests the profile holds: the warm-up's and the run's. */
  requests: number;
  cpuMicros: number;
  figures: Figures;
}

/** Requests each server is warmed with before the measured run (the profile holds them too). */
const WARM_REQUESTS = 3_000;

/** Starts `args` under the profiler, warms it, drives it, stops it and groups its profile. */
async function profiled(
  args: string[],
  env: Record<string, string>,
  profileDir: string,
  run: (url: string) => Promise<Figures>,
  prepare: (url: string) => Promise<void>,
): Promise<Profiled> {
  const server = await startProcess(["--cpu-prof", `--cpu-prof-dir=${profileDir}`, ...args], env);
  await prepare(server.url);
  const before = cpuSeconds(server.child.pid)!;
  const figures = await run(server.url);
  const cpuMicros = ((cpuSeconds(server.child.pid)! - before) * 1e6) / figures.requests;
  await stopProcess(server);
  const [profile] = readdirSync(profileDir).filter((name) => name.endsWith(".cpuprofile"));
  if (!profile) throw new Error(`no profile written in ${profileDir}`);
  return { ...groupProfile(join(profileDir, profile)), requests: WARM_REQUESTS + figures.requests, cpuMicros, figures };
}

/** The table of one case: each group's share of the busy time and its CPU µs per request, ours and bare. */
function table(name: string, ours: Profiled, bare: Profiled): string {
  const line = (group: string) => {
    const o = ours.groups.get(group) ?? 0;
    const b = bare.groups.get(group) ?? 0;
    if (o / ours.busy < 0.001 && b / bare.busy < 0.001) return undefined;
    const cell = (micros: number, p: Profiled) =>
      `${((100 * micros) / p.busy).toFixed(1)}% | ${((micros / p.busy) * p.cpuMicros).toFixed(1)}`;
    return `| ${group} | ${cell(o, ours)} | ${cell(b, bare)} |`;
  };
  const lines = GROUPS.map(([group]) => line(group)).filter((row) => row !== undefined);
  return (
    `### ${name}\n\nours ${ours.figures.rps.toFixed(0)} req/s, ${ours.cpuMicros.toFixed(0)} µs CPU per request; ` +
    `bare ${bare.figures.rps.toFixed(0)} req/s, ${bare.cpuMicros.toFixed(0)} µs (load ${loadAverage()})\n\n` +
    "| group | ours % | ours µs/req | bare % | bare µs/req |\n|---|---|---|---|---|\n" +
    `${lines.join("\n")}\n| the process's CPU per request (every thread, from /proc, the run only) | 100% | ${ours.cpuMicros.toFixed(1)} | 100% | ${bare.cpuMicros.toFixed(1)} |\n`
  );
}

const CASES = ["by-id", "list", "register", "register-webhook"] as const;
type Case = (typeof CASES)[number];
const chosen = (process.argv.slice(2).length ? process.argv.slice(2) : CASES) as Case[];
for (const name of chosen)
  if (!CASES.includes(name)) throw new Error(`unknown case ${name}; cases: ${CASES.join(", ")}`);

const dir = process.env.PROFILE_DIR ?? mkdtempSync(join(tmpdir(), "event-service-profile-"));
const seeded = join(dir, "seeded.sqlite");
const tls = makeCertificate();
try {
  process.stdout.write(`Seeding ${seeded}…\n`);
  const { key, accountId, eventId } = await seedBenchData(seeded);
  const receiver = await startProcess(["--import", "tsx", "bench/webhook-receiver.ts", tls.certPath, tls.keyPath]);
  let runs = 0;
  for (const name of chosen) {
    const results: Profiled[] = [];
    for (const side of ["ours", "bare"] as const) {
      const file = join(dir, `${name}-${side}.sqlite`);
      copyFileSync(seeded, file);
      const profileDir = join(dir, `${name}-${side}`);
      rmSync(profileDir, { recursive: true, force: true });
      const run = ++runs;
      const post = (n: number) => ({
        eventId,
        firstName: "Bench",
        lastName: `N${n}`,
        email: `${side}-${run}-${n}@example.com`,
        ticketType: "general",
      });
      const path =
        name === "by-id" ? `/api/events/${eventId}` : name === "list" ? "/api/events?limit=20" : "/api/attendees";
      const options = side === "ours" ? { key } : {};
      const drivePath = side === "bare" && name === "list" ? "/api/events" : path;
      const isPost = name.startsWith("register");
      results.push(
        await profiled(
          side === "ours"
            ? ["packages/server/bin/event-service.js", "serve"]
            : ["--import", "tsx", "bench/bare-server.ts", file, accountId],
          side === "ours"
            ? {
                PORT: "0",
                DATABASE_URL: file,
                LOG_LEVEL: "info",
                NODE_EXTRA_CA_CERTS: tls.certPath,
                WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
              }
            : {},
          profileDir,
          (url) => drive(url, drivePath, { ...options, connections: 50, ...(isPost && { post }) }),
          async (url) => {
            if (side === "ours" && name === "register-webhook") {
              const subscribed = await fetch(`${url}/api/webhooks`, {
                method: "POST",
                headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
                body: JSON.stringify({ url: `${receiver.url}/bench`, events: ["*"] }),
              });
              if (subscribed.status !== 201) throw new Error(`subscribing: ${subscribed.status}`);
            }
            // Warmed on the same requests (unmeasured; the profile holds them too, a small share).
            await drive(url, drivePath, {
              ...options,
              amount: 3_000,
              ...(isPost && { post: (n: number) => post(-1 - n) }),
            });
          },
        ),
      );
    }
    process.stdout.write(`\n${table(`${name}, 50 connections`, results[0]!, results[1]!)}`);
  }
  await stopProcess(receiver);
} finally {
  rmSync(tls.dir, { recursive: true, force: true });
  if (process.env.PROFILE_DIR === undefined) rmSync(dir, { recursive: true, force: true });
}
