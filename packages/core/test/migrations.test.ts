/**
 * Migrations on a database that already holds data: `0004_event_stats` gives existing events
 * the figures of their active registrations, as later writes keep them, and the start after
 * `0019_event_tallies` counts their tallies; `0027_email_outbox` moves the bookings' links;
 * `0029_factor_set_per_event` records the set that priced every event.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import Database from "better-sqlite3";
import { Kysely, Migrator, SqliteDialect } from "kysely";
import { DEFAULT_CARBON_SETTINGS } from "../src/carbon/carbon-settings.ts";
import { SCOPES } from "../src/resources/api-key.ts";
import type { Database as Schema } from "../src/sql/database.ts";
import { SQLITE_PRAGMAS } from "../src/sql/dialect.ts";
import { migrationProvider } from "../src/sql/migrations.ts";
import { RELEASED_ATTENDEE_STATUS } from "../src/rules/attendee-status.ts";
import { PAYABLE_PAYMENT_STATUSES } from "../src/resources/payment.ts";
import { createSqlStorage } from "../src/sql/sql-storage.ts";

const AT = "2026-01-01T00:00:00.000Z";

/** A SQLite database in memory migrated up to `migration`, with the account `acct_1`. */
async function databaseAt(migration: string): Promise<Kysely<any>> {
  const database = new Database(":memory:");
  for (const pragma of SQLITE_PRAGMAS) database.pragma(pragma);
  const db = new Kysely<any>({ dialect: new SqliteDialect({ database }) });
  const migrated = await new Migrator({ db, provider: migrationProvider }).migrateTo(migration);
  assert.equal(migrated.error, undefined);
  await db
    .insertInto("accounts")
    .values({ id: "acct_1", name: "Acme", per_minute: null, per_day: null, created_at: AT })
    .execute();
  return db;
}

/** An event row of `acct_1` as the early migrations stored it. */
const eventRow = (id: string, goalCarbonNeutral: number | null) => ({
  id,
  account_id: "acct_1",
  name: id,
  description: null,
  address: "Main St 1",
  city: "Berlin",
  state: null,
  country: "DE",
  zip_code: null,
  lat: null,
  lng: null,
  start_date: AT,
  end_date: AT,
  capacity: 10,
  category: "meetup",
  goal_carbon_neutral: goalCarbonNeutral,
  goal_waste_reduction: null,
  goal_local_sourcing: null,
  goal_renewable_energy: null,
  tags: "[]",
  search_key: id,
  status: "published",
  created_at: AT,
  updated_at: AT,
});

test("0004_event_stats computes the figures, and 0019_event_tallies the tallies, of events stored before them", async () => {
  const db = await databaseAt("0003_webhooks");
  const at = AT;
  const event = (id: string) => eventRow(id, 1);
  await db
    .insertInto("events")
    .values([event("evt_a"), event("evt_b")])
    .execute();
  let n = 0;
  const attendee = (status: string, mode: string | null, distance: number | null, opted: number, amount: number) => {
    n += 1;
    return {
      id: `att_${n}`,
      account_id: "acct_1",
      event_id: "evt_a",
      first_name: "A",
      last_name: "B",
      email: `${n}@example.com`,
      email_key: `${n}@example.com`,
      phone: null,
      company: null,
      title: null,
      ticket_type: "general",
      dietary_preferences: "[]",
      accessibility_needs: null,
      carbon_offset: null,
      offset_opted: opted,
      offset_amount: amount,
      travel_distance: distance,
      travel_mode: mode,
      emergency_contact: null,
      custom_fields: "{}",
      search_key: "",
      status,
      confirmation_code: `EVT-AAAA-AAA${n}`,
      registration_date: at,
      updated_at: at,
      checked_in_at: null,
      cancelled_at: null,
    };
  };
  await db
    .insertInto("attendees")
    .values([
      attendee("confirmed", "car", 100, 1, 1.5), // 16.844 kg, 1.5 USD
      attendee("checked-in", "train", 200, 0, 9), // 7.092 kg, not opted
      attendee("pending", null, null, 0, 0), // no travel reported
      attendee("cancelled", "flight", 1000, 1, 30), // counts for nothing
    ])
    .execute();

  const storage = createSqlStorage({ db: db as Kysely<Schema> });
  await storage.migrate();
  const a = await storage.getEvent("acct_1", "evt_a", DEFAULT_CARBON_SETTINGS);
  const b = await storage.getEvent("acct_1", "evt_b", DEFAULT_CARBON_SETTINGS);
  assert.equal(a?.attendeeCount, 3);
  assert.equal(a?.carbonFootprint, 23.936);
  // carbonNeutral 15; low-carbon 1 of 2 reporting x 20 = 10; offsets 1.5 USD = 100 kg >= 23.936 kg: 20.
  assert.equal(a?.sustainabilityScore, 45);
  assert.deepEqual([b?.attendeeCount, b?.carbonFootprint, b?.sustainabilityScore], [0, 0, 15]);

  // The per-event report's counts, from the tallies the start counted.
  const report = await storage.transaction((tx) => tx.figures.eventAnalytics("acct_1", "evt_a"));
  assert.deepEqual(report?.statuses, { confirmed: 1, pending: 1, "checked-in": 1, cancelled: 1, waitlisted: 0 });
  assert.deepEqual(report?.ticketTypes, [{ value: "general", count: 3 }]);
  assert.deepEqual(
    report?.byMode.map((m) => [m.mode, m.registrations, m.distanceKm, m.emissionsKg, m.offsetOpted, m.offsetUsd]),
    [
      [null, 1, 0, 0, 0, 0],
      ["car", 1, 100, 16.844, 1, 1.5],
      ["train", 1, 200, 7.092, 0, 0],
    ],
  );
  // Registered at the start itself: a lead time of 0 days.
  assert.equal(report?.averageLeadTimeDays, 0);
  await storage.close();
});

