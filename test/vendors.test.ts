/**
 * End-to-end: vendor coordination (issue 24; docs/api.md, "Vendors")
 * through the real server, one server for the whole file and an HTTPS receiver for its
 * notifications. The vendors resource (create with normalisation, get, list with filters, search
 * and paging, partial update, delete erasing the contact, 400s naming the field, scopes);
 * bookings (the link shown at creation and rotation only, one active booking per vendor and event
 * even at once, the status rules, `VENDOR_IN_USE`, the vendor's answer raced against the
 * organiser's cancellation); the vendor's own link without a key (exactly the documented view,
 * confirm and decline and their bodies, its activity records, which reach the organiser's list and
 * the footprint, and never another booking's; wrong, rotated and cancelled tokens `404` alike;
 * bad tokens spend the per-address allowance of bad keys; Idempotency-Key; CORS; the token in no
 * log line and no table); the `vendor.*` notifications, signed; local sourcing in the event
 * analytics and its goal, with its two settings; and another account never seeing any of it.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { verifySignature, verifyWebhook } from "@event-service/core/webhooks";
import { type ApiResponse, databaseTables, queryDatabase, startServer, type TestServer } from "./_setup.ts";
import {
  type Client,
  clientFor,
  createEvent,
  expectError,
  expectStatus,
  ISO_UTC,
  ids,
  moveEvent,
} from "./fixtures/api.ts";
import { eventInput, vendorInput } from "./fixtures/builders.ts";
import { makeCertificate, waitForMinuteRoom } from "./fixtures/conventions.ts";
import { deliveryEnv, type Received, type Receiver, startReceiver } from "./fixtures/receiver.ts";

let tls: ReturnType<typeof makeCertificate>;
let receiver: Receiver;
let server: TestServer;
/** Account Acme: every scope, under /v1 and /api. */
let acme: Client;
let acmeApi: Client;
let acmeName: string;
let acmeId: string;
/** Account Globex: every scope. */
let globex: Client;

before(async () => {
  tls = makeCertificate();
  receiver = await startReceiver({ cert: tls.cert, key: readFileSync(tls.keyPath, "utf8") });
  // The link tests send a few bad tokens on purpose; the allowance itself is tested on a server of its own.
  server = await startServer({
    env: deliveryEnv(tls.certPath, { WEBHOOK_TIMEOUT_MS: "15000", AUTH_FAILURE_LIMIT_PER_MINUTE: "100000" }),
  });
  acmeName = `Vendor Acme ${Date.now()}`;
  const key = await server.createKey({ account: acmeName });
  acmeId = key.accountId;
  acme = clientFor(server, key.key);
  acmeApi = clientFor(server, key.key, "/api");
  globex = clientFor(server, (await server.createKey({ account: `Vendor Globex ${Date.now()}` })).key);
});

after(async () => {
  const output = server.output();
  assert.equal(await server.stop("SIGTERM"), 0);
  assert.doesNotMatch(output, /"msg":"unexpected error"/);
  await receiver.close();
  rmSync(tls.dir, { recursive: true, force: true });
});

const VENDOR_ID = /^ven_[0-9a-f]{24}$/;
const BOOKING_ID = /^vbk_[0-9a-f]{24}$/;
const BOOKING_KEYS = [
  "createdAt",
  "dataRequested",
  "eventId",
  "id",
  "message",
  "respondedAt",
  "services",
  "status",
  "updatedAt",
  "vendorId",
];
const DAY_MS = 86_400_000;

/** A client of a new account with every scope. */
async function newAccount(label: string): Promise<Client> {
  return clientFor(server, (await server.createKey({ account: `${label} ${Date.now()} ${Math.random()}` })).key);
}

/** Creates a vendor (201 asserted) and returns it. */
async function createVendor(client: Client, overrides: Record<string, unknown> = {}): Promise<any> {
  return expectStatus(await client.post("/vendors", vendorInput(overrides)), 201);
}

/** Books `vendorId` for `eventId` (201 asserted) and returns the booking with its link. */
async function book(
  client: Client,
  eventId: string,
  vendorId: string,
  overrides: Record<string, unknown> = {},
): Promise<any> {
  const booking = expectStatus(
    await client.post(`/events/${eventId}/vendors`, {
      vendorId,
      services: "Lunch for 300",
      dataRequested: ["catering", "waste"],
      ...overrides,
    }),
    201,
  );
  assert.equal(typeof booking.vendorLink, "string", JSON.stringify(booking));
  return booking;
}

/** A booking as every answer but the create and rotate ones shows it. */
function withoutLink(booking: Record<string, any>): Record<string, any> {
  const { vendorLink: _vendorLink, ...rest } = booking;
  return rest;
}

/** Every link token the tests used (none may be stored in clear). */
const tokensSeen = new Set<string>();

/** The vendor's side of a booking: requests to its link, without any key. */
function vendorSide(booking: { vendorLink: string }) {
  const url = new URL(booking.vendorLink);
  assert.equal(url.origin, new URL(server.url).origin, booking.vendorLink);
  const match = /^\/(?:v1|api)\/vendor-requests\/([^/]+)$/.exec(url.pathname);
  assert.ok(match, `a link of the documented form: ${booking.vendorLink}`);
  const path = url.pathname;
  tokensSeen.add(match[1]!);
  const send = (method: string, suffix: string, body?: unknown) =>
    server.request(method, `${path}${suffix}`, body === undefined ? {} : { body });
  return {
    path,
    token: match[1]!,
    view: () => send("GET", ""),
    confirm: (body?: unknown) => send("POST", "/confirm", body),
    decline: (body?: unknown) => send("POST", "/decline", body),
    record: (body: unknown) => send("POST", "/activities", body),
    records: (query = "") => send("GET", `/activities${query}`),
    update: (id: string, body: unknown) => send("PUT", `/activities/${id}`, body),
    remove: (id: string) => send("DELETE", `/activities/${id}`),
  };
}

/** What the vendor's link shows of a booking: the documented view, nothing else. */
function expectedView(booking: any, vendor: any, event: any, status = booking.status) {
  return {
    id: booking.id,
    status,
    services: booking.services,
    dataRequested: booking.dataRequested,
    vendor: { name: vendor.name },
    event: {
      name: event.name,
      startDate: event.startDate,
      endDate: event.endDate,
      timeZone: event.timeZone,
      location: { city: event.location.city, country: event.location.country },
    },
    dataAcceptedUntil: new Date(Date.parse(event.endDate) + 30 * DAY_MS).toISOString(),
  };
}

const VEGAN_MEALS = { kind: "catering", quantity: 300, unit: "meals", mealType: "vegan" };

/** A token of the documented form that names no booking. */
const unknownToken = () => `vrq_${randomBytes(24).toString("hex")}`;

