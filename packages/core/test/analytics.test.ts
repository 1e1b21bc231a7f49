/**
 * Unit tests of the pure analytics functions: calendar buckets (and their SQL twin), series
 * statistics, the trend report's data rules, insights and recommendations. Figures computed by hand.
 */
import { NO_ACTIVITY_FIGURES } from "../src/resources/activity-figures.ts";
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { sql } from "kysely";
import type { AggregateFigures, AnalyticsFigures, ModeFigures } from "../src/analytics/analytics-figures.ts";
import {
  type BucketGranularity,
  BUCKET_GRANULARITIES,
  bucketStart,
  enumerateBuckets,
  MAX_BUCKETS,
} from "../src/analytics/date-buckets.ts";
import { generateInsights, type InsightInput } from "../src/analytics/insights.ts";
import { percent, round3, seriesStatistics } from "../src/analytics/statistics.ts";
import { buildTrendReport, TrendQuery } from "../src/analytics/trend-report.ts";
import { DEFAULT_CARBON_SETTINGS } from "../src/carbon/carbon-settings.ts";
import { ServiceError } from "../src/errors.ts";
import { NO_FIGURES } from "../src/rules/kept-figures.ts";
import { goalStatuses } from "../src/rules/goals.ts";
import { dialectOf } from "../src/sql/dialect.ts";
import { BACKENDS } from "./_backends.ts";

function throwsCode(fn: () => unknown, code: string) {
  assert.throws(fn, (error: unknown) => ServiceError.is(error) && error.code === code);
}

