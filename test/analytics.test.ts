/**
 * End-to-end: the analytics interface (sustainability, per-event analytics, trends) against the
 * real server, on a small fixed data set whose every figure is computed by hand below.
 *
 * The data set (account "Analytics Co"); emission factors kg CO2e per passenger-km (UK GHG 2023):
 * car 0.16844, train 0.03546, bus 0.10231, flight 0.27257 (<= 500 km), 0.18592 (<= 3,700 km),
 * 0.26128 (beyond); offsets 15 USD per tonne.
 *
 * E1 conference, 2038-01-04T09:00Z (Monday), capacity 10, goals carbonNeutral, renewableEnergy, wasteReduction 50
 *   r1 car 100 km = 16.844, offset 3 USD (200 kg), vip, Acme, vegan + gluten-free, wheelchair   confirmed
 *   r2 flight 1,000 km = 185.92, no offset, general, Acme, vegan                               confirmed
 *   r3 train 200 km = 7.092, offset 0.3 USD (20 kg), general, Globex, sign language + other    checked-in
 *   r4 bike 5 km = 0, not opted, general, no company                                          pending
 *   r5 car 50 km, vip, Initech, halal                                                          cancelled (not counted)
 *   active 4, emissions 209.856, offsets 220 kg (104.834 %): carbon neutral; low-carbon 2 of 4;
 *   score 15 + 15 + 7.5 + 20 x 2/4 + 20 = 67.5 (silver)
 * E2 meetup, 2038-01-03T18:00Z (Sunday: ISO week of 2037-12-28), capacity 4, goal localSourcing
 *   r6 bus 40 km = 4.0924, opted with 0 USD, general; r7 no travel reported, speaker
 *   score 15 + 20 x 1/1 + 0 = 35 (no tier); low-carbon travel certified (1 of 1)
 * E3 conference, 2038-04-01T00:00Z (first instant of Q2), capacity 5, goal wasteReduction 20
 *   r8 flight 400 km = 109.028, offset 1.5 USD (100 kg); r9 flight 4,000 km = 1,045.12; r10 train 300 km = 10.638 (checked-in)
 *   emissions 1,164.786; score 3 + 20/3 + 20 x 100/1164.786 = 11.384 (11.4)
 * E4 conference, 2038-02-15, cancelled, with a car registration of 1,000 km: excluded everywhere.
 *
 * Totals over E1..E3: 3 events, 9 active registrations, 2 checked in, emissions 1,378.734 kg,
 * offsets 4.8 USD = 320 kg, net 1,058.734 kg, coverage 23.21 %, 153.193 kg per attendee.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startServer, type TestServer } from "./_setup.ts";
import {
  type Client,
  clientFor,
  createEvent,
  expectError,
  expectStatus,
  moveAttendee,
  moveEvent,
  register,
} from "./fixtures/api.ts";

let server: TestServer;
let a: Client;
let b: Client;
const E: Record<string, any> = {};
const R: Record<string, any> = {};

const location = { address: "Main St 1", city: "Berlin", country: "DE" };
/** What every analytics answer of this server (the default factor set, 15 USD per tonne) names in `methodology`. */
const METHODOLOGY = {
  emissionFactors: {
    name: "UK Government GHG Conversion Factors for Company Reporting",
    year: 2023,
    source: "Department for Energy Security and Net Zero (DESNZ)",
  },
  offsetPriceUsdPerTonne: 15,
};
const travel = (travelMode: string, travelDistance: number, amount?: number) =>
  amount === undefined
    ? { opted: false, travelMode, travelDistance }
    : { opted: true, amount, travelMode, travelDistance };

