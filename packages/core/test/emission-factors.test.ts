/**
 * The factor set as data: its schema (a bad set names the bad field), the set reaching every
 * figure (kept figures at write time, analytics in SQL, the methodology of each answer), and
 * the kept figures recomputed by `migrate()` when a deployment changes its set.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import Database from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { activityFactor, type PricedRecord } from "../src/resources/activity-factor.ts";
import {
  DEFAULT_EMISSION_FACTORS,
  EmissionFactorSet,
  type EmissionFactorSetInput,
  emissionFactorSetResponse,
  factorSetIdentity,
  travelEmissionsKg,
} from "../src/carbon/emission-factors.ts";
import { createEventService } from "../src/service.ts";
import type { Database as Schema } from "../src/sql/database.ts";
import { SQLITE_PRAGMAS } from "../src/sql/dialect.ts";
import { createSqlStorage } from "../src/sql/sql-storage.ts";
import { EVENT } from "./_fixtures.ts";
import { NO_QUALIFIERS } from "../src/resources/priced-activity.ts";

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

/** A record to price: `kind` and `unit`, and the qualifiers given (the others null). */
function record(
  kind: PricedRecord["kind"],
  unit: PricedRecord["unit"],
  qualifiers: Partial<PricedRecord> = {},
): PricedRecord {
  return {
    kind,
    unit,
    ...NO_QUALIFIERS,
    ...qualifiers,
  };
}

const DESNZ = { source: "Department for Energy Security and Net Zero (DESNZ)", year: 2023 };

