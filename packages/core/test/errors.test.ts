import assert from "node:assert/strict";
import { test } from "node:test";
import { ERROR_CODES, ServiceError } from "../src/errors.ts";

test("every code maps to a 4xx or 5xx status and a message", () => {
  for (const [code, entry] of Object.entries(ERROR_CODES)) {
    assert.match(code, /^[A-Z_]+$/);
    assert.ok(entry.status >= 400 && entry.status < 600, code);
    assert.ok(entry.message.length > 0, code);
  }
  assert.equal(ERROR_CODES.EVENT_FULL.status, 400);
  assert.equal(ERROR_CODES.INVALID_STATE_TRANSITION.status, 422);
  assert.equal(ERROR_CODES.IDEMPOTENCY_KEY_IN_USE.status, 409);
});

test("toJSON gives the one error body, with documentation link and optional parts", () => {
  const error = new ServiceError("INVALID_REQUEST", { message: "email: bad", field: "email", details: { issues: [] } });
  assert.deepEqual(error.toJSON("https://x.test/docs"), {
    error: {
      code: "INVALID_REQUEST",
      message: "email: bad",
      field: "email",
      details: { issues: [] },
      documentation: "https://x.test/docs#INVALID_REQUEST",
    },
  });
  assert.deepEqual(new ServiceError("NOT_FOUND").toJSON(), {
    error: { code: "NOT_FOUND", message: "Resource not found." },
  });
});

test("is() recognises service errors by name, from() hides unexpected ones", () => {
  const copy = Object.assign(new Error("x"), { name: "ServiceError", code: "NOT_FOUND", status: 404 });
  assert.equal(ServiceError.is(copy), true);
  assert.equal(ServiceError.is(new Error("x")), false);
  const wrapped = ServiceError.from(new Error("SQLITE_ERROR: no such table: secret_things"));
  assert.equal(wrapped.code, "INTERNAL_ERROR");
  assert.equal(wrapped.status, 500);
  assert.doesNotMatch(JSON.stringify(wrapped.toJSON()), /SQLITE|secret_things/);
});
