import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { AuthContext } from "../src/resources/api-key.ts";
import { createKeyMemory, KEY_REVISION_CHECK_MS } from "../src/service/key-memory.ts";

const context = (keyId: string): AuthContext => ({
  keyId,
  accountId: "acc_1",
  accountName: "Acme",
  tier: "free",
  scopes: ["events:read"],
  limits: { perMinute: 60, perDay: 1_000 },
});

/** A store whose revision the test moves, counting its reads. */
function fakeStore() {
  const store = {
    revision: 0,
    reads: 0,
    async keysRevision() {
      store.reads += 1;
      return store.revision;
    },
  };
  return store;
}

describe("keys remembered per process", () => {
  test("a remembered key costs no read until the revision is due, and is forgotten when it moved", async () => {
    let now = 1_000_000;
    const store = fakeStore();
    const memory = createKeyMemory(store, () => now);
    let keyReads = 0;
    const read = async () => (keyReads++, context("key_a"));

    assert.equal(await memory.recall("a"), undefined, "nothing remembered yet");
    assert.equal(store.reads, 0, "an unknown key is not worth a revision read");
    assert.deepEqual(await memory.load("a", read), context("key_a"));
    assert.equal(store.reads, 1, "the revision is read before the first key, as its baseline");
    for (let i = 0; i < 100; i++) assert.deepEqual(await memory.recall("a"), context("key_a"));
    assert.deepEqual([store.reads, keyReads], [1, 1], "100 requests within the check interval: no read at all");

    now += KEY_REVISION_CHECK_MS;
    assert.deepEqual(await memory.recall("a"), context("key_a"));
    assert.equal(store.reads, 2, "due: one revision read, unchanged, the key stays");

    store.revision += 1; // revoked by another process
    now += KEY_REVISION_CHECK_MS - 1;
    assert.deepEqual(await memory.recall("a"), context("key_a"), "not yet due");
    now += 1;
    assert.equal(
      await memory.recall("a"),
      undefined,
      "the revision moved: forgotten, so the next request reads the store",
    );
    assert.equal(store.reads, 3);
  });

  test("concurrent requests share one revision read", async () => {
    let now = 0;
    const store = fakeStore();
    const memory = createKeyMemory(store, () => now);
    await memory.load("a", async () => context("key_a"));
    now += KEY_REVISION_CHECK_MS;
    const recalled = await Promise.all(Array.from({ length: 20 }, () => memory.recall("a")));
    assert.ok(recalled.every((auth) => auth?.keyId === "key_a"));
    assert.equal(store.reads, 2);
  });

  test("a read begun before everything was forgotten is not remembered", async () => {
    const store = fakeStore();
    const memory = createKeyMemory(store, () => 0);
    let release!: () => void;
    const slow = memory.load(
      "a",
      () => new Promise<AuthContext>((resolve) => (release = () => resolve(context("key_a")))),
    );
    await new Promise((resolve) => setImmediate(resolve));
    memory.forget(); // a revocation through this process while the key was being read
    release();
    assert.deepEqual(await slow, context("key_a"), "the read answers its own request");
    let reads = 0;
    assert.equal(await memory.recall("a"), undefined);
    await memory.load("a", async () => (reads++, null));
    assert.equal(reads, 1, "the next request reads the store again");
  });

  test("a null read is not remembered", async () => {
    const memory = createKeyMemory(fakeStore(), () => 0);
    assert.equal(await memory.load("gone", async () => null), null);
    assert.equal(await memory.recall("gone"), undefined);
  });
});
