/**
 * Real browser tests, in headless Chromium (Debian's `chromium` package driven by
 * playwright-core): the `/docs` reference page renders every route of the OpenAPI document and
 * loads nothing from elsewhere, and the built client works in a page of another origin against
 * the real server with CORS on. Screenshots are written to a temporary folder the test prints.
 *
 * Without Chromium (a developer machine) the suite is skipped, saying why; under `CI=true` a
 * missing Chromium fails it.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, extname, join, normalize, resolve, sep } from "node:path";
import { after, before, describe, test } from "node:test";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { eventInput } from "./fixtures/builders.ts";
import { ROOT, startServer, type TestServer } from "./_setup.ts";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const CI = process.env.CI === "true";
const FOUND = existsSync(CHROMIUM);
const SKIP =
  !FOUND && !CI
    ? `no Chromium at ${CHROMIUM}: install Debian's chromium package (apt-get install -y chromium) to run the browser tests`
    : false;
if (SKIP) console.log(`# browser tests skipped: ${SKIP}`);

/** No background traffic of the browser's own (updates, sync, safe browsing): only the pages' requests. */
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-background-networking",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-component-update",
  "--disable-sync",
];

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".map": "application/json",
};

/** The folder of package `name` as Node would find it from `from` (no `exports` restrictions). */
function packageDir(name: string, from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return candidate;
    if (dirname(dir) === dir) throw new Error(`${name} is not installed (looked from ${from})`);
  }
}

/** A package's browser ESM entry, from its `exports` (browser, then import, then default) or `module`. */
function browserEntry(dir: string): string {
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  let entry: unknown = manifest.exports?.["."] ?? manifest.exports ?? manifest.module ?? manifest.main;
  while (entry && typeof entry === "object") {
    const conditions = entry as Record<string, unknown>;
    entry = conditions.browser ?? conditions.import ?? conditions.default;
  }
  if (typeof entry !== "string") throw new Error(`no ESM entry in ${dir}/package.json`);
  return entry.replace(/^\.\//, "");
}

const SPECIFIERS = /(?:^|[;\s}])(?:import|export)\s*(?:[\w*{}\s,$]+from\s*)?["']([^"']+)["']/g;

/**
 * The import map a page needs to load `entry` (a built ES module) unbundled: every bare
 * specifier it reaches, transitively, mapped to that package's browser build under `/vendor/`.
 * Returns the map and the package folders the static server may serve.
 */
function importMapFor(entry: string): { imports: Record<string, string>; roots: Map<string, string> } {
  const imports: Record<string, string> = {};
  const roots = new Map<string, string>();
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const [, specifier] of readFileSync(file, "utf8").matchAll(SPECIFIERS)) {
      if (specifier!.startsWith(".")) {
        visit(resolve(dirname(file), specifier!));
      } else if (!(specifier! in imports)) {
        const dir = packageDir(specifier!, dirname(file));
        const main = browserEntry(dir);
        roots.set(specifier!, dir);
        imports[specifier!] = `/vendor/${specifier}/${main}`;
        visit(join(dir, main));
      }
    }
  };
  visit(entry);
  return { imports, roots };
}

/** A static server on 127.0.0.1 (another origin than the API): the page, the built client, its dependencies. */
async function startStaticServer(
  page: (origin: string) => string,
  roots: Map<string, string>,
): Promise<{ origin: string; server: Server }> {
  const served = new Map([
    ["client", join(ROOT, "packages/client/dist")],
    ...[...roots].map(([name, dir]) => [`vendor/${name}`, dir] as const),
  ]);
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? "/", "http://static").pathname);
    if (path === "/")
      return response
        .writeHead(200, { "content-type": CONTENT_TYPES[".html"]! })
        .end(page(`http://${request.headers.host}`));
    for (const [prefix, dir] of served) {
      if (!path.startsWith(`/${prefix}/`)) continue;
      const file = normalize(join(dir, path.slice(prefix.length + 2)));
      if (file.startsWith(dir + sep) && existsSync(file) && statSync(file).isFile()) {
        return response
          .writeHead(200, { "content-type": CONTENT_TYPES[extname(file)] ?? "application/octet-stream" })
          .end(readFileSync(file));
      }
    }
    response.writeHead(404, { "content-type": "text/plain" }).end("not found");
  });
  await new Promise<void>((resolvePromise) => server.listen(0, "127.0.0.1", resolvePromise));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** The page of the other origin: it imports the built client and reports what happened in `#result`. */
