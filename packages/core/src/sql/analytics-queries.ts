/**
 * The analytics aggregations, in SQL through kysely: every figure is a count, sum, average,
 * minimum or maximum computed by the database over the account's events and their active
 * registrations; JavaScript only receives aggregated rows (one per account, bucket, mode or
 * value). Dialect-specific pieces (date bucketing, JSON arrays) come from `dialect.ts`. The
 * per-event report reads its registration counts from the event's kept tallies (`tally-sql.ts`),
 * summed in each registration's transaction, not from the registrations.
 */
import { type ExpressionBuilder, type Kysely, type RawBuilder, sql } from "kysely";
import type {
  AggregateFigures,
  AnalyticsFigures,
  AnalyticsFilter,
  BucketFigures,
  EventAnalyticsFigures,
  ModeFigures,
  PerEventFigures,
  ValueCount,
} from "../analytics/analytics-figures.ts";
import { LOW_CARBON_CERTIFICATION_SHARE, SCORE_TIERS } from "../analytics/certifications.ts";
import type { CarbonSettings } from "../carbon/carbon-settings.ts";
import { createFactorSets, type FactorSets } from "../carbon/factor-sets.ts";
import type { ActivityKind } from "../carbon/activity-kinds.ts";
import {
  ACTIVITY_FIGURE_COLUMNS,
  activeSql,
  carbonNeutralSql,
  contributionSql,
  emissionsBySetSql,
  scoreSql,
  scoreThreshold,
} from "./carbon-sql.ts";
import { AttendeeRecord } from "../resources/attendee.ts";
import { epochDays, type TallyFacet } from "../rules/kept-tallies.ts";
import { ACTIVE_ATTENDEE_STATUSES, isActiveAttendeeStatus } from "../rules/attendee-status.ts";
import type { EventRecord } from "../resources/event.ts";
import type { Database, EventsTable } from "./database.ts";
import { confirmedVendors } from "./vendor-sql.ts";
import { revenueFigures, ticketTypeFigures } from "./payment-sql.ts";
import type { SqlDialect } from "./dialect.ts";
import { rowToActivityFigures, rowToEvent } from "./rows.ts";
import { eventTallyReads, NO_MODE, TRAVEL_FACET } from "./tally-sql.ts";

type AttendeeStatus = AttendeeRecord["status"];
/** Every status a stored registration may have (the record's schema lists them). */
const ATTENDEE_STATUSES = AttendeeRecord.shape.status.options;
const CHECKED_IN = "checked-in" satisfies AttendeeStatus;
const CANCELLED = "cancelled" satisfies EventRecord["status"];

/** The analytics queries over one kysely instance. */
export interface AnalyticsQueries {
  /** Totals, per-event statistics, travel by mode and per-bucket figures of the events a filter selects. */
  figures(filter: AnalyticsFilter, carbon: CarbonSettings): Promise<AnalyticsFigures>;
  /** The ids among `ids` that are the account's events. */
  existingEventIds(accountId: string, ids: readonly string[]): Promise<string[]>;
  /** Everything the per-event report needs; `null` for an unknown or foreign event. */
  eventAnalyticsFigures(accountId: string, eventId: string): Promise<EventAnalyticsFigures | null>;
}

/** The companies the per-event report names. */
const TOP_COMPANIES = 10;
const NO_TRAVEL: Omit<ModeFigures, "mode"> = {
  registrations: 0,
  distanceKm: 0,
  emissionsKg: 0,
  offsetOpted: 0,
  offsetUsd: 0,
};

const num = (value: unknown): number => Number(value ?? 0);
const numOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

/**
 * Builds the analytics queries.
 *
 * @example
 * const analytics = createAnalyticsQueries(db, dialectOf(db));
 * const figures = await analytics.figures({ accountId, granularity: "monthly" }, DEFAULT_CARBON_SETTINGS);
 */
