/**
 * What only some routes need is loaded by their first request, not at start: the pages and
 * Preact, the report page, the docs page, the OpenAPI document's builder, QR images, Stripe's SDK,
 * nodemailer, and PostgreSQL's driver on SQLite. The server under test records every ES module it
 * loads (test/fixtures/module-trace.mjs); the first request of each route then works and loads its
 * part. A part that fails to load (its chunk gone, Stripe's SDK not installed) answers the error
 * body (a 500, its cause in the log) and is loaded again by the next request.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { after, before, describe, test } from "node:test";
import { clientFor, createEvent, expectError, expectStatus, register } from "./fixtures/api.ts";
import { E2E_BACKEND, errorOf, ROOT, startServer, type TestServer } from "./_setup.ts";

const TRACE_HOOK = pathToFileURL(join(ROOT, "test/fixtures/module-trace.mjs")).href;
const DIST = join(ROOT, "packages/server/dist");

/** The parts loaded on first use, each told by the modules that hold it. */
const PARTS = {
  "the docs page": (url: string) => /\/cli-docs-page-[\w-]+\.js$/.test(url),
  "the OpenAPI document's builder": (url: string) => /\/cli-openapi-[\w-]+\.js$/.test(url),
  "the report page": (url: string) => /\/cli-report-page-[\w-]+\.js$/.test(url),
  "the ticket page": (url: string) => /\/cli-ticket-page-[\w-]+\.js$/.test(url),
  "the vendor page": (url: string) => /\/cli-vendor-page-[\w-]+\.js$/.test(url),
  "the door page": (url: string) => /\/cli-door-page-[\w-]+\.js$/.test(url),
  "the error page": (url: string) => /\/cli-error-page-[\w-]+\.js$/.test(url),
  "the emails' templates": (url: string) => /\/cli-email-messages-[\w-]+\.js$/.test(url),
  Preact: (url: string) => bundles(url, "node_modules/preact/"),
  "the QR encoder": (url: string) => bundles(url, "node_modules/qrcode/"),
  "Stripe's SDK": (url: string) => url.includes("/node_modules/stripe/"),
  nodemailer: (url: string) => url.includes("/node_modules/nodemailer/"),
  "PostgreSQL's driver": (url: string) => url.includes("/node_modules/pg/"),
} as const;
type Part = keyof typeof PARTS;

/** Whether the module at `url` is one of the CLI's files and has `input` bundled into it. */
function bundles(url: string, input: string): boolean {
  if (!url.startsWith("file:") || !url.includes("/packages/server/dist/")) return false;
  return readFileSync(fileURLToPath(url), "utf8").includes(`// ../../${input}`);
}

/** The parts among `parts` that the traced server has loaded so far. */
function loaded(traceFile: string, parts: readonly Part[] = Object.keys(PARTS) as Part[]): Part[] {
  const urls = existsSync(traceFile) ? readFileSync(traceFile, "utf8").split("\n").filter(Boolean) : [];
  return parts.filter((part) => urls.some(PARTS[part]));
}