describe("the default set's activity factors", () => {
  const price = (priced: PricedRecord) => activityFactor(DEFAULT_EMISSION_FACTORS, priced);

  test("the default set parses, prices every kind, and names a source for each entry", () => {
    assert.deepEqual(EmissionFactorSet.parse(DEFAULT_EMISSION_FACTORS), DEFAULT_EMISSION_FACTORS);
    const kinds = new Set(DEFAULT_EMISSION_FACTORS.activities.map((entry) => entry.kind));
    assert.deepEqual([...kinds].sort(), [
      "accommodation",
      "catering",
      "electricity",
      "freight",
      "fuel",
      "materials",
      "waste",
      "water",
    ]);
    // Only catering names its own source (the UK tables have no meals).
    assert.deepEqual(
      DEFAULT_EMISSION_FACTORS.activities.filter((entry) => entry.source !== undefined).map((entry) => entry.kind),
      ["catering", "catering", "catering", "catering"],
    );
  });

  test("activityFactor gives the published values, per the record's own unit", () => {
    assert.deepEqual(price(record("fuel", "litres", { fuel: "diesel" })), {
      name: "Fuels - Liquid fuels - Diesel (average biofuel blend), litres",
      value: 2.51206,
      unit: "kg CO2e per litre",
      ...DESNZ,
    });
    // A per-tonne factor prices kg records at a thousandth.
    assert.equal(price(record("fuel", "kg", { fuel: "diesel" }))?.value, 3.01565462);
    assert.equal(price(record("fuel", "kWh", { fuel: "natural_gas" }))?.value, 0.18293);
    assert.equal(price(record("fuel", "litres", { fuel: "hvo" }))?.value, 0.03558);
    assert.deepEqual(price(record("electricity", "kWh", { source: "grid", country: "GB" })), {
      name: "UK electricity - Electricity generated - Electricity: UK",
      value: 0.20707,
      unit: "kg CO2e per kWh",
      ...DESNZ,
    });
    assert.equal(price(record("electricity", "kWh", { source: "renewable_tariff", country: "GB" }))?.value, 0);
    assert.equal(price(record("electricity", "kWh", { source: "onsite_renewable", country: "DE" }))?.value, 0);
    assert.deepEqual(price(record("accommodation", "room_nights", { country: "DE" })), {
      name: "Hotel stay - Germany, room per night",
      value: 13.2,
      unit: "kg CO2e per room-night",
      ...DESNZ,
    });
    assert.equal(price(record("accommodation", "room_nights", { country: "GB" }))?.value, 10.4);
    assert.deepEqual(price(record("materials", "kg", { material: "paper", recycledContent: false })), {
      name: "Material use - Paper - Paper and board: paper - Primary material production",
      value: 0.9104781,
      unit: "kg CO2e per kg",
      ...DESNZ,
    });
    assert.equal(price(record("materials", "kg", { material: "paper", recycledContent: true }))?.value, 0.7304781);
    assert.deepEqual(price(record("waste", "kg", { stream: "composting", material: "food" })), {
      name: "Waste disposal - Refuse - Organic: food and drink waste - Composting",
      value: 0.00891242,
      unit: "kg CO2e per kg",
      ...DESNZ,
    });
    assert.equal(price(record("waste", "kg", { stream: "landfill", material: "food" }))?.value, 0.70020988);
    // Waste of no material, or of one without its own row, takes the commercial and industrial waste row.
    assert.equal(price(record("waste", "kg", { stream: "landfill" }))?.value, 0.52033474);
    assert.equal(price(record("waste", "kg", { stream: "landfill", material: "mixed" }))?.value, 0.52033474);
    assert.deepEqual(price(record("freight", "tonne_km", { mode: "hgv" })), {
      name: "Freighting goods - HGV (all diesel) - All HGVs - Average laden",
      value: 0.09696,
      unit: "kg CO2e per tonne-km",
      ...DESNZ,
    });
    assert.deepEqual(price(record("water", "m3")), {
      name: "Water supply (0.17668) + Water treatment (0.20132), cubic metres",
      value: 0.378,
      unit: "kg CO2e per m3",
      ...DESNZ,
    });
    assert.deepEqual(price(record("catering", "meals", { mealType: "vegan" })), {
      name: "Diet of vegans: 2.89 kg CO2e per 2,000 kcal day, divided by 3 meals a day",
      value: 0.96333,
      unit: "kg CO2e per meal",
      source:
        "Scarborough P. et al. (2014), Dietary greenhouse gas emissions of meat-eaters, fish-eaters, vegetarians and vegans in the UK, Climatic Change 125:179-192",
      year: 2014,
    });
    assert.equal(price(record("catering", "meals", { mealType: "meat" }))?.value, 1.87667);
    // Staff travel: the travel set's factor of the mode (its last band for flights).
    assert.deepEqual(price(record("staff_travel", "passenger_km", { mode: "train" })), {
      name: "Rail - National rail",
      value: 0.03546,
      unit: "kg CO2e per passenger-km",
      ...DESNZ,
    });
    assert.equal(price(record("staff_travel", "passenger_km", { mode: "flight" }))?.value, 0.26128);
  });

  test("what the tables do not publish is unpriced (null)", () => {
    // A country the hotel table lists without a value, and one it does not list.
    assert.equal(price(record("accommodation", "room_nights", { country: "IE" })), null);
    assert.equal(price(record("accommodation", "room_nights", { country: "NO" })), null);
    // Grid electricity outside GB.
    assert.equal(price(record("electricity", "kWh", { source: "grid", country: "FR" })), null);
    assert.equal(price(record("materials", "kg", { material: "textiles", recycledContent: true })), null);
    assert.equal(price(record("materials", "kg", { material: "mixed", recycledContent: false })), null);
    assert.equal(price(record("waste", "kg", { stream: "reuse", material: "textiles" })), null);
    assert.equal(price(record("waste", "kg", { stream: "recycling" })), null);
    assert.equal(price(record("fuel", "kWh", { fuel: "hvo" })), null);
  });

  test("the API lists each entry with its source and year", () => {
    const listed = emissionFactorSetResponse(DEFAULT_EMISSION_FACTORS).activities;
    assert.equal(listed.length, DEFAULT_EMISSION_FACTORS.activities.length);
    assert.deepEqual(
      listed.find((entry) => entry.kind === "freight" && entry.mode === "sea"),
      {
        kind: "freight",
        mode: "sea",
        unit: "tonne_km",
        factor: 0.01612,
        name: "Freighting goods - Cargo ship - Container ship - Average",
        ...DESNZ,
        url: "https://www.gov.uk/government/publications/greenhouse-gas-reporting-conversion-factors-2023",
      },
    );
    assert.deepEqual(
      listed.find((entry) => entry.kind === "catering" && entry.mealType === "fish"),
      {
        kind: "catering",
        mealType: "fish",
        unit: "meals",
        factor: 1.30333,
        name: "Diet of fish-eaters: 3.91 kg CO2e per 2,000 kcal day, divided by 3 meals a day",
        source:
          "Scarborough P. et al. (2014), Dietary greenhouse gas emissions of meat-eaters, fish-eaters, vegetarians and vegans in the UK, Climatic Change 125:179-192",
        year: 2014,
        url: "https://doi.org/10.1007/s10584-014-1169-1",
      },
    );
    // A set without activities lists none.
    assert.deepEqual(emissionFactorSetResponse(EmissionFactorSet.parse(CUSTOM)).activities, []);
  });
});

