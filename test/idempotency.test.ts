/**
 * End-to-end: `Idempotency-Key` on POST. The first answer (status and body, errors too) is
 * stored per account and key; a retry of the same request gets it again with
 * `Idempotent-Replayed: true` and repeats no effect; another request under the same key is
 * `422 IDEMPOTENCY_KEY_REUSED`, one still running `409 IDEMPOTENCY_KEY_IN_USE`.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";
import { type ApiResponse, startServer, type TestServer } from "./_setup.ts";
import { attendeeInput, eventInput } from "./fixtures/builders.ts";
import {
  type Client,
  clientFor,
  createEvent,
  expectError,
  expectStatus,
  moveAttendee,
  register,
} from "./fixtures/api.ts";
import { rawRequest, tally } from "./fixtures/conventions.ts";

let server: TestServer;
let accounts = 0;
/** Keys of new accounts, made in parallel up front (each CLI run costs a process start). */
let pool: string[] = [];

const newAccountKey = async () => {
  accounts += 1;
  return (await server.createKey({ account: `Idempotent ${accounts} ${Date.now()}`, tier: "enterprise" })).key;
};

before(async () => {
  server = await startServer();
  pool = await Promise.all(Array.from({ length: 12 }, newAccountKey));
});

after(async () => {
  const output = server.output();
  assert.equal(await server.stop("SIGTERM"), 0, "the server exits 0 on SIGTERM");
  assert.doesNotMatch(output, /"msg":"unexpected error"/, "no request failed unexpectedly");
});

/** A client of a new account (enterprise limits, so bursts are never rate limited). */
async function newClient(prefix: "/v1" | "/api" = "/v1"): Promise<Client> {
  return clientFor(server, pool.pop() ?? (await newAccountKey()), prefix);
}

const withKey = (key: string) => ({ headers: { "idempotency-key": key } });
const replayed = (response: ApiResponse) => response.headers.get("idempotent-replayed");

/** Every item of a list in one page. */
async function all(client: Client, path: string, name: "events" | "attendees"): Promise<any[]> {
  const body = expectStatus(await client.get(`${path}${path.includes("?") ? "&" : "?"}limit=100`), 200);
  assert.equal(body[name].length, body.pagination.total);
  return body[name];
}

test("POST /events twice with one key: the same 201 and body, replayed, and one event", async () => {
  const v1 = await newClient();
  const api = clientFor(server, v1.key, "/api");
  const key = randomUUID();
  const input = eventInput();
  const first = await v1.post("/events", input, withKey(key));
  const created = expectStatus(first, 201);
  assert.equal(replayed(first), null, "the first answer is not a replay");

  // The /api alias is the same path for the fingerprint.
  for (const client of [v1, api, v1]) {
    const again = await client.post("/events", input, withKey(key));
    assert.equal(again.status, 201);
    assert.deepEqual(again.body, created);
    assert.equal(replayed(again), "true");
    assert.equal(again.headers.get("x-ratelimit-limit"), "6000", "a replay is an authenticated answer too");
  }
  const events = await all(v1, "/events", "events");
  assert.deepEqual(
    events.map((e) => e.id),
    [created.id],
  );
});

test("POST /attendees twice with one key: one registration, and the replay is the stored answer, not a new one", async () => {
  const v1 = await newClient();
  const event = await createEvent(v1);
  const key = `reg-${randomUUID()}`;
  const input = attendeeInput(event.id);
  const created = expectStatus(await v1.post("/attendees", input, withKey(key)), 201);
  const again = await v1.post("/attendees", input, withKey(key));
  assert.equal(again.status, 201);
  assert.equal(replayed(again), "true");
  assert.deepEqual(again.body, created);
  assert.deepEqual(
    (await all(v1, `/attendees?eventId=${event.id}`, "attendees")).map((a) => a.id),
    [created.id],
  );

  // After a cancellation a new registration of the email would succeed; the retry still
  // replays the first answer and registers nobody.
  await moveAttendee(v1, created.id, "cancelled");
  const late = await v1.post("/attendees", input, withKey(key));
  assert.equal(late.status, 201);
  assert.equal(replayed(late), "true");
  assert.deepEqual(late.body, created);
  assert.equal(late.body.status, "confirmed");
  const listed = await all(v1, `/attendees?eventId=${event.id}`, "attendees");
  assert.deepEqual(
    listed.map((a) => [a.id, a.status]),
    [[created.id, "cancelled"]],
  );
  assert.equal(expectStatus(await v1.get(`/events/${event.id}`), 200).attendeeCount, 0);
});

