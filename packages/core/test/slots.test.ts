/** Slots in flight under a bound, refilled in batches of a quarter. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Slots } from "../src/webhooks/slots.ts";

test("a key at its bound stays full until a quarter of its slots are free; a full key counts at its bound", () => {
  const slots = new Slots(8);
  for (let i = 0; i < 7; i++) slots.take("w");
  assert.equal(slots.isFull("w"), false);
  assert.equal(slots.room("w"), 1);
  slots.take("w");
  assert.equal(slots.isFull("w"), true);
  assert.equal(slots.anyFull, true);
  slots.give("w");
  // 7 held, 1 free: still full, no room, and a claim is told it holds its bound.
  assert.equal(slots.isFull("w"), true);
  assert.equal(slots.room("w"), 0);
  assert.deepEqual(slots.counts(), { w: 8 });
  slots.give("w");
  // 6 held, 2 free (a quarter of 8): refilled.
  assert.equal(slots.isFull("w"), false);
  assert.equal(slots.room("w"), 2);
  assert.deepEqual(slots.counts(), { w: 6 });
  for (let i = 0; i < 6; i++) slots.give("w");
  assert.equal(slots.anyFull, false);
  assert.deepEqual(slots.counts(), {});
});

test("keys are apart, and a bound of 1 or 2 refills at one free slot", () => {
  const slots = new Slots(2);
  slots.take("a");
  slots.take("a");
  slots.take("b");
  assert.equal(slots.isFull("a"), true);
  assert.equal(slots.isFull("b"), false);
  assert.deepEqual(slots.counts(), { a: 2, b: 1 });
  slots.give("a");
  assert.equal(slots.isFull("a"), false);
  const one = new Slots(1);
  one.take("x");
  assert.equal(one.room("x"), 0);
  one.give("x");
  assert.equal(one.room("x"), 1);
});
