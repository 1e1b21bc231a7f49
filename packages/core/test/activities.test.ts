/**
 * Activity records through the service (in process, SQLite in memory): pricing with the
 * storage's factor set when written, the partial update checked whole, and the figures priced
 * again by `migrate()` when a deployment changes its set.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import Database from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { DEFAULT_EMISSION_FACTORS, type EmissionFactorSetInput } from "../src/carbon/emission-factors.ts";
import { ServiceError } from "../src/errors.ts";
import { priceActivity } from "../src/resources/priced-activity.ts";
import { createEventService } from "../src/service.ts";
import type { Database as Schema } from "../src/sql/database.ts";
import { SQLITE_PRAGMAS } from "../src/sql/dialect.ts";
import { createSqlStorage } from "../src/sql/sql-storage.ts";
import { EVENT } from "./_fixtures.ts";

/** The default travel factors, and activity entries with round numbers to check by hand. */
const PRICED: EmissionFactorSetInput = {
  name: "Test factors",
  year: 2031,
  source: "The test suite",
  factors: DEFAULT_EMISSION_FACTORS.factors,
  activities: [
    { kind: "fuel", fuel: "diesel", unit: "litres", factor: 2.5, name: "Diesel" },
    { kind: "electricity", country: "DE", unit: "kWh", factor: 0.4, name: "Grid DE", source: "UBA", year: 2030 },
    { kind: "electricity", unit: "kWh", factor: 0.3, name: "Grid, any country" },
    { kind: "waste", stream: "landfill", unit: "tonnes", factor: 500, name: "Landfill" },
  ],
};
/** The same entries at other values: what a deployment's changed file gives. */
const CHANGED: EmissionFactorSetInput = {
  ...PRICED,
  name: "Test factors, revised",
  activities: [
    { kind: "fuel", fuel: "diesel", unit: "litres", factor: 3, name: "Diesel, revised" },
    { kind: "catering", mealType: "vegan", unit: "meals", factor: 0.5, name: "Vegan meal" },
  ],
};

async function setUp(set: EmissionFactorSetInput) {
  const database = new Database(":memory:");
  for (const pragma of SQLITE_PRAGMAS) database.pragma(pragma);
  const db = new Kysely<Schema>({ dialect: new SqliteDialect({ database }) });
  const storage = createSqlStorage({ db, emissionFactors: set });
  await storage.migrate();
  const service = createEventService({ storage });
  const { accountId } = await service.keys.create({ account: "Acme" });
  const account = service.forAccount(accountId);
  const event = await account.events.create(EVENT);
  return { db, storage, accountId, account, event };
}

/** The rejection of `promise`: its code and field. */
async function failure(promise: Promise<unknown>): Promise<{ code: string; field: string | undefined }> {
  const error = await promise.then(
    () => assert.fail("expected a rejection"),
    (thrown: unknown) => thrown,
  );
  assert.ok(ServiceError.is(error), String(error));
  return { code: error.code, field: error.field };
}

