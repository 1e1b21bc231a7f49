import { type Kysely, type Migration, type MigrationProvider, sql } from "kysely";

/**
 * Migration 0004's backfill of the kept figures, as `contributionSql()` of the 2023 default
 * factors compiled it when the migration shipped (identical for SQLite and PostgreSQL).
 */
const EVENT_STATS_BACKFILL_0004 =
  `update "events" set ` +
  `"active_count" = (select coalesce(sum((case when status in ('confirmed', 'pending', 'checked-in') then 1 else 0 end)), 0) as "n" from "attendees" as "a" where "a"."event_id" = "events"."id"), ` +
  `"emissions_kg" = (select coalesce(sum((case when status in ('confirmed', 'pending', 'checked-in') then (case travel_mode when 'car' then 0.16844 ` +
  `when 'flight' then (case when coalesce(travel_distance, 0) <= 500 then 0.27257 when coalesce(travel_distance, 0) <= 3700 then 0.18592 else 0.26128 end) ` +
  `when 'train' then 0.03546 when 'bus' then 0.10231 when 'bike' then 0 when 'walk' then 0 else 0 end) * coalesce(travel_distance, 0) else 0 end)), 0) as "n" ` +
  `from "attendees" as "a" where "a"."event_id" = "events"."id"), ` +
  `"offset_usd" = (select coalesce(sum((case when status in ('confirmed', 'pending', 'checked-in') and offset_opted = 1 then coalesce(offset_amount, 0) else 0 end)), 0) as "n" ` +
  `from "attendees" as "a" where "a"."event_id" = "events"."id"), ` +
  `"travel_reported" = (select coalesce(sum((case when status in ('confirmed', 'pending', 'checked-in') and travel_mode is not null then 1 else 0 end)), 0) as "n" ` +
  `from "attendees" as "a" where "a"."event_id" = "events"."id"), ` +
  `"low_carbon" = (select coalesce(sum((case when status in ('confirmed', 'pending', 'checked-in') and travel_mode in ('train', 'bus', 'bike', 'walk') then 1 else 0 end)), 0) as "n" ` +
  `from "attendees" as "a" where "a"."event_id" = "events"."id")`;

/** Migration 0010's record of the factor set the figures were computed with until then: `factorSetIdentity` of the 2023 default, as it was when the migration shipped. */
const DEFAULT_FACTOR_SET_IDENTITY_0010 =
  '["UK Government GHG Conversion Factors for Company Reporting",2023,[["car",0.16844,null],["flight",0.27257,500],["flight",0.18592,3700],["flight",0.26128,null],' +
  '["train",0.03546,null],["bus",0.10231,null],["bike",0,null],["walk",0,null]]]';

/**
 * The schema's history, oldest first. Never edit a migration that has shipped: add one.
 * Only portable DDL here (SQLite and PostgreSQL both run it).
 *
 * Column types: `bigint` for epoch seconds and `double precision` for measures and sums, so
 * they hold on PostgreSQL (its `integer` is 32 bits and its `real` single precision). SQLite
 * gives `bigint` and `integer` one affinity, and `double precision` and `real` another, so
 * writing them so in the shipped migrations changes nothing for an existing SQLite file.
 */
