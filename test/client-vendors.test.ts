/**
 * The typed client's vendors and bookings, and the vendor's link client (@event-service/client,
 * built), against the real server: what each call answers, the errors they throw, the records a
 * vendor makes through its link, and the event analytics' vendor shares; then the link client
 * across origins, through a fetch that applies a browser's CORS rules and in headless Chromium
 * (skipped without it, as test/browser.test.ts is, and in the PostgreSQL pass).
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join, normalize, sep } from "node:path";
import { after, before, describe, test } from "node:test";
import { chromium } from "playwright-core";
import {
  createClient,
  createVendorLinkClient,
  type EventServiceClient,
  EventServiceError,
  type VendorCreateInput,
} from "@event-service/client";
import { eventInput } from "./fixtures/builders.ts";
import { ROOT, SQLITE_PASS_ONLY, startServer, type TestServer } from "./_setup.ts";

/** Alexanderplatz; Bernau bei Berlin is some 22 km from it, Munich some 500. */
const BERLIN = { lat: 52.5219, lng: 13.4132 };
const BERNAU = { lat: 52.6798, lng: 13.5874 };
const MUNICH = { lat: 48.1374, lng: 11.5755 };

const caterer = (overrides: Partial<VendorCreateInput> = {}): VendorCreateInput => ({
  name: "Green Fork Catering",
  category: "catering",
  contact: { name: "Mina Okafor", email: "mina@greenfork.example" },
  location: { city: "Bernau bei Berlin", country: "DE", coordinates: BERNAU },
  certifications: [{ scheme: "ISO 20121", reference: "CERT-2041", validUntil: "2039-12-31" }],
  ...overrides,
});

/** Asserts a call was refused with this status, code and (when given) field. */
async function refused(call: Promise<unknown>, status: number, code: string, field?: string) {
  await assert.rejects(call, (error: unknown) => {
    assert.ok(EventServiceError.is(error), String(error));
    assert.deepEqual(
      [error.status, error.code, ...(field === undefined ? [] : [error.field])],
      [status, code, ...(field === undefined ? [] : [field])],
      error.message,
    );
    return true;
  });
}

