/**
 * End-to-end: the transport rules every route shares: health, unknown routes and methods,
 * request bodies (415, 413, malformed JSON), query parameters, and the one error body.
 */
import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, test } from "node:test";
import { startServer, type TestServer } from "./_setup.ts";
import { attendeeInput, eventInput } from "./fixtures/builders.ts";
import { type Client, clientFor, createEvent, expectError, expectStatus, PREFIXES, register } from "./fixtures/api.ts";
import { exchange } from "./fixtures/raw-http.ts";

const MIB = 1024 * 1024;

/** A request through node:http on `agent` (fetch cannot pin a connection); fails after `timeoutMs`. */
function rawRequest(
  agent: http.Agent,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; chunks?: string[]; timeoutMs?: number } = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${server.url}${path}`, { method, agent, headers: options.headers }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
    });
    request.setTimeout(options.timeoutMs ?? 10_000, () =>
      request.destroy(new Error(`${method} ${path}: no answer in ${options.timeoutMs ?? 10_000} ms`)),
    );
    request.on("error", reject);
    for (const chunk of options.chunks ?? []) request.write(chunk);
    request.end();
  });
}

let server: TestServer;
let key: string;
let v1: Client;
let event: any;
let attendee: any;

before(async () => {
  server = await startServer();
  key = (await server.createKey({ account: "Errors AG" })).key;
  v1 = clientFor(server, key);
  event = await createEvent(v1);
  attendee = await register(v1, event.id);
});

after(async () => {
  const output = server.output();
  assert.equal(await server.stop("SIGTERM"), 0, "the server exits 0 on SIGTERM");
  assert.doesNotMatch(output, /"msg":"unexpected error"/, "no request failed unexpectedly");
});

describe("health", () => {
  test("GET /health: 200 {status: ok} without a key", async () => {
    const response = await server.request("GET", "/health");
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { status: "ok" });
    assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
    assert.equal(response.headers.get("x-content-type-options"), "nosniff");
  });

  test("HEAD is answered as GET without a body: /health, an API route with its headers, an unknown route", async () => {
    const head = async (path: string, withKey = false) => {
      const response = await fetch(`${server.url}${path}`, {
        method: "HEAD",
        headers: withKey ? { authorization: `Bearer ${key}` } : {},
      });
      return { status: response.status, headers: response.headers, body: await response.text() };
    };
    const health = await head("/health");
    assert.deepEqual([health.status, health.body], [200, ""]);
    const list = await head("/v1/events", true);
    assert.deepEqual([list.status, list.body], [200, ""]);
    assert.match(list.headers.get("content-type") ?? "", /^application\/json/);
    assert.match(list.headers.get("x-ratelimit-remaining") ?? "", /^\d+$/);
    const missing = await head("/v1/nope");
    assert.deepEqual([missing.status, missing.body], [404, ""]);
  });

  test("other methods on /health: 404 NOT_FOUND", async () => {
    expectError(await server.request("POST", "/health", { body: {} }), 404, "NOT_FOUND");
    expectError(await server.request("DELETE", "/health"), 404, "NOT_FOUND");
  });
});

describe("unknown routes and methods", () => {
  const unknown = [
    "/v1/nope",
    "/api/nope",
    "/v1",
    "/api",
    "/events",
    "/attendees",
    "/v2/events",
    "/api/v1/events",
    "/v1/event",
    "/v1/events/x/y",
    "/v1/attendees/x/y",
    "/api/events/x/check-in/again",
    "/v1/qr/x",
    "/index.html",
  ];
  for (const path of unknown) {
    test(`GET ${path}: 404 NOT_FOUND in the JSON error body`, async () => {
      const response = await server.request("GET", path, { key });
      const error = expectError(response, 404, "NOT_FOUND", null);
      assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
      assert.equal(typeof error.message, "string");
    });
  }

  const wrongMethods: Array<[string, string]> = [
    ["PATCH", "/events/ID"],
    ["POST", "/events/ID"],
    ["PUT", "/events"],
    ["DELETE", "/events"],
    ["PATCH", "/events"],
    ["GET", "/events/ID/check-in"],
    ["PUT", "/events/ID/check-in"],
    ["PATCH", "/attendees/ATT"],
    ["POST", "/attendees/ATT"],
    ["PUT", "/attendees"],
    ["DELETE", "/attendees"],
  ];
  for (const prefix of PREFIXES) {
    test(`wrong methods under ${prefix}: 404 NOT_FOUND, nothing changes`, async () => {
      for (const [method, template] of wrongMethods) {
        const path = `${prefix}${template.replace("ID", event.id).replace("ATT", attendee.id)}`;
        const body = method === "GET" || method === "DELETE" ? undefined : { name: "Changed", status: "cancelled" };
        const response = await server.request(method, path, { key, body });
        expectError(response, 404, "NOT_FOUND");
      }
      const stored = expectStatus(await v1.get(`/events/${event.id}`), 200);
      assert.equal(stored.name, event.name);
      assert.equal(stored.status, "draft");
      assert.equal(expectStatus(await v1.get(`/attendees/${attendee.id}`), 200).status, "confirmed");
    });
  }

  test("with a key, an unknown route is counted and carries the rate-limit headers; with a bad key it is 401", async () => {
    const first = await server.request("GET", "/v1/events/x/y", { key });
    expectError(first, 404, "NOT_FOUND");
    const remaining = Number(first.headers.get("x-ratelimit-remaining"));
    assert.ok(remaining > 0, "X-RateLimit-Remaining");
    assert.match(first.headers.get("x-ratelimit-reset") ?? "", /^\d{10}$/);
    const second = await server.request("GET", "/v1/nope", { key });
    assert.equal(Number(second.headers.get("x-ratelimit-remaining")), remaining - 1);
    expectError(await server.request("GET", "/v1/nope", { key: "esk_wrong" }), 401, "UNAUTHORIZED");
    const keyless = await server.request("GET", "/v1/nope");
    expectError(keyless, 404, "NOT_FOUND");
    assert.equal(keyless.headers.get("x-ratelimit-limit"), null);
  });

  test("by-id routes with unknown ids: 404 NOT_FOUND under both prefixes", async () => {
    for (const prefix of PREFIXES) {
      const client = clientFor(server, key, prefix);
      expectError(await client.get("/events/evt_unknown"), 404, "NOT_FOUND");
      expectError(await client.put("/events/evt_unknown", { name: "x" }), 404, "NOT_FOUND");
      expectError(await client.delete("/events/evt_unknown"), 404, "NOT_FOUND");
      expectError(
        await client.post("/events/evt_unknown/check-in", { confirmationCode: attendee.confirmationCode }),
        404,
        "NOT_FOUND",
      );
      expectError(await client.get("/attendees/att_unknown"), 404, "NOT_FOUND");
      expectError(await client.put("/attendees/att_unknown", { company: "x" }), 404, "NOT_FOUND");
      expectError(await client.post("/attendees", attendeeInput("evt_unknown")), 404, "NOT_FOUND", "eventId");
    }
  });
});

describe("request bodies", () => {
  /** Every route that reads a body, with a valid body for it. */
  const bodyRoutes = (): Array<[string, string, unknown]> => [
    ["POST", "/v1/events", eventInput()],
    ["PUT", `/api/events/${event.id}`, { description: "Body test" }],
    ["POST", "/api/attendees", attendeeInput(event.id)],
    ["PUT", `/v1/attendees/${attendee.id}`, { company: "Body test" }],
    ["POST", `/v1/events/${event.id}/check-in`, { confirmationCode: "EVT-2222-2222" }],
  ];

  test("a body that is not JSON: 415 UNSUPPORTED_MEDIA_TYPE", async () => {
    for (const [method, path, body] of bodyRoutes()) {
      const text = JSON.stringify(body);
      for (const contentType of [
        "text/plain",
        "application/x-www-form-urlencoded",
        "application/xml",
        "multipart/form-data; boundary=x",
      ]) {
        const response = await server.request(method, path, {
          key,
          raw: text,
          headers: { "content-type": contentType },
        });
        expectError(response, 415, "UNSUPPORTED_MEDIA_TYPE");
      }
      // No Content-Type at all (a byte body gets none from fetch).
      expectError(
        await server.request(method, path, { key, raw: new TextEncoder().encode(text) }),
        415,
        "UNSUPPORTED_MEDIA_TYPE",
      );
    }
    const list = expectStatus(await v1.get(`/attendees?eventId=${event.id}`), 200);
    assert.equal(list.pagination.total, 1, "no registration was made");
  });

  test("application/json with a charset parameter is JSON", async () => {
    const response = await server.request("POST", "/v1/events", {
      key,
      raw: JSON.stringify(eventInput({ name: "Charset Summit" })),
      headers: { "content-type": "application/json; charset=utf-8" },
    });
    assert.equal(expectStatus(response, 201).name, "Charset Summit");
  });

  const badBodies: Array<[string, string | Uint8Array]> = [
    ["malformed JSON", '{"name": "x",'],
    ["a single quote JSON", "{'name': 'x'}"],
    ["an empty body", ""],
    ["whitespace only", "  \n "],
    ["a JSON array", "[]"],
    ["a JSON array of objects", `[${JSON.stringify(eventInput())}]`],
    ["a JSON string", '"hello"'],
    ["a JSON number", "42"],
    ["JSON null", "null"],
    ["JSON true", "true"],
    ["invalid UTF-8", new Uint8Array([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
  ];
  for (const [name, raw] of badBodies) {
    test(`${name}: 400 INVALID_REQUEST on every body route`, async () => {
      for (const [method, path] of bodyRoutes()) {
        expectError(
          await server.request(method, path, { key, raw, headers: { "content-type": "application/json" } }),
          400,
          "INVALID_REQUEST",
        );
      }
    });
  }

  test("no body at all: 400 INVALID_REQUEST", async () => {
    for (const [method, path] of bodyRoutes()) {
      expectError(await server.request(method, path, { key }), 400, "INVALID_REQUEST");
      expectError(
        await server.request(method, path, { key, headers: { "content-type": "application/json" } }),
        400,
        "INVALID_REQUEST",
      );
    }
  });

  test("a body over 1 MiB: 413 PAYLOAD_TOO_LARGE on every body route; the server keeps serving", async () => {
    for (const [method, path] of bodyRoutes()) {
      const oversized = JSON.stringify({ description: "x".repeat(MIB) });
      assert.ok(oversized.length > MIB);
      expectError(
        await server.request(method, path, { key, raw: oversized, headers: { "content-type": "application/json" } }),
        413,
        "PAYLOAD_TOO_LARGE",
      );
    }
    // One byte over.
    const justOver = `{"description":"${"x".repeat(MIB - 17)}"}`;
    assert.equal(justOver.length, MIB + 1);
    expectError(
      await server.request("POST", "/v1/events", {
        key,
        raw: justOver,
        headers: { "content-type": "application/json" },
      }),
      413,
      "PAYLOAD_TOO_LARGE",
    );
    assert.deepEqual(expectStatus(await server.request("GET", "/health"), 200), { status: "ok" });
    assert.equal(expectStatus(await v1.get(`/events/${event.id}`), 200).description, event.description);
  });

  test("a body of exactly 1 MiB is read and validated (400, not 413)", async () => {
    const body = `{"name":"${"x".repeat(MIB - 11)}"}`;
    assert.equal(new TextEncoder().encode(body).byteLength, MIB);
    expectError(
      await server.request("POST", "/v1/events", { key, raw: body, headers: { "content-type": "application/json" } }),
      400,
      "INVALID_REQUEST",
      "name",
    );
  });

  test("a streamed (chunked) body over 1 MiB without Content-Length: 413, and the connection stays usable", async () => {
    // A private keep-alive agent with one socket, so the follow-up request must either reuse
    // the connection of the 413 or find it closed by the server (and open a new one).
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const oversized = await rawRequest(agent, "POST", "/v1/events", {
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        chunks: ['{"description":"', ...Array.from({ length: 32 }, () => "x".repeat(64 * 1024)), '"}'],
      });
      assert.equal(oversized.status, 413);
      assert.equal(JSON.parse(oversized.body).error.code, "PAYLOAD_TOO_LARGE");
      const next = await rawRequest(agent, "GET", "/health", { timeoutMs: 2_000 });
      assert.equal(next.status, 200);
      assert.deepEqual(JSON.parse(next.body), { status: "ok" });
    } finally {
      agent.destroy();
    }
  });

  test("a body over 1 MiB with Content-Length on a keep-alive connection: the next request is served", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const body = JSON.stringify({ description: "x".repeat(2 * MIB) });
      const oversized = await rawRequest(agent, "POST", "/v1/events", {
        headers: {
          authorization: `Bearer ${key}`,
          "content-type": "application/json",
          "content-length": String(Buffer.byteLength(body)),
        },
        chunks: [body],
      });
      assert.equal(oversized.status, 413);
      const next = await rawRequest(agent, "GET", "/health", { timeoutMs: 2_000 });
      assert.equal(next.status, 200);
    } finally {
      agent.destroy();
    }
  });
});

describe("text that is not Unicode", () => {
  test("a lone surrogate escape in a value or a key: 400 naming it, nothing stored", async () => {
    const before = expectStatus(await v1.get("/events?limit=100"), 200).pagination.total;
    for (const [raw, field] of [
      [`{"name": "Broken \\ud800 name"}`, "name"],
      [`{"tags": ["ok", "\\udfff"]}`, "tags.1"],
      [`{"location": {"\\ud83d": 1}}`, "location.\ud83d"],
    ] as const) {
      const response = await server.request("POST", "/v1/events", {
        key,
        raw,
        headers: { "content-type": "application/json" },
      });
      const error = expectError(response, 400, "INVALID_REQUEST", field);
      assert.match(error.message, /lone UTF-16 surrogate/);
      assert.deepEqual(
        error.details.issues.map((issue: { path: string }) => issue.path),
        [field],
      );
    }
    // A well-formed pair (an emoji) is text like any other.
    const body = { ...eventInput(), name: "Green \ud83c\udf31 Summit" };
    assert.equal(expectStatus(await v1.post("/events", body), 201).name, "Green 🌱 Summit");
    assert.equal(expectStatus(await v1.get("/events?limit=100"), 200).pagination.total, before + 1);
  });
});

describe("query parameters", () => {
  const byIdRoutes = (): Array<[string, string, unknown]> => [
    ["GET", `/events/${event.id}`, undefined],
    ["PUT", `/events/${event.id}`, { name: "Query change" }],
    ["DELETE", `/events/${event.id}`, undefined],
    ["POST", "/events", eventInput({ name: "Query create" })],
    ["POST", `/events/${event.id}/check-in`, { confirmationCode: attendee.confirmationCode }],
    ["POST", "/attendees", attendeeInput(event.id)],
    ["GET", `/attendees/${attendee.id}`, undefined],
    ["PUT", `/attendees/${attendee.id}`, { status: "cancelled" }],
  ];

  for (const prefix of PREFIXES) {
    test(`routes other than the two lists reject any query parameter under ${prefix}: 400, nothing happens`, async () => {
      for (const [method, path, body] of byIdRoutes()) {
        for (const query of ["force=true", "dryRun=1", "page=1"]) {
          const response = await server.request(method, `${prefix}${path}?${query}`, { key, body });
          expectError(response, 400, "INVALID_REQUEST", query.split("=")[0]);
        }
      }
      const stored = expectStatus(await v1.get(`/events/${event.id}`), 200);
      assert.equal(stored.name, event.name);
      assert.equal(stored.attendeeCount, 1);
      assert.equal(expectStatus(await v1.get(`/attendees/${attendee.id}`), 200).status, "confirmed");
      const list = expectStatus(await v1.get("/events?search=Query"), 200);
      assert.equal(list.pagination.total, 0);
    });
  }

  for (const prefix of PREFIXES) {
    test(`bad list parameters under ${prefix}: 400 INVALID_REQUEST naming the parameter`, async () => {
      const client = clientFor(server, key, prefix);
      for (const list of ["/events", "/attendees"]) {
        for (const [query, field] of [
          ["status=foo", "status"],
          ["limit=500", "limit"],
          ["limit=-1", "limit"],
          ["sortBy=x", "sortBy"],
          ["order=sideways", "order"],
          ["page=0", "page"],
          ["limit=10&perPage=20", "perPage"],
          ["unknown=1", "unknown"],
          ["status=draft&status=draft", "status"],
        ]) {
          const error = expectError(await client.get(`${list}?${query}`), 400, "INVALID_REQUEST", field);
          assert.ok(error.message.includes(field!), error.message);
        }
      }
    });
  }

  test("empty and valueless parameters are still parameters", async () => {
    expectError(await v1.get("/events?limit="), 400, "INVALID_REQUEST", "limit");
    expectError(await v1.get("/events?status"), 400, "INVALID_REQUEST", "status");
    expectError(await v1.get(`/events/${event.id}?`.concat("x")), 400, "INVALID_REQUEST", "x");
  });
});

describe("the error body", () => {
  test("a validation error: code, message, field, details.issues, documentation, nothing else", async () => {
    const response = await v1.post("/events", eventInput({ capacity: 0 }));
    const error = expectError(response, 400, "INVALID_REQUEST", "capacity");
    assert.deepEqual(Object.keys(response.body).sort(), ["error"]);
    assert.deepEqual(Object.keys(error).sort(), ["code", "details", "documentation", "field", "message"]);
    assert.ok(error.message.includes("capacity"), error.message);
    assert.deepEqual(Object.keys(error.details).sort(), ["issues"]);
    assert.deepEqual(Object.keys(error.details.issues[0]).sort(), ["message", "path"]);
    assert.equal(error.details.issues[0].path, "capacity");
    assert.match(error.documentation!, /^https?:\/\/\S+#INVALID_REQUEST$/);
  });

  test("a validation message says how to fix the input: required with its form, the date-time's form, minor units", async () => {
    const missing = expectError(
      await v1.post("/events", eventInput({ endDate: undefined })),
      400,
      "INVALID_REQUEST",
      "endDate",
    );
    assert.equal(
      missing.message,
      "endDate: required: a date-time with Z or an offset, such as 2027-05-01T09:00:00+02:00",
    );
    const local = expectError(
      await v1.post("/events", eventInput({ startDate: "2038-05-01T09:00:00" })),
      400,
      "INVALID_REQUEST",
      "startDate",
    );
    assert.deepEqual(local.details.issues, [
      { path: "startDate", message: "expected a date-time with Z or an offset, such as 2027-05-01T09:00:00+02:00" },
    ]);
    const price = expectError(
      await v1.post(
        "/events",
        eventInput({ ticketTypes: [{ name: "Standard", price: { amount: 45.5, currency: "EUR" } }] }),
      ),
      400,
      "INVALID_REQUEST",
      "ticketTypes.0.price.amount",
    );
    assert.equal(
      price.message,
      "ticketTypes.0.price.amount: expected a whole number in the currency's minor units (4500 is 45.00 EUR)",
    );
  });

  test("a 404: code, message, documentation; no stack or SQL anywhere", async () => {
    const response = await v1.get("/events/evt_unknown");
    const error = expectError(response, 404, "NOT_FOUND", null);
    assert.deepEqual(Object.keys(error).sort(), ["code", "documentation", "message"]);
    for (const text of [
      JSON.stringify(response.body),
      JSON.stringify((await v1.post("/events", { capacity: "'; drop table events; --" })).body),
    ]) {
      assert.doesNotMatch(text, /\bat .+:\d+:\d+|select |insert |sqlite|zod/i);
    }
  });

  test("success responses carry nosniff too", async () => {
    for (const response of [
      await v1.get("/events"),
      await v1.get(`/attendees/${attendee.id}`),
      await server.request("GET", "/health"),
    ]) {
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("x-content-type-options"), "nosniff");
    }
  });
});

describe("what the HTTP parser refuses gets the error body too, with Connection: close", () => {
  /** Sends `text` on a connection of its own and expects one JSON error answer, then the connection's orderly close. */
  async function refused(text: string, status: number, code: string) {
    const { responses, raw, error } = await exchange(server.url, text);
    assert.equal(error, undefined, `closed without a reset: ${raw}`);
    assert.equal(responses.length, 1, raw);
    const [answer] = responses;
    assert.equal(answer!.status, status, raw);
    assert.equal(answer!.headers.connection, "close");
    assert.match(answer!.headers["content-type"]!, /^application\/json/);
    assert.equal(answer!.headers["x-content-type-options"], "nosniff");
    assert.equal(answer!.body.error.code, code);
    assert.equal(answer!.body.error.documentation, `${server.url.replace(/\/$/, "")}/docs#${code}`);
    return answer!.body.error.message as string;
  }

  test("a header block over Node's 16 KiB: 431 REQUEST_HEADERS_TOO_LARGE", async () => {
    await refused(
      `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
      431,
      "REQUEST_HEADERS_TOO_LARGE",
    );
    // The request line counts toward the same limit.
    await refused(
      `GET /v1/events?q=${"a".repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      431,
      "REQUEST_HEADERS_TOO_LARGE",
    );
  });

  test("Content-Length with Transfer-Encoding, or a malformed request line: 400 INVALID_REQUEST naming the fault", async () => {
    const both = await refused(
      "POST /v1/events HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
      400,
      "INVALID_REQUEST",
    );
    assert.match(both, /^Malformed HTTP request: /);
    assert.match(both, /Content-Length/);
    assert.match(both, /Transfer-Encoding/);
    await refused("NOT AN HTTP REQUEST\r\n\r\n", 400, "INVALID_REQUEST");
  });

  test("the server keeps serving afterwards", async () => {
    expectStatus(await server.request("GET", "/health"), 200);
  });
});
