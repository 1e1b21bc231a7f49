import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ServiceError } from "../src/errors.ts";
import { createHandler } from "../src/http/handler.ts";
import { createHealthCheck } from "../src/http/health-check.ts";
import { createEventService } from "../src/service.ts";
import type { Storage } from "../src/storage.ts";
import Database from "better-sqlite3";
import { Kysely } from "kysely";
import type { Database as Schema } from "../src/sql/database.ts";
import { createSqliteDialect } from "../src/sql/sqlite-driver.ts";
import { createSqlStorage } from "../src/sql/sql-storage.ts";
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

  test("checks arriving while a ping is in flight share it; past the ping's time they answer 503 timeout without another ping", async () => {
    const store = fakeStore();
    let now = 0;
    const check = createHealthCheck(store, { now: () => now });
    let release!: () => void;
    store.held = new Promise((resolve) => (release = resolve));
    const first = Array.from({ length: 10 }, () => check());
    now = 400;
    const later = Array.from({ length: 10 }, () => check());
    now = 5_000;
    const late = await check().then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.ok(ServiceError.is(late));
    assert.equal(late.code, "SERVICE_UNAVAILABLE");
    assert.deepEqual(late.details, { fault: "timeout" });
    assert.equal(store.pings, 1);
    release();
    await Promise.all([...first, ...later]);
    assert.equal(store.pings, 1);
    // The ping ended: the next check after the interval pings again.
    await check();
    assert.equal(store.pings, 2);
  });

  test("a ping that hangs: the check answers 503 within the timeout (real clock)", async () => {
    const store = fakeStore();
    store.held = new Promise(() => {});
    const check = createHealthCheck(store, { timeoutMs: 100 });
    const started = performance.now();
    const refused = await check().then(
      () => undefined,
      (error: unknown) => error,
    );
    const took = performance.now() - started;
    assert.ok(ServiceError.is(refused) && refused.code === "SERVICE_UNAVAILABLE");
    assert.ok(took >= 95 && took < 1_000, `answered after ${took} ms`);
  });

  test("a store that cannot write (SQLite read-only): a write that fails makes the check probe with a write, 503 read_only until writes work again", async () => {
    const database = new Database(":memory:");
    const storage = createSqlStorage({ db: new Kysely<Schema>({ dialect: createSqliteDialect(database) }) });
    await storage.migrate();
    try {
      let now = 0;
      const check = createHealthCheck(storage, { now: () => now });
      await check();
      // Reads still work; writes are refused, as on a file turned read-only.
      database.pragma("query_only = on");
      await assert.rejects(
        storage.revokeApiKey("key_1", "2026-01-01T00:00:00.000Z"),
        (error: unknown) => ServiceError.is(error) && error.status === 503,
      );
      now = 1_000;
      const refused = await check().then(
        () => undefined,
        (error: unknown) => error,
      );
      assert.ok(ServiceError.is(refused) && refused.code === "SERVICE_UNAVAILABLE");
      assert.deepEqual(refused.details, { fault: "read_only" });
      assert.equal(refused.message, "The store cannot write: it is read-only.");
      database.pragma("query_only = off");
      now = 2_000;
      await check();
    } finally {
      await storage.close();
    }
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
    const refused = await check().then(
      () => undefined,
      (error: unknown) => error,
    );
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
      const responses = await Promise.all(
        Array.from({ length: 30 }, () => handler(new Request("http://service.test/health"))),
      );
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