test("0020_vendors gives the keys made with no scope named the scopes added since: every scope, read as *", async () => {
  const db = await databaseAt("0019_event_tallies");
  const at = AT;
  const key = (id: string, scopes: string) => ({
    id,
    account_id: "acct_1",
    key_hash: `hash_${id}`,
    prefix: "esk_…",
    tier: "free",
    scopes,
    created_at: at,
    revoked_at: null,
  });
  await db
    .insertInto("api_keys")
    .values([
      // What a key made with no --scopes was stored as before 0020.
      key(
        "key_all",
        "events:read events:write attendees:read attendees:write webhooks:read webhooks:write analytics:read",
      ),
      key("key_some", "events:read analytics:read"),
    ])
    .execute();

  const storage = createSqlStorage({ db: db as Kysely<Schema> });
  await storage.migrate();
  assert.deepEqual((await storage.authenticate("hash_key_all"))?.scopes, [...SCOPES]);
  assert.ok(SCOPES.includes("vendors:write"));
  assert.deepEqual((await storage.authenticate("hash_key_some"))?.scopes, ["events:read", "analytics:read"]);
  assert.deepEqual(
    (await db.selectFrom("api_keys").select(["id", "scopes"]).orderBy("id").execute()).map((row) => row.scopes),
    ["*", "events:read analytics:read"],
  );
  await storage.close();
});

test("0023_payment_admission admits the registrations stored paid for, and reads the others' statuses as admission does", async () => {
  const db = await databaseAt("0022_payments");
  const at = AT;
  await db
    .insertInto("events")
    .values({ ...eventRow("evt_a", null), name: "Gala", search_key: "gala" })
    .execute();
  const attendee = (id: string, status: string, payment: [string, number, number] | null) => ({
    id,
    account_id: "acct_1",
    event_id: "evt_a",
    first_name: "A",
    last_name: "B",
    email: `${id}@example.com`,
    email_key: `${id}@example.com`,
    ticket_type: "Ticket",
    dietary_preferences: "[]",
    custom_fields: "{}",
    search_key: "",
    status,
    confirmation_code: `EVT-AAAA-${id}`,
    registration_date: at,
    updated_at: `2026-01-0${id.length}T00:00:00.000Z`,
    payment_status: payment?.[0] ?? null,
    payment_amount: payment ? 5_000 : null,
    payment_currency: payment ? "EUR" : null,
    payment_paid: payment?.[1] ?? null,
    payment_refunded: payment?.[2] ?? null,
    payment_provider: payment ? "manual" : null,
    payment_promoted: payment ? 0 : null,
  });
  await db
    .insertInto("attendees")
    .values([
      attendee("readme", "confirmed", ["partially_refunded", 5_000, 1_000]),
      attendee("under", "confirmed", ["paid", 5_000, 1_000]), // confirmed with 4000 kept: it was let in
      attendee("owing", "pending", ["partially_refunded", 2_000, 1_000]),
      attendee("part", "pending", ["requires_payment", 2_000, 0]),
      attendee("gone", "cancelled", ["refunded", 5_000, 5_000]),
      attendee("free", "confirmed", null),
    ])
    .execute();

  const storage = createSqlStorage({ db: db as Kysely<Schema> });
  await storage.migrate();
  const payment = async (id: string) => {
    const found = (await storage.getAttendee("acct_1", id))?.payment;
    return found ? [found.status, found.admittedAt] : null;
  };
  assert.deepEqual(await payment("readme"), ["partially_refunded", "2026-01-06T00:00:00.000Z"]);
  assert.deepEqual(await payment("under"), ["partially_refunded", "2026-01-05T00:00:00.000Z"]);
  assert.deepEqual(await payment("owing"), ["requires_payment", null]);
  assert.deepEqual(await payment("part"), ["requires_payment", null]);
  assert.deepEqual(await payment("gone"), ["refunded", null]);
  assert.equal(await payment("free"), null);
  await storage.close();
});