describe("the vendors resource", () => {
  test("create with every field, normalised; get answers the same under /v1 and /api", async () => {
    const created = expectStatus(
      await acme.post("/vendors", {
        name: "  Riverside Kitchen  ",
        category: "catering",
        contact: { name: " Ana Silva ", email: " ana@riverside.example ", phone: " +44 20 7946 0000 " },
        location: {
          address: " 1 Mill Lane ",
          city: " Bristol ",
          country: "GB",
          zipCode: "BS1 4DJ",
          coordinates: { lat: 51.4545, lng: -2.5879 },
        },
        certifications: [
          { scheme: " ISO 14001 ", reference: "EMS-123", validUntil: "2041-12-31" },
          { scheme: "B Corp" },
          { scheme: "Green Key", reference: null, validUntil: null },
        ],
        notes: "  Vegan menus on request  ",
        metadata: { supplierCode: "RK-7", covers: 300, preferred: true },
      }),
      201,
    );
    assert.match(created.id, VENDOR_ID);
    assert.match(created.createdAt, ISO_UTC);
    assert.deepEqual(created, {
      id: created.id,
      name: "Riverside Kitchen",
      category: "catering",
      contact: { name: "Ana Silva", email: "ana@riverside.example", phone: "+44 20 7946 0000" },
      location: {
        address: "1 Mill Lane",
        city: "Bristol",
        state: null,
        country: "GB",
        zipCode: "BS1 4DJ",
        coordinates: { lat: 51.4545, lng: -2.5879 },
      },
      certifications: [
        { scheme: "ISO 14001", reference: "EMS-123", validUntil: "2041-12-31" },
        { scheme: "B Corp", reference: null, validUntil: null },
        { scheme: "Green Key", reference: null, validUntil: null },
      ],
      notes: "Vegan menus on request",
      metadata: { supplierCode: "RK-7", covers: 300, preferred: true },
      createdAt: created.createdAt,
      updatedAt: created.createdAt,
    });
    assert.deepEqual(expectStatus(await acme.get(`/vendors/${created.id}`), 200), created);
    assert.deepEqual(expectStatus(await acmeApi.get(`/vendors/${created.id}`), 200), created);

    // Only name and category are required; the rest reads as null, [] and {}.
    const minimal = expectStatus(await acmeApi.post("/vendors", { name: "Skip Hire", category: "waste" }), 201);
    assert.deepEqual(minimal, {
      id: minimal.id,
      name: "Skip Hire",
      category: "waste",
      contact: null,
      location: null,
      certifications: [],
      notes: null,
      metadata: {},
      createdAt: minimal.createdAt,
      updatedAt: minimal.createdAt,
    });
    // An empty contact is no contact.
    assert.equal(expectStatus(await acme.post("/vendors", vendorInput({ contact: {} })), 201).contact, null);
  });

  test("bad input is 400 naming the field; nothing is stored", async () => {
    const client = await newAccount("Vendor Input");
    const refused: Array<[Record<string, unknown>, string]> = [
      [vendorInput({ category: "florist" }), "category"],
      [vendorInput({ category: "audio-visual" }), "category"],
      [{ category: "catering" }, "name"],
      [vendorInput({ name: "   " }), "name"],
      [{ name: "No Category" }, "category"],
      [vendorInput({ contact: { email: "not-an-email" } }), "contact.email"],
      [vendorInput({ contact: { email: "ana@" } }), "contact.email"],
      [
        vendorInput({ certifications: [{ scheme: "ISO 20121", validUntil: "31/12/2030" }] }),
        "certifications.0.validUntil",
      ],
      [
        vendorInput({ certifications: [{ scheme: "ISO 20121", validUntil: "2041-02-30" }] }),
        "certifications.0.validUntil",
      ],
      [
        vendorInput({ certifications: [{ scheme: "ISO 20121", validUntil: "2041-12-31T00:00:00Z" }] }),
        "certifications.0.validUntil",
      ],
      [vendorInput({ certifications: [{ reference: "x" }] }), "certifications.0.scheme"],
      [vendorInput({ location: { country: "GB" } }), "location.city"],
      [vendorInput({ location: { city: "Bristol", country: "gb" } }), "location.country"],
      [
        vendorInput({ location: { city: "Bristol", country: "GB", coordinates: { lat: 91, lng: 0 } } }),
        "location.coordinates.lat",
      ],
      [vendorInput({ extra: true }), "extra"],
      [vendorInput({ id: "ven_000000000000000000000000" }), "id"],
      [vendorInput({ contact: { name: "Ana", fax: "123" } }), "contact.fax"],
    ];
    for (const [body, field] of refused)
      expectError(await client.post("/vendors", body), 400, "INVALID_REQUEST", field);
    expectError(await client.post("/vendors", [vendorInput()]), 400, "INVALID_REQUEST");
    assert.equal(expectStatus(await client.get("/vendors"), 200).pagination.total, 0);
  });

  test("list: category filter, name search in any case, paging; another account's vendors are not listed", async () => {
    const client = await newAccount("Vendor List");
    const kitchen = await createVendor(client, { name: "Riverside Kitchen", category: "catering" });
    const av = await createVendor(client, { name: "Hilltop AV", category: "audio_visual" });
    const waste = await createVendor(client, { name: "riverside Waste Ltd", category: "waste" });
    // Found by neither search: the text is in its notes, not its name.
    const notes = await createVendor(client, { name: "Mill Generators", category: "energy", notes: "Riverside depot" });
    await createVendor(globex, { name: "Riverside Globex", category: "catering" });
    const list = async (query = "") => expectStatus(await client.get(`/vendors${query}`), 200);
    const sorted = (items: Array<{ id: string }>) => ids(items).sort();

    const all = await list();
    assert.deepEqual(sorted(all.vendors), ids([kitchen, av, waste, notes]).sort());
    // Newest first, ties by id (from the same millisecond).
    const newestFirst = [kitchen, av, waste, notes].sort((a, b) =>
      a.createdAt !== b.createdAt ? (a.createdAt < b.createdAt ? 1 : -1) : a.id < b.id ? 1 : -1,
    );
    assert.deepEqual(ids(all.vendors), ids(newestFirst));
    assert.deepEqual(all.pagination, { page: 1, limit: 20, total: 4, totalPages: 1, hasNext: false, hasPrev: false });
    assert.deepEqual(
      all.vendors.find((vendor: { id: string }) => vendor.id === kitchen.id),
      kitchen,
      "a listed vendor is the vendor",
    );
    assert.deepEqual(ids((await list("?category=catering")).vendors), [kitchen.id]);
    assert.deepEqual(ids((await list("?category=audio_visual")).vendors), [av.id]);
    assert.deepEqual((await list("?category=venue")).vendors, []);
    assert.deepEqual(sorted((await list("?search=RIVERSIDE")).vendors), ids([kitchen, waste]).sort());
    assert.deepEqual(sorted((await list("?search=riverSIDE%20w")).vendors), [waste.id]);
    assert.deepEqual(sorted((await list(`?search=${encodeURIComponent("  hilltop ")}`)).vendors), [av.id]);
    assert.deepEqual(ids((await list("?search=riverside&category=waste")).vendors), [waste.id]);
    assert.equal((await list("?search=globex")).pagination.total, 0);

    const first = await list("?limit=3");
    assert.equal(first.vendors.length, 3);
    assert.deepEqual(first.pagination, { page: 1, limit: 3, total: 4, totalPages: 2, hasNext: true, hasPrev: false });
    const second = await list("?page=2&perPage=3");
    assert.equal(second.vendors.length, 1);
    assert.deepEqual(second.pagination, { page: 2, limit: 3, total: 4, totalPages: 2, hasNext: false, hasPrev: true });
    assert.deepEqual([...ids(first.vendors), ...ids(second.vendors)], ids(newestFirst));
    assert.deepEqual(
      [...ids(first.vendors), ...ids(second.vendors)].sort(),
      sorted(all.vendors),
      "pages do not overlap",
    );
    assert.deepEqual((await list("?page=3&limit=3")).vendors, []);

    expectError(await client.get("/vendors?category=florist"), 400, "INVALID_REQUEST", "category");
    expectError(await client.get("/vendors?limit=0"), 400, "INVALID_REQUEST", "limit");
    expectError(await client.get("/vendors?sortBy=name"), 400, "INVALID_REQUEST", "sortBy");
    expectError(await client.get("/vendors?search="), 400, "INVALID_REQUEST", "search");
  });

  test("search takes LIKE's wildcards literally and folds non-ASCII capitals", async () => {
    const client = await newAccount("Vendor Search");
    const percent = await createVendor(client, { name: "100% Green Power" });
    const underscore = await createVendor(client, { name: "Hall_B Staging" });
    const umlaut = await createVendor(client, { name: "Äpfel & Öl Catering" });
    await createVendor(client, { name: "Hall B Staging" });
    await createVendor(client, { name: "Plain \\ Backslash" });
    const found = async (search: string) =>
      ids(expectStatus(await client.get(`/vendors?search=${encodeURIComponent(search)}`), 200).vendors).sort();
    assert.deepEqual(await found("%"), [percent.id]);
    assert.deepEqual(await found("0% g"), [percent.id]);
    assert.deepEqual(await found("l_b"), [underscore.id]);
    assert.deepEqual(await found("äpfel"), [umlaut.id]);
    assert.deepEqual(await found("ÄPFEL & ÖL"), [umlaut.id]);
    assert.equal((await found("\\")).length, 1);
    expectError(
      await client.get(`/vendors?search=${encodeURIComponent("a\u0000b")}`),
      400,
      "INVALID_REQUEST",
      "search",
    );
  });

  test("PUT is partial: the fields given change, null clears, objects replace whole; a refused update changes nothing", async () => {
    const vendor = await createVendor(acme, {
      contact: { name: "Ben", email: "ben@example.com" },
      location: { city: "Leeds", country: "GB", coordinates: { lat: 53.8, lng: -1.55 } },
      certifications: [{ scheme: "ISO 20121" }],
      notes: "First notes",
      metadata: { a: 1 },
    });
    const renamed = expectStatus(await acme.put(`/vendors/${vendor.id}`, { name: "  Renamed Caterers " }), 200);
    assert.deepEqual(
      { ...renamed, updatedAt: "x" },
      { ...vendor, name: "Renamed Caterers", updatedAt: "x" },
      "only the name changed",
    );
    assert.ok(renamed.updatedAt >= vendor.updatedAt);
    const changed = expectStatus(
      await acme.put(`/vendors/${vendor.id}`, {
        category: "logistics",
        contact: null,
        location: { city: "York", country: "GB" },
        certifications: [],
        notes: null,
        metadata: { b: "two" },
      }),
      200,
    );
    assert.deepEqual(
      { ...changed, updatedAt: "x" },
      {
        ...renamed,
        category: "logistics",
        contact: null,
        location: { address: null, city: "York", state: null, country: "GB", zipCode: null, coordinates: null },
        certifications: [],
        notes: null,
        metadata: { b: "two" },
        updatedAt: "x",
      },
    );
    assert.equal(changed.createdAt, vendor.createdAt);
    for (const [body, field] of [
      [{ category: "florist" }, "category"],
      [{ name: "" }, "name"],
      [{ name: null }, "name"],
      [{ contact: { email: "nope" } }, "contact.email"],
      [{ certifications: [{ scheme: "B Corp", validUntil: "soon" }] }, "certifications.0.validUntil"],
      [{ createdAt: "2020-01-01T00:00:00.000Z" }, "createdAt"],
    ] as const)
      expectError(await acme.put(`/vendors/${vendor.id}`, body), 400, "INVALID_REQUEST", field);
    assert.deepEqual(expectStatus(await acme.get(`/vendors/${vendor.id}`), 200), changed);
  });

  test("deleting a vendor erases its contact: its idempotent creation replays 404, and no table holds the contact any more", async () => {
    const unique = randomBytes(6).toString("hex");
    const email = `erased-${unique}@example.com`;
    const phone = `+44 20 7946 ${unique.slice(0, 4)}`;
    const headers = { "idempotency-key": `vendor-create-${unique}` };
    const body = vendorInput({ contact: { name: `Erin ${unique}`, email, phone } });
    const made = expectStatus(await acme.post("/vendors", body, { headers }), 201);
    const again = await acme.post("/vendors", body, { headers });
    assert.equal(again.headers.get("idempotent-replayed"), "true");
    assert.deepEqual(expectStatus(again, 201), made);
    // An update that shows it too, by its key.
    const updateHeaders = { "idempotency-key": `vendor-update-${unique}` };
    expectStatus(await acme.put(`/vendors/${made.id}`, { notes: "Shown again" }, { headers: updateHeaders }), 200);
    // A booking and a notification of it (no contact in either).
    const event = await createEvent(acme);
    const booking = await book(acme, event.id, made.id);
    expectStatus(await acme.put(`/events/${event.id}/vendors/${booking.id}`, { status: "cancelled" }), 200);
    expectStatus(await acme.delete(`/vendors/${made.id}`), 200);

    const gone = await acme.post("/vendors", body, { headers });
    expectError(gone, 404, "NOT_FOUND");
    assert.doesNotMatch(JSON.stringify(gone.body), new RegExp(unique), "the contact is not replayed");
    const holding: string[] = [];
    for (const table of await databaseTables(server.database)) {
      const text = JSON.stringify(await queryDatabase(server.database, `SELECT * FROM ${table}`));
      for (const piece of [email, `Erin ${unique}`, phone])
        if (text.includes(piece)) holding.push(`${table}: ${piece}`);
    }
    assert.deepEqual(holding, [], "the vendor's contact data left behind");
    // Its past booking keeps its vendorId.
    assert.equal(expectStatus(await acme.get(`/events/${event.id}/vendors/${booking.id}`), 200).vendorId, made.id);
  });

  test("delete answers the deletion; the vendor is gone", async () => {
    const vendor = await createVendor(acme);
    const deleted = expectStatus(await acme.delete(`/vendors/${vendor.id}`), 200);
    assert.deepEqual(Object.keys(deleted).sort(), ["deletedId", "message", "success"]);
    assert.equal(deleted.success, true);
    assert.equal(deleted.deletedId, vendor.id);
    assert.equal(typeof deleted.message, "string");
    expectError(await acme.get(`/vendors/${vendor.id}`), 404, "NOT_FOUND");
    expectError(await acme.put(`/vendors/${vendor.id}`, { notes: "x" }), 404, "NOT_FOUND");
    expectError(await acme.delete(`/vendors/${vendor.id}`), 404, "NOT_FOUND");
    expectError(await acme.get("/vendors/ven_000000000000000000000000"), 404, "NOT_FOUND");
  });

  test("another account's vendor is 404 on get, put and delete, and stays as it was", async () => {
    const vendor = await createVendor(acme, { notes: "Acme's own" });
    expectError(await globex.get(`/vendors/${vendor.id}`), 404, "NOT_FOUND");
    expectError(await globex.put(`/vendors/${vendor.id}`, { notes: "Globex was here" }), 404, "NOT_FOUND");
    expectError(await globex.delete(`/vendors/${vendor.id}`), 404, "NOT_FOUND");
    const listed = expectStatus(await globex.get("/vendors?limit=100"), 200);
    assert.ok(!ids(listed.vendors).includes(vendor.id));
    assert.deepEqual(expectStatus(await acme.get(`/vendors/${vendor.id}`), 200), vendor);
  });

  test("scopes: vendors:read reads only; a key without vendors:* is 403; vendors:write does both", async () => {
    const vendor = await createVendor(acme);
    const event = await createEvent(acme);
    const booking = await book(acme, event.id, vendor.id);
    const keyWith = async (scopes: string[]) =>
      clientFor(server, (await server.createKey({ account: acmeId, scopes })).key);

    const reader = await keyWith(["vendors:read"]);
    expectStatus(await reader.get(`/vendors/${vendor.id}`), 200);
    expectStatus(await reader.get("/vendors"), 200);
    expectStatus(await reader.get(`/events/${event.id}/vendors`), 200);
    expectStatus(await reader.get(`/events/${event.id}/vendors/${booking.id}`), 200);
    const writes: Array<() => Promise<ApiResponse>> = [
      () => reader.post("/vendors", vendorInput()),
      () => reader.put(`/vendors/${vendor.id}`, { notes: "reader" }),
      () => reader.delete(`/vendors/${vendor.id}`),
      () => reader.post(`/events/${event.id}/vendors`, { vendorId: vendor.id, services: "x" }),
      () => reader.put(`/events/${event.id}/vendors/${booking.id}`, { services: "reader" }),
      () => reader.post(`/events/${event.id}/vendors/${booking.id}/rotate-link`),
    ];
    for (const write of writes) {
      const error = expectError(await write(), 403, "FORBIDDEN");
      assert.deepEqual(error.details, { requiredScope: "vendors:write" });
    }

    const outsider = await keyWith(["events:read", "events:write", "attendees:read", "analytics:read"]);
    const reads: Array<() => Promise<ApiResponse>> = [
      () => outsider.get("/vendors"),
      () => outsider.get(`/vendors/${vendor.id}`),
      () => outsider.get(`/events/${event.id}/vendors`),
      () => outsider.get(`/events/${event.id}/vendors/${booking.id}`),
    ];
    for (const read of reads) {
      const error = expectError(await read(), 403, "FORBIDDEN");
      assert.deepEqual(error.details, { requiredScope: "vendors:read" });
      assert.equal(error.message, "This API key lacks the vendors:read or the vendors:write scope.");
    }
    expectError(await outsider.post("/vendors", vendorInput()), 403, "FORBIDDEN");
    expectError(await outsider.delete(`/vendors/${vendor.id}`), 403, "FORBIDDEN");

    const writer = await keyWith(["vendors:write", "events:read"]);
    const made = expectStatus(await writer.post("/vendors", vendorInput()), 201);
    expectStatus(await writer.get(`/vendors/${made.id}`), 200);
    expectStatus(await writer.delete(`/vendors/${made.id}`), 200);
    // Nothing the refused requests asked for happened.
    assert.deepEqual(expectStatus(await acme.get(`/vendors/${vendor.id}`), 200), vendor);
    assert.deepEqual(
      expectStatus(await acme.get(`/events/${event.id}/vendors/${booking.id}`), 200),
      withoutLink(booking),
    );
  });
});