describe("@event-service/client: vendors, bookings and the vendor's link", () => {
  let server: TestServer;
  /** An organiser of an account of its own. */
  const organiser = async (account: string): Promise<EventServiceClient> =>
    createClient({ baseUrl: server.url, apiKey: (await server.createKey({ account })).key });

  before(async () => {
    server = await startServer();
  });
  after(async () => assert.equal(await server.stop(), 0));

  test("vendors: create, read, update, list by category and name, walk, delete; another account's is 404", async () => {
    const client = await organiser("Vendors CRUD");
    const created = await client.vendors.create(caterer());
    assert.match(created.id, /^ven_[0-9a-f]{24}$/);
    assert.deepEqual(
      { ...created, id: undefined, createdAt: undefined, updatedAt: undefined },
      {
        id: undefined,
        name: "Green Fork Catering",
        category: "catering",
        contact: { name: "Mina Okafor", email: "mina@greenfork.example", phone: null },
        location: {
          address: null,
          city: "Bernau bei Berlin",
          state: null,
          country: "DE",
          zipCode: null,
          coordinates: BERNAU,
        },
        certifications: [{ scheme: "ISO 20121", reference: "CERT-2041", validUntil: "2039-12-31" }],
        notes: null,
        metadata: {},
        createdAt: undefined,
        updatedAt: undefined,
      },
    );
    assert.deepEqual(await client.vendors.get(created.id), created);
    const updated = await client.vendors.update(created.id, { notes: "Seasonal menu", contact: null });
    assert.equal(updated.notes, "Seasonal menu");
    assert.equal(updated.contact, null);
    assert.deepEqual(updated.certifications, created.certifications);

    const venue = await client.vendors.create({ name: "Old Tram Depot", category: "venue" });
    const bus = await client.vendors.create({ name: "Electric Coaches", category: "transport" });
    const caterers = await client.vendors.list({ category: "catering" });
    assert.deepEqual(
      caterers.vendors.map((v) => v.id),
      [created.id],
    );
    assert.equal(caterers.pagination.total, 1);
    assert.deepEqual(
      (await client.vendors.list({ search: "TRAM" })).vendors.map((v) => v.id),
      [venue.id],
    );
    const walked: string[] = [];
    for await (const vendor of client.vendors.listAll({ limit: 1 })) walked.push(vendor.id);
    assert.deepEqual(walked.toSorted(), [created.id, venue.id, bus.id].toSorted());

    const stranger = await organiser("Vendors stranger");
    await refused(stranger.vendors.get(created.id), 404, "NOT_FOUND");
    await refused(stranger.vendors.update(created.id, { notes: "mine" }), 404, "NOT_FOUND");
    await refused(client.vendors.create({ name: "", category: "catering" }), 400, "INVALID_REQUEST", "name");

    const deleted = await client.vendors.delete(bus.id);
    assert.equal(deleted.success, true);
    assert.equal(deleted.deletedId, bus.id);
    await refused(client.vendors.get(bus.id), 404, "NOT_FOUND");
  });

  test("bookings: book with the link, read without it, list by status, a second active booking refused, rotate the link", async () => {
    const client = await organiser("Bookings");
    const event = await client.events.create(eventInput() as never);
    const vendor = await client.vendors.create(caterer());
    const booking = await client.bookings.create(event.id, {
      vendorId: vendor.id,
      services: "Lunch for 100",
      dataRequested: ["catering", "waste", "catering"],
    });
    assert.match(booking.id, /^vbk_[0-9a-f]{24}$/);
    const { vendorLink, ...withoutLink } = booking;
    assert.match(vendorLink ?? "", new RegExp(`^${server.url}/v1/vendor-requests/vrq_[A-Za-z0-9_-]+$`));
    assert.deepEqual(
      { ...withoutLink, id: undefined, createdAt: undefined, updatedAt: undefined },
      {
        id: undefined,
        eventId: event.id,
        vendorId: vendor.id,
        status: "requested",
        services: "Lunch for 100",
        dataRequested: ["catering", "waste"],
        respondedAt: null,
        message: null,
        createdAt: undefined,
        updatedAt: undefined,
      },
    );
    assert.deepEqual(await client.bookings.get(event.id, booking.id), withoutLink);
    await refused(
      client.bookings.create(event.id, { vendorId: vendor.id, services: "Dinner" }),
      409,
      "DUPLICATE_BOOKING",
    );
    await refused(client.bookings.create(event.id, { vendorId: "ven_missing", services: "Dinner" }), 404, "NOT_FOUND");
    await refused(client.bookings.create("evt_missing", { vendorId: vendor.id, services: "Dinner" }), 404, "NOT_FOUND");

    const venue = await client.vendors.create({ name: "Old Tram Depot", category: "venue" });
    const hall = await client.bookings.create(event.id, { vendorId: venue.id, services: "The hall" });
    assert.deepEqual(hall.dataRequested, []);
    const changed = await client.bookings.update(event.id, hall.id, { services: "The hall and the yard" });
    assert.equal(changed.services, "The hall and the yard");
    const cancelled = await client.bookings.update(event.id, hall.id, { status: "cancelled" });
    assert.equal(cancelled.status, "cancelled");
    await refused(client.bookings.update(event.id, hall.id, { status: "confirmed" }), 422, "INVALID_STATE_TRANSITION");
    assert.deepEqual(
      (await client.bookings.list(event.id, { status: "requested" })).bookings.map((b) => b.id),
      [booking.id],
    );
    const all: string[] = [];
    for await (const each of client.bookings.listAll(event.id, { limit: 1 })) all.push(each.id);
    assert.deepEqual(all.toSorted(), [booking.id, hall.id].toSorted());

    const rotated = await client.bookings.rotateLink(event.id, booking.id);
    assert.equal(rotated.id, booking.id);
    assert.notEqual(rotated.vendorLink, vendorLink);
    await refused(createVendorLinkClient({ link: vendorLink }).get(), 404, "NOT_FOUND");
    assert.equal((await createVendorLinkClient({ link: rotated.vendorLink }).get()).id, booking.id);
    // The cancelled booking's link is gone too.
    await refused(createVendorLinkClient({ link: hall.vendorLink }).get(), 404, "NOT_FOUND");
  });

  test("the vendor's link: the request, a confirmation with a message, records of the requested kinds, a correction, a deletion", async () => {
    const client = await organiser("Vendor link");
    const event = await client.events.create(eventInput({ name: "Link Summit", timeZone: "Europe/Berlin" }) as never);
    const vendor = await client.vendors.create(caterer());
    const booking = await client.bookings.create(event.id, {
      vendorId: vendor.id,
      services: "Lunch and dinner, both days",
      dataRequested: ["catering"],
    });
    const link = createVendorLinkClient({ link: booking.vendorLink });
    const expected = {
      id: booking.id,
      status: "requested",
      services: "Lunch and dinner, both days",
      dataRequested: ["catering"],
      vendor: { name: "Green Fork Catering" },
      event: {
        name: "Link Summit",
        startDate: "2038-05-01T09:00:00.000Z",
        endDate: "2038-05-01T17:00:00.000Z",
        timeZone: "Europe/Berlin",
        location: { city: "Berlin", country: "DE" },
      },
      dataAcceptedUntil: "2038-05-31T17:00:00.000Z",
    };
    assert.deepEqual(await link.get(), expected);
    const meals = { kind: "catering", quantity: 100, unit: "meals", mealType: "vegan" } as const;
    await refused(link.activities.create(meals), 422, "INVALID_STATE_TRANSITION");
    await refused(link.activities.list(), 422, "INVALID_STATE_TRANSITION");

    assert.deepEqual(await link.confirm({ message: "Happy to cater, see you there." }), {
      ...expected,
      status: "confirmed",
    });
    const seen = await client.bookings.get(event.id, booking.id);
    assert.equal(seen.status, "confirmed");
    assert.equal(seen.message, "Happy to cater, see you there.");
    assert.ok(Date.parse(seen.respondedAt!) <= Date.now());
    await refused(link.decline(), 422, "INVALID_STATE_TRANSITION");
    // Confirming again changes nothing: the first answer stands.
    assert.equal((await link.confirm({ message: "Still on." })).status, "confirmed");
    assert.equal((await client.bookings.get(event.id, booking.id)).message, "Happy to cater, see you there.");
    await refused(
      link.activities.create({ ...meals, vendorId: vendor.id } as never),
      400,
      "INVALID_REQUEST",
      "vendorId",
    );

    const vegan = await link.activities.create(meals);
    assert.deepEqual(
      [vegan.eventId, vegan.vendorId, vegan.kind, vegan.quantity, vegan.unit, vegan.mealType],
      [event.id, vendor.id, "catering", 100, "meals", "vegan"],
    );
    // 100 vegan meals at 0.96333 kg each (Scarborough et al. 2014).
    assert.equal(vegan.emissionsKg, 96.333);
    const meat = await link.activities.create({ kind: "catering", quantity: 50, unit: "meals", mealType: "meat" });
    await refused(link.activities.create({ kind: "water", quantity: 3, unit: "m3" }), 400, "INVALID_REQUEST", "kind");

    const corrected = await link.activities.update(vegan.id, { quantity: 120 });
    assert.equal(corrected.quantity, 120);
    // quantity x factor.value, as stored (docs/api.md): not rounded.
    assert.equal(corrected.emissionsKg, 120 * 0.96333);
    assert.equal(corrected.vendorId, vendor.id);
    const listed = await link.activities.list();
    assert.deepEqual(
      listed.activities.map((a) => [a.id, a.quantity]),
      [
        [vegan.id, 120],
        [meat.id, 50],
      ],
    );
    // The organiser sees the vendor's records among the event's, its own beside them.
    const own = await client.activities.create(event.id, { kind: "water", quantity: 2, unit: "m3" });
    const ofEvent: Array<[string, string | null]> = [];
    for await (const activity of client.activities.listAll(event.id)) ofEvent.push([activity.id, activity.vendorId]);
    assert.deepEqual(ofEvent, [
      [vegan.id, vendor.id],
      [meat.id, vendor.id],
      [own.id, null],
    ]);
    // The link sees its own records only, and changes no other.
    const throughLink: string[] = [];
    for await (const activity of link.activities.listAll({ limit: 1 })) throughLink.push(activity.id);
    assert.deepEqual(throughLink, [vegan.id, meat.id]);
    await refused(link.activities.update(own.id, { quantity: 3 }), 404, "NOT_FOUND");
    await refused(link.activities.delete(own.id), 404, "NOT_FOUND");

    const deleted = await link.activities.delete(meat.id);
    assert.deepEqual([deleted.success, deleted.deletedId], [true, meat.id]);
    await refused(link.activities.delete(meat.id), 404, "NOT_FOUND");
    assert.deepEqual(
      (await link.activities.list()).activities.map((a) => a.id),
      [vegan.id],
    );
  });

  test("a declined booking's link still shows it and takes no record; a vendor booked is not deleted until its booking ends", async () => {
    const client = await organiser("Declines");
    const event = await client.events.create(eventInput() as never);
    const vendor = await client.vendors.create(caterer());
    const booking = await client.bookings.create(event.id, {
      vendorId: vendor.id,
      services: "Breakfast",
      dataRequested: ["catering"],
    });
    await refused(client.vendors.delete(vendor.id), 409, "VENDOR_IN_USE");
    const link = createVendorLinkClient({ link: booking.vendorLink });
    const declined = await link.decline({ message: "Fully booked that weekend." });
    assert.equal(declined.status, "declined");
    assert.equal((await link.get()).status, "declined");
    const seen = await client.bookings.get(event.id, booking.id);
    assert.deepEqual([seen.status, seen.message], ["declined", "Fully booked that weekend."]);
    await refused(
      link.activities.create({ kind: "catering", quantity: 10, unit: "meals", mealType: "fish" }),
      422,
      "INVALID_STATE_TRANSITION",
    );
    await refused(link.confirm(), 422, "INVALID_STATE_TRANSITION");
    // Declined, the vendor may be booked again, and, once that booking is cancelled, deleted.
    const again = await client.bookings.create(event.id, { vendorId: vendor.id, services: "Breakfast, day two" });
    await refused(client.vendors.delete(vendor.id), 409, "VENDOR_IN_USE");
    await client.bookings.update(event.id, again.id, { status: "cancelled" });
    assert.equal((await client.vendors.delete(vendor.id)).deletedId, vendor.id);
    await refused(link.get(), 404, "NOT_FOUND");
  });

  test("event analytics: the local and certified shares of the confirmed vendors, and the local sourcing goal", async () => {
    const client = await organiser("Vendor analytics");
    const event = await client.events.create(
      eventInput({
        location: { address: "Alexanderplatz 1", city: "Berlin", country: "DE", coordinates: BERLIN },
        sustainabilityGoals: { localSourcing: true },
      }) as never,
    );
    const none = await client.analytics.event(event.id);
    assert.deepEqual(none.vendors, {
      confirmed: 0,
      local: 0,
      localSharePercent: null,
      certified: 0,
      certifiedSharePercent: null,
    });
    assert.deepEqual(
      none.sustainability.goalProgress.find((goal) => goal.type === "local_sourcing"),
      {
        type: "local_sourcing",
        set: true,
        met: null,
        target: 50,
        metrics: { confirmedVendors: 0, localVendors: 0, localSharePercent: null, targetPercent: 50 },
      },
    );

    const near = await client.vendors.create(caterer());
    // Far away, and its certificate ran out before the event starts.
    const far = await client.vendors.create(
      caterer({
        name: "Alpine Kitchens",
        location: { city: "München", country: "DE", coordinates: MUNICH },
        certifications: [{ scheme: "ISO 14001", validUntil: "2038-04-30" }],
      }),
    );
    // In Berlin but without coordinates: not counted as local.
    const unplaced = await client.vendors.create(
      caterer({ name: "Pop-up Bakery", location: { city: "Berlin", country: "DE" }, certifications: [] }),
    );
    // Local, with a certification that never ends.
    const spree = await client.vendors.create(
      caterer({
        name: "Spree Bakery",
        location: { city: "Berlin", country: "DE", coordinates: { lat: 52.5003, lng: 13.4474 } },
        certifications: [{ scheme: "B Corp" }],
      }),
    );
    // Requested but never confirmed, and one declined: counted neither way.
    const pending = await client.vendors.create(caterer({ name: "Maybe Drinks" }));
    const declining = await client.vendors.create(caterer({ name: "Busy Bees" }));
    for (const vendor of [near, far, unplaced, spree, pending, declining]) {
      const booking = await client.bookings.create(event.id, { vendorId: vendor.id, services: "Food" });
      const link = createVendorLinkClient({ link: booking.vendorLink });
      if (vendor === declining) await link.decline();
      else if (vendor !== pending) await link.confirm();
    }
    const { vendors, sustainability } = await client.analytics.event(event.id);
    // 2 of 4 within 160 km (Bernau, Kreuzberg; not Munich, not the one without coordinates);
    // 2 of 4 certified on the start day (not the one expired the day before, not the one with none).
    assert.deepEqual(vendors, {
      confirmed: 4,
      local: 2,
      localSharePercent: 50,
      certified: 2,
      certifiedSharePercent: 50,
    });
    // The target is 50 % (LOCAL_SOURCING_TARGET_PERCENT's default): reached.
    assert.deepEqual(
      sustainability.goalProgress.find((g) => g.type === "local_sourcing"),
      {
        type: "local_sourcing",
        set: true,
        met: true,
        target: 50,
        metrics: { confirmedVendors: 4, localVendors: 2, localSharePercent: 50, targetPercent: 50 },
      },
    );
  });

  test("a POST through the link with the same Idempotency-Key records once, across a rotation of the link", async () => {
    const client = await organiser("Link idempotency");
    const event = await client.events.create(eventInput() as never);
    const vendor = await client.vendors.create(caterer());
    const booking = await client.bookings.create(event.id, {
      vendorId: vendor.id,
      services: "Coffee",
      dataRequested: ["catering"],
    });
    const link = createVendorLinkClient({ link: booking.vendorLink });
    await link.confirm();
    const meals = { kind: "catering", quantity: 40, unit: "meals", mealType: "vegetarian" } as const;
    const first = await link.activities.create(meals, { idempotencyKey: "till-2038-05-01" });
    assert.deepEqual(await link.activities.create(meals, { idempotencyKey: "till-2038-05-01" }), first);
    // The key is kept under the booking, not the token: the new link's retry is the same request.
    const rotated = await client.bookings.rotateLink(event.id, booking.id);
    const relinked = createVendorLinkClient({ link: rotated.vendorLink });
    assert.deepEqual(await relinked.activities.create(meals, { idempotencyKey: "till-2038-05-01" }), first);
    await refused(
      relinked.activities.create({ ...meals, quantity: 41 }, { idempotencyKey: "till-2038-05-01" }),
      422,
      "IDEMPOTENCY_KEY_REUSED",
    );
    assert.deepEqual(
      (await relinked.activities.list()).activities.map((a) => a.id),
      [first.id],
    );
  });
});

