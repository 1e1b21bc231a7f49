/**
 * The tallies an event keeps of its registrations' values: the definition (`talliesOf`,
 * `travelTallyOf` and their changes) on hand-made registrations, and on every backend the
 * stored tallies after a random walk of changes through the business transactions, which must
 * equal both the definition summed over the registrations left and the storage's SQL recount.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createId } from "../src/_internal/ids.ts";
import {
  DEFAULT_EMISSION_FACTORS,
  type EmissionFactorSet,
  TRAVEL_MODES,
  type TravelMode,
} from "../src/carbon/emission-factors.ts";
import { createSqlStorage } from "../src/sql/sql-storage.ts";
import { type AttendeeCreate, AttendeeListQuery, type AttendeeRecord } from "../src/resources/attendee.ts";
import { newEventRecord } from "../src/resources/event.ts";
import {
  epochDays,
  type Tally,
  type TravelTally,
  tallyChange,
  talliesOf,
  travelTallyChange,
  travelTallyOf,
} from "../src/rules/kept-tallies.ts";
import { ERASED_ANSWER } from "../src/storage/erasure.ts";
import { BACKENDS } from "./_backends.ts";
import { newAccount } from "./_service-transactions-outbox.ts";
import { attendeeRecord } from "./_service-transactions.ts";
import {
  checkIn,
  deleteEvent,
  eraseAttendee,
  insertEvent,
  registerAttendee,
  updateAttendee,
  updateEvent,
} from "./_transactions.ts";

let clock = Date.parse("2038-03-01T08:00:00.000Z");
const tick = () => new Date((clock += 61_000)).toISOString();

/** A new registration (registered a second after the last), of a placeholder account and event unless given. */
const registration = (overrides: Partial<AttendeeCreate> = {}, accountId = "acct", eventId = "evt") =>
  attendeeRecord(accountId, eventId, overrides);

const keyOf = (t: Pick<Tally, "facet" | "value">) => `${t.facet}=${t.value}`;

describe("the definition", () => {
  test("an active registration counts its status, ticket, company, each diet and each need with `any`", () => {
    const ada = registration({
      ticketType: "vip",
      company: "Analytical Engines",
      dietaryPreferences: ["vegan", "gluten-free"],
      accessibilityNeeds: { wheelchairAccess: true, signLanguage: false, other: "quiet room" },
    });
    const days = epochDays(ada.registrationDate);
    assert.equal(days, Date.parse(ada.registrationDate) / 86_400_000);
    assert.deepEqual(
      talliesOf(ada).map((t) => [keyOf(t), t.registrations, t.registeredDays]),
      [
        ["status=confirmed", 1, days],
        ["ticket=vip", 1, days],
        ["company=Analytical Engines", 1, days],
        ["diet=vegan", 1, days],
        ["diet=gluten-free", 1, days],
        ["need=wheelchairAccess", 1, days],
        ["need=other", 1, days],
        ["need=any", 1, days],
      ],
    );
  });

  test("a registration that is not active counts its status only; none, nothing", () => {
    const cancelled = {
      ...registration({ company: "X", dietaryPreferences: ["vegan"] }),
      status: "cancelled" as const,
    };
    assert.deepEqual(talliesOf(cancelled).map(keyOf), ["status=cancelled"]);
    assert.deepEqual(talliesOf(null), []);
    assert.equal(travelTallyOf(cancelled), null);
  });

  test("a change moves only what differs", () => {
    const before = registration({ company: "Acme", dietaryPreferences: ["vegan"], ticketType: "general" });
    const after = { ...before, company: "Globex", dietaryPreferences: ["vegan", "halal"] };
    assert.deepEqual(
      tallyChange(before, after)
        .map((t) => [keyOf(t), t.registrations])
        .sort(),
      [
        ["company=Acme", -1],
        ["company=Globex", 1],
        ["diet=halal", 1],
      ],
    );
    assert.deepEqual(tallyChange(before, { ...before, firstName: "Grace" }), []);
    // Cancelled: every active value goes, the status moves.
    assert.deepEqual(
      tallyChange(before, { ...before, status: "cancelled" })
        .map((t) => [keyOf(t), t.registrations])
        .sort(),
      [
        ["company=Acme", -1],
        ["diet=vegan", -1],
        ["status=cancelled", 1],
        ["status=confirmed", -1],
        ["ticket=general", -1],
      ],
    );
  });

  test("travel: by mode and band of its factors, with distance, emissions and offsets", () => {
    const flight = registration({
      carbonOffset: { travelMode: "flight", travelDistance: 1200, opted: true, amount: 25 },
    });
    assert.deepEqual(travelTallyOf(flight), {
      mode: "flight",
      band: 1,
      registrations: 1,
      distanceKm: 1200,
      // 1,200 km at the DESNZ 2023 short-haul factor, 0.18592 kg per passenger-km.
      emissionsKg: 1200 * 0.18592,
      offsetOpted: 1,
      offsetUsd: 25,
    });
    const none = registration();
    assert.deepEqual(travelTallyOf(none), {
      mode: null,
      band: 0,
      registrations: 1,
      distanceKm: 0,
      emissionsKg: 0,
      offsetOpted: 0,
      offsetUsd: 0,
    });
    // The same band: one entry with the differences. Another band: out of one, into the other.
    const longer = { ...flight, carbonOffset: { ...flight.carbonOffset!, travelDistance: 1500 } };
    assert.deepEqual(
      travelTallyChange(flight, longer).map((t) => [t.mode, t.band, t.registrations, t.distanceKm]),
      [["flight", 1, 0, 300]],
    );
    const longHaul = { ...flight, carbonOffset: { ...flight.carbonOffset!, travelDistance: 5000 } };
    assert.deepEqual(
      travelTallyChange(flight, longHaul).map((t) => [t.mode, t.band, t.registrations, t.distanceKm]),
      [
        ["flight", 1, -1, -1200],
        ["flight", 2, 1, 5000],
      ],
    );
    assert.deepEqual(travelTallyChange(flight, { ...flight, firstName: "Grace" }), []);
  });
});

