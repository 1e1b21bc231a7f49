/**
 * End-to-end: the events interface (create, read, update, delete, list) and the carbon
 * figures events carry, against the real server.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startServer, type TestServer } from "./_setup.ts";
import { attendeeInput, eventInput } from "./fixtures/builders.ts";
import {
  byId,
  type Client,
  clientFor,
  createEvent,
  expectError,
  expectStatus,
  ids,
  ISO_UTC,
  moveAttendee,
  moveEvent,
  PREFIXES,
  register,
} from "./fixtures/api.ts";

let server: TestServer;
let v1: Client;

/** A client of a new account, so that lists see only what the test made. */
async function newAccount(name: string, prefix: "/v1" | "/api" = "/v1"): Promise<Client> {
  const { key } = await server.createKey({ account: name });
  return clientFor(server, key, prefix);
}

before(async () => {
  server = await startServer();
  v1 = await newAccount("Events Inc");
});

after(async () => {
  const output = server.output();
  assert.equal(await server.stop("SIGTERM"), 0, "the server exits 0 on SIGTERM");
  assert.doesNotMatch(output, /"msg":"unexpected error"/, "no request failed unexpectedly");
});

describe("create", () => {
  test("a minimal event comes back whole: draft, every optional field null or empty, stats zero", async () => {
    const input = eventInput();
    const response = await v1.post("/events", input);
    const event = expectStatus(response, 201);
    assert.equal(response.headers.get("x-content-type-options"), "nosniff");
    assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
    assert.match(event.id, /^\S+$/);
    assert.match(event.createdAt, ISO_UTC);
    assert.equal(event.updatedAt, event.createdAt);
    assert.deepEqual(event, {
      id: event.id,
      name: input.name,
      description: "A conference on sustainable events",
      location: {
        address: "Alexanderplatz 1",
        city: "Berlin",
        state: null,
        country: "DE",
        zipCode: null,
        coordinates: null,
      },
      startDate: "2038-05-01T09:00:00.000Z",
      endDate: "2038-05-01T17:00:00.000Z",
      capacity: 100,
      category: "conference",
      sustainabilityGoals: {},
      tags: [],
      status: "draft",
      waitlistEnabled: false,
      ticketTypes: [],
      refundPolicy: "full",
      timeZone: null,
      createdAt: event.createdAt,
      updatedAt: event.createdAt,
      attendeeCount: 0,
      carbonFootprint: 0,
      sustainabilityScore: 0,
      waitlistCount: 0,
    });
    assert.deepEqual(expectStatus(await v1.get(`/events/${event.id}`), 200), event);
  });

  test("a full event: offsets normalised to UTC, tags trimmed, lower-cased and de-duplicated, goals scored", async () => {
    const event = await createEvent(v1, {
      description: undefined,
      location: {
        address: "1 Market St",
        city: "San Francisco",
        state: "CA",
        country: "US",
        zipCode: "94105",
        coordinates: { lat: 37.7937, lng: -122.3965 },
      },
      startDate: "2038-05-01T09:00:00+02:00",
      endDate: "2038-05-02T18:30:00-07:00",
      capacity: 1_000_000,
      category: "festival",
      sustainabilityGoals: { carbonNeutral: true, wasteReduction: 40, localSourcing: false, renewableEnergy: true },
      tags: [" Climate ", "climate", "ENERGY", "energy ", "food"],
    });
    assert.equal(event.description, null);
    assert.deepEqual(event.location, {
      address: "1 Market St",
      city: "San Francisco",
      state: "CA",
      country: "US",
      zipCode: "94105",
      coordinates: { lat: 37.7937, lng: -122.3965 },
    });
    assert.equal(event.startDate, "2038-05-01T07:00:00.000Z");
    assert.equal(event.endDate, "2038-05-03T01:30:00.000Z");
    assert.equal(event.capacity, 1_000_000);
    assert.deepEqual(event.sustainabilityGoals, {
      carbonNeutral: true,
      wasteReduction: 40,
      localSourcing: false,
      renewableEnergy: true,
    });
    assert.deepEqual(event.tags, ["climate", "energy", "food"]);
    // carbonNeutral 15 + renewableEnergy 15 + wasteReduction 15 x 40 / 100 = 6: 36.
    assert.equal(event.sustainabilityScore, 36);
    assert.deepEqual(expectStatus(await v1.get(`/events/${event.id}`), 200), event);
  });

  test("boundary values are accepted: capacity 1, lat/lng at their limits, wasteReduction 0 and 100, endDate equal to startDate, 20 tags", async () => {
    const one = await createEvent(v1, {
      capacity: 1,
      location: { address: "Pole", city: "Nowhere", country: "AQ", coordinates: { lat: -90, lng: 180 } },
      sustainabilityGoals: { wasteReduction: 100 },
      startDate: "2038-01-01T00:00:00Z",
      endDate: "2038-01-01T00:00:00Z",
    });
    assert.equal(one.capacity, 1);
    assert.deepEqual(one.location.coordinates, { lat: -90, lng: 180 });
    assert.equal(one.sustainabilityScore, 15);
    const two = await createEvent(v1, {
      location: { address: "Pole", city: "Nowhere", country: "NO", coordinates: { lat: 90, lng: -180 } },
      sustainabilityGoals: { wasteReduction: 0 },
    });
    assert.deepEqual(two.location.coordinates, { lat: 90, lng: -180 });
    const tags = Array.from({ length: 20 }, (_, i) => `tag${i}`);
    assert.deepEqual((await createEvent(v1, { tags })).tags, tags);
    assert.equal(two.sustainabilityScore, 0);
  });

  const invalid: Array<[string, Record<string, unknown>, string]> = [
    ["missing name", { name: undefined }, "name"],
    ["blank name", { name: "   " }, "name"],
    ["missing location", { location: undefined }, "location"],
    ["missing location.address", { location: { city: "Berlin", country: "DE" } }, "location.address"],
    ["missing location.city", { location: { address: "A 1", country: "DE" } }, "location.city"],
    ["missing location.country", { location: { address: "A 1", city: "Berlin" } }, "location.country"],
    ["country XX (unassigned)", { location: { address: "A 1", city: "Berlin", country: "XX" } }, "location.country"],
    ["country de (lower case)", { location: { address: "A 1", city: "Berlin", country: "de" } }, "location.country"],
    ["country DEU (alpha-3)", { location: { address: "A 1", city: "Berlin", country: "DEU" } }, "location.country"],
    [
      "lat 90.5",
      { location: { address: "A 1", city: "Berlin", country: "DE", coordinates: { lat: 90.5, lng: 0 } } },
      "location.coordinates.lat",
    ],
    [
      "lat -91",
      { location: { address: "A 1", city: "Berlin", country: "DE", coordinates: { lat: -91, lng: 0 } } },
      "location.coordinates.lat",
    ],
    [
      "lng 180.1",
      { location: { address: "A 1", city: "Berlin", country: "DE", coordinates: { lat: 0, lng: 180.1 } } },
      "location.coordinates.lng",
    ],
    [
      "lng -181",
      { location: { address: "A 1", city: "Berlin", country: "DE", coordinates: { lat: 0, lng: -181 } } },
      "location.coordinates.lng",
    ],
    ["missing startDate", { startDate: undefined }, "startDate"],
    ["missing endDate", { endDate: undefined }, "endDate"],
    ["startDate not a date", { startDate: "next monday" }, "startDate"],
    ["startDate without a zone", { startDate: "2038-05-01T09:00:00" }, "startDate"],
    ["endDate before startDate", { startDate: "2038-05-01T09:00:00Z", endDate: "2038-05-01T08:59:59Z" }, "endDate"],
    [
      "endDate before startDate across offsets",
      { startDate: "2038-05-01T09:00:00Z", endDate: "2038-05-01T10:00:00+02:00" },
      "endDate",
    ],
    ["missing capacity", { capacity: undefined }, "capacity"],
    ["capacity 0", { capacity: 0 }, "capacity"],
    ["capacity -5", { capacity: -5 }, "capacity"],
    ["capacity 2.5", { capacity: 2.5 }, "capacity"],
    ["capacity 1000001", { capacity: 1_000_001 }, "capacity"],
    ["capacity as a string", { capacity: "100" }, "capacity"],
    ["missing category", { category: undefined }, "category"],
    ["wasteReduction 101", { sustainabilityGoals: { wasteReduction: 101 } }, "sustainabilityGoals.wasteReduction"],
    ["wasteReduction -1", { sustainabilityGoals: { wasteReduction: -1 } }, "sustainabilityGoals.wasteReduction"],
    [
      "carbonNeutral not a boolean",
      { sustainabilityGoals: { carbonNeutral: "yes" } },
      "sustainabilityGoals.carbonNeutral",
    ],
    ["21 tags", { tags: Array.from({ length: 21 }, (_, i) => `tag${i}`) }, "tags"],
    ["tags not an array", { tags: "a,b" }, "tags"],
    ["status on create", { status: "draft" }, "status"],
    ["status published on create", { status: "published" }, "status"],
    ["an unknown field", { organizer: "me" }, "organizer"],
    [
      "an unknown location field",
      { location: { address: "A 1", city: "Berlin", country: "DE", planet: "Earth" } },
      "location.planet",
    ],
  ];
  for (const [name, overrides, field] of invalid) {
    test(`400 INVALID_REQUEST for ${name} (field ${field})`, async () => {
      const error = expectError(await v1.post("/events", eventInput(overrides)), 400, "INVALID_REQUEST", field);
      assert.ok(Array.isArray(error.details?.issues) && error.details.issues.length >= 1, JSON.stringify(error));
      assert.equal(error.details.issues[0].path, field);
      assert.equal(typeof error.details.issues[0].message, "string");
    });
  }

  test("the 400 for unknown fields names each of them", async () => {
    const error = expectError(
      await v1.post("/events", eventInput({ organizer: "me", budget: 5 })),
      400,
      "INVALID_REQUEST",
    );
    const text = JSON.stringify(error);
    assert.ok(text.includes("organizer") && text.includes("budget"), text);
  });

  test("all issues are listed; field is the first one's path", async () => {
    const error = expectError(
      await v1.post(
        "/events",
        eventInput({ name: "", capacity: 0, location: { address: "A", city: "B", country: "de" } }),
      ),
      400,
      "INVALID_REQUEST",
    );
    const paths = error.details.issues.map((issue: { path: string }) => issue.path).sort();
    assert.deepEqual(paths, ["capacity", "location.country", "name"]);
    assert.equal(error.field, error.details.issues[0].path);
  });

  test("nothing is created by a rejected request", async () => {
    const client = await newAccount("Rejected Creates");
    expectError(await client.post("/events", eventInput({ capacity: 0 })), 400, "INVALID_REQUEST", "capacity");
    const list = expectStatus(await client.get("/events"), 200);
    assert.equal(list.pagination.total, 0);
  });
});

