/**
 * The whole footprint through the service (in process, SQLite in memory, the default factors):
 * docs/api.md's worked example, figure for figure, in the per-event analytics, the sustainability
 * analytics and the report document; and the goals it is judged against.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import Database from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { createEventService } from "../src/service.ts";
import type { Database as Schema } from "../src/sql/database.ts";
import { SQLITE_PRAGMAS } from "../src/sql/dialect.ts";
import { createSqlStorage } from "../src/sql/sql-storage.ts";
import { EVENT } from "./_fixtures.ts";

async function festival() {
  const database = new Database(":memory:");
  for (const pragma of SQLITE_PRAGMAS) database.pragma(pragma);
  const storage = createSqlStorage({ db: new Kysely<Schema>({ dialect: new SqliteDialect({ database }) }) });
  await storage.migrate();
  const service = createEventService({ storage });
  const { accountId } = await service.keys.create({ account: "Acme" });
  const account = service.forAccount(accountId);
  const event = await account.events.create({
    ...EVENT,
    name: "Field Festival",
    category: "festival",
    location: { address: "Worthy Farm", city: "Pilton", country: "GB" },
    capacity: 500,
    sustainabilityGoals: { carbonNeutral: true, renewableEnergy: true, wasteReduction: 90 },
  });
  return { account, event };
}

/** docs/api.md, "The whole footprint", worked example: the records and the 100 travellers. */
async function recordWorkedExample(account: Awaited<ReturnType<typeof festival>>["account"], eventId: string) {
  const record = (input: Parameters<typeof account.activities.create>[1]) => account.activities.create(eventId, input);
  await record({ kind: "fuel", fuel: "diesel", quantity: 500, unit: "litres", note: "Generator, main stage" });
  await record({ kind: "electricity", source: "grid", quantity: 10_000, unit: "kWh" });
  await record({ kind: "electricity", source: "renewable_tariff", quantity: 2_000, unit: "kWh" });
  await record({ kind: "catering", mealType: "vegetarian", quantity: 3_000, unit: "meals", dataQuality: "estimated" });
  await record({ kind: "waste", stream: "composting", material: "food", quantity: 1_000, unit: "kg" });
  for (let i = 0; i < 100; i++) {
    await account.attendees.register({
      eventId,
      firstName: "Guest",
      lastName: String(i),
      email: `guest${i}@example.com`,
      ticketType: "general",
      carbonOffset: { opted: false, travelMode: "train", travelDistance: 50 },
    });
  }
}

describe("the whole footprint, docs/api.md's worked example", () => {
  test("the same figures in the per-event analytics, the sustainability analytics and the report", async () => {
    const { account, event } = await festival();
    await recordWorkedExample(account, event.id);

    const analytics = await account.analytics.event(event.id);
    assert.deepEqual(analytics.footprint, {
      totalEmissionsKg: 7322.942,
      byKind: [
        { kind: "attendee_travel", emissionsKg: 177.3, records: 100 },
        { kind: "electricity", emissionsKg: 2070.7, records: 2 },
        { kind: "fuel", emissionsKg: 1256.03, records: 1 },
        { kind: "catering", emissionsKg: 3810, records: 1 },
        { kind: "waste", emissionsKg: 8.912, records: 1 },
      ],
      byScope: { scope1Kg: 1256.03, scope2Kg: 2070.7, scope3Kg: 3996.212 },
      perAttendeeKg: 73.229,
      // Measured: every record but the estimated meals, of the activities: 3,335.642 / 7,145.642.
      measuredSharePercent: 46.681,
      unpricedKinds: [],
    });
    assert.deepEqual(analytics.sustainability.resources, {
      measuredWasteKg: 1000,
      diversionRatePercent: 100,
      recyclingRatePercent: 0,
      measuredEnergyKwh: 12000,
      renewableSharePercent: 16.667,
    });
    assert.deepEqual(
      analytics.sustainability.goalProgress.map((goal) => [goal.type, goal.met]),
      [
        ["carbon_neutral", false],
        ["renewable_energy", false],
        ["waste_reduction", true],
        ["local_sourcing", null],
      ],
    );

    const overall = await account.analytics.sustainability({ eventIds: event.id });
    assert.deepEqual(overall.footprint, analytics.footprint);
    assert.equal(overall.wasteReduction.measuredWasteKg, 1000);
    assert.equal(overall.energy.renewableSharePercent, 16.667);

    const report = await account.analytics.report(event.id);
    assert.deepEqual(report.footprint, analytics.footprint);
    assert.deepEqual(report.goals, analytics.sustainability.goalProgress);
    assert.deepEqual(report.waste.byStream, [{ stream: "composting", kg: 1000 }]);
    assert.deepEqual(report.energy.bySource, [
      { source: "grid", kWh: 10000 },
      { source: "renewable_tariff", kWh: 2000 },
    ]);
  });

  test("a record that undoes a goal turns it unmet in the analytics; deleting it restores the figures", async () => {
    const { account, event } = await festival();
    await account.activities.create(event.id, {
      kind: "electricity",
      source: "onsite_renewable",
      quantity: 800,
      unit: "kWh",
    });
    const renewable = async () =>
      (await account.analytics.event(event.id)).sustainability.goalProgress.find((g) => g.type === "renewable_energy");
    assert.equal((await renewable())?.met, true);
    const grid = await account.activities.create(event.id, {
      kind: "electricity",
      source: "grid",
      quantity: 200,
      unit: "kWh",
    });
    assert.deepEqual((await renewable())?.metrics, {
      electricityKwh: 1000,
      renewableKwh: 800,
      renewableSharePercent: 80,
    });
    assert.equal((await renewable())?.met, false);
    await account.activities.delete(event.id, grid.id);
    assert.equal((await renewable())?.met, true);
    assert.equal((await account.analytics.event(event.id)).footprint.totalEmissionsKg, 0);
  });
});
