import assert from "node:assert/strict";
import { test } from "node:test";
import { onFirstUse } from "../src/_internal/on-first-use.ts";

test("onFirstUse: callers at once share one load; later callers get the loaded value without loading again", async () => {
  let loads = 0;
  let finish!: (value: string) => void;
  const load = onFirstUse(() => {
    loads++;
    return new Promise<string>((resolve) => (finish = resolve));
  });
  assert.equal(loads, 0, "nothing loads before the first use");
  const first = load();
  const second = load();
  assert.equal(loads, 1);
  finish("page");
  assert.deepEqual(await Promise.all([first, second]), ["page", "page"]);
  assert.equal(await load(), "page");
  assert.equal(loads, 1);
});

test("onFirstUse: a load that fails fails its callers and is tried again by the next caller", async () => {
  let loads = 0;
  const load = onFirstUse(async () => {
    loads++;
    if (loads === 1) throw new Error("chunk missing");
    return loads;
  });
  const [first, second] = await Promise.allSettled([load(), load()]);
  assert.equal(first.status, "rejected");
  assert.equal((first as PromiseRejectedResult).reason.message, "chunk missing");
  assert.equal(second.status, "rejected");
  assert.equal(loads, 1);
  assert.equal(await load(), 2);
  assert.equal(await load(), 2);
  assert.equal(loads, 2);
});
