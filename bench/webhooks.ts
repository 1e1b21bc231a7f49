/**
 * `npm run bench` (second part): webhook delivery. The real server (built CLI, SQLite, its
 * delivery worker with the immediate schedule) delivers `event.created` notifications to an
 * HTTPS receiver in this process on 127.0.0.1 (a certificate made here, trusted by the server
 * through NODE_EXTRA_CA_CERTS).
 *
 * 1. Throughput: BENCH_WEBHOOK_BURST (default 2,000) notifications written to the outbox before
 *    the server starts (through core, on the same SQLite file); deliveries/s while its worker
 *    drains them, from the first to the last receipt.
 * 2. Delay: creations at a steady 200/s for BENCH_SECONDS (default 8); the delay from the
 *    change (the envelope's `createdAt`, taken in the write transaction) to its receipt: p50,
 *    p99, max. Target: p99 under 100 ms.
 * BENCH_PROFILE=<dir> writes a V8 CPU profile of the server there.
 * Not a test: figures depend on the machine (and on whatever else runs on it).
 */
import { readFileSync, rmSync } from "node:fs";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { createEventService, createSqlStorage } from "@event-service/core";
import { ROOT, startProcess } from "./start-process.ts";
import { openSqlite } from "@event-service/server";
import { makeCertificate } from "../test/fixtures/conventions.ts";

const CLI = join(ROOT, "packages/server/dist/cli.js");
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const BURST = Number(process.env.BENCH_WEBHOOK_BURST ?? 2000);
const RATE = 200;

// The tests' self-signed certificate for 127.0.0.1, in a temporary folder that also holds the database.
const { dir, certPath, keyPath } = makeCertificate();

/** Receipt time (epoch ms) and change time of each envelope id. */
const receipts = new Map<string, { at: number; createdAt: number }>();
let onReceipt: (() => void) | undefined;
const receiver = createServer({ cert: readFileSync(certPath), key: readFileSync(keyPath) }, (request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    const at = Date.now();
    const envelope = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id: string; createdAt: string };
    receipts.set(envelope.id, { at, createdAt: Date.parse(envelope.createdAt) });
    response.writeHead(200).end();
    onReceipt?.();
  });
});
await new Promise<void>((done) => receiver.listen(0, "127.0.0.1", () => done()));
const receiverUrl = `https://127.0.0.1:${(receiver.address() as AddressInfo).port}/bench`;

const database = join(dir, "events.sqlite");
const env = {
  ...process.env,
  DATABASE_URL: database,
  NODE_EXTRA_CA_CERTS: certPath,
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
  LOG_LEVEL: "info",
  PORT: "0",
  HOST: "127.0.0.1",
};

const EVENT = {
  location: { address: "Main St 1", city: "Berlin", country: "DE" },
  startDate: "2038-05-01T09:00:00Z",
  endDate: "2038-05-01T17:00:00Z",
  capacity: 100,
  category: "conference",
};

/** The key, the webhook and BURST pending deliveries, written through core with no worker running. */
async function seed() {
  const storage = createSqlStorage({ db: openSqlite(database) });
  await storage.migrate();
  const service = createEventService({ storage, webhooks: { allowPrivateNetworks: true } });
  const { key, accountId } = await service.keys.create({
    account: "Bench",
    tier: "enterprise",
    perMinute: 1_000_000,
    perDay: 100_000_000,
  });
  const account = service.forAccount(accountId);
  await account.webhooks.create({ url: receiverUrl, events: ["event.created"] });
  for (let i = 0; i < BURST; i++) await account.events.create({ ...EVENT, name: `Seeded ${i}` });
  await storage.close();
  return { key };
}
const created = await seed();

const server = await startProcess(
  [...(process.env.BENCH_PROFILE ? ["--cpu-prof", "--cpu-prof-dir", process.env.BENCH_PROFILE] : []), CLI, "serve"],
  env,
);
const headers = { authorization: `Bearer ${created.key}`, "content-type": "application/json" };
const api = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${server.url}/v1${path}`, {
    method,
    headers,
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json() as Promise<any>;
};

let counter = 0;
const createEvent = () => api("POST", "/events", { ...EVENT, name: `Bench ${++counter}` });

function waitForReceipts(count: number): Promise<void> {
  return new Promise((done, reject) => {
    const timer = setTimeout(() => reject(new Error(`only ${receipts.size} of ${count} deliveries arrived`)), 120_000);
    onReceipt = () => {
      if (receipts.size >= count) {
        clearTimeout(timer);
        onReceipt = undefined;
        done();
      }
    };
    onReceipt();
  });
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

// 1. Throughput: the server's worker drains the seeded backlog as soon as it starts.
await waitForReceipts(BURST);
const times = [...receipts.values()].map((r) => r.at);
const deliveriesPerSecond = BURST / ((Math.max(...times) - Math.min(...times)) / 1000);

// 2. Delay at a steady rate.
receipts.clear();
const total = RATE * SECONDS;
const steadyStart = performance.now();
const pending: Array<Promise<unknown>> = [];
for (let i = 0; i < total; i++) {
  const due = steadyStart + (i * 1000) / RATE;
  const wait = due - performance.now();
  if (wait > 0) await new Promise((done) => setTimeout(done, wait));
  pending.push(createEvent());
}
await Promise.all(pending);
await waitForReceipts(total);
const delays = [...receipts.values()].map((r) => r.at - r.createdAt).sort((a, b) => a - b);

server.child.kill("SIGTERM");
await new Promise((done) => server.child.once("exit", done));
receiver.close();
rmSync(dir, { recursive: true, force: true });

console.log("\nWebhook delivery (event.created to one HTTPS receiver on 127.0.0.1, immediate schedule)\n");
console.log("| measure | value |\n|---|---|");
console.log(
  `| delivery throughput, a backlog of ${BURST} (first to last receipt) | ${deliveriesPerSecond.toFixed(0)} deliveries/s |`,
);
console.log(
  `| change -> receipt at ${RATE} changes/s for ${SECONDS} s: p50 / p99 / max | ${percentile(delays, 50)} / ${percentile(delays, 99)} / ${delays.at(-1)} ms |`,
);
console.log(`| p99 under 100 ms | ${percentile(delays, 99) < 100 ? "yes" : "NO"} |`);