describe("what only some routes need loads on first use", () => {
  let dir: string;
  let traceFile: string;
  let server: TestServer;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "event-service-lazy-"));
    traceFile = join(dir, "modules.txt");
    server = await startServer({
      env: {
        NODE_OPTIONS: `--import=${TRACE_HOOK}`,
        MODULE_TRACE_FILE: traceFile,
        // Configured, and so able to be used, but not used until a request needs them.
        STRIPE_SECRET_KEY: "sk_test_lazyLoading4242",
        STRIPE_WEBHOOK_SECRET: "whsec_lazyLoading4242",
        // Nothing listens there: the first email's attempt fails, after nodemailer has loaded.
        SMTP_URL: "smtp://127.0.0.1:9",
        EMAIL_FROM: "tickets@example.com",
        EMAIL_RETRY_DELAYS_MS: "3600000",
      },
    });
  });

  after(async () => {
    const output = server.output();
    assert.equal(await server.stop("SIGTERM"), 0);
    assert.doesNotMatch(output, /"msg":"unexpected error"/);
    rmSync(dir, { recursive: true, force: true });
  });

  test("a started server serving the API has loaded none of them; each route's first request works and loads its part", async () => {
    const trace = readFileSync(traceFile, "utf8");
    assert.match(trace, /\/packages\/server\/dist\/cli\.js\n/, "the trace records the server's modules");
    const acme = clientFor(server, (await server.createKey({ account: `Lazy Acme ${Date.now()}` })).key);
    const event = await createEvent(acme, { name: "Lazy Summit" });
    expectStatus(await acme.get(`/events/${event.id}`), 200);
    expectStatus(await acme.get("/events?limit=20"), 200);
    expectStatus(await acme.get(`/events/${event.id}/sustainability-report`), 200);
    expectStatus(await server.request("GET", "/health"), 200);
    expectStatus(await server.request("GET", "/"), 200);
    assert.deepEqual(loaded(traceFile), E2E_BACKEND === "postgres" ? ["PostgreSQL's driver"] : []);

    // Two first requests at once: one load, one rendering, the same page for both.
    const [first, second] = await Promise.all([
      server.request("GET", "/docs"),
      server.request("GET", "/docs", { headers: { "x-second": "1" } }),
    ]);
    assert.equal(first.status, 200);
    assert.equal(second.status, 200);
    assert.equal(first.body, second.body);
    assert.match(first.body as string, /<h2 id="error-codes">Error codes<\/h2>/);
    assert.match(first.headers.get("content-security-policy")!, /^default-src 'none'; script-src 'self' 'sha256-/);
    assert.deepEqual(loaded(traceFile, ["the docs page", "Preact", "the OpenAPI document's builder"]), [
      "the docs page",
      "Preact",
    ]);

    const openapi = await server.request("GET", "/openapi.json");
    assert.equal(openapi.status, 200);
    assert.equal((openapi.body as { openapi: string }).openapi, "3.1.0");
    assert.deepEqual(loaded(traceFile, ["the OpenAPI document's builder", "the report page"]), [
      "the OpenAPI document's builder",
    ]);

    const report = await acme.get(`/events/${event.id}/sustainability-report`, { headers: { accept: "text/html" } });
    assert.equal(report.status, 200);
    assert.equal(report.headers.get("content-type"), "text/html; charset=utf-8");
    assert.match(report.body as string, /^<!doctype html><html lang="en">/);
    assert.match(report.body as string, /Lazy Summit/);
    assert.deepEqual(loaded(traceFile, ["the report page", "the ticket page", "the emails' templates", "nodemailer"]), [
      "the report page",
    ]);

    // A registration queues its ticket email (SMTP_URL is set): the email worker's first message loads the rest.
    const attendee = await register(acme, event.id, { firstName: "Ada", lastName: "Lovelace" });
    const page = await server.request("GET", new URL(attendee.ticketUrl).pathname, {
      headers: { accept: "text/html" },
    });
    assert.equal(page.status, 200);
    assert.match(page.body as string, /Ada Lovelace/);
    assert.equal(loaded(traceFile, ["the ticket page"]).length, 1);

    assert.deepEqual(loaded(traceFile, ["the QR encoder"]), []);
    const qr = await server.request("GET", `/v1/qr/${attendee.id}.png`);
    assert.equal(qr.status, 200);
    assert.equal(qr.headers.get("content-type"), "image/png");
    assert.deepEqual(loaded(traceFile, ["the QR encoder"]), ["the QR encoder"]);

    assert.deepEqual(loaded(traceFile, ["the error page"]), []);
    const unknown = await server.request("GET", `/v1/tickets/tkt_${randomBytes(32).toString("base64url")}`, {
      headers: { accept: "text/html" },
    });
    assert.equal(unknown.status, 404);
    assert.match(unknown.body as string, /This link does not open anything/);
    assert.deepEqual(loaded(traceFile, ["the error page"]), ["the error page"]);

    // Stripe's first use here: a notification whose signature cannot verify (checked by the SDK).
    assert.deepEqual(loaded(traceFile, ["Stripe's SDK"]), []);
    const notification = await server.request("POST", "/v1/payments/stripe/webhook", {
      raw: JSON.stringify({ id: "evt_lazy", type: "payment_intent.succeeded", data: { object: {} } }),
      headers: { "content-type": "application/json", "stripe-signature": `t=${Math.floor(Date.now() / 1000)},v1=00` },
    });
    expectError(notification, 400, "INVALID_SIGNATURE");
    assert.deepEqual(loaded(traceFile, ["Stripe's SDK"]), ["Stripe's SDK"]);

    // The ticket email's first attempt, whenever the worker gets to it.
    for (let i = 0; i < 600 && loaded(traceFile, ["nodemailer"]).length === 0; i++) await sleep(100);
    assert.deepEqual(loaded(traceFile, ["the emails' templates", "nodemailer"]), [
      "the emails' templates",
      "nodemailer",
    ]);

    // Neither of the other pages, nor (on SQLite) PostgreSQL's driver, was ever needed.
    assert.deepEqual(
      loaded(traceFile, ["the vendor page", "the door page", "PostgreSQL's driver"]),
      E2E_BACKEND === "postgres" ? ["PostgreSQL's driver"] : [],
    );
  });
});