export function createAnalyticsQueries(
  db: Kysely<Database>,
  dialect: SqlDialect,
  factorSets: FactorSets = createFactorSets(),
): AnalyticsQueries {
  /**
   * What each registration row adds to its event's figures (the one definition's SQL twin),
   * its emissions under the set that priced its event: the one set when there is one, else
   * the set of its event's recorded year.
   */
  const contribution = {
    ...contributionSql(factorSets.latest),
    ...(factorSets.all.length > 1 && {
      emissions_kg: sql<number>`(case when ${activeSql} then ${emissionsBySetSql(
        factorSets,
        sql`(select fe.factor_year from events as fe where fe.id = a.event_id)`,
      )} else 0 end)`,
    }),
  };
  /** The events a filter selects (`e`): the account's, not cancelled, within its conditions. */
  function filterCondition(filter: AnalyticsFilter) {
    return (eb: ExpressionBuilder<Database & { e: EventsTable }, "e">) => {
      const conditions = [eb("e.account_id", "=", filter.accountId), eb("e.status", "<>", CANCELLED)];
      if (filter.startDate !== undefined) conditions.push(eb("e.start_date", ">=", filter.startDate));
      if (filter.endDate !== undefined) conditions.push(eb("e.start_date", "<=", filter.endDate));
      if (filter.eventIds !== undefined) conditions.push(eb("e.id", "in", [...filter.eventIds]));
      if (filter.category !== undefined) conditions.push(eb("e.category", "=", filter.category));
      return eb.and(conditions);
    };
  }

  /**
   * Travel and offsets of the active registrations of the events the filter selects, per event and travel
   * mode: the one pass over the registrations (index-only on `attendees_analytics`) that every
   * other figure is summed from.
   */
  function eventModeStats(filter: AnalyticsFilter) {
    return db
      .selectFrom("attendees as a")
      .select([
        "a.event_id",
        "a.travel_mode",
        ...modeColumns(),
        sql<number>`sum(case when status = ${sql.lit(CHECKED_IN)} then 1 else 0 end)`.as("checked_in"),
        sql<number>`sum(${contribution.travel_reported})`.as("travel_reported"),
        sql<number>`sum(${contribution.low_carbon})`.as("low_carbon"),
      ])
      .where(activeSql)
      .where("a.event_id", "in", db.selectFrom("events as e").select("e.id").where(filterCondition(filter)))
      .groupBy(["a.event_id", "a.travel_mode"]);
  }

  /** Per-event sums of `em`. */
  function eventStats(conn: Kysely<any>) {
    return conn
      .selectFrom("em")
      .select([
        "event_id",
        sql<number>`sum(registrations)`.as("active"),
        sql<number>`sum(emissions_kg)`.as("emissions_kg"),
        sql<number>`sum(offset_usd)`.as("offset_usd"),
        sql<number>`sum(offset_opted)`.as("offset_opted"),
        sql<number>`sum(checked_in)`.as("checked_in"),
        sql<number>`sum(travel_reported)`.as("travel_reported"),
        sql<number>`sum(low_carbon)`.as("low_carbon"),
      ])
      .groupBy("event_id");
  }

  /** One row per event the filter selects, with its figures, score, certifications and bucket (over `s`). */
  function perEvent(conn: Kysely<any>, filter: AnalyticsFilter, carbon: CarbonSettings) {
    const score = scoreSql(carbon);
    const offsetKg = sql`(coalesce(s.offset_usd, 0) * 1000.0 / ${sql.lit(carbon.offsetPriceUsdPerTonne)})`;
    const period = filter.granularity
      ? dialect.bucketStart(sql.ref("e.start_date"), filter.granularity)
      : sql<string>`''`;
    const tier = (floor: number, below?: number) =>
      below === undefined
        ? sql<number>`(case when ${score} >= ${sql.lit(scoreThreshold(floor))} then 1 else 0 end)`
        : sql<number>`(case when ${score} >= ${sql.lit(scoreThreshold(floor))} and ${score} < ${sql.lit(scoreThreshold(below))} then 1 else 0 end)`;
    return conn
      .selectFrom("events as e")
      .leftJoin("s", "s.event_id", "e.id")
      .where(filterCondition(filter))
      .select([
        "e.start_date",
        "e.factor_year",
        period.as("period"),
        "e.goal_carbon_neutral",
        "e.goal_renewable_energy",
        "e.goal_local_sourcing",
        "e.goal_waste_reduction",
        sql<number>`coalesce(s.active, 0)`.as("active"),
        sql<number>`coalesce(s.checked_in, 0)`.as("checked_in"),
        sql<number>`coalesce(s.offset_opted, 0)`.as("offset_opted"),
        sql<number>`coalesce(s.offset_usd, 0)`.as("offset_usd"),
        sql<number>`coalesce(s.emissions_kg, 0)`.as("emissions_kg"),
        sql<number>`coalesce(s.travel_reported, 0)`.as("travel_reported"),
        sql<number>`coalesce(s.low_carbon, 0)`.as("low_carbon"),
        ...Object.values(ACTIVITY_FIGURE_COLUMNS).map((column) => sql.ref(`e.${column}`).as(column)),
        score.as("score"),
        // Carbon neutral over the whole footprint: attendees' travel and the event's activity records.
        carbonNeutralSql(sql`(coalesce(s.emissions_kg, 0) + e.activity_emissions_kg)`, offsetKg).as(
          "cert_carbon_neutral",
        ),
        sql<number>`(case when coalesce(s.travel_reported, 0) > 0 and s.low_carbon >= ${sql.lit(LOW_CARBON_CERTIFICATION_SHARE)} * s.travel_reported then 1 else 0 end)`.as(
          "cert_low_carbon",
        ),
        tier(SCORE_TIERS.gold).as("tier_gold"),
        tier(SCORE_TIERS.silver, SCORE_TIERS.gold).as("tier_silver"),
        tier(SCORE_TIERS.bronze, SCORE_TIERS.silver).as("tier_bronze"),
      ]);
  }

  /** The aggregate columns over `pe` rows. */
  const aggregateColumns: Record<string, RawBuilder<unknown>> = {
    events: sql`count(*)`,
    attendance: sql`sum(active)`,
    checked_in: sql`sum(checked_in)`,
    offset_opted: sql`sum(offset_opted)`,
    offset_usd: sql`sum(offset_usd)`,
    emissions_kg: sql`sum(emissions_kg)`,
    travel_reported: sql`sum(travel_reported)`,
    low_carbon: sql`sum(low_carbon)`,
    goal_carbon_neutral: sql`sum(case when goal_carbon_neutral = 1 then 1 else 0 end)`,
    goal_renewable_energy: sql`sum(case when goal_renewable_energy = 1 then 1 else 0 end)`,
    goal_local_sourcing: sql`sum(case when goal_local_sourcing = 1 then 1 else 0 end)`,
    goal_waste_reduction: sql`sum(case when goal_waste_reduction > 0 then 1 else 0 end)`,
    waste_target_sum: sql`sum(coalesce(goal_waste_reduction, 0))`,
    waste_target_max: sql`max(goal_waste_reduction)`,
    ...Object.fromEntries(
      Object.values(ACTIVITY_FIGURE_COLUMNS).map((column) => [column, sql`sum(${sql.ref(column)})`]),
    ),
  };
  /** Statistics over the events' own figures (the total row only). */
  const perEventColumns: Record<string, RawBuilder<unknown>> = {
    first_start: sql`min(start_date)`,
    last_start: sql`max(start_date)`,
    score_mean: sql`avg(score)`,
    score_min: sql`min(score)`,
    score_max: sql`max(score)`,
    score_mean_sq: sql`avg(score * score)`,
    emissions_mean: sql`avg(emissions_kg)`,
    emissions_min: sql`min(emissions_kg)`,
    emissions_max: sql`max(emissions_kg)`,
    cert_carbon_neutral: sql`sum(cert_carbon_neutral)`,
    cert_low_carbon: sql`sum(cert_low_carbon)`,
    tier_gold: sql`sum(tier_gold)`,
    tier_silver: sql`sum(tier_silver)`,
    tier_bronze: sql`sum(tier_bronze)`,
  };
  /** Travel by mode (the mode rows only). */
  const modeColumnsOverEm: Record<string, RawBuilder<unknown>> = {
    attendance: sql`sum(registrations)`,
    distance_km: sql`sum(distance_km)`,
    emissions_kg: sql`sum(emissions_kg)`,
    offset_opted: sql`sum(offset_opted)`,
    offset_usd: sql`sum(offset_usd)`,
  };
  /** Activity records by kind (the kind rows only). */
  const kindColumns: Record<string, RawBuilder<unknown>> = {
    records: sql`count(*)`,
    emissions_kg: sql`sum(coalesce(emissions_kg, 0))`,
    measured_kg: sql`sum(case when data_quality = 'measured' then coalesce(emissions_kg, 0) else 0 end)`,
    unpriced: sql`sum(case when emissions_kg is null then 1 else 0 end)`,
  };
  const UNION_COLUMNS = [
    ...new Set([
      ...Object.keys(aggregateColumns),
      ...Object.keys(perEventColumns),
      ...Object.keys(kindColumns),
      "distance_km",
    ]),
  ];
  /** The text columns of the union; the others are numbers. */
  const TEXT_COLUMNS = new Set(["first_start", "last_start"]);
  /**
   * The union's select list: `kind`, `key`, then every column (null where a part has none). The
   * nulls are typed: PostgreSQL takes an untyped null in the first parts of a union for text.
   */
  const unionSelect = (kind: string, key: RawBuilder<unknown>, columns: Record<string, RawBuilder<unknown>>) => [
    sql.lit(kind).as("kind"),
    key.as("key"),
    ...UNION_COLUMNS.map((name) =>
      (columns[name] ?? (TEXT_COLUMNS.has(name) ? sql`cast(null as text)` : sql`cast(null as double precision)`)).as(
        name,
      ),
    ),
  ];

  function toAggregate(row: Record<string, unknown>): AggregateFigures {
    return {
      events: num(row.events),
      attendance: num(row.attendance),
      checkedIn: num(row.checked_in),
      offsetOpted: num(row.offset_opted),
      offsetUsd: num(row.offset_usd),
      emissionsKg: num(row.emissions_kg),
      travelReported: num(row.travel_reported),
      lowCarbonTravel: num(row.low_carbon),
      goals: {
        carbonNeutral: num(row.goal_carbon_neutral),
        renewableEnergy: num(row.goal_renewable_energy),
        localSourcing: num(row.goal_local_sourcing),
        wasteReduction: num(row.goal_waste_reduction),
      },
      wasteTargetSum: num(row.waste_target_sum),
      wasteTargetMax: numOrNull(row.waste_target_max),
      activities: rowToActivityFigures(row),
    };
  }

  /**
   * Travel sums of registrations grouped by mode: the per-event report's, and the first columns of
   * the pass every dashboard figure is summed from (`em`).
   */
  function modeSums() {
    return {
      registrations: sql<number>`count(*)`,
      distance_km: sql<number>`sum(coalesce(travel_distance, 0))`,
      emissions_kg: sql<number>`sum(${contribution.emissions_kg})`,
      offset_opted: sql<number>`sum(case when offset_opted = 1 then 1 else 0 end)`,
      offset_usd: sql<number>`sum(${contribution.offset_usd})`,
    };
  }
  const modeColumns = () => Object.entries(modeSums()).map(([name, sum]) => sum.as(name));

  const toMode = (row: Record<string, unknown>): ModeFigures => ({
    mode: (row.mode as string | null) ?? null,
    registrations: num(row.registrations),
    distanceKm: num(row.distance_km),
    emissionsKg: num(row.emissions_kg),
    offsetOpted: num(row.offset_opted),
    offsetUsd: num(row.offset_usd),
  });

  return {
    async figures(filter, carbon) {
      // One statement: the registrations are read once (em), the events' figures computed once
      // (pe, materialized), and the total, bucket and mode rows come back as one union.
      const base = db
        .with(
          (cte) => cte("em").materialized(),
          () => eventModeStats(filter),
        )
        .with("s", (conn) => eventStats(conn as Kysely<any>))
        .with(
          (cte) => cte("pe").materialized(),
          (conn) => perEvent(conn as Kysely<any>, filter, carbon),
        ) as unknown as Kysely<any>;
      let query = base
        .selectFrom("pe")
        .select(unionSelect("total", sql`cast(null as text)`, { ...aggregateColumns, ...perEventColumns }));
      // The union's other parts read the CTEs of the statement, through its own builder.
      if (filter.granularity)
        query = query.unionAll((eb) =>
          eb
            .selectFrom("pe")
            .select(unionSelect("bucket", sql`period`, aggregateColumns))
            .groupBy("period"),
        );
      query = query.unionAll((eb) =>
        eb
          .selectFrom("em")
          .select(unionSelect("mode", sql`travel_mode`, modeColumnsOverEm))
          .groupBy("travel_mode"),
      );
      query = query.unionAll((eb) =>
        eb
          .selectFrom("pe")
          .select(unionSelect("set", sql`cast(factor_year as text)`, { events: sql`count(*)` }))
          .groupBy("factor_year"),
      );
      query = query.unionAll((eb) =>
        eb
          .selectFrom("activities as act")
          .where("act.account_id", "=", filter.accountId)
          .where("act.event_id", "in", db.selectFrom("events as e").select("e.id").where(filterCondition(filter)))
          .select(unionSelect("activity", sql`act.kind`, kindColumns))
          .groupBy("act.kind"),
      );
      // Money is per currency, which the union's rows are not: its own statement, beside it.
      const [unionRows, revenue] = await Promise.all([
        query.execute(),
        revenueFigures(db, db.selectFrom("events as e").select("e.id").where(filterCondition(filter))),
      ]);
      const rows = unionRows as Array<Record<string, unknown>>;
      const totalsRow = rows.find((row) => row.kind === "total")!;
      const bucketRows = rows
        .filter((row) => row.kind === "bucket")
        .sort((x, y) => (String(x.key) < String(y.key) ? -1 : 1));
      const modeRows = rows.filter((row) => row.kind === "mode");
      const kindRows = rows.filter((row) => row.kind === "activity");
      const setRows = rows.filter((row) => row.kind === "set");
      const events = num(totalsRow.events);
      const perEventFigures: PerEventFigures = {
        score:
          events === 0
            ? null
            : {
                mean: num(totalsRow.score_mean),
                min: num(totalsRow.score_min),
                max: num(totalsRow.score_max),
                meanOfSquares: num(totalsRow.score_mean_sq),
              },
        emissions:
          events === 0
            ? null
            : {
                mean: num(totalsRow.emissions_mean),
                min: num(totalsRow.emissions_min),
                max: num(totalsRow.emissions_max),
              },
        certifications: {
          carbonNeutral: num(totalsRow.cert_carbon_neutral),
          lowCarbonTravel: num(totalsRow.cert_low_carbon),
          gold: num(totalsRow.tier_gold),
          silver: num(totalsRow.tier_silver),
          bronze: num(totalsRow.tier_bronze),
        },
      };
      return {
        span: totalsRow.first_start
          ? { first: String(totalsRow.first_start), last: String(totalsRow.last_start) }
          : null,
        totals: toAggregate(totalsRow),
        perEvent: perEventFigures,
        byMode: modeRows.map((row) => toMode({ ...row, mode: row.key, registrations: row.attendance })),
        buckets: bucketRows.map((row): BucketFigures => ({ period: String(row.key), ...toAggregate(row) })),
        activityKinds: kindRows.map((row) => ({
          kind: row.key as ActivityKind,
          records: num(row.records),
          emissionsKg: num(row.emissions_kg),
          measuredEmissionsKg: num(row.measured_kg),
          unpriced: num(row.unpriced),
        })),
        revenue,
        factorYears: setRows
          .map((row) => ({ year: row.key === null ? null : Number(row.key), events: num(row.events) }))
          .sort((x, y) => (x.year ?? 0) - (y.year ?? 0)),
      };
    },

    async existingEventIds(accountId, ids) {
      if (ids.length === 0) return [];
      const rows = await db
        .selectFrom("events")
        .select("id")
        .where("account_id", "=", accountId)
        .where("id", "in", [...ids])
        .execute();
      return rows.map((row) => row.id);
    },

    async eventAnalyticsFigures(accountId, eventId) {
      const row = await db
        .selectFrom("events")
        .selectAll()
        .where("id", "=", eventId)
        .where("account_id", "=", accountId)
        .executeTakeFirst();
      if (!row) return null;
      const event = rowToEvent(row);
      // The event's kept tallies (a few rows, whatever its registrations), its first and last
      // registration and its activity records' groups, read at once.
      const tallies = eventTallyReads(db, eventId);
      const [values, companies, windowRow, groupRows, vendors, revenue, ticketMoney] = await Promise.all([
        tallies.values(),
        tallies.topCompanies(TOP_COMPANIES),
        // Two index seeks (attendees_event_registered), where min and max in one select scan the event's entries.
        db
          .selectNoFrom([
            (eb) =>
              eb
                .selectFrom("attendees")
                .select(sql<string | null>`min(registration_date)`.as("v"))
                .where("event_id", "=", eventId)
                .as("first"),
            (eb) =>
              eb
                .selectFrom("attendees")
                .select(sql<string | null>`max(registration_date)`.as("v"))
                .where("event_id", "=", eventId)
                .as("last"),
          ])
          .executeTakeFirstOrThrow(),
        db
          .selectFrom("activities")
          .where("event_id", "=", eventId)
          .select([
            "kind",
            "data_quality",
            "source",
            "stream",
            "fuel",
            "mode",
            "unit",
            "factor",
            sql<number>`count(*)`.as("records"),
            sql<number>`sum(quantity)`.as("quantity"),
            sql<number>`sum(coalesce(emissions_kg, 0))`.as("emissions_kg"),
            sql<number>`sum(case when emissions_kg is null then 1 else 0 end)`.as("unpriced"),
          ])
          .groupBy(["kind", "data_quality", "source", "stream", "fuel", "mode", "unit", "factor"])
          .execute(),
        confirmedVendors(db, eventId),
        revenueFigures(db, db.selectFrom("events as e").select("e.id").where("e.id", "=", eventId)),
        ticketTypeFigures(db, eventId),
      ]);
      const of = (facet: TallyFacet) => values.filter((v) => v.facet === facet);
      const travel = values.filter((v) => v.facet === TRAVEL_FACET);
      const valueCounts = (rows: ReadonlyArray<{ value: string; registrations: number }>): ValueCount[] =>
        rows.map((r) => ({ value: r.value, count: num(r.registrations) }));
      const statuses = Object.fromEntries(ATTENDEE_STATUSES.map((status) => [status, 0])) as Record<
        AttendeeStatus,
        number
      >;
      let registeredDays = 0;
      for (const r of of("status")) {
        statuses[r.value as AttendeeStatus] = num(r.registrations);
        if (isActiveAttendeeStatus(r.value as AttendeeStatus)) registeredDays += num(r.registered_days);
      }
      const active = ACTIVE_ATTENDEE_STATUSES.reduce((sum, status) => sum + statuses[status], 0);
      const needs = Object.fromEntries(of("need").map((r) => [r.value, num(r.registrations)]));
      const byMode = new Map<string, ModeFigures>();
      for (const t of travel) {
        const mode = byMode.get(t.value) ?? { ...NO_TRAVEL, mode: t.value === NO_MODE ? null : t.value };
        mode.registrations += num(t.registrations);
        mode.distanceKm += num(t.distance_km);
        mode.emissionsKg += num(t.emissions_kg);
        mode.offsetOpted += num(t.offset_opted);
        mode.offsetUsd += num(t.offset_usd);
        byMode.set(t.value, mode);
      }
      return {
        event,
        factorYear: row.factor_year === null ? null : Number(row.factor_year),
        statuses,
        ticketTypes: valueCounts(of("ticket")),
        companies: {
          distinct: num(companies[0]?.companies),
          notGiven: active - num(companies[0]?.given),
          top: valueCounts(companies),
        },
        dietaryPreferences: valueCounts(of("diet")),
        accessibility: {
          wheelchairAccess: needs.wheelchairAccess ?? 0,
          signLanguage: needs.signLanguage ?? 0,
          visualAid: needs.visualAid ?? 0,
          other: needs.other ?? 0,
          any: needs.any ?? 0,
        },
        byMode: [...byMode.values()],
        travelBands: travel.flatMap((t) =>
          t.value === NO_MODE ? [] : [{ mode: t.value, band: num(t.band), registrations: num(t.registrations) }],
        ),
        registrationWindow: windowRow.first ? { first: String(windowRow.first), last: String(windowRow.last) } : null,
        // The mean of (start - registered) is the start less the mean registration time.
        averageLeadTimeDays: active === 0 ? null : epochDays(event.startDate) - registeredDays / active,
        activities: rowToActivityFigures(row),
        activityGroups: groupRows.map((g) => ({
          kind: g.kind as ActivityKind,
          dataQuality: g.data_quality,
          source: g.source,
          stream: g.stream,
          fuel: g.fuel,
          mode: g.mode,
          unit: g.unit,
          factor: g.factor,
          records: num(g.records),
          quantity: num(g.quantity),
          emissionsKg: num(g.emissions_kg),
          unpriced: num(g.unpriced),
        })),
        confirmedVendors: vendors,
        revenue,
        ticketMoney,
      };
    },
  };
}