describe("timeZone", () => {
  test("an IANA name is kept in its own spelling, returned everywhere, changed and cleared by PUT", async () => {
    const client = await newAccount("Zones Ltd");
    const event = await createEvent(client, { timeZone: "Europe/Berlin" });
    assert.equal(event.timeZone, "Europe/Berlin");
    assert.equal(expectStatus(await client.get(`/events/${event.id}`), 200).timeZone, "Europe/Berlin");
    assert.deepEqual(
      expectStatus(await client.get("/events"), 200).events.map((e: any) => e.timeZone),
      ["Europe/Berlin"],
    );
    // The API's date-times stay UTC.
    assert.equal(event.startDate, "2038-05-01T09:00:00.000Z");
    assert.equal((await createEvent(client, { timeZone: "america/new_york" })).timeZone, "America/New_York");
    assert.equal((await createEvent(client, { timeZone: "UTC" })).timeZone, "UTC");
    assert.equal((await createEvent(client, { timeZone: null })).timeZone, null);

    const moved = expectStatus(await client.put(`/events/${event.id}`, { timeZone: "Asia/Tokyo" }), 200);
    assert.equal(moved.timeZone, "Asia/Tokyo");
    assert.equal(expectStatus(await client.put(`/events/${event.id}`, { capacity: 7 }), 200).timeZone, "Asia/Tokyo");
    const cleared = expectStatus(await client.put(`/events/${event.id}`, { timeZone: null }), 200);
    assert.equal(cleared.timeZone, null);
    assert.equal(expectStatus(await client.get(`/events/${event.id}`), 200).timeZone, null);
  });

  test("anything but an IANA name the runtime knows is 400 naming timeZone and saying what to type", async () => {
    const event = await createEvent(v1, { timeZone: "Europe/Paris" });
    for (const timeZone of [
      "Berlin",
      "Europe/Atlantis",
      "+02:00",
      "CEST",
      "",
      " Europe/Berlin",
      "x".repeat(300),
      2,
      {},
    ]) {
      for (const response of [
        await v1.post("/events", eventInput({ timeZone })),
        await v1.put(`/events/${event.id}`, { timeZone }),
      ]) {
        const error = expectError(response, 400, "INVALID_REQUEST", "timeZone");
        if (typeof timeZone === "string")
          assert.match(error.message, /^timeZone: .*IANA time zone name such as Europe\/Berlin/);
      }
    }
    assert.equal(expectStatus(await v1.get(`/events/${event.id}`), 200).timeZone, "Europe/Paris");
  });

  test("the printable report shows the event's times in its zone; without one, in UTC, labelled", async () => {
    const client = await newAccount("Zoned Reports");
    const html = async (id: string) => {
      const response = await fetch(`${server.url}/v1/events/${id}/sustainability-report`, {
        headers: { authorization: `Bearer ${client.key}`, accept: "text/html" },
      });
      assert.equal(response.status, 200);
      return response.text();
    };
    const berlin = await createEvent(client, {
      startDate: "2038-05-01T09:00:00+02:00",
      endDate: "2038-05-01T17:30:00+02:00",
      timeZone: "Europe/Berlin",
    });
    assert.match(await html(berlin.id), /<dd>1 May 2038, 09:00 CEST to 1 May 2038, 17:30 CEST<\/dd>/);
    const report = expectStatus(await client.get(`/events/${berlin.id}/sustainability-report`), 200);
    assert.deepEqual([report.event.startDate, report.event.timeZone], ["2038-05-01T07:00:00.000Z", "Europe/Berlin"]);
    const winter = await createEvent(client, {
      startDate: "2038-12-01T09:00:00+01:00",
      endDate: "2038-12-01T18:00:00+01:00",
      timeZone: "Europe/Berlin",
    });
    assert.match(await html(winter.id), /<dd>1 Dec 2038, 09:00 CET to 1 Dec 2038, 18:00 CET<\/dd>/);
    const utc = await createEvent(client, {
      startDate: "2038-05-01T09:00:00+02:00",
      endDate: "2038-05-01T17:30:00+02:00",
    });
    assert.match(await html(utc.id), /<dd>1 May 2038, 07:00 UTC to 1 May 2038, 15:30 UTC<\/dd>/);
  });
});