describe("calendar buckets (UTC)", () => {
  test("bucketStart: day, ISO week from Monday, month, quarter", () => {
    // 2038-01-03 is a Sunday: its week began on Monday 2037-12-28 (across the year boundary).
    assert.equal(bucketStart("2038-01-03T23:59:59.999Z", "weekly"), "2037-12-28");
    assert.equal(bucketStart("2038-01-04T00:00:00.000Z", "weekly"), "2038-01-04");
    assert.equal(bucketStart("2038-01-10T12:00:00.000Z", "weekly"), "2038-01-04");
    assert.equal(bucketStart("2038-03-31T23:59:59.999Z", "quarterly"), "2038-01-01");
    assert.equal(bucketStart("2038-04-01T00:00:00.000Z", "quarterly"), "2038-04-01");
    assert.equal(bucketStart("2038-12-31T23:59:59.999Z", "quarterly"), "2038-10-01");
    assert.equal(bucketStart("2056-02-29T08:00:00.000Z", "monthly"), "2056-02-01");
    assert.equal(bucketStart("2056-02-29T08:00:00.000Z", "daily"), "2056-02-29");
  });

  test("periods are clamped to the years 0000 to 9999, which events can use", () => {
    assert.deepEqual(enumerateBuckets("9999-12-30T00:00:00.000Z", "9999-12-31T12:00:00.000Z", "weekly"), [
      { period: "9999-12-27", startDate: "9999-12-27T00:00:00.000Z", endDate: "9999-12-31T23:59:59.999Z" },
    ]);
    assert.deepEqual(
      enumerateBuckets("9999-12-30T00:00:00.000Z", "9999-12-31T12:00:00.000Z", "daily").map((b) => b.period),
      ["9999-12-30", "9999-12-31"],
    );
    for (const granularity of ["monthly", "quarterly"] as const) {
      assert.equal(
        enumerateBuckets("9999-12-30T00:00:00.000Z", "9999-12-31T23:59:59.999Z", granularity).at(-1)!.endDate,
        "9999-12-31T23:59:59.999Z",
      );
    }
    // 0000-01-01 was a Saturday: its week is clamped to start that day.
    assert.deepEqual(enumerateBuckets("0000-01-01T00:00:00.000Z", "0000-01-20T00:00:00.000Z", "weekly"), [
      { period: "0000-01-01", startDate: "0000-01-01T00:00:00.000Z", endDate: "0000-01-02T23:59:59.999Z" },
      { period: "0000-01-03", startDate: "0000-01-03T00:00:00.000Z", endDate: "0000-01-09T23:59:59.999Z" },
      { period: "0000-01-10", startDate: "0000-01-10T00:00:00.000Z", endDate: "0000-01-16T23:59:59.999Z" },
      { period: "0000-01-17", startDate: "0000-01-17T00:00:00.000Z", endDate: "0000-01-23T23:59:59.999Z" },
    ]);
  });

  for (const backend of BACKENDS) {
    test(`the SQL twin (dialect.ts) buckets every instant as bucketStart does: ${backend.name}`, async () => {
      const database = await backend.open();
      const { db } = database;
      const dialect = dialectOf(db);
      const instants = [
        "2037-12-28T00:00:00.000Z",
        "2038-01-03T23:59:59.999Z",
        "2038-01-04T00:00:00.000Z",
        "2038-03-31T23:59:59.999Z",
        "2038-04-01T00:00:00.000Z",
        "2038-06-30T12:00:00.000Z",
        "2038-09-30T23:00:00.000Z",
        "2038-10-01T00:00:00.000Z",
        "2056-02-29T08:00:00.000Z",
        "2056-12-31T23:59:59.999Z",
        "2000-01-01T00:00:00.000Z",
        // The ends of the years the service stores: the week of 0000-01-01 began in the year -1.
        "0000-01-01T00:00:00.000Z",
        "0000-01-02T23:59:59.999Z",
        "0000-01-03T00:00:00.000Z",
        "9999-12-31T23:59:59.999Z",
      ];
      for (const granularity of BUCKET_GRANULARITIES) {
        for (const instant of instants) {
          const { rows } = await sql<{
            b: string;
          }>`select ${dialect.bucketStart(sql.val(instant), granularity)} as b`.execute(db);
          assert.equal(rows[0]!.b, bucketStart(instant, granularity), `${granularity} ${instant}`);
        }
      }
      await database.drop();
    });
  }

  test("enumerateBuckets: every period of the range, bounds to the millisecond", () => {
    assert.deepEqual(enumerateBuckets("2038-01-03T10:00:00.000Z", "2038-01-11T00:00:00.000Z", "weekly"), [
      { period: "2037-12-28", startDate: "2037-12-28T00:00:00.000Z", endDate: "2038-01-03T23:59:59.999Z" },
      { period: "2038-01-04", startDate: "2038-01-04T00:00:00.000Z", endDate: "2038-01-10T23:59:59.999Z" },
      { period: "2038-01-11", startDate: "2038-01-11T00:00:00.000Z", endDate: "2038-01-17T23:59:59.999Z" },
    ]);
    assert.deepEqual(
      enumerateBuckets("2038-11-15T00:00:00.000Z", "2039-04-01T00:00:00.000Z", "quarterly").map((b) => [
        b.period,
        b.endDate,
      ]),
      [
        ["2038-10-01", "2038-12-31T23:59:59.999Z"],
        ["2039-01-01", "2039-03-31T23:59:59.999Z"],
        ["2039-04-01", "2039-06-30T23:59:59.999Z"],
      ],
    );
    assert.equal(
      enumerateBuckets("2056-02-01T00:00:00.000Z", "2056-02-29T23:59:59.999Z", "monthly")[0]!.endDate,
      "2056-02-29T23:59:59.999Z",
    );
    assert.equal(enumerateBuckets("2038-05-01T10:00:00.000Z", "2038-05-01T11:00:00.000Z", "daily").length, 1);
  });

  test("at most 366 buckets; a reversed range is INVALID_DATE_RANGE", () => {
    // 2056 is a leap year: 366 days fit, one more does not.
    assert.equal(enumerateBuckets("2056-01-01T00:00:00.000Z", "2056-12-31T23:59:59.999Z", "daily").length, MAX_BUCKETS);
    throwsCode(
      () => enumerateBuckets("2056-01-01T00:00:00.000Z", "2057-01-01T00:00:00.000Z", "daily"),
      "INVALID_DATE_RANGE",
    );
    assert.equal(enumerateBuckets("0001-01-01T00:00:00.000Z", "0092-06-30T00:00:00.000Z", "quarterly").length, 366);
    throwsCode(
      () => enumerateBuckets("0001-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z", "monthly"),
      "INVALID_DATE_RANGE",
    );
    throwsCode(
      () => enumerateBuckets("2038-02-01T00:00:00.000Z", "2038-01-31T00:00:00.000Z", "monthly"),
      "INVALID_DATE_RANGE",
    );
  });
});