describe("bookings", () => {
  test("create answers 201 with the link, normalised; get and list never show it", async () => {
    const vendor = await createVendor(acme);
    const event = await createEvent(acme);
    const booking = expectStatus(
      await acme.post(`/events/${event.id}/vendors`, {
        vendorId: vendor.id,
        services: "  Lunch and dinner for 300  ",
        dataRequested: ["catering", "waste", "catering"],
      }),
      201,
    );
    assert.deepEqual(Object.keys(booking).sort(), [...BOOKING_KEYS, "vendorLink"].sort());
    assert.match(booking.id, BOOKING_ID);
    assert.match(booking.createdAt, ISO_UTC);
    assert.deepEqual(withoutLink(booking), {
      id: booking.id,
      eventId: event.id,
      vendorId: vendor.id,
      status: "requested",
      services: "Lunch and dinner for 300",
      dataRequested: ["catering", "waste"],
      respondedAt: null,
      message: null,
      createdAt: booking.createdAt,
      updatedAt: booking.createdAt,
    });
    const { token } = vendorSide(booking);
    assert.match(token, /^[A-Za-z0-9_-]{24,}$/, "an unguessable token");

    const got = expectStatus(await acme.get(`/events/${event.id}/vendors/${booking.id}`), 200);
    assert.deepEqual(got, withoutLink(booking));
    assert.deepEqual(expectStatus(await acmeApi.get(`/events/${event.id}/vendors/${booking.id}`), 200), got);
    const list = expectStatus(await acme.get(`/events/${event.id}/vendors`), 200);
    assert.deepEqual(list, {
      bookings: [got],
      pagination: { page: 1, limit: 20, total: 1, totalPages: 1, hasNext: false, hasPrev: false },
    });
    // Nowhere else either: not in the vendor, not in any list.
    for (const answer of [list, got, expectStatus(await acme.get(`/vendors/${vendor.id}`), 200)])
      assert.doesNotMatch(JSON.stringify(answer), new RegExp(token));

    // No data asked for is allowed.
    const none = await book(acme, event.id, (await createVendor(acme)).id, { dataRequested: [] });
    assert.deepEqual(none.dataRequested, []);
    const defaulted = expectStatus(
      await acme.post(`/events/${event.id}/vendors`, { vendorId: (await createVendor(acme)).id, services: "Stage" }),
      201,
    );
    assert.deepEqual(defaulted.dataRequested, []);
  });

  test("a booking's creation replayed by its Idempotency-Key: the same booking, its link not kept (vendorLink null)", async () => {
    const vendor = await createVendor(acme);
    const event = await createEvent(acme);
    const headers = { "idempotency-key": `booking-${randomBytes(8).toString("hex")}` };
    const body = { vendorId: vendor.id, services: "Replayed", dataRequested: ["catering"] };
    const made = expectStatus(await acme.post(`/events/${event.id}/vendors`, body, { headers }), 201);
    const again = await acme.post(`/events/${event.id}/vendors`, body, { headers });
    assert.equal(again.headers.get("idempotent-replayed"), "true");
    assert.deepEqual(expectStatus(again, 201), { ...made, vendorLink: null });
    assert.equal(expectStatus(await acme.get(`/events/${event.id}/vendors`), 200).pagination.total, 1);
    expectStatus(await vendorSide(made).view(), 200);
  });

  test("bad input is 400 naming the field", async () => {
    const vendor = await createVendor(acme);
    const event = await createEvent(acme);
    const valid = { vendorId: vendor.id, services: "Stage", dataRequested: ["electricity"] };
    const refused: Array<[Record<string, unknown>, string]> = [
      [{ ...valid, vendorId: undefined }, "vendorId"],
      [{ ...valid, vendorId: 7 }, "vendorId"],
      [{ ...valid, services: "" }, "services"],
      [{ ...valid, services: undefined }, "services"],
      [{ ...valid, dataRequested: ["nuclear"] }, "dataRequested.0"],
      [{ ...valid, dataRequested: "catering" }, "dataRequested"],
      [{ ...valid, status: "confirmed" }, "status"],
      [{ ...valid, vendorLink: "https://example.com/" }, "vendorLink"],
    ];
    for (const [body, field] of refused)
      expectError(await acme.post(`/events/${event.id}/vendors`, body), 400, "INVALID_REQUEST", field);
    assert.equal(expectStatus(await acme.get(`/events/${event.id}/vendors`), 200).pagination.total, 0);
    expectError(await acme.get(`/events/${event.id}/vendors?status=open`), 400, "INVALID_REQUEST", "status");
    expectError(await acme.get(`/events/${event.id}/vendors?limit=101`), 400, "INVALID_REQUEST", "limit");
  });

  test("a cancelled or completed event takes no booking: 400", async () => {
    const vendor = await createVendor(acme);
    const cancelled = await createEvent(acme);
    await moveEvent(acme, cancelled.id, "cancelled");
    expectError(
      await acme.post(`/events/${cancelled.id}/vendors`, { vendorId: vendor.id, services: "x" }),
      400,
      "INVALID_REQUEST",
    );
    const completed = await createEvent(acme);
    await moveEvent(acme, completed.id, "published", "completed");
    expectError(
      await acme.post(`/events/${completed.id}/vendors`, { vendorId: vendor.id, services: "x" }),
      400,
      "INVALID_REQUEST",
    );
  });

  test("the same vendor is booked once while active: 409 DUPLICATE_BOOKING, again after a decline or a cancellation", async () => {
    const vendor = await createVendor(acme);
    const event = await createEvent(acme);
    const other = await createEvent(acme);
    const first = await book(acme, event.id, vendor.id);
    const duplicate = expectError(
      await acme.post(`/events/${event.id}/vendors`, { vendorId: vendor.id, services: "Again" }),
      409,
      "DUPLICATE_BOOKING",
    );
    assert.equal(duplicate.details?.bookingId, first.id, "details.bookingId names the active booking");
    // Another event, another booking.
    await book(acme, other.id, vendor.id);
    // Confirmed is active too.
    expectStatus(await acme.put(`/events/${event.id}/vendors/${first.id}`, { status: "confirmed" }), 200);
    expectError(
      await acme.post(`/events/${event.id}/vendors`, { vendorId: vendor.id, services: "Again" }),
      409,
      "DUPLICATE_BOOKING",
    );
    expectStatus(await acme.put(`/events/${event.id}/vendors/${first.id}`, { status: "cancelled" }), 200);
    const second = await book(acme, event.id, vendor.id);
    expectError(
      await acme.post(`/events/${event.id}/vendors`, { vendorId: vendor.id, services: "Again" }),
      409,
      "DUPLICATE_BOOKING",
    );
    // Declined by the vendor: not active either.
    assert.equal(expectStatus(await vendorSide(second).decline(), 200).status, "declined");
    await book(acme, event.id, vendor.id);
  });

  test("the same vendor booked five times at once: one 201, four 409 DUPLICATE_BOOKING", async () => {
    const vendor = await createVendor(acme);
    const event = await createEvent(acme);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        acme.post(`/events/${event.id}/vendors`, { vendorId: vendor.id, services: "Raced" }),
      ),
    );
    assert.deepEqual(answers.map((answer) => answer.status).sort(), [201, 409, 409, 409, 409]);
    for (const answer of answers.filter((a) => a.status === 409)) expectError(answer, 409, "DUPLICATE_BOOKING");
    assert.equal(expectStatus(await acme.get(`/events/${event.id}/vendors`), 200).pagination.total, 1);
  });

  test("the vendor confirms while the organiser cancels: the booking ends cancelled, notified as it happened", async () => {
    const client = await newAccount("Vendor Race");
    const webhook = expectStatus(
      await client.post("/webhooks", {
        url: `${receiver.origin}/vendor-race`,
        events: ["vendor.confirmed", "vendor.cancelled"],
      }),
      201,
    );
    const event = await createEvent(client);
    const outcomes: string[] = [];
    for (let i = 0; i < 6; i++) {
      const booking = await book(client, event.id, (await createVendor(client)).id);
      const [confirmed, cancelled] = await Promise.all([
        vendorSide(booking).confirm(),
        client.put(`/events/${event.id}/vendors/${booking.id}`, { status: "cancelled" }),
      ]);
      expectStatus(cancelled, 200);
      assert.ok([200, 404].includes(confirmed.status), `${confirmed.status} ${JSON.stringify(confirmed.body)}`);
      if (confirmed.status === 404) expectError(confirmed, 404, "NOT_FOUND");
      const final = expectStatus(await client.get(`/events/${event.id}/vendors/${booking.id}`), 200);
      assert.equal(final.status, "cancelled");
      const log = expectStatus(await client.get(`/webhooks/${webhook.id}/deliveries?limit=100`), 200).deliveries;
      // The notifications, each with the booking as that change left it.
      const mine = log
        .filter((d: { payload: { data: { booking: { id: string } } } }) => d.payload.data.booking.id === booking.id)
        .map((d: any) => ({ type: d.type, booking: d.payload.data.booking }));
      const detail = `booking ${i}: confirm answered ${confirmed.status}; final ${JSON.stringify(final)}; log ${JSON.stringify(mine)}`;
      assert.deepEqual(
        mine.map((d: { type: string }) => d.type).sort(),
        confirmed.status === 200 ? ["vendor.cancelled", "vendor.confirmed"] : ["vendor.cancelled"],
        detail,
      );
      const cancelledNote = mine.find((d: { type: string }) => d.type === "vendor.cancelled")!;
      assert.equal(cancelledNote.booking.status, "cancelled", detail);
      if (confirmed.status === 200) {
        // Confirmed first, then cancelled: the cancellation saw the confirmation.
        assert.equal(mine.find((d: { type: string }) => d.type === "vendor.confirmed")!.booking.status, "confirmed");
        assert.notEqual(
          cancelledNote.booking.respondedAt,
          null,
          `the cancellation did not see the confirmation: ${detail}`,
        );
        assert.notEqual(final.respondedAt, null, detail);
      } else assert.equal(final.respondedAt, null, detail);
      outcomes.push(String(confirmed.status));
    }
    assert.equal(outcomes.length, 6);
  });

  test("two events sharing vendors cancelled at once: both 200, every booking cancelled", async () => {
    const client = await newAccount("Vendor Shared");
    const vendors = [await createVendor(client), await createVendor(client), await createVendor(client)];
    const events = [await createEvent(client), await createEvent(client)];
    // Booked in opposite orders, so that each cancellation meets the vendors in another order.
    for (const vendor of vendors) await book(client, events[0].id, vendor.id);
    for (const vendor of [...vendors].reverse()) await book(client, events[1].id, vendor.id);
    const answers = await Promise.all(
      events.map((event) => client.put(`/events/${event.id}`, { status: "cancelled" })),
    );
    for (const answer of answers) assert.equal(expectStatus(answer, 200).status, "cancelled");
    for (const event of events) {
      const { bookings } = expectStatus(await client.get(`/events/${event.id}/vendors`), 200);
      assert.deepEqual(
        bookings.map((b: { status: string }) => b.status),
        ["cancelled", "cancelled", "cancelled"],
      );
    }
  });

  test("another account's vendor or event is 404; its bookings are 404 on every route and never listed", async () => {
    const mine = await createVendor(acme);
    const theirs = await createVendor(globex);
    const event = await createEvent(acme);
    const theirEvent = await createEvent(globex);
    const notFoundVendor = expectError(
      await acme.post(`/events/${event.id}/vendors`, { vendorId: theirs.id, services: "x" }),
      404,
      "NOT_FOUND",
    );
    assert.ok(notFoundVendor.field === undefined || notFoundVendor.field === "vendorId", notFoundVendor.field);
    expectError(
      await acme.post(`/events/${event.id}/vendors`, { vendorId: "ven_000000000000000000000000", services: "x" }),
      404,
      "NOT_FOUND",
    );
    expectError(
      await acme.post(`/events/${theirEvent.id}/vendors`, { vendorId: mine.id, services: "x" }),
      404,
      "NOT_FOUND",
    );
    expectError(
      await acme.post("/events/evt_000000000000000000000000/vendors", { vendorId: mine.id, services: "x" }),
      404,
      "NOT_FOUND",
    );

    const booking = await book(acme, event.id, mine.id);
    const path = `/events/${event.id}/vendors/${booking.id}`;
    expectError(await globex.get(`/events/${event.id}/vendors`), 404, "NOT_FOUND");
    expectError(await globex.get(path), 404, "NOT_FOUND");
    expectError(await globex.put(path, { status: "cancelled" }), 404, "NOT_FOUND");
    expectError(await globex.post(`${path}/rotate-link`), 404, "NOT_FOUND");
    // Under another event of the same account, or an unknown id: 404 too.
    const elsewhere = await createEvent(acme);
    expectError(await acme.get(`/events/${elsewhere.id}/vendors/${booking.id}`), 404, "NOT_FOUND");
    expectError(await acme.put(`/events/${elsewhere.id}/vendors/${booking.id}`, { services: "x" }), 404, "NOT_FOUND");
    expectError(await acme.post(`/events/${elsewhere.id}/vendors/${booking.id}/rotate-link`), 404, "NOT_FOUND");
    const unknown = `${booking.id.slice(0, -1)}${booking.id.endsWith("0") ? "1" : "0"}`;
    expectError(await acme.get(`/events/${event.id}/vendors/${unknown}`), 404, "NOT_FOUND");
    assert.deepEqual(expectStatus(await acme.get(path), 200), withoutLink(booking), "untouched");
    // Globex may book its own vendor for its own event meanwhile.
    await book(globex, theirEvent.id, theirs.id);
    assert.deepEqual(
      ids(expectStatus(await acme.get(`/events/${event.id}/vendors`), 200).bookings),
      [booking.id],
      "only the account's own bookings",
    );
  });

  test("status changes by PUT: the allowed ones 200, the others 422 INVALID_STATE_TRANSITION; services and data change", async () => {
    const event = await createEvent(acme);
    const put = async (booking: { id: string }, body: Record<string, unknown>) =>
      acme.put(`/events/${event.id}/vendors/${booking.id}`, body);
    const fresh = async () => book(acme, event.id, (await createVendor(acme)).id);

    const confirmed = await fresh();
    const answer = expectStatus(await put(confirmed, { status: "confirmed" }), 200);
    assert.equal(answer.status, "confirmed");
    assert.equal(answer.vendorLink, undefined, "no link in the update's answer");
    assert.match(answer.respondedAt, ISO_UTC);
    for (const status of ["requested", "declined"]) {
      const error = expectError(await put(confirmed, { status }), 422, "INVALID_STATE_TRANSITION", "status");
      assert.deepEqual([error.details.from, error.details.to], ["confirmed", status]);
    }
    expectStatus(await put(confirmed, { status: "cancelled" }), 200);
    for (const status of ["requested", "confirmed", "declined"])
      expectError(await put(confirmed, { status }), 422, "INVALID_STATE_TRANSITION", "status");

    const declined = await fresh();
    assert.equal(expectStatus(await put(declined, { status: "declined" }), 200).status, "declined");
    for (const status of ["requested", "confirmed", "cancelled"])
      expectError(await put(declined, { status }), 422, "INVALID_STATE_TRANSITION", "status");

    const cancelled = await fresh();
    assert.equal(expectStatus(await put(cancelled, { status: "cancelled" }), 200).status, "cancelled");
    expectError(await put(cancelled, { status: "confirmed" }), 422, "INVALID_STATE_TRANSITION", "status");

    const edited = await fresh();
    const changed = expectStatus(await put(edited, { services: " Breakfast only ", dataRequested: ["water"] }), 200);
    assert.deepEqual(
      { ...changed, updatedAt: "x" },
      { ...withoutLink(edited), services: "Breakfast only", dataRequested: ["water"], updatedAt: "x" },
    );
    for (const [body, field] of [
      [{ status: "done" }, "status"],
      [{ vendorId: edited.vendorId }, "vendorId"],
      [{ services: "" }, "services"],
      [{ dataRequested: ["fuel", "coal"] }, "dataRequested.1"],
      [{ vendorLink: "x" }, "vendorLink"],
    ] as const)
      expectError(await put(edited, body), 400, "INVALID_REQUEST", field);
    assert.deepEqual(expectStatus(await acme.get(`/events/${event.id}/vendors/${edited.id}`), 200), changed);

    // The list filters by status.
    const byStatus = async (status: string) =>
      ids(expectStatus(await acme.get(`/events/${event.id}/vendors?status=${status}&limit=100`), 200).bookings).sort();
    assert.deepEqual(await byStatus("cancelled"), ids([confirmed, cancelled]).sort());
    assert.deepEqual(await byStatus("declined"), [declined.id]);
    assert.deepEqual(await byStatus("requested"), [edited.id]);
    assert.deepEqual(await byStatus("confirmed"), []);
    const page = expectStatus(await acme.get(`/events/${event.id}/vendors?limit=2&page=2`), 200);
    assert.deepEqual(page.pagination, { page: 2, limit: 2, total: 4, totalPages: 2, hasNext: false, hasPrev: true });
    // Oldest first (ties by id).
    const oldestFirst = [confirmed, declined, cancelled, edited].sort((a, b) =>
      a.createdAt !== b.createdAt ? (a.createdAt < b.createdAt ? -1 : 1) : a.id < b.id ? -1 : 1,
    );
    assert.deepEqual(ids(page.bookings), ids(oldestFirst.slice(2)));

    // A final booking's services and data change no more.
    for (const final of [declined, cancelled]) {
      expectError(await put(final, { services: "Late change" }), 422, "INVALID_STATE_TRANSITION");
      expectError(await put(final, { dataRequested: ["water"] }), 422, "INVALID_STATE_TRANSITION");
    }
    assert.equal(
      expectStatus(await acme.get(`/events/${event.id}/vendors/${declined.id}`), 200).services,
      declined.services,
    );
  });

  test("rotate-link: a new link; the old one is 404 from then on; a body is refused", async () => {
    const vendor = await createVendor(acme);
    const event = await createEvent(acme);
    const booking = await book(acme, event.id, vendor.id);
    const old = vendorSide(booking);
    expectStatus(await old.view(), 200);
    const rotated = expectStatus(await acme.post(`/events/${event.id}/vendors/${booking.id}/rotate-link`), 200);
    assert.deepEqual(Object.keys(rotated).sort(), [...BOOKING_KEYS, "vendorLink"].sort());
    assert.notEqual(rotated.vendorLink, booking.vendorLink);
    assert.deepEqual({ ...withoutLink(rotated), updatedAt: "x" }, { ...withoutLink(booking), updatedAt: "x" });
    const fresh = vendorSide(rotated);
    assert.notEqual(fresh.token, old.token);
    expectError(await old.view(), 404, "NOT_FOUND");
    expectError(await old.confirm(), 404, "NOT_FOUND");
    assert.deepEqual(expectStatus(await fresh.view(), 200), expectedView(booking, vendor, event));
    expectError(
      await acme.post(`/events/${event.id}/vendors/${booking.id}/rotate-link`, { vendorLink: "mine" }),
      400,
      "INVALID_REQUEST",
    );
    expectStatus(await fresh.view(), 200);
    // An empty object is no body.
    const third = expectStatus(await acme.post(`/events/${event.id}/vendors/${booking.id}/rotate-link`, {}), 200);
    expectError(await fresh.view(), 404, "NOT_FOUND");
    // A cancelled booking's link cannot be rotated back to life.
    expectStatus(await acme.put(`/events/${event.id}/vendors/${booking.id}`, { status: "cancelled" }), 200);
    expectError(
      await acme.post(`/events/${event.id}/vendors/${booking.id}/rotate-link`),
      422,
      "INVALID_STATE_TRANSITION",
    );
    expectError(await vendorSide(third).view(), 404, "NOT_FOUND");
  });

  test("a vendor with an active booking cannot be deleted (409 VENDOR_IN_USE); once cancelled it can, its link is 404 and its records keep their vendorId", async () => {
    const vendor = await createVendor(acme, { contact: { name: "Cara", email: "cara@example.com" } });
    const event = await createEvent(acme);
    const booking = await book(acme, event.id, vendor.id);
    const link = vendorSide(booking);
    expectError(await acme.delete(`/vendors/${vendor.id}`), 409, "VENDOR_IN_USE");
    expectStatus(await link.confirm(), 200);
    const record = expectStatus(await link.record(VEGAN_MEALS), 201);
    expectError(await acme.delete(`/vendors/${vendor.id}`), 409, "VENDOR_IN_USE");
    assert.deepEqual(expectStatus(await acme.get(`/vendors/${vendor.id}`), 200), vendor, "still there");
    expectStatus(await acme.put(`/events/${event.id}/vendors/${booking.id}`, { status: "cancelled" }), 200);
    expectError(await link.view(), 404, "NOT_FOUND");
    const deleted = expectStatus(await acme.delete(`/vendors/${vendor.id}`), 200);
    assert.equal(deleted.deletedId, vendor.id);
    expectError(await acme.get(`/vendors/${vendor.id}`), 404, "NOT_FOUND");
    const kept = expectStatus(await acme.get(`/events/${event.id}/activities/${record.id}`), 200);
    assert.equal(kept.vendorId, vendor.id, "its past records keep their vendorId");
  });

  test("deleting an event deletes its bookings: the vendor is free and the link is 404", async () => {
    const vendor = await createVendor(acme);
    const event = await createEvent(acme);
    const booking = await book(acme, event.id, vendor.id);
    const link = vendorSide(booking);
    expectStatus(await acme.delete(`/events/${event.id}`), 200);
    expectError(await link.view(), 404, "NOT_FOUND");
    expectError(await acme.get(`/events/${event.id}/vendors/${booking.id}`), 404, "NOT_FOUND");
    expectStatus(await acme.delete(`/vendors/${vendor.id}`), 200);
  });

  test("completing an event cancels its still-requested bookings and keeps its confirmed ones, which still report", async () => {
    const event = await createEvent(acme);
    await moveEvent(acme, event.id, "published");
    const requested = await book(acme, event.id, (await createVendor(acme)).id);
    const confirmed = await book(acme, event.id, (await createVendor(acme)).id);
    expectStatus(await vendorSide(confirmed).confirm(), 200);
    await moveEvent(acme, event.id, "completed");
    const status = async (booking: { id: string }) =>
      expectStatus(await acme.get(`/events/${event.id}/vendors/${booking.id}`), 200).status;
    assert.equal(await status(requested), "cancelled");
    assert.equal(await status(confirmed), "confirmed");
    expectError(await vendorSide(requested).view(), 404, "NOT_FOUND");
    expectStatus(await vendorSide(confirmed).record(VEGAN_MEALS), 201);
  });
});

