/**
 * Vendors' rules and the parts of the vendor link that live in the handler, in process: the
 * booking's status table (written out from docs/api.md), local sourcing's distance, radius and
 * certification date, the link token's shape, an Idempotency-Key on a link's POST, and a
 * vendor's deletion scrubbing the stored answers that showed its contact.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { DEFAULT_CARBON_SETTINGS } from "../src/carbon/carbon-settings.ts";
import { ServiceError } from "../src/errors.ts";
import { createHandler, type RequestLogEntry } from "../src/http/handler.ts";
import { BOOKING_STATUSES } from "../src/resources/vendor.ts";
import { isLinkToken, linkHashOf, newLinkToken } from "../src/resources/link-token.ts";
import {
  assertBookingTransition,
  assertTakesVendorData,
  bookingsClosedBy,
  dataAcceptedUntil,
} from "../src/rules/booking-status.ts";
import { goalStatuses } from "../src/rules/goals.ts";
import { distanceKm, vendorFiguresOf, vendorShares } from "../src/rules/local-sourcing.ts";
import { NO_ACTIVITY_FIGURES } from "../src/resources/activity-figures.ts";
import { NO_FIGURES } from "../src/rules/kept-figures.ts";
import { createEventService } from "../src/service.ts";
import { sqliteStorage } from "./_sqlite.ts";
import { apiRequest, EVENT } from "./_fixtures.ts";

// Written out from docs/api.md (Vendors), not derived from the code's table.
const ALLOWED = new Set([
  "requested>requested",
  "requested>confirmed",
  "requested>declined",
  "requested>cancelled",
  "confirmed>confirmed",
  "confirmed>cancelled",
  "declined>declined",
  "cancelled>cancelled",
]);

describe("the booking's rules", () => {
  test("every status change is allowed exactly as docs/api.md lists it; the rest are 422 naming status", () => {
    for (const from of BOOKING_STATUSES) {
      for (const to of BOOKING_STATUSES) {
        const allowed = ALLOWED.has(`${from}>${to}`);
        if (allowed) assert.doesNotThrow(() => assertBookingTransition(from, to), `${from} > ${to}`);
        else
          assert.throws(
            () => assertBookingTransition(from, to),
            (error: unknown) =>
              ServiceError.is(error) && error.code === "INVALID_STATE_TRANSITION" && error.field === "status",
            `${from} > ${to}`,
          );
      }
    }
  });

  test("an event's cancellation closes requested and confirmed bookings, its completion requested ones only", () => {
    assert.deepEqual(bookingsClosedBy("cancelled"), ["requested", "confirmed"]);
    assert.deepEqual(bookingsClosedBy("completed"), ["requested"]);
    assert.deepEqual(bookingsClosedBy("published"), []);
  });

  test("a link takes data once confirmed, until 30 days after the event's end, to the millisecond", () => {
    const end = "2038-06-02T18:00:00.000Z";
    assert.equal(dataAcceptedUntil(end), "2038-07-02T18:00:00.000Z");
    assert.doesNotThrow(() => assertTakesVendorData("confirmed", end, "2038-07-02T18:00:00.000Z"));
    for (const [status, now] of [
      ["confirmed", "2038-07-02T18:00:00.001Z"],
      ["requested", "2038-06-01T00:00:00.000Z"],
      ["declined", "2038-06-01T00:00:00.000Z"],
    ] as const) {
      assert.throws(
        () => assertTakesVendorData(status, end, now),
        (error: unknown) => ServiceError.is(error) && error.code === "INVALID_STATE_TRANSITION",
      );
    }
  });

  test("a link token is 256 random bits, URL-safe, looked up by its SHA-256 only", () => {
    const token = newLinkToken("vendor");
    assert.match(token, /^vrq_[A-Za-z0-9_-]{43}$/);
    assert.notEqual(newLinkToken("vendor"), token);
    assert.equal(isLinkToken(token, "vendor"), true);
    assert.equal(isLinkToken(`${token}x`, "vendor"), false);
    assert.equal(isLinkToken("esk_0123", "vendor"), false);
    assert.match(linkHashOf(token), /^[0-9a-f]{64}$/);
    assert.equal(linkHashOf(token), linkHashOf(token));
  });
});

describe("local sourcing", () => {
  const berlin = { lat: 52.52, lng: 13.405 };

  test("great-circle distances match published figures", () => {
    // Berlin to Munich is about 504 km, to Potsdam about 27 km, London to Paris about 344 km.
    assert.ok(Math.abs(distanceKm(berlin, { lat: 48.137, lng: 11.575 }) - 504) < 2);
    assert.ok(Math.abs(distanceKm(berlin, { lat: 52.39, lng: 13.064 }) - 26.8) < 1);
    assert.ok(Math.abs(distanceKm({ lat: 51.5074, lng: -0.1278 }, { lat: 48.8566, lng: 2.3522 }) - 343.5) < 1.5);
    assert.equal(distanceKm(berlin, berlin), 0);
    // Antipodes: half the circumference, no NaN from rounding past 1.
    assert.ok(Math.abs(distanceKm({ lat: 0, lng: 0 }, { lat: 0, lng: 180 }) - Math.PI * 6371.0088) < 1e-6);
  });

  test("local within the radius by coordinates; certified by a validity not before the start's day", () => {
    const event = { startDate: "2038-06-01T08:00:00.000Z", location: { coordinates: berlin } };
    const vendors = [
      { coordinates: { lat: 52.39, lng: 13.064 }, certifications: [{ validUntil: "2038-06-01" }] },
      { coordinates: { lat: 48.137, lng: 11.575 }, certifications: [{ validUntil: "2038-05-31" }] },
      { coordinates: null, certifications: [{ validUntil: null }] },
      { coordinates: { lat: 53.55, lng: 9.993 }, certifications: [] },
    ];
    // Hamburg is about 255 km from Berlin: local at a 300 km radius, not at the default 160.
    assert.deepEqual(vendorFiguresOf(event, vendors, DEFAULT_CARBON_SETTINGS), {
      confirmed: 4,
      local: 1,
      certified: 2,
    });
    assert.deepEqual(vendorFiguresOf(event, vendors, { localSourcingRadiusKm: 300 }), {
      confirmed: 4,
      local: 2,
      certified: 2,
    });
    // An event without coordinates has no local vendor.
    assert.equal(
      vendorFiguresOf({ ...event, location: { coordinates: null } }, vendors, DEFAULT_CARBON_SETTINGS).local,
      0,
    );
    assert.deepEqual(vendorShares({ confirmed: 3, local: 2, certified: 0 }), {
      confirmed: 3,
      local: 2,
      localSharePercent: 66.7,
      certified: 0,
      certifiedSharePercent: 0,
    });
    assert.deepEqual(vendorShares({ confirmed: 0, local: 0, certified: 0 }).localSharePercent, null);
  });

  test("the goal is met at the target share, not below; unmeasurable with no confirmed vendor", () => {
    const judge = (vendors: { confirmed: number; local: number; certified: number } | undefined, target = 50) =>
      goalStatuses(
        { localSourcing: true },
        { capacity: 10, kept: NO_FIGURES, activities: NO_ACTIVITY_FIGURES, ...(vendors && { vendors }) },
        { ...DEFAULT_CARBON_SETTINGS, localSourcingTargetPercent: target },
      ).find((goal) => goal.type === "local_sourcing");
    assert.deepEqual(judge({ confirmed: 4, local: 2, certified: 0 }), {
      type: "local_sourcing",
      set: true,
      met: true,
      target: 50,
      metrics: { confirmedVendors: 4, localVendors: 2, localSharePercent: 50, targetPercent: 50 },
    });
    assert.equal(judge({ confirmed: 3, local: 1, certified: 0 })?.met, false);
    assert.equal(judge({ confirmed: 3, local: 2, certified: 0 }, 70)?.met, false);
    assert.equal(judge({ confirmed: 0, local: 0, certified: 0 })?.met, null);
    assert.equal(judge(undefined)?.met, null);
  });
});

describe("the vendor link in the handler", () => {
  async function setUp() {
    const storage = await sqliteStorage();
    // A clock that stands still: a link's budget's minute never turns during a test.
    const service = createEventService({ storage, now: () => new Date("2037-01-01T12:00:30.000Z") });
    const logged: RequestLogEntry[] = [];
    const handler = createHandler(service, {
      clientAddress: () => "198.51.100.7",
      onRequestEnd: (entry) => logged.push(entry),
      vendorLinkLimitPerMinute: 12,
    });
    const { key, accountId } = await service.keys.create({ account: "Acme" });
    const account = service.forAccount(accountId);
    const event = await account.events.create({ ...EVENT, name: "Link Summit" });
    const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const response = await handler(apiRequest(method, `http://localhost${path}`, key, body, headers));
      return { status: response.status, body: await response.json(), headers: response.headers };
    };
    return { storage, account, event, call, logged };
  }

  test("an Idempotency-Key on a link's POST records once and replays the answer; the log never shows the token", async (t) => {
    const { storage, account, event, call, logged } = await setUp();
    t.after(() => storage.close());
    const vendor = await account.vendors.create({ name: "Green Plate", category: "catering" });
    const booking = await account.bookings.create(event.id, {
      vendorId: vendor.id,
      services: "Lunch",
      dataRequested: ["catering"],
    });
    const link = new URL(booking.vendorLink!).pathname;
    assert.equal((await call("POST", `${link}/confirm`)).status, 200);
    const record = { kind: "catering", quantity: 120, unit: "meals", mealType: "vegetarian" };
    const first = await call("POST", `${link}/activities`, record, { "idempotency-key": "covers-day-1" });
    const again = await call("POST", `${link}/activities`, record, { "idempotency-key": "covers-day-1" });
    assert.deepEqual([first.status, again.status, again.headers.get("idempotent-replayed")], [201, 201, "true"]);
    assert.deepEqual(again.body, first.body);
    const other = await call(
      "POST",
      `${link}/activities`,
      { ...record, quantity: 1 },
      { "idempotency-key": "covers-day-1" },
    );
    assert.equal(other.body.error.code, "IDEMPOTENCY_KEY_REUSED");
    assert.equal((await account.activities.list(event.id)).pagination.total, 1);
    const token = link.split("/").at(-1)!;
    const paths = logged.filter((entry) => entry.route?.includes("vendor-requests")).map((entry) => entry.path);
    assert.equal(paths.length, 4);
    assert.ok(paths.every((path) => path.startsWith("/v1/vendor-requests/vrq_…") && !path.includes(token.slice(4))));
  });

  test("a link's keys are its booking's alone; a replayed booking shows no link, and the store keeps none", async (t) => {
    const { storage, account, event, call } = await setUp();
    t.after(() => storage.close());
    const vendor = await account.vendors.create({ name: "Stage Co", category: "production" });
    const other = await account.vendors.create({ name: "Light Co", category: "production" });
    const body = { vendorId: vendor.id, services: "Stage", dataRequested: ["materials"] };
    const booked = await call("POST", `/v1/events/${event.id}/vendors`, body, { "idempotency-key": "book-stage" });
    const replayed = await call("POST", `/v1/events/${event.id}/vendors`, body, { "idempotency-key": "book-stage" });
    assert.deepEqual([booked.status, replayed.status, replayed.headers.get("idempotent-replayed")], [201, 201, "true"]);
    assert.deepEqual(replayed.body, { ...booked.body, vendorLink: null });
    const token = booked.body.vendorLink.split("/").at(-1);
    // The kept answer, read back as a retry's claim would find it.
    const kept = await storage.claimIdempotencyKey({
      accountId: account.accountId,
      key: "book-stage",
      requestHash: "",
      now: new Date().toISOString(),
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
      staleBefore: new Date(0).toISOString(),
    });
    assert.ok(kept?.response && !kept.response.body.includes(token.slice(4)));

    // Two bookings' links and the account use the same key, each for itself.
    const second = await account.bookings.create(event.id, { vendorId: other.id, services: "Light" });
    const links = [booked.body.vendorLink, second.vendorLink!].map((link: string) => new URL(link).pathname);
    for (const link of links) {
      const answer = await call("POST", `${link}/confirm`, { message: "Yes" }, { "idempotency-key": "same-key" });
      assert.deepEqual([answer.status, answer.body.status], [200, "confirmed"]);
    }
    const own = await call(
      "POST",
      "/v1/vendors",
      { name: "Sound Co", category: "audio_visual" },
      { "idempotency-key": "same-key" },
    );
    assert.equal(own.status, 201);
  });

  test("a declined booking of a deleted vendor opens nothing; the organiser cannot move a link's record to another vendor", async (t) => {
    const { storage, account, event, call } = await setUp();
    t.after(() => storage.close());
    const vendor = await account.vendors.create({ name: "Bins Ltd", category: "waste" });
    const booking = await account.bookings.create(event.id, {
      vendorId: vendor.id,
      services: "Bins",
      dataRequested: ["waste"],
    });
    const link = new URL(booking.vendorLink!).pathname;
    assert.equal((await call("POST", `${link}/confirm`)).status, 200);
    const record = await call("POST", `${link}/activities`, {
      kind: "waste",
      quantity: 90,
      unit: "kg",
      stream: "recycling",
    });
    const other = await account.vendors.create({ name: "Other Bins", category: "waste" });
    const moved = await call("PUT", `/v1/events/${event.id}/activities/${record.body.id}`, { vendorId: other.id });
    assert.deepEqual([moved.status, moved.body.error.field], [400, "vendorId"]);
    assert.equal(
      (await call("PUT", `/v1/events/${event.id}/activities/${record.body.id}`, { quantity: 95 })).status,
      200,
    );

    const declined = await account.bookings.create(event.id, { vendorId: other.id, services: "Spare bins" });
    const declinedLink = new URL(declined.vendorLink!).pathname;
    assert.equal((await call("POST", `${declinedLink}/decline`)).status, 200);
    assert.equal((await call("DELETE", `/v1/vendors/${other.id}`)).status, 200);
    for (const [method, path] of [
      ["GET", declinedLink],
      ["GET", `${declinedLink}/activities`],
      ["POST", `${declinedLink}/confirm`],
    ] as const)
      assert.deepEqual([method, path, (await call(method, path)).status], [method, path, 404]);
  });

  test("a link's requests have a budget of their own: past it 429, another link and the account unaffected", async (t) => {
    const { storage, account, event, call } = await setUp();
    t.after(() => storage.close());
    const links: string[] = [];
    for (const name of ["One", "Two"]) {
      const vendor = await account.vendors.create({ name, category: "other" });
      const booking = await account.bookings.create(event.id, { vendorId: vendor.id, services: name });
      links.push(new URL(booking.vendorLink!).pathname);
    }
    const statuses = [];
    for (let i = 0; i < 13; i++) statuses.push((await call("GET", links[0]!)).status);
    assert.deepEqual(statuses, [...Array(12).fill(200), 429]);
    const refused = await call("GET", links[0]!);
    assert.equal(refused.body.error.code, "RATE_LIMIT_EXCEEDED");
    assert.equal(refused.body.error.details.scope, "vendorLink");
    assert.ok(Number(refused.headers.get("retry-after")) >= 1);
    assert.equal((await call("GET", links[1]!)).status, 200);
    assert.equal((await call("GET", "/v1/vendors")).status, 200);
  });

  test("deleting a vendor replaces the stored answers that showed its contact; its records keep its id", async (t) => {
    const { storage, account, event, call } = await setUp();
    t.after(() => storage.close());
    const body = {
      name: "Waste Co",
      category: "waste",
      contact: { name: "Bo Diaz", email: "bo@waste.example", phone: "+49 30 1" },
    };
    const created = await call("POST", "/v1/vendors", body, { "idempotency-key": "vendor-1" });
    assert.equal(created.status, 201);
    const kept = await call("POST", `/v1/events/${event.id}/activities`, {
      kind: "waste",
      quantity: 300,
      unit: "kg",
      stream: "recycling",
      vendorId: created.body.id,
    });
    assert.equal((await call("DELETE", `/v1/vendors/${created.body.id}`)).status, 200);
    const replay = await call("POST", "/v1/vendors", body, { "idempotency-key": "vendor-1" });
    assert.equal(replay.status, 404);
    assert.deepEqual(replay.body.error.details, { erased: true });
    assert.doesNotMatch(JSON.stringify(replay.body), /bo@waste/);
    assert.equal((await account.activities.get(event.id, kept.body.id)).vendorId, created.body.id);
    assert.equal((await call("GET", `/v1/vendors/${created.body.id}`)).status, 404);
  });
});
