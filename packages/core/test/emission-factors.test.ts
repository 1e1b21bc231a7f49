/**
 * The factor set as data: its schema (a bad set names the bad field), the set reaching every
 * figure (kept figures at write time, analytics in SQL, the methodology of each answer), and
 * the kept figures recomputed by `migrate()` when a deployment changes its set.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import Database from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import {
  DEFAULT_EMISSION_FACTORS,
  EmissionFactorSet,
  type EmissionFactorSetInput,
  factorSetIdentity,
  travelEmissionsKg,
} from "../src/carbon/emission-factors.ts";
import { createEventService } from "../src/service.ts";
import type { Database as Schema } from "../src/sql/database.ts";
import { SQLITE_PRAGMAS } from "../src/sql/dialect.ts";
import { createSqlStorage } from "../src/sql/sql-storage.ts";
import { EVENT } from "./_fixtures.ts";

/** A set unlike the default in every figure: bands on cars too, round numbers to compute by hand. */
const CUSTOM: EmissionFactorSetInput = {
  name: "Test factors",
  year: 2031,
  source: "The test suite",
  factors: [
    { mode: "car", factor: 0.2, maxDistanceKm: 50 },
    { mode: "car", factor: 0.1 },
    { mode: "flight", factor: 0.5 },
    { mode: "train", factor: 0.01 },
    { mode: "bus", factor: 0.05 },
    { mode: "bike", factor: 0 },
    { mode: "walk", factor: 0 },
  ],
};

/** The first issue of parsing `set` as a factor set: its path and message. */
function firstIssue(set: unknown): { path: string; message: string } {
  const result = EmissionFactorSet.safeParse(set);
  assert.equal(result.success, false, "the set is refused");
  const issue = result.error!.issues[0]!;
  return { path: issue.path.join("."), message: issue.message };
}

describe("the factor set's schema", () => {
  test("the default is DESNZ 2023, with the published factors", () => {
    assert.equal(DEFAULT_EMISSION_FACTORS.year, 2023);
    assert.match(DEFAULT_EMISSION_FACTORS.source, /DESNZ/);
    const factor = (mode: string) =>
      DEFAULT_EMISSION_FACTORS.factors.filter((f) => f.mode === mode).map((f) => [f.factor, f.maxDistanceKm]);
    assert.deepEqual(factor("car"), [[0.16844, null]]);
    assert.deepEqual(factor("train"), [[0.03546, null]]);
    assert.deepEqual(factor("bus"), [[0.10231, null]]);
    assert.deepEqual(factor("flight"), [
      [0.27257, 500],
      [0.18592, 3700],
      [0.26128, null],
    ]);
    assert.ok(DEFAULT_EMISSION_FACTORS.factors.every((f) => f.unit === "kg CO2e per passenger-km"));
  });

  test("a set that misses a mode, orders its bands wrongly or has a bad factor is refused, naming the field", () => {
    const factors = CUSTOM.factors;
    assert.deepEqual(firstIssue({ ...CUSTOM, factors: factors.filter((f) => f.mode !== "bus") }), {
      path: "factors",
      message: 'has no factor for mode "bus" (every mode needs one: car, flight, train, bus, bike, walk)',
    });
    assert.equal(
      firstIssue({ ...CUSTOM, factors: [{ ...factors[0]!, factor: -1 }, ...factors.slice(1)] }).path,
      "factors.0.factor",
    );
    assert.equal(
      firstIssue({ ...CUSTOM, factors: [{ ...factors[0]!, mode: "boat" }, ...factors.slice(1)] }).path,
      "factors.0.mode",
    );
    // The last car band must cover any distance; bands must rise.
    assert.equal(
      firstIssue({ ...CUSTOM, factors: [factors[0]!, { ...factors[1]!, maxDistanceKm: 80 }, ...factors.slice(2)] })
        .path,
      "factors.1.maxDistanceKm",
    );
    assert.equal(
      firstIssue({ ...CUSTOM, factors: [factors[0]!, { ...factors[0]!, maxDistanceKm: 40 }, ...factors.slice(1)] })
        .path,
      "factors.1.maxDistanceKm",
    );
    assert.equal(firstIssue({ ...CUSTOM, year: "2031" }).path, "year");
    assert.equal(firstIssue({ ...CUSTOM, name: "" }).path, "name");
    assert.deepEqual(firstIssue({ ...CUSTOM, extra: 1 }), { path: "", message: 'Unrecognized key: "extra"' });
  });

  test("travelEmissionsKg picks the band of the distance", () => {
    const set = EmissionFactorSet.parse(CUSTOM);
    assert.equal(travelEmissionsKg("car", 50, set), 10);
    assert.equal(travelEmissionsKg("car", 100, set), 10);
    assert.equal(travelEmissionsKg("flight", 1000, set), 500);
    assert.equal(travelEmissionsKg("car", 100), 16.844);
  });
});

