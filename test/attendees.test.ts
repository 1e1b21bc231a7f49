/**
 * End-to-end: registrations (register, read, update, list), their QR codes and the check-in
 * flow, against the real server.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startServer, type TestServer } from "./_setup.ts";
import { attendeeInput } from "./fixtures/builders.ts";
import {
  byId,
  type Client,
  clientFor,
  CONFIRMATION_CODE,
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
let event: any;

before(async () => {
  server = await startServer();
  const { key } = await server.createKey({ account: "Attendees GmbH" });
  v1 = clientFor(server, key);
  event = await createEvent(v1, { capacity: 1000 });
});

after(async () => {
  const output = server.output();
  assert.equal(await server.stop("SIGTERM"), 0, "the server exits 0 on SIGTERM");
  assert.doesNotMatch(output, /"msg":"unexpected error"/, "no request failed unexpectedly");
});

describe("register", () => {
  test("a minimal registration comes back whole and confirmed", async () => {
    const input = attendeeInput(event.id);
    const response = await v1.post("/attendees", input);
    const attendee = expectStatus(response, 201);
    assert.equal(response.headers.get("x-content-type-options"), "nosniff");
    assert.match(attendee.confirmationCode, CONFIRMATION_CODE);
    assert.match(attendee.registrationDate, ISO_UTC);
    assert.equal(attendee.qrCode, `${server.url}/v1/qr/${attendee.id}.png`);
    assert.deepEqual(attendee, {
      id: attendee.id,
      eventId: event.id,
      firstName: "Ada",
      lastName: input.lastName,
      email: input.email,
      phone: null,
      company: null,
      title: null,
      ticketType: "general",
      dietaryPreferences: [],
      accessibilityNeeds: null,
      carbonOffset: null,
      emergencyContact: null,
      customFields: {},
      status: "confirmed",
      waitlistPosition: null,
      confirmationCode: attendee.confirmationCode,
      registrationDate: attendee.registrationDate,
      updatedAt: attendee.registrationDate,
      checkedInAt: null,
      cancelledAt: null,
      payment: null,
      qrCode: attendee.qrCode,
      ticketUrl: attendee.ticketUrl,
    });
    assert.match(attendee.ticketUrl, /^http:\/\/127\.0\.0\.1:\d+\/v1\/tickets\/tkt_[A-Za-z0-9_-]{43}$/);
    // The ticket link is in the create answer only.
    assert.deepEqual(expectStatus(await v1.get(`/attendees/${attendee.id}`), 200), { ...attendee, ticketUrl: null });
  });

  test("a full registration through /api keeps every field; dietary preferences are normalised", async () => {
    const viaApi = clientFor(server, v1.key, "/api");
    const attendee = expectStatus(
      await viaApi.post(
        "/attendees",
        attendeeInput(event.id, {
          firstName: "Grace",
          lastName: "Hopper",
          email: "grace@navy.example",
          phone: "+1 (202) 555-0143",
          company: "US Navy",
          title: "Rear Admiral",
          ticketType: "speaker",
          dietaryPreferences: [" Vegan ", "vegan", "Gluten-Free"],
          accessibilityNeeds: { wheelchairAccess: true, signLanguage: false, visualAid: false, other: "Quiet room" },
          carbonOffset: { opted: true, amount: 12.5, travelDistance: 320, travelMode: "train" },
          emergencyContact: { name: "Vincent Hopper", phone: "+12025550100", relationship: "spouse" },
          customFields: { tshirt: "M", vip: true, seats: 2, note: null },
        }),
      ),
      201,
    );
    assert.equal(attendee.qrCode, `${server.url}/v1/qr/${attendee.id}.png`);
    assert.deepEqual(
      { ...attendee, id: 0, confirmationCode: 0, registrationDate: 0, updatedAt: 0, qrCode: 0, ticketUrl: 0 },
      {
        id: 0,
        eventId: event.id,
        firstName: "Grace",
        lastName: "Hopper",
        email: "grace@navy.example",
        phone: "+1 (202) 555-0143",
        company: "US Navy",
        title: "Rear Admiral",
        ticketType: "speaker",
        dietaryPreferences: ["vegan", "gluten-free"],
        accessibilityNeeds: { wheelchairAccess: true, signLanguage: false, visualAid: false, other: "Quiet room" },
        carbonOffset: { opted: true, amount: 12.5, travelDistance: 320, travelMode: "train" },
        emergencyContact: { name: "Vincent Hopper", phone: "+12025550100", relationship: "spouse" },
        customFields: { tshirt: "M", vip: true, seats: 2, note: null },
        status: "confirmed",
        waitlistPosition: null,
        confirmationCode: 0,
        registrationDate: 0,
        updatedAt: 0,
        checkedInAt: null,
        cancelledAt: null,
        payment: null,
        qrCode: 0,
        ticketUrl: 0,
      },
    );
    assert.deepEqual(expectStatus(await v1.get(`/attendees/${attendee.id}`), 200), { ...attendee, ticketUrl: null });
  });

  test("confirmation codes are unique and unambiguous", async () => {
    const target = await createEvent(v1, { capacity: 30 });
    const codes = new Set<string>();
    for (let i = 0; i < 30; i++) {
      const attendee = await register(v1, target.id);
      assert.match(attendee.confirmationCode, CONFIRMATION_CODE);
      codes.add(attendee.confirmationCode);
    }
    assert.equal(codes.size, 30);
  });

  test("registration is confirmed for a draft and for a published event", async () => {
    const draft = await createEvent(v1);
    assert.equal((await register(v1, draft.id)).status, "confirmed");
    const published = await createEvent(v1);
    await moveEvent(v1, published.id, "published");
    assert.equal((await register(v1, published.id)).status, "confirmed");
  });

  test("an unknown event: 404 NOT_FOUND field eventId", async () => {
    expectError(await v1.post("/attendees", attendeeInput("evt_doesnotexist")), 404, "NOT_FOUND", "eventId");
  });

  for (const prefix of PREFIXES) {
    test(`a cancelled or completed event takes no registrations: 400 INVALID_REQUEST field eventId (${prefix})`, async () => {
      const c = clientFor(server, v1.key, prefix);
      const cancelled = await createEvent(c);
      await moveEvent(c, cancelled.id, "cancelled");
      expectError(await c.post("/attendees", attendeeInput(cancelled.id)), 400, "INVALID_REQUEST", "eventId");
      const completed = await createEvent(c);
      await moveEvent(c, completed.id, "published", "completed");
      expectError(await c.post("/attendees", attendeeInput(completed.id)), 400, "INVALID_REQUEST", "eventId");
      for (const id of [cancelled.id, completed.id]) {
        assert.equal(expectStatus(await c.get(`/events/${id}`), 200).attendeeCount, 0);
      }
    });
  }

  test("an event whose endDate has passed takes no registrations: 400 INVALID_REQUEST field eventId, reason event_ended", async () => {
    const past = await createEvent(v1, {
      startDate: "2020-03-01T09:00:00+01:00",
      endDate: "2020-03-01T17:00:00+01:00",
    });
    await moveEvent(v1, past.id, "published");
    const refused = expectError(await v1.post("/attendees", attendeeInput(past.id)), 400, "INVALID_REQUEST", "eventId");
    assert.equal(
      refused.message,
      `eventId: event ${past.id} ended at 2020-03-01T16:00:00.000Z and takes no more registrations`,
    );
    assert.deepEqual(refused.details, { reason: "event_ended", endDate: "2020-03-01T16:00:00.000Z" });
    assert.equal(expectStatus(await v1.get(`/events/${past.id}`), 200).attendeeCount, 0);
  });

  test("after the end a cancelled registration is not re-activated (event_ended); other changes still apply", async () => {
    const ending = await createEvent(v1, { capacity: 10 });
    const kept = await register(v1, ending.id);
    const left = await register(v1, ending.id);
    await moveAttendee(v1, left.id, "cancelled");
    // Dated in the past afterwards, as an event is whose footprint is recorded after the fact.
    const dates = { startDate: "2021-09-10T08:00:00Z", endDate: "2021-09-12T18:00:00Z" };
    expectStatus(await v1.put(`/events/${ending.id}`, dates), 200);
    const refused = expectError(
      await v1.put(`/attendees/${left.id}`, { status: "confirmed" }),
      400,
      "INVALID_REQUEST",
      "eventId",
    );
    assert.deepEqual(refused.details, { reason: "event_ended", endDate: "2021-09-12T18:00:00.000Z" });
    assert.equal(expectStatus(await v1.get(`/attendees/${left.id}`), 200).status, "cancelled");
    assert.equal(
      expectStatus(await v1.put(`/attendees/${kept.id}`, { company: "After the fact" }), 200).company,
      "After the fact",
    );
    assert.equal(expectStatus(await v1.get(`/events/${ending.id}`), 200).attendeeCount, 1);
  });

  for (const prefix of PREFIXES) {
    test(`a full event: 400 EVENT_FULL; pending and checked-in registrations hold places, cancelled ones free them (${prefix})`, async () => {
      const c = clientFor(server, v1.key, prefix);
      const small = await createEvent(c, { capacity: 3 });
      const a = await register(c, small.id);
      const b = await register(c, small.id);
      const third = await register(c, small.id);
      await moveAttendee(c, a.id, "pending");
      await moveAttendee(c, b.id, "checked-in");
      expectError(await c.post("/attendees", attendeeInput(small.id)), 400, "EVENT_FULL");
      assert.equal(expectStatus(await c.get(`/events/${small.id}`), 200).attendeeCount, 3);
      await moveAttendee(c, third.id, "cancelled");
      assert.equal(expectStatus(await c.get(`/events/${small.id}`), 200).attendeeCount, 2);
      await register(c, small.id);
      expectError(await c.post("/attendees", attendeeInput(small.id)), 400, "EVENT_FULL");
      const list = expectStatus(await c.get(`/attendees?eventId=${small.id}`), 200);
      assert.equal(list.pagination.total, 4);
      // Full and already registered at once: the duplicate is what the caller needs to hear.
      expectError(
        await c.post("/attendees", attendeeInput(small.id, { email: a.email.toUpperCase() })),
        409,
        "DUPLICATE_REGISTRATION",
        "email",
      );
    });
  }

  for (const prefix of PREFIXES) {
    test(`the same email (any case) holds one active registration per event: 409 DUPLICATE_REGISTRATION (${prefix})`, async () => {
      const c = clientFor(server, v1.key, prefix);
      const target = await createEvent(c);
      const other = await createEvent(c);
      const first = await register(c, target.id, { email: "Dup.Licate@Example.com" });
      expectError(
        await c.post("/attendees", attendeeInput(target.id, { email: "dup.licate@example.com" })),
        409,
        "DUPLICATE_REGISTRATION",
      );
      expectError(
        await c.post("/attendees", attendeeInput(target.id, { email: "DUP.LICATE@EXAMPLE.COM" })),
        409,
        "DUPLICATE_REGISTRATION",
      );
      // Another event is another matter.
      await register(c, other.id, { email: "dup.licate@example.com" });
      // After a cancellation the email may register again...
      await moveAttendee(c, first.id, "cancelled");
      const second = await register(c, target.id, { email: "dup.licate@example.com" });
      assert.equal(second.status, "confirmed");
      // ...and the cancelled registration can no longer be re-activated.
      expectError(await c.put(`/attendees/${first.id}`, { status: "confirmed" }), 409, "DUPLICATE_REGISTRATION");
      assert.equal(expectStatus(await c.get(`/attendees/${first.id}`), 200).status, "cancelled");
      const list = expectStatus(await c.get(`/attendees?eventId=${target.id}`), 200);
      assert.equal(list.pagination.total, 2);
    });
  }

  const invalid: Array<[string, Record<string, unknown>, string]> = [
    ["missing eventId", { eventId: undefined }, "eventId"],
    ["missing firstName", { firstName: undefined }, "firstName"],
    ["blank lastName", { lastName: "  " }, "lastName"],
    ["missing email", { email: undefined }, "email"],
    ["malformed email", { email: "not-an-email" }, "email"],
    ["missing ticketType", { ticketType: undefined }, "ticketType"],
    ["status in the body", { status: "confirmed" }, "status"],
    ["status pending in the body", { status: "pending" }, "status"],
    ["phone without +", { phone: "030 1234567" }, "phone"],
    ["phone with 6 digits", { phone: "+49 1234" }, "phone"],
    ["phone with 16 digits", { phone: "+1234567890123456" }, "phone"],
    ["phone with letters", { phone: "+49 30 CALLME" }, "phone"],
    ["unknown travelMode", { carbonOffset: { opted: true, travelMode: "rocket" } }, "carbonOffset.travelMode"],
    ["negative offset amount", { carbonOffset: { opted: true, amount: -5 } }, "carbonOffset.amount"],
    [
      "negative travelDistance",
      { carbonOffset: { travelMode: "car", travelDistance: -1 } },
      "carbonOffset.travelDistance",
    ],
    ["opted not a boolean", { carbonOffset: { opted: "yes" } }, "carbonOffset.opted"],
    [
      "accessibilityNeeds field of the wrong type",
      { accessibilityNeeds: { wheelchairAccess: "yes" } },
      "accessibilityNeeds.wheelchairAccess",
    ],
    ["emergencyContact without a name", { emergencyContact: { phone: "+4930123456" } }, "emergencyContact.name"],
    [
      "emergencyContact with a bad phone",
      { emergencyContact: { name: "Bob", phone: "12345" } },
      "emergencyContact.phone",
    ],
    ["dietaryPreferences not a list", { dietaryPreferences: "vegan" }, "dietaryPreferences"],
    ["customFields with an object value", { customFields: { nested: { a: 1 } } }, "customFields.nested"],
    ["an unknown field", { nickname: "Ada" }, "nickname"],
  ];
  for (const [name, overrides, field] of invalid) {
    test(`400 INVALID_REQUEST for ${name} (field ${field})`, async () => {
      const error = expectError(
        await v1.post("/attendees", attendeeInput(event.id, overrides)),
        400,
        "INVALID_REQUEST",
        field,
      );
      assert.equal(error.details.issues[0].path, field);
    });
  }

  test("phone numbers with 7 and 15 digits are accepted", async () => {
    assert.equal((await register(v1, event.id, { phone: "+49 12345" })).phone, "+49 12345");
    assert.equal((await register(v1, event.id, { phone: "+123456789012345" })).phone, "+123456789012345");
  });
});

describe("QR codes", () => {
  test("qrCode serves a PNG without auth, under both prefixes, and an SVG", async () => {
    const attendee = await register(v1, event.id);
    const png = await fetch(attendee.qrCode);
    assert.equal(png.status, 200);
    assert.equal(png.headers.get("content-type"), "image/png");
    assert.equal(png.headers.get("x-content-type-options"), "nosniff");
    const bytes = new Uint8Array(await png.arrayBuffer());
    assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    // IHDR: a square image.
    const view = new DataView(bytes.buffer, bytes.byteOffset);
    assert.equal(new TextDecoder().decode(bytes.subarray(12, 16)), "IHDR");
    const width = view.getUint32(16);
    assert.ok(width >= 21, `width ${width}`);
    assert.equal(view.getUint32(20), width);

    const viaApi = await fetch(`${server.url}/api/qr/${attendee.id}.png`);
    assert.equal(viaApi.status, 200);
    assert.deepEqual(new Uint8Array(await viaApi.arrayBuffer()), bytes);

    const svg = await fetch(`${server.url}/v1/qr/${attendee.id}.svg`);
    assert.equal(svg.status, 200);
    assert.match(svg.headers.get("content-type") ?? "", /^image\/svg\+xml/);
    assert.match(await svg.text(), /^(<\?xml[^>]*>\s*)?<svg[\s>]/);

    // Another registration, another code, another image.
    const other = await register(v1, event.id);
    const otherPng = new Uint8Array(await (await fetch(other.qrCode)).arrayBuffer());
    assert.notDeepEqual(otherPng, bytes);
  });

  test("QR images carry a strong ETag and a year-long private Cache-Control; If-None-Match gets 304", async () => {
    const attendee = await register(v1, event.id);
    const first = await fetch(attendee.qrCode);
    const etag = first.headers.get("etag");
    assert.match(etag ?? "", /^"[A-Za-z0-9_-]{32}"$/, "a strong ETag");
    assert.equal(first.headers.get("cache-control"), "private, max-age=31536000");
    const bytes = new Uint8Array(await first.arrayBuffer());
    const again = await fetch(`${server.url}/api/qr/${attendee.id}.png`);
    assert.equal(again.headers.get("etag"), etag, "the same image, the same tag");
    assert.deepEqual(new Uint8Array(await again.arrayBuffer()), bytes);
    for (const ifNoneMatch of [etag!, `"other", ${etag}`, `W/${etag}`, "*"]) {
      const cached = await fetch(attendee.qrCode, { headers: { "if-none-match": ifNoneMatch } });
      assert.equal(cached.status, 304, ifNoneMatch);
      assert.equal(cached.headers.get("etag"), etag);
      assert.equal(cached.headers.get("cache-control"), "private, max-age=31536000");
      assert.equal((await cached.arrayBuffer()).byteLength, 0);
    }
    const stale = await fetch(attendee.qrCode, { headers: { "if-none-match": '"not-it"' } });
    assert.equal(stale.status, 200);
    assert.deepEqual(new Uint8Array(await stale.arrayBuffer()), bytes);
    const svg = await fetch(`${server.url}/v1/qr/${attendee.id}.svg`);
    assert.notEqual(svg.headers.get("etag"), etag, "the SVG is another representation");
    await svg.arrayBuffer();
    const other = await register(v1, event.id);
    const otherPng = await fetch(other.qrCode, { headers: { "if-none-match": etag! } });
    assert.equal(otherPng.status, 200, "another registration's image never matches");
    await otherPng.arrayBuffer();
    expectError(
      await server.request("GET", "/v1/qr/att_doesnotexist.png", { headers: { "if-none-match": "*" } }),
      404,
      "NOT_FOUND",
    );
  });

  test("an unknown QR code: 404 NOT_FOUND", async () => {
    for (const prefix of PREFIXES) {
      expectError(await server.request("GET", `${prefix}/qr/att_doesnotexist.png`), 404, "NOT_FOUND");
      expectError(await server.request("GET", `${prefix}/qr/att_doesnotexist.svg`), 404, "NOT_FOUND");
    }
  });
});

describe("read and update", () => {
  test("GET and PUT an unknown attendee: 404 NOT_FOUND", async () => {
    for (const prefix of PREFIXES) {
      const client = clientFor(server, v1.key, prefix);
      expectError(await client.get("/attendees/att_doesnotexist"), 404, "NOT_FOUND");
      expectError(await client.put("/attendees/att_doesnotexist", { company: "x" }), 404, "NOT_FOUND");
    }
  });

  test("PUT is partial; null clears optional fields; lists are normalised", async () => {
    const attendee = await register(v1, event.id, {
      phone: "+4930123456",
      company: "Analytical Engines",
      title: "Countess",
      dietaryPreferences: ["vegan"],
      accessibilityNeeds: { visualAid: true },
      carbonOffset: { opted: true, amount: 5 },
      emergencyContact: { name: "Bob", phone: "+4930654321" },
      customFields: { a: 1 },
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const viaApi = clientFor(server, v1.key, "/api");
    const updated = expectStatus(
      await viaApi.put(`/attendees/${attendee.id}`, {
        company: "Babbage & Co",
        dietaryPreferences: ["Halal", "KOSHER", "halal"],
      }),
      200,
    );
    assert.deepEqual(updated, {
      ...attendee,
      ticketUrl: null,
      company: "Babbage & Co",
      dietaryPreferences: ["halal", "kosher"],
      updatedAt: updated.updatedAt,
    });
    assert.ok(updated.updatedAt > attendee.updatedAt);
    assert.equal(updated.registrationDate, attendee.registrationDate);

    const cleared = expectStatus(
      await v1.put(`/attendees/${attendee.id}`, {
        phone: null,
        company: null,
        title: null,
        dietaryPreferences: null,
        accessibilityNeeds: null,
        carbonOffset: null,
        emergencyContact: null,
        customFields: null,
      }),
      200,
    );
    assert.deepEqual(
      { ...cleared, updatedAt: 0 },
      {
        ...attendee,
        phone: null,
        company: null,
        title: null,
        dietaryPreferences: [],
        accessibilityNeeds: null,
        carbonOffset: null,
        emergencyContact: null,
        customFields: {},
        updatedAt: 0,
        ticketUrl: null,
      },
    );
    assert.deepEqual(expectStatus(await v1.get(`/attendees/${attendee.id}`), 200), cleared);
    for (const field of ["firstName", "lastName", "email", "ticketType"]) {
      expectError(await v1.put(`/attendees/${attendee.id}`, { [field]: null }), 400, "INVALID_REQUEST", field);
    }
  });

  test("eventId cannot change: 400 field eventId", async () => {
    const attendee = await register(v1, event.id);
    const other = await createEvent(v1);
    expectError(await v1.put(`/attendees/${attendee.id}`, { eventId: other.id }), 400, "INVALID_REQUEST", "eventId");
    expectError(
      await v1.put(`/attendees/${attendee.id}`, { eventId: event.id, company: "X" }),
      400,
      "INVALID_REQUEST",
      "eventId",
    );
    assert.deepEqual(expectStatus(await v1.get(`/attendees/${attendee.id}`), 200), { ...attendee, ticketUrl: null });
  });

  test("invalid updates: bad status value, bad email, phone, unknown fields, server-set fields", async () => {
    const attendee = await register(v1, event.id);
    expectError(await v1.put(`/attendees/${attendee.id}`, { status: "attended" }), 400, "INVALID_REQUEST", "status");
    expectError(await v1.put(`/attendees/${attendee.id}`, { email: "nope" }), 400, "INVALID_REQUEST", "email");
    expectError(await v1.put(`/attendees/${attendee.id}`, { phone: "0049301234" }), 400, "INVALID_REQUEST", "phone");
    expectError(await v1.put(`/attendees/${attendee.id}`, { nickname: "x" }), 400, "INVALID_REQUEST", "nickname");
    expectError(
      await v1.put(`/attendees/${attendee.id}`, { confirmationCode: "EVT-2222-2222" }),
      400,
      "INVALID_REQUEST",
      "confirmationCode",
    );
    expectError(
      await v1.put(`/attendees/${attendee.id}`, { carbonOffset: { travelMode: "teleport" } }),
      400,
      "INVALID_REQUEST",
      "carbonOffset.travelMode",
    );
    assert.deepEqual(expectStatus(await v1.get(`/attendees/${attendee.id}`), 200), { ...attendee, ticketUrl: null });
  });

  test("changing the email to one already active for the event: 409 DUPLICATE_REGISTRATION", async () => {
    const target = await createEvent(v1);
    await register(v1, target.id, { email: "taken@example.com" });
    const mover = await register(v1, target.id, { email: "free@example.com" });
    expectError(await v1.put(`/attendees/${mover.id}`, { email: "TAKEN@example.com" }), 409, "DUPLICATE_REGISTRATION");
    assert.equal(
      expectStatus(await v1.put(`/attendees/${mover.id}`, { email: "Free@Example.com" }), 200).email,
      "Free@Example.com",
    );
  });

  const ALLOWED: Record<string, string[]> = {
    confirmed: ["confirmed", "pending", "checked-in", "cancelled"],
    pending: ["pending", "confirmed", "checked-in", "cancelled"],
    cancelled: ["cancelled", "confirmed"],
    "checked-in": ["checked-in"],
  };
  for (const from of Object.keys(ALLOWED)) {
    for (const to of Object.keys(ALLOWED)) {
      const allowed = ALLOWED[from]!.includes(to);
      test(`status ${from} -> ${to}: ${allowed ? (from === to ? "200 no-op" : "200") : "422 INVALID_STATE_TRANSITION"}`, async () => {
        const attendee = await register(v1, event.id);
        const current =
          from === "confirmed" ? { ...attendee, ticketUrl: null } : await moveAttendee(v1, attendee.id, from);
        assert.equal(current.status, from);
        const response = await v1.put(`/attendees/${attendee.id}`, { status: to });
        if (allowed) {
          const moved = expectStatus(response, 200);
          assert.equal(moved.status, to);
          if (to === "checked-in" && from !== to) assert.match(moved.checkedInAt, ISO_UTC);
          if (to === "cancelled" && from !== to) assert.match(moved.cancelledAt, ISO_UTC);
          if (from === to) assert.equal(moved.checkedInAt, current.checkedInAt);
        } else {
          expectError(response, 422, "INVALID_STATE_TRANSITION", "status");
          assert.deepEqual(expectStatus(await v1.get(`/attendees/${attendee.id}`), 200), current);
        }
      });
    }
  }

  test("status rules through /api: 200 for an allowed change, 422 for a forbidden one", async () => {
    const viaApi = clientFor(server, v1.key, "/api");
    const attendee = await register(viaApi, event.id);
    assert.equal((await moveAttendee(viaApi, attendee.id, "pending", "checked-in")).status, "checked-in");
    expectError(
      await viaApi.put(`/attendees/${attendee.id}`, { status: "confirmed" }),
      422,
      "INVALID_STATE_TRANSITION",
      "status",
    );
  });

  test("status timestamps: checkedInAt and cancelledAt are set when the status changes", async () => {
    const attendee = await register(v1, event.id);
    assert.equal(attendee.checkedInAt, null);
    assert.equal(attendee.cancelledAt, null);
    const cancelled = await moveAttendee(v1, attendee.id, "cancelled");
    assert.match(cancelled.cancelledAt, ISO_UTC);
    assert.ok(cancelled.cancelledAt >= attendee.registrationDate);
    assert.equal(cancelled.checkedInAt, null);
    const again = await moveAttendee(v1, attendee.id, "confirmed", "checked-in");
    assert.match(again.checkedInAt, ISO_UTC);
    assert.ok(again.checkedInAt >= cancelled.cancelledAt);
  });

  for (const prefix of PREFIXES) {
    test(`re-activating a cancelled registration needs a free place: 400 EVENT_FULL (${prefix})`, async () => {
      const c = clientFor(server, v1.key, prefix);
      const tiny = await createEvent(c, { capacity: 1 });
      const first = await register(c, tiny.id);
      await moveAttendee(c, first.id, "cancelled");
      const second = await register(c, tiny.id);
      expectError(await c.put(`/attendees/${first.id}`, { status: "confirmed" }), 400, "EVENT_FULL");
      assert.equal(expectStatus(await c.get(`/attendees/${first.id}`), 200).status, "cancelled");
      await moveAttendee(c, second.id, "cancelled");
      assert.equal((await moveAttendee(c, first.id, "confirmed")).status, "confirmed");
      assert.equal(expectStatus(await c.get(`/events/${tiny.id}`), 200).attendeeCount, 1);
    });
  }

  test("an update that is not a re-activation is allowed on a full event", async () => {
    const tiny = await createEvent(v1, { capacity: 1 });
    const only = await register(v1, tiny.id);
    assert.equal((await moveAttendee(v1, only.id, "pending", "confirmed")).status, "confirmed");
    assert.equal(
      expectStatus(await v1.put(`/attendees/${only.id}`, { company: "Still here" }), 200).company,
      "Still here",
    );
  });
});

describe("check-in", () => {
  // Check-in works only while the event is published.
  let door: any;
  before(async () => {
    door = await createEvent(v1, { capacity: 1000 });
    await moveEvent(v1, door.id, "published");
  });

  for (const prefix of PREFIXES) {
    test(`POST ${prefix}/events/:id/check-in checks the registration in; a repeat is 409 ALREADY_CHECKED_IN`, async () => {
      const client = clientFor(server, v1.key, prefix);
      const attendee = await register(client, door.id);
      const response = await client.post(`/events/${door.id}/check-in`, {
        confirmationCode: attendee.confirmationCode,
      });
      const checkedIn = expectStatus(response, 200);
      assert.equal(checkedIn.id, attendee.id);
      assert.equal(checkedIn.status, "checked-in");
      assert.match(checkedIn.checkedInAt, ISO_UTC);
      assert.deepEqual(checkedIn, {
        ...attendee,
        ticketUrl: null,
        status: "checked-in",
        checkedInAt: checkedIn.checkedInAt,
        updatedAt: checkedIn.updatedAt,
      });
      assert.deepEqual(expectStatus(await client.get(`/attendees/${attendee.id}`), 200), checkedIn);

      const again = expectError(
        await client.post(`/events/${door.id}/check-in`, { confirmationCode: attendee.confirmationCode }),
        409,
        "ALREADY_CHECKED_IN",
      );
      assert.equal(again.details.attendee.id, attendee.id);
      assert.equal(again.details.attendee.status, "checked-in");
      assert.equal(again.details.attendee.checkedInAt, checkedIn.checkedInAt);
      // Checked-in is final.
      expectError(
        await client.put(`/attendees/${attendee.id}`, { status: "cancelled" }),
        422,
        "INVALID_STATE_TRANSITION",
        "status",
      );
    });
  }

  test("the code is matched case-insensitively; a pending registration can check in", async () => {
    const attendee = await register(v1, door.id);
    await moveAttendee(v1, attendee.id, "pending");
    const checkedIn = expectStatus(
      await v1.post(`/events/${door.id}/check-in`, { confirmationCode: attendee.confirmationCode.toLowerCase() }),
      200,
    );
    assert.equal(checkedIn.id, attendee.id);
    assert.equal(checkedIn.status, "checked-in");
  });

  for (const prefix of PREFIXES) {
    test(`a cancelled registration: 422 INVALID_STATE_TRANSITION (${prefix})`, async () => {
      const c = clientFor(server, v1.key, prefix);
      const attendee = await register(c, door.id);
      await moveAttendee(c, attendee.id, "cancelled");
      expectError(
        await c.post(`/events/${door.id}/check-in`, { confirmationCode: attendee.confirmationCode }),
        422,
        "INVALID_STATE_TRANSITION",
      );
      assert.equal(expectStatus(await c.get(`/attendees/${attendee.id}`), 200).status, "cancelled");
    });
  }

  test("an unknown code, a code of another event, an unknown event: 404 NOT_FOUND", async () => {
    const other = await createEvent(v1);
    const elsewhere = await register(v1, other.id);
    expectError(await v1.post(`/events/${door.id}/check-in`, { confirmationCode: "EVT-2222-2222" }), 404, "NOT_FOUND");
    expectError(
      await v1.post(`/events/${door.id}/check-in`, { confirmationCode: elsewhere.confirmationCode }),
      404,
      "NOT_FOUND",
    );
    expectError(
      await v1.post("/events/evt_doesnotexist/check-in", { confirmationCode: elsewhere.confirmationCode }),
      404,
      "NOT_FOUND",
    );
    assert.equal(expectStatus(await v1.get(`/attendees/${elsewhere.id}`), 200).status, "confirmed");
  });

  test("a bad check-in body: 400 INVALID_REQUEST", async () => {
    expectError(await v1.post(`/events/${door.id}/check-in`, {}), 400, "INVALID_REQUEST", "confirmationCode");
    expectError(
      await v1.post(`/events/${door.id}/check-in`, { confirmationCode: "" }),
      400,
      "INVALID_REQUEST",
      "confirmationCode",
    );
    expectError(
      await v1.post(`/events/${door.id}/check-in`, { confirmationCode: 1234 }),
      400,
      "INVALID_REQUEST",
      "confirmationCode",
    );
    expectError(
      await v1.post(`/events/${door.id}/check-in`, { confirmationCode: "EVT-2222-2222", gate: 3 }),
      400,
      "INVALID_REQUEST",
      "gate",
    );
  });

  test("a check-in counts as active: attendeeCount stays", async () => {
    const target = await createEvent(v1, { capacity: 2 });
    await moveEvent(v1, target.id, "published");
    const a = await register(v1, target.id);
    await register(v1, target.id);
    expectStatus(await v1.post(`/events/${target.id}/check-in`, { confirmationCode: a.confirmationCode }), 200);
    const after = expectStatus(await v1.get(`/events/${target.id}`), 200);
    assert.equal(after.attendeeCount, 2);
    expectError(await v1.post("/attendees", attendeeInput(target.id)), 400, "EVENT_FULL");
  });
});

describe("list", () => {
  let client: Client;
  let first: any;
  let second: any;
  const people: Record<string, any> = {};

  before(async () => {
    const { key } = await server.createKey({ account: "Attendee Lists" });
    client = clientFor(server, key);
    first = await createEvent(client, { name: "First" });
    second = await createEvent(client, { name: "Second" });
    people.grace = await register(client, first.id, {
      firstName: "Grace",
      lastName: "Hopper",
      email: "grace@navy.example",
      company: "US Navy",
      ticketType: "speaker",
      carbonOffset: { opted: true, amount: 10 },
    });
    people.alan = await register(client, first.id, {
      firstName: "alan",
      lastName: "Turing",
      email: "alan@bletchley.example",
      company: "Bletchley Park",
      ticketType: "general",
      carbonOffset: { opted: false, amount: 10 },
    });
    people.ada = await register(client, first.id, {
      firstName: "Ada",
      lastName: "Lovelace",
      email: "ada@engines.example",
      company: "analytical engines",
      ticketType: "vip",
    });
    people.katherine = await register(client, first.id, {
      firstName: "Katherine",
      lastName: "Johnson",
      email: "kj@nasa.example",
      company: "NASA",
      ticketType: "general",
      carbonOffset: { opted: true },
    });
    people.edsger = await register(client, second.id, {
      firstName: "Edsger",
      lastName: "Dijkstra",
      email: "ewd@tue.example",
      company: "TU Eindhoven",
      ticketType: "speaker",
    });
    people.alan = await moveAttendee(client, people.alan.id, "cancelled");
    people.katherine = await moveAttendee(client, people.katherine.id, "pending");
  });

  const names = (attendees: Array<{ id: string }>) =>
    attendees.map((attendee) => Object.keys(people).find((name) => people[name].id === attendee.id) ?? attendee.id);

  async function listNames(query: string, c: Client = client): Promise<string[]> {
    const body = expectStatus(await c.get(`/attendees${query}`), 200);
    assert.equal(body.pagination.total, body.attendees.length, "all on one page");
    return names(body.attendees);
  }

  test("the default list: registrationDate descending (ties by id), every registration of the account", async () => {
    const body = expectStatus(await client.get("/attendees"), 200);
    assert.deepEqual(Object.keys(body).sort(), ["attendees", "pagination"]);
    assert.deepEqual(body.pagination, { page: 1, limit: 20, total: 5, totalPages: 1, hasNext: false, hasPrev: false });
    const expected = Object.values(people).sort((a, b) =>
      a.registrationDate === b.registrationDate ? byId(b, a) : a.registrationDate < b.registrationDate ? 1 : -1,
    );
    assert.deepEqual(ids(body.attendees), ids(expected));
    for (const item of body.attendees)
      assert.deepEqual(item, expectStatus(await client.get(`/attendees/${item.id}`), 200));
    const viaApi = clientFor(server, client.key, "/api");
    assert.deepEqual(expectStatus(await viaApi.get("/attendees"), 200), body);
  });

  test("filter by eventId, status and ticketType", async () => {
    assert.deepEqual((await listNames(`?eventId=${first.id}`)).sort(), ["ada", "alan", "grace", "katherine"]);
    assert.deepEqual(await listNames(`?eventId=${second.id}`), ["edsger"]);
    assert.deepEqual(await listNames("?eventId=evt_doesnotexist"), []);
    assert.deepEqual((await listNames("?status=confirmed")).sort(), ["ada", "edsger", "grace"]);
    assert.deepEqual(await listNames("?status=cancelled"), ["alan"]);
    assert.deepEqual(await listNames("?status=pending"), ["katherine"]);
    assert.deepEqual(await listNames("?status=checked-in"), []);
    assert.deepEqual((await listNames("?ticketType=speaker")).sort(), ["edsger", "grace"]);
    assert.deepEqual(await listNames(`?ticketType=speaker&eventId=${first.id}`), ["grace"]);
    assert.deepEqual(await listNames(`?ticketType=general&status=pending&eventId=${first.id}`), ["katherine"]);
  });

  test("search matches first, last or full name, email or company, case-insensitively", async () => {
    assert.deepEqual(await listNames("?search=GRACE"), ["grace"]);
    assert.deepEqual(await listNames("?search=turing"), ["alan"]);
    assert.deepEqual(await listNames(`?search=${encodeURIComponent("ada lovelace")}`), ["ada"]);
    assert.deepEqual(await listNames("?search=BLETCHLEY.example"), ["alan"]);
    assert.deepEqual(await listNames("?search=nasa"), ["katherine"]);
    assert.deepEqual(await listNames("?search=Analytical"), ["ada"]);
    assert.deepEqual(await listNames("?search=.example&sortBy=firstName&order=asc"), [
      "ada",
      "alan",
      "edsger",
      "grace",
      "katherine",
    ]);
    assert.deepEqual(await listNames("?search=nobody"), []);
    assert.deepEqual(await listNames(`?search=${encodeURIComponent("%")}`), []);
  });

  test("carbonOffset=true|false filters on carbonOffset.opted", async () => {
    assert.deepEqual((await listNames("?carbonOffset=true")).sort(), ["grace", "katherine"]);
    assert.deepEqual((await listNames("?carbonOffset=false")).sort(), ["ada", "alan", "edsger"]);
    assert.deepEqual(await listNames(`?carbonOffset=true&eventId=${second.id}`), []);
  });

  test("sortBy firstName, lastName, company in both orders", async () => {
    assert.deepEqual(await listNames("?sortBy=firstName&order=asc"), ["ada", "alan", "edsger", "grace", "katherine"]);
    assert.deepEqual(await listNames("?sortBy=firstName&order=desc"), ["katherine", "grace", "edsger", "alan", "ada"]);
    assert.deepEqual(await listNames("?sortBy=lastName&order=asc"), ["edsger", "grace", "katherine", "ada", "alan"]);
    assert.deepEqual(await listNames("?sortBy=lastName"), ["alan", "ada", "katherine", "grace", "edsger"]);
    assert.deepEqual(await listNames("?sortBy=company&order=asc"), ["ada", "alan", "katherine", "edsger", "grace"]);
    assert.deepEqual(await listNames("?sortBy=company&order=desc"), ["grace", "edsger", "katherine", "alan", "ada"]);
    const byDate = Object.values(people).sort((a, b) =>
      a.registrationDate === b.registrationDate ? byId(a, b) : a.registrationDate < b.registrationDate ? -1 : 1,
    );
    assert.deepEqual(await listNames("?sortBy=registrationDate&order=asc"), names(byDate));
  });

  test("pagination with limit and perPage; a page past the end is empty", async () => {
    const all = expectStatus(await client.get("/attendees?sortBy=firstName&order=asc"), 200).attendees;
    const page1 = expectStatus(await client.get("/attendees?sortBy=firstName&order=asc&limit=2"), 200);
    assert.deepEqual(page1.pagination, { page: 1, limit: 2, total: 5, totalPages: 3, hasNext: true, hasPrev: false });
    const page2 = expectStatus(await client.get("/attendees?sortBy=firstName&order=asc&perPage=2&page=2"), 200);
    assert.deepEqual(page2.pagination, { page: 2, limit: 2, total: 5, totalPages: 3, hasNext: true, hasPrev: true });
    const page3 = expectStatus(await client.get("/attendees?sortBy=firstName&order=asc&limit=2&perPage=2&page=3"), 200);
    assert.deepEqual(page3.pagination, { page: 3, limit: 2, total: 5, totalPages: 3, hasNext: false, hasPrev: true });
    assert.deepEqual(ids([...page1.attendees, ...page2.attendees, ...page3.attendees]), ids(all));
    const past = expectStatus(await client.get("/attendees?limit=2&page=9"), 200);
    assert.deepEqual(past, {
      attendees: [],
      pagination: { page: 9, limit: 2, total: 5, totalPages: 3, hasNext: false, hasPrev: true },
    });
  });

  const badQueries: Array<[string, string]> = [
    ["status=foo", "status"],
    ["status=checked_in", "status"],
    ["carbonOffset=yes", "carbonOffset"],
    ["carbonOffset=1", "carbonOffset"],
    ["sortBy=email", "sortBy"],
    ["sortBy=createdAt", "sortBy"],
    ["order=random", "order"],
    ["limit=500", "limit"],
    ["limit=0", "limit"],
    ["perPage=2&limit=3", "perPage"],
    ["page=0", "page"],
    ["minScore=10", "minScore"],
    ["tags=a", "tags"],
    ["email=ada@example.com", "email"],
    ["eventId=a&eventId=b", "eventId"],
  ];
  for (const [query, field] of badQueries) {
    test(`GET /attendees?${query}: 400 INVALID_REQUEST`, async () => {
      expectError(await client.get(`/attendees?${query}`), 400, "INVALID_REQUEST", field);
    });
  }
});
