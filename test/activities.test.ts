/**
 * End-to-end: an event's activity records (docs/api.md, "Activities") over HTTP, on a
 * server started with a factor file of its own (EMISSION_FACTORS_FILE) so that every figure can
 * be worked out by hand from the file: one record of each kind with its emissions, factor and
 * scope; the 400s naming the field; the partial update checked whole; delete; other accounts'
 * events and records answering 404; scopes; paging; Idempotency-Key; and an event's deletion
 * taking its records with it.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { queryDatabase, startServer, type TestServer } from "./_setup.ts";
import { type Client, clientFor, createEvent, expectError, expectStatus, ids, ISO_UTC } from "./fixtures/api.ts";

const dir = mkdtempSync(join(tmpdir(), "event-service-activities-"));

/** Travel factors (staff travel is priced by them) and an entry for most kinds, in round numbers. */
const FACTORS = {
  name: "Festival Test Factors",
  year: 2031,
  source: "The activities test",
  factors: [
    { mode: "car", factor: 0.2 },
    { mode: "flight", factor: 0.3 },
    { mode: "train", factor: 0.03125, description: "Rail - test" },
    { mode: "bus", factor: 0.1 },
    { mode: "bike", factor: 0 },
    { mode: "walk", factor: 0 },
  ],
  activities: [
    { kind: "electricity", country: "GB", unit: "kWh", factor: 0.25, name: "Electricity - GB grid", year: 2030 },
    { kind: "fuel", fuel: "diesel", unit: "litres", factor: 2.5, name: "Diesel (average biofuel blend)" },
    { kind: "fuel", fuel: "hvo", unit: "litres", factor: 0.125, name: "HVO" },
    { kind: "catering", mealType: "meat", unit: "meals", factor: 4, name: "Meal - meat" },
    { kind: "catering", mealType: "vegan", unit: "meals", factor: 0.5, name: "Meal - vegan" },
    { kind: "accommodation", country: "GB", unit: "room_nights", factor: 12.5, name: "Hotel stay - UK" },
    {
      kind: "materials",
      material: "paper",
      recycledContent: false,
      unit: "kg",
      factor: 1.25,
      name: "Paper - primary material",
      source: "A paper mill's EPD",
      year: 2029,
    },
    { kind: "freight", mode: "hgv", unit: "tonne_km", factor: 0.125, name: "HGV - average laden" },
    { kind: "waste", stream: "landfill", unit: "tonnes", factor: 500, name: "Waste - landfill" },
    { kind: "waste", stream: "recycling", unit: "tonnes", factor: 20, name: "Waste - closed-loop recycling" },
    { kind: "water", unit: "m3", factor: 0.25, name: "Water supply" },
  ],
};

let server: TestServer;
/** Account A, every scope. */
let v1: Client;
/** Account A under /api. */
let api: Client;
/** Account B, every scope. */
let other: Client;
/** Account A, events:read only. */
let reader: Client;
/** Account A, attendees:read only. */
let outsider: Client;
/** An event of account A, in GB. */
let festival: { id: string };

before(async () => {
  const file = join(dir, "factors.json");
  writeFileSync(file, JSON.stringify(FACTORS));
  server = await startServer({ env: { EMISSION_FACTORS_FILE: file } });
  const account = `Festival ${Date.now()}`;
  const { key } = await server.createKey({ account, tier: "enterprise" });
  v1 = clientFor(server, key);
  api = clientFor(server, key, "/api");
  reader = clientFor(server, (await server.createKey({ account, tier: "enterprise", scopes: ["events:read"] })).key);
  outsider = clientFor(
    server,
    (await server.createKey({ account, tier: "enterprise", scopes: ["attendees:read"] })).key,
  );
  other = clientFor(server, (await server.createKey({ account: `Other ${Date.now()}`, tier: "enterprise" })).key);
  festival = await createEvent(v1, {
    name: "Field Festival",
    location: { address: "Worthy Farm", city: "Pilton", country: "GB" },
  });
});

