/**
 * End-to-end: the access log (one pino JSON line per request with requestId, method, path,
 * status, durationMs and, once authenticated, accountId), X-Request-Id echoed or generated,
 * no API key anywhere in the server's output, and LOG_LEVEL honoured.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type ApiResponse, type CreatedKey, runCli, startServer, type TestServer } from "./_setup.ts";
import { eventInput } from "./fixtures/builders.ts";
import { expectError, expectStatus } from "./fixtures/api.ts";
import { logLines, rawRequest, requestLines, sleep, startBareServer } from "./fixtures/conventions.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const WRONG_KEY = "esk_ffffffffffffffffffffffffffffffffffffffffffffffff";

/** The access-log line of `requestId`, waiting a little for the child's output to arrive. */
async function lineOf(server: TestServer, requestId: string): Promise<Record<string, any>> {
  for (let i = 0; i < 100; i++) {
    const lines = requestLines(server.output()).filter((line) => line.requestId === requestId);
    if (lines.length) {
      assert.equal(lines.length, 1, `one line per request: ${JSON.stringify(lines)}`);
      return lines[0]!;
    }
    await sleep(20);
  }
  throw new Error(`no request line for ${requestId}:\n${server.output()}`);
}

describe("the access log", () => {
  let server: TestServer;
  let writer: CreatedKey;
  let reader: CreatedKey;
  let extra: CreatedKey;

  before(async () => {
    server = await startServer();
    [writer, reader] = await Promise.all([
      server.createKey({ account: "Log Writer" }),
      server.createKey({ account: "Log Reader", scopes: ["events:read"] }),
    ]);
    extra = await server.createKey({ account: "Log Writer", tier: "starter" });
  });

  after(async () => {
    await server.stop("SIGTERM");
  });

  test("one JSON line per request: requestId, method, path, status, durationMs and accountId", async () => {
    const listed = await server.request("GET", "/v1/events", {
      key: writer.key,
      headers: { "x-request-id": "trace-list-1" },
    });
    expectStatus(listed, 200);
    assert.equal(listed.headers.get("x-request-id"), "trace-list-1");
    const line = await lineOf(server, "trace-list-1");
    assert.equal(line.msg, "request");
    assert.equal(line.level, 30);
    assert.equal(line.method, "GET");
    assert.equal(line.path, "/v1/events");
    assert.equal(line.status, 200);
    assert.equal(typeof line.durationMs, "number");
    assert.ok(line.durationMs >= 0 && line.durationMs < 10_000, String(line.durationMs));
    assert.equal(line.accountId, writer.accountId);
    assert.equal(typeof line.time, "string");

    const created = await server.request("POST", "/api/events", {
      key: extra.key,
      body: eventInput(),
      headers: { "x-request-id": "trace-create-1" },
    });
    expectStatus(created, 201);
    assert.deepEqual(
      (({ method, path, status, accountId }) => ({ method, path, status, accountId }))(
        await lineOf(server, "trace-create-1"),
      ),
      { method: "POST", path: "/api/events", status: 201, accountId: writer.accountId },
      "a second key of the same account logs the same accountId",
    );
  });

  test("error answers are logged with their status; accountId only once authenticated", async () => {
    // Alone, before the others: /health answers 503 when the store's ping outlasts 500 ms, which
    // five requests at once on a loaded machine's PostgreSQL may cause.
    const health = await server.request("GET", "/health", { headers: { "x-request-id": "trace-health" } });
    const cases: Array<[string, Promise<ApiResponse>, number, string | undefined]> = [
      [
        "trace-401-missing",
        server.request("GET", "/v1/events", { headers: { "x-request-id": "trace-401-missing" } }),
        401,
        undefined,
      ],
      [
        "trace-401-wrong",
        server.request("GET", "/v1/events", { key: WRONG_KEY, headers: { "x-request-id": "trace-401-wrong" } }),
        401,
        undefined,
      ],
      [
        "trace-403",
        server.request("POST", "/v1/events", {
          key: reader.key,
          body: eventInput(),
          headers: { "x-request-id": "trace-403" },
        }),
        403,
        reader.accountId,
      ],
      [
        "trace-404",
        server.request("GET", "/v1/events/evt_missing", { key: reader.key, headers: { "x-request-id": "trace-404" } }),
        404,
        reader.accountId,
      ],
      [
        "trace-400",
        server.request("POST", "/v1/events", {
          key: writer.key,
          body: { name: "" },
          headers: { "x-request-id": "trace-400" },
        }),
        400,
        writer.accountId,
      ],
      ["trace-health", Promise.resolve(health), 200, undefined],
    ];
    for (const [requestId, pending, status, accountId] of cases) {
      const response = await pending;
      assert.equal(response.status, status, requestId);
      assert.equal(response.headers.get("x-request-id"), requestId);
      const line = await lineOf(server, requestId);
      assert.equal(line.status, status, requestId);
      assert.equal(line.accountId, accountId, requestId);
      assert.equal(typeof line.durationMs, "number");
    }
  });

  test("without a usable X-Request-Id, a UUID is generated, returned and logged", async () => {
    const invalid = ["x".repeat(129), "has space", "tab\tinside"];
    const answers = [
      await server.request("GET", "/v1/events", { key: writer.key }),
      ...(await Promise.all(
        invalid.map((id) => server.request("GET", "/v1/events", { key: writer.key, headers: { "x-request-id": id } })),
      )),
    ];
    const ids = answers.map((response) => {
      expectStatus(response, 200);
      const id = response.headers.get("x-request-id");
      assert.match(String(id), UUID);
      return id!;
    });
    assert.equal(new Set(ids).size, ids.length, "a new id per request");
    for (const id of ids) assert.equal((await lineOf(server, id)).path, "/v1/events");
    for (const id of invalid)
      assert.equal(requestLines(server.output()).filter((line) => line.requestId === id).length, 0);

    // 128 visible ASCII characters are kept as they are.
    const longest = `${"r".repeat(120)}!#$%&*~^`;
    assert.equal(longest.length, 128);
    const kept = await server.request("GET", "/health", { headers: { "x-request-id": longest } });
    assert.equal(kept.headers.get("x-request-id"), longest);
    assert.equal((await lineOf(server, longest)).status, 200);
  });

  test("the API key and the Authorization header never appear in the server's output", async () => {
    const late = await server.createKey({ account: "Log Late" });
    const keys = [writer.key, reader.key, extra.key, late.key, WRONG_KEY];
    expectStatus(await server.request("GET", "/v1/events", { key: late.key }), 200);
    expectError(await server.request("GET", "/v1/events", { key: WRONG_KEY }), 401, "UNAUTHORIZED");
    expectError(
      await server.request("GET", "/v1/events", {
        headers: { authorization: `Basic ${Buffer.from(`user:${late.key}`).toString("base64")}` },
      }),
      401,
      "UNAUTHORIZED",
    );
    expectError(
      await server.request("GET", "/v1/events", { headers: { authorization: `Bearer ${late.key} trailing` } }),
      401,
      "UNAUTHORIZED",
    );
    // A client that puts its key in the query string by mistake.
    expectError(
      await server.request("GET", `/v1/events?api_key=${late.key}`, { key: late.key }),
      400,
      "INVALID_REQUEST",
    );
    // The 401s' bodies do not echo it either.
    const wrong = await rawRequest(`${server.url}/v1/events`, { headers: { authorization: `Bearer ${WRONG_KEY}` } });
    assert.ok(!JSON.stringify(wrong.body).includes(WRONG_KEY));
    await server.request("GET", "/health", { headers: { "x-request-id": "trace-last" } });
    await lineOf(server, "trace-last");

    assert.equal(await server.stop("SIGTERM"), 0);
    const output = server.output();
    assert.ok(requestLines(output).length >= 20, "the run was logged");
    for (const key of keys) {
      assert.ok(!output.includes(key), `key ${key.slice(0, 8)}… appears in the output`);
      assert.ok(!output.includes(key.slice(4)), `the secret part of ${key.slice(0, 8)}… appears in the output`);
    }
    assert.doesNotMatch(output, /authorization/i);
    assert.doesNotMatch(output, /bearer/i);
    assert.doesNotMatch(output, /Basic [A-Za-z0-9+/=]{8,}/);
  });
});

