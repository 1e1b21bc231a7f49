import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { sql } from "kysely";
import { isCarbonNeutral } from "../src/carbon/carbon-neutral.ts";
import { DEFAULT_CARBON_SETTINGS, offsetKg } from "../src/carbon/carbon-settings.ts";
import {
  DEFAULT_EMISSION_FACTORS,
  TRAVEL_MODES,
  travelBand,
  travelEmissionsKg,
} from "../src/carbon/emission-factors.ts";
import { sustainabilityScore } from "../src/carbon/sustainability-score.ts";
import { carbonNeutralSql, travelBandSql } from "../src/sql/carbon-sql.ts";
import { BACKENDS } from "./_backends.ts";

const close = (actual: number, expected: number) =>
  assert.ok(Math.abs(actual - expected) < 1e-9, `${actual} != ${expected}`);

test("travel emissions per mode", () => {
  close(travelEmissionsKg("car", 100), 16.844);
  close(travelEmissionsKg("train", 100), 3.546);
  close(travelEmissionsKg("bus", 100), 10.231);
  close(travelEmissionsKg("bike", 100), 0);
  close(travelEmissionsKg("walk", 3), 0);
});

test("flight factors follow the distance bands", () => {
  close(travelEmissionsKg("flight", 500), 500 * 0.27257);
  close(travelEmissionsKg("flight", 501), 501 * 0.18592);
  close(travelEmissionsKg("flight", 3700), 3700 * 0.18592);
  close(travelEmissionsKg("flight", 3701), 3701 * 0.26128);
});

test("offsets: USD to kg at the configured price", () => {
  assert.equal(DEFAULT_CARBON_SETTINGS.offsetPriceUsdPerTonne, 15);
  close(offsetKg(15), 1000);
  close(offsetKg(3), 200);
  close(offsetKg(20, { offsetPriceUsdPerTonne: 40 }), 500);
});

test("score: goals only", () => {
  const none = { travelReported: 0, lowCarbonTravel: 0, emissionsKg: 0, offsetKg: 0 };
  assert.equal(sustainabilityScore({ goals: {}, ...none }), 0);
  assert.equal(
    sustainabilityScore({
      goals: { carbonNeutral: true, renewableEnergy: true, localSourcing: true, wasteReduction: 100 },
      ...none,
    }),
    60,
  );
  assert.equal(sustainabilityScore({ goals: { carbonNeutral: false, wasteReduction: 33 }, ...none }), 5);
});

test("score: travel share and offset coverage", () => {
  // 3 of 4 reported trips low-carbon: 15; offsets cover half the emissions: 10; renewable energy: 15.
  assert.equal(
    sustainabilityScore({
      goals: { renewableEnergy: true },
      travelReported: 4,
      lowCarbonTravel: 3,
      emissionsKg: 200,
      offsetKg: 100,
    }),
    40,
  );
  // Offsets beyond the emissions count as full coverage.
  assert.equal(
    sustainabilityScore({ goals: {}, travelReported: 1, lowCarbonTravel: 0, emissionsKg: 10, offsetKg: 1000 }),
    20,
  );
  // Everyone walked: nothing to offset, full coverage, full travel share.
  assert.equal(
    sustainabilityScore({ goals: {}, travelReported: 2, lowCarbonTravel: 2, emissionsKg: 0, offsetKg: 0 }),
    40,
  );
  // Rounded to one decimal: 20/3 = 6.666...
  assert.equal(
    sustainabilityScore({ goals: {}, travelReported: 3, lowCarbonTravel: 1, emissionsKg: 1, offsetKg: 0 }),
    6.7,
  );
});

describe("carbon neutral: one definition and its SQL twin", () => {
  // [emissions kg, offset kg, carbon neutral]: a footprint is needed, and the offsets must cover it.
  const cases: Array<[number, number, boolean]> = [
    [0, 0, false],
    [0, 5, false],
    [10, 0, false],
    [10, 9.999, false],
    [10, 10, true],
    [10, 25.5, true],
    [0.001, 0.001, true],
  ];

  test("isCarbonNeutral needs emissions above 0 that the offsets cover", () => {
    for (const [emissionsKg, offsetKg, neutral] of cases)
      assert.equal(isCarbonNeutral({ emissionsKg, offsetKg }), neutral, `${emissionsKg} kg, ${offsetKg} kg offset`);
  });

  for (const backend of BACKENDS) {
    test(`carbonNeutralSql answers as isCarbonNeutral does: ${backend.name}`, async () => {
      const database = await backend.open();
      try {
        for (const [emissionsKg, offsetKg] of cases) {
          const twin = carbonNeutralSql(sql`${sql.lit(emissionsKg)}`, sql`${sql.lit(offsetKg)}`);
          const { rows } = await sql<{ n: number }>`select ${twin} as n`.execute(database.db);
          assert.equal(
            Number(rows[0]!.n) === 1,
            isCarbonNeutral({ emissionsKg, offsetKg }),
            `${emissionsKg} kg, ${offsetKg} kg offset`,
          );
        }
      } finally {
        await database.drop();
      }
    });
  }
});

describe("the band of a trip's factors: one definition and its SQL twin", () => {
  const distances = [0, 1, 499.5, 500, 500.5, 501, 3700, 3701, 9000];

  test("flights: three bands at 500 and 3,700 km; one band for the other modes", () => {
    assert.deepEqual(
      distances.map((km) => travelBand(DEFAULT_EMISSION_FACTORS, "flight", km)),
      [0, 0, 0, 0, 1, 1, 1, 2, 2],
    );
    assert.deepEqual(
      distances.map((km) => travelBand(DEFAULT_EMISSION_FACTORS, "train", km)),
      distances.map(() => 0),
    );
  });

  for (const backend of BACKENDS) {
    test(`travelBandSql answers as travelBand does: ${backend.name}`, async () => {
      const database = await backend.open();
      try {
        for (const mode of TRAVEL_MODES) {
          for (const km of distances) {
            const { rows } = await sql<{
              n: number;
            }>`select ${travelBandSql(DEFAULT_EMISSION_FACTORS)} as n from (select ${sql.lit(mode)} as travel_mode, ${sql.lit(km)} as travel_distance) t`.execute(
              database.db,
            );
            assert.equal(Number(rows[0]!.n), travelBand(DEFAULT_EMISSION_FACTORS, mode, km), `${mode} ${km} km`);
          }
        }
      } finally {
        await database.drop();
      }
    });
  }
});
