import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseInput } from "../src/_internal/parse-input.ts";
import { ServiceError } from "../src/errors.ts";
import { ThresholdCreateInput, ThresholdUpdateInput } from "../src/resources/threshold.ts";
import { capacityUtilizationOf } from "../src/rules/goals.ts";
import {
  isThresholdReached,
  judgeThreshold,
  keepsBuiltInCapacityRule,
  movedMetrics,
} from "../src/rules/threshold-crossing.ts";

describe("the crossing rule", () => {
  const above = { comparison: "above", value: 50 } as const;
  const below = { comparison: "below", value: 20 } as const;
  // [threshold, reached before, new value, reached now, notify]
  const cases = [
    [above, false, 49.999, false, false],
    [above, false, 50, true, true],
    [above, false, 80, true, true],
    [above, true, 80, true, false],
    [above, true, 50, true, false],
    [above, true, 49, false, false],
    [above, false, null, false, false],
    [above, true, null, false, false],
    [below, false, 20.001, false, false],
    [below, false, 20, true, true],
    [below, false, 0, true, true],
    [below, true, 5, true, false],
    [below, true, 21, false, false],
    [below, false, null, false, false],
    [{ comparison: "above", value: 0 }, false, 0, true, true],
    [{ comparison: "below", value: 0 }, false, 0, true, true],
  ] as const;
  for (const [threshold, before, value, reached, notify] of cases) {
    test(`${threshold.comparison} ${threshold.value}, ${before ? "reached" : "not reached"} before, value ${value}: reached ${reached}, notify ${notify}`, () => {
      assert.deepEqual(judgeThreshold(threshold, before, value), { reached, notify });
      assert.equal(isThresholdReached(threshold, value), reached);
    });
  }

  test("a sequence notifies once per crossing and again after going back", () => {
    let reached = false;
    const notified: number[] = [];
    for (const value of [10, 49, 50, 60, 55, 40, 50, 70, null, 90]) {
      const judgement = judgeThreshold(above, reached, value);
      reached = judgement.reached;
      if (judgement.notify) notified.push(value!);
    }
    assert.deepEqual(notified, [50, 50, 90]);
  });

  test("the metrics a change moved are those given with a value, null included", () => {
    assert.deepEqual(movedMetrics({}), []);
    assert.deepEqual(movedMetrics({ capacity_utilization: undefined, total_emissions_kg: null }), [
      "total_emissions_kg",
    ]);
    assert.deepEqual(movedMetrics({ capacity_utilization: 10, offset_coverage_percent: 0 }), [
      "capacity_utilization",
      "offset_coverage_percent",
    ]);
  });

  test("capacity utilisation is exact for whole percentages, and null without capacity", () => {
    assert.equal(capacityUtilizationOf(29, 100), 29);
    assert.equal(capacityUtilizationOf(5, 10), 50);
    assert.equal(capacityUtilizationOf(1, 3), 100 / 3);
    assert.equal(capacityUtilizationOf(0, 0), null);
  });

  test("the built-in 90% rule stays until the account has a capacity threshold of its own", () => {
    assert.equal(keepsBuiltInCapacityRule(false), true);
    assert.equal(keepsBuiltInCapacityRule(true), false);
  });
});

describe("threshold input", () => {
  const fieldOf = (schema: Parameters<typeof parseInput>[0], value: unknown) => {
    try {
      parseInput(schema, value);
    } catch (error) {
      assert.ok(ServiceError.is(error));
      assert.equal(error.code, "INVALID_REQUEST");
      return error.field;
    }
    return "accepted";
  };
  const valid = { metric: "capacity_utilization", comparison: "above", value: 90 };
  const cases: Array<[string, unknown, string]> = [
    ["a valid account-wide threshold", valid, "accepted"],
    ["a valid event threshold", { ...valid, eventId: "evt_1" }, "accepted"],
    ["eventId null", { ...valid, eventId: null }, "accepted"],
    ["kg above 100", { metric: "total_emissions_kg", comparison: "below", value: 5000.5 }, "accepted"],
    ["an unknown metric", { ...valid, metric: "attendance" }, "metric"],
    ["an unknown comparison", { ...valid, comparison: "equals" }, "comparison"],
    ["a percentage above 100", { ...valid, value: 100.5 }, "value"],
    ["a negative value", { ...valid, metric: "total_emissions_kg", value: -1 }, "value"],
    ["a value as text", { ...valid, value: "90" }, "value"],
    ["no value", { metric: "capacity_utilization", comparison: "above" }, "value"],
    ["an empty eventId", { ...valid, eventId: "" }, "eventId"],
    ["an unknown field", { ...valid, colour: "red" }, "colour"],
  ];
  for (const [what, body, field] of cases) {
    test(`${what}: ${field}`, () => assert.equal(fieldOf(ThresholdCreateInput, body), field));
  }
  test("an update is partial, and refuses what a create refuses", () => {
    assert.equal(fieldOf(ThresholdUpdateInput, {}), "accepted");
    assert.equal(
      fieldOf(ThresholdUpdateInput, { value: 150 }),
      "accepted",
      "the range is checked against the metric after it",
    );
    assert.equal(fieldOf(ThresholdUpdateInput, { comparison: "sideways" }), "comparison");
    assert.equal(fieldOf(ThresholdUpdateInput, { value: -0.5 }), "value");
  });
});