describe("series statistics", () => {
  test("a rising series: mean, median, population standard deviation, slope, percent change", () => {
    const stats = seriesStatistics([
      { index: 0, value: 10 },
      { index: 1, value: 20 },
      { index: 2, value: 30 },
      { index: 3, value: 40 },
    ]);
    // Deviations -15, -5, 5, 15: variance (225 + 25 + 25 + 225) / 4 = 125, sd = 11.1803...
    assert.deepEqual(stats, {
      count: 4,
      mean: 25,
      median: 25,
      standardDeviation: 11.18,
      min: 10,
      max: 40,
      slope: 10,
      percentChange: 300,
      direction: "increasing",
    });
  });

  test("gaps count: the slope is per bucket, over the buckets' positions", () => {
    // Points at buckets 0 and 4 (three empty buckets between): slope (60 - 20) / 4 = 10.
    const stats = seriesStatistics([
      { index: 0, value: 20 },
      { index: 4, value: 60 },
    ]);
    assert.equal(stats.slope, 10);
    assert.equal(stats.percentChange, 200);
    assert.equal(stats.median, 40);
  });

  test("falling, stable, odd median, first value 0", () => {
    const falling = seriesStatistics([
      { index: 0, value: 9 },
      { index: 1, value: 3 },
      { index: 2, value: 6 },
    ]);
    // Fit over x = 0,1,2 (mean 1), y mean 6: sxy = (-1)(3) + 0 + (1)(0) = -3, sxx = 2, slope -1.5.
    assert.deepEqual(falling, {
      count: 3,
      mean: 6,
      median: 6,
      standardDeviation: 2.449,
      min: 3,
      max: 9,
      slope: -1.5,
      percentChange: -33.333,
      direction: "decreasing",
    });
    // Fitted change 2 x 0.5 = 1 against a mean of 100.33: under 5 %, stable.
    assert.equal(
      seriesStatistics([
        { index: 0, value: 100 },
        { index: 1, value: 100 },
        { index: 2, value: 101 },
      ]).direction,
      "stable",
    );
    const fromZero = seriesStatistics([
      { index: 0, value: 0 },
      { index: 1, value: 5 },
    ]);
    assert.equal(fromZero.percentChange, null);
    assert.equal(fromZero.direction, "increasing");
    assert.equal(
      seriesStatistics([
        { index: 0, value: 0 },
        { index: 1, value: 0 },
      ]).direction,
      "stable",
    );
  });

  test("round3 and percent", () => {
    assert.equal(round3(2 / 3), 0.667);
    assert.equal(Object.is(round3(-0.0001), 0), true);
    assert.equal(percent(1, 3), 33.333);
    assert.equal(percent(1, 0), null);
  });
});

function aggregate(overrides: Partial<AggregateFigures> = {}): AggregateFigures {
  return {
    events: 0,
    attendance: 0,
    checkedIn: 0,
    offsetOpted: 0,
    offsetUsd: 0,
    emissionsKg: 0,
    travelReported: 0,
    lowCarbonTravel: 0,
    goals: { carbonNeutral: 0, renewableEnergy: 0, localSourcing: 0, wasteReduction: 0 },
    wasteTargetSum: 0,
    wasteTargetMax: null,
    activities: { ...NO_ACTIVITY_FIGURES },
    ...overrides,
  };
}

function mode(name: string, registrations: number, emissionsKg: number): ModeFigures {
  return { mode: name, registrations, distanceKm: 0, emissionsKg, offsetOpted: 0, offsetUsd: 0 };
}