/** A SQL storage on a fresh in-memory SQLite database; `another(set)` opens a second storage on the same database with another set. */
async function setUp(set?: EmissionFactorSetInput) {
  const database = new Database(":memory:");
  for (const pragma of SQLITE_PRAGMAS) database.pragma(pragma);
  const db = new Kysely<Schema>({ dialect: new SqliteDialect({ database }) });
  const storage = createSqlStorage({ db, ...(set && { emissionFactors: set }) });
  await storage.migrate();
  return { db, storage };
}

describe("the factors in use reach every figure", () => {
  test("kept figures, analytics and methodology use the storage's set", async () => {
    const { storage } = await setUp(CUSTOM);
    const service = createEventService({ storage, carbon: { offsetPriceUsdPerTonne: 25 } });
    assert.equal(service.emissionFactors.name, "Test factors");
    const { accountId } = await service.keys.create({ account: "Acme" });
    const account = service.forAccount(accountId);
    const event = await account.events.create({ ...EVENT, startDate: "2027-05-01T09:00:00.000Z" });
    const register = (email: string, travelMode: "car" | "train" | "flight", travelDistance: number) =>
      account.attendees.register({
        eventId: event.id,
        firstName: "A",
        lastName: "B",
        email,
        ticketType: "general",
        carbonOffset: { opted: false, travelMode, travelDistance },
      });
    await register("a@example.com", "car", 40); // 40 × 0.2 = 8
    await register("b@example.com", "car", 100); // 100 × 0.1 = 10
    await register("c@example.com", "train", 300); // 3
    await register("d@example.com", "flight", 1000); // 500
    assert.equal((await account.events.get(event.id)).carbonFootprint, 521);

    const methodology = {
      emissionFactors: { name: "Test factors", year: 2031, source: "The test suite" },
      offsetPriceUsdPerTonne: 25,
    };
    const report = await account.analytics.event(event.id);
    assert.deepEqual(report.methodology, methodology);
    assert.equal(report.sustainability.carbonFootprintKg, 521);
    const sustainability = await account.analytics.sustainability({});
    assert.deepEqual(sustainability.methodology, methodology);
    assert.equal(sustainability.carbonFootprint.totalEmissionsKg, 521);
    const byMode = Object.fromEntries(sustainability.carbonFootprint.byTravelMode.map((m) => [m.mode, m.emissionsKg]));
    assert.equal(byMode.car, 18);
    assert.equal(byMode.flight, 500);

    const listed = account.analytics.emissionFactors();
    assert.equal(listed.name, "Test factors");
    assert.deepEqual(
      listed.factors.filter((f) => f.mode === "car").map((f) => [f.factor, f.unit, f.maxDistanceKm]),
      [
        [0.2, "kg CO2e per passenger-km", 50],
        [0.1, "kg CO2e per passenger-km", null],
      ],
    );
  });

  test("every analytics answer names the default set when none is given", async () => {
    const { storage } = await setUp();
    const service = createEventService({ storage });
    const { accountId } = await service.keys.create({ account: "Acme" });
    const account = service.forAccount(accountId);
    const event = await account.events.create(EVENT);
    const expected = {
      emissionFactors: {
        name: "UK Government GHG Conversion Factors for Company Reporting",
        year: 2023,
        source: "Department for Energy Security and Net Zero (DESNZ)",
      },
      offsetPriceUsdPerTonne: 15,
    };
    assert.deepEqual((await account.analytics.event(event.id)).methodology, expected);
    assert.deepEqual((await account.analytics.sustainability({})).methodology, expected);
    assert.equal(account.analytics.emissionFactors().year, 2023);
  });

  test("a service given another set than its storage's is refused at creation", async () => {
    const { storage } = await setUp();
    assert.throws(
      () => createEventService({ storage, emissionFactors: CUSTOM }),
      /emissionFactors differ from the storage's/,
    );
    // The same set is accepted.
    assert.equal(createEventService({ storage, emissionFactors: DEFAULT_EMISSION_FACTORS }).emissionFactors.year, 2023);
  });
});

