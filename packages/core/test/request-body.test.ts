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

describe("a body the host reads without a web stream (requestBody)", () => {
  let service: EventService;
  let key: string;
  const errors: unknown[] = [];
  /** The host's chunks of the body; the request's own body is left unread. */
  let chunks: Uint8Array[] = [];
  async function* fromHost() {
    for (const chunk of chunks) yield chunk;
  }
  let handler: FetchHandler;
  before(async () => {
    service = createEventService({ storage: await sqliteStorage() });
    handler = createHandler(service, { onError: (error) => errors.push(error), requestBody: () => fromHost() });
    key = (await service.keys.create({ account: "Host body" })).key;
  });
  after(() => service.storage.close());
  const post = (path: string, headers: Record<string, string> = {}) =>
    handler(
      new Request(`http://service.test${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
        body: "{}",
      }),
    );

  test("the host's chunks are the body, joined in order", async () => {
    const event = JSON.stringify({
      name: "Read by the host",
      startDate: "2038-05-01T09:00:00Z",
      endDate: "2038-05-01T17:00:00Z",
      location: { address: "Main St 1", city: "Berlin", country: "DE" },
      capacity: 10,
      category: "meetup",
    });
    chunks = [bytes(event.slice(0, 7)), bytes(event.slice(7, 30)), bytes(event.slice(30))];
    const response = await post("/v1/events");
    assert.equal(response.status, 201);
    const created = (await response.json()) as { name: string; capacity: number };
    assert.deepEqual([created.name, created.capacity], ["Read by the host", 10]);
  });

  test("past 1 MiB without a Content-Length, 413 PAYLOAD_TOO_LARGE with Connection: close", async () => {
    chunks = [new Uint8Array(600 * 1024).fill(0x20), new Uint8Array(600 * 1024).fill(0x20)];
    const response = await post("/v1/events");
    assert.equal(response.status, 413);
    assert.equal(response.headers.get("connection"), "close");
    assert.equal(((await response.json()) as { error: { code: string } }).error.code, "PAYLOAD_TOO_LARGE");
  });

  test("a GET's body is never asked of the host", async () => {
    chunks = [bytes("not a body")];
    let asked = 0;
    const counting = createHandler(service, {
      requestBody: () => {
        asked += 1;
        return fromHost();
      },
    });
    const response = await counting(
      new Request("http://service.test/v1/events", { headers: { authorization: `Bearer ${key}` } }),
    );
    assert.equal(response.status, 200);
    assert.equal(asked, 0);
    assert.deepEqual(errors, []);
  });
});
