/**
 * Two server processes on one SQLite file: the guards that keep capacity and duplicates
 * hold across processes, not just inside one.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { attendeeInput, eventInput } from "./fixtures/builders.ts";
import { errorOf, startServer, type TestServer } from "./_setup.ts";

describe("two server processes sharing one database", () => {
  let a: TestServer;
  let b: TestServer;
  let key: string;

  before(async () => {
    a = await startServer();
    b = await startServer({ database: a.database });
    key = (await a.createKey({ account: "Shared" })).key;
  });
  after(async () => {
    assert.equal(await b.stop(), 0);
    assert.equal(await a.stop(), 0);
  });

  test("50 concurrent registrations split over both processes fill capacity 20 exactly", async () => {
    const event = await a.request("POST", "/v1/events", { key, body: eventInput({ capacity: 20 }) });
    assert.equal(event.status, 201);
    const eventId = event.body.id as string;
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).request("POST", "/v1/attendees", { key, body: attendeeInput(eventId) })),
    );
    const created = responses.filter((r) => r.status === 201);
    const full = responses.filter((r) => r.status === 400 && errorOf(r).code === "EVENT_FULL");
    assert.equal(created.length, 20);
    assert.equal(full.length, 30);
    const listed = await b.request("GET", `/v1/attendees?eventId=${eventId}&limit=100`, { key });
    assert.equal(listed.body.pagination.total, 20);
    assert.equal((await a.request("GET", `/v1/events/${eventId}`, { key })).body.attendeeCount, 20);
  });

  test("the same email registered through both processes at once is accepted once", async () => {
    const event = await b.request("POST", "/v1/events", { key, body: eventInput({ capacity: 100 }) });
    const eventId = event.body.id as string;
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 ? a : b).request("POST", "/api/attendees", { key, body: attendeeInput(eventId, { email: i % 3 ? "Same@Example.com" : "same@example.COM" }) }),
      ),
    );
    assert.deepEqual(responses.map((r) => r.status).sort(), [201, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
    for (const r of responses.filter((r) => r.status === 409)) assert.equal(errorOf(r).code, "DUPLICATE_REGISTRATION");
  });
});
