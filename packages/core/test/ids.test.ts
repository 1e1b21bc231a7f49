/** Resource ids: their shape, and random bytes from the pool never handed out twice. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createId } from "../src/_internal/ids.ts";

test("ids are the prefix and 24 hex digits, and 5,000 in a row (past several refills of the pool) are all different", () => {
  const ids = Array.from({ length: 5_000 }, () => createId("attendee"));
  for (const id of ids) assert.match(id, /^att_[0-9a-f]{24}$/);
  assert.equal(new Set(ids).size, ids.length);
  // Random, not a counter: consecutive ids share no long run of digits.
  const digits = ids.slice(0, 100).map((id) => id.slice(4));
  assert.ok(digits.every((hex, i) => i === 0 || hex.slice(0, 8) !== digits[i - 1]!.slice(0, 8)));
});