describe("the vendor's link, without a key", () => {
  test("GET shows exactly the documented view and nothing else of the account, under /v1 and /api", async () => {
    const vendor = await createVendor(acme, {
      name: "Harbour Kitchen",
      contact: { name: "Dana Private", email: "dana.private@example.com", phone: "+44 7700 900123" },
      notes: "Internal note: negotiate the price",
      metadata: { internalRating: "B" },
    });
    const event = await createEvent(acme, {
      name: "Harbour Summit",
      description: "Secret programme details",
      location: { address: "7 Quay Street", city: "Bristol", country: "GB", zipCode: "BS1 4DJ" },
      capacity: 321,
      tags: ["invite-only"],
      timeZone: "Europe/London",
    });
    const booking = await book(acme, event.id, vendor.id, { services: "Lunch for 321" });
    const link = vendorSide(booking);
    const view = expectStatus(await link.view(), 200);
    assert.deepEqual(Object.keys(view).sort(), [
      "dataAcceptedUntil",
      "dataRequested",
      "event",
      "id",
      "services",
      "status",
      "vendor",
    ]);
    assert.deepEqual(Object.keys(view.event).sort(), ["endDate", "location", "name", "startDate", "timeZone"]);
    assert.equal(view.event.timeZone, "Europe/London");
    assert.deepEqual(Object.keys(view.event.location).sort(), ["city", "country"]);
    assert.deepEqual(Object.keys(view.vendor), ["name"]);
    assert.deepEqual(view, expectedView(booking, vendor, event));
    assert.equal(view.dataAcceptedUntil, "2038-05-31T17:00:00.000Z");
    const text = JSON.stringify(view);
    for (const secret of [
      acmeName,
      acmeId,
      event.id,
      vendor.id,
      "Dana Private",
      "dana.private@example.com",
      "7700",
      "negotiate",
      "internalRating",
      "Secret programme",
      "Quay Street",
      "BS1 4DJ",
      "invite-only",
    ])
      assert.ok(!text.includes(secret), `the view does not show ${secret}: ${text}`);
    assert.equal(view.services, "Lunch for 321", "what was asked is shown");

    const other = link.path.startsWith("/v1/")
      ? link.path.replace(/^\/v1/, "/api")
      : link.path.replace(/^\/api/, "/v1");
    assert.deepEqual(expectStatus(await server.request("GET", other), 200), view);
    // An API key changes nothing, not even another account's.
    assert.deepEqual(expectStatus(await server.request("GET", link.path, { key: globex.key }), 200), view);
  });

  test("confirm with a message; the organiser sees it; the vendor cannot decline afterwards; only {message} is taken", async () => {
    const vendor = await createVendor(acme);
    const event = await createEvent(acme);
    const booking = await book(acme, event.id, vendor.id);
    const link = vendorSide(booking);
    expectError(await link.confirm({ note: "hi" }), 400, "INVALID_REQUEST", "note");
    expectError(await link.confirm({ message: 5 }), 400, "INVALID_REQUEST", "message");
    expectError(await link.confirm({ message: "x".repeat(1001) }), 400, "INVALID_REQUEST", "message");
    expectError(await link.decline({ status: "declined" }), 400, "INVALID_REQUEST", "status");
    assert.equal(expectStatus(await link.view(), 200).status, "requested", "nothing changed");

    const confirmed = expectStatus(await link.confirm({ message: "  See you on the day  " }), 200);
    assert.deepEqual(confirmed, expectedView(booking, vendor, event, "confirmed"));
    const seen = expectStatus(await acme.get(`/events/${event.id}/vendors/${booking.id}`), 200);
    assert.equal(seen.status, "confirmed");
    assert.equal(seen.message, "See you on the day");
    assert.match(seen.respondedAt, ISO_UTC);
    assert.ok(seen.respondedAt >= booking.createdAt);
    expectError(await link.decline(), 422, "INVALID_STATE_TRANSITION");
    assert.equal(expectStatus(await link.view(), 200).status, "confirmed");
    // Confirming again changes nothing.
    assert.deepEqual(expectStatus(await link.confirm(), 200), confirmed);
    assert.deepEqual(expectStatus(await acme.get(`/events/${event.id}/vendors/${booking.id}`), 200), seen);
  });

  test("confirm without a body, decline with an empty one; a declined link still GETs and refuses the rest with 422", async () => {
    const event = await createEvent(acme);
    const quiet = await book(acme, event.id, (await createVendor(acme)).id);
    assert.equal(expectStatus(await vendorSide(quiet).confirm(), 200).status, "confirmed");
    assert.equal(expectStatus(await acme.get(`/events/${event.id}/vendors/${quiet.id}`), 200).message, null);

    const vendor = await createVendor(acme);
    const booking = await book(acme, event.id, vendor.id);
    const link = vendorSide(booking);
    const declined = expectStatus(await link.decline({}), 200);
    assert.deepEqual(declined, expectedView(booking, vendor, event, "declined"));
    assert.deepEqual(expectStatus(await link.view(), 200), declined);
    assert.deepEqual(
      expectStatus(await link.decline({ message: "Still no" }), 200),
      declined,
      "declining again: no change",
    );
    expectError(await link.record(VEGAN_MEALS), 422, "INVALID_STATE_TRANSITION");
    expectError(await link.records(), 422, "INVALID_STATE_TRANSITION");
    expectError(await link.confirm(), 422, "INVALID_STATE_TRANSITION");
    const seen = expectStatus(await acme.get(`/events/${event.id}/vendors/${booking.id}`), 200);
    assert.equal(seen.status, "declined");
    assert.match(seen.respondedAt, ISO_UTC);
    // Declined is not active: the vendor may be booked again.
    await book(acme, event.id, vendor.id);
  });

  test("confirm and decline take no body, an empty one or {message}; any other body is 400 and changes nothing", async () => {
    const event = await createEvent(acme);
    const fresh = async () => vendorSide(await book(acme, event.id, (await createVendor(acme)).id));
    const json = { "content-type": "application/json" };
    // Empty as for every operation without a body (docs/api.md): zero bytes, JSON whitespace, {}.
    const wrong: string[] = [];
    for (const raw of ["", " \n", "{}", "{ }"]) {
      const link = await fresh();
      const answer = await server.request("POST", `${link.path}/confirm`, { raw, headers: json });
      if (answer.status !== 200 || answer.body.status !== "confirmed")
        wrong.push(`confirm with ${JSON.stringify(raw)}: ${answer.status} ${JSON.stringify(answer.body)}`);
    }
    for (const raw of ["null", "[]", '"yes"', "1", "true", '{"message":"x","status":"confirmed"}', "{"]) {
      const link = await fresh();
      for (const action of ["confirm", "decline"]) {
        const answer = await server.request("POST", `${link.path}/${action}`, { raw, headers: json });
        if (answer.status !== 400 || answer.body.error?.code !== "INVALID_REQUEST")
          wrong.push(`${action} with ${raw}: ${answer.status} ${JSON.stringify(answer.body)}`);
      }
      const status = expectStatus(await link.view(), 200).status;
      if (status !== "requested") wrong.push(`after the bodies ${raw}: ${status}, not requested`);
    }
    assert.deepEqual(wrong, [], "the answers that differ from the documented ones");
  });

  test("before confirmation no record is taken (422); a kind outside dataRequested is 400 naming kind", async () => {
    const vendor = await createVendor(acme);
    const event = await createEvent(acme);
    const booking = await book(acme, event.id, vendor.id, { dataRequested: ["catering"] });
    const link = vendorSide(booking);
    expectError(await link.record(VEGAN_MEALS), 422, "INVALID_STATE_TRANSITION");
    expectError(await link.records(), 422, "INVALID_STATE_TRANSITION");
    expectError(await link.update("act_000000000000000000000000", { quantity: 1 }), 422, "INVALID_STATE_TRANSITION");
    expectError(await link.remove("act_000000000000000000000000"), 422, "INVALID_STATE_TRANSITION");
    expectStatus(await link.confirm(), 200);
    expectError(
      await link.record({ kind: "fuel", quantity: 10, unit: "litres", fuel: "diesel" }),
      400,
      "INVALID_REQUEST",
      "kind",
    );
    expectError(await link.record({ ...VEGAN_MEALS, unit: "kg" }), 400, "INVALID_REQUEST", "unit");
    // The booking decides the vendor: a vendorId is refused, even the vendor's own.
    for (const vendorId of [(await createVendor(acme)).id, vendor.id, null])
      expectError(await link.record({ ...VEGAN_MEALS, vendorId }), 400, "INVALID_REQUEST", "vendorId");
    expectError(await link.record({ ...VEGAN_MEALS, eventId: event.id }), 400, "INVALID_REQUEST", "eventId");
    assert.equal(expectStatus(await acme.get(`/events/${event.id}/activities`), 200).pagination.total, 0);

    // A booking asking for nothing takes nothing.
    const nothing = await book(acme, event.id, (await createVendor(acme)).id, { dataRequested: [] });
    const silent = vendorSide(nothing);
    expectStatus(await silent.confirm(), 200);
    expectError(await silent.record(VEGAN_MEALS), 400, "INVALID_REQUEST", "kind");
  });

  test("a record of a kind the organiser no longer requests: the link reads and deletes it, a change is 400 naming kind", async () => {
    const vendor = await createVendor(acme);
    const event = await createEvent(acme);
    const booking = await book(acme, event.id, vendor.id, { dataRequested: ["catering", "fuel"] });
    const link = vendorSide(booking);
    expectStatus(await link.confirm(), 200);
    const diesel = expectStatus(await link.record({ kind: "fuel", quantity: 10, unit: "litres", fuel: "diesel" }), 201);
    const meals = expectStatus(await link.record(VEGAN_MEALS), 201);
    const narrowed = { dataRequested: ["catering"] };
    expectStatus(await acme.put(`/events/${event.id}/vendors/${booking.id}`, narrowed), 200);

    const refused = expectError(await link.update(diesel.id, { quantity: 20 }), 400, "INVALID_REQUEST", "kind");
    assert.equal(
      refused.message,
      "kind: the organiser no longer requests fuel from this booking (it asks for catering); the record can be read or deleted, not changed",
    );
    assert.deepEqual(refused.details, {
      issues: [{ path: "kind", message: "no longer among the booking's dataRequested" }],
    });
    const listed = expectStatus(await link.records("?limit=10"), 200).activities;
    assert.deepEqual(listed.map((a: any) => [a.kind, a.quantity]).sort(), [
      ["catering", 300],
      ["fuel", 10],
    ]);
    // A kind still requested changes as before; the one no longer requested goes when deleted.
    assert.equal(expectStatus(await link.update(meals.id, { quantity: 250 }), 200).quantity, 250);
    expectStatus(await link.remove(diesel.id), 200);
    assert.deepEqual(
      expectStatus(await link.records(), 200).activities.map((a: any) => a.id),
      [meals.id],
    );
  });

  test("a record through the link: attributed to the vendor, in the organiser's list and the footprint; the vendor lists, corrects and deletes its own records only", async () => {
    const client = await newAccount("Vendor Data");
    const vendor = await createVendor(client, { name: "Meals on Site" });
    const neighbour = await createVendor(client, { name: "Waste Crew", category: "waste" });
    const event = await createEvent(client);
    const booking = await book(client, event.id, vendor.id, { dataRequested: ["catering"] });
    const otherBooking = await book(client, event.id, neighbour.id, { dataRequested: ["catering", "waste"] });
    const link = vendorSide(booking);
    const otherLink = vendorSide(otherBooking);
    expectStatus(await link.confirm(), 200);
    expectStatus(await otherLink.confirm(), 200);

    const meals = expectStatus(await link.record({ ...VEGAN_MEALS, note: "Lunch, day 1" }), 201);
    assert.match(meals.id, /^act_[0-9a-f]{24}$/);
    assert.equal(meals.vendorId, vendor.id);
    assert.equal(meals.eventId, event.id);
    assert.deepEqual(
      [meals.kind, meals.quantity, meals.unit, meals.mealType, meals.note],
      ["catering", 300, "meals", "vegan", "Lunch, day 1"],
    );
    assert.equal(typeof meals.emissionsKg, "number");
    assert.ok(meals.emissionsKg > 0, "the default factors price vegan meals");
    const organisers = expectStatus(
      await client.post(`/events/${event.id}/activities`, { ...VEGAN_MEALS, mealType: "meat", quantity: 50 }),
      201,
    );
    assert.equal(organisers.vendorId, null);
    const neighbours = expectStatus(
      await otherLink.record({ kind: "waste", quantity: 120, unit: "kg", stream: "composting" }),
      201,
    );
    assert.equal(neighbours.vendorId, neighbour.id);

    // The organiser sees every record, the vendor's with its vendorId.
    const all = expectStatus(await client.get(`/events/${event.id}/activities?limit=100`), 200);
    assert.deepEqual(ids(all.activities).sort(), ids([meals, organisers, neighbours]).sort());
    assert.deepEqual(
      all.activities.find((activity: { id: string }) => activity.id === meals.id),
      meals,
    );
    assert.deepEqual(expectStatus(await client.get(`/events/${event.id}/activities/${meals.id}`), 200), meals);
    // The organiser may correct it, but it stays the vendor's.
    for (const vendorId of [null, neighbour.id])
      expectError(
        await client.put(`/events/${event.id}/activities/${meals.id}`, { vendorId }),
        400,
        "INVALID_REQUEST",
        "vendorId",
      );
    assert.deepEqual(expectStatus(await client.get(`/events/${event.id}/activities/${meals.id}`), 200), meals);

    // The footprint counts it.
    const footprint = async () => expectStatus(await client.get(`/analytics/events/${event.id}`), 200).footprint;
    const round3 = (value: number) => Math.round(value * 1000) / 1000;
    const catering = (await footprint()).byKind.find((k: { kind: string }) => k.kind === "catering");
    assert.deepEqual(catering, {
      kind: "catering",
      emissionsKg: round3(meals.emissionsKg + organisers.emissionsKg),
      records: 2,
    });

    // The vendor lists its own records only, and only through its own link.
    const listed = expectStatus(await link.records(), 200);
    assert.deepEqual(listed, {
      activities: [meals],
      pagination: { page: 1, limit: 20, total: 1, totalPages: 1, hasNext: false, hasPrev: false },
    });
    assert.deepEqual(ids(expectStatus(await otherLink.records(), 200).activities), [neighbours.id]);
    expectError(await link.records("?limit=0"), 400, "INVALID_REQUEST", "limit");

    // Corrects them: priced again; never the organiser's or another booking's (404, untouched).
    const corrected = expectStatus(await link.update(meals.id, { quantity: 320 }), 200);
    assert.equal(corrected.quantity, 320);
    assert.equal(corrected.vendorId, vendor.id);
    assert.equal(corrected.emissionsKg, corrected.quantity * corrected.factor.value, "priced again");
    assert.deepEqual(corrected.factor, meals.factor);
    expectError(await link.update(meals.id, { kind: "waste" }), 400, "INVALID_REQUEST", "kind");
    expectError(await link.update(meals.id, { vendorId: neighbour.id }), 400, "INVALID_REQUEST", "vendorId");
    for (const foreign of [organisers, neighbours]) {
      expectError(await link.update(foreign.id, { quantity: 1 }), 404, "NOT_FOUND");
      expectError(await link.remove(foreign.id), 404, "NOT_FOUND");
    }
    expectError(await otherLink.update(meals.id, { quantity: 1 }), 404, "NOT_FOUND");
    expectError(await otherLink.remove(meals.id), 404, "NOT_FOUND");
    expectError(await link.update("act_000000000000000000000000", { quantity: 1 }), 404, "NOT_FOUND");
    assert.deepEqual(
      expectStatus(await client.get(`/events/${event.id}/activities/${organisers.id}`), 200),
      organisers,
    );
    assert.deepEqual(
      expectStatus(await client.get(`/events/${event.id}/activities/${neighbours.id}`), 200),
      neighbours,
    );

    // Deletes them.
    assert.deepEqual(expectStatus(await link.remove(meals.id), 200), {
      success: true,
      message: `Activity ${meals.id} was deleted.`,
      deletedId: meals.id,
    });
    expectError(await link.remove(meals.id), 404, "NOT_FOUND");
    assert.deepEqual(
      ids(expectStatus(await client.get(`/events/${event.id}/activities?limit=100`), 200).activities).sort(),
      ids([organisers, neighbours]).sort(),
    );
    assert.equal((await footprint()).byKind.find((k: { kind: string }) => k.kind === "catering").records, 1);
    assert.equal(expectStatus(await link.records(), 200).pagination.total, 0);
  });

  test("the organiser's record may name the account's own vendor; another account's is 404", async () => {
    const vendor = await createVendor(acme);
    const theirs = await createVendor(globex);
    const event = await createEvent(acme);
    const record = expectStatus(
      await acme.post(`/events/${event.id}/activities`, { ...VEGAN_MEALS, vendorId: vendor.id }),
      201,
    );
    assert.equal(record.vendorId, vendor.id);
    expectError(
      await acme.post(`/events/${event.id}/activities`, { ...VEGAN_MEALS, vendorId: theirs.id }),
      404,
      "NOT_FOUND",
      "vendorId",
    );
    expectError(
      await acme.put(`/events/${event.id}/activities/${record.id}`, { vendorId: theirs.id }),
      404,
      "NOT_FOUND",
      "vendorId",
    );
    assert.equal(
      expectStatus(await acme.put(`/events/${event.id}/activities/${record.id}`, { vendorId: null }), 200).vendorId,
      null,
    );
  });

  test("a record is refused 30 days after the event ended (422)", async () => {
    const vendor = await createVendor(acme);
    const past = await createEvent(acme, {
      startDate: "2024-03-01T09:00:00.000Z",
      endDate: "2024-03-02T17:00:00.000Z",
    });
    const booking = await book(acme, past.id, vendor.id);
    const link = vendorSide(booking);
    const view = expectStatus(await link.view(), 200);
    assert.equal(view.dataAcceptedUntil, "2024-04-01T17:00:00.000Z");
    expectStatus(await link.confirm(), 200);
    const closed = expectError(await link.record(VEGAN_MEALS), 422, "INVALID_STATE_TRANSITION");
    assert.equal(closed.details?.dataAcceptedUntil, "2024-04-01T17:00:00.000Z");
    // Reads still answer.
    assert.equal(expectStatus(await link.records(), 200).pagination.total, 0);
  });

  test("a wrong, rotated or cancelled booking's token is 404 NOT_FOUND with one and the same body", async () => {
    const event = await createEvent(acme);
    const rotatedBooking = await book(acme, event.id, (await createVendor(acme)).id);
    const rotated = vendorSide(rotatedBooking);
    expectStatus(await acme.post(`/events/${event.id}/vendors/${rotatedBooking.id}/rotate-link`), 200);
    const cancelledBooking = await book(acme, event.id, (await createVendor(acme)).id);
    const cancelled = vendorSide(cancelledBooking);
    expectStatus(await cancelled.confirm(), 200);
    const record = expectStatus(await cancelled.record(VEGAN_MEALS), 201);
    expectStatus(await acme.put(`/events/${event.id}/vendors/${cancelledBooking.id}`, { status: "cancelled" }), 200);
    const prefix = rotated.path.slice(0, rotated.path.lastIndexOf("/") + 1);
    const tokens: Array<[string, string]> = [
      ["unknown", `${prefix}${unknownToken()}`],
      ["another shape", `${prefix}nope`],
      ["a booking id", `${prefix}${rotatedBooking.id}`],
      ["rotated", rotated.path],
      ["cancelled", cancelled.path],
      ["the right token in another case", `${prefix}${cancelled.token.toUpperCase()}`],
    ];
    const bodies = new Set<string>();
    for (const [what, path] of tokens) {
      for (const [method, suffix, body] of [
        ["GET", "", undefined],
        ["POST", "/confirm", undefined],
        ["POST", "/decline", { message: "no" }],
        ["POST", "/activities", VEGAN_MEALS],
        ["GET", "/activities", undefined],
        ["PUT", `/activities/${record.id}`, { quantity: 1 }],
        ["DELETE", `/activities/${record.id}`, undefined],
      ] as const) {
        const answer = await server.request(method, `${path}${suffix}`, body === undefined ? {} : { body });
        const error = expectError(answer, 404, "NOT_FOUND");
        assert.equal(error.field, undefined, `${what}: ${method} ${suffix}`);
        bodies.add(JSON.stringify(answer.body));
      }
    }
    assert.equal(bodies.size, 1, `the same body whichever: ${[...bodies].join("\n")}`);
    assert.equal(
      expectStatus(await acme.get(`/events/${event.id}/activities/${record.id}`), 200).quantity,
      VEGAN_MEALS.quantity,
      "untouched",
    );
  });

  test("bad tokens spend the per-address allowance of bad keys (429 after it); valid links spend neither it nor the account's limit; CORS", async () => {
    const APP = "https://vendor-portal.example.test";
    const limited = await startServer({ env: { AUTH_FAILURE_LIMIT_PER_MINUTE: "4", CORS_ORIGINS: APP } });
    try {
      await waitForMinuteRoom(6);
      const created = await limited.createKey({ account: "Limited", tier: "enterprise", perMinute: 6, perDay: 1000 });
      const client = clientFor(limited, created.key);
      // The account's requests 1 to 3 of its 6 this minute.
      const vendor = expectStatus(await client.post("/vendors", vendorInput()), 201);
      const event = expectStatus(await client.post("/events", eventInput()), 201);
      const booking = expectStatus(
        await client.post(`/events/${event.id}/vendors`, { vendorId: vendor.id, services: "x" }),
        201,
      );
      const good = new URL(booking.vendorLink).pathname;
      const bad = good.replace(/[^/]+$/, unknownToken());
      // A valid link spends neither the address's allowance nor the account's limit.
      for (let i = 0; i < 8; i++) expectStatus(await limited.request("GET", good), 200);
      for (let i = 0; i < 3; i++) expectStatus(await client.get("/vendors?limit=1"), 200);
      const over = expectError(await client.get("/vendors?limit=1"), 429, "RATE_LIMIT_EXCEEDED");
      assert.notEqual(over.details?.scope, "address", "the account's own limit");
      expectStatus(await limited.request("GET", good), 200);

      // A browser on the vendor portal's origin: the preflight and the answer carry CORS.
      const preflight = await fetch(`${limited.url}${good}/confirm`, {
        method: "OPTIONS",
        headers: {
          origin: APP,
          "access-control-request-method": "POST",
          "access-control-request-headers": "content-type",
        },
      });
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers.get("access-control-allow-origin"), APP);
      const browsed = await limited.request("GET", good, { headers: { origin: APP } });
      assert.equal(browsed.headers.get("access-control-allow-origin"), APP);
      const foreign = await limited.request("GET", good, { headers: { origin: "https://elsewhere.example.test" } });
      assert.equal(foreign.headers.get("access-control-allow-origin"), null);

      // Bad tokens and bad keys share the address's 4.
      for (let i = 0; i < 3; i++) expectError(await limited.request("GET", bad), 404, "NOT_FOUND");
      expectError(await limited.request("GET", "/v1/vendors", { key: "not-a-key" }), 401, "UNAUTHORIZED");
      const refused = await limited.request("GET", bad, { headers: { origin: APP } });
      const error = expectError(refused, 429, "RATE_LIMIT_EXCEEDED");
      assert.equal(error.details.scope, "address");
      assert.ok(Number(refused.headers.get("retry-after")) >= 1);
      assert.equal(refused.headers.get("access-control-allow-origin"), APP);
      expectError(await limited.request("POST", `${bad}/confirm`), 429, "RATE_LIMIT_EXCEEDED");
      expectError(await limited.request("GET", "/v1/vendors", { key: "not-a-key" }), 429, "RATE_LIMIT_EXCEEDED");
    } finally {
      assert.equal(await limited.stop(), 0);
    }
  });

  test("each link has a budget of its own: 120 requests a minute, then 429 naming vendorLink; another link is unaffected", async () => {
    const event = await createEvent(acme);
    const busy = vendorSide(await book(acme, event.id, (await createVendor(acme)).id));
    const calm = vendorSide(await book(acme, event.id, (await createVendor(acme)).id));
    await waitForMinuteRoom(4);
    const answers = await Promise.all(Array.from({ length: 120 }, () => busy.view()));
    assert.deepEqual([...new Set(answers.map((answer) => answer.status))], [200]);
    const refused = await busy.view();
    const error = expectError(refused, 429, "RATE_LIMIT_EXCEEDED");
    assert.equal(error.details?.scope, "vendorLink");
    assert.ok(Number(refused.headers.get("retry-after")) >= 1);
    expectError(await busy.confirm(), 429, "RATE_LIMIT_EXCEEDED");
    expectStatus(await calm.view(), 200);
  });

  test("the access log never carries a link's token (a credential, stored only hashed, like an API key)", async () => {
    const event = await createEvent(acme);
    const booking = await book(acme, event.id, (await createVendor(acme)).id);
    const link = vendorSide(booking);
    const requestId = `vendor-log-${randomBytes(6).toString("hex")}`;
    const headers = { "x-request-id": requestId };
    await server.request("GET", link.path, { headers });
    await server.request("POST", `${link.path}/confirm`, { headers });
    await server.request("POST", `${link.path}/activities`, { body: VEGAN_MEALS, headers });
    await server.request("GET", `${link.path}x`, { headers });
    // The line is written after the answer: wait for the four.
    const deadline = Date.now() + 5_000;
    const lines = () =>
      server
        .output()
        .split("\n")
        .filter((line) => line.includes(requestId));
    while (lines().length < 4 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(lines().length, 4, server.output().slice(-2000));
    const secret = link.token.slice(4, 24);
    const leaking = lines().filter((line) => line.includes(secret));
    assert.deepEqual(leaking, [], "request lines holding the token in clear");
  });

  test("a vendor deleted (its booking declined): the link is 404", async () => {
    const vendor = await createVendor(acme);
    const event = await createEvent(acme);
    const link = vendorSide(await book(acme, event.id, vendor.id));
    expectStatus(await link.decline(), 200);
    expectStatus(await acme.delete(`/vendors/${vendor.id}`), 200);
    expectError(await link.view(), 404, "NOT_FOUND");
    expectError(await link.confirm(), 404, "NOT_FOUND");
  });

  test("Idempotency-Key on the link's POSTs: a retry records once, through a rotated link too; another booking's keys are its own", async () => {
    const event = await createEvent(acme);
    const booking = await book(acme, event.id, (await createVendor(acme)).id);
    const link = vendorSide(booking);
    expectStatus(await link.confirm(), 200);
    const headers = { "idempotency-key": `vendor-retry-${randomBytes(8).toString("hex")}` };
    const post = (path: string, body: unknown = VEGAN_MEALS) =>
      server.request("POST", `${path}/activities`, { body, headers });
    const made = expectStatus(await post(link.path), 201);
    const again = await post(link.path);
    assert.equal(again.headers.get("idempotent-replayed"), "true");
    assert.deepEqual(expectStatus(again, 201), made);
    const rotated = vendorSide(
      expectStatus(await acme.post(`/events/${event.id}/vendors/${booking.id}/rotate-link`), 200),
    );
    const afterRotation = await post(rotated.path);
    assert.equal(afterRotation.headers.get("idempotent-replayed"), "true");
    assert.deepEqual(expectStatus(afterRotation, 201), made);
    expectError(await post(rotated.path, { ...VEGAN_MEALS, quantity: 1 }), 422, "IDEMPOTENCY_KEY_REUSED");
    assert.deepEqual(ids(expectStatus(await rotated.records(), 200).activities), [made.id]);

    // Kept under the booking: the same key through another booking's link is that booking's own.
    const other = vendorSide(await book(acme, event.id, (await createVendor(acme)).id));
    expectStatus(await other.confirm(), 200);
    const separate = await post(other.path);
    assert.equal(
      separate.status,
      201,
      `another booking, the same key: ${separate.status} ${JSON.stringify(separate.body)}`,
    );
    assert.equal(separate.headers.get("idempotent-replayed"), null);
    assert.notEqual(separate.body.id, made.id);
  });
  test("no table holds a link's token in clear (bookings, idempotency answers, payloads)", async () => {
    assert.ok(tokensSeen.size > 10);
    const found: string[] = [];
    for (const table of await databaseTables(server.database)) {
      const rows = await queryDatabase(server.database, `SELECT * FROM ${table}`);
      const text = JSON.stringify(rows, (_key, value) =>
        value instanceof Uint8Array ? Buffer.from(value).toString("latin1") : value,
      );
      for (const token of tokensSeen) if (text.includes(token.slice(4))) found.push(`${table}: ${token}`);
    }
    assert.deepEqual(found, []);
  });
});