describe("LOG_LEVEL", { concurrency: true }, () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "event-service-log-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const [level, expectWarning] of [
    ["silent", false],
    ["warn", true],
  ] as const) {
    test(`LOG_LEVEL=${level}: no request lines${expectWarning ? ", the plain-HTTP warning still" : ", no output at all"}`, async () => {
      const database = join(dir, `${level}.sqlite`);
      const created = await runCli(["keys", "create", "--account", "Quiet", "--json"], { DATABASE_URL: database });
      assert.equal(created.code, 0, created.stderr);
      const { key } = JSON.parse(created.stdout) as CreatedKey;
      const server = await startBareServer({ DATABASE_URL: database, LOG_LEVEL: level });
      let code: number | null;
      try {
        const variants: Array<Record<string, string>> = [
          { authorization: `Bearer ${key}` },
          { authorization: `Bearer ${WRONG_KEY}` },
          {},
        ];
        for (const headers of variants) {
          const response = await rawRequest(`${server.url}/v1/events`, { headers });
          assert.ok(response.status === 200 || response.status === 401, String(response.status));
          assert.ok(response.headers["x-request-id"], "the id is returned even when nothing is logged");
        }
        await sleep(200);
      } finally {
        code = await server.stop("SIGTERM");
      }
      assert.equal(code, 0);
      const output = server.output();
      assert.deepEqual(requestLines(output), []);
      if (expectWarning) {
        const lines = logLines(output);
        assert.ok(lines.length > 0 && lines.every((line) => line.level >= 40), output);
        assert.equal(lines.filter((line) => /plain HTTP/i.test(String(line.msg))).length, 1, output);
      } else {
        assert.equal(output, "", "silent means silent");
      }
      assert.ok(!output.includes(key));
    });
  }
});