/** The tallies of `attendees` by the definition, keyed as stored. */
function expectedTallies(attendees: readonly AttendeeRecord[], factors: EmissionFactorSet = DEFAULT_EMISSION_FACTORS) {
  const values = new Map<string, { registrations: number; registeredDays: number }>();
  const travel = new Map<string, Omit<TravelTally, "mode" | "band">>();
  for (const attendee of attendees) {
    for (const t of talliesOf(attendee)) {
      const entry = values.get(keyOf(t)) ?? { registrations: 0, registeredDays: 0 };
      entry.registrations += t.registrations;
      entry.registeredDays += t.registeredDays;
      values.set(keyOf(t), entry);
    }
    const t = travelTallyOf(attendee, factors);
    if (!t) continue;
    const key = `${t.mode ?? ""}/${t.band}`;
    const entry = travel.get(key) ?? { registrations: 0, distanceKm: 0, emissionsKg: 0, offsetOpted: 0, offsetUsd: 0 };
    entry.registrations += t.registrations;
    entry.distanceKm += t.distanceKm;
    entry.emissionsKg += t.emissionsKg;
    entry.offsetOpted += t.offsetOpted;
    entry.offsetUsd += t.offsetUsd;
    travel.set(key, entry);
  }
  return { values, travel };
}

const near = (actual: number, expected: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= 1e-6 * Math.max(1, Math.abs(expected)), `${what}: ${actual} vs ${expected}`);

