/**
 * End-to-end: rate limits per account, in fixed per-minute and per-UTC-day windows, with the
 * `X-RateLimit-*` headers on every authenticated answer and `429 RATE_LIMIT_EXCEEDED` over the
 * limit, in one process and across two processes sharing one SQLite file.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type ApiResponse, queryDatabase, startServer, testDatabase, type TestServer } from "./_setup.ts";
import { expectError, expectStatus } from "./fixtures/api.ts";
import { eventInput } from "./fixtures/builders.ts";
import { dayEnd, minuteEnd, tally, waitForMinuteRoom } from "./fixtures/conventions.ts";

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
  return on.createKey({
    account: `Limited ${accounts} ${Date.now()}`,
    tier: "enterprise",
    extra: ["--per-minute", String(perMinute), "--per-day", String(perDay)],
  });
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

test("each tier's per-minute limit is announced: free 60, starter 300, professional 1200, enterprise 6000 by default", async () => {
  const stamp = Date.now();
  const tiers = [
    ["free", 60],
    ["starter", 300],
    ["professional", 1200],
    ["enterprise", 6000],
  ] as const;
  const keys = await Promise.all(tiers.map(([tier]) => server.createKey({ account: `Tier ${tier} ${stamp}`, tier })));
  await waitForMinuteRoom();
  for (const [i, [tier, limit]] of tiers.entries()) {
    const response = await list(keys[i]!.key);
    expectStatus(response, 200);
    assert.deepEqual(limits(response), { limit, remaining: limit - 1, reset: minuteEnd() }, tier);
  }
});

test("headers count down per request and reset at the end of the minute; the request over the limit gets 429 with Retry-After", async () => {
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
});

test("every authenticated answer carries the headers, errors included; a 401 carries none", async () => {
  const [{ key }, { key: readOnly }] = await Promise.all([
    enterpriseKey(50),
    server.createKey({
      account: `Read only ${Date.now()}`,
      tier: "enterprise",
      scopes: ["events:read"],
      extra: ["--per-minute", "50"],
    }),
  ]);
  await waitForMinuteRoom();
  const reset = minuteEnd();
  const keyed = { "content-type": "application/json", "idempotency-key": `rl-${Date.now()}` };
  const answers: Array<[ApiResponse, number, string | null]> = [
    [await server.request("GET", "/v1/events/evt_doesnotexist", { key }), 404, "NOT_FOUND"],
    [await server.request("GET", "/v1/events?status=nonsense", { key }), 400, "INVALID_REQUEST"],
    [await server.request("POST", "/v1/events", { key, body: { name: "" } }), 400, "INVALID_REQUEST"],
    [
      await server.request("POST", "/api/events", {
        key,
        raw: "{not json",
        headers: { "content-type": "application/json" },
      }),
      400,
      "INVALID_REQUEST",
    ],
    [
      await server.request("POST", "/v1/events", {
        key,
        raw: "name=x",
        headers: { "content-type": "application/x-www-form-urlencoded" },
      }),
      415,
      "UNSUPPORTED_MEDIA_TYPE",
    ],
    [
      await server.request("POST", "/v1/events", {
        key,
        raw: JSON.stringify({ name: "x".repeat(1024 * 1024 + 10) }),
        headers: { "content-type": "application/json" },
      }),
      413,
      "PAYLOAD_TOO_LARGE",
    ],
    [await server.request("POST", "/v1/events", { key, raw: JSON.stringify(eventInput()), headers: keyed }), 201, null],
    [
      await server.request("POST", "/v1/events", { key, raw: JSON.stringify(eventInput()), headers: keyed }),
      422,
      "IDEMPOTENCY_KEY_REUSED",
    ],
  ];
  answers.forEach(([response, status, code], i) => {
    if (code) expectError(response, status, code);
    else expectStatus(response, status);
    assert.deepEqual(limits(response), { limit: 50, remaining: 49 - i, reset }, `${status} ${code}`);
  });
  const forbidden = await server.request("POST", "/v1/events", { key: readOnly, body: {} });
  expectError(forbidden, 403, "FORBIDDEN");
  assert.deepEqual(limits(forbidden), { limit: 50, remaining: 49, reset });

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

test("the counters belong to the account: two keys of one account share them, another account is untouched", async () => {
  const [first, other] = await Promise.all([enterpriseKey(10), enterpriseKey(10)]);
  // A second key for the same account keeps the account's limits.
  const second = await server.createKey({ account: first.accountId, tier: "enterprise" });
  assert.equal(second.accountId, first.accountId);
  await waitForMinuteRoom();
  const reset = minuteEnd();
  assert.deepEqual(limits(await list(first.key)), { limit: 10, remaining: 9, reset });
  assert.deepEqual(limits(await list(second.key)), { limit: 10, remaining: 8, reset });
  assert.deepEqual(limits(await list(first.key)), { limit: 10, remaining: 7, reset });

  const responses = await Promise.all(Array.from({ length: 14 }, (_, i) => list(i % 2 ? first.key : second.key)));
  assert.deepEqual(tally(responses), { "200": 7, "429 RATE_LIMIT_EXCEEDED": 7 });
  for (const key of [first.key, second.key]) expectRefused(await list(key), "minute", 10, reset);

  const fresh = await list(other.key);
  expectStatus(fresh, 200);
  assert.deepEqual(limits(fresh), { limit: 10, remaining: 9, reset });
});

test("the day limit: once used up, 429 with window day until the end of the UTC day, remaining 0", async () => {
  // 10 per minute, 5 per day: the day binds first. (Refused requests are not counted: see
  // packages/core/test/request-counter.test.ts.)
  const { key } = await enterpriseKey(10, 5);
  await waitForMinuteRoom();
  const minute = minuteEnd();
  const day = dayEnd();
  for (let i = 1; i <= 5; i++) {
    const response = await list(key);
    expectStatus(response, 200);
    assert.deepEqual(limits(response), { limit: 10, remaining: 10 - i, reset: minute });
  }
  for (let i = 6; i <= 7; i++) {
    const response = await list(key);
    const retryAfter = expectRefused(response, "day", 5, day);
    assert.ok(retryAfter > 0 && retryAfter <= 86_400);
    assert.deepEqual(limits(response), { limit: 10, remaining: 0, reset: day }, `request ${i}`);
  }
});

test("a day limit below the minute limit binds first: successes stop at the day limit", async () => {
  const { key } = await enterpriseKey(100, 4);
  await waitForMinuteRoom();
  const responses = await Promise.all(Array.from({ length: 10 }, () => list(key)));
  assert.deepEqual(tally(responses), { "200": 4, "429 RATE_LIMIT_EXCEEDED": 6 });
  const day = dayEnd();
  for (const response of responses.filter((r) => r.status === 429)) {
    expectRefused(response, "day", 4, day);
    assert.deepEqual(limits(response), { limit: 100, remaining: 0, reset: day });
  }
  const remaining = responses
    .filter((r) => r.status === 200)
    .map((r) => limits(r).remaining)
    .sort((a, b) => b - a);
  assert.deepEqual(remaining, [99, 98, 97, 96]);
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
