import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ServiceError } from "../src/errors.ts";
import { createHandler } from "../src/http/handler.ts";
import { createHealthCheck } from "../src/http/health-check.ts";
import { createEventService } from "../src/service.ts";
import type { Storage } from "../src/storage.ts";
import { sqliteStorage } from "./_sqlite.ts";

/** A store whose pings are counted and can be made to fail, or held until released. */
function fakeStore() {
  const store = {
    pings: 0,
    down: false,
    held: undefined as Promise<void> | undefined,
    async ping() {
      store.pings++;
      if (store.held) await store.held;
      if (store.down) throw new Error("connection refused");
    },
  };
  return store;
}

describe("GET /health: the store's last ping, remembered for a second", () => {
  test("a burst of checks costs one ping; the next second costs one more", async () => {
    const store = fakeStore();
    let now = 10_000;
    const check = createHealthCheck(store, { now: () => now });
    await Promise.all(Array.from({ length: 50 }, () => check()));
    assert.equal(store.pings, 1);
    for (const elapsed of [1, 500, 999]) {
      now = 10_000 + elapsed;
      await Promise.all(Array.from({ length: 20 }, () => check()));
    }
    assert.equal(store.pings, 1, "within the second, no further ping");
    now = 11_000;
    await Promise.all(Array.from({ length: 20 }, () => check()));
    assert.equal(store.pings, 2);
  });

  test("checks arriving while a ping is in flight share it, even past the second", async () => {
    const store = fakeStore();
    let now = 0;
    const check = createHealthCheck(store, { now: () => now });
    let release!: () => void;
    store.held = new Promise((resolve) => (release = resolve));
    const first = Array.from({ length: 10 }, () => check());
    now = 5_000;
    const later = Array.from({ length: 10 }, () => check());
    release();
    await Promise.all([...first, ...later]);
    assert.equal(store.pings, 1);
  });

  test("a store that goes down is reported once the remembered answer expires, and its recovery too", async () => {
    const store = fakeStore();
    let now = 0;
    const check = createHealthCheck(store, { now: () => now });
    await check();
    store.down = true;
    now = 999;
    await check(); // still the remembered answer
    now = 1_000;
    const refused = await check().then(() => undefined, (error: unknown) => error);
    assert.ok(ServiceError.is(refused));
    assert.equal(refused.code, "SERVICE_UNAVAILABLE");
    assert.equal(refused.status, 503);
    assert.deepEqual(refused.headers, { "retry-after": "5" });
    // The failure is remembered too: a down store is not hammered.
    now = 1_500;
    await assert.rejects(check(), (error: unknown) => ServiceError.is(error) && error.code === "SERVICE_UNAVAILABLE");
    assert.equal(store.pings, 2);
    store.down = false;
    now = 2_000;
    await check();
    assert.equal(store.pings, 3);
  });

  describe("through the handler", () => {
    let storage: Storage;
    before(async () => (storage = await sqliteStorage()));
    after(() => storage.close());

    test("concurrent GET /health requests: all 200, one ping", async () => {
      let pings = 0;
      const counted: Storage = Object.create(storage);
      counted.ping = () => (pings++, storage.ping());
      const handler = createHandler(createEventService({ storage: counted }));
      const responses = await Promise.all(Array.from({ length: 30 }, () => handler(new Request("http://service.test/health"))));
      assert.deepEqual(new Set(responses.map((response) => response.status)), new Set([200]));
      assert.deepEqual(await responses[0]!.json(), { status: "ok" });
      assert.equal(pings, 1);
    });

    test("a store that cannot be reached: 503 SERVICE_UNAVAILABLE with Retry-After", async () => {
      const broken: Storage = Object.create(storage);
      broken.ping = () => Promise.reject(new Error("connection refused"));
      const handler = createHandler(createEventService({ storage: broken }));
      const response = await handler(new Request("http://service.test/health"));
      assert.equal(response.status, 503);
      assert.equal(response.headers.get("retry-after"), "5");
      assert.equal(((await response.json()) as { error: { code: string } }).error.code, "SERVICE_UNAVAILABLE");
    });
  });
});