/**
 * The built CLI copied to a folder of its own, its packages those of the repository (each linked)
 * but `missing`, so that a test may take a chunk or a package away.
 */
function copyCli(missing: readonly string[]): { dir: string; cli: string } {
  const dir = mkdtempSync(join(tmpdir(), "event-service-lazy-cli-"));
  cpSync(DIST, join(dir, "dist"), { recursive: true, filter: (source) => !source.endsWith(".map") });
  mkdirSync(join(dir, "node_modules"));
  for (const name of readdirSync(join(ROOT, "node_modules")))
    if (!missing.includes(name)) symlinkSync(join(ROOT, "node_modules", name), join(dir, "node_modules", name));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
  return { dir, cli: join(dir, "dist/cli.js") };
}

/** Starts `node <cli> serve` on a SQLite file and a free port; resolves once it listens. */
async function serve(
  cli: string,
  dir: string,
  env: Record<string, string>,
): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const child = spawn(process.execPath, [cli, "serve"], {
    env: {
      ...process.env,
      PORT: "0",
      HOST: "127.0.0.1",
      DATABASE_URL: join(dir, "events.sqlite"),
      LOG_LEVEL: "info",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stderr!.on("data", (chunk) => (output += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (chunk) => {
      output += chunk;
      const listening = /"url":"(http:\/\/[^"]+?)\/?","database"[^\n]*"msg":"listening"/.exec(output);
      if (listening) resolve(listening[1]!);
    });
    child.once("exit", (code) => reject(new Error(`the server exited with ${code}:\n${output}`)));
  });
  return { child, url, output: () => output };
}

test("a part that fails to load answers the error body (500, its cause logged) and loads at the next request once it can", async () => {
  // Without Stripe's SDK installed at all: the server starts, and only a payment's request fails.
  const { dir, cli } = copyCli(["stripe"]);
  const chunk = readdirSync(join(dir, "dist")).find((name) => /^cli-docs-page-[\w-]+\.js$/.test(name));
  assert.ok(chunk, "the CLI's docs page is a chunk of its own");
  const chunkPath = join(dir, "dist", chunk);
  renameSync(chunkPath, `${chunkPath}.away`);
  const server = await serve(cli, dir, {
    STRIPE_SECRET_KEY: "sk_test_lazyLoading4242",
    STRIPE_WEBHOOK_SECRET: "whsec_lazyLoading4242",
  });
  try {
    for (let attempt = 0; attempt < 2; attempt++) {
      const response = await fetch(`${server.url}/docs`);
      assert.equal(response.status, 500);
      assert.equal(response.headers.get("content-type"), "application/json; charset=utf-8");
      const body = { status: response.status, headers: response.headers, body: await response.json() };
      assert.equal(errorOf(body).code, "INTERNAL_ERROR");
      assert.doesNotMatch(JSON.stringify(body.body), /docs-page|Cannot find/);
    }
    assert.equal((await fetch(`${server.url}/health`)).status, 200);

    // Stripe's notification is not refused as unsigned (Stripe would drop it): a 500, so Stripe sends it again.
    const notification = await fetch(`${server.url}/v1/payments/stripe/webhook`, {
      method: "POST",
      headers: { "content-type": "application/json", "stripe-signature": `t=${Math.floor(Date.now() / 1000)},v1=00` },
      body: JSON.stringify({ id: "evt_lazy", type: "payment_intent.succeeded", data: { object: {} } }),
    });
    assert.equal(notification.status, 500);
    assert.equal(
      errorOf({ status: 500, headers: notification.headers, body: await notification.json() }).code,
      "INTERNAL_ERROR",
    );

    renameSync(`${chunkPath}.away`, chunkPath);
    const docs = await fetch(`${server.url}/docs`);
    assert.equal(docs.status, 200);
    assert.match(await docs.text(), /<h2 id="error-codes">Error codes<\/h2>/);
  } finally {
    const exited = new Promise((resolve) => server.child.once("exit", resolve));
    server.child.kill("SIGTERM");
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
  // Read once the server has exited, its log flushed: each failed load's cause, in the log only.
  const errors = server
    .output()
    .split("\n")
    .filter((line) => line.includes('"msg":"unexpected error"'));
  assert.equal(errors.length, 3);
  assert.match(errors[0]!, /ERR_MODULE_NOT_FOUND[^\n]*cli-docs-page-/);
  assert.match(errors[1]!, /ERR_MODULE_NOT_FOUND[^\n]*cli-docs-page-/);
  assert.match(errors[2]!, /Cannot find package 'stripe'/);
});
