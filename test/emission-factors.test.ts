/**
 * End-to-end: the factor set as data. A server started with EMISSION_FACTORS_FILE lists that set
 * at GET /v1/analytics/emission-factors (and /api/...), computes a registration's emissions with
 * it and names it in the analytics' `methodology`; restarted without the file on the same
 * database, it recomputes the kept figures with the default (DESNZ 2023). The listing includes the
 * set's activity factors. A bad file (a bad travel factor or activity entry) stops the server at
 * start with exit code 1 and a one-line error naming the bad field.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { createClient } from "@event-service/client";
import { runCli, SQLITE_PASS_ONLY, startServer, testDatabase } from "./_setup.ts";
import { clientFor, createEvent, expectError, expectStatus, register } from "./fixtures/api.ts";

const dir = mkdtempSync(join(tmpdir(), "event-service-factors-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const FACTORS = {
  name: "Acme Travel Factors",
  year: 2031,
  source: "Acme sustainability team",
  factors: [
    { mode: "car", factor: 0.2 },
    { mode: "flight", factor: 0.3, maxDistanceKm: 1000 },
    { mode: "flight", factor: 0.15 },
    { mode: "train", factor: 0.01, description: "Electrified rail" },
    { mode: "bus", factor: 0.05 },
    { mode: "bike", factor: 0 },
    { mode: "walk", factor: 0 },
  ],
  activities: [
    { kind: "electricity", country: "GB", unit: "kWh", factor: 0.1, name: "Acme grid mix" },
    {
      kind: "catering",
      mealType: "vegan",
      unit: "meals",
      factor: 0.5,
      name: "Vegan lunch",
      source: "Acme caterer",
      year: 2030,
    },
  ],
};

function file(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content, null, 2));
  return path;
}

describe("EMISSION_FACTORS_FILE", () => {
  test("a good file: the endpoint lists it, registrations and analytics use it, a restart without it recomputes with the default", async () => {
    const database = await testDatabase();
    const custom = await startServer({
      database: database.url,
      env: { EMISSION_FACTORS_FILE: file("acme.json", FACTORS) },
    });
    let eventId: string;
    let key: string;
    try {
      // `keys create` runs the CLI without EMISSION_FACTORS_FILE: it must not touch the figures.
      key = (await custom.createKey({ account: "Acme" })).key;
      const v1 = clientFor(custom, key);
      const listed = expectStatus(await v1.get("/analytics/emission-factors"), 200);
      assert.deepEqual(listed, {
        name: "Acme Travel Factors",
        year: 2031,
        source: "Acme sustainability team",
        factors: [
          { mode: "car", factor: 0.2, unit: "kg CO2e per passenger-km", maxDistanceKm: null },
          { mode: "flight", factor: 0.3, unit: "kg CO2e per passenger-km", maxDistanceKm: 1000 },
          { mode: "flight", factor: 0.15, unit: "kg CO2e per passenger-km", maxDistanceKm: null },
          {
            mode: "train",
            factor: 0.01,
            unit: "kg CO2e per passenger-km",
            maxDistanceKm: null,
            description: "Electrified rail",
          },
          { mode: "bus", factor: 0.05, unit: "kg CO2e per passenger-km", maxDistanceKm: null },
          { mode: "bike", factor: 0, unit: "kg CO2e per passenger-km", maxDistanceKm: null },
          { mode: "walk", factor: 0, unit: "kg CO2e per passenger-km", maxDistanceKm: null },
        ],
        // Each activity factor with its source and year: its own, or the set's.
        activities: [
          {
            kind: "electricity",
            country: "GB",
            unit: "kWh",
            factor: 0.1,
            name: "Acme grid mix",
            source: "Acme sustainability team",
            year: 2031,
          },
          {
            kind: "catering",
            mealType: "vegan",
            unit: "meals",
            factor: 0.5,
            name: "Vegan lunch",
            source: "Acme caterer",
            year: 2030,
          },
        ],
      });
      assert.deepEqual(
        expectStatus(await clientFor(custom, key, "/api").get("/analytics/emission-factors"), 200),
        listed,
      );
      // The typed client lists the same set.
      assert.deepEqual(await createClient({ baseUrl: custom.url, apiKey: key }).analytics.emissionFactors(), listed);
      // analytics:read is the scope.
      const eventsOnly = (await custom.createKey({ account: "Acme", scopes: ["events:read"] })).key;
      expectError(await clientFor(custom, eventsOnly).get("/analytics/emission-factors"), 403, "FORBIDDEN");

      const event = await createEvent(v1, { capacity: 10 });
      eventId = event.id;
      const attendee = await register(v1, event.id, {
        email: "car@example.com",
        carbonOffset: { opted: false, travelMode: "car", travelDistance: 100 },
      });
      assert.equal(attendee.status, "confirmed");
      await register(v1, event.id, {
        email: "flight@example.com",
        carbonOffset: { opted: false, travelMode: "flight", travelDistance: 2000 },
      });
      // 100 × 0.2 + 2000 × 0.15 = 320
      assert.equal(expectStatus(await v1.get(`/events/${event.id}`), 200).carbonFootprint, 320);
      const analytics = expectStatus(await v1.get(`/analytics/events/${event.id}`), 200);
      assert.deepEqual(analytics.methodology, {
        emissionFactors: { name: "Acme Travel Factors", year: 2031, source: "Acme sustainability team" },
        offsetPriceUsdPerTonne: 15,
      });
      assert.equal(analytics.sustainability.carbonFootprintKg, 320);
      const report = expectStatus(await v1.get("/analytics/sustainability"), 200);
      assert.equal(report.methodology.emissionFactors.name, "Acme Travel Factors");
      assert.equal(report.carbonFootprint.totalEmissionsKg, 320);
    } finally {
      await custom.stop();
    }

    // The same database without the file: the default set, and the kept figures recomputed with it.
    const standard = await startServer({ database: database.url, env: { CARBON_OFFSET_PRICE_USD_PER_TONNE: "20" } });
    try {
      const v1 = clientFor(standard, key);
      const listed = expectStatus(await v1.get("/analytics/emission-factors"), 200);
      assert.equal(listed.year, 2023);
      assert.equal(listed.source, "Department for Energy Security and Net Zero (DESNZ)");
      // The default activity factors are listed too, with their sources.
      assert.deepEqual(
        listed.activities.find(
          (a: { kind: string; fuel?: string; unit: string }) => a.fuel === "diesel" && a.unit === "litres",
        ),
        {
          kind: "fuel",
          fuel: "diesel",
          unit: "litres",
          factor: 2.51206,
          name: "Fuels - Liquid fuels - Diesel (average biofuel blend), litres",
          source: "Department for Energy Security and Net Zero (DESNZ)",
          year: 2023,
          url: "https://www.gov.uk/government/publications/greenhouse-gas-reporting-conversion-factors-2023",
        },
      );
      assert.deepEqual([...new Set(listed.activities.map((a: { kind: string }) => a.kind))].sort(), [
        "accommodation",
        "catering",
        "electricity",
        "freight",
        "fuel",
        "materials",
        "waste",
        "water",
      ]);
      // 100 × 0.16844 + 2000 × 0.18592 = 388.684
      assert.equal(expectStatus(await v1.get(`/events/${eventId}`), 200).carbonFootprint, 388.684);
      const analytics = expectStatus(await v1.get(`/analytics/events/${eventId}`), 200);
      assert.deepEqual(analytics.methodology, {
        emissionFactors: {
          name: "UK Government GHG Conversion Factors for Company Reporting",
          year: 2023,
          source: "Department for Energy Security and Net Zero (DESNZ)",
        },
        offsetPriceUsdPerTonne: 20,
      });
      assert.equal(analytics.sustainability.carbonFootprintKg, 388.684);
    } finally {
      await standard.stop();
      await database.drop();
    }
  });

  test("a bad file stops the server at start: exit 1, one line naming the bad field", {
    skip: SQLITE_PASS_ONLY,
  }, async () => {
    const env = { PORT: "0", DATABASE_URL: ":memory:" };
    const badBand = {
      ...FACTORS,
      factors: FACTORS.factors.map((f, i) => (i === 2 ? { ...f, maxDistanceKm: 500 } : f)),
    };
    let result = await runCli(["serve"], { ...env, EMISSION_FACTORS_FILE: file("band.json", badBand) });
    assert.equal(result.code, 1, result.stderr);
    assert.equal(result.stderr.trim().split("\n").length, 1, result.stderr);
    assert.match(
      result.stderr,
      /^event-service: Invalid configuration: EMISSION_FACTORS_FILE\.factors\.2\.maxDistanceKm: must be null on the last "flight" factor/,
    );

    result = await runCli(["serve"], {
      ...env,
      EMISSION_FACTORS_FILE: file("negative.json", {
        ...FACTORS,
        factors: [{ mode: "car", factor: -0.2 }, ...FACTORS.factors.slice(1)],
      }),
    });
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /Invalid configuration: EMISSION_FACTORS_FILE\.factors\.0\.factor: /);

    result = await runCli(["serve"], {
      ...env,
      EMISSION_FACTORS_FILE: file("no-bus.json", {
        ...FACTORS,
        factors: FACTORS.factors.filter((f) => f.mode !== "bus"),
      }),
    });
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /Invalid configuration: EMISSION_FACTORS_FILE\.factors: has no factor for mode "bus"/);

    // A bad activity entry: unknown kind, negative factor, unknown unit, a country not in ISO 3166-1.
    const badEntries: [string, Record<string, unknown>, RegExp][] = [
      ["kind", { kind: "parking" }, /activities\.1\.kind: /],
      ["factor", { factor: -0.5 }, /activities\.1\.factor: /],
      ["unit", { unit: "gallons" }, /activities\.1\.unit: /],
      ["country", { country: "XX" }, /activities\.1\.country: must be an ISO 3166-1 alpha-2 country code/],
    ];
    for (const [name, bad, message] of badEntries) {
      const [first, second] = FACTORS.activities;
      result = await runCli(["serve"], {
        ...env,
        EMISSION_FACTORS_FILE: file(`bad-${name}.json`, { ...FACTORS, activities: [first, { ...second, ...bad }] }),
      });
      assert.equal(result.code, 1, result.stderr);
      assert.equal(result.stderr.trim().split("\n").length, 1, result.stderr);
      assert.match(result.stderr, /^event-service: Invalid configuration: EMISSION_FACTORS_FILE\./);
      assert.match(result.stderr, message);
    }

    result = await runCli(["serve"], { ...env, EMISSION_FACTORS_FILE: file("broken.json", "{ not json") });
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /Invalid configuration: EMISSION_FACTORS_FILE: .*broken\.json is not JSON/);

    result = await runCli(["serve"], { ...env, EMISSION_FACTORS_FILE: join(dir, "missing.json") });
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /Invalid configuration: EMISSION_FACTORS_FILE: cannot read .*missing\.json: ENOENT/);
  });
});