describe("read", () => {
  test("GET an unknown id: 404 NOT_FOUND under both prefixes", async () => {
    for (const prefix of PREFIXES) {
      expectError(await server.request("GET", `${prefix}/events/evt_doesnotexist`, { key: v1.key }), 404, "NOT_FOUND");
    }
  });

  test("the same event is served identically under /v1 and /api", async () => {
    const event = await createEvent(v1);
    const viaApi = clientFor(server, v1.key, "/api");
    assert.deepEqual(
      expectStatus(await viaApi.get(`/events/${event.id}`), 200),
      expectStatus(await v1.get(`/events/${event.id}`), 200),
    );
  });
});

describe("update", () => {
  test("PUT is partial: only the supplied fields change and updatedAt moves", async () => {
    const event = await createEvent(v1, { tags: ["one"], sustainabilityGoals: { renewableEnergy: true } });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const updated = expectStatus(await v1.put(`/events/${event.id}`, { name: "Renamed Summit", capacity: 250 }), 200);
    assert.deepEqual(updated, { ...event, name: "Renamed Summit", capacity: 250, updatedAt: updated.updatedAt });
    assert.match(updated.updatedAt, ISO_UTC);
    assert.ok(updated.updatedAt > event.updatedAt, `${updated.updatedAt} after ${event.updatedAt}`);
    assert.equal(updated.createdAt, event.createdAt);
    assert.deepEqual(expectStatus(await v1.get(`/events/${event.id}`), 200), updated);
  });

  test("PUT through /api with offsets and tags normalises like create", async () => {
    const viaApi = clientFor(server, v1.key, "/api");
    const event = await createEvent(viaApi);
    const updated = expectStatus(
      await viaApi.put(`/events/${event.id}`, {
        startDate: "2038-05-01T10:00:00+01:00",
        endDate: "2038-05-01T20:00:00+01:00",
        tags: ["B", "a", "b "],
      }),
      200,
    );
    assert.equal(updated.startDate, "2038-05-01T09:00:00.000Z");
    assert.equal(updated.endDate, "2038-05-01T19:00:00.000Z");
    assert.deepEqual(updated.tags, ["b", "a"]);
  });

  test("location and sustainabilityGoals are replaced whole", async () => {
    const event = await createEvent(v1, {
      location: {
        address: "Main 1",
        city: "Vienna",
        state: "Wien",
        country: "AT",
        zipCode: "1010",
        coordinates: { lat: 48.2, lng: 16.37 },
      },
      sustainabilityGoals: { carbonNeutral: true, wasteReduction: 50 },
    });
    assert.equal(event.sustainabilityScore, 22.5);
    const updated = expectStatus(
      await v1.put(`/events/${event.id}`, {
        location: { address: "Ring 2", city: "Graz", country: "AT" },
        sustainabilityGoals: { localSourcing: true },
      }),
      200,
    );
    assert.deepEqual(updated.location, {
      address: "Ring 2",
      city: "Graz",
      state: null,
      country: "AT",
      zipCode: null,
      coordinates: null,
    });
    assert.deepEqual(updated.sustainabilityGoals, { localSourcing: true });
    assert.equal(updated.sustainabilityScore, 15);
  });

  test("a partial location is validated whole: 400 naming the missing field", async () => {
    const event = await createEvent(v1);
    expectError(
      await v1.put(`/events/${event.id}`, { location: { city: "Paris" } }),
      400,
      "INVALID_REQUEST",
      "location.address",
    );
    expectError(
      await v1.put(`/events/${event.id}`, { location: { address: "Rue 1", city: "Paris", country: "FRA" } }),
      400,
      "INVALID_REQUEST",
      "location.country",
    );
    expectError(
      await v1.put(`/events/${event.id}`, { sustainabilityGoals: { wasteReduction: 150 } }),
      400,
      "INVALID_REQUEST",
      "sustainabilityGoals.wasteReduction",
    );
    assert.deepEqual(expectStatus(await v1.get(`/events/${event.id}`), 200).location, event.location);
  });

  test("null clears optional fields; required fields cannot be null", async () => {
    const event = await createEvent(v1, { tags: ["x"], sustainabilityGoals: { carbonNeutral: true } });
    const cleared = expectStatus(
      await v1.put(`/events/${event.id}`, { description: null, tags: null, sustainabilityGoals: null }),
      200,
    );
    assert.equal(cleared.description, null);
    assert.deepEqual(cleared.tags, []);
    assert.deepEqual(cleared.sustainabilityGoals, {});
    assert.equal(cleared.sustainabilityScore, 0);
    for (const field of ["name", "location", "startDate", "endDate", "capacity", "category"]) {
      expectError(await v1.put(`/events/${event.id}`, { [field]: null }), 400, "INVALID_REQUEST", field);
    }
  });

  test("the merged dates are checked: 400 on the field that makes the event end before it starts", async () => {
    const event = await createEvent(v1, { startDate: "2038-05-01T09:00:00Z", endDate: "2038-05-01T17:00:00Z" });
    expectError(
      await v1.put(`/events/${event.id}`, { startDate: "2038-05-01T17:00:01Z" }),
      400,
      "INVALID_REQUEST",
      "startDate",
    );
    expectError(
      await v1.put(`/events/${event.id}`, { endDate: "2038-05-01T08:59:59Z" }),
      400,
      "INVALID_REQUEST",
      "endDate",
    );
    expectError(
      await v1.put(`/events/${event.id}`, { startDate: "2038-06-02T00:00:00Z", endDate: "2038-06-01T00:00:00Z" }),
      400,
      "INVALID_REQUEST",
      "endDate",
    );
    const moved = expectStatus(
      await v1.put(`/events/${event.id}`, { startDate: "2038-06-01T09:00:00Z", endDate: "2038-06-01T17:00:00Z" }),
      200,
    );
    assert.equal(moved.startDate, "2038-06-01T09:00:00.000Z");
    assert.equal(moved.endDate, "2038-06-01T17:00:00.000Z");
    const same = expectStatus(await v1.put(`/events/${event.id}`, { endDate: "2038-06-01T09:00:00Z" }), 200);
    assert.equal(same.endDate, same.startDate);
  });

  test("capacity may not drop below the active registrations (400 field capacity); cancelled ones do not count", async () => {
    const event = await createEvent(v1, { capacity: 10 });
    const [first] = [await register(v1, event.id), await register(v1, event.id), await register(v1, event.id)];
    const pending = await register(v1, event.id);
    await moveAttendee(v1, pending.id, "pending");
    const error = expectError(await v1.put(`/events/${event.id}`, { capacity: 3 }), 400, "INVALID_REQUEST", "capacity");
    assert.match(error.message, /4/);
    assert.equal(expectStatus(await v1.get(`/events/${event.id}`), 200).capacity, 10);
    assert.equal(expectStatus(await v1.put(`/events/${event.id}`, { capacity: 4 }), 200).capacity, 4);
    await moveAttendee(v1, first.id, "cancelled");
    const lowered = expectStatus(await v1.put(`/events/${event.id}`, { capacity: 3 }), 200);
    assert.equal(lowered.capacity, 3);
    assert.equal(lowered.attendeeCount, 3);
  });

  test("invalid updates: unknown field, bad status value, bad types", async () => {
    const event = await createEvent(v1);
    expectError(await v1.put(`/events/${event.id}`, { venue: "x" }), 400, "INVALID_REQUEST", "venue");
    expectError(await v1.put(`/events/${event.id}`, { status: "archived" }), 400, "INVALID_REQUEST", "status");
    expectError(await v1.put(`/events/${event.id}`, { capacity: 0 }), 400, "INVALID_REQUEST", "capacity");
    expectError(
      await v1.put(`/events/${event.id}`, { tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }),
      400,
      "INVALID_REQUEST",
      "tags",
    );
    expectError(await v1.put(`/events/${event.id}`, { id: "evt_other" }), 400, "INVALID_REQUEST", "id");
    assert.deepEqual(expectStatus(await v1.get(`/events/${event.id}`), 200), event);
  });

  test("PUT an unknown event: 404 NOT_FOUND", async () => {
    expectError(await v1.put("/events/evt_doesnotexist", { name: "x" }), 404, "NOT_FOUND");
  });

  const ALLOWED: Record<string, string[]> = {
    draft: ["draft", "published", "cancelled"],
    published: ["published", "completed", "cancelled"],
    cancelled: ["cancelled"],
    completed: ["completed"],
  };
  const PATH_TO: Record<string, string[]> = {
    draft: [],
    published: ["published"],
    cancelled: ["cancelled"],
    completed: ["published", "completed"],
  };
  for (const from of Object.keys(ALLOWED)) {
    for (const to of Object.keys(ALLOWED)) {
      const allowed = ALLOWED[from]!.includes(to);
      test(`status ${from} -> ${to}: ${allowed ? (from === to ? "200 no-op" : "200") : "422 INVALID_STATE_TRANSITION"}`, async () => {
        const event = await createEvent(v1);
        const current = PATH_TO[from]!.length ? await moveEvent(v1, event.id, ...PATH_TO[from]!) : event;
        assert.equal(current.status, from);
        const response = await v1.put(`/events/${event.id}`, { status: to });
        if (allowed) {
          assert.equal(expectStatus(response, 200).status, to);
        } else {
          expectError(response, 422, "INVALID_STATE_TRANSITION", "status");
          const stored = expectStatus(await v1.get(`/events/${event.id}`), 200);
          assert.equal(stored.status, from);
          assert.equal(stored.updatedAt, current.updatedAt);
        }
      });
    }
  }

  test("status rules through /api: 200 for an allowed change, 422 for a forbidden one", async () => {
    const viaApi = clientFor(server, v1.key, "/api");
    const event = await createEvent(viaApi);
    expectError(
      await viaApi.put(`/events/${event.id}`, { status: "completed" }),
      422,
      "INVALID_STATE_TRANSITION",
      "status",
    );
    assert.equal((await moveEvent(viaApi, event.id, "published", "published", "completed")).status, "completed");
    expectError(
      await viaApi.put(`/events/${event.id}`, { status: "published" }),
      422,
      "INVALID_STATE_TRANSITION",
      "status",
    );
  });

  test("registrations racing the event's cancellation: each 201 ends cancelled, the rest 400 naming eventId; none holds a place", async () => {
    const client = await newAccount(`Called off ${Date.now()}`);
    const event = await createEvent(client, { capacity: 10, waitlistEnabled: true });
    await moveEvent(client, event.id, "published");
    // The cancellation is sent among them: those before it are likely in first, those after it refused.
    const register = (i: number) =>
      client.post("/attendees", attendeeInput(event.id, { email: `racer${i}@example.com` }));
    const registering = Array.from({ length: 10 }, (_, i) => register(i));
    const cancelling = client.put(`/events/${event.id}`, { status: "cancelled" });
    registering.push(...Array.from({ length: 10 }, (_, i) => register(10 + i)));
    const answers = await Promise.all(registering);
    expectStatus(await cancelling, 200);
    for (const answer of answers.filter((a) => a.status !== 201))
      expectError(answer, 400, "INVALID_REQUEST", "eventId");
    const made = answers.filter((a) => a.status === 201).map((a) => a.body.id);
    const { attendees } = expectStatus(await client.get(`/attendees?eventId=${event.id}&limit=100`), 200);
    assert.deepEqual(ids(attendees).sort(), made.sort());
    assert.deepEqual(
      attendees.filter((a: { status: string }) => a.status !== "cancelled"),
      [],
    );
    const cancelled = expectStatus(await client.get(`/events/${event.id}`), 200);
    assert.deepEqual([cancelled.status, cancelled.attendeeCount, cancelled.waitlistCount], ["cancelled", 0, 0]);
  });

  test("a forbidden status change rejects the whole update", async () => {
    const event = await createEvent(v1);
    await moveEvent(v1, event.id, "cancelled");
    expectError(
      await v1.put(`/events/${event.id}`, { status: "published", name: "Revived" }),
      422,
      "INVALID_STATE_TRANSITION",
    );
    assert.equal(expectStatus(await v1.get(`/events/${event.id}`), 200).name, event.name);
  });
});