describe("notifications", () => {
  let paths = 0;
  const VENDOR_TYPES = [
    "vendor.booking_requested",
    "vendor.confirmed",
    "vendor.declined",
    "vendor.cancelled",
    "vendor.data_submitted",
  ];

  /** Verifies a delivery with the published verifiers and returns its envelope. */
  function verified(request: Received, secret: string) {
    assert.ok(
      verifySignature(secret, request.raw, request.headers["x-service-signature"] as string),
      "X-Service-Signature verifies over the raw body",
    );
    const { payload } = verifyWebhook(secret, request.headers, request.raw);
    assert.deepEqual(payload, request.body);
    assert.equal(request.headers["x-service-event"], request.body.type);
    return request.body;
  }

  test("vendor.* are delivered signed: requested, confirmed, data submitted, declined, and cancelled with the event", async () => {
    const client = await newAccount("Vendor Notify");
    const path = `/vendor-notify/${++paths}`;
    const webhook = expectStatus(
      await client.post("/webhooks", { url: `${receiver.origin}${path}`, events: VENDOR_TYPES }),
      201,
    );
    const caterer = await createVendor(client, {
      name: "Notify Caterer",
      category: "catering",
      contact: { email: "c@example.com" },
    });
    const stage = await createVendor(client, { name: "Notify Stage", category: "production" });
    const florist = await createVendor(client, { name: "Notify Decor", category: "other" });
    const event = await createEvent(client, { name: "Notify Summit" });
    await moveEvent(client, event.id, "published");

    const confirmedBooking = await book(client, event.id, caterer.id, { dataRequested: ["catering"] });
    const requestedBooking = await book(client, event.id, stage.id, { dataRequested: [] });
    const declinedBooking = await book(client, event.id, florist.id, { dataRequested: [] });
    expectStatus(await vendorSide(confirmedBooking).confirm({ message: "Booked in" }), 200);
    expectStatus(await vendorSide(declinedBooking).decline({ message: "Fully booked" }), 200);
    const meals = expectStatus(await vendorSide(confirmedBooking).record(VEGAN_MEALS), 201);
    // Cancelled by the organiser before the event is.
    const bus = await createVendor(client, { name: "Notify Shuttle", category: "transport" });
    const droppedBooking = await book(client, event.id, bus.id, { dataRequested: [] });
    expectStatus(await client.put(`/events/${event.id}/vendors/${droppedBooking.id}`, { status: "cancelled" }), 200);
    await moveEvent(client, event.id, "cancelled");

    const received = () => receiver.at(path);
    await receiver.waitFor(
      () => new Set(received().map((request) => request.body.id)).size >= 10,
      "10 vendor notifications",
    );
    // Each verified; a retried delivery (the same envelope id) counted once.
    const envelopes = [
      ...new Map(received().map((request) => [request.body.id, verified(request, webhook.secret)])).values(),
    ];
    const ofType = (type: string) => envelopes.filter((envelope) => envelope.type === type);
    const count = (type: string) => new Set(ofType(type).map((envelope) => envelope.id)).size;
    assert.deepEqual(
      VENDOR_TYPES.map((type) => [type, count(type)]),
      [
        ["vendor.booking_requested", 4],
        ["vendor.confirmed", 1],
        ["vendor.declined", 1],
        ["vendor.cancelled", 3],
        ["vendor.data_submitted", 1],
      ],
    );
    const ref = (vendor: any) => ({ id: vendor.id, name: vendor.name, category: vendor.category });
    const eventRef = { id: event.id, name: event.name };
    for (const envelope of envelopes) {
      const keys =
        envelope.type === "vendor.data_submitted"
          ? ["activity", "booking", "event", "vendor"]
          : ["booking", "event", "vendor"];
      assert.deepEqual(Object.keys(envelope.data).sort(), keys, envelope.type);
      assert.deepEqual(
        Object.keys(envelope.data.booking).sort(),
        BOOKING_KEYS,
        `${envelope.type}: the booking, without its link`,
      );
      assert.deepEqual(envelope.data.event, eventRef);
      assert.doesNotMatch(JSON.stringify(envelope), /vendor-requests|c@example\.com/, "no link, no contact");
    }
    const requested = ofType("vendor.booking_requested").find((e) => e.data.booking.id === confirmedBooking.id);
    assert.deepEqual(requested.data, { booking: withoutLink(confirmedBooking), vendor: ref(caterer), event: eventRef });
    const [confirmed] = ofType("vendor.confirmed");
    assert.equal(confirmed.data.booking.id, confirmedBooking.id);
    assert.equal(confirmed.data.booking.status, "confirmed");
    assert.equal(confirmed.data.booking.message, "Booked in");
    assert.deepEqual(confirmed.data.vendor, ref(caterer));
    const [declined] = ofType("vendor.declined");
    assert.deepEqual(
      [declined.data.booking.id, declined.data.booking.status, declined.data.booking.message, declined.data.vendor],
      [declinedBooking.id, "declined", "Fully booked", ref(florist)],
    );
    const [submitted] = ofType("vendor.data_submitted");
    assert.deepEqual(submitted.data.activity, meals);
    assert.equal(submitted.data.booking.id, confirmedBooking.id);
    assert.deepEqual(submitted.data.vendor, ref(caterer));
    const cancelled = ofType("vendor.cancelled");
    assert.deepEqual(
      cancelled.map((e) => e.data.booking.id).sort(),
      ids([confirmedBooking, requestedBooking, droppedBooking]).sort(),
      "the organiser's cancellation, then the event's requested and confirmed bookings, not the declined one",
    );
    for (const envelope of cancelled) assert.equal(envelope.data.booking.status, "cancelled");
    assert.deepEqual(cancelled.map((e) => e.data.vendor.id).sort(), [caterer.id, stage.id, bus.id].sort());

    // Listed as cancelled afterwards; their links are 404.
    const statuses = Object.fromEntries(
      expectStatus(await client.get(`/events/${event.id}/vendors?limit=100`), 200).bookings.map(
        (b: { id: string; status: string }) => [b.id, b.status],
      ),
    );
    assert.deepEqual(statuses, {
      [confirmedBooking.id]: "cancelled",
      [requestedBooking.id]: "cancelled",
      [declinedBooking.id]: "declined",
      [droppedBooking.id]: "cancelled",
    });
    expectError(await vendorSide(confirmedBooking).view(), 404, "NOT_FOUND");
    expectError(await vendorSide(requestedBooking).view(), 404, "NOT_FOUND");
    // The delivery log holds the same notifications, once each.
    const log = expectStatus(await client.get(`/webhooks/${webhook.id}/deliveries?limit=100`), 200);
    assert.equal(log.deliveries.length, 10);
  });

  test("another account's webhook gets none of these", async () => {
    const client = await newAccount("Vendor Silent");
    const path = `/vendor-silent/${++paths}`;
    expectStatus(await client.post("/webhooks", { url: `${receiver.origin}${path}`, events: ["*"] }), 201);
    const vendor = await createVendor(acme);
    const event = await createEvent(acme);
    const booking = await book(acme, event.id, vendor.id);
    expectStatus(await vendorSide(booking).confirm(), 200);
    // The notifier works (its own event is delivered), and Acme's vendor notifications are not.
    await createEvent(client);
    await receiver.waitFor(() => receiver.at(path).length >= 1, "the account's own event.created");
    assert.deepEqual(
      receiver.at(path).map((request) => request.body.type),
      ["event.created"],
    );
  });
});