describe("trend report", () => {
  const buckets = enumerateBuckets("2038-01-01T00:00:00.000Z", "2038-03-31T00:00:00.000Z", "monthly");
  const figures = (
    rows: Array<[string, Partial<AggregateFigures>]>,
    totals: Partial<AggregateFigures> = {},
  ): AnalyticsFigures => ({
    span: { first: "2038-01-01T00:00:00.000Z", last: "2038-03-31T00:00:00.000Z" },
    totals: aggregate(totals),
    perEvent: {
      score: null,
      emissions: null,
      certifications: { carbonNeutral: 0, lowCarbonTravel: 0, gold: 0, silver: 0, bronze: 0 },
    },
    byMode: [],
    buckets: rows.map(([period, f]) => ({ period, ...aggregate(f) })),
    activityKinds: [],
    revenue: [],
    factorYears: [],
  });
  const range = { startDate: "2038-01-01T00:00:00.000Z", endDate: "2038-03-31T00:00:00.000Z" };

  test("empty periods are null, statistics over the periods with data", () => {
    const report = buildTrendReport({
      query: TrendQuery.parse({ metric: "attendance" }),
      range,
      buckets,
      figures: figures(
        [
          ["2038-01-01", { events: 1, attendance: 4 }],
          ["2038-03-01", { events: 2, attendance: 10 }],
        ],
        { events: 3, attendance: 14 },
      ),
      carbon: DEFAULT_CARBON_SETTINGS,
    });
    assert.deepEqual(
      report.dataPoints.map((p) => [p.period, p.value, p.events]),
      [
        ["2038-01-01", 4, 1],
        ["2038-02-01", null, 0],
        ["2038-03-01", 10, 2],
      ],
    );
    // Points at positions 0 and 2: slope (10 - 4) / 2 = 3 per month; +150 %.
    assert.equal(report.statistics.slope, 3);
    assert.equal(report.statistics.percentChange, 150);
    assert.equal(report.statistics.count, 2);
    assert.equal(report.benchmark, null);
  });

  test("one period with data is INSUFFICIENT_DATA; offset participation without registrations is no data", () => {
    throwsCode(
      () =>
        buildTrendReport({
          query: TrendQuery.parse({ metric: "attendance" }),
          range,
          buckets,
          figures: figures([["2038-02-01", { events: 1, attendance: 3 }]]),
          carbon: DEFAULT_CARBON_SETTINGS,
        }),
      "INSUFFICIENT_DATA",
    );
    throwsCode(
      () =>
        buildTrendReport({
          query: TrendQuery.parse({ metric: "offset_participation" }),
          range,
          buckets,
          figures: figures([
            ["2038-01-01", { events: 1, attendance: 2, offsetOpted: 1 }],
            ["2038-02-01", { events: 1, attendance: 0 }],
          ]),
          carbon: DEFAULT_CARBON_SETTINGS,
        }),
      "INSUFFICIENT_DATA",
    );
  });

  test("a metric without a reference value says so when a benchmark is asked for", () => {
    const report = buildTrendReport({
      query: TrendQuery.parse({ metric: "attendance", includeBenchmark: "true" }),
      range,
      buckets,
      figures: figures(
        [
          ["2038-01-01", { events: 1, attendance: 4 }],
          ["2038-02-01", { events: 1, attendance: 4 }],
        ],
        { events: 2, attendance: 8 },
      ),
      carbon: DEFAULT_CARBON_SETTINGS,
    });
    assert.equal(report.benchmark?.available, false);
    assert.equal(report.benchmark?.note, "No published industry reference value fits this metric.");
    assert.equal(report.statistics.direction, "stable");
    assert.deepEqual(report.recommendations, []);
    assert.deepEqual(
      report.insights.map((i) => i.type),
      ["trend"],
    );
  });
});

