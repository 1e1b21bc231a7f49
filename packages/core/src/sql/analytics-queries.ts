/**
 * The analytics aggregations, in SQL through kysely: every figure is a count, sum, average,
 * minimum or maximum computed by the database over the account's events and their active
 * registrations; JavaScript only receives aggregated rows (one per account, bucket, mode or
 * value). Dialect-specific pieces (date bucketing, JSON arrays) come from `dialect.ts`.
 */
import { type ExpressionBuilder, type Kysely, type RawBuilder, sql } from "kysely";
import type {
  AggregateFigures, AnalyticsFigures, AnalyticsScope, BucketFigures, EventFigures, ModeFigures, PerEventFigures, ValueCount,
} from "../analytics/analytics-figures.ts";
import { LOW_CARBON_CERTIFICATION_SHARE, SCORE_TIERS } from "../analytics/certifications.ts";
import type { CarbonSettings } from "../carbon/carbon-settings.ts";
import { ACTIVE_ATTENDEE_STATUSES, ATTENDEE_STATUSES, type AttendeeStatus } from "../rules/attendee-status.ts";
import { emissionsSql, lowCarbonModesSql, scoreSql, scoreThreshold } from "./carbon-sql.ts";
import type { Database } from "./database.ts";
import {
  bucketStartSql, daysBetweenSql, type DialectName, jsonArrayElementsSql, jsonFlagSql, jsonTextPresentSql,
} from "./dialect.ts";
import { rowToEvent } from "./rows.ts";

const ACTIVE = [...ACTIVE_ATTENDEE_STATUSES];

/** The analytics queries over one kysely instance. */
export interface AnalyticsQueries {
  /** Totals, per-event statistics, travel by mode and per-bucket figures of a scope. */
  figures(scope: AnalyticsScope, carbon: CarbonSettings): Promise<AnalyticsFigures>;
  /** The ids among `ids` that are the account's events. */
  existingEventIds(accountId: string, ids: readonly string[]): Promise<string[]>;
  /** Everything the per-event report needs; `null` for an unknown or foreign event. */
  eventFigures(accountId: string, eventId: string): Promise<EventFigures | null>;
}

const num = (value: unknown): number => Number(value ?? 0);
const numOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

/**
 * Builds the analytics queries.
 *
 * @example
 * const analytics = createAnalyticsQueries(db, "sqlite");
 * const figures = await analytics.figures({ accountId, granularity: "monthly" }, DEFAULT_CARBON_SETTINGS);
 */