describe("the vendor's link client as a browser on another origin calls it", () => {
  const ORIGIN = "http://caterer.example.test";
  let server: TestServer;
  /** Every request the browser would send, preflights included, as `METHOD path`. */
  const wire: string[] = [];

  /**
   * A fetch that does what a browser does across origins (the Fetch standard's CORS check): it
   * sends `Origin`; before a request that is not "simple" (a method other than GET, HEAD or
   * POST, a header outside the CORS-safelisted ones, a JSON content-type) it sends a preflight
   * and refuses to go on unless the answer allows the origin, the method and every header; and
   * it refuses an answer without `access-control-allow-origin` for the origin. Refusals are the
   * browser's `TypeError`.
   */
  const browserFetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const safelisted = (name: string, value: string) =>
      ["accept", "accept-language", "content-language"].includes(name) ||
      (name === "content-type" &&
        ["text/plain", "multipart/form-data", "application/x-www-form-urlencoded"].includes(value.split(";")[0]!));
    const unsafe = [...request.headers].filter(([name, value]) => !safelisted(name, value)).map(([name]) => name);
    if (!["GET", "HEAD", "POST"].includes(request.method) || unsafe.length > 0) {
      wire.push(`OPTIONS ${url.pathname}`);
      const preflight = await fetch(url, {
        method: "OPTIONS",
        headers: {
          origin: ORIGIN,
          "access-control-request-method": request.method,
          ...(unsafe.length > 0 && { "access-control-request-headers": unsafe.sort().join(",") }),
        },
      });
      const methods = (preflight.headers.get("access-control-allow-methods") ?? "").split(/,\s*/);
      const headers = (preflight.headers.get("access-control-allow-headers") ?? "").toLowerCase().split(/,\s*/);
      if (
        !preflight.ok ||
        preflight.headers.get("access-control-allow-origin") !== ORIGIN ||
        !methods.includes(request.method) ||
        !unsafe.every((name) => headers.includes(name))
      )
        throw new TypeError(`Failed to fetch: the preflight of ${request.method} ${url.pathname} was refused`);
    }
    wire.push(`${request.method} ${url.pathname}`);
    const headers = new Headers(request.headers);
    headers.set("origin", ORIGIN);
    const response = await fetch(url, {
      method: request.method,
      headers,
      ...(request.body && { body: await request.text() }),
    });
    if (response.headers.get("access-control-allow-origin") !== ORIGIN)
      throw new TypeError(`Failed to fetch: ${request.method} ${url.pathname} answered without CORS`);
    return response;
  }) as typeof globalThis.fetch;

  before(async () => {
    server = await startServer({ env: { CORS_ORIGINS: ORIGIN } });
  });
  after(async () => assert.equal(await server.stop(), 0));

  test("with CORS_ORIGINS, every call of the link passes the browser's check; only JSON bodies, PUT and DELETE need a preflight", async () => {
    const client = createClient({ baseUrl: server.url, apiKey: (await server.createKey()).key });
    const event = await client.events.create(eventInput() as never);
    const vendor = await client.vendors.create(caterer());
    const booking = await client.bookings.create(event.id, {
      vendorId: vendor.id,
      services: "Lunch",
      dataRequested: ["catering"],
    });
    const token = new URL(booking.vendorLink!).pathname;
    // Without generated keys, a bare confirmation is a simple request: no preflight.
    const simple = createVendorLinkClient({ link: booking.vendorLink, fetch: browserFetch, idempotencyKeys: false });
    assert.equal((await simple.get()).status, "requested");
    assert.equal((await simple.confirm()).status, "confirmed");
    assert.deepEqual(wire.splice(0), [`GET ${token}`, `POST ${token}/confirm`]);

    const link = createVendorLinkClient({ link: booking.vendorLink, fetch: browserFetch });
    const record = await link.activities.create({ kind: "catering", quantity: 30, unit: "meals", mealType: "fish" });
    await link.activities.update(record.id, { quantity: 32 });
    assert.equal((await link.activities.list()).activities[0]!.quantity, 32);
    await link.activities.delete(record.id);
    assert.deepEqual(wire.splice(0), [
      `OPTIONS ${token}/activities`,
      `POST ${token}/activities`,
      `OPTIONS ${token}/activities/${record.id}`,
      `PUT ${token}/activities/${record.id}`,
      `GET ${token}/activities`,
      `OPTIONS ${token}/activities/${record.id}`,
      `DELETE ${token}/activities/${record.id}`,
    ]);
    // A refusal reads as the service's error in the browser too, not as a network failure.
    await refused(link.decline(), 422, "INVALID_STATE_TRANSITION");
  });
});

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const BROWSER_SKIP =
  SQLITE_PASS_ONLY ||
  (!existsSync(CHROMIUM) && process.env.CI !== "true"
    ? `no Chromium at ${CHROMIUM}: install Debian's chromium package to run it`
    : false);