describe("insights and recommendations follow the numbers", () => {
  const base = (overrides: Partial<InsightInput>): InsightInput => ({
    metric: "carbon_emissions",
    unit: "kg CO2e",
    granularity: "monthly" as BucketGranularity,
    points: [
      { period: "2038-01-01", value: 100 },
      { period: "2038-02-01", value: 200 },
    ],
    statistics: seriesStatistics([
      { index: 0, value: 100 },
      { index: 1, value: 200 },
    ]),
    benchmark: null,
    totals: aggregate({ events: 2, attendance: 10, emissionsKg: 300, travelReported: 10, offsetUsd: 1.5 }),
    byMode: [mode("flight", 2, 240), mode("train", 8, 60)],
    carbon: DEFAULT_CARBON_SETTINGS,
    ...overrides,
  });

  test("rising emissions dominated by flights, partly offset", () => {
    const { insights, recommendations } = generateInsights(base({}));
    assert.deepEqual(
      insights.map((i) => i.type),
      ["trend", "extremes", "travel_mix", "offset_coverage"],
    );
    assert.equal(
      insights[0]!.message,
      "Travel emissions rose from 100 kg CO2e (2038-01-01) to 200 kg CO2e (2038-02-01) (+100.0%); the fitted slope is +100 kg CO2e per month.",
    );
    // Percentages in words have one decimal, as the printable report writes them; the figures keep three.
    assert.equal(insights[3]!.message, "Offsets cover 33.3% of the travel emissions (100 of 300 kg CO2e).");
    assert.match(recommendations[2]!.message, /\(coverage 33\.3%\)/);
    // Flights: 240 of 300 kg = 80 %, 2 of 10 trips = 20 %.
    assert.deepEqual(insights[2]!.figures, {
      highEmissionSharePercent: 80,
      highEmissionKg: 240,
      emissionsKg: 300,
      highEmissionTripSharePercent: 20,
    });
    // 1.5 USD at 15 USD/t = 100 kg offset: 33.333 % of 300; the gap is 200 kg, 3 USD.
    assert.deepEqual(insights[3]!.figures, { offsetCoveragePercent: 33.333, offsetKg: 100, emissionsKg: 300 });
    assert.deepEqual(
      recommendations.map((r) => r.type),
      ["worsening_trend", "travel_mix", "offset_gap"],
    );
    assert.deepEqual(recommendations[2]!.figures, { gapKg: 200, gapUsd: 3, offsetCoveragePercent: 33.333 });
  });

  test("a large percentage reads as the report writes it: grouped, one decimal", () => {
    const values = [10, 180.5873];
    const points = values.map((value, i) => ({ period: `2038-0${i + 1}-01`, value }));
    const statistics = seriesStatistics(values.map((value, index) => ({ index, value })));
    assert.equal(statistics.percentChange, 1705.873);
    const { insights } = generateInsights(base({ points, statistics }));
    assert.match(insights[0]!.message, /\(2038-02-01\) \(\+1,705\.9%\);/);
    assert.equal(insights[0]!.figures.percentChange, 1705.873);
  });

  test("a fitted rise whose ends are equal is not told as 'from 0 to 0'", () => {
    const values = [0, 4, 8, 0];
    const points = values.map((value, i) => ({ period: `2038-0${i + 1}-01`, value }));
    const { insights } = generateInsights(
      base({ points, statistics: seriesStatistics(values.map((value, index) => ({ index, value }))) }),
    );
    assert.equal(
      insights[0]!.message,
      "Travel emissions rose over the range, though it was 0 kg CO2e in 2038-01-01 and 0 kg CO2e in 2038-04-01; the fitted slope is +0.4 kg CO2e per month.",
    );
  });

  test("falling, train-only, fully offset emissions call for nothing", () => {
    const { insights, recommendations } = generateInsights(
      base({
        points: [
          { period: "2038-01-01", value: 200 },
          { period: "2038-02-01", value: 100 },
        ],
        statistics: seriesStatistics([
          { index: 0, value: 200 },
          { index: 1, value: 100 },
        ]),
        totals: aggregate({ events: 2, attendance: 10, emissionsKg: 300, travelReported: 10, offsetUsd: 4.5 }),
        byMode: [mode("train", 10, 300)],
      }),
    );
    assert.deepEqual(
      insights.map((i) => i.type),
      ["trend", "extremes", "offset_coverage"],
    );
    assert.deepEqual(recommendations, []);
  });

  test("goal metrics: renewable energy, waste targets, offset uptake, strong variation, benchmark", () => {
    const energy = generateInsights(
      base({
        metric: "energy_usage",
        unit: "percent (renewable share of recorded kWh, else of events committed)",
        totals: aggregate({
          events: 4,
          goals: { carbonNeutral: 0, renewableEnergy: 1, localSourcing: 0, wasteReduction: 0 },
        }),
      }),
    );
    assert.deepEqual(
      energy.recommendations.map((r) => [r.type, r.figures]),
      [["renewable_energy", { eventsWithoutGoal: 3, events: 4 }]],
    );
    const waste = generateInsights(
      base({
        metric: "waste_reduction",
        unit: "percent (measured diversion rate where waste is recorded, else mean target)",
        totals: aggregate({
          events: 2,
          wasteTargetSum: 60,
          goals: { carbonNeutral: 0, renewableEnergy: 0, localSourcing: 0, wasteReduction: 1 },
        }),
      }),
    );
    assert.deepEqual(
      waste.recommendations.map((r) => r.figures),
      [{ meanTargetPercent: 30, reference: 55, eventsWithTarget: 1, events: 2 }],
    );
    const wasteMet = generateInsights(
      base({ metric: "waste_reduction", totals: aggregate({ events: 2, wasteTargetSum: 120 }) }),
    );
    assert.deepEqual(wasteMet.recommendations, []);
    const uptake = generateInsights(
      base({
        metric: "offset_participation",
        points: [
          { period: "2038-01-01", value: 40 },
          { period: "2038-02-01", value: 10 },
        ],
        statistics: seriesStatistics([
          { index: 0, value: 40 },
          { index: 1, value: 10 },
        ]),
        totals: aggregate({ events: 2, attendance: 10, offsetOpted: 2 }),
        benchmark: { value: 20, reference: 3, differencePercent: 566.667, position: "above", assessment: "better" },
      }),
    );
    assert.deepEqual(
      uptake.insights.map((i) => i.type),
      ["trend", "extremes", "variability", "benchmark"],
    );
    // Mean 25, sd 15: 60 % of the mean.
    assert.equal(uptake.insights[2]!.figures.coefficientOfVariationPercent, 60);
    assert.deepEqual(
      uptake.recommendations.map((r) => r.type),
      ["worsening_trend", "offset_uptake"],
    );
    assert.equal(uptake.recommendations[1]!.figures.participationPercent, 20);
  });
});

