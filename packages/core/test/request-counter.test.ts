import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createId } from "../src/_internal/ids.ts";
import { ServiceError } from "../src/errors.ts";
import { createRequestCounter } from "../src/http/request-counter.ts";
import type { Storage } from "../src/storage.ts";
import { sqliteStorage } from "./_sqlite.ts";

const FREE = { perMinute: 60, perDay: 1_000 };
/** 10 s into a minute: the windows do not move unless a test moves the time. */
const T0 = Date.parse("2026-06-01T12:00:10.000Z");
const MINUTE = {
  minute: Date.parse("2026-06-01T12:00:00.000Z") / 1000,
  day: Date.parse("2026-06-01T00:00:00.000Z") / 1000,
};

/** Counts one request; "ok" with its remaining count, or the error code. */
async function outcome(
  counter: ReturnType<typeof createRequestCounter>,
  accountId: string,
  nowMs = T0,
  limits = FREE,
): Promise<string> {
  try {
    const headers = await counter.count(accountId, limits, nowMs);
    return `ok ${headers["x-ratelimit-remaining"]}`;
  } catch (error) {
    if (ServiceError.is(error)) return error.code;
    throw error;
  }
}

describe("rate-limit counts leased in blocks", () => {
  let storage: Storage;
  let leases: Array<{ want: number; granted: number }>;
  let spied: Storage;
  const newAccount = async () =>
    (
      await storage.createApiKey({
        id: createId("apiKey"),
        account: `Counted ${createId("account")}`,
        newAccountId: createId("account"),
        hash: createId("apiKey"),
        prefix: "p",
        tier: "free",
        scopes: ["events:read"],
        now: new Date(T0).toISOString(),
      })
    ).accountId;
  /** What the store holds for the account's current windows (a lease of nothing reads it). */
  const stored = async (accountId: string, windows = MINUTE) => {
    const { minute, day } = await storage.reserveRequests({ accountId, windows, want: 0, limits: FREE });
    return { minute, day };
  };

  before(async () => {
    storage = await sqliteStorage();
    spied = Object.create(storage);
    spied.reserveRequests = async (lease) => {
      const leased = await storage.reserveRequests(lease);
      if (lease.want > 0) leases.push({ want: lease.want, granted: leased.granted });
      return leased;
    };
  });
  after(() => storage.close());

  test("one process: exact headers, 60 a minute, then 429 without asking the store again", async () => {
    leases = [];
    const counter = createRequestCounter(spied);
    const account = await newAccount();
    const answers: string[] = [];
    for (let i = 0; i < 65; i++) answers.push(await outcome(counter, account, T0 + i));
    assert.deepEqual(answers, [
      ...Array.from({ length: 60 }, (_, i) => `ok ${59 - i}`),
      ...Array(5).fill("RATE_LIMIT_EXCEEDED"),
    ]);
    assert.ok(
      leases.every((lease) => lease.want <= 3),
      `no block over 3 (60 / 20): ${JSON.stringify(leases)}`,
    );
    assert.ok(leases.length < 40, `counts came in blocks: ${leases.length} leases for 60`);
    const asked = leases.length;
    assert.equal(await outcome(counter, account, T0 + 100), "RATE_LIMIT_EXCEEDED");
    assert.equal(leases.length, asked, "refused from memory while the window lasts");
    // The next minute starts again.
    assert.equal(await outcome(counter, account, T0 + 60_000), "ok 59");
  });

  test("a refusal names the window and when it ends", async () => {
    const counter = createRequestCounter(storage);
    const account = await newAccount();
    for (let i = 0; i < 3; i++) await counter.count(account, { perMinute: 100, perDay: 3 }, T0);
    await assert.rejects(counter.count(account, { perMinute: 100, perDay: 3 }, T0), (error: ServiceError) => {
      assert.equal(error.code, "RATE_LIMIT_EXCEEDED");
      assert.deepEqual(error.details, { window: "day", limit: 3, resetAt: "2026-06-02T00:00:00.000Z" });
      assert.equal(error.headers?.["retry-after"], String(86_400 - 12 * 3600 - 10));
      return true;
    });
  });

  test("100 concurrent requests in one process: exactly 60 admitted", async () => {
    const counter = createRequestCounter(storage);
    const account = await newAccount();
    const answers = await Promise.all(Array.from({ length: 100 }, () => outcome(counter, account)));
    assert.equal(answers.filter((a) => a.startsWith("ok")).length, 60);
    assert.equal(answers.filter((a) => a === "RATE_LIMIT_EXCEEDED").length, 40);
    assert.deepEqual(await stored(account), { minute: 60, day: 60 });
  });

  test("two processes hammering one free key: exactly 60 between them; neither refused while the other holds more than a block", async () => {
    const a = createRequestCounter(storage);
    const b = createRequestCounter(storage);
    const account = await newAccount();
    const answers = { a: [] as string[], b: [] as string[] };
    for (let i = 0; i < 100; i++) {
      const [x, y] = await Promise.all([outcome(a, account, T0 + i), outcome(b, account, T0 + i)]);
      answers.a.push(x);
      answers.b.push(y);
    }
    const admitted = (list: string[]) => list.filter((answer) => answer.startsWith("ok")).length;
    assert.equal(admitted(answers.a) + admitted(answers.b), 60);
    assert.ok(
      admitted(answers.a) >= 27 && admitted(answers.b) >= 27,
      `shared fairly: ${admitted(answers.a)} / ${admitted(answers.b)}`,
    );
    assert.deepEqual(await stored(account), { minute: 60, day: 60 });
  });

  test("close gives the unspent counts back; a new minute gives the last one's back to the day", async () => {
    const account = await newAccount();
    // With the time standing still, blocks grow to 3 at once: 11 requests take 1 + 3 + 3 + 3 + 3.
    const first = createRequestCounter(storage);
    for (let i = 0; i < 11; i++) await first.count(account, FREE, T0);
    assert.deepEqual(await stored(account), { minute: 13, day: 13 }, "2 leased and held");
    await first.close();
    assert.deepEqual(await stored(account), { minute: 11, day: 11 }, "closed: only what was spent stays counted");

    const second = createRequestCounter(storage);
    for (let i = 0; i < 11; i++) await second.count(account, FREE, T0);
    assert.deepEqual(await stored(account), { minute: 24, day: 24 });
    await second.count(account, FREE, T0 + 60_000);
    const next = { minute: MINUTE.minute + 60, day: MINUTE.day };
    assert.deepEqual(
      await stored(account, next),
      { minute: 1, day: 23 },
      "the old minute's 2 unspent left the day with the next lease",
    );
  });
});