test("an error answer is stored and replayed too, even once the request would now succeed", async () => {
  const v1 = await newClient();
  const event = await createEvent(v1);
  const holder = await register(v1, event.id, { email: "taken@example.com" });
  const key = randomUUID();
  const input = attendeeInput(event.id, { email: "TAKEN@example.com" });
  const first = await v1.post("/attendees", input, withKey(key));
  const error = expectError(first, 409, "DUPLICATE_REGISTRATION");
  assert.equal(replayed(first), null);

  await moveAttendee(v1, holder.id, "cancelled");
  const again = await v1.post("/attendees", input, withKey(key));
  expectError(again, 409, "DUPLICATE_REGISTRATION");
  assert.equal(replayed(again), "true");
  assert.deepEqual((again.body as any).error, error);
  assert.equal((await all(v1, `/attendees?eventId=${event.id}`, "attendees")).length, 1);

  // A validation error too.
  const invalidKey = randomUUID();
  const invalid = await v1.post("/events", { name: "No dates" }, withKey(invalidKey));
  expectError(invalid, 400, "INVALID_REQUEST");
  const invalidAgain = await v1.post("/events", { name: "No dates" }, withKey(invalidKey));
  assert.equal(invalidAgain.status, 400);
  assert.equal(replayed(invalidAgain), "true");
  assert.deepEqual(invalidAgain.body, invalid.body);
  assert.equal((await all(v1, "/events", "events")).length, 1);
});

test("the same key with another body or another path: 422 IDEMPOTENCY_KEY_REUSED, and nothing is created", async () => {
  const v1 = await newClient();
  const key = randomUUID();
  const input = eventInput();
  const created = expectStatus(await v1.post("/events", input, withKey(key)), 201);

  expectError(
    await v1.post("/events", { ...input, name: "Another name" }, withKey(key)),
    422,
    "IDEMPOTENCY_KEY_REUSED",
  );
  // Byte-identical means byte-identical: the same JSON with other whitespace is another body.
  const spaced = await server.request("POST", "/v1/events", {
    key: v1.key,
    raw: JSON.stringify(input, null, 2),
    headers: { "content-type": "application/json", "idempotency-key": key },
  });
  expectError(spaced, 422, "IDEMPOTENCY_KEY_REUSED");
  expectError(await v1.post("/attendees", attendeeInput(created.id), withKey(key)), 422, "IDEMPOTENCY_KEY_REUSED");
  expectError(
    await v1.post(`/events/${created.id}/check-in`, { confirmationCode: "EVT-2222-2222" }, withKey(key)),
    422,
    "IDEMPOTENCY_KEY_REUSED",
  );

  assert.deepEqual(
    (await all(v1, "/events", "events")).map((e) => e.id),
    [created.id],
  );
  assert.equal((await all(v1, "/attendees", "attendees")).length, 0);
  // The original request still replays.
  const again = await v1.post("/events", input, withKey(key));
  assert.equal(replayed(again), "true");
  assert.deepEqual(again.body, created);
});

test("the header is ignored on GET, PUT and DELETE", async () => {
  const v1 = await newClient();
  const key = randomUUID();
  const event = expectStatus(await v1.post("/events", eventInput(), withKey(key)), 201);

  const listed = await v1.get("/events", withKey(key));
  expectStatus(listed, 200);
  assert.equal(replayed(listed), null);
  assert.equal(listed.body.events.length, 1);

  const renamed = await v1.put(`/events/${event.id}`, { name: "First rename" }, withKey(key));
  assert.equal(expectStatus(renamed, 200).name, "First rename");
  assert.equal(replayed(renamed), null);
  const renamedAgain = await v1.put(`/events/${event.id}`, { name: "Second rename" }, withKey(key));
  assert.equal(expectStatus(renamedAgain, 200).name, "Second rename");
  assert.equal(replayed(renamedAgain), null);

  // Even an invalid key value is not looked at.
  expectStatus(await v1.get(`/events/${event.id}`, withKey("not a valid key")), 200);
  const deleted = await v1.delete(`/events/${event.id}`, withKey(key));
  assert.equal(expectStatus(deleted, 200).deletedId, event.id);
  expectError(await v1.delete(`/events/${event.id}`, withKey(key)), 404, "NOT_FOUND");
});

test("keys are per account: another account may use the same key for its own request", async () => {
  const a = await newClient();
  const b = await newClient();
  const key = "shared-order-42";
  const input = eventInput();
  const fromA = expectStatus(await a.post("/events", input, withKey(key)), 201);
  const fromB = await b.post("/events", input, withKey(key));
  expectStatus(fromB, 201);
  assert.equal(replayed(fromB), null);
  assert.notEqual(fromB.body.id, fromA.id);
  // And with another body, too: no 422 across accounts.
  const c = await newClient();
  const fromC = await c.post("/events", eventInput(), withKey(key));
  expectStatus(fromC, 201);
  assert.equal(replayed(fromC), null);

  assert.deepEqual(
    (await all(a, "/events", "events")).map((e) => e.id),
    [fromA.id],
  );
  assert.deepEqual(
    (await all(b, "/events", "events")).map((e) => e.id),
    [fromB.body.id],
  );
  assert.deepEqual(
    (await all(c, "/events", "events")).map((e) => e.id),
    [fromC.body.id],
  );
  // A's replay is still A's.
  assert.deepEqual((await a.post("/events", input, withKey(key))).body, fromA);
});

