/**
 * End-to-end: the rate limit's headers and `429 RATE_LIMIT_EXCEEDED` through the real server, and
 * the counts it leases given back at shutdown. The rules themselves (each tier's limit, every
 * answer's headers, the counters per account, the day window) are tested with a pinned clock in
 * packages/core/test/rate-limit-headers.test.ts, the leasing in request-counter.test.ts, two
 * processes on one key in test/multi-process.test.ts.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type ApiResponse, queryDatabase, startServer, testDatabase, type TestServer } from "./_setup.ts";
import { expectError, expectStatus } from "./fixtures/api.ts";
import { minuteEnd, tally, waitForMinuteRoom } from "./fixtures/conventions.ts";

let server: TestServer;
let accounts = 0;

before(async () => {
  server = await startServer();
});

after(async () => {
  const output = server.output();
  const code = await server.stop("SIGTERM");
  assert.equal(code, 0, "the server exits 0 on SIGTERM");
  assert.doesNotMatch(output, /"msg":"unexpected error"/, "no request failed unexpectedly");
});

/** A key of a new enterprise account with the given limits. */
async function enterpriseKey(perMinute: number, perDay = 100_000, on: TestServer = server) {
  accounts += 1;
  return on.createKey({ account: `Limited ${accounts} ${Date.now()}`, tier: "enterprise", perMinute, perDay });
}

const list = (key: string, on: TestServer = server) => on.request("GET", "/v1/events", { key });

/** The three rate-limit headers as numbers. */
function limits(response: ApiResponse) {
  const read = (name: string) => {
    const value = response.headers.get(name);
    assert.ok(value !== null && /^\d+$/.test(value), `${name}: ${value} (status ${response.status})`);
    return Number(value);
  };
  return {
    limit: read("x-ratelimit-limit"),
    remaining: read("x-ratelimit-remaining"),
    reset: read("x-ratelimit-reset"),
  };
}

/** Asserts a 429 over the per-minute or per-day limit and returns its Retry-After. */
function expectRefused(response: ApiResponse, window: "minute" | "day", limit: number, reset: number): number {
  const error = expectError(response, 429, "RATE_LIMIT_EXCEEDED");
  assert.deepEqual(error.details, { window, limit, resetAt: new Date(reset * 1000).toISOString() });
  const retryAfter = response.headers.get("retry-after");
  assert.match(String(retryAfter), /^\d+$/);
  const seconds = Number(retryAfter);
  // The server counted from a moment at or before now: at least what is left now (1 s slack for rounding).
  const leftNow = Math.max(1, reset - Math.floor(Date.now() / 1000));
  assert.ok(seconds >= 1, `Retry-After ${seconds}`);
  assert.ok(
    seconds >= leftNow - 1 && seconds <= leftNow + 10,
    `Retry-After ${seconds}, ${leftNow} s are left until the window ends`,
  );
  return seconds;
}

test("headers count down per request and reset at the end of the minute; the request over the limit gets 429 with Retry-After; a 401 carries none", async () => {
  const { key } = await enterpriseKey(5);
  await waitForMinuteRoom();
  const reset = minuteEnd();
  for (let i = 1; i <= 5; i++) {
    const response = await list(key);
    expectStatus(response, 200);
    assert.deepEqual(limits(response), { limit: 5, remaining: 5 - i, reset }, `request ${i}`);
  }
  const refused = await list(key);
  assert.deepEqual(limits(refused), { limit: 5, remaining: 0, reset });
  const retryAfter = expectRefused(refused, "minute", 5, reset);
  assert.ok(retryAfter <= 60);
  // Every kind of request counts, writes too.
  expectRefused(await server.request("POST", "/v1/events", { key, body: {} }), "minute", 5, reset);
  for (const response of [
    await server.request("GET", "/v1/events"),
    await server.request("GET", "/v1/events", { key: "esk_0123456789abcdef0123456789abcdef0123456789abcdef" }),
  ]) {
    expectError(response, 401, "UNAUTHORIZED");
    for (const name of ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "retry-after"]) {
      assert.equal(response.headers.get(name), null, `401 must not carry ${name}`);
    }
  }
});

test("counts are leased in blocks: a server holds a few more than it answered, and gives them back on SIGTERM", async () => {
  // (Two processes sharing one key's limit: test/multi-process.test.ts.)
  const { url: database, drop } = await testDatabase();
  const own = await startServer({ database });
  let code: number | null | undefined;
  try {
    const { key, accountId } = await enterpriseKey(1_000, 100_000, own);
    await waitForMinuteRoom();
    // Waves of 20 at once: the blocks grow with the rate the server sees.
    for (let wave = 0; wave < 5; wave++) {
      const responses = await Promise.all(Array.from({ length: 20 }, () => list(key, own)));
      assert.deepEqual(tally(responses), { "200": 20 });
    }
    const counted = async () =>
      Number(
        (
          await queryDatabase<{ minute_count: number }>(
            database,
            "select minute_count from rate_limit_counters where account_id = ?",
            [accountId],
          )
        )[0]?.minute_count,
      );
    const held = await counted();
    assert.ok(
      held >= 100 && held <= 150,
      `100 answered; the store counts them and at most a block of 50 (1,000 / 20) more: ${held}`,
    );
    code = await own.stop("SIGTERM");
    assert.equal(await counted(), 100, "after shutdown the store counts exactly the requests answered");
  } finally {
    code ??= await own.stop("SIGTERM");
    await drop();
  }
  assert.equal(code, 0);
});