describe("delete", () => {
  for (const prefix of PREFIXES) {
    test(`DELETE ${prefix}/events/:id removes the event and its registrations`, async () => {
      const client = clientFor(server, v1.key, prefix);
      const event = await createEvent(client);
      const kept = await createEvent(client);
      const attendees = [await register(client, event.id), await register(client, event.id)];
      const other = await register(client, kept.id);
      const response = await client.delete(`/events/${event.id}`);
      const body = expectStatus(response, 200);
      assert.deepEqual(Object.keys(body).sort(), ["deletedId", "message", "success"]);
      assert.equal(body.success, true);
      assert.equal(body.deletedId, event.id);
      assert.equal(typeof body.message, "string");
      assert.ok(body.message.length > 0);
      expectError(await client.get(`/events/${event.id}`), 404, "NOT_FOUND");
      for (const attendee of attendees) {
        expectError(await client.get(`/attendees/${attendee.id}`), 404, "NOT_FOUND");
        expectError(await server.request("GET", `/v1/qr/${attendee.id}.png`), 404, "NOT_FOUND");
      }
      const list = expectStatus(await client.get(`/attendees?eventId=${event.id}`), 200);
      assert.deepEqual(list.attendees, []);
      assert.equal(list.pagination.total, 0);
      expectError(await client.delete(`/events/${event.id}`), 404, "NOT_FOUND");
      expectError(await client.put(`/events/${event.id}`, { name: "Ghost" }), 404, "NOT_FOUND");
      expectError(await client.post("/attendees", attendeeInput(event.id)), 404, "NOT_FOUND", "eventId");
      // The other event and its registration are untouched.
      assert.equal(expectStatus(await client.get(`/events/${kept.id}`), 200).attendeeCount, 1);
      assert.equal(expectStatus(await client.get(`/attendees/${other.id}`), 200).id, other.id);
    });
  }

  test("DELETE an unknown event: 404 NOT_FOUND", async () => {
    expectError(await v1.delete("/events/evt_doesnotexist"), 404, "NOT_FOUND");
  });
});

