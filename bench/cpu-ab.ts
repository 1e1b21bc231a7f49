/**
 * A/B of the server's CPU time per request between builds: each tree's built CLI is started in
 * turn on a copy of one seeded SQLite file, warmed, driven by autocannon (50 connections) for each
 * case, and the server process's CPU time (user + system, all its threads, from /proc) is divided
 * by the requests answered; the bare server runs the same cases beside them. Rounds alternate the
 * builds; the medians are printed with the load average of each round.
 * `node --import tsx bench/cpu-ab.ts <tree>... ` (each tree built; default: this one), ROUNDS
 * (default 3), BENCH_SECONDS (default 8), CASES (e.g. `by id,list`). Not a test: figures depend on the
 * machine.
 */
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import Database from "better-sqlite3";
import { makeCertificate } from "../test/fixtures/conventions.ts";
import { cpuSeconds, drive, loadAverage } from "./drive.ts";
import { seedBenchData } from "./seed.ts";
import { ROOT, startProcess, stopProcess } from "./start-process.ts";

const trees = process.argv.slice(2).length ? process.argv.slice(2).map((tree) => resolve(tree)) : [ROOT];
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const ALL_CASES = ["by id", "list", "register", "register (webhook)"] as const;
/** CASES (comma-separated, default all) picks the cases to run. */
const CASES = process.env.CASES ? ALL_CASES.filter((name) => process.env.CASES!.split(",").includes(name)) : ALL_CASES;

const dir = mkdtempSync(join(tmpdir(), "event-service-ab-"));
const seeded = join(dir, "seeded.sqlite");
const tls = makeCertificate();
const results = new Map<string, number[]>();
const note = (key: string, value: number) => results.set(key, [...(results.get(key) ?? []), value]);
try {
  const { key, accountId, eventId } = await seedBenchData(seeded);
  const receiver = await startProcess(["--import", "tsx", "bench/webhook-receiver.ts", tls.certPath, tls.keyPath]);
  let run = 0;
  for (let round = 1; round <= ROUNDS; round++) {
    // Each round in a rotated order, so no build always runs first.
    const sides = ["bare", ...trees];
    const order = sides.map((_, i) => sides[(i + round) % sides.length]!);
    for (const side of order) {
      const file = join(dir, `round-${round}-${run++}.sqlite`);
      copyFileSync(seeded, file);
      const server =
        side === "bare"
          ? await startProcess(["--import", "tsx", join(ROOT, "bench/bare-server.ts"), file, accountId])
          : await startProcess([join(side, "packages/server/bin/event-service.js"), "serve"], {
              PORT: "0",
              DATABASE_URL: file,
              LOG_LEVEL: "info",
              NODE_EXTRA_CA_CERTS: tls.certPath,
              WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
            });
      const pid = server.child.pid!;
      const options = side === "bare" ? {} : { key };
      const label = side === "bare" ? "bare" : side;
      for (const name of CASES) {
        if (name === "register (webhook)") {
          if (side === "bare") continue;
          const subscribed = await fetch(`${server.url}/api/webhooks`, {
            method: "POST",
            headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
            body: JSON.stringify({ url: `${receiver.url}/bench`, events: ["*"] }),
          });
          if (subscribed.status !== 201) throw new Error(`subscribing: ${subscribed.status}`);
        }
        const path =
          name === "by id"
            ? `/api/events/${eventId}`
            : name === "list"
              ? side === "bare"
                ? "/api/events"
                : "/api/events?limit=20"
              : "/api/attendees";
        const tag = `${round}-${run}-${name.replace(/\W/g, "")}`;
        const post = name.startsWith("register")
          ? {
              post: (n: number) => ({
                eventId,
                firstName: "Bench",
                lastName: `N${n}`,
                email: `${tag}-${n}@example.com`,
                ticketType: "general",
              }),
            }
          : {};
        const warmPost = name.startsWith("register")
          ? {
              post: (n: number) => ({
                eventId,
                firstName: "Warm",
                lastName: `N${n}`,
                email: `warm-${tag}-${n}@example.com`,
                ticketType: "general",
              }),
            }
          : {};
        await drive(server.url, path, { ...options, ...warmPost, amount: 3_000, connections: 50 });
        const cpuBefore = cpuSeconds(pid)!;
        const figures = await drive(server.url, path, { ...options, ...post, connections: 50 });
        if (name === "register (webhook)") {
          // Every delivery made: their CPU is the registration's.
          const observer = new Database(file, { readonly: true });
          const pending = observer.prepare("select count(*) from webhook_deliveries where status = 'pending'").pluck();
          while ((pending.get() as number) > 0) await sleep(100);
          observer.close();
        }
        const perRequest = ((cpuSeconds(pid)! - cpuBefore) * 1e6) / figures.requests;
        note(`${label}|${name}`, perRequest);
        note(`${label}|${name}|rps`, figures.rps);
        process.stdout.write(
          `round ${round} ${label} ${name}: ${figures.rps.toFixed(0)} req/s, ${perRequest.toFixed(1)} µs CPU/request, non-2xx ${figures.non2xx}, load ${loadAverage()}\n`,
        );
      }
      await stopProcess(server);
    }
  }
  await stopProcess(receiver);
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  process.stdout.write(
    "\n| build | case | CPU µs per request (median) | runs | req/s (median) |\n|---|---|---|---|---|\n",
  );
  for (const [key, values] of results) {
    if (key.endsWith("|rps")) continue;
    const [label, name] = key.split("|");
    process.stdout.write(
      `| ${label} | ${name} | ${median(values).toFixed(1)} | ${values.map((v) => v.toFixed(0)).join(", ")} | ${median(results.get(`${key}|rps`)!).toFixed(0)} |\n`,
    );
  }
} finally {
  rmSync(tls.dir, { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
}
