/**
 * End-to-end: ticket types (issue 25; docs/api.md, "Ticket types")
 * through the real server: an event's types shown as stored and validated field by field; a
 * registration naming one (any case; unknown or past its sales end: 400 naming `ticketType`);
 * 50 buyers at once for a type of 10 places get exactly 10, the rest `EVENT_FULL` naming the
 * type while the event itself has room; a type's change by `PUT`; the types' own change refused
 * while registrations hold them; events without types exactly as before.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startServer, type TestServer } from "./_setup.ts";
import { type Client, clientFor, createEvent, expectError, expectStatus, moveEvent, register } from "./fixtures/api.ts";
import { attendeeInput } from "./fixtures/builders.ts";

let server: TestServer;
let client: Client;

const TYPES = [
  { name: "General", price: { amount: 0, currency: "EUR" } },
  { name: "Workshop", price: { amount: 0, currency: "EUR" }, capacity: 10 },
  { name: "Early bird", price: { amount: 0, currency: "EUR" }, salesEndAt: "2020-01-01T00:00:00+01:00" },
];

before(async () => {
  server = await startServer();
  // Limits far above the burst below: this suite is about ticket types, not rate limits.
  const { key } = await server.createKey({ account: "Tickets GmbH", tier: "enterprise", perMinute: 100_000 });
  client = clientFor(server, key);
});

after(() => server.stop());

async function ticketedEvent(overrides: Record<string, unknown> = {}) {
  const event = await createEvent(client, { ticketTypes: TYPES, ...overrides });
  await moveEvent(client, event.id, "published");
  return event;
}

describe("ticket types", () => {
  test("an event's types are shown as stored; bad ones are 400 naming the field; no types is as before", async () => {
    const event = await ticketedEvent({ refundPolicy: "none" });
    assert.deepEqual(event.ticketTypes, [
      { name: "General", price: { amount: 0, currency: "EUR" }, capacity: null, salesEndAt: null },
      { name: "Workshop", price: { amount: 0, currency: "EUR" }, capacity: 10, salesEndAt: null },
      {
        name: "Early bird",
        price: { amount: 0, currency: "EUR" },
        capacity: null,
        salesEndAt: "2019-12-31T23:00:00.000Z",
      },
    ]);
    assert.equal(event.refundPolicy, "none");
    const plain = await createEvent(client);
    assert.deepEqual([plain.ticketTypes, plain.refundPolicy], [[], "full"]);

    const bad = async (ticketTypes: unknown, field: string) =>
      expectError(await client.post("/events", { ...event, ticketTypes }), 400, "INVALID_REQUEST", field);
    const eur = (amount: unknown, currency: unknown = "EUR") => ({ amount, currency });
    await bad(
      [
        { name: "A", price: eur(1) },
        { name: "a", price: eur(1) },
      ],
      "ticketTypes.1.name",
    );
    await bad(
      [
        { name: "A", price: eur(1) },
        { name: "B", price: eur(1, "USD") },
      ],
      "ticketTypes.1.price.currency",
    );
    await bad([{ name: "A", price: eur(1, "eur") }], "ticketTypes.0.price.currency");
    await bad([{ name: "A", price: eur(9.99) }], "ticketTypes.0.price.amount");
    await bad([{ name: "A", price: eur("10") }], "ticketTypes.0.price.amount");
    await bad([{ name: "A", price: eur(1), capacity: 0 }], "ticketTypes.0.capacity");
    await bad([{ name: "A", price: eur(1), salesEndAt: "soon" }], "ticketTypes.0.salesEndAt");
    await bad([{ name: "A" }], "ticketTypes.0.price");
    expectError(
      await client.post("/events", { ...event, refundPolicy: "partial" }),
      400,
      "INVALID_REQUEST",
      "refundPolicy",
    );
    // An event without types takes any ticketType text, as it always did.
    await moveEvent(client, plain.id, "published");
    assert.equal((await register(client, plain.id, { ticketType: "speaker" })).ticketType, "speaker");
  });

  test("a registration names one of the types, in any case, while it is on sale", async () => {
    const event = await ticketedEvent();
    const made = await register(client, event.id, { ticketType: "workshop" });
    assert.deepEqual([made.status, made.ticketType], ["confirmed", "Workshop"]);
    const unknown = expectError(
      await client.post("/attendees", attendeeInput(event.id, { ticketType: "Student" })),
      400,
      "INVALID_REQUEST",
      "ticketType",
    );
    assert.deepEqual(unknown.details, { ticketTypes: ["General", "Workshop", "Early bird"] });
    const ended = expectError(
      await client.post("/attendees", attendeeInput(event.id, { ticketType: "Early bird" })),
      400,
      "INVALID_REQUEST",
      "ticketType",
    );
    assert.deepEqual(ended.details, { reason: "sales_ended", salesEndAt: "2019-12-31T23:00:00.000Z" });
    // A change of type by PUT: to one on sale, not to one whose sale ended.
    expectError(
      await client.put(`/attendees/${made.id}`, { ticketType: "Early bird" }),
      400,
      "INVALID_REQUEST",
      "ticketType",
    );
    const moved = expectStatus(await client.put(`/attendees/${made.id}`, { ticketType: "GENERAL" }), 200);
    assert.equal(moved.ticketType, "General");
  });

  test("50 buyers at once for a type of 10 places: exactly 10 get one, the rest EVENT_FULL naming it", async () => {
    const event = await ticketedEvent();
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => client.post("/attendees", attendeeInput(event.id, { ticketType: "Workshop" }))),
    );
    const created = answers.filter((answer) => answer.status === 201);
    assert.equal(created.length, 10);
    for (const answer of answers.filter((answer) => answer.status !== 201)) {
      const error = expectError(answer, 400, "EVENT_FULL", null);
      assert.deepEqual(error.details, { ticketType: "Workshop", capacity: 10, activeRegistrations: 10 });
    }
    const listed = expectStatus(await client.get(`/attendees?eventId=${event.id}&ticketType=Workshop&limit=100`), 200);
    assert.equal(listed.pagination.total, 10);
    // The event has room for other types; the workshop's capacity cannot drop below its 10.
    assert.equal((await register(client, event.id, { ticketType: "General" })).status, "confirmed");
    const smaller = TYPES.map((type) => (type.name === "Workshop" ? { ...type, capacity: 9 } : type));
    expectError(
      await client.put(`/events/${event.id}`, { ticketTypes: smaller }),
      400,
      "INVALID_REQUEST",
      "ticketTypes",
    );
    const without = TYPES.filter((type) => type.name !== "Workshop");
    const held = expectError(
      await client.put(`/events/${event.id}`, { ticketTypes: without }),
      400,
      "INVALID_REQUEST",
      "ticketTypes",
    );
    assert.deepEqual(held.details, { ticketType: "Workshop", activeRegistrations: 10, waitlisted: 0 });
    const fewer = expectStatus(await client.put(`/events/${event.id}`, { ticketTypes: TYPES.slice(0, 2) }), 200);
    assert.deepEqual(
      fewer.ticketTypes.map((type: { name: string }) => type.name),
      ["General", "Workshop"],
    );
  });
});