before(async () => {
  server = await startServer();
  a = clientFor(server, (await server.createKey({ account: "Analytics Co" })).key);
  b = clientFor(server, (await server.createKey({ account: "Other Org" })).key);

  E.e1 = await createEvent(a, {
    name: "Spring Summit",
    category: "conference",
    capacity: 10,
    location,
    startDate: "2038-01-04T09:00:00Z",
    endDate: "2038-01-04T17:00:00Z",
    sustainabilityGoals: { carbonNeutral: true, renewableEnergy: true, wasteReduction: 50 },
  });
  E.e2 = await createEvent(a, {
    name: "Winter Meetup",
    category: "meetup",
    capacity: 4,
    location,
    startDate: "2038-01-03T18:00:00Z",
    endDate: "2038-01-03T21:00:00Z",
    sustainabilityGoals: { localSourcing: true },
  });
  E.e3 = await createEvent(a, {
    name: "Spring Workshop",
    category: "conference",
    capacity: 5,
    location,
    startDate: "2038-04-01T00:00:00Z",
    endDate: "2038-04-01T08:00:00Z",
    sustainabilityGoals: { wasteReduction: 20 },
  });
  E.e4 = await createEvent(a, {
    name: "Cancelled Gala",
    category: "conference",
    capacity: 5,
    location,
    startDate: "2038-02-15T10:00:00Z",
    endDate: "2038-02-15T20:00:00Z",
  });

  R.r1 = await register(a, E.e1.id, {
    ticketType: "vip",
    company: "Acme",
    dietaryPreferences: ["vegan", "gluten-free"],
    accessibilityNeeds: { wheelchairAccess: true },
    carbonOffset: travel("car", 100, 3),
  });
  R.r2 = await register(a, E.e1.id, {
    ticketType: "general",
    company: "Acme",
    dietaryPreferences: ["vegan"],
    carbonOffset: travel("flight", 1000),
  });
  R.r3 = await register(a, E.e1.id, {
    ticketType: "general",
    company: "Globex",
    accessibilityNeeds: { signLanguage: true, other: "quiet room" },
    carbonOffset: travel("train", 200, 0.3),
  });
  R.r4 = await register(a, E.e1.id, { ticketType: "general", carbonOffset: travel("bike", 5) });
  R.r5 = await register(a, E.e1.id, {
    ticketType: "vip",
    company: "Initech",
    dietaryPreferences: ["halal"],
    carbonOffset: travel("car", 50, 10),
  });
  await moveAttendee(a, R.r3.id, "checked-in");
  await moveAttendee(a, R.r4.id, "pending");
  await moveAttendee(a, R.r5.id, "cancelled");
  R.r6 = await register(a, E.e2.id, { ticketType: "general", carbonOffset: travel("bus", 40, 0) });
  R.r7 = await register(a, E.e2.id, { ticketType: "speaker" });
  R.r8 = await register(a, E.e3.id, { carbonOffset: travel("flight", 400, 1.5) });
  R.r9 = await register(a, E.e3.id, { carbonOffset: travel("flight", 4000) });
  R.r10 = await register(a, E.e3.id, { carbonOffset: travel("train", 300) });
  await moveAttendee(a, R.r10.id, "checked-in");
  await register(a, E.e4.id, { carbonOffset: travel("car", 1000, 100) });
  await moveEvent(a, E.e4.id, "cancelled");

  // Another account's data, which must never show up in the first account's figures.
  E.other = await createEvent(b, {
    name: "Other Summit",
    category: "conference",
    startDate: "2038-01-05T09:00:00Z",
    endDate: "2038-01-05T17:00:00Z",
    location,
  });
  await register(b, E.other.id, { carbonOffset: travel("flight", 2000, 500) });
});

after(async () => {
  const output = server.output();
  assert.equal(await server.stop("SIGTERM"), 0);
  assert.doesNotMatch(output, /"msg":"unexpected error"/, "no request failed unexpectedly");
});

const mode = (
  m: string,
  registrations: number,
  distanceKm: number,
  emissionsKg: number,
  emissionsSharePercent: number | null,
) => ({ mode: m, registrations, distanceKm, emissionsKg, emissionsSharePercent });