export function createAnalyticsQueries(db: Kysely<Database>, dialect: DialectName): AnalyticsQueries {
  /** The scope's events (`e`): the account's, not cancelled, within the filters. */
  function scopeFilter(scope: AnalyticsScope) {
    return (eb: ExpressionBuilder<any, any>) => {
      const conditions = [eb("e.account_id", "=", scope.accountId), eb("e.status", "<>", "cancelled")];
      if (scope.startDate !== undefined) conditions.push(eb("e.start_date", ">=", scope.startDate));
      if (scope.endDate !== undefined) conditions.push(eb("e.start_date", "<=", scope.endDate));
      if (scope.eventIds !== undefined) conditions.push(eb("e.id", "in", [...scope.eventIds]));
      if (scope.category !== undefined) conditions.push(eb("e.category", "=", scope.category));
      return eb.and(conditions);
    };
  }

  /** Per-event figures of the active registrations of the scope's events (index-only on `attendees_analytics`). */
  function statsOf(scope: AnalyticsScope) {
    return db
      .selectFrom("attendees as a")
      .select([
        "a.event_id",
        sql<number>`count(*)`.as("active"),
        sql<number>`sum(${emissionsSql()})`.as("emissions_kg"),
        sql<number>`sum(case when offset_opted = 1 then offset_amount else 0 end)`.as("offset_usd"),
        sql<number>`sum(case when offset_opted = 1 then 1 else 0 end)`.as("offset_opted"),
        sql<number>`sum(case when travel_mode is not null then 1 else 0 end)`.as("travel_reported"),
        sql<number>`sum(case when travel_mode in (${lowCarbonModesSql}) then 1 else 0 end)`.as("low_carbon"),
        sql<number>`sum(case when status = 'checked-in' then 1 else 0 end)`.as("checked_in"),
      ])
      .where("a.status", "in", ACTIVE)
      .where("a.event_id", "in", db.selectFrom("events as e").select("e.id").where(scopeFilter(scope)))
      .groupBy("a.event_id");
  }

  /** One row per event of the scope with its figures, score, certifications and bucket. */
  function perEvent(scope: AnalyticsScope, carbon: CarbonSettings) {
    const score = scoreSql(carbon);
    const offsetKg = sql`(coalesce(s.offset_usd, 0) * 1000.0 / ${sql.lit(carbon.offsetPriceUsdPerTonne)})`;
    const period = scope.granularity ? bucketStartSql(sql.ref("e.start_date"), scope.granularity, dialect) : sql<string>`''`;
    const tier = (floor: number, below?: number) =>
      below === undefined
        ? sql<number>`(case when ${score} >= ${sql.lit(scoreThreshold(floor))} then 1 else 0 end)`
        : sql<number>`(case when ${score} >= ${sql.lit(scoreThreshold(floor))} and ${score} < ${sql.lit(scoreThreshold(below))} then 1 else 0 end)`;
    return db
      .selectFrom("events as e")
      .leftJoin(statsOf(scope).as("s"), "s.event_id", "e.id")
      .where(scopeFilter(scope))
      .select([
        "e.start_date",
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
        score.as("score"),
        sql<number>`(case when coalesce(s.travel_reported, 0) > 0 and ${offsetKg} >= coalesce(s.emissions_kg, 0) then 1 else 0 end)`.as("cert_carbon_neutral"),
        sql<number>`(case when coalesce(s.travel_reported, 0) > 0 and s.low_carbon >= ${sql.lit(LOW_CARBON_CERTIFICATION_SHARE)} * s.travel_reported then 1 else 0 end)`.as(
          "cert_low_carbon",
        ),
        tier(SCORE_TIERS.gold).as("tier_gold"),
        tier(SCORE_TIERS.silver, SCORE_TIERS.gold).as("tier_silver"),
        tier(SCORE_TIERS.bronze, SCORE_TIERS.silver).as("tier_bronze"),
      ]);
  }

  /** The aggregate columns over `pe` rows. */
  const aggregateColumns = [
    sql<number>`count(*)`.as("events"),
    sql<number>`sum(active)`.as("attendance"),
    sql<number>`sum(checked_in)`.as("checked_in"),
    sql<number>`sum(offset_opted)`.as("offset_opted"),
    sql<number>`sum(offset_usd)`.as("offset_usd"),
    sql<number>`sum(emissions_kg)`.as("emissions_kg"),
    sql<number>`sum(travel_reported)`.as("travel_reported"),
    sql<number>`sum(low_carbon)`.as("low_carbon"),
    sql<number>`sum(case when goal_carbon_neutral = 1 then 1 else 0 end)`.as("goal_carbon_neutral"),
    sql<number>`sum(case when goal_renewable_energy = 1 then 1 else 0 end)`.as("goal_renewable_energy"),
    sql<number>`sum(case when goal_local_sourcing = 1 then 1 else 0 end)`.as("goal_local_sourcing"),
    sql<number>`sum(case when goal_waste_reduction > 0 then 1 else 0 end)`.as("goal_waste_reduction"),
    sql<number>`sum(coalesce(goal_waste_reduction, 0))`.as("waste_target_sum"),
    sql<number | null>`max(goal_waste_reduction)`.as("waste_target_max"),
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
    };
  }

  function modeColumns() {
    return [
      sql<number>`count(*)`.as("registrations"),
      sql<number>`sum(coalesce(travel_distance, 0))`.as("distance_km"),
      sql<number>`sum(${emissionsSql()})`.as("emissions_kg"),
      sql<number>`sum(case when offset_opted = 1 then 1 else 0 end)`.as("offset_opted"),
      sql<number>`sum(case when offset_opted = 1 then offset_amount else 0 end)`.as("offset_usd"),
    ];
  }

  const toMode = (row: Record<string, unknown>): ModeFigures => ({
    mode: (row.mode as string | null) ?? null,
    registrations: num(row.registrations),
    distanceKm: num(row.distance_km),
    emissionsKg: num(row.emissions_kg),
    offsetOpted: num(row.offset_opted),
    offsetUsd: num(row.offset_usd),
  });

  return {
    async figures(scope, carbon) {
      const pe = () => db.with("pe", () => perEvent(scope, carbon)).selectFrom("pe" as never);
      const [totalsRow, bucketRows, modeRows] = await Promise.all([
        (pe() as any)
          .select([
            ...aggregateColumns,
            sql<string | null>`min(start_date)`.as("first_start"),
            sql<string | null>`max(start_date)`.as("last_start"),
            sql<number | null>`avg(score)`.as("score_mean"),
            sql<number | null>`min(score)`.as("score_min"),
            sql<number | null>`max(score)`.as("score_max"),
            sql<number | null>`avg(score * score)`.as("score_mean_sq"),
            sql<number | null>`avg(emissions_kg)`.as("emissions_mean"),
            sql<number | null>`min(emissions_kg)`.as("emissions_min"),
            sql<number | null>`max(emissions_kg)`.as("emissions_max"),
            sql<number>`sum(cert_carbon_neutral)`.as("cert_carbon_neutral"),
            sql<number>`sum(cert_low_carbon)`.as("cert_low_carbon"),
            sql<number>`sum(tier_gold)`.as("tier_gold"),
            sql<number>`sum(tier_silver)`.as("tier_silver"),
            sql<number>`sum(tier_bronze)`.as("tier_bronze"),
          ])
          .executeTakeFirstOrThrow() as Promise<Record<string, unknown>>,
        scope.granularity
          ? ((pe() as any).select(["period", ...aggregateColumns]).groupBy("period").orderBy("period").execute() as Promise<Array<Record<string, unknown>>>)
          : Promise.resolve([]),
        db
          .selectFrom("attendees as a")
          .innerJoin("events as e", "e.id", "a.event_id")
          .where(scopeFilter(scope))
          .where("a.status", "in", ACTIVE)
          .select([sql<string | null>`a.travel_mode`.as("mode"), ...modeColumns()])
          .groupBy("a.travel_mode")
          .execute() as Promise<Array<Record<string, unknown>>>,
      ]);
      const events = num(totalsRow.events);
      const perEventFigures: PerEventFigures = {
        score:
          events === 0
            ? null
            : { mean: num(totalsRow.score_mean), min: num(totalsRow.score_min), max: num(totalsRow.score_max), meanOfSquares: num(totalsRow.score_mean_sq) },
        emissions: events === 0 ? null : { mean: num(totalsRow.emissions_mean), min: num(totalsRow.emissions_min), max: num(totalsRow.emissions_max) },
        certifications: {
          carbonNeutral: num(totalsRow.cert_carbon_neutral),
          lowCarbonTravel: num(totalsRow.cert_low_carbon),
          gold: num(totalsRow.tier_gold),
          silver: num(totalsRow.tier_silver),
          bronze: num(totalsRow.tier_bronze),
        },
      };
      return {
        span: totalsRow.first_start ? { first: String(totalsRow.first_start), last: String(totalsRow.last_start) } : null,
        totals: toAggregate(totalsRow),
        perEvent: perEventFigures,
        byMode: modeRows.map(toMode),
        buckets: bucketRows.map((row): BucketFigures => ({ period: String(row.period), ...toAggregate(row) })),
      };
    },

    async existingEventIds(accountId, ids) {
      if (ids.length === 0) return [];
      const rows = await db.selectFrom("events").select("id").where("account_id", "=", accountId).where("id", "in", [...ids]).execute();
      return rows.map((row) => row.id);
    },

    async eventFigures(accountId, eventId) {
      const row = await db.selectFrom("events").selectAll().where("id", "=", eventId).where("account_id", "=", accountId).executeTakeFirst();
      if (!row) return null;
      const event = rowToEvent(row);
      const active = () => db.selectFrom("attendees as a").where("a.event_id", "=", eventId).where("a.status", "in", ACTIVE);
      const valueCounts = (rows: Array<Record<string, unknown>>): ValueCount[] => rows.map((r) => ({ value: String(r.value), count: num(r.count) }));
      const accessibility = sql.ref("a.accessibility_needs") as unknown as RawBuilder<unknown>;
      const [statusRows, ticketRows, companyRows, companyTotals, dietaryRows, accessibilityRow, modeRows, windowRow, leadRow] = await Promise.all([
        db.selectFrom("attendees").select(["status", sql<number>`count(*)`.as("count")]).where("event_id", "=", eventId).groupBy("status").execute(),
        active().select([sql<string>`a.ticket_type`.as("value"), sql<number>`count(*)`.as("count")]).groupBy("a.ticket_type").orderBy(sql`count(*)`, "desc").orderBy("a.ticket_type").execute(),
        active()
          .where("a.company", "is not", null)
          .select([sql<string>`a.company`.as("value"), sql<number>`count(*)`.as("count")])
          .groupBy("a.company")
          .orderBy(sql`count(*)`, "desc")
          .orderBy("a.company")
          .limit(10)
          .execute(),
        active()
          .select([sql<number>`count(distinct a.company)`.as("distinct"), sql<number>`sum(case when a.company is null then 1 else 0 end)`.as("not_given")])
          .executeTakeFirstOrThrow(),
        (db as Kysely<any>)
          .selectFrom(["attendees as a", jsonArrayElementsSql(sql.ref("a.dietary_preferences"), "d", dialect)])
          .where("a.event_id", "=", eventId)
          .where("a.status", "in", ACTIVE)
          .select([sql<string>`d.value`.as("value"), sql<number>`count(*)`.as("count")])
          .groupBy(sql`d.value`)
          .orderBy(sql`count(*)`, "desc")
          .orderBy(sql`d.value`)
          .execute() as Promise<Array<Record<string, unknown>>>,
        active()
          .select([
            sql<number>`sum(${jsonFlagSql(accessibility, "wheelchairAccess", dialect)})`.as("wheelchair"),
            sql<number>`sum(${jsonFlagSql(accessibility, "signLanguage", dialect)})`.as("sign_language"),
            sql<number>`sum(${jsonFlagSql(accessibility, "visualAid", dialect)})`.as("visual_aid"),
            sql<number>`sum(${jsonTextPresentSql(accessibility, "other", dialect)})`.as("other"),
            sql<number>`sum(case when ${jsonFlagSql(accessibility, "wheelchairAccess", dialect)} + ${jsonFlagSql(accessibility, "signLanguage", dialect)} + ${jsonFlagSql(accessibility, "visualAid", dialect)} + ${jsonTextPresentSql(accessibility, "other", dialect)} > 0 then 1 else 0 end)`.as(
              "any",
            ),
          ])
          .executeTakeFirstOrThrow(),
        active().select([sql<string | null>`a.travel_mode`.as("mode"), ...modeColumns()]).groupBy("a.travel_mode").execute(),
        db
          .selectFrom("attendees")
          .select([sql<string | null>`min(registration_date)`.as("first"), sql<string | null>`max(registration_date)`.as("last")])
          .where("event_id", "=", eventId)
          .executeTakeFirstOrThrow(),
        active()
          .select(sql<number | null>`avg(${daysBetweenSql(sql.ref("a.registration_date"), sql.val(event.startDate), dialect)})`.as("lead_days"))
          .executeTakeFirstOrThrow(),
      ]);
      const statuses = Object.fromEntries(ATTENDEE_STATUSES.map((status) => [status, 0])) as Record<AttendeeStatus, number>;
      for (const r of statusRows) statuses[r.status as AttendeeStatus] = num(r.count);
      return {
        event,
        statuses,
        ticketTypes: valueCounts(ticketRows),
        companies: { distinct: num(companyTotals.distinct), notGiven: num(companyTotals.not_given), top: valueCounts(companyRows) },
        dietaryPreferences: valueCounts(dietaryRows),
        accessibility: {
          wheelchairAccess: num(accessibilityRow.wheelchair),
          signLanguage: num(accessibilityRow.sign_language),
          visualAid: num(accessibilityRow.visual_aid),
          other: num(accessibilityRow.other),
          any: num(accessibilityRow.any),
        },
        byMode: modeRows.map((r) => toMode(r as Record<string, unknown>)),
        registrationWindow: windowRow.first ? { first: String(windowRow.first), last: String(windowRow.last) } : null,
        averageLeadTimeDays: numOrNull(leadRow.lead_days),
      };
    },
  };
}
