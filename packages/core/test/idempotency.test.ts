/**
 * `Idempotency-Key` on POST through the handler, beside conventions.test.ts's (replay, 422,
 * 409 while running, a key over 255 characters): the stored answer is replayed even once the
 * request would now get another, errors included; byte-identical means byte-identical; another
 * path or route is another request; the header is ignored on GET, PUT and DELETE; keys are per
 * account. Keys refused for their characters through the real server, identical keyed requests
 * at once and through two processes: test/idempotency.test.ts.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createHandler, type FetchHandler } from "../src/http/handler.ts";
import { createEventService, type EventService } from "../src/service.ts";
import { EVENT } from "./_fixtures.ts";
import { sqliteStorage } from "./_sqlite.ts";

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

describe("Idempotency-Key through the handler", () => {
  let service: EventService;
  let handler: FetchHandler;
  let accounts = 0;
  let people = 0;
  const errors: unknown[] = [];

  before(async () => {
    service = createEventService({ storage: await sqliteStorage() });
    handler = createHandler(service, { onError: (error) => errors.push(error) });
  });
  after(() => service.storage.close());

  /** A key of a new enterprise account (its limits never interfere). */
  const newKey = async () =>
    (await service.keys.create({ account: `Idempotent ${++accounts}`, tier: "enterprise" })).key;

  async function call(
    key: string,
    method: string,
    path: string,
    options: { body?: unknown; raw?: string; idempotencyKey?: string } = {},
  ): Promise<Answer> {
    const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    const response = await handler(
      new Request(`http://service.test${path}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body !== undefined && { "content-type": "application/json" }),
          ...(options.idempotencyKey !== undefined && { "idempotency-key": options.idempotencyKey }),
        },
        ...(body !== undefined && { body }),
      }),
    );
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
  }
  const replayed = (answer: Answer) => answer.headers.get("idempotent-replayed");
  const expectError = (answer: Answer, status: number, code: string) => {
    assert.equal(answer.status, status, JSON.stringify(answer.body));
    assert.equal(answer.body.error.code, code);
    return answer.body.error;
  };
  /** Every item of a list, in one page. */
  const all = async (key: string, path: string, name: "events" | "attendees"): Promise<any[]> => {
    const answer = await call(key, "GET", `${path}${path.includes("?") ? "&" : "?"}limit=100`);
    assert.equal(answer.status, 200);
    return answer.body[name];
  };
  const event = (overrides: Record<string, unknown> = {}) => ({ ...EVENT, capacity: 100, ...overrides });
  const person = (eventId: string, overrides: Record<string, unknown> = {}) => ({
    eventId,
    firstName: "Ada",
    lastName: "Lovelace",
    email: `ada${++people}@example.com`,
    ticketType: "general",
    ...overrides,
  });
  const createEvent = async (key: string) => {
    const answer = await call(key, "POST", "/v1/events", { body: event() });
    assert.equal(answer.status, 201);
    return answer.body;
  };

  test("POST /events twice with one key: the same 201 and body, replayed through /v1 and /api alike, with the rate-limit headers, and one event", async () => {
    const key = await newKey();
    const input = event({ name: "Replayed" });
    const first = await call(key, "POST", "/v1/events", { body: input, idempotencyKey: "create-1" });
    assert.equal(first.status, 201);
    assert.equal(replayed(first), null, "the first answer is not a replay");
    for (const prefix of ["/v1", "/api", "/v1"]) {
      const again = await call(key, "POST", `${prefix}/events`, { body: input, idempotencyKey: "create-1" });
      assert.equal(again.status, 201);
      assert.deepEqual(again.body, first.body);
      assert.equal(replayed(again), "true");
      assert.equal(again.headers.get("x-ratelimit-limit"), "6000", "a replay is an authenticated answer too");
    }
    assert.deepEqual(
      (await all(key, "/v1/events", "events")).map((e) => e.id),
      [first.body.id],
    );
  });

  test("POST /attendees twice with one key: one registration; after a cancellation the retry still replays the first answer and registers nobody", async () => {
    const key = await newKey();
    const { id: eventId } = await createEvent(key);
    const input = person(eventId);
    const created = await call(key, "POST", "/v1/attendees", { body: input, idempotencyKey: "reg-1" });
    assert.equal(created.status, 201);
    const again = await call(key, "POST", "/v1/attendees", { body: input, idempotencyKey: "reg-1" });
    assert.equal(again.status, 201);
    assert.equal(replayed(again), "true");
    // The ticket link is shown once: the replay holds the rest of the answer, its ticketUrl null.
    assert.match(created.body.ticketUrl, /\/v1\/tickets\/tkt_/);
    assert.deepEqual(again.body, { ...created.body, ticketUrl: null });
    assert.deepEqual(
      (await all(key, `/v1/attendees?eventId=${eventId}`, "attendees")).map((a) => a.id),
      [created.body.id],
    );

    assert.equal(
      (await call(key, "PUT", `/v1/attendees/${created.body.id}`, { body: { status: "cancelled" } })).status,
      200,
    );
    const late = await call(key, "POST", "/v1/attendees", { body: input, idempotencyKey: "reg-1" });
    assert.equal(late.status, 201);
    assert.equal(replayed(late), "true");
    assert.deepEqual(late.body, { ...created.body, ticketUrl: null });
    assert.equal(late.body.status, "confirmed");
    const listed = await all(key, `/v1/attendees?eventId=${eventId}`, "attendees");
    assert.deepEqual(
      listed.map((a) => [a.id, a.status]),
      [[created.body.id, "cancelled"]],
    );
    assert.equal((await call(key, "GET", `/v1/events/${eventId}`)).body.attendeeCount, 0);
  });

  test("an error answer is stored and replayed too, even once the request would now succeed", async () => {
    const key = await newKey();
    const { id: eventId } = await createEvent(key);
    const holder = await call(key, "POST", "/v1/attendees", { body: person(eventId, { email: "taken@example.com" }) });
    assert.equal(holder.status, 201);
    const input = person(eventId, { email: "TAKEN@example.com" });
    const first = await call(key, "POST", "/v1/attendees", { body: input, idempotencyKey: "dup-1" });
    const error = expectError(first, 409, "DUPLICATE_REGISTRATION");
    assert.equal(replayed(first), null);

    assert.equal(
      (await call(key, "PUT", `/v1/attendees/${holder.body.id}`, { body: { status: "cancelled" } })).status,
      200,
    );
    const again = await call(key, "POST", "/v1/attendees", { body: input, idempotencyKey: "dup-1" });
    assert.deepEqual(expectError(again, 409, "DUPLICATE_REGISTRATION"), error);
    assert.equal(replayed(again), "true");
    assert.equal((await all(key, `/v1/attendees?eventId=${eventId}`, "attendees")).length, 1);

    // A validation error too.
    const invalid = await call(key, "POST", "/v1/events", { body: { name: "No dates" }, idempotencyKey: "invalid-1" });
    expectError(invalid, 400, "INVALID_REQUEST");
    const invalidAgain = await call(key, "POST", "/v1/events", {
      body: { name: "No dates" },
      idempotencyKey: "invalid-1",
    });
    assert.equal(invalidAgain.status, 400);
    assert.equal(replayed(invalidAgain), "true");
    assert.deepEqual(invalidAgain.body, invalid.body);
    assert.equal((await all(key, "/v1/events", "events")).length, 1);
  });

  test("the same key with another body (other whitespace included) or another path: 422 IDEMPOTENCY_KEY_REUSED, nothing created, the original still replays", async () => {
    const key = await newKey();
    const input = event({ name: "Original" });
    const created = await call(key, "POST", "/v1/events", { body: input, idempotencyKey: "once" });
    assert.equal(created.status, 201);
    expectError(
      await call(key, "POST", "/v1/events", { body: { ...input, name: "Another name" }, idempotencyKey: "once" }),
      422,
      "IDEMPOTENCY_KEY_REUSED",
    );
    // Byte-identical means byte-identical: the same JSON with other whitespace is another body.
    expectError(
      await call(key, "POST", "/v1/events", { raw: JSON.stringify(input, null, 2), idempotencyKey: "once" }),
      422,
      "IDEMPOTENCY_KEY_REUSED",
    );
    expectError(
      await call(key, "POST", "/v1/attendees", { body: person(created.body.id), idempotencyKey: "once" }),
      422,
      "IDEMPOTENCY_KEY_REUSED",
    );
    expectError(
      await call(key, "POST", `/v1/events/${created.body.id}/check-in`, {
        body: { confirmationCode: "EVT-2222-2222" },
        idempotencyKey: "once",
      }),
      422,
      "IDEMPOTENCY_KEY_REUSED",
    );
    assert.deepEqual(
      (await all(key, "/v1/events", "events")).map((e) => e.id),
      [created.body.id],
    );
    assert.equal((await all(key, "/v1/attendees", "attendees")).length, 0);
    const again = await call(key, "POST", "/v1/events", { body: input, idempotencyKey: "once" });
    assert.equal(replayed(again), "true");
    assert.deepEqual(again.body, created.body);
  });

  test("the header is ignored on GET, PUT and DELETE, even an invalid one", async () => {
    const key = await newKey();
    const created = await call(key, "POST", "/v1/events", { body: event(), idempotencyKey: "k" });
    assert.equal(created.status, 201);
    const id = created.body.id;
    const listed = await call(key, "GET", "/v1/events", { idempotencyKey: "k" });
    assert.equal(listed.status, 200);
    assert.equal(replayed(listed), null);
    assert.equal(listed.body.events.length, 1);
    for (const name of ["First rename", "Second rename"]) {
      const renamed = await call(key, "PUT", `/v1/events/${id}`, { body: { name }, idempotencyKey: "k" });
      assert.equal(renamed.status, 200);
      assert.equal(renamed.body.name, name);
      assert.equal(replayed(renamed), null);
    }
    assert.equal((await call(key, "GET", `/v1/events/${id}`, { idempotencyKey: "not a valid key" })).status, 200);
    const deleted = await call(key, "DELETE", `/v1/events/${id}`, { idempotencyKey: "k" });
    assert.equal(deleted.status, 200);
    assert.equal(deleted.body.deletedId, id);
    expectError(await call(key, "DELETE", `/v1/events/${id}`, { idempotencyKey: "k" }), 404, "NOT_FOUND");
  });

  test("keys are per account: another account may use the same key for its own request, with the same body or another", async () => {
    const [a, b, c] = [await newKey(), await newKey(), await newKey()];
    const input = event({ name: "Shared order" });
    const fromA = await call(a, "POST", "/v1/events", { body: input, idempotencyKey: "shared-order-42" });
    const fromB = await call(b, "POST", "/v1/events", { body: input, idempotencyKey: "shared-order-42" });
    const fromC = await call(c, "POST", "/v1/events", {
      body: event({ name: "Another" }),
      idempotencyKey: "shared-order-42",
    });
    for (const answer of [fromA, fromB, fromC]) {
      assert.equal(answer.status, 201);
      assert.equal(replayed(answer), null);
    }
    assert.notEqual(fromB.body.id, fromA.body.id);
    assert.deepEqual(
      (await all(a, "/v1/events", "events")).map((e) => e.id),
      [fromA.body.id],
    );
    assert.deepEqual(
      (await all(b, "/v1/events", "events")).map((e) => e.id),
      [fromB.body.id],
    );
    assert.deepEqual(
      (await all(c, "/v1/events", "events")).map((e) => e.id),
      [fromC.body.id],
    );
    assert.deepEqual(
      (await call(a, "POST", "/v1/events", { body: input, idempotencyKey: "shared-order-42" })).body,
      fromA.body,
      "A's replay is still A's",
    );
  });

  test("no unexpected errors were logged", () => assert.deepEqual(errors, []));
});
