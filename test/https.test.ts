/**
 * End-to-end: transport. HTTPS from TLS_CERT/TLS_KEY with HSTS, the plain-HTTP listener of
 * HTTP_REDIRECT_PORT answering 308 to https://, X-Forwarded-Proto behind a trusted proxy,
 * the one warning of a plain-HTTP server, and the configuration errors of these variables.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { SQLITE_PASS_ONLY, startServer, type TestServer } from "./_setup.ts";
import { eventInput } from "./fixtures/builders.ts";
import { logLines, makeCertificate, type RawResponse, rawRequest, runCliWithin } from "./fixtures/conventions.ts";
import { exchange } from "./fixtures/raw-http.ts";

const HSTS = "max-age=31536000; includeSubDomains";

let tls: ReturnType<typeof makeCertificate>;

before(() => {
  tls = makeCertificate();
});

after(() => {
  rmSync(tls.dir, { recursive: true, force: true });
});

/** The warnings (pino level 40) that say the server serves plain HTTP. */
const plainHttpWarnings = (output: string) =>
  logLines(output).filter((line) => line.level === 40 && /plain HTTP/i.test(String(line.msg)));

/** The plain-HTTP warnings once one has come (it follows the `listening` line and may reach us through the pipe a moment later), or after 5 s. */
async function arrivedPlainHttpWarnings(server: TestServer) {
  for (let waited = 0; plainHttpWarnings(server.output()).length === 0 && waited < 5_000; waited += 50)
    await new Promise((resolve) => setTimeout(resolve, 50));
  return plainHttpWarnings(server.output());
}

function expectJson(response: RawResponse, status: number) {
  assert.equal(response.status, status, JSON.stringify(response.body));
  assert.match(String(response.headers["content-type"]), /json/);
  return response.body;
}

