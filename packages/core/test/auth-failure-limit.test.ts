import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createAuthFailureLimit } from "../src/http/auth-failure-limit.ts";
import { createAuthenticator } from "../src/http/authenticate.ts";
import { addressBucket, compileTrustProxy, resolveClientAddress } from "../src/http/client-address.ts";
import { createHandler, type FetchHandler } from "../src/http/handler.ts";
import { createEventService, type EventService } from "../src/service.ts";
import type { Storage } from "../src/storage.ts";
import { sqliteStorage } from "./_sqlite.ts";

/** Counts the storage calls a request makes, to prove what a refused request costs. */
function spyOn(storage: Storage) {
  const calls = { reserveRequests: 0, authenticate: 0 };
  const spied: Storage = Object.create(storage);
  spied.reserveRequests = (...args) => (calls.reserveRequests++, storage.reserveRequests(...args));
  spied.authenticate = (...args) => (calls.authenticate++, storage.authenticate(...args));
  return { spied, calls, reset: () => Object.assign(calls, { reserveRequests: 0, authenticate: 0 }) };
}

describe("requests without a valid key: limited per address, never a database write", () => {
  const NOW = new Date("2026-06-01T12:00:10.000Z");
  let service: EventService;
  let handler: FetchHandler;
  let spy: ReturnType<typeof spyOn>;
  let key: string;
  let revoked: string;

  before(async () => {
    const storage = await sqliteStorage();
    spy = spyOn(storage);
    service = createEventService({ storage: spy.spied, now: () => NOW });
    handler = createHandler(service, {
      clientAddress: (request) => request.headers.get("x-test-peer") ?? undefined,
      authFailureLimitPerMinute: 3,
    });
    key = (await service.keys.create({ account: "Acme" })).key;
    const doomed = await service.keys.create({ account: "Acme" });
    revoked = doomed.key;
    await service.keys.revoke(doomed.id);
  });
  after(() => service.storage.close());

  const call = (peer: string, token?: string) =>
    handler(
      new Request("http://service.test/v1/events", {
        headers: { "x-test-peer": peer, ...(token !== undefined && { authorization: `Bearer ${token}` }) },
      }),
    );

  test("an unknown or revoked key costs one indexed read and no count; a missing one nothing", async () => {
    spy.reset();
    assert.equal((await call("198.51.100.1", "not-a-key")).status, 401);
    assert.equal((await call("198.51.100.1", revoked)).status, 401);
    assert.equal((await call("198.51.100.1")).status, 401);
    assert.deepEqual(spy.calls, { reserveRequests: 0, authenticate: 2 });
  });

  test("past the limit: 429 with Retry-After, and no database call at all", async () => {
    spy.reset();
    const response = await call("198.51.100.1", "still-not-a-key");
    assert.equal(response.status, 429);
    assert.equal(response.headers.get("retry-after"), "50");
    const body = (await response.json()) as { error: { code: string; details: Record<string, unknown> } };
    assert.equal(body.error.code, "RATE_LIMIT_EXCEEDED");
    assert.deepEqual(body.error.details, {
      window: "minute",
      limit: 3,
      resetAt: "2026-06-01T12:01:00.000Z",
      scope: "address",
    });
    assert.equal((await call("198.51.100.1")).status, 429);
    assert.equal((await call("198.51.100.1", revoked)).status, 429);
    assert.deepEqual(spy.calls, { reserveRequests: 0, authenticate: 0 });
  });

  test("a valid key is unaffected: from the limited address, and from a fresh one (which is not charged for it)", async () => {
    const first = await call("198.51.100.2", key);
    assert.equal(first.status, 200, await first.clone().text());
    spy.reset();
    for (let i = 0; i < 9; i++) assert.equal((await call("198.51.100.1", key)).status, 200);
    // Remembered, the key costs no read; its counts come in blocks (1, then 3 a lease: a free key's 60 / 20).
    assert.deepEqual(
      spy.calls,
      { reserveRequests: 3, authenticate: 0 },
      "a known live key costs no read, and a lease per block",
    );
    for (let i = 0; i < 5; i++) assert.equal((await call("198.51.100.2", key)).status, 200);
    for (let i = 0; i < 3; i++)
      assert.equal(
        (await call("198.51.100.2", "bad")).status,
        401,
        "valid requests spent none of the address's allowance",
      );
    assert.equal((await call("198.51.100.2", "bad")).status, 429);
  });

  test("another address has its own allowance; an IPv6 /64 is one address", async () => {
    assert.equal((await call("198.51.100.3", "bad")).status, 401);
    for (let i = 0; i < 3; i++) assert.equal((await call(`2001:db8:1:2::${i + 1}`, "bad")).status, 401);
    assert.equal((await call("2001:db8:1:2:ffff::9", "bad")).status, 429);
    assert.equal((await call("2001:db8:1:3::1", "bad")).status, 401);
  });
});