describe("the vendor's link client in Chromium, on a plain-http page of another origin", { skip: BROWSER_SKIP }, () => {
  const ORIGIN = "http://caterer.example.test";
  let server: TestServer;

  before(async () => {
    server = await startServer({ env: { CORS_ORIGINS: ORIGIN } });
  });
  after(async () => assert.equal(await server?.stop(), 0));

  /** The vendor's page: the built client and ofetch's modules by an import map, the link in its fragment. */
  const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>A vendor's page</title>
<script type="importmap">${JSON.stringify({
    imports: Object.fromEntries(["ofetch", "destr", "ufo"].map((name) => [name, `/modules/${name}/dist/index.mjs`])),
  })}</script></head>
<body><pre id="result">running...</pre>
<script type="module">
import { createVendorLinkClient } from "/client/index.js";
const result = { secureContext: isSecureContext, randomUUID: typeof crypto.randomUUID };
try {
  const link = createVendorLinkClient({ link: decodeURIComponent(location.hash.slice(1)) });
  result.viewed = (await link.get()).status;
  result.confirmed = (await link.confirm({ message: "Confirmed from our office" })).status;
  const record = await link.activities.create({ kind: "catering", quantity: 12, unit: "meals", mealType: "vegan" });
  result.recorded = { id: record.id, quantity: (await link.activities.update(record.id, { quantity: 14 })).quantity };
  result.listed = (await link.activities.list()).activities.map((a) => a.id);
  try {
    await link.activities.create({ kind: "water", quantity: 1, unit: "m3" });
  } catch (error) {
    result.refused = { name: error.name, status: error.status, code: error.code, field: error.field };
  }
} catch (error) {
  result.failure = { name: error.name, code: error.code, message: error.message };
}
document.getElementById("result").textContent = JSON.stringify(result);
document.body.dataset.state = "done";
</script></body></html>`;

  test("reads, confirms, records and corrects: every call passes Chromium's CORS checks", async () => {
    const client = createClient({ baseUrl: server.url, apiKey: (await server.createKey()).key });
    const event = await client.events.create(eventInput() as never);
    const vendor = await client.vendors.create(caterer());
    const booking = await client.bookings.create(event.id, {
      vendorId: vendor.id,
      services: "Lunch",
      dataRequested: ["catering"],
    });
    // The API is on loopback here, as it would not be for a vendor: Chromium's private network
    // checks (a public page calling a loopback address) are off, its CORS checks are not.
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-features=BlockInsecurePrivateNetworkRequests,PrivateNetworkAccessSendPreflights,LocalNetworkAccessChecks",
      ],
    });
    try {
      const context = await browser.newContext();
      // The page's origin is served from here: the page, the built client and its modules.
      const served = { "/client/": join(ROOT, "packages/client/dist"), "/modules/": join(ROOT, "node_modules") };
      await context.route(`${ORIGIN}/**`, (route) => {
        const path = decodeURIComponent(new URL(route.request().url()).pathname);
        if (path === "/") return route.fulfill({ contentType: "text/html; charset=utf-8", body: PAGE });
        for (const [prefix, dir] of Object.entries(served)) {
          const file = normalize(join(dir, path.slice(prefix.length)));
          if (path.startsWith(prefix) && file.startsWith(dir + sep) && existsSync(file))
            return route.fulfill({ contentType: "text/javascript; charset=utf-8", body: readFileSync(file) });
        }
        return route.fulfill({ status: 404, contentType: "text/plain", body: "not found" });
      });
      const page = await context.newPage();
      await page.goto(`${ORIGIN}/#${encodeURIComponent(booking.vendorLink!)}`);
      await page.waitForSelector("body[data-state=done]", { timeout: 30_000 });
      const result = JSON.parse(await page.locator("#result").innerText());
      assert.equal(result.failure, undefined, JSON.stringify(result.failure));
      assert.deepEqual(result, {
        // A plain-http page has no crypto.randomUUID: its Idempotency-Keys come from getRandomValues.
        secureContext: false,
        randomUUID: "undefined",
        viewed: "requested",
        confirmed: "confirmed",
        recorded: { id: result.recorded.id, quantity: 14 },
        listed: [result.recorded.id],
        refused: { name: "EventServiceError", status: 400, code: "INVALID_REQUEST", field: "kind" },
      });
      const seen = await client.bookings.get(event.id, booking.id);
      assert.deepEqual([seen.status, seen.message], ["confirmed", "Confirmed from our office"]);
      const [recorded] = (await client.activities.list(event.id)).activities;
      assert.deepEqual([recorded?.id, recorded?.vendorId, recorded?.quantity], [result.recorded.id, vendor.id, 14]);
    } finally {
      await browser.close();
    }
  });
});
