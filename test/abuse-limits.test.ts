/**
 * End-to-end: requests without a valid key are limited per client address (never a database
 * write), the client address behind trusted proxies (TRUST_PROXY), the access log's address.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type CreatedKey, queryDatabase, startServer, type TestServer } from "./_setup.ts";
import { waitForMinuteRoom, waitForOutput } from "./fixtures/conventions.ts";

/** The rate-limit counters as stored: any counting write shows here. */
function counters(database: string): Promise<unknown[]> {
  return queryDatabase(database, "select * from rate_limit_counters order by account_id");
}

describe("the default limit: 60 a minute per address", () => {
  let server: TestServer;
  let valid: CreatedKey;
  let revoked: CreatedKey;

  before(async () => {
    server = await startServer();
    [valid, revoked] = await Promise.all([
      server.createKey({ account: "Abuse Victim" }),
      server.createKey({ account: "Abuse Victim 2" }),
    ]);
    assert.equal((await server.cli(["keys", "revoke", revoked.id])).code, 0);
  });
  after(async () => {
    assert.equal(await server.stop(), 0);
  });

  test("61 requests with a bad key: 60 x 401, then 429 with Retry-After; a valid key is unaffected; no write", async () => {
    assert.equal((await server.request("GET", "/v1/events", { key: valid.key })).status, 200);
    const before = await counters(server.database);
    // 62 quick requests: 10 s of the minute are plenty.
    await waitForMinuteRoom(10);
    const bad = [{ key: "es_live_unknown" }, { key: revoked.key }, {}, { key: "x".repeat(40) }];
    for (let i = 0; i < 60; i++) {
      const response = await server.request("GET", "/v1/events", bad[i % bad.length]);
      assert.equal(response.status, 401, `request ${i + 1}`);
      assert.equal(response.body.error.code, "UNAUTHORIZED");
    }
    const refused = await server.request("GET", "/v1/events", { key: "es_live_unknown" });
    assert.equal(refused.status, 429);
    assert.equal(refused.body.error.code, "RATE_LIMIT_EXCEEDED");
    assert.equal(refused.body.error.details.limit, 60);
    const retryAfter = Number(refused.headers.get("retry-after"));
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    assert.match(refused.body.error.documentation, /#RATE_LIMIT_EXCEEDED$/);
    assert.equal((await server.request("POST", "/v1/events", { body: {} })).status, 429, "no key at all: refused too");
    assert.deepEqual(await counters(server.database), before, "none of the refused requests counted anything");

    const ok = await server.request("GET", "/v1/events", { key: valid.key });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get("x-ratelimit-limit"), "1200");
    // Public routes need no key and are never limited by it.
    assert.equal((await server.request("GET", "/health")).status, 200);
  });

  test("the access log carries the client address", async () => {
    const requestLines = () =>
      server
        .output()
        .split("\n")
        .filter((line) => line.includes('"msg":"request"'));
    // The log reaches us through a pipe: wait for the lines rather than race them.
    for (let waited = 0; requestLines().length < 64 && waited < 10_000; waited += 50)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const lines = requestLines();
    assert.ok(lines.length >= 64, `${lines.length} request lines`);
    for (const line of lines) assert.equal(JSON.parse(line).clientAddress, "127.0.0.1");
  });
});

describe("behind proxies", () => {
  const servers: TestServer[] = [];
  after(async () => {
    for (const server of servers) assert.equal(await server.stop(), 0);
  });
  const start = async (env: Record<string, string>) => {
    const server = await startServer({ env: { AUTH_FAILURE_LIMIT_PER_MINUTE: "3", ...env } });
    servers.push(server);
    return server;
  };
  const bad = (server: TestServer, forwardedFor?: string, extra: Record<string, string> = {}) =>
    server.request("GET", "/v1/events", {
      key: "not-a-key",
      headers: { ...(forwardedFor && { "x-forwarded-for": forwardedFor }), ...extra },
    });

  test("without TRUST_PROXY a spoofed X-Forwarded-For is ignored: rotating it does not escape the limit", async () => {
    const server = await start({});
    await waitForMinuteRoom(5);
    for (let i = 1; i <= 3; i++) assert.equal((await bad(server, `198.51.100.${i}`)).status, 401);
    assert.equal((await bad(server, "198.51.100.99")).status, 429);
    assert.equal(
      (await bad(server, "198.51.100.99", { "x-forwarded-proto": "http" })).status,
      429,
      "no redirect either: the peer is not a proxy",
    );
    await waitForOutput(server, /("msg":"request".*\n.*){5}/);
    const log = server
      .output()
      .split("\n")
      .filter((line) => line.includes('"msg":"request"'))
      .map((line) => JSON.parse(line).clientAddress);
    assert.deepEqual(new Set(log), new Set(["127.0.0.1"]));
  });

  test("TRUST_PROXY=loopback: the nearest untrusted X-Forwarded-For hop is the client", async () => {
    const server = await start({ TRUST_PROXY: "loopback,10.0.0.0/8" });
    await waitForMinuteRoom(5);
    // The client claims to be 192.0.2.1; the trusted proxy 10.0.0.5 saw 203.0.113.7.
    for (let i = 0; i < 3; i++) assert.equal((await bad(server, "192.0.2.1, 203.0.113.7, 10.0.0.5")).status, 401);
    assert.equal(
      (await bad(server, "192.0.2.2, 203.0.113.7, 10.0.0.5")).status,
      429,
      "the spoofed leftmost entry changes nothing",
    );
    assert.equal(
      (await bad(server, "203.0.113.8")).status,
      401,
      "another client behind the proxy has its own allowance",
    );
    const redirected = await fetch(`${server.url}/v1/events`, {
      redirect: "manual",
      headers: { "x-forwarded-proto": "http", "x-forwarded-host": "events.example.com" },
    });
    assert.equal(redirected.status, 308);
    assert.equal(redirected.headers.get("location"), "https://events.example.com/v1/events");
    await waitForOutput(server, /"clientAddress":"203\.0\.113\.7"/);
    assert.match(server.output(), /"clientAddress":"203\.0\.113\.7"/);
  });

  test("TRUST_PROXY listing other proxies: a loopback peer is not trusted, its forwarded headers are ignored", async () => {
    const server = await start({ TRUST_PROXY: "10.0.0.0/8,fd00::/8" });
    const response = await server.request("GET", "/health", {
      headers: { "x-forwarded-proto": "http", "x-forwarded-for": "203.0.113.7" },
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("strict-transport-security"), null);
    await waitForOutput(server, /"path":"\/health"/);
    assert.doesNotMatch(server.output(), /203\.0\.113\.7/);
  });

  test("a bad TRUST_PROXY stops the server at start, naming the variable", async () => {
    await assert.rejects(start({ TRUST_PROXY: "10.0.0.0/33" }), /TRUST_PROXY/);
  });
});
