/**
 * End-to-end: factor sets by year. A server started with the bundled set, then restarted on the
 * same database with it and two files (EMISSION_FACTORS_FILE=default,2042.json,2050.json): the 2041 season
 * keeps the bundled set's figures, the 2042 season is priced by the 2042 set and says so (its
 * analytics, its report as JSON and as a page, the emission-factors endpoint by year), moving it
 * to 2041 prices it again, and the cross-event analytics list both sets. Two files of one year
 * stop the server at start naming both.
 * The scenario (2031 by the default, a 2032 set) runs ten years on, 2041 and 2042, so
 * its events stay ahead of the test's clock as the suite's dates must.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { syntheticSet } from "../packages/core/test/_factor-set-fixture.ts";
import { runCli, SQLITE_PASS_ONLY, startServer, testDatabase } from "./_setup.ts";
import { clientFor, createEvent, expectError, expectStatus, register } from "./fixtures/api.ts";

const dir = mkdtempSync(join(tmpdir(), "event-service-factor-sets-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The synthetic set of `year` (car `car` kg per km, diesel 10 kg per litre) written to `name`. */
function setFile(name: string, year: number, car: number): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(syntheticSet(year, car, "The end-to-end tests")));
  return path;
}

const DESNZ = {
  name: "UK Government GHG Conversion Factors for Company Reporting",
  year: 2023,
  source: "Department for Energy Security and Net Zero (DESNZ)",
};
const SYNTHETIC_2032 = { name: "Synthetic 2042", year: 2042, source: "The end-to-end tests" };
/** 100 km by car and 100 litres of diesel under DESNZ 2023. */
const DEFAULT_TRAVEL = 16.844;
const DEFAULT_FUEL = 251.206;