describe("local sourcing", () => {
  test("two confirmed vendors, one 21.6 km and one 504 km away, one certified: 50% local, 50% certified, the goal met once", async () => {
    const client = await newAccount("Vendor Local");
    const path = "/vendor-local/goals";
    const webhook = expectStatus(
      await client.post("/webhooks", { url: `${receiver.origin}${path}`, events: ["sustainability.goal_achieved"] }),
      201,
    );
    const event = await createEvent(client, {
      name: "Berlin Green Days",
      location: {
        address: "Alexanderplatz 1",
        city: "Berlin",
        country: "DE",
        coordinates: { lat: 52.52, lng: 13.405 },
      },
      sustainabilityGoals: { localSourcing: true },
    });
    // Bernau bei Berlin, 21.6 km by great circle; certified until after the event's start.
    const near = await createVendor(client, {
      name: "Bernau Bakery",
      category: "catering",
      location: { city: "Bernau bei Berlin", country: "DE", coordinates: { lat: 52.6797, lng: 13.5874 } },
      certifications: [{ scheme: "EU Ecolabel", validUntil: "2038-05-01" }],
    });
    // Munich, 504 km; its certificate ran out the day before the event's start.
    const far = await createVendor(client, {
      name: "Munich Staging",
      category: "production",
      location: { city: "München", country: "DE", coordinates: { lat: 48.1351, lng: 11.582 } },
      certifications: [{ scheme: "ISO 20121", validUntil: "2038-04-30" }],
    });
    const analytics = async () => expectStatus(await client.get(`/analytics/events/${event.id}`), 200);
    const localGoal = (report: any) =>
      report.sustainability.goalProgress.find((goal: { type: string }) => goal.type === "local_sourcing");

    const before = await analytics();
    assert.deepEqual(before.vendors, {
      confirmed: 0,
      local: 0,
      localSharePercent: null,
      certified: 0,
      certifiedSharePercent: null,
    });
    assert.equal(localGoal(before).set, true);
    assert.equal(localGoal(before).met, null, "nothing to judge without a confirmed vendor");

    const nearBooking = await book(client, event.id, near.id);
    const farBooking = await book(client, event.id, far.id);
    // Requested vendors do not count.
    assert.equal((await analytics()).vendors.confirmed, 0);
    expectStatus(await vendorSide(farBooking).confirm(), 200);
    const farOnly = await analytics();
    assert.deepEqual(farOnly.vendors, {
      confirmed: 1,
      local: 0,
      localSharePercent: 0,
      certified: 0,
      certifiedSharePercent: 0,
    });
    assert.equal(localGoal(farOnly).met, false);

    expectStatus(await vendorSide(nearBooking).confirm(), 200);
    const both = await analytics();
    assert.deepEqual(both.vendors, {
      confirmed: 2,
      local: 1,
      localSharePercent: 50,
      certified: 1,
      certifiedSharePercent: 50,
    });
    const goal = localGoal(both);
    assert.deepEqual([goal.type, goal.set, goal.met, goal.target], ["local_sourcing", true, true, 50]);

    const [sent] = await receiver
      .waitFor((received) => received.some((r) => r.path === path), "sustainability.goal_achieved")
      .then((received) => received.filter((r) => r.path === path));
    assert.equal(sent!.body.type, "sustainability.goal_achieved");
    assert.deepEqual(sent!.body.data.event, { id: event.id, name: event.name });
    assert.equal(sent!.body.data.goal.type, "local_sourcing");
    assert.equal(sent!.body.data.goal.achieved, true);
    assert.ok(verifySignature(webhook.secret, sent!.raw, sent!.headers["x-service-signature"] as string));

    // Below (a third, distant vendor: 33.3%) and back at 50%: not achieved a second time.
    const hamburg = await createVendor(client, {
      name: "Hamburg Freight",
      category: "logistics",
      location: { city: "Hamburg", country: "DE", coordinates: { lat: 53.5511, lng: 9.9937 } },
    });
    const third = await book(client, event.id, hamburg.id);
    expectStatus(await vendorSide(third).confirm(), 200);
    const diluted = await analytics();
    assert.equal(diluted.vendors.confirmed, 3);
    assert.equal(diluted.vendors.local, 1);
    assert.ok(Math.abs(diluted.vendors.localSharePercent - 100 / 3) < 0.06, String(diluted.vendors.localSharePercent));
    assert.equal(localGoal(diluted).met, false);
    expectStatus(await client.put(`/events/${event.id}/vendors/${third.id}`, { status: "cancelled" }), 200);
    const again = await analytics();
    assert.deepEqual(again.vendors, both.vendors);
    assert.equal(localGoal(again).met, true);
    const log = expectStatus(await client.get(`/webhooks/${webhook.id}/deliveries?limit=100`), 200);
    assert.deepEqual(
      log.deliveries.map((d: { type: string; payload: { data: { goal: { type: string } } } }) => [
        d.type,
        d.payload.data.goal.type,
      ]),
      [["sustainability.goal_achieved", "local_sourcing"]],
      "delivered once",
    );
    // Another account's analytics of this event: 404.
    expectError(await globex.get(`/analytics/events/${event.id}`), 404, "NOT_FOUND");
    // Computed on read: the far vendor moving near counts at once.
    expectStatus(
      await client.put(`/vendors/${far.id}`, {
        location: { city: "Potsdam", country: "DE", coordinates: { lat: 52.3906, lng: 13.0645 } },
      }),
      200,
    );
    const moved = await analytics();
    assert.deepEqual([moved.vendors.local, moved.vendors.localSharePercent], [2, 100]);
  });

  test("a confirmed vendor without coordinates, or an event without them, is not local", async () => {
    const client = await newAccount("Vendor Nowhere");
    const event = await createEvent(client, {
      location: {
        address: "Alexanderplatz 1",
        city: "Berlin",
        country: "DE",
        coordinates: { lat: 52.52, lng: 13.405 },
      },
    });
    const somewhere = await createEvent(client);
    // Certified: a certification without an end counts.
    const vendor = await createVendor(client, {
      location: { city: "Berlin", country: "DE" },
      certifications: [{ scheme: "B Corp" }],
    });
    const located = await createVendor(client, {
      location: { city: "Berlin", country: "DE", coordinates: { lat: 52.52, lng: 13.405 } },
      certifications: [{ scheme: "B Corp", validUntil: "2020-01-01" }],
    });
    expectStatus(await vendorSide(await book(client, event.id, vendor.id)).confirm(), 200);
    expectStatus(await vendorSide(await book(client, somewhere.id, located.id)).confirm(), 200);
    assert.deepEqual(expectStatus(await client.get(`/analytics/events/${event.id}`), 200).vendors, {
      confirmed: 1,
      local: 0,
      localSharePercent: 0,
      certified: 1,
      certifiedSharePercent: 100,
    });
    assert.deepEqual(expectStatus(await client.get(`/analytics/events/${somewhere.id}`), 200).vendors, {
      confirmed: 1,
      local: 0,
      localSharePercent: 0,
      certified: 0,
      certifiedSharePercent: 0,
    });
  });

  test("LOCAL_SOURCING_RADIUS_KM and LOCAL_SOURCING_TARGET_PERCENT set the radius and the goal's target", async () => {
    const configured = await startServer({
      env: { LOCAL_SOURCING_RADIUS_KM: "20", LOCAL_SOURCING_TARGET_PERCENT: "100" },
    });
    try {
      const client = clientFor(configured, (await configured.createKey({ account: "Configured" })).key);
      const berlin = {
        address: "Alexanderplatz 1",
        city: "Berlin",
        country: "DE",
        coordinates: { lat: 52.52, lng: 13.405 },
      };
      const event = expectStatus(
        await client.post("/events", eventInput({ location: berlin, sustainabilityGoals: { localSourcing: true } })),
        201,
      );
      const confirmAt = async (name: string, lat: number, lng: number) => {
        const vendor = expectStatus(
          await client.post(
            "/vendors",
            vendorInput({ name, location: { city: name, country: "DE", coordinates: { lat, lng } } }),
          ),
          201,
        );
        const booking = expectStatus(
          await client.post(`/events/${event.id}/vendors`, { vendorId: vendor.id, services: "x" }),
          201,
        );
        expectStatus(await configured.request("POST", `${new URL(booking.vendorLink).pathname}/confirm`), 200);
      };
      // Potsdam, 27.2 km: local at 160 km, not at 20. Mitte, 1.6 km: local.
      await confirmAt("Potsdam", 52.3906, 13.0645);
      await confirmAt("Mitte", 52.5306, 13.3886);
      const report = expectStatus(await client.get(`/analytics/events/${event.id}`), 200);
      assert.deepEqual([report.vendors.confirmed, report.vendors.local, report.vendors.localSharePercent], [2, 1, 50]);
      const goal = report.sustainability.goalProgress.find((g: { type: string }) => g.type === "local_sourcing");
      assert.deepEqual([goal.met, goal.target], [false, 100], "50% is short of the configured 100%");
    } finally {
      assert.equal(await configured.stop(), 0);
    }
  });
});