describe("GET /analytics/sustainability", () => {
  test("every section over all events (granularity total), under both prefixes", async () => {
    const report = expectStatus(await a.get("/analytics/sustainability"), 200);
    assert.deepEqual(
      expectStatus(await server.request("GET", "/api/analytics/sustainability", { key: a.key }), 200),
      report,
    );
    assert.deepEqual(report.range, {
      startDate: "2038-01-03T18:00:00.000Z",
      endDate: "2038-04-01T00:00:00.000Z",
      granularity: "total",
    });
    assert.deepEqual(report.methodology, METHODOLOGY);
    assert.equal(report.eventIds, null);
    assert.deepEqual(report.carbonFootprint, {
      totalEmissionsKg: 1378.734,
      totalOffsetKg: 320,
      netEmissionsKg: 1058.734,
      offsetCoveragePercent: 23.21,
      offsetContributionsUsd: 4.8,
      emissionsPerAttendeeKg: 153.193,
      emissionsPerEventKg: 459.578,
      travelReported: 8,
      travelNotReported: 1,
      byTravelMode: [
        mode("car", 1, 100, 16.844, 1.222),
        mode("flight", 3, 5400, 1340.068, 97.196), // 185.92 + 109.028 + 1,045.12
        mode("train", 2, 500, 17.73, 1.286),
        mode("bus", 1, 40, 4.092, 0.297),
        mode("bike", 1, 5, 0, 0),
        mode("walk", 0, 0, 0, 0),
      ],
    });
    assert.deepEqual(report.wasteReduction, {
      eventsWithTarget: { count: 2, percent: 66.667 },
      averageTargetPercent: 35,
      highestTargetPercent: 50,
      measuredWasteKg: null,
      diversionRatePercent: null,
      recyclingRatePercent: null,
      note: "Targets set by the events (sustainabilityGoals.wasteReduction); no waste is recorded yet (waste activity records fill measuredWasteKg and the rates).",
    });
    assert.deepEqual(report.energy.eventsWithRenewableEnergy, { count: 1, percent: 33.333 });
    assert.equal(report.energy.measuredEnergyKwh, null);
    assert.deepEqual(report.adoption, {
      events: 3,
      carbonNeutral: { count: 1, percent: 33.333 },
      renewableEnergy: { count: 1, percent: 33.333 },
      localSourcing: { count: 1, percent: 33.333 },
      wasteReduction: { count: 2, percent: 66.667 },
      offsetParticipation: { count: 4, percent: 44.444 }, // r1, r3, r6 (0 USD), r8 of 9
      lowCarbonTravel: { count: 4, percent: 50 }, // r3, r4, r6, r10 of 8 reporting travel
    });
    const { criteria, ...certifications } = report.certifications;
    assert.deepEqual(certifications, {
      carbonNeutral: { count: 1, percent: 33.333 }, // E1
      lowCarbonTravel: { count: 1, percent: 33.333 }, // E2
      gold: { count: 0, percent: 0 },
      silver: { count: 1, percent: 33.333 }, // E1, 67.5
      bronze: { count: 0, percent: 0 },
    });
    assert.deepEqual(Object.keys(criteria), ["carbonNeutral", "lowCarbonTravel", "gold", "silver", "bronze"]);
    assert.equal(report.trend, null);
    // Scores 67.5, 35, 11.38372: mean 37.961, population sd 23.005.
    assert.deepEqual(report.summary, {
      events: 3,
      attendance: 9,
      checkedIn: 2,
      checkInRatePercent: 22.222,
      sustainabilityScore: { mean: 37.961, standardDeviation: 23.005, min: 11.384, max: 67.5 },
      emissionsPerEventKg: { mean: 459.578, min: 4.092, max: 1164.786 },
    });
  });

  test("weekly: ISO weeks from Monday in UTC, empty weeks present with zeros", async () => {
    const { trend, range } = expectStatus(await a.get("/analytics/sustainability?granularity=weekly"), 200);
    assert.equal(range.granularity, "weekly");
    // From the week of 2038-01-03 (Monday 2037-12-28) to the week of 2038-04-01 (Monday 2038-03-29): 14 weeks.
    assert.equal(trend.length, 14);
    assert.deepEqual(trend[0], {
      period: "2037-12-28",
      startDate: "2037-12-28T00:00:00.000Z",
      endDate: "2038-01-03T23:59:59.999Z",
      events: 1,
      attendance: 2,
      emissionsKg: 4.092,
      offsetKg: 0,
      netEmissionsKg: 4.092,
      offsetParticipationPercent: 50,
      averageWasteTargetPercent: 0,
      renewableEnergySharePercent: 0,
    });
    assert.deepEqual(trend[1], {
      period: "2038-01-04",
      startDate: "2038-01-04T00:00:00.000Z",
      endDate: "2038-01-10T23:59:59.999Z",
      events: 1,
      attendance: 4,
      emissionsKg: 209.856,
      offsetKg: 220,
      netEmissionsKg: 0,
      offsetParticipationPercent: 50,
      averageWasteTargetPercent: 50,
      renewableEnergySharePercent: 100,
    });
    assert.deepEqual(trend[2], {
      period: "2038-01-11",
      startDate: "2038-01-11T00:00:00.000Z",
      endDate: "2038-01-17T23:59:59.999Z",
      events: 0,
      attendance: 0,
      emissionsKg: 0,
      offsetKg: 0,
      netEmissionsKg: 0,
      offsetParticipationPercent: null,
      averageWasteTargetPercent: null,
      renewableEnergySharePercent: null,
    });
    assert.equal(trend[13].period, "2038-03-29");
    assert.deepEqual(
      [trend[13].events, trend[13].attendance, trend[13].emissionsKg, trend[13].offsetKg],
      [1, 3, 1164.786, 100],
    );
    assert.equal(
      trend.slice(2, 13).every((bucket: any) => bucket.events === 0 && bucket.emissionsKg === 0),
      true,
    );
  });

  test("monthly over a given range: the cancelled event's month is empty", async () => {
    const { trend, range } = expectStatus(
      await a.get("/analytics/sustainability?granularity=monthly&startDate=2038-01-01&endDate=2038-04-30"),
      200,
    );
    assert.deepEqual(range, {
      startDate: "2038-01-01T00:00:00.000Z",
      endDate: "2038-04-30T23:59:59.999Z",
      granularity: "monthly",
    });
    assert.deepEqual(
      trend.map((m: any) => [m.period, m.events, m.attendance, m.emissionsKg]),
      [
        ["2038-01-01", 2, 6, 213.948],
        ["2038-02-01", 0, 0, 0],
        ["2038-03-01", 0, 0, 0],
        ["2038-04-01", 1, 3, 1164.786],
      ],
    );
    assert.equal(trend[1].endDate, "2038-02-28T23:59:59.999Z");
  });

  test("dates with an offset are read as UTC instants; eventIds narrow the scope", async () => {
    // 2038-01-04T00:00+01:00 is 2038-01-03T23:00Z: E2 (18:00Z) is before it, E1 and E3 after.
    const fromOffset = expectStatus(
      await a.get(`/analytics/sustainability?startDate=${encodeURIComponent("2038-01-04T00:00:00+01:00")}`),
      200,
    );
    assert.equal(fromOffset.range.startDate, "2038-01-03T23:00:00.000Z");
    assert.deepEqual(
      [fromOffset.summary.events, fromOffset.summary.attendance, fromOffset.carbonFootprint.totalEmissionsKg],
      [2, 7, 1374.642],
    );
    const picked = expectStatus(
      await a.get(`/analytics/sustainability?eventIds=${E.e2.id},${E.e1.id},${E.e4.id}`),
      200,
    );
    assert.deepEqual(picked.eventIds, [E.e2.id, E.e1.id, E.e4.id]);
    // E4 is cancelled: named, found, not counted.
    assert.deepEqual(
      [
        picked.summary.events,
        picked.summary.attendance,
        picked.carbonFootprint.totalEmissionsKg,
        picked.carbonFootprint.totalOffsetKg,
      ],
      [2, 6, 213.948, 220],
    );
    assert.deepEqual(picked.range, {
      startDate: "2038-01-03T18:00:00.000Z",
      endDate: "2038-01-04T09:00:00.000Z",
      granularity: "total",
    });
  });

  test("errors: reversed range, too many buckets, unknown parameters and values, foreign eventIds", async () => {
    expectError(
      await a.get("/analytics/sustainability?startDate=2038-02-01&endDate=2038-01-31"),
      400,
      "INVALID_DATE_RANGE",
      "startDate",
    );
    // 2038-01-01 .. 2039-01-01 is 366 days (fine); one more day is 367.
    expectStatus(
      await a.get("/analytics/sustainability?granularity=daily&startDate=2038-01-01&endDate=2039-01-01"),
      200,
    );
    const tooLong = expectError(
      await a.get("/analytics/sustainability?granularity=daily&startDate=2038-01-01&endDate=2039-01-02"),
      400,
      "INVALID_DATE_RANGE",
    );
    assert.equal(tooLong.details.maxBuckets, 366);
    expectError(await a.get("/analytics/sustainability?granularity=quarterly"), 400, "INVALID_REQUEST", "granularity");
    expectError(await a.get("/analytics/sustainability?metric=attendance"), 400, "INVALID_REQUEST", "metric");
    expectError(await a.get("/analytics/sustainability?startDate=yesterday"), 400, "INVALID_REQUEST", "startDate");
    expectError(await a.get("/analytics/sustainability?eventIds=,"), 400, "INVALID_REQUEST", "eventIds");
    const foreign = expectError(
      await a.get(`/analytics/sustainability?eventIds=${E.e1.id},${E.other.id}`),
      404,
      "NOT_FOUND",
      "eventIds",
    );
    assert.deepEqual(foreign.details.missing, [E.other.id]);
  });

  test("an account without events: zeros, no range, nothing of other accounts", async () => {
    const empty = clientFor(server, (await server.createKey({ account: "Empty Ltd" })).key);
    const report = expectStatus(await empty.get("/analytics/sustainability?granularity=monthly"), 200);
    assert.deepEqual(report.range, { startDate: null, endDate: null, granularity: "monthly" });
    assert.deepEqual(report.trend, []);
    assert.equal(report.carbonFootprint.totalEmissionsKg, 0);
    assert.equal(report.carbonFootprint.emissionsPerAttendeeKg, null);
    assert.deepEqual(report.summary, {
      events: 0,
      attendance: 0,
      checkedIn: 0,
      checkInRatePercent: null,
      sustainabilityScore: null,
      emissionsPerEventKg: null,
    });
    // The other account sees only its own event: one flight of 2,000 km = 371.84 kg.
    const other = expectStatus(await b.get("/analytics/sustainability"), 200);
    assert.deepEqual([other.summary.events, other.carbonFootprint.totalEmissionsKg], [1, 371.84]);
  });
});

