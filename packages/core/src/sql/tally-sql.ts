/**
 * The tallies an event keeps of its registrations' values (`rules/kept-tallies.ts`), one
 * table for both kinds (the travel ones under the facet `travel`, keyed by mode and band), so a
 * registration's change is one statement: their changes in a registration's transaction, their
 * recount from the registration rows, and their reads for the per-event report. The recount's
 * selects are the SQL twins of `talliesOf` and `travelTallyOf`; a test keeps each pair in
 * agreement on every backend.
 */
import { type Kysely, type RawBuilder, type SelectQueryBuilder, sql } from "kysely";
import { activeSql, contributionSql, travelBandSql } from "./carbon-sql.ts";
import type { EmissionFactorSet } from "../carbon/emission-factors.ts";
import { FLAG_NEEDS, TALLY_DEFINITION } from "../rules/kept-tallies.ts";
import type { TallyWrites } from "../storage/transaction.ts";
import type { Database } from "./database.ts";
import type { SqlDialect } from "./dialect.ts";
import { type Param, precompile } from "./precompiled.ts";

/** The facet of the travel tallies. */
export const TRAVEL_FACET = "travel";
/** The stored mode (`value`) of registrations without a travel mode (a key column cannot be null). */
export const NO_MODE = "";

/** The columns of a tally row, in the order the recount's selects give them. */
const TALLY_COLUMNS = [
  "event_id",
  "facet",
  "value",
  "band",
  "registrations",
  "registered_days",
  "distance_km",
  "emissions_kg",
  "offset_opted",
  "offset_usd",
] as const;

/**
 * The tallies of every event, summed from its registration rows: the SQL twin of `talliesOf`
 * (rows of {@link TALLY_COLUMNS}, the travel sums 0).
 */
function talliesSelect(db: Kysely<Database>, dialect: SqlDialect) {
  const days = dialect.epochDays(sql.ref("a.registration_date"));
  const sums = [
    sql<number>`count(*)`.as("registrations"),
    sql<number>`sum(${days})`.as("registered_days"),
    sql<number>`0`.as("distance_km"),
    sql<number>`0`.as("emissions_kg"),
    sql<number>`0`.as("offset_opted"),
    sql<number>`0`.as("offset_usd"),
  ];
  const band = sql.lit(0).as("band");
  const active = db.selectFrom("attendees as a").where(activeSql);
  const accessibility = sql.ref("a.accessibility_needs") as unknown as RawBuilder<unknown>;
  const needs = [
    ...FLAG_NEEDS.map((need) => [need, dialect.jsonFlag(accessibility, need)] as const),
    ["other", dialect.jsonTextPresent(accessibility, "other")] as const,
  ];
  const need = (value: string, stated: RawBuilder<number>) =>
    active
      .where(sql<boolean>`${stated} = 1`)
      .select(["a.event_id", sql.lit("need").as("facet"), sql.lit(value).as("value"), band, ...sums])
      .groupBy("a.event_id");
  let query = db
    .selectFrom("attendees as a")
    .select(["a.event_id", sql.lit("status").as("facet"), sql<string>`a.status`.as("value"), band, ...sums])
    .groupBy(["a.event_id", "a.status"])
    .unionAll(
      active
        .select(["a.event_id", sql.lit("ticket").as("facet"), sql<string>`a.ticket_type`.as("value"), band, ...sums])
        .groupBy(["a.event_id", "a.ticket_type"]),
    )
    .unionAll(
      active
        .where("a.company", "is not", null)
        .select(["a.event_id", sql.lit("company").as("facet"), sql<string>`a.company`.as("value"), band, ...sums])
        .groupBy(["a.event_id", "a.company"]),
    )
    .unionAll(
      db
        .selectFrom(["attendees as a", dialect.jsonArrayElements(sql.ref("a.dietary_preferences"), "d")])
        .where(activeSql)
        .select([
          sql<string>`a.event_id`.as("event_id"),
          sql.lit("diet").as("facet"),
          sql<string>`d.value`.as("value"),
          band,
          ...sums,
        ])
        .groupBy([sql`a.event_id`, sql`d.value`]),
    );
  for (const [value, stated] of needs) query = query.unionAll(need(value, stated));
  return query.unionAll(
    need(
      "any",
      sql<number>`(case when ${sql.join(
        needs.map(([, s]) => s),
        sql` + `,
      )} > 0 then 1 else 0 end)`,
    ),
  );
}

/**
 * The travel tallies under `factors` of the events `eventIds` selects, summed from their
 * registration rows: the SQL twin of `travelTallyOf`.
 */
