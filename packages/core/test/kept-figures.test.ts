/**
 * One definition of an event's figures: what the storage keeps on the event row (the sum of
 * `contributionOf` increments, in JavaScript), the SQL twin `contributionSql` summed over the
 * registration rows (what analytics and the migration's backfill use), and `contributionOf`
 * summed over the stored registrations agree, through registrations, updates of travel and
 * offsets, cancellations, re-activations, check-ins and erasures of many kinds.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import Database from "better-sqlite3";
import { Kysely, sql, SqliteDialect } from "kysely";
import { createConfirmationCode, createId } from "../src/_internal/ids.ts";
import { contributionOf, type KeptFigures, NO_FIGURES } from "../src/rules/kept-figures.ts";
import { DEFAULT_EMISSION_FACTORS, EmissionFactorSet, TRAVEL_MODES } from "../src/carbon/emission-factors.ts";
import { type AttendeeRecord, AttendeeListQuery, newAttendeeRecord } from "../src/resources/attendee.ts";
import { type EventRecord, newEventRecord } from "../src/resources/event.ts";
import { contributionSql, KEPT_FIGURE_COLUMNS } from "../src/sql/carbon-sql.ts";
import { DEFAULT_CARBON_SETTINGS } from "../src/carbon/carbon-settings.ts";
import type { Database as Schema } from "../src/sql/database.ts";
import { SQLITE_PRAGMAS } from "../src/sql/dialect.ts";
import { rowToKeptFigures } from "../src/sql/rows.ts";
import { createSqlStorage } from "../src/sql/sql-storage.ts";
import { ERASED_ANSWER } from "../src/storage/erasure.ts";
import { checkIn, eraseAttendee, insertEvent, registerAttendee, updateAttendee } from "./_transactions.ts";

const NOW = "2038-01-01T00:00:00.000Z";

/** A deterministic pseudo-random sequence, so that a failure can be replayed. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

function assertSameFigures(actual: KeptFigures, expected: KeptFigures, what: string) {
  assert.equal(actual.activeRegistrations, expected.activeRegistrations, `${what}: active registrations`);
  assert.equal(actual.travelReported, expected.travelReported, `${what}: travel reported`);
  assert.equal(actual.lowCarbonTravel, expected.lowCarbonTravel, `${what}: low-carbon travel`);
  assert.equal(actual.waitlisted, expected.waitlisted, `${what}: waitlisted`);
  assert.ok(
    Math.abs(actual.emissionsKg - expected.emissionsKg) < 1e-6,
    `${what}: emissions ${actual.emissionsKg} vs ${expected.emissionsKg}`,
  );
  assert.ok(
    Math.abs(actual.offsetUsd - expected.offsetUsd) < 1e-6,
    `${what}: offsets ${actual.offsetUsd} vs ${expected.offsetUsd}`,
  );
}

/** A set with bands on a second mode and factors unlike the default's, so a set that did not reach one of the three would show. */
const BANDED = EmissionFactorSet.parse({
  name: "Banded",
  year: 2030,
  source: "test",
  factors: [
    { mode: "car", factor: 0.3 },
    { mode: "flight", factor: 0.4, maxDistanceKm: 800 },
    { mode: "flight", factor: 0.2 },
    { mode: "train", factor: 0.02 },
    { mode: "bus", factor: 0.09, maxDistanceKm: 100 },
    { mode: "bus", factor: 0.07, maxDistanceKm: 2000 },
    { mode: "bus", factor: 0.05 },
    { mode: "bike", factor: 0.001 },
    { mode: "walk", factor: 0 },
  ],
});