describe("changing the set recomputes the kept figures at start", () => {
  test("migrate() with another set recomputes every event's emissions, and records the set", async () => {
    const { db, storage } = await setUp();
    const service = createEventService({ storage });
    const { accountId } = await service.keys.create({ account: "Acme" });
    const account = service.forAccount(accountId);
    const first = await account.events.create(EVENT);
    const second = await account.events.create({ ...EVENT, name: "Second" });
    const trip = (eventId: string, email: string, travelMode: "car" | "flight", travelDistance: number) =>
      account.attendees.register({
        eventId,
        firstName: "A",
        lastName: "B",
        email,
        ticketType: "general",
        carbonOffset: { opted: false, travelMode, travelDistance },
      });
    await trip(first.id, "a@example.com", "car", 100);
    await trip(first.id, "b@example.com", "flight", 1000);
    const cancelled = await trip(second.id, "c@example.com", "car", 40);
    await trip(second.id, "d@example.com", "car", 40);
    await account.attendees.update(cancelled.id, { status: "cancelled" });
    assert.equal((await account.events.get(first.id)).carbonFootprint, 202.764);
    assert.equal((await account.events.get(second.id)).carbonFootprint, Math.round(40 * 0.16844 * 1000) / 1000);

    // The deployment restarts with its own set: same database, another storage.
    const changed = createSqlStorage({ db, emissionFactors: CUSTOM });
    await changed.migrate();
    const after = createEventService({ storage: changed }).forAccount(accountId);
    assert.equal((await after.events.get(first.id)).carbonFootprint, 10 + 500);
    assert.equal(
      (await after.events.get(second.id)).carbonFootprint,
      8,
      "the cancelled registration still counts nothing",
    );
    const recorded = await db.selectFrom("emission_factor_set").select("identity").executeTakeFirstOrThrow();
    assert.equal(recorded.identity, factorSetIdentity(EmissionFactorSet.parse(CUSTOM)));
    // New writes add under the new set, on top of the recomputed figures.
    await after.attendees.register({
      eventId: second.id,
      firstName: "E",
      lastName: "F",
      email: "e@example.com",
      ticketType: "general",
      carbonOffset: { opted: false, travelMode: "car", travelDistance: 100 },
    });
    assert.equal((await after.events.get(second.id)).carbonFootprint, 18);
    // The events' list (sorted and filtered on the kept column) sees the same figures.
    const listed = await after.events.list({ sortBy: "carbonFootprint", order: "desc" });
    assert.deepEqual(
      listed.events.map((e) => e.carbonFootprint),
      [510, 18],
    );

    // A storage made without a set (a tool that writes no registration) leaves them alone.
    await createSqlStorage({ db }).migrate();
    assert.equal((await after.events.get(first.id)).carbonFootprint, 510);

    // Back to the default, given: the figures are the default's again.
    const restored = createSqlStorage({ db, emissionFactors: DEFAULT_EMISSION_FACTORS });
    await restored.migrate();
    const back = createEventService({ storage: restored }).forAccount(accountId);
    assert.equal((await back.events.get(first.id)).carbonFootprint, 202.764);
    assert.equal((await back.events.get(second.id)).carbonFootprint, Math.round((40 + 100) * 0.16844 * 1000) / 1000);
    await restored.close();
  });

  test("migrate() with the same set leaves the kept figures alone", async () => {
    const { db, storage } = await setUp(CUSTOM);
    const service = createEventService({ storage });
    const { accountId } = await service.keys.create({ account: "Acme" });
    const event = await service.forAccount(accountId).events.create(EVENT);
    // A figure no recount would give: if migrate() recomputed, it would be back to 0.
    await db.updateTable("events").set({ emissions_kg: 123 }).where("id", "=", event.id).execute();
    await createSqlStorage({ db, emissionFactors: CUSTOM }).migrate();
    assert.equal((await service.forAccount(accountId).events.get(event.id)).carbonFootprint, 123);
    await storage.close();
  });
});
