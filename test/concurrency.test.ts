/**
 * End-to-end: guarded operations under concurrent requests: capacity, duplicate emails,
 * re-activations, check-ins and status changes, in one server process and across two
 * processes sharing one SQLite file.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type ApiResponse, startServer, type TestServer } from "./_setup.ts";
import { attendeeInput } from "./fixtures/builders.ts";
import {
  type Client,
  clientFor,
  createEvent,
  expectError,
  expectStatus,
  moveAttendee,
  moveEvent,
  register,
} from "./fixtures/api.ts";

let server: TestServer;
let v1: Client;

before(async () => {
  server = await startServer();
  v1 = clientFor(server, (await server.createKey({ account: "Rush Hour" })).key);
});

after(async () => {
  const output = server.output();
  assert.equal(await server.stop("SIGTERM"), 0, "the server exits 0 on SIGTERM");
  assert.doesNotMatch(output, /"msg":"unexpected error"/, "no request failed unexpectedly");
});

/** Counts answers by `status code`. */
function tally(responses: ApiResponse[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const response of responses) {
    const label =
      response.status < 300 ? String(response.status) : `${response.status} ${(response.body as any)?.error?.code}`;
    counts[label] = (counts[label] ?? 0) + 1;
  }
  return counts;
}

/** Every registration of an event, in one page. */
async function registrations(client: Client, eventId: string): Promise<any[]> {
  const body = expectStatus(await client.get(`/attendees?eventId=${eventId}&limit=100`), 200);
  assert.equal(body.attendees.length, body.pagination.total);
  return body.attendees;
}

test("50 concurrent registrations for 20 places: exactly 20 x 201 and 30 x 400 EVENT_FULL", async () => {
  const event = await createEvent(v1, { capacity: 20 });
  const responses = await Promise.all(Array.from({ length: 50 }, () => v1.post("/attendees", attendeeInput(event.id))));
  assert.deepEqual(tally(responses), { "201": 20, "400 EVENT_FULL": 30 });
  for (const response of responses.filter((r) => r.status === 400)) expectError(response, 400, "EVENT_FULL");

  const created = responses.filter((r) => r.status === 201).map((r) => r.body);
  const listed = await registrations(v1, event.id);
  assert.equal(listed.length, 20);
  assert.deepEqual(listed.map((a) => a.id).sort(), created.map((a) => a.id).sort());
  assert.ok(listed.every((a) => a.status === "confirmed"));
  assert.equal(new Set(listed.map((a) => a.confirmationCode)).size, 20);
  assert.equal(new Set(listed.map((a) => a.email)).size, 20);
  const stored = expectStatus(await v1.get(`/events/${event.id}`), 200);
  assert.equal(stored.attendeeCount, 20);
  expectError(await v1.post("/attendees", attendeeInput(event.id)), 400, "EVENT_FULL");
});

test("concurrent registrations of one email (any case): exactly one 201, the rest 409 DUPLICATE_REGISTRATION", async () => {
  const event = await createEvent(v1, { capacity: 100 });
  const emails = Array.from({ length: 20 }, (_, i) =>
    i % 3 === 0 ? "Same.Person@Example.com" : i % 3 === 1 ? "same.person@example.com" : "SAME.PERSON@EXAMPLE.COM",
  );
  const responses = await Promise.all(emails.map((email) => v1.post("/attendees", attendeeInput(event.id, { email }))));
  assert.deepEqual(tally(responses), { "201": 1, "409 DUPLICATE_REGISTRATION": 19 });
  assert.equal((await registrations(v1, event.id)).length, 1);
  assert.equal(expectStatus(await v1.get(`/events/${event.id}`), 200).attendeeCount, 1);
});

test("concurrent registrations mixing duplicates and capacity never overfill nor duplicate", async () => {
  const event = await createEvent(v1, { capacity: 10 });
  // 30 requests over 15 distinct emails, each email twice.
  const responses = await Promise.all(
    Array.from({ length: 30 }, (_, i) =>
      v1.post("/attendees", attendeeInput(event.id, { email: `person${i % 15}@mixed.example` })),
    ),
  );
  const counts = tally(responses);
  assert.equal(counts["201"], 10, JSON.stringify(counts));
  assert.equal(
    (counts["400 EVENT_FULL"] ?? 0) + (counts["409 DUPLICATE_REGISTRATION"] ?? 0),
    20,
    JSON.stringify(counts),
  );
  const listed = await registrations(v1, event.id);
  assert.equal(listed.length, 10);
  assert.equal(new Set(listed.map((a) => a.email.toLowerCase())).size, 10);
  assert.equal(expectStatus(await v1.get(`/events/${event.id}`), 200).attendeeCount, 10);
});

