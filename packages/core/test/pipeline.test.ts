import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createHandler, type RequestLogEntry, type ServiceHandler } from "../src/http/handler.ts";
import { createEventService, type EventService } from "../src/service.ts";
import { sqliteStorage } from "./_sqlite.ts";

const EVENT = {
  name: "Green Summit",
  location: { address: "a", city: "Berlin", country: "DE" },
  startDate: "2038-01-01T10:00:00Z",
  endDate: "2038-01-01T12:00:00Z",
  capacity: 5,
  category: "meetup",
};

describe("the handler's steps, in order, and its one error path", () => {
  let service: EventService;
  let handler: ServiceHandler;
  let key: string;
  let readOnly: string;
  const log: RequestLogEntry[] = [];
  const errors: unknown[] = [];

  before(async () => {
    service = createEventService({ storage: await sqliteStorage(), now: () => new Date("2026-06-01T12:00:30.000Z") });
    handler = createHandler(service, {
      cors: { origins: ["https://app.test"] },
      onRequestEnd: (entry) => log.push(entry),
      onError: (error) => errors.push(error),
      clientAddress: () => "192.0.2.7",
    });
    key = (await service.keys.create({ account: "Steps", tier: "starter" })).key;
    readOnly = (await service.keys.create({ account: "Steps", tier: "starter", scopes: ["events:read"] })).key;
  });
  after(async () => {
    await handler.close();
    await service.storage.close();
  });

  const call = (method: string, url: string, headers: Record<string, string> = {}, body?: unknown) =>
    handler(
      new Request(url.startsWith("http") ? url : `http://service.test${url}`, {
        method,
        headers: { ...headers, ...(body !== undefined && { "content-type": "application/json" }) },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      }),
    );
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  test("HEAD is answered by the GET route with its headers and no body: JSON, a stream, an error, a public route", async () => {
    const event = (await (await call("POST", "/v1/events", bearer(key), EVENT)).json()) as { id: string };
    const list = await call("HEAD", "/v1/events", bearer(key));
    assert.equal(list.status, 200);
    assert.equal(list.body, null);
    assert.equal(list.headers.get("content-type"), "application/json; charset=utf-8");
    assert.equal(list.headers.get("x-ratelimit-limit"), "300");
    const exported = await call("HEAD", `/v1/events/${event.id}/attendees/export`, bearer(key));
    assert.equal(exported.status, 200);
    assert.equal(exported.body, null);
    assert.equal(exported.headers.get("content-type"), "text/csv; charset=utf-8");
    assert.equal(exported.headers.get("content-disposition"), `attachment; filename="attendees-${event.id}.csv"`);
    const missing = await call("HEAD", `/v1/events/evt_${"0".repeat(24)}`, bearer(key));
    assert.equal(missing.status, 404);
    assert.equal(missing.body, null);
    const health = await call("HEAD", "/health");
    assert.equal(health.status, 200);
    assert.equal(health.body, null);
    assert.equal(log.at(-1)?.method, "HEAD");
    assert.equal(log.at(-1)?.route, "/health");
  });

  test("a scope refusal comes after the rate limit: it is counted and carries the rate-limit headers", async () => {
    const first = await call("POST", "/v1/events", bearer(readOnly), EVENT);
    assert.equal(first.status, 403);
    const remaining = Number(first.headers.get("x-ratelimit-remaining"));
    const second = await call("POST", "/v1/events", bearer(readOnly), EVENT);
    assert.equal(second.status, 403);
    assert.equal(Number(second.headers.get("x-ratelimit-remaining")), remaining - 1);
    assert.deepEqual(((await second.json()) as { error: { details: unknown } }).error.details, {
      requiredScope: "events:write",
    });
  });

  test("an unknown route is a plain 404 without a key, and an authenticated, counted one with a key", async () => {
    const anonymous = await call("GET", "/v1/nope");
    assert.equal(anonymous.status, 404);
    assert.equal(anonymous.headers.get("x-ratelimit-limit"), null);
    const keyed = await call("GET", "/v1/nope", bearer(key));
    assert.equal(keyed.status, 404);
    assert.equal(keyed.headers.get("x-ratelimit-limit"), "300");
    assert.equal(log.at(-1)?.route, undefined);
    assert.match(log.at(-1)?.accountId ?? "", /^acct_/);
  });

  test("a refusal under an Idempotency-Key is stored: the replay is the same body, marked replayed", async () => {
    const body = { eventId: `evt_${"0".repeat(24)}`, firstName: "A", lastName: "B", email: "a@b.de", ticketType: "t" };
    const headers = { ...bearer(key), "idempotency-key": "refused-1", origin: "https://app.test" };
    const first = await call("POST", "/v1/attendees", headers, body);
    assert.equal(first.status, 404);
    assert.equal(first.headers.get("access-control-allow-origin"), "https://app.test");
    const firstBody = (await first.json()) as { error: { code: string; documentation: string } };
    assert.equal(firstBody.error.documentation, "http://localhost:3000/docs#NOT_FOUND");
    const again = await call("POST", "/v1/attendees", headers, body);
    assert.equal(again.status, 404);
    assert.equal(again.headers.get("idempotent-replayed"), "true");
    assert.equal(again.headers.get("access-control-allow-origin"), "https://app.test");
    assert.deepEqual(await again.json(), firstBody);
  });

  test("every response over HTTPS carries HSTS, a CORS preflight included", async () => {
    const preflight = await call("OPTIONS", "https://service.test/v1/events", {
      origin: "https://app.test",
      "access-control-request-method": "POST",
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get("strict-transport-security"), "max-age=31536000; includeSubDomains");
    const error = await call("GET", "https://service.test/v1/events");
    assert.equal(error.status, 401);
    assert.equal(error.headers.get("strict-transport-security"), "max-age=31536000; includeSubDomains");
    const plain = await call("GET", "http://service.test/health");
    assert.equal(plain.headers.get("strict-transport-security"), null);
  });

  test("an unexpected error is a 500 INTERNAL_ERROR whose cause reaches onError only, with the gathered headers", async () => {
    const failing = createHandler(
      { ...service, qrCode: () => Promise.reject(new Error("disk on fire")) },
      { onError: (error) => errors.push(error), cors: { origins: "*" } },
    );
    const response = await failing(
      new Request("http://service.test/v1/qr/att_x.png", { headers: { "x-request-id": "req-1" } }),
    );
    assert.equal(response.status, 500);
    assert.equal(response.headers.get("x-request-id"), "req-1");
    assert.equal(response.headers.get("access-control-allow-origin"), "*");
    const body = (await response.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, "INTERNAL_ERROR");
    assert.doesNotMatch(body.error.message, /disk on fire/);
    assert.equal((errors.pop() as Error).message, "disk on fire");
    assert.deepEqual(errors, []);
    await failing.close();
  });
});
