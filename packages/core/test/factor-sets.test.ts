/**
 * Factor sets by year: the rule that picks an event's set (its start's year, else the latest
 * earlier set, else the earliest), the bundled set when none is given, two sets of one year
 * refused; and on every backend, each event priced by its own set (registrations and activity
 * records alike), an event whose start moves to another set's year priced again in its update,
 * a start with a new set pricing again only the events whose set changes, and the analytics
 * naming the set per event and the sets of several events.
 * The scenario (2031 by the default, a 2032 set) runs ten years on, 2041 and 2042, so
 * its events stay ahead of the test's clock as the suite's dates must.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { DEFAULT_EMISSION_FACTORS } from "../src/carbon/emission-factors.ts";
import { createFactorSets, startYear } from "../src/carbon/factor-sets.ts";
import { createEventService } from "../src/service.ts";
import { createSqlStorage } from "../src/sql/sql-storage.ts";
import { BACKENDS } from "./_backends.ts";
import { syntheticSet } from "./_factor-set-fixture.ts";
import { EVENT } from "./_fixtures.ts";

const DESNZ_2023 = {
  name: DEFAULT_EMISSION_FACTORS.name,
  year: 2023,
  source: DEFAULT_EMISSION_FACTORS.source,
};

describe("choosing an event's set", () => {
  test("its start's year, else the latest earlier set, else the earliest", () => {
    const sets = createFactorSets([syntheticSet(2042, 1), DEFAULT_EMISSION_FACTORS, syntheticSet(2036, 2)]);
    assert.deepEqual(
      sets.all.map((set) => set.year),
      [2023, 2036, 2042],
    );
    assert.equal(sets.latest.year, 2042);
    const yearOf = (year: number) => sets.forYear(year).year;
    assert.deepEqual(
      [2020, 2023, 2035, 2036, 2041, 2042, 2050].map(yearOf),
      [2023, 2023, 2023, 2036, 2036, 2042, 2042],
    );
    assert.equal(sets.forStart("2041-12-31T23:59:59.999Z").year, 2036);
    assert.equal(sets.forStart("2042-01-01T00:00:00.000Z").year, 2042);
    assert.equal(startYear("2042-05-01T09:00:00.000Z"), 2042);
    assert.equal(sets.ofYear(2035), undefined);
    // The set recorded with the figures, else (none, or gone) the one the start falls to.
    assert.equal(sets.pricedBy(2036, "2050-01-01T00:00:00.000Z").year, 2036);
    assert.equal(sets.pricedBy(2039, "2050-01-01T00:00:00.000Z").year, 2042);
    assert.equal(sets.pricedBy(null, "2037-01-01T00:00:00.000Z").year, 2036);
  });

  test("without sets given, the bundled set alone; given, the sets given (the bundled one when among them)", () => {
    assert.deepEqual(
      createFactorSets().all.map((set) => set.year),
      [2023],
    );
    assert.deepEqual(
      createFactorSets([]).all.map((set) => set.year),
      [2023],
    );
    const own = createFactorSets([syntheticSet(2042, 1)]);
    assert.deepEqual(
      own.all.map((set) => set.name),
      ["Synthetic 2042"],
    );
    // Before the only set: the earliest (it), so a deployment with one set of its own prices every event by it.
    assert.equal(own.forYear(2020).name, "Synthetic 2042");
  });

  test("two sets of one year are refused, naming both", () => {
    assert.throws(
      () =>
        createFactorSets(
          [syntheticSet(2042, 1), syntheticSet(2040, 1), syntheticSet(2042, 2)],
          ["a.json", "b.json", "c.json"],
        ),
      (error: unknown) =>
        error instanceof Error &&
        error.message === "two factor sets of the year 2042: a.json and c.json (give one set per year)",
    );
    assert.throws(() => createFactorSets([syntheticSet(2042, 1), syntheticSet(2042, 1)]), /set 1 .* and set 2 /);
  });
});

for (const backend of BACKENDS) {
  describe(`each event priced by its year's set: ${backend.name}`, () => {
    test("the default and a 2042 set: 2041 by the default, 2042 by its own; a move prices again; the 2041 event untouched by the new set", async () => {
      const database = await backend.open();
      try {
        // The deployment starts with the bundled set alone.
        const before = createSqlStorage({ db: database.db, emissionFactors: [] });
        await before.migrate();
        const service = createEventService({ storage: before });
        const { accountId } = await service.keys.create({ account: "Festival" });
        const account = service.forAccount(accountId);
        const season = (year: number) =>
          account.events.create({
            ...EVENT,
            name: `Festival ${year}`,
            startDate: `${year}-06-20T10:00:00.000Z`,
            endDate: `${year}-06-22T22:00:00.000Z`,
          });
        const priced = async (eventId: string) => {
          await account.attendees.register({
            eventId,
            firstName: "A",
            lastName: "B",
            email: `${eventId}@example.com`,
            ticketType: "general",
            carbonOffset: { opted: false, travelMode: "car", travelDistance: 100 },
          });
          await account.activities.create(eventId, { kind: "fuel", quantity: 100, unit: "litres", fuel: "diesel" });
        };
        const e2041 = await season(2041);
        const e2042 = await season(2042);
        await priced(e2041.id);
        await priced(e2042.id);
        // DESNZ 2023: car 0.16844 per km, diesel 2.51206 per litre.
        const DEFAULT_TRAVEL = 16.844;
        const DEFAULT_FUEL = 251.206;
        const footprintOf = async (ops: typeof account, id: string) => {
          const analytics = await ops.analytics.event(id);
          return {
            carbonFootprint: (await ops.events.get(id)).carbonFootprint,
            total: analytics.footprint.totalEmissionsKg,
            set: analytics.methodology.emissionFactors.name,
          };
        };
        const default2041 = await footprintOf(account, e2041.id);
        assert.deepEqual(default2041, {
          carbonFootprint: DEFAULT_TRAVEL,
          total: DEFAULT_TRAVEL + DEFAULT_FUEL,
          set: DESNZ_2023.name,
        });
        assert.deepEqual(await footprintOf(account, e2042.id), default2041);

        // The 2041 event's kept emissions marked: a start that prices it again would overwrite them.
        await database.db.updateTable("events").set({ emissions_kg: 12345 }).where("id", "=", e2041.id).execute();
        const storage = createSqlStorage({
          db: database.db,
          emissionFactors: [DEFAULT_EMISSION_FACTORS, syntheticSet(2042, 1)],
        });
        await storage.migrate();
        const marked = await database.db
          .selectFrom("events")
          .select(["emissions_kg", "factor_year"])
          .where("id", "=", e2041.id)
          .executeTakeFirstOrThrow();
        assert.deepEqual([Number(marked.emissions_kg), Number(marked.factor_year)], [12345, 2023]);
        await database.db
          .updateTable("events")
          .set({ emissions_kg: DEFAULT_TRAVEL })
          .where("id", "=", e2041.id)
          .execute();

        const after = createEventService({ storage }).forAccount(accountId);
        assert.deepEqual(await footprintOf(after, e2041.id), default2041, "the 2041 event keeps its figures");
        // 100 km x 1; 100 litres x 10.
        assert.deepEqual(await footprintOf(after, e2042.id), {
          carbonFootprint: 100,
          total: 1100,
          set: "Synthetic 2042",
        });
        const diesel = (await after.activities.list(e2042.id, {})).activities[0]!;
        assert.deepEqual(
          [diesel.emissionsKg, diesel.factor?.name, diesel.factor?.year],
          [1000, "Synthetic diesel 2042", 2042],
        );
        assert.deepEqual((await after.analytics.event(e2042.id)).methodology, {
          emissionFactors: { name: "Synthetic 2042", year: 2042, source: "The test suite" },
          offsetPriceUsdPerTonne: 15,
        });

        // Across both seasons: the sets named with their events, the latest in emissionFactors.
        const both = await after.analytics.sustainability({});
        assert.deepEqual(both.methodology, {
          emissionFactors: { name: "Synthetic 2042", year: 2042, source: "The test suite" },
          factorSets: [
            { ...DESNZ_2023, events: 1 },
            { name: "Synthetic 2042", year: 2042, source: "The test suite", events: 1 },
          ],
          offsetPriceUsdPerTonne: 15,
        });
        assert.equal(both.carbonFootprint.totalEmissionsKg, DEFAULT_TRAVEL + 100);
        assert.equal(
          both.carbonFootprint.byTravelMode.find((m) => m.mode === "car")?.emissionsKg,
          DEFAULT_TRAVEL + 100,
        );
        // One season: one set, no list.
        const one = await after.analytics.sustainability({ eventIds: e2041.id });
        assert.deepEqual(one.methodology, { emissionFactors: DESNZ_2023, offsetPriceUsdPerTonne: 15 });

        // The set a year uses.
        assert.equal(after.analytics.emissionFactors().name, "Synthetic 2042");
        assert.equal(after.analytics.emissionFactors({ year: 2042 }).name, "Synthetic 2042");
        assert.equal(after.analytics.emissionFactors({ year: 2041 }).name, DESNZ_2023.name);
        assert.equal(after.analytics.emissionFactors({ year: 1999 }).name, DESNZ_2023.name);

        // Moved to 2041, the 2042 season is priced by the default in its update; and back.
        const moved = await after.events.update(e2042.id, {
          startDate: "2041-09-01T10:00:00.000Z",
          endDate: "2041-09-02T10:00:00.000Z",
        });
        assert.equal(moved.carbonFootprint, DEFAULT_TRAVEL);
        assert.deepEqual(await footprintOf(after, e2042.id), default2041);
        assert.equal((await after.activities.list(e2042.id, {})).activities[0]!.emissionsKg, DEFAULT_FUEL);
        const back = await after.events.update(e2042.id, {
          startDate: "2042-09-01T10:00:00.000Z",
          endDate: "2042-09-02T10:00:00.000Z",
        });
        assert.equal(back.carbonFootprint, 100);
        // A registration after the move adds by the event's new set.
        await after.attendees.register({
          eventId: e2042.id,
          firstName: "C",
          lastName: "D",
          email: "late@example.com",
          ticketType: "general",
          carbonOffset: { opted: false, travelMode: "car", travelDistance: 50 },
        });
        assert.equal((await after.events.get(e2042.id)).carbonFootprint, 150);
        // A move within the set's years prices nothing again.
        await database.db.updateTable("events").set({ emissions_kg: 12345 }).where("id", "=", e2041.id).execute();
        await after.events.update(e2041.id, {
          startDate: "2041-01-05T10:00:00.000Z",
          endDate: "2041-01-06T10:00:00.000Z",
        });
        assert.equal((await after.events.get(e2041.id)).carbonFootprint, 12345);

        // The same sets again: a start with nothing to do writes nothing.
        await createSqlStorage({
          db: database.db,
          emissionFactors: [DEFAULT_EMISSION_FACTORS, syntheticSet(2042, 1)],
        }).migrate();
        assert.equal((await after.events.get(e2041.id)).carbonFootprint, 12345);
        // The 2042 set's factors changed: its events are priced again, the others not.
        await createSqlStorage({
          db: database.db,
          emissionFactors: [DEFAULT_EMISSION_FACTORS, syntheticSet(2042, 3)],
        }).migrate();
        assert.equal((await after.events.get(e2041.id)).carbonFootprint, 12345);
        assert.equal((await after.events.get(e2042.id)).carbonFootprint, 450);
        // The 2042 set taken away: its events fall to the default again.
        await createSqlStorage({ db: database.db, emissionFactors: [] }).migrate();
        assert.equal((await after.events.get(e2042.id)).carbonFootprint, Math.round(150 * 0.16844 * 1000) / 1000);
        assert.equal((await after.events.get(e2041.id)).carbonFootprint, 12345);
      } finally {
        await database.drop();
      }
    });

    test("a start pricing events again while another process registers for them: each event's kept emissions are its registrations'", {
      skip: !backend.parallel && "one process's connections take turns: nothing runs meanwhile",
    }, async () => {
      const database = await backend.open();
      try {
        const sets = [DEFAULT_EMISSION_FACTORS, syntheticSet(2042, 1)];
        const before = createSqlStorage({ db: database.db, emissionFactors: [] });
        await before.migrate();
        // A process already on the new sets (it found no event to price at its start).
        const serving = await database.another({ emissionFactors: sets });
        const old = createEventService({ storage: before });
        const { accountId } = await old.keys.create({ account: "Festival" });
        const account = old.forAccount(accountId);
        const events = await Promise.all(
          [1, 2, 3].map((n) =>
            account.events.create({
              ...EVENT,
              name: `Stage ${n}`,
              capacity: 1000,
              startDate: "2042-06-20T10:00:00.000Z",
              endDate: "2042-06-22T22:00:00.000Z",
            }),
          ),
        );
        let n = 0;
        const register = (ops: typeof account, eventId: string) =>
          ops.attendees.register({
            eventId,
            firstName: "A",
            lastName: "B",
            email: `p${n++}@example.com`,
            ticketType: "general",
            carbonOffset: { opted: false, travelMode: "car", travelDistance: 10 + (n % 7) },
          });
        for (const event of events) for (let i = 0; i < 10; i++) await register(account, event.id);
        // The events were priced by the bundled set (the old process's only one); the new sets
        // price them by 2042's. This process starts while the serving one registers.
        const now = createEventService({ storage: serving, emissionFactors: sets }).forAccount(accountId);
        await Promise.all([
          createSqlStorage({ db: database.db, emissionFactors: sets }).migrate(),
          ...events.flatMap((event) => Array.from({ length: 15 }, () => register(now, event.id))),
        ]);
        for (const event of events) {
          const rows = await database.db
            .selectFrom("attendees")
            .select("travel_distance")
            .where("event_id", "=", event.id)
            .execute();
          // 2042's car factor is 1 per km.
          const expected = rows.reduce((sum, row) => sum + Number(row.travel_distance), 0);
          assert.equal(rows.length, 25);
          assert.equal((await now.events.get(event.id)).carbonFootprint, expected, event.name);
        }
      } finally {
        await database.drop();
      }
    });
  });
}