describe("with TLS_CERT, TLS_KEY and HTTP_REDIRECT_PORT", () => {
  let server: TestServer;
  let key: string;
  let redirectUrl: string;
  let httpsPort: string;
  const get = (path: string, headers: Record<string, string> = {}) =>
    rawRequest(`${server.url}${path}`, { ca: tls.cert, headers });

  before(async () => {
    server = await startServer({ env: { TLS_CERT: tls.certPath, TLS_KEY: tls.keyPath, HTTP_REDIRECT_PORT: "0" } });
    key = (await server.createKey({ account: "Secure" })).key;
    const listening = logLines(server.output()).find((line) => line.msg === "listening")!;
    redirectUrl = String(listening.redirectUrl).replace(/\/$/, "");
    httpsPort = new URL(server.url).port;
  });

  after(async () => {
    const output = server.output();
    assert.equal(await server.stop("SIGTERM"), 0, "the server exits 0 on SIGTERM");
    assert.doesNotMatch(output, /"msg":"unexpected error"/);
  });

  test("the listening line names an https:// url and the redirect listener's http:// url; no plain-HTTP warning", () => {
    assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    assert.match(redirectUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.notEqual(new URL(redirectUrl).port, httpsPort);
    assert.deepEqual(plainHttpWarnings(server.output()), []);
  });

  test("answers over HTTPS, trusting the test certificate, with Strict-Transport-Security on every answer", async () => {
    const health = await get("/health");
    assert.deepEqual(expectJson(health, 200), { status: "ok" });
    assert.equal(health.headers["strict-transport-security"], HSTS);
    assert.equal(health.headers["x-content-type-options"], "nosniff");

    const created = await rawRequest(`${server.url}/v1/events`, {
      method: "POST",
      ca: tls.cert,
      headers: { authorization: `Bearer ${key}` },
      body: JSON.stringify(eventInput()),
    });
    const event = expectJson(created, 201);
    assert.equal(created.headers["strict-transport-security"], HSTS);
    const listed = await get("/api/events", { authorization: `Bearer ${key}` });
    assert.deepEqual(
      expectJson(listed, 200).events.map((e: any) => e.id),
      [event.id],
    );
    assert.equal(listed.headers["strict-transport-security"], HSTS);
    // Error answers too: 401, 404.
    const unauthorized = await get("/v1/events");
    assert.equal(expectJson(unauthorized, 401).error.code, "UNAUTHORIZED");
    assert.equal(unauthorized.headers["strict-transport-security"], HSTS);
    const missing = await get("/v1/nothing-here", { authorization: `Bearer ${key}` });
    assert.equal(expectJson(missing, 404).error.code, "NOT_FOUND");
    assert.equal(missing.headers["strict-transport-security"], HSTS);
    // Error links point at the https origin.
    assert.ok(
      String(unauthorized.body.error.documentation).startsWith(`${server.url}/`),
      unauthorized.body.error.documentation,
    );
  });

  test("refuses a client that does not trust the certificate", async () => {
    await assert.rejects(rawRequest(`${server.url}/health`), (error: NodeJS.ErrnoException) =>
      /certificate|self.signed/i.test(`${error.code} ${error.message}`),
    );
  });

  test("the plain-HTTP listener answers every request with 308 to the same path and query on https://", async () => {
    for (const [method, path] of [
      ["GET", "/v1/events?limit=5&page=2"],
      ["POST", "/v1/attendees"],
      ["DELETE", "/api/events/evt_123"],
      ["GET", "/health"],
      ["GET", "/"],
    ] as const) {
      const response = await rawRequest(`${redirectUrl}${path}`, { method, ...(method === "POST" && { body: "{}" }) });
      assert.equal(response.status, 308, `${method} ${path}`);
      assert.equal(response.headers.location, `https://127.0.0.1:${httpsPort}${path}`, `${method} ${path}`);
      assert.equal(response.headers["strict-transport-security"], undefined, "no HSTS over plain HTTP");
      assert.equal(response.headers["x-content-type-options"], "nosniff");
    }
    // The host the client asked for is kept, the port is the HTTPS one.
    const named = await rawRequest(`${redirectUrl}/v1/events?search=a%20b`, {
      headers: { host: `localhost:${new URL(redirectUrl).port}` },
    });
    assert.equal(named.status, 308);
    assert.equal(named.headers.location, `https://localhost:${httpsPort}/v1/events?search=a%20b`);
    // Following the redirect works.
    const followed = await rawRequest(String((await rawRequest(`${redirectUrl}/v1/events?limit=5`)).headers.location), {
      ca: tls.cert,
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(expectJson(followed, 200).pagination.limit, 5);
  });

  test("what the HTTP parser refuses gets the JSON error body on both listeners: HSTS over HTTPS, none over plain HTTP", async () => {
    const big = `GET /health HTTP/1.1\r\nHost: localhost\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`;
    const secure = await exchange(server.url, big, { ca: tls.cert });
    assert.equal(secure.error, undefined, secure.raw);
    assert.equal(secure.responses[0]?.status, 431, secure.raw);
    assert.equal(secure.responses[0]!.body.error.code, "REQUEST_HEADERS_TOO_LARGE");
    assert.equal(secure.responses[0]!.headers.connection, "close");
    assert.equal(secure.responses[0]!.headers["strict-transport-security"], HSTS);
    const plain = await exchange(
      redirectUrl,
      "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    );
    assert.equal(plain.responses[0]?.status, 400, plain.raw);
    assert.equal(plain.responses[0]!.body.error.code, "INVALID_REQUEST");
    assert.equal(plain.responses[0]!.headers.connection, "close");
    assert.equal(plain.responses[0]!.headers["strict-transport-security"], undefined);
  });
});

describe("without TLS", () => {
  let server: TestServer;
  let key: string;

  before(async () => {
    server = await startServer();
    key = (await server.createKey({ account: "Plain" })).key;
  });

  after(async () => {
    assert.equal(await server.stop("SIGTERM"), 0);
  });

  test("serves plain HTTP, says so in exactly one warn line, and sends no HSTS", async () => {
    assert.match(server.url, /^http:\/\//);
    const warnings = await arrivedPlainHttpWarnings(server);
    assert.equal(warnings.length, 1, server.output());
    const health = await rawRequest(`${server.url}/health`);
    assert.equal(health.status, 200);
    assert.equal(health.headers["strict-transport-security"], undefined);
    const listed = await rawRequest(`${server.url}/v1/events`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(listed.status, 200);
    assert.equal(listed.headers["strict-transport-security"], undefined);
    assert.equal(plainHttpWarnings(server.output()).length, 1, "the warning is not repeated per request");
  });

  test("X-Forwarded-Proto is ignored when TRUST_PROXY is off", async () => {
    const asHttp = await rawRequest(`${server.url}/v1/events?limit=5`, {
      headers: {
        authorization: `Bearer ${key}`,
        "x-forwarded-proto": "http",
        "x-forwarded-host": "events.example.com",
      },
    });
    assert.equal(asHttp.status, 200);
    assert.equal(asHttp.headers.location, undefined);
    const asHttps = await rawRequest(`${server.url}/health`, { headers: { "x-forwarded-proto": "https" } });
    assert.equal(asHttps.status, 200);
    assert.equal(asHttps.headers["strict-transport-security"], undefined);
  });
});

describe("behind a trusted proxy (TRUST_PROXY=true)", () => {
  let server: TestServer;
  let key: string;

  before(async () => {
    server = await startServer({ env: { TRUST_PROXY: "true" } });
    key = (await server.createKey({ account: "Proxied" })).key;
  });

  after(async () => {
    assert.equal(await server.stop("SIGTERM"), 0);
  });

  test("X-Forwarded-Proto: http gets 308 to https://<X-Forwarded-Host or Host><path>?<query>, and nothing runs", async () => {
    const forwarded = await rawRequest(`${server.url}/v1/events?limit=5&page=2`, {
      headers: { "x-forwarded-proto": "http", "x-forwarded-host": "events.example.com" },
    });
    assert.equal(forwarded.status, 308);
    assert.equal(forwarded.headers.location, "https://events.example.com/v1/events?limit=5&page=2");

    const byHost = await rawRequest(`${server.url}/api/attendees?eventId=evt_1`, {
      headers: { "x-forwarded-proto": "http", host: "api.example.org" },
    });
    assert.equal(byHost.status, 308);
    assert.equal(byHost.headers.location, "https://api.example.org/api/attendees?eventId=evt_1");

    const post = await rawRequest(`${server.url}/v1/events`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${key}`,
        "x-forwarded-proto": "http",
        "x-forwarded-host": "events.example.com",
      },
      body: JSON.stringify(eventInput()),
    });
    assert.equal(post.status, 308);
    assert.equal(post.headers.location, "https://events.example.com/v1/events");
    const listed = await rawRequest(`${server.url}/v1/events`, {
      headers: { authorization: `Bearer ${key}`, "x-forwarded-proto": "https" },
    });
    assert.equal(expectJson(listed, 200).pagination.total, 0, "the redirected POST created nothing");
  });

  test("X-Forwarded-Proto: https gets HSTS; no header, no HSTS", async () => {
    const secure = await rawRequest(`${server.url}/v1/events`, {
      headers: {
        authorization: `Bearer ${key}`,
        "x-forwarded-proto": "https",
        "x-forwarded-host": "events.example.com",
      },
    });
    assert.equal(secure.status, 200);
    assert.equal(secure.headers["strict-transport-security"], HSTS);
    const health = await rawRequest(`${server.url}/health`, { headers: { "x-forwarded-proto": "https" } });
    assert.equal(health.status, 200);
    assert.equal(health.headers["strict-transport-security"], HSTS);
    const direct = await rawRequest(`${server.url}/health`);
    assert.equal(direct.status, 200);
    assert.equal(direct.headers["strict-transport-security"], undefined);
  });

  test("still says once that it serves plain HTTP", async () => {
    assert.equal((await arrivedPlainHttpWarnings(server)).length, 1, server.output());
  });
});

describe("configuration errors", { concurrency: true, skip: SQLITE_PASS_ONLY }, () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "event-service-config-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const [name, env, named] of [
    ["TLS_CERT without TLS_KEY", () => ({ TLS_CERT: tls.certPath }), "TLS_KEY"],
    ["TLS_KEY without TLS_CERT", () => ({ TLS_KEY: tls.keyPath }), "TLS_CERT"],
    ["HTTP_REDIRECT_PORT without TLS", () => ({ HTTP_REDIRECT_PORT: "0" }), "HTTP_REDIRECT_PORT"],
  ] as const) {
    test(`${name}: serve exits 1 naming ${named}`, async () => {
      const result = await runCliWithin(["serve"], {
        PORT: "0",
        HOST: "127.0.0.1",
        DATABASE_URL: join(dir, "config.sqlite"),
        LOG_LEVEL: "info",
        ...env(),
      });
      assert.equal(result.timedOut, false, "the server must not start");
      assert.equal(result.code, 1, result.stdout + result.stderr);
      assert.match(result.stderr, new RegExp(named));
      assert.doesNotMatch(result.stdout, /"msg":"listening"/);
    });
  }
});