describe("EMISSION_FACTORS_FILE with one set per year", () => {
  test("the default and a 2042 set: each season by its year's set; a move prices again; the 2041 season unchanged", async () => {
    const database = await testDatabase();
    let key: string;
    const seasons: Record<number, string> = {};
    const standard = await startServer({ database: database.url });
    try {
      key = (await standard.createKey({ account: "Festival" })).key;
      const v1 = clientFor(standard, key);
      for (const year of [2041, 2042]) {
        const event = await createEvent(v1, {
          name: `Festival ${year}`,
          startDate: `${year}-06-20T10:00:00.000Z`,
          endDate: `${year}-06-22T22:00:00.000Z`,
        });
        seasons[year] = event.id;
        await register(v1, event.id, {
          email: `car-${year}@example.com`,
          carbonOffset: { opted: false, travelMode: "car", travelDistance: 100 },
        });
        expectStatus(
          await v1.post(`/events/${event.id}/activities`, {
            kind: "fuel",
            quantity: 100,
            unit: "litres",
            fuel: "diesel",
          }),
          201,
        );
      }
      for (const year of [2041, 2042]) {
        assert.equal(expectStatus(await v1.get(`/events/${seasons[year]}`), 200).carbonFootprint, DEFAULT_TRAVEL);
      }
    } finally {
      await standard.stop();
    }

    const files = `default, ${setFile("2042.json", 2042, 1)},${setFile("2050.json", 2050, 3)}`;
    const server = await startServer({ database: database.url, env: { EMISSION_FACTORS_FILE: files } });
    try {
      const v1 = clientFor(server, key);
      const footprint = async (id: string) => {
        const analytics = expectStatus(await v1.get(`/analytics/events/${id}`), 200);
        return {
          carbonFootprint: expectStatus(await v1.get(`/events/${id}`), 200).carbonFootprint,
          total: analytics.footprint.totalEmissionsKg,
          methodology: analytics.methodology,
        };
      };
      const default2041 = {
        carbonFootprint: DEFAULT_TRAVEL,
        total: DEFAULT_TRAVEL + DEFAULT_FUEL,
        methodology: { emissionFactors: DESNZ, offsetPriceUsdPerTonne: 15 },
      };
      assert.deepEqual(await footprint(seasons[2041]!), default2041, "the 2041 season keeps the default's figures");
      // 100 km x 1 + 100 litres x 10.
      assert.deepEqual(await footprint(seasons[2042]!), {
        carbonFootprint: 100,
        total: 1100,
        methodology: { emissionFactors: SYNTHETIC_2032, offsetPriceUsdPerTonne: 15 },
      });
      const report = expectStatus(await v1.get(`/events/${seasons[2042]}/sustainability-report`), 200);
      assert.deepEqual(report.methodology.emissionFactors, SYNTHETIC_2032);
      const page = await v1.get(`/events/${seasons[2042]}/sustainability-report`, {
        headers: { accept: "text/html" },
      });
      assert.equal(page.status, 200);
      assert.match(String(page.body), /Synthetic 2042/);
      assert.doesNotMatch(String(page.body), /Company Reporting/);

      // The set a year uses; the latest by default; a bad year is refused.
      const setOf = async (query: string) => expectStatus(await v1.get(`/analytics/emission-factors${query}`), 200);
      assert.equal((await setOf("")).name, "Synthetic 2050");
      assert.equal((await setOf("?year=2041")).name, DESNZ.name);
      assert.equal((await setOf("?year=2042")).name, "Synthetic 2042");
      assert.equal((await setOf("?year=2049")).name, "Synthetic 2042");
      assert.equal((await setOf("?year=1999")).name, DESNZ.name);
      for (const bad of ["?year=abc", "?year=20321", "?year=", "?year=2042.5"])
        expectError(await v1.get(`/analytics/emission-factors${bad}`), 400, "INVALID_REQUEST", "year");

      // Across both seasons the sets are named with their events.
      const both = expectStatus(await v1.get("/analytics/sustainability"), 200);
      assert.deepEqual(both.methodology, {
        emissionFactors: SYNTHETIC_2032,
        factorSets: [
          { ...DESNZ, events: 1 },
          { ...SYNTHETIC_2032, events: 1 },
        ],
        offsetPriceUsdPerTonne: 15,
      });
      assert.equal(both.carbonFootprint.totalEmissionsKg, DEFAULT_TRAVEL + 100);

      // Moved to 2041: priced by the default in the update's answer already.
      const moved = expectStatus(
        await v1.put(`/events/${seasons[2042]}`, {
          startDate: "2041-09-01T10:00:00.000Z",
          endDate: "2041-09-02T10:00:00.000Z",
        }),
        200,
      );
      assert.equal(moved.carbonFootprint, DEFAULT_TRAVEL);
      assert.deepEqual(await footprint(seasons[2042]!), default2041);
      const single = expectStatus(await v1.get("/analytics/sustainability"), 200);
      assert.deepEqual(single.methodology, { emissionFactors: DESNZ, offsetPriceUsdPerTonne: 15 });
      assert.deepEqual(await footprint(seasons[2041]!), default2041);
    } finally {
      await server.stop();
      await database.drop();
    }
  });

  test("two files of one year stop the server at start, naming both", { skip: SQLITE_PASS_ONLY }, async () => {
    const first = setFile("first-2042.json", 2042, 1);
    const second = setFile("second-2042.json", 2042, 2);
    const result = await runCli(["serve"], {
      PORT: "0",
      DATABASE_URL: ":memory:",
      EMISSION_FACTORS_FILE: `${first},${setFile("other-2050.json", 2050, 1)},${second}`,
    });
    assert.equal(result.code, 1, result.stderr);
    assert.equal(result.stderr.trim().split("\n").length, 1, result.stderr);
    assert.equal(
      result.stderr.trim(),
      `event-service: Invalid configuration: EMISSION_FACTORS_FILE: two factor sets of the year 2042: ${first} and ${second} (give one set per year)`,
    );
    // The bundled set counts as the year 2023's.
    const own2023 = setFile("own-2023.json", 2023, 1);
    const twice = await runCli(["serve"], {
      PORT: "0",
      DATABASE_URL: ":memory:",
      EMISSION_FACTORS_FILE: `default,${own2023}`,
    });
    assert.equal(twice.code, 1, twice.stderr);
    assert.match(
      twice.stderr,
      /EMISSION_FACTORS_FILE: two factor sets of the year 2023: the bundled set \(default\) and .*own-2023\.json/,
    );
    // A bad field names its file when there are several.
    const bad = join(dir, "bad.json");
    writeFileSync(
      bad,
      JSON.stringify({ name: "Bad", year: 2043, source: "x", factors: [{ mode: "car", factor: -1 }] }),
    );
    const badResult = await runCli(["serve"], {
      PORT: "0",
      DATABASE_URL: ":memory:",
      EMISSION_FACTORS_FILE: `${first},${bad}`,
    });
    assert.equal(badResult.code, 1, badResult.stderr);
    assert.match(
      badResult.stderr,
      new RegExp(
        `Invalid configuration: EMISSION_FACTORS_FILE\\.factors\\.0\\.factor: ${bad.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}: `,
      ),
    );
  });
});