for (const factors of [DEFAULT_EMISSION_FACTORS, BANDED])
  test(`the kept figures, their SQL twin and contributionOf agree through every kind of change (${factors.name})`, async () => {
    const database = new Database(":memory:");
    for (const pragma of SQLITE_PRAGMAS) database.pragma(pragma);
    const db = new Kysely<Schema>({ dialect: new SqliteDialect({ database }) });
    const storage = createSqlStorage({ db, emissionFactors: factors });
    await storage.migrate();
    const { accountId } = await storage.createApiKey({
      id: createId("apiKey"),
      account: "Figures",
      newAccountId: createId("account"),
      hash: createId("apiKey"),
      prefix: "esk_x…",
      tier: "free",
      scopes: [],
      now: NOW,
    });
    // Published: the door is open, so check-ins are among the changes.
    const event: EventRecord = {
      ...newEventRecord(
        {
          name: "Figures",
          description: null,
          location: { address: "A 1", city: "Berlin", country: "DE" },
          startDate: "2038-05-01T09:00:00.000Z",
          endDate: "2038-05-01T17:00:00.000Z",
          capacity: 500,
          category: "conference",
        },
        { id: createId("event"), accountId, now: NOW },
      ),
      status: "published",
    };
    await insertEvent(storage, event);
    const next = random(42);
    const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)]!;
    const carbonOffset = () => {
      const mode = next() < 0.15 ? undefined : pick(TRAVEL_MODES);
      const opted = next() < 0.5;
      return {
        opted,
        ...(opted && next() < 0.8 && { amount: Math.round(next() * 5000) / 100 }),
        ...(mode && { travelMode: mode, travelDistance: Math.round(next() * 900000) / 100 }),
      };
    };

    const kept = async () =>
      rowToKeptFigures(
        await db.selectFrom("events").select(KEPT_FIGURE_COLUMNS).where("id", "=", event.id).executeTakeFirstOrThrow(),
      );
    const recounted = async () => {
      const contribution = contributionSql(factors);
      const row = await db
        .selectFrom("attendees")
        .select(
          Object.entries(contribution).map(([column, value]) =>
            sql<number>`coalesce(sum(${value}), 0)`.as(column),
          ) as never,
        )
        .where("event_id", "=", event.id)
        .executeTakeFirstOrThrow();
      return rowToKeptFigures(row as never);
    };
    const summed = async () => {
      const { items } = await storage.listAttendees(
        accountId,
        AttendeeListQuery.parse({ eventId: event.id, limit: "100" }),
      );
      return items
        .map((item) => contributionOf(item, factors))
        .reduce(
          (total, c) => ({
            activeRegistrations: total.activeRegistrations + c.activeRegistrations,
            emissionsKg: total.emissionsKg + c.emissionsKg,
            offsetUsd: total.offsetUsd + c.offsetUsd,
            travelReported: total.travelReported + c.travelReported,
            lowCarbonTravel: total.lowCarbonTravel + c.lowCarbonTravel,
            waitlisted: total.waitlisted + c.waitlisted,
          }),
          { ...NO_FIGURES },
        );
    };
    const check = async (what: string) => {
      const [onRow, inSql, inJs] = await Promise.all([kept(), recounted(), summed()]);
      assertSameFigures(onRow, inSql, `${what}, kept vs SQL recount`);
      assertSameFigures(inJs, inSql, `${what}, contributionOf vs SQL recount`);
      return onRow;
    };

    const registered: AttendeeRecord[] = [];
    for (let i = 0; i < 60; i++) {
      const record = newAttendeeRecord(
        {
          eventId: event.id,
          firstName: "Ada",
          lastName: `L${i}`,
          email: `a${i}@example.com`,
          ticketType: "general",
          carbonOffset: carbonOffset(),
        },
        { id: createId("attendee"), accountId, confirmationCode: createConfirmationCode(), now: NOW },
      );
      registered.push(await registerAttendee(storage, record));
    }
    const afterRegistrations = await check("after registrations");
    assert.equal(afterRegistrations.activeRegistrations, 60);
    assert.ok(
      afterRegistrations.emissionsKg > 0 && afterRegistrations.offsetUsd > 0 && afterRegistrations.lowCarbonTravel > 0,
    );

    for (const [index, attendee] of registered.entries()) {
      if (index % 5 === 0) await updateAttendee(storage, accountId, attendee.id, { carbonOffset: carbonOffset() }, NOW);
      if (index % 7 === 0) await updateAttendee(storage, accountId, attendee.id, { status: "cancelled" }, NOW);
      if (index % 11 === 0)
        await checkIn(storage, accountId, event.id, attendee.confirmationCode, NOW).catch(() => undefined);
    }
    await check("after updates, cancellations and check-ins");
    for (const [index, attendee] of registered.entries()) {
      if (index % 14 === 0)
        await updateAttendee(
          storage,
          accountId,
          attendee.id,
          { status: "confirmed", carbonOffset: carbonOffset() },
          NOW,
        );
      if (index % 9 === 4) await eraseAttendee(storage, accountId, attendee.id, { now: NOW, replay: ERASED_ANSWER });
    }
    const final = await check("after re-activations and erasures");
    assert.ok(final.activeRegistrations < 60 && final.activeRegistrations > 40);
    // The event's figures as the API shows them are the kept ones.
    const shown = await storage.getEvent(accountId, event.id, DEFAULT_CARBON_SETTINGS);
    assert.equal(shown!.attendeeCount, final.activeRegistrations);
    assert.equal(shown!.carbonFootprint, Math.round(final.emissionsKg * 1000) / 1000);
    await storage.close();
  });