test("0027_email_outbox keeps the links of the bookings stored before it: each opens its booking, a rotation replaces it", async () => {
  const db = await databaseAt("0024_event_time_zone");
  await db.insertInto("events").values(eventRow("evt_v", null)).execute();
  await db
    .insertInto("vendors")
    .values({
      id: "ven_1",
      account_id: "acct_1",
      name: "Plate",
      search_key: "plate",
      category: "catering",
      contact: null,
      location: null,
      certifications: "[]",
      notes: null,
      metadata: "{}",
      created_at: AT,
      updated_at: AT,
    })
    .execute();
  const booking = (id: string, status: string) => ({
    id,
    account_id: "acct_1",
    event_id: "evt_v",
    vendor_id: "ven_1",
    status,
    services: "Lunch",
    data_requested: "[]",
    link_hash: `hash_${id}`,
    responded_at: null,
    message: null,
    created_at: AT,
    updated_at: AT,
  });
  await db
    .insertInto("vendor_bookings")
    .values([booking("vbk_1", "confirmed"), booking("vbk_2", "declined")])
    .execute();

  const storage = createSqlStorage({ db: db as Kysely<Schema> });
  await storage.migrate();
  assert.equal((await storage.findBookingByLink("hash_vbk_1"))?.id, "vbk_1");
  assert.equal((await storage.findBookingByLink("hash_vbk_2"))?.status, "declined");
  assert.deepEqual(
    await db.selectFrom("vendor_booking_links").select(["link_hash", "booking_id"]).orderBy("link_hash").execute(),
    [
      { link_hash: "hash_vbk_1", booking_id: "vbk_1" },
      { link_hash: "hash_vbk_2", booking_id: "vbk_2" },
    ],
  );
  await storage.transaction((tx) => tx.bookings.replaceLinks("vbk_1", "hash_new", AT));
  assert.equal(await storage.findBookingByLink("hash_vbk_1"), null);
  assert.equal((await storage.findBookingByLink("hash_new"))?.id, "vbk_1");
  await storage.close();
});

test("0029_factor_set_per_event records the one set that priced every event until then; the start with the same set prices nothing again", async () => {
  const db = await databaseAt("0028_check_in_links");
  // A deployment that ran with its own set: the identity 0010's row holds since its start.
  const identity = JSON.stringify(["Acme factors", 2027, [["car", 0.2, null]], []]);
  await db.updateTable("emission_factor_set").set({ identity, updated_at: AT }).execute();
  await db
    .insertInto("events")
    .values([
      { ...eventRow("evt_a", null), emissions_kg: 7 },
      { ...eventRow("evt_b", null), start_date: "2041-05-01T09:00:00.000Z", emissions_kg: 9 },
    ])
    .execute();
  const migrated = await new Migrator({ db, provider: migrationProvider }).migrateTo("0029_factor_set_per_event");
  assert.equal(migrated.error, undefined);
  assert.deepEqual(await db.selectFrom("events").select(["id", "factor_year"]).orderBy("id").execute(), [
    { id: "evt_a", factor_year: 2027 },
    { id: "evt_b", factor_year: 2027 },
  ]);
  assert.deepEqual(await db.selectFrom("factor_sets").select(["year", "identity", "updated_at"]).execute(), [
    { year: 2027, identity, updated_at: AT },
  ]);
  // The single-set table and the tallies' set column are gone: each event holds its set.
  assert.equal(
    (await db.introspection.getTables()).some((table) => table.name === "emission_factor_set"),
    false,
  );
  const keptTallies = (await db.introspection.getTables()).find((table) => table.name === "kept_tallies")!;
  assert.deepEqual(keptTallies.columns.map((column) => column.name).sort(), ["definition", "id", "updated_at"]);
  // A storage given no sets (a `keys` command) leaves the figures alone.
  await createSqlStorage({ db: db as Kysely<Schema> }).migrate();
  assert.deepEqual(
    (await db.selectFrom("events").select(["emissions_kg"]).orderBy("id").execute()).map((row) => row.emissions_kg),
    [7, 9],
  );
});

test("partial indexes keep the literal lists of the rules they depend on", async () => {
  const latest = Object.keys(await migrationProvider.getMigrations()).at(-1)!;
  const db = await databaseAt(latest);
  const definition = async (name: string) =>
    (
      (await db
        .selectFrom("sqlite_master")
        .select("sql")
        .where("type", "=", "index")
        .where("name", "=", name)
        .executeTakeFirstOrThrow()) as { sql: string }
    ).sql;
  const hold = await definition("attendees_payment_hold");
  const listed = /"payment_status" in \(([^)]*)\)/.exec(hold)?.[1];
  assert.deepEqual(
    listed?.split(",").map((literal) => literal.trim().replace(/^'|'$/g, "")),
    [...PAYABLE_PAYMENT_STATUSES],
  );
  assert.deepEqual(PAYABLE_PAYMENT_STATUSES, ["requires_payment", "failed"]);
  const email = await definition("attendees_event_email_active");
  assert.equal(/"status" <> '([^']*)'/.exec(email)?.[1], RELEASED_ATTENDEE_STATUS);
  assert.equal(RELEASED_ATTENDEE_STATUS, "cancelled");
  await db.destroy();
});