after(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const path = (eventId: string, activityId?: string) =>
  `/events/${eventId}/activities${activityId === undefined ? "" : `/${activityId}`}`;

/** Records an activity of `eventId` (201 asserted) and returns it. */
async function record(body: Record<string, unknown>, eventId = festival.id, client = v1): Promise<any> {
  return expectStatus(await client.post(path(eventId), body), 201);
}

/** What every answer has, and what it has when the kind's qualifiers are `qualifiers`. */
function assertShape(activity: any, qualifiers: Record<string, unknown>) {
  const common = ["id", "eventId", "kind", "quantity", "unit", "dataQuality", "vendorId", "note"];
  const figures = ["emissionsKg", "scope", "factor", "createdAt", "updatedAt"];
  assert.deepEqual(Object.keys(activity).sort(), [...common, ...Object.keys(qualifiers), ...figures].sort());
  for (const [name, value] of Object.entries(qualifiers)) assert.deepEqual(activity[name], value, name);
  assert.match(activity.id, /^act_[0-9a-f]{24}$/);
  assert.match(activity.createdAt, ISO_UTC);
  assert.equal(activity.vendorId, null);
}

describe("one record of each kind, priced from the file by hand", () => {
  /** [body, the kind's qualifiers as answered, the factor's value by hand, its name, its scope] */
  const CASES: Array<[Record<string, unknown>, Record<string, unknown>, number, string, 1 | 2 | 3]> = [
    [
      { kind: "electricity", quantity: 12_000, unit: "kWh", source: "grid" },
      { source: "grid", country: "GB" },
      0.25,
      "Electricity - GB grid",
      2,
    ],
    [
      { kind: "fuel", quantity: 1_800, unit: "litres", fuel: "diesel", note: "Generators, main stage" },
      { fuel: "diesel" },
      2.5,
      "Diesel (average biofuel blend)",
      1,
    ],
    [
      { kind: "catering", quantity: 3_000, unit: "meals", mealType: "meat", dataQuality: "estimated" },
      { mealType: "meat" },
      4,
      "Meal - meat",
      3,
    ],
    [
      { kind: "accommodation", quantity: 400, unit: "room_nights", country: "GB" },
      { country: "GB" },
      12.5,
      "Hotel stay - UK",
      3,
    ],
    [
      { kind: "materials", quantity: 120, unit: "kg", material: "paper" },
      { material: "paper", recycledContent: false },
      1.25,
      "Paper - primary material",
      3,
    ],
    [
      { kind: "freight", quantity: 20, unit: "tonne_km", mode: "hgv" },
      { mode: "hgv" },
      0.125,
      "HGV - average laden",
      3,
    ],
    // The file gives waste per tonne; a record in kg is priced per kg: 500 kg CO2e/t is 0.5 per kg.
    [
      { kind: "waste", quantity: 5_000, unit: "kg", stream: "landfill", material: "mixed" },
      { stream: "landfill", material: "mixed" },
      500 * 0.001,
      "Waste - landfill",
      3,
    ],
    [{ kind: "water", quantity: 80, unit: "m3" }, {}, 0.25, "Water supply", 3],
    [
      { kind: "staff_travel", quantity: 1_000, unit: "passenger_km", mode: "train" },
      { mode: "train" },
      0.03125,
      "Rail - test",
      3,
    ],
  ];

  for (const [body, qualifiers, value, name, scope] of CASES) {
    test(`${body.kind}: emissionsKg = quantity x factor.value, scope ${scope}`, async () => {
      const activity = await record(body);
      assertShape(activity, qualifiers);
      assert.equal(activity.eventId, festival.id);
      assert.equal(activity.kind, body.kind);
      assert.equal(activity.quantity, body.quantity);
      assert.equal(activity.unit, body.unit);
      assert.equal(activity.dataQuality, body.dataQuality ?? "measured");
      assert.equal(activity.note, body.note ?? null);
      assert.equal(activity.scope, scope);
      assert.equal(activity.factor.value, value);
      assert.equal(activity.factor.name, name);
      assert.equal(activity.emissionsKg, (body.quantity as number) * value);
      assert.equal(activity.emissionsKg, activity.quantity * activity.factor.value);
      assert.deepEqual(expectStatus(await v1.get(path(festival.id, activity.id)), 200), activity);
    });
  }

  test("concrete figures: the festival's diesel, meals, grid power and waste", async () => {
    const diesel = await record({ kind: "fuel", quantity: 400, unit: "litres", fuel: "diesel" });
    assert.equal(diesel.emissionsKg, 1000);
    assert.deepEqual(diesel.factor, {
      name: "Diesel (average biofuel blend)",
      value: 2.5,
      unit: "kg CO2e per litre",
      source: "The activities test",
      year: 2031,
    });
    assert.equal(
      (await record({ kind: "catering", quantity: 3_000, unit: "meals", mealType: "vegan" })).emissionsKg,
      1500,
    );
    const grid = await record({ kind: "electricity", quantity: 1_000, unit: "kWh", source: "grid", country: "GB" });
    assert.equal(grid.emissionsKg, 250);
    assert.deepEqual(grid.factor, {
      name: "Electricity - GB grid",
      value: 0.25,
      unit: "kg CO2e per kWh",
      source: "The activities test",
      year: 2030,
    });
    const recycled = await record({ kind: "waste", quantity: 2_000, unit: "kg", stream: "recycling" });
    assert.equal(recycled.factor.value, 20 * 0.001);
    assert.equal(recycled.factor.unit, "kg CO2e per kg");
    assert.equal(recycled.material, null);
    assert.equal(recycled.emissionsKg, 2_000 * (20 * 0.001));
    const paper = await record({
      kind: "materials",
      quantity: 8,
      unit: "kg",
      material: "paper",
      recycledContent: false,
    });
    assert.equal(paper.emissionsKg, 10);
    assert.equal(paper.factor.source, "A paper mill's EPD");
    assert.equal(paper.factor.year, 2029);
  });

  test("renewable electricity is 0 kg (market-based), scope 2; a record the file does not price is unpriced", async () => {
    for (const source of ["renewable_tariff", "onsite_renewable"]) {
      const green = await record({ kind: "electricity", quantity: 5_000, unit: "kWh", source });
      assert.equal(green.emissionsKg, 0);
      assert.equal(green.factor.value, 0);
      assert.equal(green.factor.unit, "kg CO2e per kWh");
      assert.equal(green.scope, 2);
    }
    // The file prices GB grid power only: a French grid, fish meals and petrol are unpriced.
    const french = await record({ kind: "electricity", quantity: 10, unit: "kWh", source: "grid", country: "FR" });
    assert.equal(french.country, "FR");
    for (const unpriced of [
      french,
      await record({ kind: "catering", quantity: 10, unit: "meals", mealType: "fish" }),
      await record({ kind: "fuel", quantity: 10, unit: "kg", fuel: "diesel" }),
    ]) {
      assert.equal(unpriced.emissionsKg, null);
      assert.equal(unpriced.factor, null);
    }
  });
});

describe("bad input is 400 naming the field", () => {
  const FUEL = { kind: "fuel", quantity: 10, unit: "litres", fuel: "diesel" };
  const CASES: Array<[string, Record<string, unknown>, string]> = [
    ["a unit that does not fit the kind", { ...FUEL, unit: "meals" }, "unit"],
    ["a unit nobody has", { ...FUEL, unit: "gallons" }, "unit"],
    ["a qualifier of another kind", { ...FUEL, mealType: "vegan" }, "mealType"],
    [
      "a qualifier of another kind (electricity's source on waste)",
      { kind: "waste", quantity: 1, unit: "kg", stream: "reuse", source: "grid" },
      "source",
    ],
    ["a negative quantity", { ...FUEL, quantity: -1 }, "quantity"],
    ["a quantity of 0", { ...FUEL, quantity: 0 }, "quantity"],
    ["an absurd quantity", { ...FUEL, quantity: 2e9 }, "quantity"],
    ["a quantity as text", { ...FUEL, quantity: "10" }, "quantity"],
    ["an unknown kind", { ...FUEL, kind: "nuclear" }, "kind"],
    ["no kind", { quantity: 1, unit: "kg" }, "kind"],
    ["a missing qualifier", { kind: "fuel", quantity: 10, unit: "litres" }, "fuel"],
    ["a fuel nobody burns", { ...FUEL, fuel: "coal" }, "fuel"],
    ["a country in lower case", { kind: "accommodation", quantity: 1, unit: "room_nights", country: "gb" }, "country"],
    [
      "waste's food as a material of materials",
      { kind: "materials", quantity: 1, unit: "kg", material: "food" },
      "material",
    ],
    ["a bad data quality", { ...FUEL, dataQuality: "guessed" }, "dataQuality"],
    ["a note too long", { ...FUEL, note: "x".repeat(1001) }, "note"],
    ["the answer's figures", { ...FUEL, emissionsKg: 1 }, "emissionsKg"],
  ];
  for (const [what, body, field] of CASES) {
    test(what, async () => {
      const error = expectError(await v1.post(path(festival.id), body), 400, "INVALID_REQUEST", field);
      assert.ok(error.details.issues.length >= 1);
    });
  }

  test("vendorId names one of the account's vendors: another's or none is 404 naming it", async () => {
    const vendor = expectStatus(await v1.post("/vendors", { name: "Generator Hire Ltd", category: "energy" }), 201);
    const record = expectStatus(await v1.post(path(festival.id), { ...FUEL, vendorId: vendor.id }), 201);
    assert.equal(record.vendorId, vendor.id);
    expectError(await v1.post(path(festival.id), { ...FUEL, vendorId: "ven_1" }), 404, "NOT_FOUND", "vendorId");
    assert.equal(expectStatus(await v1.put(path(festival.id, record.id), { vendorId: null }), 200).vendorId, null);
    expectStatus(await v1.delete(path(festival.id, record.id)), 200);
  });

  test("a body that is not an object, and a list query with a bad or unknown parameter", async () => {
    expectError(await v1.post(path(festival.id), [FUEL]), 400, "INVALID_REQUEST");
    expectError(await v1.get(`${path(festival.id)}?limit=0`), 400, "INVALID_REQUEST", "limit");
    expectError(await v1.get(`${path(festival.id)}?kind=fuel`), 400, "INVALID_REQUEST", "kind");
  });
});

describe("update, delete", () => {
  test("PUT is partial: the patch is merged, the whole checked again and priced again", async () => {
    const diesel = await record({ kind: "fuel", quantity: 400, unit: "litres", fuel: "diesel", note: "Stage A" });
    const fewer = expectStatus(await v1.put(path(festival.id, diesel.id), { quantity: 100 }), 200);
    assert.equal(fewer.emissionsKg, 250);
    assert.equal(fewer.note, "Stage A");
    assert.equal(fewer.createdAt, diesel.createdAt);
    assert.ok(fewer.updatedAt >= diesel.updatedAt);
    const hvo = expectStatus(
      await v1.put(path(festival.id, diesel.id), { fuel: "hvo", note: null, kind: "fuel" }),
      200,
    );
    assert.equal(hvo.fuel, "hvo");
    assert.equal(hvo.note, null);
    assert.equal(hvo.factor.name, "HVO");
    assert.equal(hvo.emissionsKg, 100 * 0.125);
    const estimated = expectStatus(
      await v1.put(path(festival.id, diesel.id), { dataQuality: "estimated", unit: "kWh" }),
      200,
    );
    assert.equal(estimated.dataQuality, "estimated");
    assert.equal(estimated.emissionsKg, null, "the file prices HVO by the litre only");

    expectError(await v1.put(path(festival.id, diesel.id), { unit: "meals" }), 400, "INVALID_REQUEST", "unit");
    expectError(await v1.put(path(festival.id, diesel.id), { mealType: "vegan" }), 400, "INVALID_REQUEST", "mealType");
    expectError(await v1.put(path(festival.id, diesel.id), { kind: "catering" }), 400, "INVALID_REQUEST", "kind");
    expectError(await v1.put(path(festival.id, diesel.id), { quantity: 0 }), 400, "INVALID_REQUEST", "quantity");
    expectError(await v1.put(path(festival.id, diesel.id), { quantity: 2e9 }), 400, "INVALID_REQUEST", "quantity");
    expectError(await v1.put(path(festival.id, diesel.id), { vendorId: "ven_1" }), 404, "NOT_FOUND", "vendorId");
    expectError(
      await v1.put(path(festival.id, diesel.id), { createdAt: "2020-01-01T00:00:00Z" }),
      400,
      "INVALID_REQUEST",
      "createdAt",
    );
    // Nothing of the refused updates was written.
    assert.deepEqual(expectStatus(await v1.get(path(festival.id, diesel.id)), 200), estimated);

    // Electricity keeps its country unless the patch gives one; waste's material can be cleared.
    const grid = await record({ kind: "electricity", quantity: 10, unit: "kWh", source: "grid" });
    const renewable = expectStatus(await v1.put(path(festival.id, grid.id), { source: "onsite_renewable" }), 200);
    assert.equal(renewable.country, "GB");
    assert.equal(renewable.emissionsKg, 0);
    const waste = await record({ kind: "waste", quantity: 10, unit: "kg", stream: "landfill", material: "food" });
    const cleared = expectStatus(await v1.put(path(festival.id, waste.id), { material: null }), 200);
    assert.equal(cleared.material, null);
  });

  test("DELETE answers the deletion; the record is gone", async () => {
    const water = await record({ kind: "water", quantity: 1, unit: "m3" });
    assert.deepEqual(expectStatus(await v1.delete(path(festival.id, water.id)), 200), {
      success: true,
      message: `Activity ${water.id} was deleted.`,
      deletedId: water.id,
    });
    expectError(await v1.get(path(festival.id, water.id)), 404, "NOT_FOUND");
    expectError(await v1.delete(path(festival.id, water.id)), 404, "NOT_FOUND");
    expectError(await v1.put(path(festival.id, water.id), { quantity: 2 }), 404, "NOT_FOUND");
  });
});

describe("an event that has ended", () => {
  test("its footprint is recorded after the fact: records are created, changed and listed", async () => {
    const past = await createEvent(v1, {
      name: "Festival 2020",
      location: { address: "Worthy Farm", city: "Pilton", country: "GB" },
      startDate: "2020-06-24T10:00:00Z",
      endDate: "2020-06-28T22:00:00Z",
    });
    const diesel = await record({ kind: "fuel", quantity: 400, unit: "litres", fuel: "diesel" }, past.id);
    assert.equal(diesel.emissionsKg, 1000);
    assert.equal(expectStatus(await v1.put(path(past.id, diesel.id), { quantity: 200 }), 200).emissionsKg, 500);
    const listed = expectStatus(await v1.get(path(past.id)), 200);
    assert.deepEqual(
      listed.activities.map((a: any) => [a.id, a.emissionsKg]),
      [[diesel.id, 500]],
    );
  });
});

describe("isolation, scopes, prefixes, retries", () => {
  test("another account's event or record is 404 on every route; so is a record under another event", async () => {
    const water = await record({ kind: "water", quantity: 1, unit: "m3" });
    const mine = await createEvent(v1);
    expectError(await other.post(path(festival.id), { kind: "water", quantity: 1, unit: "m3" }), 404, "NOT_FOUND");
    expectError(await other.get(path(festival.id)), 404, "NOT_FOUND");
    expectError(await other.get(path(festival.id, water.id)), 404, "NOT_FOUND");
    expectError(await other.put(path(festival.id, water.id), { quantity: 5 }), 404, "NOT_FOUND");
    expectError(await other.delete(path(festival.id, water.id)), 404, "NOT_FOUND");
    expectError(await v1.get(path(mine.id, water.id)), 404, "NOT_FOUND");
    expectError(await v1.delete(path(mine.id, water.id)), 404, "NOT_FOUND");
    expectError(
      await v1.post(path("evt_000000000000000000000000"), { kind: "water", quantity: 1, unit: "m3" }),
      404,
      "NOT_FOUND",
    );
    expectError(await v1.get(path("evt_000000000000000000000000")), 404, "NOT_FOUND");
    assert.equal(expectStatus(await v1.get(path(festival.id, water.id)), 200).quantity, 1, "untouched");
  });

  test("events:read reads, events:write changes; other scopes are 403", async () => {
    const water = await record({ kind: "water", quantity: 1, unit: "m3" });
    assert.equal(expectStatus(await reader.get(path(festival.id, water.id)), 200).id, water.id);
    expectStatus(await reader.get(path(festival.id)), 200);
    expectError(await reader.post(path(festival.id), { kind: "water", quantity: 1, unit: "m3" }), 403, "FORBIDDEN");
    expectError(await reader.put(path(festival.id, water.id), { quantity: 2 }), 403, "FORBIDDEN");
    expectError(await reader.delete(path(festival.id, water.id)), 403, "FORBIDDEN");
    expectError(await outsider.get(path(festival.id)), 403, "FORBIDDEN");
  });

  test("/api serves the same records; a retried POST with its Idempotency-Key creates one", async () => {
    const water = await record({ kind: "water", quantity: 1, unit: "m3" });
    assert.deepEqual(expectStatus(await api.get(path(festival.id, water.id)), 200), water);
    const event = await createEvent(v1);
    const headers = { "idempotency-key": randomUUID() };
    const body = { kind: "fuel", quantity: 3, unit: "litres", fuel: "diesel" };
    const first = await v1.post(path(event.id), body, { headers });
    const again = await v1.post(path(event.id), body, { headers });
    assert.equal(again.headers.get("idempotent-replayed"), "true");
    assert.deepEqual(expectStatus(again, 201), expectStatus(first, 201));
    assert.equal(expectStatus(await v1.get(path(event.id)), 200).pagination.total, 1);
  });
});

describe("the list and the event's deletion", () => {
  test("oldest first, a page at a time", async () => {
    const event = await createEvent(v1);
    const made = [];
    for (let i = 1; i <= 5; i++) made.push(await record({ kind: "water", quantity: i, unit: "m3" }, event.id));
    const page = async (query: string) => expectStatus(await v1.get(`${path(event.id)}${query}`), 200);
    const all = await page("");
    assert.deepEqual(ids(all.activities), ids(made));
    assert.deepEqual(all.activities, made);
    assert.deepEqual(all.pagination, { page: 1, limit: 20, total: 5, totalPages: 1, hasNext: false, hasPrev: false });
    const second = await page("?page=2&limit=2");
    assert.deepEqual(ids(second.activities), ids(made.slice(2, 4)));
    assert.deepEqual(second.pagination, { page: 2, limit: 2, total: 5, totalPages: 3, hasNext: true, hasPrev: true });
    assert.deepEqual(ids((await page("?page=3&perPage=2")).activities), [made[4]!.id]);
    assert.deepEqual((await page("?page=4&limit=2")).activities, []);
    const empty = await createEvent(v1);
    assert.deepEqual(expectStatus(await v1.get(path(empty.id)), 200), {
      activities: [],
      pagination: { page: 1, limit: 20, total: 0, totalPages: 0, hasNext: false, hasPrev: false },
    });
  });

  test("deleting the event deletes its records, in the database too", async () => {
    const event = await createEvent(v1);
    const fuel = await record({ kind: "fuel", quantity: 3, unit: "litres", fuel: "diesel" }, event.id);
    await record({ kind: "water", quantity: 1, unit: "m3" }, event.id);
    const count = async () =>
      Number(
        (
          await queryDatabase<{ n: number | string }>(
            server.database,
            "select count(*) as n from activities where event_id = ?",
            [event.id],
          )
        )[0]!.n,
      );
    assert.equal(await count(), 2);
    expectStatus(await v1.delete(`/events/${event.id}`), 200);
    assert.equal(await count(), 0);
    expectError(await v1.get(path(event.id, fuel.id)), 404, "NOT_FOUND");
    expectError(await v1.get(path(event.id)), 404, "NOT_FOUND");
  });
});