export const MIGRATIONS: Record<string, Migration> = {
  "0001_foundation": {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable("accounts")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("name", "text", (c) => c.notNull().unique())
        .addColumn("per_minute", "integer")
        .addColumn("per_day", "integer")
        .addColumn("created_at", "text", (c) => c.notNull())
        .execute();

      await db.schema
        .createTable("api_keys")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
        .addColumn("key_hash", "text", (c) => c.notNull().unique())
        .addColumn("prefix", "text", (c) => c.notNull())
        .addColumn("tier", "text", (c) => c.notNull())
        .addColumn("scopes", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("revoked_at", "text")
        .execute();

      await db.schema
        .createTable("events")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("description", "text")
        .addColumn("address", "text", (c) => c.notNull())
        .addColumn("city", "text", (c) => c.notNull())
        .addColumn("state", "text")
        .addColumn("country", "text", (c) => c.notNull())
        .addColumn("zip_code", "text")
        .addColumn("lat", "double precision")
        .addColumn("lng", "double precision")
        .addColumn("start_date", "text", (c) => c.notNull())
        .addColumn("end_date", "text", (c) => c.notNull())
        .addColumn("capacity", "integer", (c) => c.notNull())
        .addColumn("category", "text", (c) => c.notNull())
        .addColumn("goal_carbon_neutral", "integer")
        .addColumn("goal_waste_reduction", "double precision")
        .addColumn("goal_local_sourcing", "integer")
        .addColumn("goal_renewable_energy", "integer")
        .addColumn("tags", "text", (c) => c.notNull())
        .addColumn("search_key", "text", (c) => c.notNull())
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("events_account_created")
        .on("events")
        .columns(["account_id", "created_at", "id"])
        .execute();
      await db.schema.createIndex("events_account_start").on("events").columns(["account_id", "start_date"]).execute();

      await db.schema
        .createTable("event_tags")
        .addColumn("event_id", "text", (c) => c.notNull().references("events.id").onDelete("cascade"))
        .addColumn("tag", "text", (c) => c.notNull())
        .addPrimaryKeyConstraint("event_tags_pk", ["event_id", "tag"])
        .execute();
      await db.schema.createIndex("event_tags_tag").on("event_tags").columns(["tag", "event_id"]).execute();

      await db.schema
        .createTable("attendees")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
        .addColumn("event_id", "text", (c) => c.notNull().references("events.id").onDelete("cascade"))
        .addColumn("first_name", "text", (c) => c.notNull())
        .addColumn("last_name", "text", (c) => c.notNull())
        .addColumn("email", "text", (c) => c.notNull())
        .addColumn("email_key", "text", (c) => c.notNull())
        .addColumn("phone", "text")
        .addColumn("company", "text")
        .addColumn("title", "text")
        .addColumn("ticket_type", "text", (c) => c.notNull())
        .addColumn("dietary_preferences", "text", (c) => c.notNull())
        .addColumn("accessibility_needs", "text")
        .addColumn("carbon_offset", "text")
        .addColumn("offset_opted", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("offset_amount", "double precision", (c) => c.notNull().defaultTo(0))
        .addColumn("travel_distance", "double precision")
        .addColumn("travel_mode", "text")
        .addColumn("emergency_contact", "text")
        .addColumn("custom_fields", "text", (c) => c.notNull())
        .addColumn("search_key", "text", (c) => c.notNull())
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("confirmation_code", "text", (c) => c.notNull().unique())
        .addColumn("registration_date", "text", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .addColumn("checked_in_at", "text")
        .addColumn("cancelled_at", "text")
        .execute();
      await db.schema.createIndex("attendees_event_status").on("attendees").columns(["event_id", "status"]).execute();
      await db.schema
        .createIndex("attendees_account_registered")
        .on("attendees")
        .columns(["account_id", "registration_date", "id"])
        .execute();
      // The backstop of the duplicate rule: one active registration per email and event.
      // Its status literal is RELEASED_ATTENDEE_STATUS (rules/attendee-status.ts), written out
      // because a migration is frozen text; a test keeps the two in agreement.
      await db.schema
        .createIndex("attendees_event_email_active")
        .on("attendees")
        .columns(["event_id", "email_key"])
        .unique()
        .where(sql.ref("status"), "<>", "cancelled")
        .execute();
    },
  },
  "0002_api_conventions": {
    async up(db: Kysely<any>) {
      // One row per account holding its current minute and day windows, counted by one atomic
      // upsert per request: a single small row, so nothing to purge and little to write.
      await db.schema
        .createTable("rate_limit_counters")
        .addColumn("account_id", "text", (c) => c.primaryKey().references("accounts.id"))
        .addColumn("minute_start", "bigint", (c) => c.notNull())
        .addColumn("minute_count", "integer", (c) => c.notNull())
        .addColumn("day_start", "bigint", (c) => c.notNull())
        .addColumn("day_count", "integer", (c) => c.notNull())
        .execute();

      await db.schema
        .createTable("idempotency_keys")
        .addColumn("account_id", "text", (c) => c.notNull())
        .addColumn("key", "text", (c) => c.notNull())
        .addColumn("request_hash", "text", (c) => c.notNull())
        .addColumn("state", "text", (c) => c.notNull())
        .addColumn("response_status", "integer")
        .addColumn("response_body", "text")
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("expires_at", "text", (c) => c.notNull())
        .addPrimaryKeyConstraint("idempotency_keys_pk", ["account_id", "key"])
        .execute();
      await db.schema.createIndex("idempotency_keys_expires").on("idempotency_keys").column("expires_at").execute();
    },
  },
  "0003_webhooks": {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable("webhooks")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
        .addColumn("url", "text", (c) => c.notNull())
        .addColumn("events", "text", (c) => c.notNull())
        .addColumn("description", "text")
        .addColumn("secret", "text", (c) => c.notNull())
        .addColumn("active", "integer", (c) => c.notNull())
        .addColumn("metadata", "text", (c) => c.notNull())
        .addColumn("consecutive_failures", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("disabled_at", "text")
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .execute();
      // One webhook per URL and account (DUPLICATE_WEBHOOK); the service checks first, this is the backstop.
      await db.schema
        .createIndex("webhooks_account_url")
        .on("webhooks")
        .columns(["account_id", "url"])
        .unique()
        .execute();
      await db.schema
        .createIndex("webhooks_account_created")
        .on("webhooks")
        .columns(["account_id", "created_at", "id"])
        .execute();
    },
  },
  "0004_event_stats": {
    async up(db: Kysely<any>) {
      for (const [column, type] of [
        ["active_count", "integer"],
        ["emissions_kg", "double precision"],
        ["offset_usd", "double precision"],
        ["travel_reported", "integer"],
        ["low_carbon", "integer"],
      ] as const) {
        await db.schema
          .alterTable("events")
          .addColumn(column, type, (c) => c.notNull().defaultTo(0))
          .execute();
      }
      // Existing events get their figures from their registrations: the sums of what each
      // contributed when this migration shipped (the 2023 default factors; later migrations add
      // their columns). Frozen text, the same on SQLite and PostgreSQL, so this migration never
      // changes with the code that keeps the figures today.
      await sql.raw(EVENT_STATS_BACKFILL_0004).execute(db);
      await db.schema
        .createIndex("events_account_emissions")
        .on("events")
        .columns(["account_id", "emissions_kg", "id"])
        .execute();
    },
  },
  "0005_webhook_deliveries": {
    async up(db: Kysely<any>) {
      // The outbox: one row per webhook and notification, written in the transaction of the
      // change. `payload` holds the exact bytes that are signed and sent on every attempt.
      await db.schema
        .createTable("webhook_deliveries")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("webhook_id", "text", (c) => c.notNull().references("webhooks.id").onDelete("cascade"))
        .addColumn("account_id", "text", (c) => c.notNull())
        .addColumn("type", "text", (c) => c.notNull())
        .addColumn("payload", "text", (c) => c.notNull())
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("attempt_count", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("final_attempt", "integer")
        .addColumn("counts_failures", "integer", (c) => c.notNull().defaultTo(1))
        .addColumn("next_attempt_at", "text")
        .addColumn("lease_owner", "text")
        .addColumn("lease_until", "text")
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .execute();
      // What the workers poll: due pending deliveries.
      await db.schema
        .createIndex("webhook_deliveries_due")
        .on("webhook_deliveries")
        .columns(["status", "next_attempt_at"])
        .execute();
      await db.schema
        .createIndex("webhook_deliveries_webhook")
        .on("webhook_deliveries")
        .columns(["webhook_id", "created_at", "id"])
        .execute();

      await db.schema
        .createTable("webhook_attempts")
        .addColumn("delivery_id", "text", (c) => c.notNull().references("webhook_deliveries.id").onDelete("cascade"))
        .addColumn("number", "integer", (c) => c.notNull())
        .addColumn("started_at", "text", (c) => c.notNull())
        .addColumn("duration_ms", "integer", (c) => c.notNull())
        .addColumn("status_code", "integer")
        .addColumn("error", "text")
        .addColumn("response_excerpt", "text")
        .addColumn("succeeded", "integer", (c) => c.notNull())
        .addPrimaryKeyConstraint("webhook_attempts_pk", ["delivery_id", "number"])
        .execute();

      // One-time notifications already written (goal achieved, threshold reached), per event and kind.
      await db.schema
        .createTable("notification_marks")
        .addColumn("event_id", "text", (c) => c.notNull())
        .addColumn("kind", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .addPrimaryKeyConstraint("notification_marks_pk", ["event_id", "kind"])
        .execute();
    },
  },
  "0006_analytics": {
    async up(db: Kysely<any>) {
      // Analytics sum the active registrations of many events per event and travel mode: this
      // index holds every column they read, in the grouping's order, so the sums run on the index
      // alone, without a sort.
      await db.schema
        .createIndex("attendees_analytics")
        .on("attendees")
        .columns(["event_id", "travel_mode", "status", "travel_distance", "offset_opted", "offset_amount"])
        .execute();
    },
  },
  "0007_webhook_secret_rotation": {
    async up(db: Kysely<any>) {
      // A rotated-out secret keeps signing beside the new one until it expires (24 h).
      await db.schema.alterTable("webhooks").addColumn("previous_secret", "text").execute();
      await db.schema.alterTable("webhooks").addColumn("previous_secret_expires_at", "text").execute();
    },
  },
  "0008_webhook_retention": {
    async up(db: Kysely<any>) {
      // The background purge looks for deliveries by status and last activity (retention).
      await db.schema
        .createIndex("webhook_deliveries_status_updated")
        .on("webhook_deliveries")
        .columns(["status", "updated_at"])
        .execute();
    },
  },
  "0009_key_revision": {
    async up(db: Kysely<any>) {
      // One row whose revision every revocation and limit change raises: processes remember keys
      // and read this row at most twice a second to learn that what they remember may be stale.
      await db.schema
        .createTable("key_revision")
        .addColumn("id", "integer", (c) => c.primaryKey())
        .addColumn("revision", "bigint", (c) => c.notNull())
        .execute();
      await db.insertInto("key_revision").values({ id: 1, revision: 0 }).execute();
    },
  },
  "0010_emission_factors": {
    async up(db: Kysely<any>) {
      // The identity of the factor set the kept figures (events.emissions_kg) were computed with:
      // until now always the 2023 default. `migrate()` recomputes them when a deployment's set differs.
      await db.schema
        .createTable("emission_factor_set")
        .addColumn("id", "integer", (c) => c.primaryKey())
        .addColumn("identity", "text", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .execute();
      await db
        .insertInto("emission_factor_set")
        .values({ id: 1, identity: DEFAULT_FACTOR_SET_IDENTITY_0010, updated_at: new Date().toISOString() })
        .execute();
    },
  },
  "0011_attendees_event_order": {
    async up(db: Kysely<any>) {
      // An export reads an event's registrations in registration order, a keyset page at a time.
      await db.schema
        .createIndex("attendees_event_registered")
        .on("attendees")
        .columns(["event_id", "registration_date", "id"])
        .execute();
    },
  },
  "0012_waitlist": {
    async up(db: Kysely<any>) {
      // No registration waits yet: the kept count starts at 0, and every event without a list.
      await db.schema
        .alterTable("events")
        .addColumn("waitlist_enabled", "integer", (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable("events")
        .addColumn("waitlist_count", "integer", (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.alterTable("attendees").addColumn("waitlist_position", "integer").execute();
    },
  },
  "0013_deliveries_due_covering": {
    async up(db: Kysely<any>) {
      // The claim's candidates are read from this index alone, in its order: a backlog of
      // deliveries that are leased or wait for a busy webhook is stepped over in the index,
      // without reading each row (with the payload) from the table.
      await db.schema
        .createIndex("webhook_deliveries_due_claim")
        .on("webhook_deliveries")
        .columns(["status", "next_attempt_at", "id", "lease_until", "webhook_id", "account_id"])
        .execute();
      await db.schema.dropIndex("webhook_deliveries_due").execute();
    },
  },
  "0014_webhook_last_success": {
    async up(db: Kysely<any>) {
      // When the latest success that counted began: failures are counted in the order attempts
      // began, so one that began before it (a burst's straggler) does not count. None yet.
      await db.schema.alterTable("webhooks").addColumn("last_success_started_at", "text").execute();
    },
  },
  "0015_activities": {
    async up(db: Kysely<any>) {
      // Activity records (the whole footprint). The figures from the factor set (emissions,
      // the factor used) are computed when a record is written and again at start when the set
      // changes, so that sums over an event's records run in SQL.
      await db.schema
        .createTable("activities")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("account_id", "text", (c) => c.notNull())
        .addColumn("event_id", "text", (c) => c.notNull().references("events.id").onDelete("cascade"))
        .addColumn("kind", "text", (c) => c.notNull())
        .addColumn("quantity", "double precision", (c) => c.notNull())
        .addColumn("unit", "text", (c) => c.notNull())
        .addColumn("source", "text")
        .addColumn("country", "text")
        .addColumn("fuel", "text")
        .addColumn("meal_type", "text")
        .addColumn("material", "text")
        .addColumn("recycled_content", "integer")
        .addColumn("mode", "text")
        .addColumn("stream", "text")
        .addColumn("data_quality", "text", (c) => c.notNull())
        .addColumn("vendor_id", "text")
        .addColumn("note", "text")
        .addColumn("emissions_kg", "double precision")
        .addColumn("factor", "text")
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("activities_event")
        .on("activities")
        .columns(["event_id", "created_at", "id"])
        .execute();
      await db.schema.createIndex("activities_account").on("activities").columns(["account_id", "event_id"]).execute();
    },
  },
  "0016_thresholds": {
    async up(db: Kysely<any>) {
      // Configured thresholds: one event's (event_id) or every event of the account's (null).
      // An event's own thresholds go with it.
      await db.schema
        .createTable("thresholds")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
        .addColumn("event_id", "text", (c) => c.references("events.id").onDelete("cascade"))
        .addColumn("metric", "text", (c) => c.notNull())
        .addColumn("comparison", "text", (c) => c.notNull())
        .addColumn("value", "double precision", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("thresholds_account")
        .on("thresholds")
        .columns(["account_id", "metric", "event_id"])
        .execute();
      await db.schema.createIndex("thresholds_event").on("thresholds").column("event_id").execute();
      // Whether a threshold is reached for an event as of the last change that moved its metric:
      // a crossing notifies once, and again only after the value went back. No row: not reached.
      // Both a threshold's and an event's deletion take their rows with them.
      await db.schema
        .createTable("threshold_states")
        .addColumn("threshold_id", "text", (c) => c.notNull().references("thresholds.id").onDelete("cascade"))
        .addColumn("event_id", "text", (c) => c.notNull().references("events.id").onDelete("cascade"))
        .addColumn("reached", "integer", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .addPrimaryKeyConstraint("threshold_states_pk", ["threshold_id", "event_id"])
        .execute();
      await db.schema.createIndex("threshold_states_event").on("threshold_states").column("event_id").execute();
    },
  },
  "0017_event_activity_figures": {
    async up(db: Kysely<any>) {
      // The sums of an event's activity records, kept on its row (recounted in each activity
      // change's transaction): no event has records yet.
      for (const column of [
        "activity_emissions_kg",
        "activity_measured_kg",
        "electricity_kwh",
        "renewable_kwh",
        "waste_kg",
        "diverted_kg",
        "recycling_kg",
      ]) {
        await db.schema
          .alterTable("events")
          .addColumn(column, "double precision", (c) => c.notNull().defaultTo(0))
          .execute();
      }
    },
  },
  "0018_attendees_demographics": {
    async up(db: Kysely<any>) {
      // The per-event report groups an event's registrations by every value it counts (company,
      // ticket type, dietary preferences, accessibility needs, status) and averages their lead
      // time: this index holds those columns in the grouping's order, so one pass reads the
      // groups from the index alone, without a sort (SQLite has no hash aggregation).
      await db.schema
        .createIndex("attendees_demographics")
        .on("attendees")
        .columns([
          "event_id",
          "company",
          "ticket_type",
          "dietary_preferences",
          "accessibility_needs",
          "status",
          "registration_date",
        ])
        .execute();
    },
  },
  "0019_event_tallies": {
    async up(db: Kysely<any>) {
      // The per-event report's counts, kept per event and value in each registration's
      // transaction (rules/kept-tallies.ts) instead of grouped from the registrations at
      // every read; the index that served the grouping goes. The storage counts them from the
      // registrations when it starts (`definition` 0: never counted).
      await db.schema
        .createTable("event_tallies")
        .addColumn("event_id", "text", (c) => c.notNull().references("events.id").onDelete("cascade"))
        .addColumn("facet", "text", (c) => c.notNull())
        .addColumn("value", "text", (c) => c.notNull())
        .addColumn("band", "integer", (c) => c.notNull())
        .addColumn("registrations", "integer", (c) => c.notNull())
        .addColumn("registered_days", "double precision", (c) => c.notNull())
        .addColumn("distance_km", "double precision", (c) => c.notNull())
        .addColumn("emissions_kg", "double precision", (c) => c.notNull())
        .addColumn("offset_opted", "integer", (c) => c.notNull())
        .addColumn("offset_usd", "double precision", (c) => c.notNull())
        .addPrimaryKeyConstraint("event_tallies_pk", ["event_id", "facet", "value", "band"])
        .execute();
      await db.schema
        .createTable("kept_tallies")
        .addColumn("id", "integer", (c) => c.primaryKey())
        .addColumn("definition", "integer", (c) => c.notNull())
        .addColumn("factor_set", "text", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .execute();
      await db.insertInto("kept_tallies").values({ id: 1, definition: 0, factor_set: "", updated_at: "" }).execute();
      await db.schema.dropIndex("attendees_demographics").execute();
    },
  },
  "0020_vendors": {
    async up(db: Kysely<any>) {
      // Vendors of an account and their bookings for its events (docs/api.md, Vendors). A
      // booking goes with its event; a deleted vendor's inactive bookings and records keep its id.
      await db.schema
        .createTable("vendors")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("search_key", "text", (c) => c.notNull())
        .addColumn("category", "text", (c) => c.notNull())
        .addColumn("contact", "text")
        .addColumn("location", "text")
        .addColumn("certifications", "text", (c) => c.notNull())
        .addColumn("notes", "text")
        .addColumn("metadata", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("vendors_account_created")
        .on("vendors")
        .columns(["account_id", "created_at"])
        .execute();
      await db.schema
        .createTable("vendor_bookings")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
        .addColumn("event_id", "text", (c) => c.notNull().references("events.id").onDelete("cascade"))
        .addColumn("vendor_id", "text", (c) => c.notNull())
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("services", "text", (c) => c.notNull())
        .addColumn("data_requested", "text", (c) => c.notNull())
        .addColumn("link_hash", "text", (c) => c.notNull())
        .addColumn("responded_at", "text")
        .addColumn("message", "text")
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("vendor_bookings_link").on("vendor_bookings").column("link_hash").unique().execute();
      await db.schema
        .createIndex("vendor_bookings_event")
        .on("vendor_bookings")
        .columns(["event_id", "created_at"])
        .execute();
      await db.schema
        .createIndex("vendor_bookings_vendor")
        .on("vendor_bookings")
        .columns(["vendor_id", "status"])
        .execute();
      // The backstop of DUPLICATE_BOOKING (checked under the event's lock): one active booking per vendor and event.
      await db.schema
        .createIndex("vendor_bookings_active")
        .on("vendor_bookings")
        .columns(["event_id", "vendor_id"])
        .unique()
        .where(sql.ref("status"), "in", [sql.lit("requested"), sql.lit("confirmed")])
        .execute();
      await db.schema.alterTable("activities").addColumn("booking_id", "text").execute();
      // A key made with no scope named has every scope, including those added later:
      // it was stored with the seven scopes of its day, and now keeps "*". A key that named all
      // seven, in this order, cannot be told apart from it and gains the new ones too.
      await db
        .updateTable("api_keys")
        .set({ scopes: "*" })
        .where(
          "scopes",
          "=",
          "events:read events:write attendees:read attendees:write webhooks:read webhooks:write analytics:read",
        )
        .execute();
      await db.schema
        .createIndex("activities_booking")
        .on("activities")
        .columns(["booking_id", "created_at"])
        .execute();
    },
  },
  "0021_ticket_types": {
    async up(db: Kysely<any>) {
      // An event's ticket types and refund policy (docs/api.md, Ticket types): read with the event,
      // under its lock, never filtered on, so kept as the event's JSON. A type's active
      // registrations are its `ticket` tally (0019).
      await db.schema
        .alterTable("events")
        .addColumn("ticket_types", "text", (c) => c.notNull().defaultTo("[]"))
        .execute();
      await db.schema
        .alterTable("events")
        .addColumn("refund_policy", "text", (c) => c.notNull().defaultTo("full"))
        .execute();
    },
  },
  "0022_payments": {
    async up(db: Kysely<any>) {
      // A priced registration's payment on its row (docs/api.md, Payments), summed by the
      // financial analytics and read under the event's lock; null for a free one.
      for (const [column, type] of [
        ["payment_status", "text"],
        ["payment_amount", "integer"],
        ["payment_currency", "text"],
        ["payment_paid", "integer"],
        ["payment_refunded", "integer"],
        ["payment_provider", "text"],
        ["payment_expires_at", "text"],
        ["payment_intent_id", "text"],
        ["payment_client_secret", "text"],
        ["payment_account", "text"],
        ["payment_promoted", "integer"],
      ] as const)
        await db.schema.alterTable("attendees").addColumn(column, type).execute();
      // Holds that run out unpaid are found by their end (the expiry worker), intents by their id (Stripe's events).
      // Its status list is PAYABLE_PAYMENT_STATUSES (resources/payment.ts), written out because a
      // migration is frozen text; a test keeps the two in agreement.
      await db.schema
        .createIndex("attendees_payment_hold")
        .on("attendees")
        .column("payment_expires_at")
        .where(sql.ref("payment_status"), "in", [sql.lit("requires_payment"), sql.lit("failed")])
        .execute();
      await db.schema
        .createIndex("attendees_payment_intent")
        .on("attendees")
        .column("payment_intent_id")
        .where(sql.ref("payment_intent_id"), "is not", null)
        .execute();
      // The ledger: every movement of money, kept when its registration is erased (without its
      // personal data: no name, no email) and when its event is deleted.
      await db.schema
        .createTable("payments")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
        // No foreign key: the ledger outlives its event, whose deletion may leave refunds to make at Stripe.
        .addColumn("event_id", "text", (c) => c.notNull())
        .addColumn("attendee_id", "text", (c) => c.notNull())
        .addColumn("kind", "text", (c) => c.notNull())
        .addColumn("amount", "integer", (c) => c.notNull())
        .addColumn("currency", "text", (c) => c.notNull())
        .addColumn("ticket_type", "text", (c) => c.notNull())
        .addColumn("provider", "text", (c) => c.notNull())
        .addColumn("method", "text")
        .addColumn("reference", "text")
        .addColumn("provider_reference", "text")
        .addColumn("payment_intent_id", "text")
        .addColumn("stripe_account", "text")
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("payments_event").on("payments").columns(["event_id", "kind"]).execute();
      await db.schema.createIndex("payments_attendee").on("payments").columns(["attendee_id", "created_at"]).execute();
      // Refunds still to be made at Stripe (the payment worker's queue).
      await db.schema
        .createIndex("payments_pending")
        .on("payments")
        .column("created_at")
        .where(sql.ref("status"), "=", sql.lit("pending"))
        .execute();
      // Stripe's events handled, by their id: each is handled once however often it arrives.
      await db.schema
        .createTable("stripe_events")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("type", "text", (c) => c.notNull())
        .addColumn("received_at", "text", (c) => c.notNull())
        .execute();
      // An account's own Stripe account (Connect direct charges).
      await db.schema
        .createTable("payment_settings")
        .addColumn("account_id", "text", (c) => c.primaryKey().references("accounts.id"))
        .addColumn("stripe_account_id", "text")
        .addColumn("updated_at", "text", (c) => c.notNull())
        .execute();
    },
  },
  "0023_payment_admission": {
    async up(db: Kysely<any>) {
      // When a registration's money kept first reached its price: the amounts alone cannot tell a
      // refund after admission (the ticket stays valid) from one before it (still owed).
      await db.schema.alterTable("attendees").addColumn("payment_admitted_at", "text").execute();
      // Admitted already: paid, keeping its price, or confirmed or checked in with a payment (a
      // cancellation took admission away). The time is the best known: its last change.
      await db
        .updateTable("attendees")
        .set({ payment_admitted_at: sql.ref("updated_at") })
        .where("payment_status", "is not", null)
        .where("status", "in", [sql.lit("pending"), sql.lit("confirmed"), sql.lit("checked-in")])
        .where((eb) =>
          eb.or([
            eb("payment_status", "=", sql.lit("paid")),
            eb(sql`payment_paid - payment_refunded`, ">=", sql.ref("payment_amount")),
            eb("status", "in", [sql.lit("confirmed"), sql.lit("checked-in")]),
          ]),
        )
        .execute();
      // Statuses as admission now reads them: admitted, by the money kept; not admitted and
      // holding a place, still taking money whatever went back.
      await db
        .updateTable("attendees")
        .set({
          payment_status: sql`case when payment_paid - payment_refunded >= payment_amount then 'paid' when payment_paid - payment_refunded <= 0 then 'refunded' else 'partially_refunded' end`,
        })
        .where("payment_admitted_at", "is not", null)
        .execute();
      await db
        .updateTable("attendees")
        .set({ payment_status: sql.lit("requires_payment") })
        .where("payment_admitted_at", "is", null)
        .where("status", "in", [sql.lit("pending"), sql.lit("confirmed"), sql.lit("checked-in")])
        .where("payment_status", "in", [sql.lit("paid"), sql.lit("refunded"), sql.lit("partially_refunded")])
        .execute();
    },
  },
  "0024_event_time_zone": {
    async up(db: Kysely<any>) {
      // The IANA name an event's times are shown in by pages and the report; null: UTC.
      await db.schema.alterTable("events").addColumn("time_zone", "text").execute();
    },
  },
  "0025_ticket_links": {
    async up(db: Kysely<any>) {
      // An attendee's ticket links (docs/api.md, Ticket link): a token's hash each, found by it;
      // a registration may hold several, and they go with it.
      await db.schema
        .createTable("ticket_links")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
        .addColumn("attendee_id", "text", (c) => c.notNull().references("attendees.id").onDelete("cascade"))
        .addColumn("link_hash", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("ticket_links_hash").on("ticket_links").column("link_hash").unique().execute();
      await db.schema.createIndex("ticket_links_attendee").on("ticket_links").column("attendee_id").execute();
    },
  },
  "0026_checkout_sessions": {
    async up(db: Kysely<any>) {
      // The Stripe Checkout Session a registration pays through from its ticket page (its latest
      // one: a new one expires the old), so the hold's end expires it at Stripe; null: none.
      await db.schema.alterTable("attendees").addColumn("payment_checkout_session_id", "text").execute();
    },
  },
  "0027_email_outbox": {
    async up(db: Kysely<any>) {
      // Emails to send, written in the transaction of the change they tell of. Neither the
      // address nor the link is kept: both are read or made when the email is sent.
      await db.schema
        .createTable("email_outbox")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
        .addColumn("event_id", "text", (c) => c.notNull())
        .addColumn("kind", "text", (c) => c.notNull())
        .addColumn("reason", "text", (c) => c.notNull())
        .addColumn("subject_id", "text", (c) => c.notNull())
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("attempts", "integer", (c) => c.notNull())
        .addColumn("next_attempt_at", "text", (c) => c.notNull())
        .addColumn("lease_owner", "text")
        .addColumn("lease_until", "text")
        .addColumn("last_error", "text")
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("email_outbox_due")
        .on("email_outbox")
        .columns(["status", "next_attempt_at"])
        .execute();
      await db.schema.createIndex("email_outbox_event").on("email_outbox").column("event_id").execute();
      // A booking's live links: the one its creation or rotation answered, and one per email sent.
      await db.schema
        .createTable("vendor_booking_links")
        .addColumn("link_hash", "text", (c) => c.primaryKey())
        .addColumn("booking_id", "text", (c) => c.notNull().references("vendor_bookings.id").onDelete("cascade"))
        .addColumn("created_at", "text", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("vendor_booking_links_booking")
        .on("vendor_booking_links")
        .column("booking_id")
        .execute();
      await db
        .insertInto("vendor_booking_links")
        .columns(["link_hash", "booking_id", "created_at"])
        .expression((eb: any) => eb.selectFrom("vendor_bookings").select(["link_hash", "id", "updated_at"]))
        .execute();
      await db.schema.dropIndex("vendor_bookings_link").execute();
      await db.schema.alterTable("vendor_bookings").dropColumn("link_hash").execute();
    },
  },
  "0028_check_in_links": {
    async up(db: Kysely<any>) {
      // An event's check-in links (docs/api.md, Door): a token's hash each, found by it on
      // every request; revoking one deletes it, and they go with their event.
      await db.schema
        .createTable("check_in_links")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
        .addColumn("event_id", "text", (c) => c.notNull().references("events.id").onDelete("cascade"))
        .addColumn("link_hash", "text", (c) => c.notNull())
        .addColumn("label", "text")
        .addColumn("expires_at", "text")
        .addColumn("created_at", "text", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("check_in_links_hash").on("check_in_links").column("link_hash").unique().execute();
      await db.schema
        .createIndex("check_in_links_event")
        .on("check_in_links")
        .columns(["event_id", "created_at"])
        .execute();
    },
  },
  "0029_factor_set_per_event": {
    async up(db: Kysely<any>) {
      // One factor set per year (docs/api.md, Factor sets by year): each event records the
      // year of the set that priced its figures, and each set that priced some its identity.
      // Until now every event was priced by the one set of 0010's row.
      await db.schema.alterTable("events").addColumn("factor_year", "integer").execute();
      await db.schema
        .createTable("factor_sets")
        .addColumn("year", "integer", (c) => c.primaryKey())
        .addColumn("identity", "text", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .execute();
      const recorded = await db.selectFrom("emission_factor_set").select(["identity", "updated_at"]).executeTakeFirst();
      if (recorded) {
        // The identity is a JSON array whose second item is the set's year.
        const year = (JSON.parse(recorded.identity) as unknown[])[1] as number;
        await db
          .insertInto("factor_sets")
          .values({ year, identity: recorded.identity, updated_at: recorded.updated_at })
          .execute();
        await db.updateTable("events").set({ factor_year: year }).execute();
      }
      await db.schema.dropTable("emission_factor_set").execute();
      await db.schema.alterTable("kept_tallies").dropColumn("factor_set").execute();
    },
  },
};

/** Serves {@link MIGRATIONS} to kysely's `Migrator`. */
export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return MIGRATIONS;
  },
};