function clientPage(imports: Record<string, string>, input: Record<string, unknown>): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>@event-service/client from another origin</title>
<script type="importmap">${JSON.stringify({ imports })}</script>
<style>body{font-family:system-ui,sans-serif;margin:24px}td,th{border-bottom:1px solid #ccc;padding:4px 10px;text-align:left;vertical-align:top}pre{background:#f4f4f4;padding:12px}</style>
</head>
<body>
<h1>@event-service/client in a browser</h1>
<p>This page is served from <code id="origin"></code>; the API from <code id="api"></code>.</p>
<table><thead><tr><th>step</th><th>outcome</th></tr></thead><tbody id="steps"></tbody></table>
<h2>Result</h2>
<pre id="result">running...</pre>
<script type="application/json" id="input">${JSON.stringify(input)}</script>
<script type="module">
import { createClient, EventServiceError } from "/client/index.js";
const params = new URLSearchParams(location.hash.slice(1));
const input = JSON.parse(document.getElementById("input").textContent);
document.getElementById("origin").textContent = location.origin;
document.getElementById("api").textContent = params.get("api");
const steps = document.getElementById("steps");
const show = (step, outcome) => {
  const row = steps.insertRow();
  row.insertCell().textContent = step;
  row.insertCell().textContent = outcome;
};
const client = createClient({ baseUrl: params.get("api"), apiKey: params.get("key") });
const result = { origin: location.origin };
const errorOf = (error) => ({ isEventServiceError: error instanceof EventServiceError, name: error.name, code: error.code, status: error.status, field: error.field, message: error.message });
try {
  const event = await client.events.create(input);
  result.created = { id: event.id, name: event.name, status: event.status };
  show("events.create", event.id + " " + event.name + " (" + event.status + ")");
  const page = await client.events.list({ search: input.name });
  result.listed = page.events.map((e) => e.id);
  show("events.list", page.pagination.total + " found: " + result.listed.join(", "));
  try {
    await client.events.create({ ...input, capacity: 0 });
    result.badRequest = "accepted";
  } catch (error) {
    result.badRequest = errorOf(error);
    show("events.create with capacity 0", error.name + " " + error.status + " " + error.code + " field=" + error.field + ": " + error.message);
  }
} catch (error) {
  result.failure = errorOf(error);
  show("failed", error.name + " " + error.code + ": " + error.message);
}
document.getElementById("result").textContent = JSON.stringify(result, null, 2);
document.body.dataset.state = "done";
</script>
</body>
</html>`;
}

/** The operations of an OpenAPI document: `METHOD path` and the summary. */
function operationsOf(spec: { paths: Record<string, Record<string, { summary?: string; operationId?: string }>> }) {
  const methods = ["get", "put", "post", "delete", "patch", "head", "options"];
  return Object.entries(spec.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => methods.includes(method))
      .map(([method, operation]) => ({ method, path, summary: operation.summary ?? "" })),
  );
}

/** Opens `url`, records every request it makes, and waits until Redoc has rendered. */
async function openDocs(context: BrowserContext, url: string) {
  const page = await context.newPage();
  const requests: string[] = [];
  const problems: string[] = [];
  page.on("request", (request) => requests.push(request.url()));
  page.on("requestfailed", (request) =>
    problems.push(`request failed: ${request.url()} ${request.failure()?.errorText}`),
  );
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()} (${message.location().url})`);
  });
  await page.goto(url, { waitUntil: "load" });
  await page.waitForSelector(".api-content h2", { timeout: 60_000 });
  return { page, requests, problems };
}

