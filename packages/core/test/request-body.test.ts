import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createHandler, type FetchHandler } from "../src/http/handler.ts";
import { jsonDepthExceeds, MAX_JSON_DEPTH, parseJsonBody } from "../src/http/request.ts";
import { createEventService, type EventService } from "../src/service.ts";
import { sqliteStorage } from "./_sqlite.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const nested = (depth: number, inner = "1") => "[".repeat(depth) + inner + "]".repeat(depth);

describe("JSON nesting depth, checked without recursion", () => {
  test("64 levels pass, 65 are refused; brackets inside strings do not count", () => {
    assert.equal(jsonDepthExceeds(nested(MAX_JSON_DEPTH), MAX_JSON_DEPTH), false);
    assert.equal(jsonDepthExceeds(nested(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH), true);
    assert.equal(jsonDepthExceeds(`{"a":${nested(63)}}`, MAX_JSON_DEPTH), false);
    assert.equal(jsonDepthExceeds(`{"a":${nested(64)}}`, MAX_JSON_DEPTH), true);
    assert.equal(jsonDepthExceeds(`{"a":"${"[".repeat(500)}\\"{{{"}`, MAX_JSON_DEPTH), false);
    assert.equal(
      jsonDepthExceeds(`["\\\\", ${nested(64)}]`, MAX_JSON_DEPTH),
      true,
      "an escaped backslash ends before the quote",
    );
    assert.deepEqual(parseJsonBody(bytes(nested(64)), "application/json"), JSON.parse(nested(64)));
    assert.throws(() => parseJsonBody(bytes(nested(65)), "application/json"), {
      code: "INVALID_REQUEST",
      message: "body: nested deeper than 64 levels of arrays and objects",
    });
  });

  test("a lone surrogate escape is found at any depth the limit allows, in values and keys", () => {
    assert.throws(
      () => parseJsonBody(bytes(nested(63, '"\\ud800"')), "application/json"),
      (error: { field?: string }) => error.field === "0".repeat(63).split("").join("."),
    );
    assert.throws(() => parseJsonBody(bytes('{"ok":"\\ud83d\\ude00","a\\udc00":1}'), "application/json"), {
      field: "a\udc00",
    });
    assert.deepEqual(parseJsonBody(bytes('{"ok":"\\ud83d\\ude00"}'), "application/json"), { ok: "😀" });
  });
});

describe("deep bodies over HTTP", () => {
  let service: EventService;
  let handler: FetchHandler;
  let key: string;
  const errors: unknown[] = [];
  before(async () => {
    service = createEventService({ storage: await sqliteStorage() });
    handler = createHandler(service, { onError: (error) => errors.push(error) });
    key = (await service.keys.create({ account: "Deep" })).key;
  });
  after(() => service.storage.close());

  test("a very deep array with a lone surrogate escape is 400 INVALID_REQUEST, not 500", async () => {
    for (const body of [nested(200_000, '"\\ud800"'), nested(65), `{"name":${nested(100_000)}}`]) {
      const response = await handler(
        new Request("http://service.test/v1/events", {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body,
        }),
      );
      assert.equal(response.status, 400);
      const answer = (await response.json()) as { error: { code: string; message: string } };
      assert.equal(answer.error.code, "INVALID_REQUEST");
      assert.match(answer.error.message, /nested deeper than 64 levels/);
    }
    assert.deepEqual(errors, []);
  });
});
