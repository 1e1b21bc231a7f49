/** Slots in flight under a bound: closed on reaching it, reopened once a quarter of them are free. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { DeliverySlots, KeyedSlots, Slots } from "../src/webhooks/slots.ts";

test("a bound closes when reached and reopens once a quarter of its slots are free; closed, it has no room though slots are free", () => {
  const slots = new Slots(8);
  for (let i = 0; i < 7; i++) slots.take();
  assert.deepEqual([slots.held, slots.closed, slots.room], [7, false, 1]);
  slots.take();
  assert.deepEqual([slots.held, slots.closed, slots.room], [8, true, 0]);
  slots.give();
  // 7 held, 1 free: still closed, so no room.
  assert.deepEqual([slots.held, slots.closed, slots.room], [7, true, 0]);
  slots.give();
  // 6 held, 2 free (a quarter of 8): reopened.
  assert.deepEqual([slots.held, slots.closed, slots.room], [6, false, 2]);
});

test("a bound of 1 or 2 reopens at one free slot", () => {
  const one = new Slots(1);
  one.take();
  assert.deepEqual([one.closed, one.room], [true, 0]);
  one.give();
  assert.deepEqual([one.closed, one.room], [false, 1]);
  const two = new Slots(2);
  two.take();
  two.take();
  two.give();
  assert.deepEqual([two.closed, two.room], [false, 1]);
});

test("keyed slots: keys are apart; the room of each key that holds slots, the whole bound for any other", () => {
  const slots = new KeyedSlots(2);
  slots.take("a");
  slots.take("a");
  slots.take("b");
  assert.deepEqual([slots.isClosed("a"), slots.isClosed("b"), slots.anyClosed], [true, false, true]);
  assert.deepEqual(slots.room(), { each: 2, left: { a: 0, b: 1 } });
  slots.give("a");
  assert.deepEqual([slots.isClosed("a"), slots.anyClosed], [false, false]);
  slots.give("a");
  slots.give("b");
  assert.deepEqual(slots.room(), { each: 2, left: {} });
});

test("a worker's slots: one claim's room under the three bounds; a freed slot asks for a claim only when none of its bounds is closed", () => {
  const slots = new DeliverySlots({ total: 4, perWebhook: 2, perAccount: 3 });
  const a1 = { webhookId: "w1", accountId: "a" };
  const a2 = { webhookId: "w2", accountId: "a" };
  const b3 = { webhookId: "w3", accountId: "b" };
  slots.take(a1);
  slots.take(a1);
  slots.take(a2);
  assert.deepEqual(slots.claimRoom(), {
    limit: 1,
    webhookRoom: { each: 2, left: { w1: 0, w2: 1 } },
    accountRoom: { each: 3, left: { a: 0 } },
  });
  assert.equal(slots.anyKeyClosed, true);
  slots.take(b3);
  assert.equal(slots.claimRoom().limit, 0, "the worker's own bound is reached");
  // w1 reopens at one free slot (a quarter of 2), and so do account a (one of 3) and the worker (one of 4).
  assert.equal(slots.give(a1), true);
  assert.deepEqual(slots.claimRoom(), {
    limit: 1,
    webhookRoom: { each: 2, left: { w1: 1, w2: 1, w3: 1 } },
    accountRoom: { each: 3, left: { a: 1, b: 2 } },
  });
  assert.equal(slots.anyKeyClosed, false);
});