describe("GET /analytics/events/:id", () => {
  test("every section of an event, hand-computed", async () => {
    const report = expectStatus(await a.get(`/analytics/events/${E.e1.id}`), 200);
    assert.deepEqual(
      expectStatus(await server.request("GET", `/api/analytics/events/${E.e1.id}`, { key: a.key }), 200),
      report,
    );
    const active = [R.r1, R.r2, R.r3, R.r4];
    const start = Date.parse("2038-01-04T09:00:00.000Z");
    const leadDays =
      active.reduce((sum, r) => sum + (start - Date.parse(r.registrationDate)) / 86_400_000, 0) / active.length;
    const { averageLeadTimeDays, ...engagement } = report.engagement;
    assert.ok(Math.abs(averageLeadTimeDays - leadDays) < 0.001, `${averageLeadTimeDays} vs ${leadDays}`);
    assert.deepEqual(engagement, {
      checkInRatePercent: 25,
      cancellationRatePercent: 20,
      travelReportedPercent: 100,
      offsetOptInPercent: 50,
      firstRegistrationAt: R.r1.registrationDate,
      lastRegistrationAt: R.r5.registrationDate,
    });
    const { engagement: _engagement, ...rest } = report;
    assert.deepEqual(rest, {
      methodology: METHODOLOGY,
      eventId: E.e1.id,
      eventName: "Spring Summit",
      status: "draft",
      category: "conference",
      startDate: "2038-01-04T09:00:00.000Z",
      endDate: "2038-01-04T17:00:00.000Z",
      attendance: {
        capacity: 10,
        registered: 5,
        active: 4,
        confirmed: 2,
        pending: 1,
        cancelled: 1,
        checkedIn: 1,
        waitlisted: 0,
        placesLeft: 6,
        capacityUtilizationPercent: 40,
        checkInRatePercent: 25,
      },
      demographics: {
        ticketTypes: [
          { value: "general", count: 3 },
          { value: "vip", count: 1 },
        ],
        companies: {
          distinct: 2,
          notGiven: 1,
          top: [
            { value: "Acme", count: 2 },
            { value: "Globex", count: 1 },
          ],
        },
        dietaryPreferences: [
          { value: "vegan", count: 2 },
          { value: "gluten-free", count: 1 },
        ],
        accessibilityNeeds: { wheelchairAccess: 1, signLanguage: 1, visualAid: 0, other: 1, anyNeed: 2 },
        travelModes: [
          { mode: "car", count: 1 },
          { mode: "flight", count: 1 },
          { mode: "train", count: 1 },
          { mode: "bus", count: 0 },
          { mode: "bike", count: 1 },
          { mode: "walk", count: 0 },
        ],
        travelNotReported: 0,
      },
      sustainability: {
        carbonFootprintKg: 209.856,
        emissionsPerAttendeeKg: 52.464,
        byTravelMode: [
          mode("car", 1, 100, 16.844, 8.026),
          mode("flight", 1, 1000, 185.92, 88.594),
          mode("train", 1, 200, 7.092, 3.379),
          mode("bus", 0, 0, 0, 0),
          mode("bike", 1, 5, 0, 0),
          mode("walk", 0, 0, 0, 0),
        ],
        offsetKg: 220,
        netEmissionsKg: 0,
        offsetCoveragePercent: 104.834,
        offsetParticipation: { count: 2, percent: 50 },
        lowCarbonTravelPercent: 50,
        sustainabilityScore: 67.5,
        goals: { carbonNeutral: true, renewableEnergy: true, wasteReduction: 50 },
        // Offsets cover the whole footprint; no electricity or waste is recorded, so those goals
        // are not measurable (null), and local sourcing waits for vendors.
        goalProgress: [
          {
            type: "carbon_neutral",
            set: true,
            met: true,
            target: null,
            metrics: { totalEmissionsKg: 209.856, offsetKg: 220, coveragePercent: 104.8 },
          },
          {
            type: "renewable_energy",
            set: true,
            met: null,
            target: null,
            metrics: { electricityKwh: 0, renewableKwh: 0, renewableSharePercent: null },
          },
          {
            type: "waste_reduction",
            set: true,
            met: null,
            target: 50,
            metrics: { wasteKg: 0, divertedKg: 0, diversionRatePercent: null, targetPercent: 50 },
          },
          {
            type: "local_sourcing",
            set: false,
            met: null,
            target: 50,
            metrics: { confirmedVendors: 0, localVendors: 0, localSharePercent: null, targetPercent: 50 },
          },
        ],
        resources: {
          measuredWasteKg: null,
          diversionRatePercent: null,
          recyclingRatePercent: null,
          measuredEnergyKwh: null,
          renewableSharePercent: null,
        },
        certifications: { carbonNeutral: true, lowCarbonTravel: false, tier: "silver" },
      },
      // Travel only: the event has no activity records.
      footprint: {
        totalEmissionsKg: 209.856,
        byKind: [{ kind: "attendee_travel", emissionsKg: 209.856, records: 4 }],
        byScope: { scope1Kg: 0, scope2Kg: 0, scope3Kg: 209.856 },
        perAttendeeKg: 52.464,
        measuredSharePercent: null,
        unpricedKinds: [],
      },
      vendors: { confirmed: 0, local: 0, localSharePercent: null, certified: 0, certifiedSharePercent: null },
      financial: {
        currency: "USD",
        offsetContributionsUsd: 3.3,
        contributors: 2,
        averageContributionUsd: 1.65,
        offsetTonnes: 0.22,
        offsetPriceUsdPerTonne: 15,
        revenue: [],
        byTicketType: [],
      },
      feedback: {
        available: false,
        reason: "The service does not collect attendee feedback yet, so there is nothing to summarise.",
        responses: 0,
        averageRating: null,
      },
    });
    // The figures agree with the event itself.
    const event = expectStatus(await a.get(`/events/${E.e1.id}`), 200);
    assert.deepEqual([event.carbonFootprint, event.sustainabilityScore, event.attendeeCount], [209.856, 67.5, 4]);
  });

  test("an event without registrations, and a cancelled event", async () => {
    const bare = await createEvent(a, {
      capacity: 3,
      startDate: "2041-01-01T00:00:00Z",
      endDate: "2041-01-01T01:00:00Z",
    });
    const report = expectStatus(await a.get(`/analytics/events/${bare.id}`), 200);
    assert.deepEqual(report.attendance, {
      capacity: 3,
      registered: 0,
      active: 0,
      confirmed: 0,
      pending: 0,
      cancelled: 0,
      checkedIn: 0,
      waitlisted: 0,
      placesLeft: 3,
      capacityUtilizationPercent: 0,
      checkInRatePercent: null,
    });
    assert.deepEqual(report.engagement, {
      checkInRatePercent: null,
      cancellationRatePercent: null,
      travelReportedPercent: null,
      offsetOptInPercent: null,
      firstRegistrationAt: null,
      lastRegistrationAt: null,
      averageLeadTimeDays: null,
    });
    assert.deepEqual(report.sustainability.certifications, {
      carbonNeutral: false,
      lowCarbonTravel: false,
      tier: null,
    });
    assert.equal(report.financial.averageContributionUsd, null);
    await a.delete(`/events/${bare.id}`);
    // Its registration was cancelled with it: nobody active, no travel in its footprint.
    const cancelled = expectStatus(await a.get(`/analytics/events/${E.e4.id}`), 200);
    assert.deepEqual(
      [
        cancelled.status,
        cancelled.attendance.active,
        cancelled.attendance.cancelled,
        cancelled.sustainability.carbonFootprintKg,
      ],
      ["cancelled", 0, 1, 0],
    );
  });

  test("goals the event did not set are set false and met null, whatever the figures, in the analytics and the report", async () => {
    const c = clientFor(server, (await server.createKey({ account: "Goals Co" })).key);
    // Figures that would meet carbon_neutral and renewable_energy and miss any waste target.
    const event = await createEvent(c, { capacity: 5, sustainabilityGoals: { localSourcing: true } });
    await moveEvent(c, event.id, "published");
    await register(c, event.id, { carbonOffset: travel("car", 100, 3) });
    for (const activity of [
      { kind: "electricity", source: "renewable_tariff", quantity: 500, unit: "kWh" },
      { kind: "waste", stream: "landfill", quantity: 80, unit: "kg" },
    ])
      expectStatus(await c.post(`/events/${event.id}/activities`, activity), 201);
    const goals = expectStatus(await c.get(`/analytics/events/${event.id}`), 200).sustainability.goalProgress;
    assert.deepEqual(
      goals.map((goal: any) => [goal.type, goal.set, goal.met, goal.target]),
      [
        ["carbon_neutral", false, null, null],
        ["renewable_energy", false, null, null],
        ["waste_reduction", false, null, null],
        ["local_sourcing", true, null, 50],
      ],
    );
    // The figures stay, so a reader sees what the goal would be judged on: 16.844 kg of travel and
    // 41.627 kg of landfilled waste, 200 kg offset.
    assert.deepEqual(goals[0].metrics, { totalEmissionsKg: 58.471, offsetKg: 200, coveragePercent: 342.1 });
    assert.deepEqual(goals[1].metrics, { electricityKwh: 500, renewableKwh: 500, renewableSharePercent: 100 });
    const report = expectStatus(await c.get(`/events/${event.id}/sustainability-report`), 200);
    assert.deepEqual(report.goals, goals);
  });

  test("unknown and foreign events are 404; the other account cannot read ours", async () => {
    expectError(await a.get("/analytics/events/evt_nope"), 404, "NOT_FOUND");
    expectError(await a.get(`/analytics/events/${E.other.id}`), 404, "NOT_FOUND");
    expectError(await b.get(`/analytics/events/${E.e1.id}`), 404, "NOT_FOUND");
    expectError(await a.get(`/analytics/events/${E.e1.id}?granularity=daily`), 400, "INVALID_REQUEST", "granularity");
  });
});