describe("list", () => {
  let client: Client;
  const made: Record<string, any> = {};

  before(async () => {
    client = await newAccount("List Co");
    made.alpha = await createEvent(client, {
      name: "Alpha Summit",
      description: "Solar energy talks",
      category: "conference",
      tags: ["climate", "energy"],
      startDate: "2038-03-01T09:00:00Z",
      endDate: "2038-03-01T17:00:00Z",
      capacity: 50,
    });
    made.beta = await createEvent(client, {
      name: "beta Workshop",
      description: "Hands-on repair café",
      category: "workshop",
      tags: ["repair"],
      startDate: "2038-04-10T09:00:00Z",
      endDate: "2038-04-11T17:00:00Z",
      capacity: 20,
    });
    made.gamma = await createEvent(client, {
      name: "Gamma Festival",
      description: null,
      category: "festival",
      tags: ["music", "energy"],
      startDate: "2038-06-01T12:00:00Z",
      endDate: "2038-06-03T23:00:00Z",
      capacity: 5000,
    });
    made.delta = await createEvent(client, {
      name: "Delta Meetup",
      description: "100% local food",
      category: "meetup",
      tags: [],
      startDate: "2038-05-01T18:00:00Z",
      endDate: "2038-05-01T21:00:00Z",
      capacity: 20,
    });
    made.epsilon = await createEvent(client, {
      name: "epsilon conference",
      description: "On zero waste",
      category: "Conference",
      tags: ["waste"],
      startDate: "2038-05-01T09:00:00Z",
      endDate: "2038-05-02T10:00:00Z",
      capacity: 50,
    });
    made.beta = await moveEvent(client, made.beta.id, "published");
    made.gamma = await moveEvent(client, made.gamma.id, "cancelled");
    made.delta = await moveEvent(client, made.delta.id, "published", "completed");
  });

  const names = (events: Array<{ id: string }>) =>
    events.map((event) => Object.keys(made).find((name) => made[name].id === event.id) ?? event.id);

  async function listNames(query: string): Promise<string[]> {
    const body = expectStatus(await client.get(`/events${query}`), 200);
    assert.equal(body.pagination.total, body.events.length, "all on one page");
    return names(body.events);
  }

  test("the default list: createdAt descending (ties by id), full items, default pagination", async () => {
    const body = expectStatus(await client.get("/events"), 200);
    assert.deepEqual(Object.keys(body).sort(), ["events", "pagination"]);
    assert.deepEqual(body.pagination, { page: 1, limit: 20, total: 5, totalPages: 1, hasNext: false, hasPrev: false });
    const expected = Object.values(made).sort((a, b) =>
      a.createdAt === b.createdAt ? byId(b, a) : a.createdAt < b.createdAt ? 1 : -1,
    );
    assert.deepEqual(ids(body.events), ids(expected));
    for (const item of body.events) assert.deepEqual(item, expectStatus(await client.get(`/events/${item.id}`), 200));
  });

  test("the same list under /api", async () => {
    const viaApi = clientFor(server, client.key, "/api");
    assert.deepEqual(
      expectStatus(await viaApi.get("/events?sortBy=name&order=asc"), 200),
      expectStatus(await client.get("/events?sortBy=name&order=asc"), 200),
    );
  });

  test("filter by status", async () => {
    assert.deepEqual(await listNames("?status=published"), ["beta"]);
    assert.deepEqual(await listNames("?status=cancelled"), ["gamma"]);
    assert.deepEqual(await listNames("?status=completed"), ["delta"]);
    assert.deepEqual((await listNames("?status=draft")).sort(), ["alpha", "epsilon"]);
  });

  test("filter by category is exact", async () => {
    assert.deepEqual(await listNames("?category=conference"), ["alpha"]);
    assert.deepEqual(await listNames("?category=Conference"), ["epsilon"]);
    assert.deepEqual(await listNames("?category=conf"), []);
  });

  test("startDate keeps events starting at or after it (a bare date is the start of that day)", async () => {
    const order = "&sortBy=startDate&order=asc";
    assert.deepEqual(await listNames(`?startDate=2038-05-01T09:00:00Z${order}`), ["epsilon", "delta", "gamma"]);
    assert.deepEqual(await listNames(`?startDate=2038-05-01T09:00:00.001Z${order}`), ["delta", "gamma"]);
    assert.deepEqual(await listNames(`?startDate=2038-05-01${order}`), ["epsilon", "delta", "gamma"]);
    assert.deepEqual(await listNames(`?startDate=${encodeURIComponent("2038-05-01T11:00:00+02:00")}${order}`), [
      "epsilon",
      "delta",
      "gamma",
    ]);
  });

  test("endDate keeps events ending at or before it (a bare date is the end of that day)", async () => {
    const order = "&sortBy=startDate&order=asc";
    assert.deepEqual(await listNames(`?endDate=2038-05-01T21:00:00Z${order}`), ["alpha", "beta", "delta"]);
    assert.deepEqual(await listNames(`?endDate=2038-05-01T20:59:59Z${order}`), ["alpha", "beta"]);
    assert.deepEqual(await listNames(`?endDate=2038-05-01${order}`), ["alpha", "beta", "delta"]);
    assert.deepEqual(await listNames(`?endDate=2038-04-30${order}`), ["alpha", "beta"]);
    assert.deepEqual(await listNames(`?endDate=${encodeURIComponent("2038-05-01T23:00:00+02:00")}${order}`), [
      "alpha",
      "beta",
      "delta",
    ]);
    assert.deepEqual(await listNames(`?startDate=2038-04-01&endDate=2038-05-02T10:00:00Z${order}`), [
      "beta",
      "epsilon",
      "delta",
    ]);
  });

  test("search matches name or description, case-insensitively, as a literal substring", async () => {
    assert.deepEqual(await listNames("?search=SUMMIT"), ["alpha"]);
    assert.deepEqual(await listNames("?search=solar%20ENERGY"), ["alpha"]);
    assert.deepEqual(await listNames("?search=conference"), ["epsilon"]);
    assert.deepEqual(await listNames("?search=CAF%C3%A9"), ["beta"]);
    assert.deepEqual(await listNames(`?search=${encodeURIComponent("100%")}`), ["delta"]);
    assert.deepEqual(await listNames(`?search=${encodeURIComponent("%")}`), ["delta"]);
    assert.deepEqual(await listNames("?search=_"), []);
    assert.deepEqual(await listNames("?search=nothing-like-this"), []);
  });

  test("tags=a,b matches events having any of them", async () => {
    assert.deepEqual((await listNames("?tags=energy")).sort(), ["alpha", "gamma"]);
    assert.deepEqual((await listNames("?tags=repair,waste")).sort(), ["beta", "epsilon"]);
    assert.deepEqual((await listNames("?tags=music,energy,climate")).sort(), ["alpha", "gamma"]);
    assert.deepEqual(await listNames("?tags=unknown"), []);
  });

  test("filters combine", async () => {
    assert.deepEqual(await listNames("?status=draft&tags=energy"), ["alpha"]);
    assert.deepEqual(await listNames("?status=published&search=summit"), []);
    assert.deepEqual(await listNames("?category=festival&status=cancelled&tags=music&search=gamma"), ["gamma"]);
  });

  test("sortBy name, startDate, capacity, createdAt in both orders; ties broken by id", async () => {
    assert.deepEqual(await listNames("?sortBy=name&order=asc"), ["alpha", "beta", "delta", "epsilon", "gamma"]);
    assert.deepEqual(await listNames("?sortBy=name&order=desc"), ["gamma", "epsilon", "delta", "beta", "alpha"]);
    assert.deepEqual(await listNames("?sortBy=name"), ["gamma", "epsilon", "delta", "beta", "alpha"]);
    assert.deepEqual(await listNames("?sortBy=startDate&order=asc"), ["alpha", "beta", "epsilon", "delta", "gamma"]);
    assert.deepEqual(await listNames("?sortBy=startDate&order=desc"), ["gamma", "delta", "epsilon", "beta", "alpha"]);
    const twenty = [made.beta, made.delta].sort(byId);
    const fifty = [made.alpha, made.epsilon].sort(byId);
    assert.deepEqual(await listNames("?sortBy=capacity&order=asc"), names([...twenty, ...fifty, made.gamma]));
    assert.deepEqual(
      await listNames("?sortBy=capacity&order=desc"),
      names([made.gamma, ...fifty.reverse(), ...twenty.reverse()]),
    );
    const byCreation = Object.values(made).sort((a, b) =>
      a.createdAt === b.createdAt ? byId(a, b) : a.createdAt < b.createdAt ? -1 : 1,
    );
    assert.deepEqual(await listNames("?sortBy=createdAt&order=asc"), names(byCreation));
  });

  test("pagination with limit, its alias perPage, and a page past the end", async () => {
    const all = expectStatus(await client.get("/events?sortBy=name&order=asc"), 200).events;
    const page1 = expectStatus(await client.get("/events?sortBy=name&order=asc&limit=2"), 200);
    assert.deepEqual(page1.pagination, { page: 1, limit: 2, total: 5, totalPages: 3, hasNext: true, hasPrev: false });
    const page2 = expectStatus(await client.get("/events?sortBy=name&order=asc&limit=2&page=2"), 200);
    assert.deepEqual(page2.pagination, { page: 2, limit: 2, total: 5, totalPages: 3, hasNext: true, hasPrev: true });
    const page3 = expectStatus(await client.get("/events?sortBy=name&order=asc&perPage=2&page=3"), 200);
    assert.deepEqual(page3.pagination, { page: 3, limit: 2, total: 5, totalPages: 3, hasNext: false, hasPrev: true });
    assert.deepEqual(ids([...page1.events, ...page2.events, ...page3.events]), ids(all));
    const past = expectStatus(await client.get("/events?sortBy=name&order=asc&limit=2&page=4"), 200);
    assert.deepEqual(past, {
      events: [],
      pagination: { page: 4, limit: 2, total: 5, totalPages: 3, hasNext: false, hasPrev: true },
    });
    const both = expectStatus(await client.get("/events?sortBy=name&order=asc&limit=2&perPage=2"), 200);
    assert.deepEqual(ids(both.events), ids(page1.events));
    const edges = expectStatus(await client.get("/events?limit=1"), 200);
    assert.deepEqual(edges.pagination, { page: 1, limit: 1, total: 5, totalPages: 5, hasNext: true, hasPrev: false });
    assert.equal(expectStatus(await client.get("/events?limit=100"), 200).pagination.limit, 100);
    const filteredEmpty = expectStatus(await client.get("/events?search=zzz"), 200);
    assert.deepEqual(filteredEmpty, {
      events: [],
      pagination: { page: 1, limit: 20, total: 0, totalPages: 0, hasNext: false, hasPrev: false },
    });
  });

  const badQueries: Array<[string, string | undefined]> = [
    ["status=foo", "status"],
    ["status=Draft", "status"],
    ["limit=500", "limit"],
    ["limit=101", "limit"],
    ["limit=0", "limit"],
    ["limit=abc", "limit"],
    ["limit=2.5", "limit"],
    ["perPage=101", "perPage"],
    ["limit=5&perPage=6", "perPage"],
    ["page=0", "page"],
    ["page=-1", "page"],
    ["page=x", "page"],
    ["sortBy=x", "sortBy"],
    ["sortBy=attendeeCount", "sortBy"],
    ["order=up", "order"],
    ["order=ASC", "order"],
    ["startDate=tomorrow", "startDate"],
    ["endDate=2038-13-01", "endDate"],
    ["minScore=abc", "minScore"],
    ["minScore=101", "minScore"],
    ["minScore=-1", "minScore"],
    // What Number() would take but a query string should not mean: empty, spaced, hex, exponent.
    ["minScore=", "minScore"],
    ["page=", "page"],
    ["limit=0x10", "limit"],
    ["limit=1e1", "limit"],
    ["limit=%2010", "limit"],
    ["minScore=%2B5", "minScore"],
    ["foo=bar", "foo"],
    ["status=draft&status=published", "status"],
    ["limit=5&limit=5", "limit"],
  ];
  for (const [query, field] of badQueries) {
    test(`GET /events?${query}: 400 INVALID_REQUEST`, async () => {
      expectError(await client.get(`/events?${query}`), 400, "INVALID_REQUEST", field);
    });
  }
});