for (const backend of BACKENDS) {
  test(`${backend.name}: the stored tallies equal the definition and the SQL recount after every kind of change`, async () => {
    const database = await backend.open();
    try {
      const storage = database.storage;
      const account = await newAccount(storage, "Tallies");
      const event = {
        ...newEventRecord(
          {
            name: "Tallied",
            description: null,
            location: { address: "Main St 1", city: "Leeds", country: "GB" },
            startDate: "2038-06-01T09:00:00.000Z",
            endDate: "2038-06-01T17:00:00.000Z",
            capacity: 40,
            category: "conference",
            waitlistEnabled: true,
          },
          { id: createId("event"), accountId: account, now: tick() },
        ),
        status: "published" as const,
      };
      const other = newEventRecord(
        {
          name: "Beside it",
          description: null,
          location: { address: "Main St 2", city: "Leeds", country: "GB" },
          startDate: "2038-06-02T09:00:00.000Z",
          endDate: "2038-06-02T17:00:00.000Z",
          capacity: 10,
          category: "workshop",
        },
        { id: createId("event"), accountId: account, now: tick() },
      );
      await insertEvent(storage, event);
      await insertEvent(storage, other);
      await registerAttendee(storage, registration({ company: "Elsewhere", ticketType: "other" }, account, other.id));

      let seed = 23;
      const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
      const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
      const modes: Array<TravelMode | undefined> = [...TRAVEL_MODES, undefined];
      const values = (): Partial<AttendeeCreate> => ({
        ticketType: pick(["general", "vip", "student"]),
        company: pick(["Acme", "Globex", "Initech", undefined]),
        dietaryPreferences: pick([[], ["vegan"], ["vegetarian", "gluten-free"], ["halal"]]),
        accessibilityNeeds: pick([
          undefined,
          { wheelchairAccess: true },
          { signLanguage: true, visualAid: true },
          { other: "step-free seating" },
          { visualAid: false, other: "" },
        ]),
        carbonOffset: ((mode) => ({
          opted: random() < 0.5,
          amount: Math.round(random() * 5000) / 100,
          ...(mode && { travelMode: mode, travelDistance: Math.round(random() * 60000) / 10 }),
        }))(pick(modes)),
      });
      const ids: string[] = [];
      for (let step = 0; step < 150; step++) {
        const roll = random();
        try {
          if (roll < 0.4 || ids.length === 0) {
            ids.push((await registerAttendee(storage, registration(values(), account, event.id))).id);
          } else if (roll < 0.6) {
            const { ticketType, company, dietaryPreferences, accessibilityNeeds, carbonOffset } = values();
            const update = pick([
              { ticketType, company },
              { dietaryPreferences, accessibilityNeeds },
              { carbonOffset },
            ]);
            await updateAttendee(storage, account, pick(ids), update, tick());
          } else if (roll < 0.8) {
            await updateAttendee(
              storage,
              account,
              pick(ids),
              { status: pick(["confirmed", "pending", "cancelled"] as const) },
              tick(),
            );
          } else if (roll < 0.88) {
            const id = pick(ids);
            await eraseAttendee(storage, account, id, { now: tick(), replay: ERASED_ANSWER });
            ids.splice(ids.indexOf(id), 1);
          } else {
            const attendee = await storage.getAttendee(account, pick(ids));
            await checkIn(storage, account, event.id, attendee!.confirmationCode, tick());
          }
        } catch (error) {
          // Refused transitions and check-ins of those not confirmed change nothing.
          assert.ok(error instanceof Error && "code" in error, String(error));
        }
      }
      const left = (await storage.listAttendees(account, AttendeeListQuery.parse({ eventId: event.id, limit: "100" })))
        .items;
      assert.ok(left.length > 30, `the walk left ${left.length} registrations`);
      assert.ok(new Set(left.map((a) => a.status)).size >= 4, "the walk left several statuses");
      let expected = expectedTallies(left);

      const stored = async () => {
        const all = await database.db
          .selectFrom("event_tallies")
          .selectAll()
          .where("event_id", "=", event.id)
          .execute();
        return {
          rows: all.filter((r) => r.facet !== "travel"),
          travel: all.filter((r) => r.facet === "travel").map((r) => ({ ...r, mode: r.value })),
        };
      };
      const check = async (when: string) => {
        const { rows, travel } = await stored();
        assert.deepEqual(
          rows.map((r) => `${r.facet}=${r.value}:${Number(r.registrations)}`).sort(),
          [...expected.values].map(([key, t]) => `${key}:${t.registrations}`).sort(),
          `${when}: the values and their registrations`,
        );
        for (const r of rows)
          near(Number(r.registered_days), expected.values.get(`${r.facet}=${r.value}`)!.registeredDays, `${when} days`);
        assert.deepEqual(
          travel.map((r) => `${r.mode}/${r.band}:${Number(r.registrations)}`).sort(),
          [...expected.travel].map(([key, t]) => `${key}:${t.registrations}`).sort(),
          `${when}: travel by mode and band`,
        );
        for (const r of travel) {
          const t = expected.travel.get(`${r.mode}/${r.band}`)!;
          near(Number(r.distance_km), t.distanceKm, `${when} ${r.mode} km`);
          near(Number(r.emissions_kg), t.emissionsKg, `${when} ${r.mode} kg`);
          assert.equal(Number(r.offset_opted), t.offsetOpted, `${when} ${r.mode} opted`);
          near(Number(r.offset_usd), t.offsetUsd, `${when} ${r.mode} USD`);
        }
      };
      await check("kept in each change");
      // No value without a registration is kept (an erased registration's company went with it).
      assert.equal((await stored()).rows.filter((r) => Number(r.registrations) === 0).length, 0, "no empty value kept");

      // The SQL twin: counted again from the rows when the stored tallies are of another definition.
      await database.db.updateTable("kept_tallies").set({ definition: 0 }).execute();
      await database.db.deleteFrom("event_tallies").execute();
      await storage.migrate();
      await check("recounted from the rows");
      assert.equal(
        (
          await database.db
            .selectFrom("event_tallies")
            .select("value")
            .where("event_id", "=", other.id)
            .where("facet", "=", "company")
            .execute()
        )
          .map((r) => r.value)
          .join(),
        "Elsewhere",
        "the other event's tallies are its own",
      );

      // Another factor set: the travel tallies are counted again under it (one band per mode
      // here, so the band is a constant in the recount's SQL).
      const oneBand: EmissionFactorSet = {
        ...DEFAULT_EMISSION_FACTORS,
        name: "One band a mode",
        factors: DEFAULT_EMISSION_FACTORS.factors
          .filter((f) => f.mode !== "flight" || f.maxDistanceKm === null)
          .map((f) => ({ ...f, factor: f.factor * 2 })),
      };
      await createSqlStorage({ db: database.db, emissionFactors: oneBand }).migrate();
      expected = expectedTallies(left, oneBand);
      assert.ok([...expected.travel.keys()].includes("flight/0"), "the flights are in one band");
      await check("recounted under another factor set");
      // A storage given no set (a `keys` command) counts an outdated definition with the default
      // set; the next start given the deployment's set counts the travel under it again.
      await database.db.updateTable("kept_tallies").set({ definition: 0 }).execute();
      await database.db.deleteFrom("event_tallies").execute();
      await storage.migrate();
      expected = expectedTallies(left);
      await check("counted by a storage given no set");
      await storage.migrate();
      await check("left alone by a storage given no set");
      await createSqlStorage({ db: database.db, emissionFactors: oneBand }).migrate();
      expected = expectedTallies(left, oneBand);
      await check("counted again by the storage given the set");

      // The report reads them: its statuses and lead time are the definition's.
      const figures = await storage.transaction((tx) => tx.figures.eventAnalytics(account, event.id));
      for (const status of ["confirmed", "pending", "cancelled", "checked-in", "waitlisted"] as const)
        assert.equal(figures!.statuses[status], left.filter((a) => a.status === status).length, status);
      const active = left.filter((a) => ["confirmed", "pending", "checked-in"].includes(a.status));
      near(
        figures!.averageLeadTimeDays!,
        active.reduce(
          (sum, a) => sum + (Date.parse(event.startDate) - Date.parse(a.registrationDate)) / 86_400_000,
          0,
        ) / active.length,
        "lead time",
      );

      // Its cancellation moves every registration it cancels at once, merged by value; the checked-in stay.
      // (by the deployment's storage, given the set the tallies were counted under)
      const deployed = createSqlStorage({ db: database.db, emissionFactors: oneBand });
      await updateEvent(deployed, account, event.id, { status: "cancelled" }, tick());
      const cancelled = (
        await storage.listAttendees(account, AttendeeListQuery.parse({ eventId: event.id, limit: "100" }))
      ).items;
      assert.deepEqual([...new Set(cancelled.map((a) => a.status))].sort(), ["cancelled", "checked-in"]);
      expected = expectedTallies(cancelled, oneBand);
      await check("after the event's cancellation");
      assert.equal((await stored()).rows.filter((r) => Number(r.registrations) === 0).length, 0, "no empty value kept");

      // An event's deletion takes its tallies with it.
      await deleteEvent(storage, account, event.id);
      const gone = await stored();
      assert.deepEqual([gone.rows.length, gone.travel.length], [0, 0]);
    } finally {
      await database.drop();
    }
  });
}