function travelTalliesSelect(db: Kysely<Database>, factors: EmissionFactorSet, eventIds: EventIds) {
  const contribution = contributionSql(factors);
  // Each active registration's key and sums first, then grouped by column: a band that is a
  // constant (a set whose modes have one factor each) would read as a position in GROUP BY.
  const rows = db
    .selectFrom("attendees as a")
    .where(activeSql)
    .where("a.event_id", "in", eventIds)
    .select([
      "a.event_id",
      sql<string>`coalesce(a.travel_mode, ${sql.lit(NO_MODE)})`.as("mode"),
      travelBandSql(factors).as("band"),
      sql<number>`coalesce(a.travel_distance, 0)`.as("distance_km"),
      contribution.emissions_kg.as("emissions_kg"),
      sql<number>`(case when a.offset_opted = 1 then 1 else 0 end)`.as("offset_opted"),
      contribution.offset_usd.as("offset_usd"),
    ])
    .as("t");
  return db
    .selectFrom(rows)
    .select([
      "t.event_id",
      sql.lit(TRAVEL_FACET).as("facet"),
      "t.mode as value",
      "t.band",
      sql<number>`count(*)`.as("registrations"),
      sql<number>`0`.as("registered_days"),
      sql<number>`sum(t.distance_km)`.as("distance_km"),
      sql<number>`sum(t.emissions_kg)`.as("emissions_kg"),
      sql<number>`sum(t.offset_opted)`.as("offset_opted"),
      sql<number>`sum(t.offset_usd)`.as("offset_usd"),
    ])
    .groupBy(["t.event_id", "t.mode", "t.band"]);
}

/** A subquery of event ids (`select id from events where ...`). */
type EventIds = SelectQueryBuilder<Database, "events", { id: string }>;

/** The columns of a tally row, for an insert from a select. */
const insertTallies = (trx: Kysely<Database>, select: ReturnType<typeof talliesSelect | typeof travelTalliesSelect>) =>
  trx.insertInto("event_tallies").columns(TALLY_COLUMNS).expression(select).execute();

/**
 * Counts again the travel tallies of the events `eventIds` selects under `factors`, in the
 * caller's write transaction (under their locks, or the write lock of a start's repricing).
 */
export async function recountTravelTallies(
  trx: Kysely<Database>,
  factors: EmissionFactorSet,
  eventIds: EventIds,
): Promise<void> {
  await trx.deleteFrom("event_tallies").where("facet", "=", TRAVEL_FACET).where("event_id", "in", eventIds).execute();
  await insertTallies(trx, travelTalliesSelect(trx, factors, eventIds));
}

/**
 * Counts every event's tallies again from its registrations, each event's travel under the set
 * that priced it (`events.factor_year`, as `setOf` gives it), in the caller's write transaction,
 * when they were counted under another definition. A registration another process writes
 * meanwhile is counted once: its change's upsert waits for the rows the recount deleted or wrote
 * (PostgreSQL) or for its write lock (SQLite), and the recount reads the registrations after its
 * delete.
 */
export async function recountTallies(
  trx: Kysely<Database>,
  dialect: SqlDialect,
  setOf: (factorYear: number | null) => EmissionFactorSet,
  at: string,
): Promise<void> {
  await trx.deleteFrom("event_tallies").execute();
  await insertTallies(trx, talliesSelect(trx, dialect));
  const years = await trx.selectFrom("events").select("factor_year").distinct().execute();
  for (const { factor_year: year } of years) {
    const eventIds = trx
      .selectFrom("events")
      .select("id")
      .where("factor_year", year === null ? "is" : "=", year);
    await insertTallies(trx, travelTalliesSelect(trx, setOf(year), eventIds));
  }
  await trx
    .updateTable("kept_tallies")
    .set({ definition: TALLY_DEFINITION, updated_at: at })
    .where("id", "=", 1)
    .execute();
}

/** The definition the stored tallies were counted under (0: never), read for update in a write transaction. */
export function talliesState(trx: Kysely<Database>, dialect: SqlDialect) {
  return dialect.lockRows(trx.selectFrom("kept_tallies").selectAll().where("id", "=", 1)).executeTakeFirst();
}

/** The columns of a tally row after `event_id`: its key and its sums. */
const ROW_COLUMNS = TALLY_COLUMNS.slice(1) as Array<Exclude<(typeof TALLY_COLUMNS)[number], "event_id">>;
type RowColumn = (typeof ROW_COLUMNS)[number];
type Summed = Exclude<RowColumn, "facet" | "value" | "band">;
const SUMMED = ROW_COLUMNS.slice(3) as Summed[];
/** One row of a change, by column. */
type TallyRow = { facet: string; value: string } & Record<Exclude<RowColumn, "facet" | "value">, number>;
/** Parameters numbered per row (`facet_0`, `facet_1`, ...) of a precompiled multi-row insert. */
type Numbered<T, Name extends string> = { [K in `${Name}_${number}`]: T };
type TallyParams = { event: string } & Numbered<string, "facet" | "value"> &
  Numbered<number, Exclude<RowColumn, "facet" | "value">>;

