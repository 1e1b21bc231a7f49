/** CORS through the real server (`CORS_ORIGINS`): preflights and headers as a browser sees them over HTTP. */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { eventInput } from "./fixtures/builders.ts";
import { runCli, SQLITE_PASS_ONLY, startServer, type TestServer } from "./_setup.ts";

const APP = "http://app.example.test:5173";

describe("CORS_ORIGINS on the server", () => {
  let server: TestServer;
  let key: string;

  before(async () => {
    server = await startServer({ env: { CORS_ORIGINS: `https://admin.example.test, ${APP}/` } });
    key = (await server.createKey()).key;
  });
  after(async () => assert.equal(await server.stop(), 0));

  test("a preflight for a keyed, idempotent POST is answered 204 with what the browser asked for", async () => {
    const response = await fetch(`${server.url}/v1/events`, {
      method: "OPTIONS",
      headers: {
        origin: APP,
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization,content-type,idempotency-key",
      },
    });
    assert.equal(response.status, 204);
    assert.equal(response.headers.get("access-control-allow-origin"), APP);
    assert.equal(response.headers.get("access-control-allow-methods"), "GET, HEAD, POST, PUT, DELETE");
    const allowed = response.headers.get("access-control-allow-headers")!.toLowerCase().split(", ");
    for (const header of ["authorization", "content-type", "idempotency-key", "x-request-id"])
      assert.ok(allowed.includes(header), header);
    assert.equal(response.headers.get("vary"), "Origin");
  });

  test("the created event, its replay and a 401 all carry the CORS headers; another origin gets none", async () => {
    const headers = { origin: APP, "idempotency-key": "browser-create-1" };
    const input = eventInput();
    const created = await server.request("POST", "/v1/events", { key, body: input, headers });
    assert.equal(created.status, 201);
    assert.equal(created.headers.get("access-control-allow-origin"), APP);
    const exposed = created.headers.get("access-control-expose-headers")!.split(", ");
    for (const header of [
      "X-RateLimit-Limit",
      "X-RateLimit-Remaining",
      "X-RateLimit-Reset",
      "Retry-After",
      "Idempotent-Replayed",
      "X-Request-Id",
    ]) {
      assert.ok(exposed.includes(header), header);
    }
    const replay = await server.request("POST", "/v1/events", { key, body: input, headers });
    assert.equal(replay.headers.get("idempotent-replayed"), "true");
    assert.equal(replay.headers.get("access-control-allow-origin"), APP);
    const unauthorized = await server.request("GET", "/v1/events", { headers: { origin: APP } });
    assert.equal(unauthorized.status, 401);
    assert.equal(unauthorized.headers.get("access-control-allow-origin"), APP);
    const other = await server.request("GET", "/v1/events", {
      key,
      headers: { origin: "https://elsewhere.example.test" },
    });
    assert.equal(other.status, 200);
    assert.equal(other.headers.get("access-control-allow-origin"), null);
    assert.equal(other.headers.get("access-control-expose-headers"), null);
  });

  test("a malformed origin stops the server at start, naming CORS_ORIGINS", { skip: SQLITE_PASS_ONLY }, async () => {
    const result = await runCli(["serve"], {
      CORS_ORIGINS: "https://app.example.test/login",
      PORT: "0",
      DATABASE_URL: ":memory:",
    });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /CORS_ORIGINS: "https:\/\/app\.example\.test\/login" is not an origin/);
  });
});