test("an invalid key is 400 with field Idempotency-Key and has no effect: too long, spaces, non-ASCII", async () => {
  const v1 = await newClient();
  for (const key of ["k".repeat(256), "two words", "tab\there"]) {
    expectError(await v1.post("/events", eventInput(), withKey(key)), 400, "INVALID_REQUEST", "Idempotency-Key");
  }
  const nonAscii = await rawRequest(`${server.url}/v1/events`, {
    method: "POST",
    headers: { authorization: `Bearer ${v1.key}`, "idempotency-key": "clé-1" },
    body: JSON.stringify(eventInput()),
  });
  assert.equal(nonAscii.status, 400, JSON.stringify(nonAscii.body));
  assert.equal(nonAscii.body.error.code, "INVALID_REQUEST");
  assert.equal(nonAscii.body.error.field, "Idempotency-Key");
  assert.equal((await all(v1, "/events", "events")).length, 0);

  // 255 visible ASCII characters are fine.
  const longest = `${"k".repeat(254)}~`;
  const created = expectStatus(await v1.post("/events", eventInput(), withKey(longest)), 201);
  assert.deepEqual(
    (await all(v1, "/events", "events")).map((e) => e.id),
    [created.id],
  );
});

/** Fires `count` identical keyed POSTs at once and checks the answers: 201s (one original) or 409 IN_USE. */
async function race(client: Client, path: string, input: unknown, count: number) {
  const key = randomUUID();
  const responses = await Promise.all(Array.from({ length: count }, () => client.post(path, input, withKey(key))));
  const counts = tally(responses);
  assert.deepEqual(
    Object.keys(counts).sort(),
    Object.keys(counts)
      .filter((label) => label === "201" || label === "409 IDEMPOTENCY_KEY_IN_USE")
      .sort(),
    JSON.stringify(counts),
  );
  const created = responses.filter((r) => r.status === 201);
  const originals = created.filter((r) => replayed(r) === null);
  assert.equal(originals.length, 1, `exactly one original answer: ${JSON.stringify(counts)}`);
  for (const response of created) assert.deepEqual(response.body, originals[0]!.body);
  for (const response of responses.filter((r) => r.status === 409)) {
    expectError(response, 409, "IDEMPOTENCY_KEY_IN_USE");
    assert.equal(response.headers.get("retry-after"), "1");
  }
  // Once settled, a retry replays.
  const retry = await client.post(path, input, withKey(key));
  assert.equal(retry.status, 201);
  assert.equal(replayed(retry), "true");
  assert.deepEqual(retry.body, originals[0]!.body);
  return originals[0]!.body;
}

test("10 identical keyed POST /events at once: 201 or 409 IDEMPOTENCY_KEY_IN_USE, exactly one event", async () => {
  const v1 = await newClient();
  const created = await race(v1, "/events", eventInput(), 10);
  assert.deepEqual(
    (await all(v1, "/events", "events")).map((e) => e.id),
    [created.id],
  );
});

test("10 identical keyed POST /attendees at once: exactly one registration", async () => {
  const v1 = await newClient();
  const event = await createEvent(v1, { capacity: 50 });
  const created = await race(v1, "/attendees", attendeeInput(event.id), 10);
  assert.deepEqual(
    (await all(v1, `/attendees?eventId=${event.id}`, "attendees")).map((a) => a.id),
    [created.id],
  );
  assert.equal(expectStatus(await v1.get(`/events/${event.id}`), 200).attendeeCount, 1);
});

test("identical keyed POSTs through two processes on one database: exactly one registration", async () => {
  const v1 = await newClient();
  const second = await startServer({ database: server.database });
  try {
    const other = clientFor(second, v1.key, "/api");
    const event = await createEvent(v1, { capacity: 50 });
    const key = randomUUID();
    const input = attendeeInput(event.id);
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, i) => (i % 2 ? other : v1).post("/attendees", input, withKey(key))),
    );
    const counts = tally(responses);
    assert.equal((counts["201"] ?? 0) + (counts["409 IDEMPOTENCY_KEY_IN_USE"] ?? 0), 12, JSON.stringify(counts));
    const originals = responses.filter((r) => r.status === 201 && replayed(r) === null);
    assert.equal(originals.length, 1, JSON.stringify(counts));
    const listed = await all(other, `/attendees?eventId=${event.id}`, "attendees");
    assert.deepEqual(
      listed.map((a) => a.id),
      [originals[0]!.body.id],
    );
  } finally {
    assert.equal(await second.stop("SIGTERM"), 0);
  }
});