describe("GET /analytics/trends", () => {
  test("carbon emissions by quarter, with statistics, benchmark, insights and recommendations", async () => {
    const report = expectStatus(
      await a.get("/analytics/trends?metric=carbon_emissions&granularity=quarterly&includeBenchmark=true"),
      200,
    );
    assert.deepEqual(report.methodology, METHODOLOGY);
    assert.equal(report.metric, "carbon_emissions");
    assert.equal(report.unit, "kg CO2e");
    assert.equal(report.category, null);
    assert.deepEqual(report.dateRange, { startDate: "2038-01-03T18:00:00.000Z", endDate: "2038-04-01T00:00:00.000Z" });
    // E3 starts on the first instant of Q2, so it falls in Q2.
    assert.deepEqual(report.dataPoints, [
      {
        period: "2038-01-01",
        startDate: "2038-01-01T00:00:00.000Z",
        endDate: "2038-03-31T23:59:59.999Z",
        value: 213.948,
        events: 2,
      },
      {
        period: "2038-04-01",
        startDate: "2038-04-01T00:00:00.000Z",
        endDate: "2038-06-30T23:59:59.999Z",
        value: 1164.786,
        events: 1,
      },
    ]);
    assert.deepEqual(report.statistics, {
      count: 2,
      mean: 689.367,
      median: 689.367,
      standardDeviation: 475.419,
      min: 213.948,
      max: 1164.786,
      slope: 950.838,
      percentChange: 444.424,
      direction: "increasing",
    });
    assert.deepEqual(report.benchmark, {
      available: true,
      reference: 2857,
      unit: "kg CO2e per attendee",
      comparedFigure: "travel emissions per active registration over the range",
      source: report.benchmark.source,
      value: 153.193,
      difference: -2703.807,
      differencePercent: -94.638,
      position: "below",
      assessment: "better",
      note: null,
    });
    assert.match(report.benchmark.source, /Klöwer et al\. \(2020\)/);
    assert.deepEqual(
      report.insights.map((i: any) => i.type),
      ["trend", "extremes", "variability", "benchmark", "travel_mix", "offset_coverage"],
    );
    assert.equal(
      report.insights[0].message,
      "Travel emissions rose from 213.948 kg CO2e (2038-01-01) to 1164.786 kg CO2e (2038-04-01) (+444.4%); the fitted slope is +950.838 kg CO2e per quarter.",
    );
    assert.equal(report.insights[2].figures.coefficientOfVariationPercent, 68.965);
    // Flights and the car: 1,356.912 of 1,378.734 kg (98.417 %), 4 of 8 reported trips.
    assert.deepEqual(report.insights[4].figures, {
      highEmissionSharePercent: 98.417,
      highEmissionKg: 1356.912,
      emissionsKg: 1378.734,
      highEmissionTripSharePercent: 50,
    });
    assert.deepEqual(
      report.recommendations.map((r: any) => r.type),
      ["worsening_trend", "travel_mix", "offset_gap"],
    );
    // 1,058.734 kg not offset: 15.881 USD at 15 USD per tonne.
    assert.deepEqual(report.recommendations[2].figures, {
      gapKg: 1058.734,
      gapUsd: 15.881,
      offsetCoveragePercent: 23.21,
    });
  });

  test("attendance by month over a range: empty months null, statistics over the months with data", async () => {
    const report = expectStatus(
      await server.request(
        "GET",
        "/api/analytics/trends?metric=attendance&granularity=monthly&startDate=2038-01-01&endDate=2038-04-30",
        { key: a.key },
      ),
      200,
    );
    assert.deepEqual(
      report.dataPoints.map((p: any) => [p.period, p.value, p.events]),
      [
        ["2038-01-01", 6, 2],
        ["2038-02-01", null, 0],
        ["2038-03-01", null, 0],
        ["2038-04-01", 3, 1],
      ],
    );
    // Points at months 0 and 3: slope (3 - 6) / 3 = -1 per month.
    assert.deepEqual(report.statistics, {
      count: 2,
      mean: 4.5,
      median: 4.5,
      standardDeviation: 1.5,
      min: 3,
      max: 6,
      slope: -1,
      percentChange: -50,
      direction: "decreasing",
    });
    assert.equal(report.benchmark, null);
    // Attendance has no good or bad direction: no worsening-trend advice.
    assert.deepEqual(report.recommendations, []);
  });

  test("waste reduction by ISO week, with the benchmark: below the EU target", async () => {
    const report = expectStatus(
      await a.get("/analytics/trends?metric=waste_reduction&granularity=weekly&includeBenchmark=true"),
      200,
    );
    const withData = report.dataPoints.filter((p: any) => p.value !== null).map((p: any) => [p.period, p.value]);
    assert.deepEqual(withData, [
      ["2037-12-28", 0],
      ["2038-01-04", 50],
      ["2038-03-29", 20],
    ]);
    assert.equal(report.dataPoints.length, 14);
    // Values 0, 50, 20 at weeks 0, 1, 13: slope -0.159 per week; first value 0, so no percent change.
    assert.deepEqual(report.statistics, {
      count: 3,
      mean: 23.333,
      median: 20,
      standardDeviation: 20.548,
      min: 0,
      max: 50,
      slope: -0.159,
      percentChange: null,
      direction: "decreasing",
    });
    assert.deepEqual(
      [
        report.benchmark.value,
        report.benchmark.reference,
        report.benchmark.differencePercent,
        report.benchmark.assessment,
      ],
      [23.333, 55, -57.576, "worse"],
    );
    assert.deepEqual(
      report.recommendations.map((r: any) => r.type),
      ["worsening_trend", "waste_targets"],
    );
    assert.deepEqual(report.recommendations[1].figures, {
      meanTargetPercent: 23.333,
      reference: 55,
      eventsWithTarget: 2,
      events: 3,
    });
  });

  test("energy usage and offset participation", async () => {
    const energy = expectStatus(await a.get("/analytics/trends?metric=energy_usage&granularity=quarterly"), 200);
    assert.deepEqual(
      energy.dataPoints.map((p: any) => p.value),
      [50, 0],
    );
    assert.deepEqual(
      energy.recommendations.map((r: any) => [r.type, r.figures]),
      [
        ["worsening_trend", { direction: "decreasing", slope: -50, percentChange: -100 }],
        ["renewable_energy", { eventsWithoutGoal: 2, events: 3 }],
      ],
    );
    const offsets = expectStatus(
      await a.get("/analytics/trends?metric=offset_participation&granularity=quarterly&includeBenchmark=true"),
      200,
    );
    // Q1: r1, r3, r6 of 6; Q2: r8 of 3. Over the range 4 of 9 = 44.444 % against 3 %.
    assert.deepEqual(
      offsets.dataPoints.map((p: any) => p.value),
      [50, 33.333],
    );
    assert.deepEqual(
      [offsets.benchmark.value, offsets.benchmark.position, offsets.benchmark.assessment],
      [44.444, "above", "better"],
    );
    assert.deepEqual(
      offsets.recommendations.map((r: any) => r.type),
      ["worsening_trend", "offset_gap", "offset_uptake"],
    );
  });

  test("category filter; fewer than two periods with data is INSUFFICIENT_DATA", async () => {
    const conferences = expectStatus(
      await a.get("/analytics/trends?metric=attendance&granularity=quarterly&category=conference"),
      200,
    );
    assert.equal(conferences.category, "conference");
    assert.deepEqual(
      conferences.dataPoints.map((p: any) => p.value),
      [4, 3],
    );
    const meetups = expectError(
      await a.get("/analytics/trends?metric=attendance&category=meetup"),
      400,
      "INSUFFICIENT_DATA",
    );
    assert.deepEqual([meetups.details.dataPoints, meetups.details.required], [1, 2]);
    expectError(await a.get("/analytics/trends?granularity=quarterly&startDate=2039-01-01"), 400, "INSUFFICIENT_DATA");
    const empty = clientFor(server, (await server.createKey({ account: "Empty Trends" })).key);
    expectError(await empty.get("/analytics/trends"), 400, "INSUFFICIENT_DATA");
    // The other account's single event is never mixed into ours, nor ours into theirs.
    expectError(await b.get("/analytics/trends?granularity=daily"), 400, "INSUFFICIENT_DATA");
  });

  test("errors: reversed range, too many buckets, unknown metric, granularity, switch, parameter", async () => {
    expectError(
      await a.get("/analytics/trends?startDate=2038-05-01&endDate=2038-04-30"),
      400,
      "INVALID_DATE_RANGE",
      "startDate",
    );
    expectError(
      await a.get("/analytics/trends?granularity=daily&startDate=2038-01-01&endDate=2039-06-30"),
      400,
      "INVALID_DATE_RANGE",
    );
    // Without a range the default (the events' span) is checked the same way: 88 days is fine daily.
    expectStatus(await a.get("/analytics/trends?granularity=daily"), 200);
    expectError(await a.get("/analytics/trends?metric=co2"), 400, "INVALID_REQUEST", "metric");
    expectError(await a.get("/analytics/trends?granularity=total"), 400, "INVALID_REQUEST", "granularity");
    expectError(await a.get("/analytics/trends?includeBenchmark=yes"), 400, "INVALID_REQUEST", "includeBenchmark");
    expectError(await a.get("/analytics/trends?eventIds=x"), 400, "INVALID_REQUEST", "eventIds");
  });
});