describe("activities through the service", () => {
  test("a record is priced with the storage's set per its own unit; electricity takes the event's country", async () => {
    const { account, event, storage } = await setUp(PRICED);
    const diesel = await account.activities.create(event.id, {
      kind: "fuel",
      quantity: 40,
      unit: "litres",
      fuel: "diesel",
    });
    assert.equal(diesel.emissionsKg, 100);
    assert.equal(diesel.scope, 1);
    assert.deepEqual(diesel.factor, {
      name: "Diesel",
      value: 2.5,
      unit: "kg CO2e per litre",
      source: "The test suite",
      year: 2031,
    });
    assert.equal(diesel.dataQuality, "measured");
    assert.equal(diesel.vendorId, null);
    assert.equal(diesel.note, null);
    assert.equal("country" in diesel, false, "only the kind's own qualifiers appear");

    const grid = await account.activities.create(event.id, {
      kind: "electricity",
      quantity: 1000,
      unit: "kWh",
      source: "grid",
    });
    assert.equal(grid.country, "DE");
    assert.equal(grid.scope, 2);
    assert.equal(grid.emissionsKg, 1000 * 0.4);
    assert.equal(grid.factor?.source, "UBA");
    const french = await account.activities.create(event.id, {
      kind: "electricity",
      quantity: 10,
      unit: "kWh",
      source: "grid",
      country: "FR",
    });
    assert.equal(french.factor?.name, "Grid, any country");
    const tariff = await account.activities.create(event.id, {
      kind: "electricity",
      quantity: 10,
      unit: "kWh",
      source: "renewable_tariff",
    });
    assert.equal(tariff.emissionsKg, 0);
    assert.equal(tariff.factor?.value, 0);

    // A kg record priced by a per-tonne entry: 500 per tonne is 0.5 per kg.
    const landfill = await account.activities.create(event.id, {
      kind: "waste",
      quantity: 200,
      unit: "kg",
      stream: "landfill",
    });
    assert.equal(landfill.factor?.value, 0.5);
    assert.equal(landfill.emissionsKg, 100);
    assert.equal(landfill.material, null);
    assert.equal(landfill.scope, 3);

    const water = await account.activities.create(event.id, { kind: "water", quantity: 3, unit: "m3", note: " tap " });
    assert.equal(water.emissionsKg, null, "a kind the set does not price is unpriced");
    assert.equal(water.factor, null);
    assert.equal(water.note, "tap");

    const stored = await storage.getActivity(account.accountId, event.id, diesel.id);
    assert.equal(stored?.emissionsKg, 100);
  });

  test("PUT merges the patch and checks the whole; kind cannot change; 404s", async () => {
    const { account, event } = await setUp(PRICED);
    const diesel = await account.activities.create(event.id, {
      kind: "fuel",
      quantity: 40,
      unit: "litres",
      fuel: "diesel",
    });

    const updated = await account.activities.update(event.id, diesel.id, { quantity: 10, note: "Stage B" });
    assert.equal(updated.quantity, 10);
    assert.equal(updated.emissionsKg, 25);
    assert.equal(updated.note, "Stage B");
    assert.equal(updated.createdAt, diesel.createdAt);
    assert.equal(updated.fuel, "diesel");
    const unpriced = await account.activities.update(event.id, diesel.id, { unit: "kg", kind: "fuel" });
    assert.equal(unpriced.emissionsKg, null, "no entry prices diesel by the kg");
    assert.equal((await account.activities.update(event.id, diesel.id, { note: null })).note, null);

    assert.deepEqual(await failure(account.activities.update(event.id, diesel.id, { unit: "meals" })), {
      code: "INVALID_REQUEST",
      field: "unit",
    });
    assert.deepEqual(await failure(account.activities.update(event.id, diesel.id, { mealType: "vegan" })), {
      code: "INVALID_REQUEST",
      field: "mealType",
    });
    assert.deepEqual(await failure(account.activities.update(event.id, diesel.id, { kind: "catering" })), {
      code: "INVALID_REQUEST",
      field: "kind",
    });
    assert.deepEqual(await failure(account.activities.update(event.id, diesel.id, { quantity: 0 })), {
      code: "INVALID_REQUEST",
      field: "quantity",
    });
    assert.deepEqual(await failure(account.activities.update(event.id, diesel.id, { vendorId: "ven_1" })), {
      code: "NOT_FOUND",
      field: "vendorId",
    });
    // Nothing of the refused patches was written.
    assert.deepEqual(await account.activities.get(event.id, diesel.id), {
      ...unpriced,
      note: null,
      updatedAt: (await account.activities.get(event.id, diesel.id)).updatedAt,
    });

    assert.deepEqual(await failure(account.activities.update(event.id, "act_000000000000000000000000", {})), {
      code: "NOT_FOUND",
      field: undefined,
    });
    assert.deepEqual(
      await failure(
        account.activities.create("evt_000000000000000000000000", { kind: "water", quantity: 1, unit: "m3" }),
      ),
      {
        code: "NOT_FOUND",
        field: undefined,
      },
    );
    assert.deepEqual(await failure(account.activities.list("evt_000000000000000000000000")), {
      code: "NOT_FOUND",
      field: undefined,
    });
    assert.equal((await account.activities.delete(event.id, diesel.id)).deletedId, diesel.id);
    assert.deepEqual(await failure(account.activities.delete(event.id, diesel.id)), {
      code: "NOT_FOUND",
      field: undefined,
    });
    assert.deepEqual(await account.activities.list(event.id), {
      activities: [],
      pagination: { page: 1, limit: 20, total: 0, totalPages: 0, hasNext: false, hasPrev: false },
    });
  });

  test("migrate() with another set prices every stored activity again", async () => {
    const { db, account, accountId, event } = await setUp(PRICED);
    const records = [];
    // More than one batch of the walk over the table.
    for (let i = 0; i < 501; i++)
      records.push(
        await account.activities.create(event.id, { kind: "fuel", quantity: i + 1, unit: "litres", fuel: "diesel" }),
      );
    const vegan = await account.activities.create(event.id, {
      kind: "catering",
      quantity: 300,
      unit: "meals",
      mealType: "vegan",
    });
    const grid = await account.activities.create(event.id, {
      kind: "electricity",
      quantity: 1000,
      unit: "kWh",
      source: "grid",
    });
    assert.equal(vegan.emissionsKg, null);
    // Each change recounts what the event keeps of its records.
    const sumOf = (list: { emissionsKg: number | null }[]) => list.reduce((sum, a) => sum + (a.emissionsKg ?? 0), 0);
    const kept = (storage: ReturnType<typeof createSqlStorage>) =>
      storage.transaction((tx) => tx.figures.readActivities(event.id));
    const before = await kept(createSqlStorage({ db, emissionFactors: PRICED }));
    assert.ok(Math.abs(before.emissionsKg - sumOf([...records, vegan, grid])) < 1e-6);
    assert.equal(before.electricityKwh, 1000);

    const changed = createSqlStorage({ db, emissionFactors: CHANGED });
    await changed.migrate();
    // And the factor set's change recounts it from the records priced again: 3 per litre, 0.5 per vegan meal.
    assert.equal((await kept(changed)).emissionsKg, (3 * 501 * 502) / 2 + 150);
    const after = createEventService({ storage: changed }).forAccount(accountId);
    const last = await after.activities.get(event.id, records[500]!.id);
    assert.equal(last.emissionsKg, 501 * 3);
    assert.equal(last.factor?.name, "Diesel, revised");
    assert.equal((await after.activities.get(event.id, records[0]!.id)).emissionsKg, 3);
    assert.equal((await after.activities.get(event.id, vegan.id)).emissionsKg, 150);
    const unpriced = await after.activities.get(event.id, grid.id);
    assert.equal(unpriced.emissionsKg, null, "the revised set prices no grid electricity");
    assert.equal(unpriced.factor, null);

    // Back to the default set: each record as the default prices it, whatever that is.
    const restored = createSqlStorage({ db, emissionFactors: DEFAULT_EMISSION_FACTORS });
    await restored.migrate();
    const stored = await restored.getActivity(accountId, event.id, vegan.id);
    assert.deepEqual(
      { emissionsKg: stored!.emissionsKg, factor: stored!.factor },
      priceActivity(DEFAULT_EMISSION_FACTORS, stored!),
    );
    await restored.close();
  });
});