describe("in a real browser (headless Chromium)", { skip: SKIP }, () => {
  let context: BrowserContext;
  let profile: string;
  let shots: string;

  before(async () => {
    if (!FOUND)
      throw new Error(
        `CI=true and no Chromium at ${CHROMIUM}: .ci/run installs Debian's chromium package; the browser tests must run in CI`,
      );
    profile = mkdtempSync(join(tmpdir(), "event-service-chromium-"));
    shots = mkdtempSync(join(tmpdir(), "event-service-screenshots-"));
    console.log(`# browser screenshots: ${shots}`);
    // A persistent context is how playwright takes a user-data-dir: a fresh one per run.
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1400, height: 1000 },
    });
  });
  /**
   * The servers' stops, awaited once the browser is closed: a server given SIGTERM keeps the
   * browser's idle keep-alive connections open until they close or time out (5 s each), and
   * only closing the browser closes them.
   */
  const stops: Array<Promise<void>> = [];
  const stopLater = (stop: Promise<void>) => {
    stop.catch(() => {}); // awaited (and reported) in after()
    stops.push(stop);
  };
  after(async () => {
    await context?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    await Promise.all(stops);
  });

  describe("/docs", () => {
    let server: TestServer;
    before(async () => {
      server = await startServer();
    });
    after(() => stopLater(server.stop().then((code) => assert.equal(code, 0, "the /docs server exits 0"))));

    test("renders the reference, lists every operation of /openapi.json, and requests nothing from another origin", async () => {
      const spec = (await server.request("GET", "/openapi.json")).body;
      const operations = operationsOf(spec);
      assert.ok(operations.length >= 20, `only ${operations.length} operations`);
      const { page, requests, problems } = await openDocs(context, `${server.url}/docs`);
      await page.screenshot({ path: join(shots, "docs.png") });
      const text = await page.locator("body").innerText();
      assert.match(text, new RegExp(spec.info.title));
      // Redoc renders each operation as a section (id `tag/<tag>/operation/<id>`) headed by its
      // summary, with its method and path in the right panel.
      const sections: string[] = await page.evaluate(() =>
        [...document.querySelectorAll(".api-content [id*='/operation/']")].map(
          (element) => (element as HTMLElement).innerText,
        ),
      );
      const missing = operations
        .filter(
          ({ method, path, summary }) =>
            !summary ||
            !sections.some(
              (section) =>
                section.includes(summary) && section.includes(path) && section.toLowerCase().includes(method),
            ),
        )
        .map(({ method, path, summary }) => `${method.toUpperCase()} ${path} (${summary})`);
      assert.deepEqual(missing, [], `operations missing from the rendered page (of ${sections.length} sections)`);
      const methodsAndPaths = await page.locator(".api-content .http-verb").count();
      assert.equal(methodsAndPaths, operations.length, "one method badge per operation");
      // The error codes the `documentation` links point to are on the page too.
      assert.ok(await page.locator("tr#EVENT_FULL").isVisible());
      const foreign = requests.filter(
        (url) => !url.startsWith(`${server.url}/`) && !url.startsWith("data:") && !url.startsWith("blob:"),
      );
      assert.deepEqual(foreign, [], "requests to other origins");
      assert.ok(requests.includes(`${server.url}/openapi.json`), "the page fetched the document");
      assert.deepEqual(problems, []);
      await page.close();
    });

    test("says how to get a key, and shows each body's example as its request sample", async () => {
      const { page } = await openDocs(context, `${server.url}/docs`);
      const text = await page.locator("body").innerText();
      assert.match(text, /Getting a key/);
      assert.match(text, /npx event-service keys create --account "Acme" --tier professional --json/);
      assert.match(text, /Authorization: Bearer esk_/);
      // Redoc's right panel shows the request sample of an operation from its example.
      const sample = async (operationId: string) => {
        const section = await page.evaluate(
          (id) => (document.querySelector(`[id$='/operation/${id}']`) as HTMLElement | null)?.innerText ?? "",
          operationId,
        );
        return /Request samples([\s\S]*?)Response samples/.exec(section)?.[1] ?? `no request sample in: ${section}`;
      };
      const createEvent = await sample("createEvent");
      assert.match(createEvent, /"country": "DE"/);
      assert.match(createEvent, /"startDate": "\d{4}-\d\d-\d\dT09:00:00\+02:00"/);
      assert.doesNotMatch(createEvent, /"string"/);
      assert.match(await sample("recordPayment"), /"amount": 4500/);
      await page.screenshot({ path: join(shots, "docs-request-sample.png") });
      await page.close();
    });

    test("a documentation link (/docs#CODE) lands on its error code once the reference has rendered", async () => {
      const { page } = await openDocs(context, `${server.url}/docs#EVENT_FULL`);
      await page.waitForFunction(
        () => {
          const row = document.getElementById("EVENT_FULL")?.getBoundingClientRect();
          return row !== undefined && row.top >= 0 && row.bottom <= window.innerHeight;
        },
        undefined,
        { timeout: 10_000 },
      );
      await page.screenshot({ path: join(shots, "docs-error-code.png") });
      await page.close();
    });
  });

  describe("/docs under a base path (the embed-node-http example, mounted at /events-api)", () => {
    let child: ChildProcess;
    let url: string;
    before(async () => {
      child = spawn(process.execPath, ["--import", "tsx", "index.ts"], {
        cwd: join(ROOT, "examples/embed-node-http"),
        env: { ...process.env, PORT: "0" },
        stdio: ["ignore", "pipe", "inherit"],
      });
      url = await new Promise<string>((resolvePromise, reject) => {
        let output = "";
        child.stdout!.on("data", (chunk) => {
          output += chunk;
          const line = output.split("\n").find((candidate) => candidate.startsWith("{"));
          if (line) resolvePromise(JSON.parse(line).url);
        });
        child.on("exit", (code) => reject(new Error(`the example exited with ${code}: ${output}`)));
      });
    });
    after(() => {
      // The example closes gracefully (it waits for the browser's keep-alive connections); it is
      // killed if that takes too long.
      const exited = new Promise<void>((resolvePromise) => child.once("exit", () => resolvePromise()));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      stopLater(exited.finally(() => clearTimeout(timer)));
    });

    test("renders the reference from the base path's document and assets", async () => {
      const { page, requests } = await openDocs(context, `${url}/events-api/docs`);
      assert.ok(requests.includes(`${url}/events-api/openapi.json`));
      assert.ok(requests.includes(`${url}/events-api/docs/redoc.standalone.js`));
      assert.ok((await page.locator(".api-content .http-verb").count()) >= 20);
      await page.screenshot({ path: join(shots, "docs-base-path.png") });
      await page.close();
    });
  });

  describe("the built client in a page of another origin", () => {
    let api: TestServer;
    let allowed: { origin: string; server: Server };
    let unlisted: { origin: string; server: Server };
    let key: string;
    const input = eventInput({ name: "Browser Summit", capacity: 50 });

    before(async () => {
      const { imports, roots } = importMapFor(join(ROOT, "packages/client/dist/index.js"));
      assert.ok("ofetch" in imports, "the client imports ofetch");
      const page = () => clientPage(imports, input);
      allowed = await startStaticServer(page, roots);
      unlisted = await startStaticServer(page, roots);
      api = await startServer({ env: { CORS_ORIGINS: allowed.origin } });
      key = (await api.createKey({ account: "Browser app" })).key;
    });
    after(() => {
      allowed?.server.close();
      unlisted?.server.close();
      stopLater(api.stop().then((code) => assert.equal(code, 0, "the API server exits 0")));
    });

    async function run(origin: string) {
      const page: Page = await context.newPage();
      await page.goto(`${origin}/#${new URLSearchParams({ api: api.url, key })}`);
      await page.waitForSelector("body[data-state=done]", { timeout: 30_000 });
      const result = JSON.parse(await page.locator("#result").innerText());
      return { page, result };
    }

    test("creates an event, lists it, and shows the typed EventServiceError of a bad request", async () => {
      const { page, result } = await run(allowed.origin);
      await page.screenshot({ path: join(shots, "client.png"), fullPage: true });
      assert.equal(result.origin, allowed.origin);
      assert.notEqual(new URL(result.origin).port, new URL(api.url).port, "the page and the API are different origins");
      assert.equal(result.failure, undefined, JSON.stringify(result.failure));
      assert.match(result.created.id, /^evt_/);
      assert.equal(result.created.name, "Browser Summit");
      assert.equal(result.created.status, "draft");
      assert.deepEqual(result.listed, [result.created.id]);
      assert.deepEqual(
        { ...result.badRequest, message: undefined },
        {
          isEventServiceError: true,
          name: "EventServiceError",
          code: "INVALID_REQUEST",
          status: 400,
          field: "capacity",
          message: undefined,
        },
      );
      assert.match(result.badRequest.message, /capacity/);
      // The server really saw the event, created through the browser.
      const stored = await api.request("GET", `/v1/events/${result.created.id}`, { key });
      assert.equal(stored.body.name, "Browser Summit");
      await page.close();
    });

    test("a page of an origin not in CORS_ORIGINS cannot read the API's answers", async () => {
      const { page, result } = await run(unlisted.origin);
      await page.screenshot({ path: join(shots, "client-unlisted-origin.png"), fullPage: true });
      assert.equal(result.created, undefined);
      assert.equal(result.failure.isEventServiceError, true);
      assert.equal(result.failure.code, "NETWORK_ERROR");
      assert.equal(result.failure.status, 0);
      await page.close();
    });
  });
});
