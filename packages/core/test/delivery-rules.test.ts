/** The delivery side's rules: the status table, the status an attempt or a redelivery leads to, and the failure count that disables a webhook. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { DELIVERY_STATUSES } from "../src/resources/webhook-delivery.ts";
import { countAttempts, DISABLE_AFTER_FAILURES } from "../src/rules/delivery-failures.ts";
import {
  DELIVERY_TRANSITIONS,
  isDeliveryTransitionAllowed,
  redelivery,
  statusAfterAttempt,
} from "../src/rules/delivery-status.ts";

// Written out from docs/api.md (Webhook delivery) rather than derived from the table.
const DELIVERY_ALLOWED = new Set([
  "pending>pending",
  "pending>succeeded",
  "pending>failed",
  "succeeded>succeeded",
  "succeeded>pending",
  "failed>failed",
  "failed>pending",
]);

describe("delivery status transitions", () => {
  for (const from of DELIVERY_STATUSES) {
    for (const to of DELIVERY_STATUSES) {
      const allowed = DELIVERY_ALLOWED.has(`${from}>${to}`);
      test(`${from} -> ${to} is ${allowed ? "allowed" : "refused"}`, () => {
        assert.equal(isDeliveryTransitionAllowed(from, to), allowed);
      });
    }
  }

  test("an attempt ends a pending delivery as succeeded, failed (no attempt left) or pending (a retry), each allowed by the table", () => {
    const outcomes = [
      statusAfterAttempt(true, null),
      statusAfterAttempt(true, "2041-01-01T00:00:00.000Z"),
      statusAfterAttempt(false, null),
      statusAfterAttempt(false, "2041-01-01T00:00:00.000Z"),
    ];
    assert.deepEqual(outcomes, ["succeeded", "succeeded", "failed", "pending"]);
    for (const to of outcomes) assert.ok(isDeliveryTransitionAllowed("pending", to));
  });

  test("a redelivery: a final delivery gets exactly one more attempt; a pending one keeps its final attempt", () => {
    assert.deepEqual(redelivery({ status: "failed", attemptCount: 4, finalAttempt: null }), {
      status: "pending",
      finalAttempt: 5,
    });
    assert.deepEqual(redelivery({ status: "succeeded", attemptCount: 1, finalAttempt: null }), {
      status: "pending",
      finalAttempt: 2,
    });
    assert.deepEqual(redelivery({ status: "pending", attemptCount: 2, finalAttempt: null }), {
      status: "pending",
      finalAttempt: null,
    });
    assert.deepEqual(redelivery({ status: "pending", attemptCount: 2, finalAttempt: 3 }), {
      status: "pending",
      finalAttempt: 3,
    });
    for (const from of DELIVERY_STATUSES)
      assert.ok(DELIVERY_TRANSITIONS[from].includes("pending") || from === "pending");
  });
});

describe("the failure count", () => {
  const t = (second: number) => new Date(Date.UTC(2041, 0, 1) + second * 1000).toISOString();
  const fail = (second: number, gone = false) => ({ startedAt: t(second), succeeded: false, gone });
  const ok = (second: number) => ({ startedAt: t(second), succeeded: true, gone: false });
  const fresh = { consecutiveFailures: 0, lastSuccessStartedAt: null, active: true };

  test("failures count in the order they began: one before the latest success does not count, whatever the order given", () => {
    assert.deepEqual(countAttempts(fresh, [fail(13), fail(10), ok(12), fail(14), fail(11)], 3), {
      count: { consecutiveFailures: 2, lastSuccessStartedAt: t(12) },
      disabledBy: null,
    });
    // An older success changes nothing; a straggler does not count.
    const after = { consecutiveFailures: 2, lastSuccessStartedAt: t(12), active: true };
    assert.deepEqual(countAttempts(after, [ok(5), fail(11)], 3), {
      count: { consecutiveFailures: 2, lastSuccessStartedAt: t(12) },
      disabledBy: null,
    });
  });

  test("the bound reached by a failure just counted disables, reported on the latest failure; the default bound is 10", () => {
    assert.deepEqual(countAttempts({ ...fresh, consecutiveFailures: 1 }, [fail(2), fail(1)], 3), {
      count: { consecutiveFailures: 3, lastSuccessStartedAt: null },
      disabledBy: 0,
    });
    assert.equal(countAttempts({ ...fresh, consecutiveFailures: 8 }, [fail(1)]).disabledBy, null);
    assert.equal(countAttempts({ ...fresh, consecutiveFailures: DISABLE_AFTER_FAILURES - 1 }, [fail(1)]).disabledBy, 0);
    // At the bound already (a webhook enabled again keeps no count, but a straggler must not disable it).
    assert.equal(
      countAttempts({ consecutiveFailures: 5, lastSuccessStartedAt: t(10), active: true }, [fail(9)], 3).disabledBy,
      null,
    );
  });

  test("a 410 disables at once, even one that began before the latest success; an inactive webhook is not disabled again", () => {
    assert.deepEqual(countAttempts({ ...fresh, lastSuccessStartedAt: t(40) }, [fail(30, true)], 3), {
      count: { consecutiveFailures: 0, lastSuccessStartedAt: t(40) },
      disabledBy: 0,
    });
    assert.equal(countAttempts({ ...fresh, active: false }, [fail(1, true), fail(2)], 1).disabledBy, null);
    assert.equal(countAttempts(fresh, [fail(1), fail(2, true), fail(3)], 10).disabledBy, 1, "reported on the 410");
  });
});