describe("the per-address counter", () => {
  test("exact, starts over each clock minute, and bounded in size", () => {
    const limit = createAuthFailureLimit({ perMinute: 2, maxAddresses: 3 });
    const t = Date.parse("2026-06-01T12:00:59.500Z");
    limit.take("192.0.2.1", t);
    limit.take("192.0.2.1", t);
    assert.throws(
      () => limit.take("192.0.2.1", t),
      (error: { code: string; headers: Record<string, string> }) =>
        error.code === "RATE_LIMIT_EXCEEDED" && error.headers["retry-after"] === "1",
    );
    limit.take("192.0.2.1", t + 500);
    limit.refund("192.0.2.1", t + 500);
    assert.equal(limit.exhausted("192.0.2.1", t + 500), false);
    // Four more addresses in one minute: the first counted is forgotten, memory stays at three.
    const u = t + 600;
    limit.take("192.0.2.1", u);
    limit.take("192.0.2.1", u);
    assert.equal(limit.exhausted("192.0.2.1", u), true);
    for (const address of ["192.0.2.2", "192.0.2.3", "192.0.2.4"]) limit.take(address, u);
    assert.equal(limit.exhausted("192.0.2.1", u), false, "the oldest address was forgotten");
  });

  test("address buckets", () => {
    assert.equal(addressBucket("203.0.113.7"), "203.0.113.7");
    assert.equal(addressBucket("::ffff:203.0.113.7"), "203.0.113.7");
    assert.equal(addressBucket("2001:db8:aa:bb:1:2:3:4"), "2001:db8:aa:bb::/64");
    assert.equal(addressBucket("not an address"), "not an address");
  });
});

describe("the client address behind proxies", () => {
  test("the nearest X-Forwarded-For hop that is not a trusted proxy", () => {
    const cases: [
      trust: boolean | string[],
      peer: string | undefined,
      xff: string | null,
      expected: string | undefined,
    ][] = [
      [false, "203.0.113.1", "198.51.100.9", "203.0.113.1"],
      [true, "10.0.0.2", "198.51.100.9", "198.51.100.9"],
      [true, "10.0.0.2", "1.1.1.1, 198.51.100.9", "198.51.100.9"],
      [true, "10.0.0.2", null, "10.0.0.2"],
      [["10.0.0.0/8"], "10.0.0.2", "1.1.1.1, 198.51.100.9, 10.0.0.7", "198.51.100.9"],
      [["10.0.0.0/8"], "203.0.113.1", "198.51.100.9", "203.0.113.1"],
      [["10.0.0.0/8"], "10.0.0.2", "10.0.0.3, 10.0.0.4", "10.0.0.3"],
      [["fd00::/8"], "fd00::2", "2001:db8::5", "2001:db8::5"],
      [["10.0.0.0/8"], "::ffff:10.0.0.2", "198.51.100.9", "198.51.100.9"],
      [["loopback"], "127.0.0.1", "198.51.100.9", "198.51.100.9"],
      [["10.0.0.0/8"], undefined, "198.51.100.9", undefined],
    ];
    for (const [trust, peer, xff, expected] of cases) {
      assert.equal(
        resolveClientAddress(peer, xff, compileTrustProxy(trust)),
        expected,
        JSON.stringify({ trust, peer, xff }),
      );
    }
  });

  test("an invalid entry is refused, naming it", () => {
    assert.throws(() => compileTrustProxy(["10.0.0.0/8", "10.0.0.0/40"]), /"10.0.0.0\/40"/);
    assert.throws(() => compileTrustProxy(["proxy.internal"]), /"proxy.internal"/);
  });
});

describe("a burst with a key this process has not seen yet", () => {
  /** Keys whose lookup waits until `release()`: `live` is a valid key, any other unknown. */
  function slowKeys() {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let lookups = 0;
    const keys = {
      async authenticate(token: string, options: { beforeLookup?: () => void } = {}) {
        await Promise.resolve();
        options.beforeLookup?.();
        lookups += 1;
        await released;
        return token === "live"
          ? ({ accountId: "acct_1", keyId: "key_1", tier: "free", scopes: [], limits: {} } as never)
          : null;
      },
    };
    return { keys, release, lookups: () => lookups };
  }

  test("100 requests at once from one address with a live key: all served, none refused with 429", async () => {
    const { keys, release } = slowKeys();
    const authenticate = createAuthenticator(keys, createAuthFailureLimit({ perMinute: 60 }));
    const answers = Array.from({ length: 100 }, () =>
      authenticate("live", 0, "203.0.113.7").then(
        () => "served",
        (error) => error.code,
      ),
    );
    release();
    assert.deepEqual(new Set(await Promise.all(answers)), new Set(["served"]));
  });

  test("an unknown key is still charged to each of its requests: 60 answered 401, the rest 429", async () => {
    const { keys, release } = slowKeys();
    const authenticate = createAuthenticator(keys, createAuthFailureLimit({ perMinute: 60 }));
    const answers = Array.from({ length: 100 }, () =>
      authenticate("unknown", 0, "203.0.113.8").then(
        () => "served",
        (error) => error.code,
      ),
    );
    release();
    const codes = await Promise.all(answers);
    assert.deepEqual(
      [
        codes.filter((code) => code === "UNAUTHORIZED").length,
        codes.filter((code) => code === "RATE_LIMIT_EXCEEDED").length,
      ],
      [60, 40],
    );
  });
});