describe("the ends of the calendar", () => {
  test("events in the last days of 9999 and the first of 0000: every granularity answers, periods clamped to those years", async () => {
    const edge = clientFor(server, (await server.createKey({ account: `Calendar ends ${Date.now()}` })).key);
    for (const startDate of [
      "9999-12-30T10:00:00Z",
      "9999-12-31T10:00:00Z",
      "0000-01-01T10:00:00Z",
      "0000-01-04T10:00:00Z",
    ]) {
      // Registered while still to come, then dated at the edge: an event that has ended takes no registrations.
      const event = await createEvent(edge, { name: `At ${startDate}`, capacity: 5, location });
      await register(edge, event.id, { carbonOffset: travel("train", 100) });
      const dates = { startDate, endDate: startDate.replace("T10", "T11") };
      expectStatus(await edge.put(`/events/${event.id}`, dates), 200);
    }
    const end = expectStatus(
      await edge.get("/analytics/sustainability?granularity=weekly&startDate=9999-12-01&endDate=9999-12-31"),
      200,
    );
    assert.deepEqual(end.trend.map((t: { period: string }) => t.period).slice(-2), ["9999-12-20", "9999-12-27"]);
    assert.equal(end.trend.at(-1).endDate, "9999-12-31T23:59:59.999Z");
    const days = expectStatus(
      await edge.get("/analytics/trends?metric=attendance&granularity=daily&startDate=9999-12-30&endDate=9999-12-31"),
      200,
    );
    assert.deepEqual(
      days.dataPoints.map((p: { value: number }) => p.value),
      [1, 1],
    );
    const start = expectStatus(
      await edge.get("/analytics/sustainability?startDate=0000-01-01&endDate=0000-01-20&granularity=weekly"),
      200,
    );
    assert.deepEqual(
      start.trend.map((t: { period: string }) => t.period),
      ["0000-01-01", "0000-01-03", "0000-01-10", "0000-01-17"],
    );
    assert.equal(start.trend[0].startDate, "0000-01-01T00:00:00.000Z");
    expectStatus(
      await edge.get("/analytics/sustainability?startDate=9999-12-01&endDate=9999-12-31&granularity=daily"),
      200,
    );
    // Their whole span, 10,000 years, is far more than 366 quarters.
    expectError(
      await edge.get("/analytics/trends?metric=carbon_emissions&granularity=quarterly"),
      400,
      "INVALID_DATE_RANGE",
    );
  });
});

