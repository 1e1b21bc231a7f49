import assert from "node:assert/strict";
import { test } from "node:test";
import { pino } from "pino";
import { logRepeated } from "../src/log.ts";
import { replacementDelay } from "../src/cluster.ts";

/** A pino logger writing its lines into an array. */
function capture() {
  const lines: Array<Record<string, any>> = [];
  const logger = pino({ base: undefined }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}

test("logRepeated: an error logged at once, its repeats counted and logged once per interval, another kind at once", async () => {
  const { logger, lines } = capture();
  const onError = logRepeated(logger, "error", "worker error", 200);
  const refused = () => Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5433"), { code: "ECONNREFUSED" });
  // Twice a second for a minute, compressed: 40 failures within the interval.
  for (let i = 0; i < 40; i++) onError(refused());
  onError(new Error("something else"));
  assert.deepEqual(
    lines.map((line) => [line.msg, line.err?.message]),
    [
      ["worker error", "connect ECONNREFUSED 127.0.0.1:5433"],
      ["worker error", "something else"],
    ],
  );
  assert.ok(lines[0]!.err.stack, "the first line carries the stack");
  await new Promise((resolve) => setTimeout(resolve, 260));
  assert.equal(lines.length, 3);
  assert.deepEqual(lines[2], {
    level: 50,
    time: lines[2]!.time,
    error: { type: "Error", message: "connect ECONNREFUSED 127.0.0.1:5433", code: "ECONNREFUSED" },
    repeated: 39,
    intervalMs: 200,
    msg: "worker error (repeated)",
  });
  // A quiet interval: the kind is forgotten, and its next occurrence is logged at once with its stack.
  await new Promise((resolve) => setTimeout(resolve, 220));
  assert.equal(lines.length, 3);
  onError(refused());
  assert.equal(lines.length, 4);
  assert.equal(lines[3]!.err.code, "ECONNREFUSED");
});

test("replacementDelay: the first death replaced at once, then 1 s doubling up to 30 s", () => {
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 7, 20].map(replacementDelay),
    [0, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000],
  );
});
