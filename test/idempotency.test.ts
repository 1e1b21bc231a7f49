/**
 * End-to-end: `Idempotency-Key` on POST through the real server: keys refused for their
 * characters as they arrive over HTTP (non-ASCII bytes included), identical keyed requests at
 * once (one original answer, the others `409 IDEMPOTENCY_KEY_IN_USE` or its replay), and through
 * two processes on one database. The rules of replay, `422 IDEMPOTENCY_KEY_REUSED` and the
 * header's scope are tested through the handler in packages/core/test/idempotency.test.ts and
 * conventions.test.ts.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";
import { type ApiResponse, startServer, type TestServer } from "./_setup.ts";
import { attendeeInput, eventInput } from "./fixtures/builders.ts";
import { type Client, clientFor, createEvent, expectError, expectStatus } from "./fixtures/api.ts";
import { rawRequest, tally } from "./fixtures/conventions.ts";

let server: TestServer;
let accounts = 0;
/** Keys of new accounts, made up front. */
let pool: string[] = [];

const newAccountKey = async () => {
  accounts += 1;
  return (await server.createKey({ account: `Idempotent ${accounts} ${Date.now()}`, tier: "enterprise" })).key;
};

before(async () => {
  server = await startServer();
  pool = await Promise.all(Array.from({ length: 4 }, newAccountKey));
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
  // A replay shows what was answered, but a link made for the first answer (ticketUrl) is kept nowhere in the clear.
  const asReplayed = (body: Record<string, unknown>) => ("ticketUrl" in body ? { ...body, ticketUrl: null } : body);
  for (const response of created)
    assert.deepEqual(response.body, response === originals[0] ? originals[0].body : asReplayed(originals[0]!.body));
  for (const response of responses.filter((r) => r.status === 409)) {
    expectError(response, 409, "IDEMPOTENCY_KEY_IN_USE");
    assert.equal(response.headers.get("retry-after"), "1");
  }
  // Once settled, a retry replays.
  const retry = await client.post(path, input, withKey(key));
  assert.equal(retry.status, 201);
  assert.equal(replayed(retry), "true");
  assert.deepEqual(retry.body, asReplayed(originals[0]!.body));
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