describe("goals", () => {
  // 100 kg of travel, offset 3 USD (200 kg at 15 USD per tonne); all electricity renewable; all waste landfilled.
  const figures = {
    capacity: 10,
    kept: { ...NO_FIGURES, activeRegistrations: 2, emissionsKg: 100, offsetUsd: 3, travelReported: 2 },
    activities: { ...NO_ACTIVITY_FIGURES, electricityKwh: 400, renewableKwh: 400, wasteKg: 50 },
    vendors: { confirmed: 2, local: 2, certified: 0 },
  };
  const judged = (goals: Parameters<typeof goalStatuses>[0]) =>
    goalStatuses(goals, figures, DEFAULT_CARBON_SETTINGS).map((goal) => [goal.type, goal.set, goal.met, goal.target]);

  test("a goal not set is neither met nor missed, whatever the figures say", () => {
    assert.deepEqual(judged({}), [
      ["carbon_neutral", false, null, null],
      ["renewable_energy", false, null, null],
      ["waste_reduction", false, null, null],
      ["local_sourcing", false, null, 50],
    ]);
    assert.deepEqual(
      judged({ carbonNeutral: false, renewableEnergy: false, wasteReduction: 0, localSourcing: false }),
      [
        ["carbon_neutral", false, null, null],
        ["renewable_energy", false, null, null],
        ["waste_reduction", false, null, null],
        ["local_sourcing", false, null, 50],
      ],
    );
  });

  test("set goals are judged on the same figures, which an unset goal still shows", () => {
    assert.deepEqual(judged({ carbonNeutral: true, renewableEnergy: true, wasteReduction: 30, localSourcing: true }), [
      ["carbon_neutral", true, true, null],
      ["renewable_energy", true, true, null],
      ["waste_reduction", true, false, 30],
      ["local_sourcing", true, true, 50],
    ]);
    const [unset] = goalStatuses({}, figures, DEFAULT_CARBON_SETTINGS);
    assert.deepEqual(unset?.metrics, { totalEmissionsKg: 100, offsetKg: 200, coveragePercent: 200 });
  });
});