describe("access", () => {
  test("analytics need the analytics:read scope, and only that", async () => {
    const eventsOnly = clientFor(
      server,
      (await server.createKey({ account: "Analytics Co", scopes: ["events:read", "attendees:read"] })).key,
    );
    const analyticsOnly = clientFor(
      server,
      (await server.createKey({ account: "Analytics Co", scopes: ["analytics:read"] })).key,
    );
    for (const path of [
      "/analytics/sustainability",
      `/analytics/events/${E.e1.id}`,
      "/analytics/trends?granularity=quarterly",
    ]) {
      const refused = expectError(await eventsOnly.get(path), 403, "FORBIDDEN");
      assert.equal(refused.details.requiredScope, "analytics:read");
      expectStatus(await analyticsOnly.get(path), 200);
      expectError(await server.request("GET", `/v1${path}`), 401, "UNAUTHORIZED");
    }
    expectError(await analyticsOnly.get("/events"), 403, "FORBIDDEN");
  });
});

describe("configuration", () => {
  test("CARBON_OFFSET_PRICE_USD_PER_TONNE sets the price offsets convert at", async () => {
    const priced = await startServer({ env: { CARBON_OFFSET_PRICE_USD_PER_TONNE: "30" } });
    try {
      const client = clientFor(priced, (await priced.createKey({ account: "Priced" })).key);
      const event = await createEvent(client, {
        location,
        startDate: "2038-01-04T09:00:00Z",
        endDate: "2038-01-04T17:00:00Z",
        sustainabilityGoals: {},
      });
      await register(client, event.id, { carbonOffset: travel("car", 100, 3) });
      // 3 USD at 30 USD per tonne = 100 kg against 16.844 kg: covered; at the default 15 it would be 200 kg.
      const report = expectStatus(await client.get(`/analytics/events/${event.id}`), 200);
      assert.deepEqual(
        [report.sustainability.offsetKg, report.financial.offsetTonnes, report.financial.offsetPriceUsdPerTonne],
        [100, 0.1, 30],
      );
      const totals = expectStatus(await client.get("/analytics/sustainability"), 200);
      assert.equal(totals.carbonFootprint.totalOffsetKg, 100);
    } finally {
      assert.equal(await priced.stop(), 0);
    }
  });
});