test("concurrent re-activations of cancelled registrations respect capacity", async () => {
  const event = await createEvent(v1, { capacity: 5 });
  const first = [];
  for (let i = 0; i < 5; i++) first.push(await register(v1, event.id));
  for (const attendee of first) await moveAttendee(v1, attendee.id, "cancelled");
  for (let i = 0; i < 3; i++) await register(v1, event.id);
  const responses = await Promise.all(
    first.map((attendee) => v1.put(`/attendees/${attendee.id}`, { status: "confirmed" })),
  );
  assert.deepEqual(tally(responses), { "200": 2, "400 EVENT_FULL": 3 });
  const active = (await registrations(v1, event.id)).filter((a) => a.status !== "cancelled");
  assert.equal(active.length, 5);
  assert.equal(expectStatus(await v1.get(`/events/${event.id}`), 200).attendeeCount, 5);
});

test("a capacity cut racing registrations never leaves more active registrations than places", async () => {
  const event = await createEvent(v1, { capacity: 10 });
  for (let i = 0; i < 5; i++) await register(v1, event.id);
  const [cut, ...joins] = await Promise.all([
    v1.put(`/events/${event.id}`, { capacity: 6 }),
    ...Array.from({ length: 5 }, () => v1.post("/attendees", attendeeInput(event.id))),
  ]);
  const stored = expectStatus(await v1.get(`/events/${event.id}`), 200);
  assert.ok(stored.attendeeCount <= stored.capacity, `${stored.attendeeCount} active for ${stored.capacity} places`);
  const joined = joins.filter((r) => r.status === 201).length;
  assert.equal(stored.attendeeCount, 5 + joined);
  if (cut!.status === 200) {
    assert.equal(stored.capacity, 6);
    assert.ok(joined <= 1);
  } else {
    expectError(cut!, 400, "INVALID_REQUEST", "capacity");
    assert.equal(stored.capacity, 10);
    assert.ok(joined >= 2);
  }
  for (const join of joins.filter((r) => r.status !== 201)) expectError(join, 400, "EVENT_FULL");
});

test("concurrent check-ins of one code: exactly one 200, the rest 409 ALREADY_CHECKED_IN", async () => {
  const event = await createEvent(v1);
  await moveEvent(v1, event.id, "published");
  const attendee = await register(v1, event.id);
  const responses = await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      v1.post(`/events/${event.id}/check-in`, {
        confirmationCode: i % 2 ? attendee.confirmationCode : attendee.confirmationCode.toLowerCase(),
      }),
    ),
  );
  assert.deepEqual(tally(responses), { "200": 1, "409 ALREADY_CHECKED_IN": 9 });
  const winner = responses.find((r) => r.status === 200)!.body;
  for (const response of responses.filter((r) => r.status === 409)) {
    assert.equal((response.body as any).error.details.attendee.checkedInAt, winner.checkedInAt);
  }
  assert.equal(expectStatus(await v1.get(`/attendees/${attendee.id}`), 200).checkedInAt, winner.checkedInAt);
});

test("concurrent final status changes: one of completed / cancelled wins, the other is 422", async () => {
  const event = await createEvent(v1);
  await moveEvent(v1, event.id, "published");
  const wanted = Array.from({ length: 10 }, (_, i) => (i % 2 ? "completed" : "cancelled"));
  const responses = await Promise.all(wanted.map((status) => v1.put(`/events/${event.id}`, { status })));
  const final = expectStatus(await v1.get(`/events/${event.id}`), 200).status;
  assert.ok(final === "completed" || final === "cancelled");
  responses.forEach((response, i) => {
    if (wanted[i] === final) assert.equal(expectStatus(response, 200).status, final);
    else expectError(response, 422, "INVALID_STATE_TRANSITION", "status");
  });
});

test("two server processes on one database: 40 concurrent registrations for 15 places fill exactly 15", async () => {
  const second = await startServer({ database: server.database });
  try {
    const otherProcess = clientFor(second, v1.key, "/api");
    const event = await createEvent(v1, { capacity: 15 });
    const responses = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? otherProcess : v1).post("/attendees", attendeeInput(event.id))),
    );
    assert.deepEqual(tally(responses), { "201": 15, "400 EVENT_FULL": 25 });
    assert.equal((await registrations(v1, event.id)).length, 15);
    assert.equal(expectStatus(await otherProcess.get(`/events/${event.id}`), 200).attendeeCount, 15);
    assert.equal(expectStatus(await v1.get(`/events/${event.id}`), 200).attendeeCount, 15);
  } finally {
    assert.equal(await second.stop("SIGTERM"), 0);
  }
});