describe("carbon footprint and sustainability score", () => {
  let client: Client;
  const made: Record<string, any> = {};

  const travel = (travelMode: string, travelDistance?: number, extra: Record<string, unknown> = {}) => ({
    carbonOffset: { travelMode, ...(travelDistance !== undefined && { travelDistance }), ...extra },
  });

  before(async () => {
    client = await newAccount("Carbon Ltd");
    made.mixed = await createEvent(client, {
      name: "Mixed travel",
      sustainabilityGoals: { carbonNeutral: true, wasteReduction: 50 },
    });
    made.flights = await createEvent(client, { name: "Flight bands" });
    made.green = await createEvent(client, {
      name: "Green travel",
      sustainabilityGoals: { renewableEnergy: true, localSourcing: true },
    });
    made.goals = await createEvent(client, {
      name: "All goals",
      sustainabilityGoals: { carbonNeutral: true, renewableEnergy: true, localSourcing: true, wasteReduction: 100 },
    });
    made.nodistance = await createEvent(client, { name: "No distance" });
  });

  test("mixed travel: emissions of active registrations only, low-carbon share, offsets in USD", async () => {
    const id = made.mixed.id;
    // car 100 km x 0.16844 = 16.844 kg; 1.5 USD / 15 USD per t = 0.1 t = 100 kg offset.
    made.car = await register(client, id, travel("car", 100, { opted: true, amount: 1.5 }));
    // train 200 km x 0.03546 = 7.092 kg; not opted, so its 100 USD do not count.
    made.train = await register(client, id, travel("train", 200, { opted: false, amount: 100 }));
    // flight 1,000 km (short-haul band) x 0.18592 = 185.92 kg.
    made.flight = await register(client, id, travel("flight", 1000));
    made.walk = await register(client, id, travel("walk", 2));
    made.silent = await register(client, id);
    // A cancelled registration counts for nothing: car 1,000 km and 30 USD of offsets.
    made.cancelled = await register(client, id, travel("car", 1000, { opted: true, amount: 30 }));
    await moveAttendee(client, made.cancelled.id, "cancelled");

    const event = expectStatus(await client.get(`/events/${id}`), 200);
    assert.equal(event.attendeeCount, 5);
    // 16.844 + 7.092 + 185.92 = 209.856 kg.
    assert.equal(event.carbonFootprint, 209.856);
    // goals 15 + 7.5 = 22.5; low-carbon 2 of 4 reporting (train, walk) x 20 = 10;
    // offsets 20 x 100 / 209.856 = 9.530; total 42.030 -> 42.
    assert.equal(event.sustainabilityScore, 42);
  });

  test("updating offsets, checking in and cancelling move the figures", async () => {
    const id = made.mixed.id;
    // A pending and a checked-in registration stay active.
    await moveAttendee(client, made.train.id, "pending");
    await moveAttendee(client, made.car.id, "checked-in");
    let event = expectStatus(await client.get(`/events/${id}`), 200);
    assert.equal(event.attendeeCount, 5);
    assert.equal(event.carbonFootprint, 209.856);
    assert.equal(event.sustainabilityScore, 42);

    // 3 USD more = 200 kg more: 300 kg >= 209.856 kg, full 20 offset points: 22.5 + 10 + 20.
    expectStatus(
      await client.put(`/attendees/${made.flight.id}`, travel("flight", 1000, { opted: true, amount: 3 })),
      200,
    );
    event = expectStatus(await client.get(`/events/${id}`), 200);
    assert.equal(event.sustainabilityScore, 52.5);

    // The walker cancels: 1 of 3 reporting is low-carbon, 20 / 3 = 6.667: 22.5 + 6.667 + 20 = 49.167 -> 49.2.
    await moveAttendee(client, made.walk.id, "cancelled");
    event = expectStatus(await client.get(`/events/${id}`), 200);
    assert.equal(event.attendeeCount, 4);
    assert.equal(event.carbonFootprint, 209.856);
    assert.equal(event.sustainabilityScore, 49.2);

    // The cancelled car traveller comes back: + 168.44 kg and its 30 USD (2,000 kg) of offsets.
    // Low-carbon 1 of 4 = 5; offsets cover everything: 22.5 + 5 + 20 = 47.5.
    await moveAttendee(client, made.cancelled.id, "confirmed");
    event = expectStatus(await client.get(`/events/${id}`), 200);
    assert.equal(event.attendeeCount, 5);
    assert.equal(event.carbonFootprint, 378.296);
    assert.equal(event.sustainabilityScore, 47.5);

    // Changing a travel mode: the 1,000 km car trip becomes a train ride (35.46 kg).
    // 16.844 + 7.092 + 185.92 + 35.46 = 245.316; low-carbon 2 of 4 = 10: 22.5 + 10 + 20 = 52.5.
    expectStatus(
      await client.put(`/attendees/${made.cancelled.id}`, travel("train", 1000, { opted: true, amount: 30 })),
      200,
    );
    event = expectStatus(await client.get(`/events/${id}`), 200);
    assert.equal(event.carbonFootprint, 245.316);
    assert.equal(event.sustainabilityScore, 52.5);
  });

  test("flight distance bands, bus and bike", async () => {
    const id = made.flights.id;
    await register(client, id, travel("flight", 500)); // 500 x 0.27257 = 136.285
    await register(client, id, travel("flight", 501)); // 501 x 0.18592 = 93.14592
    await register(client, id, travel("flight", 3700)); // 3,700 x 0.18592 = 687.904
    await register(client, id, travel("flight", 3701)); // 3,701 x 0.26128 = 966.99728
    await register(client, id, travel("bus", 10)); // 10 x 0.10231 = 1.0231
    await register(client, id, travel("bike", 5)); // 0
    const event = expectStatus(await client.get(`/events/${id}`), 200);
    assert.equal(event.attendeeCount, 6);
    // 136.285 + 93.14592 + 687.904 + 966.99728 + 1.0231 = 1885.3553 -> 1885.355
    assert.equal(event.carbonFootprint, 1885.355);
    // No goals; low-carbon 2 of 6 reporting = 6.667; no offsets: 6.7.
    assert.equal(event.sustainabilityScore, 6.7);
  });

  test("zero emissions with reported travel earn the offset points; no reported travel earns none", async () => {
    await register(client, made.green.id, travel("bike", 10));
    await register(client, made.green.id, travel("walk", 1));
    const green = expectStatus(await client.get(`/events/${made.green.id}`), 200);
    assert.equal(green.carbonFootprint, 0);
    // renewableEnergy 15 + localSourcing 15 + low-carbon 2 of 2 = 20 + zero emissions with travel 20.
    assert.equal(green.sustainabilityScore, 70);

    await register(client, made.goals.id, { company: "No travel given" });
    const goals = expectStatus(await client.get(`/events/${made.goals.id}`), 200);
    assert.equal(goals.attendeeCount, 1);
    assert.equal(goals.carbonFootprint, 0);
    // 15 + 15 + 15 + 15 x 100 / 100; no registration reported a travel mode: nothing else.
    assert.equal(goals.sustainabilityScore, 60);

    // A travel mode without a distance reports travel but emits nothing: 0 low-carbon + 20 offset points.
    await register(client, made.nodistance.id, travel("car"));
    const nodistance = expectStatus(await client.get(`/events/${made.nodistance.id}`), 200);
    assert.equal(nodistance.carbonFootprint, 0);
    assert.equal(nodistance.sustainabilityScore, 20);
  });

  test("list items carry the same figures; minScore filters on the rounded score", async () => {
    // Scores now: mixed 52.5, flights 6.7, green 70, goals 60, nodistance 20.
    const list = expectStatus(await client.get("/events?limit=100"), 200);
    assert.equal(list.pagination.total, 5);
    for (const item of list.events) assert.deepEqual(item, expectStatus(await client.get(`/events/${item.id}`), 200));
    const scored = async (query: string) => {
      const body = expectStatus(await client.get(`/events?${query}&sortBy=name&order=asc`), 200);
      assert.equal(body.pagination.total, body.events.length);
      return body.events.map((event: { name: string }) => event.name);
    };
    assert.deepEqual(await scored("minScore=60"), ["All goals", "Green travel"]);
    assert.deepEqual(await scored("minScore=70"), ["Green travel"]);
    assert.deepEqual(await scored("minScore=70.1"), []);
    assert.deepEqual(await scored("minScore=52.5"), ["All goals", "Green travel", "Mixed travel"]);
    assert.deepEqual(await scored("minScore=6.7"), [
      "All goals",
      "Flight bands",
      "Green travel",
      "Mixed travel",
      "No distance",
    ]);
    assert.deepEqual(await scored("minScore=6.75"), ["All goals", "Green travel", "Mixed travel", "No distance"]);
    assert.deepEqual(await scored("minScore=0"), [
      "All goals",
      "Flight bands",
      "Green travel",
      "Mixed travel",
      "No distance",
    ]);
    assert.deepEqual(await scored("minScore=50&search=travel"), ["Green travel", "Mixed travel"]);
    const page = expectStatus(await client.get("/events?minScore=20&limit=2&sortBy=name&order=asc&page=2"), 200);
    assert.deepEqual(page.pagination, { page: 2, limit: 2, total: 4, totalPages: 2, hasNext: false, hasPrev: true });
    assert.deepEqual(
      page.events.map((event: { name: string }) => event.name),
      ["Mixed travel", "No distance"],
    );
  });

  test("sortBy=carbonFootprint, zero footprints tied by id", async () => {
    const zeros = [made.green, made.goals, made.nodistance].sort(byId);
    const asc = expectStatus(await client.get("/events?sortBy=carbonFootprint&order=asc"), 200);
    assert.deepEqual(ids(asc.events), ids([...zeros, made.mixed, made.flights]));
    assert.deepEqual(
      asc.events.map((event: { carbonFootprint: number }) => event.carbonFootprint),
      [0, 0, 0, 245.316, 1885.355],
    );
    const desc = expectStatus(await client.get("/events?sortBy=carbonFootprint"), 200);
    assert.deepEqual(ids(desc.events), ids([made.flights, made.mixed, ...zeros.reverse()]));
  });
});