/**
 * The changes of an event's tallies, bound to a write transaction: a change's rows, both kinds,
 * go in one upsert, compiled once per number of rows (a registration moves a handful); the values
 * it left with no registration are deleted.
 */
export function createTallyWrites(db: Kysely<Database>): (trx: Kysely<Database>) => TallyWrites {
  const compileUpsert = (rows: number) =>
    precompile(db, (conn, param: Param<TallyParams>) =>
      conn
        .insertInto("event_tallies")
        .values(
          Array.from({ length: rows }, (_, i) => ({
            event_id: param("event"),
            facet: param(`facet_${i}`),
            value: param(`value_${i}`),
            band: param(`band_${i}`),
            registrations: param(`registrations_${i}`),
            registered_days: param(`registered_days_${i}`),
            distance_km: param(`distance_km_${i}`),
            emissions_kg: param(`emissions_kg_${i}`),
            offset_opted: param(`offset_opted_${i}`),
            offset_usd: param(`offset_usd_${i}`),
          })),
        )
        .onConflict((oc) =>
          oc
            .columns(["event_id", "facet", "value", "band"])
            .doUpdateSet((eb) =>
              Object.fromEntries(
                SUMMED.map((column) => [column, eb(`event_tallies.${column}`, "+", eb.ref(`excluded.${column}`))]),
              ),
            ),
        ),
    );
  const upserts = new Map<number, ReturnType<typeof compileUpsert>>();
  const readQuery = precompile(db, (conn, param: Param<{ event: string; facet: string }>) =>
    conn
      .selectFrom("event_tallies")
      .select(["value", "registrations"])
      .where("event_id", "=", param("event"))
      .where("facet", "=", param("facet")),
  );
  const none = { band: 0, registered_days: 0, distance_km: 0, emissions_kg: 0, offset_opted: 0, offset_usd: 0 };

  return (trx) => ({
    async adjust(eventId, tallies, travel) {
      const rows: TallyRow[] = [
        ...tallies.map((t) => ({
          ...none,
          facet: t.facet,
          value: t.value,
          registrations: t.registrations,
          registered_days: t.registeredDays,
        })),
        ...travel.map((t) => ({
          ...none,
          facet: TRAVEL_FACET,
          value: t.mode ?? NO_MODE,
          band: t.band,
          registrations: t.registrations,
          distance_km: t.distanceKm,
          emissions_kg: t.emissionsKg,
          offset_opted: t.offsetOpted,
          offset_usd: t.offsetUsd,
        })),
      ];
      if (rows.length === 0) return;
      let upsert = upserts.get(rows.length);
      if (!upsert) upserts.set(rows.length, (upsert = compileUpsert(rows.length)));
      const values: Record<string, string | number> = { event: eventId };
      for (const [i, row] of rows.entries()) for (const column of ROW_COLUMNS) values[`${column}_${i}`] = row[column];
      await upsert(values as TallyParams, trx);
      // A value no registration has any longer goes (an erased registration's company with it).
      // Only a change that takes registrations away can leave one; RETURNING would tell which,
      // at several times the upsert's own cost on SQLite.
      const decreased = rows.filter((row) => row.registrations < 0);
      if (decreased.length > 0)
        await trx
          .deleteFrom("event_tallies")
          .where("event_id", "=", eventId)
          .where((eb) => eb.or(decreased.map(({ facet, value, band }) => eb.and({ facet, value, band }))))
          .where("registrations", "=", 0)
          .execute();
    },
    async read(eventId, facet) {
      const rows = await readQuery({ event: eventId, facet }, trx);
      return rows.rows.map((row) => ({ value: row.value, registrations: Number(row.registrations) }));
    },
  });
}

/**
 * The stored tallies of one event, for reads: every facet's values and the travel (a few rows),
 * and the companies apart (there may be many: the top ones, with their number and sum).
 */
export function eventTallyReads(db: Kysely<Database>, eventId: string) {
  return {
    values: () =>
      db
        .selectFrom("event_tallies")
        .where("event_id", "=", eventId)
        .where("facet", "<>", "company")
        .select(["facet", "value", "band", ...SUMMED])
        .orderBy("facet")
        .orderBy("registrations", "desc")
        .orderBy("value")
        .orderBy("band")
        .execute(),
    /** The `limit` companies with most registrations, each row with the number of companies and their registrations. */
    topCompanies: (limit: number) =>
      db
        .selectFrom("event_tallies")
        .where("event_id", "=", eventId)
        .where("facet", "=", "company")
        .select([
          "value",
          "registrations",
          sql<number>`count(*) over ()`.as("companies"),
          sql<number>`sum(registrations) over ()`.as("given"),
        ])
        .orderBy("registrations", "desc")
        .orderBy("value")
        .limit(limit)
        .execute(),
  };
}