describe("activity entries of a deployment's set", () => {
  const entry = { kind: "water", unit: "m3", factor: 0.5, name: "Water" };

  test("entries are accepted, and the most specific match wins", () => {
    const set = EmissionFactorSet.parse({
      ...CUSTOM,
      activities: [
        { kind: "waste", stream: "landfill", unit: "kg", factor: 0.5, name: "Any landfill" },
        { kind: "waste", stream: "landfill", material: "glass", unit: "tonnes", factor: 20, name: "Glass landfill" },
        { ...entry, source: "Water Co.", year: 2030 },
      ],
    });
    const glass = activityFactor(set, record("waste", "kg", { stream: "landfill", material: "glass" }));
    assert.deepEqual(glass, {
      name: "Glass landfill",
      value: 0.02,
      unit: "kg CO2e per kg",
      source: "The test suite",
      year: 2031,
    });
    assert.equal(activityFactor(set, record("waste", "kg", { stream: "landfill", material: "paper" }))?.value, 0.5);
    assert.deepEqual(activityFactor(set, record("water", "m3")), {
      name: "Water",
      value: 0.5,
      unit: "kg CO2e per m3",
      source: "Water Co.",
      year: 2030,
    });
    // A kind the set does not price.
    assert.equal(activityFactor(set, record("fuel", "litres", { fuel: "diesel" })), null);
  });

  test("a bad entry is refused, naming it", () => {
    const withEntry = (bad: Record<string, unknown>) => ({ ...CUSTOM, activities: [entry, { ...entry, ...bad }] });
    assert.equal(firstIssue(withEntry({ kind: "parking" })).path, "activities.1.kind");
    assert.equal(firstIssue(withEntry({ kind: "staff_travel" })).path, "activities.1.kind");
    assert.equal(firstIssue(withEntry({ factor: -0.1 })).path, "activities.1.factor");
    assert.equal(firstIssue(withEntry({ unit: "gallons" })).path, "activities.1.unit");
    assert.deepEqual(firstIssue(withEntry({ country: "gb" })), {
      path: "activities.1.country",
      message: "must be an ISO 3166-1 alpha-2 country code in upper case, e.g. GB",
    });
    assert.equal(firstIssue(withEntry({ name: "" })).path, "activities.1.name");
    assert.deepEqual(firstIssue(withEntry({ colour: "blue" })), {
      path: "activities.1",
      message: 'Unrecognized key: "colour"',
    });
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
    const event = await account.events.create({ ...EVENT, startDate: "2038-05-01T09:00:00.000Z" });
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
    const recorded = await db
      .selectFrom("factor_sets")
      .select("identity")
      .where("year", "=", 2031)
      .executeTakeFirstOrThrow();
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
