import { parseInput } from "../_internal/parse-input.ts";
import { assertDateOrder, type Bucket, enumerateBuckets } from "../analytics/date-buckets.ts";
import { buildEventAnalytics, type EventAnalytics } from "../analytics/event-analytics.ts";
import { buildReportDocument, type SustainabilityReportDocument } from "../analytics/report-document.ts";
import {
  buildSustainabilityReport,
  type SustainabilityReport,
  SustainabilityQuery,
} from "../analytics/sustainability-report.ts";
import { buildTrendReport, type TrendReport, TrendQuery } from "../analytics/trend-report.ts";
import { type EmissionFactorSetResponse, emissionFactorSetResponse } from "../carbon/emission-factors.ts";
import { ServiceError } from "../errors.ts";
import type { AnalyticsStore } from "../storage/analytics-store.ts";
import type { OperationContext } from "./operation-context.ts";
import { notFound } from "./not-found.ts";

/** One account's analytics (read-only). */
export interface AnalyticsOperations {
  /** Sustainability metrics over the account's events; `query` holds query-string values. Throws `INVALID_REQUEST`, `INVALID_DATE_RANGE`, `NOT_FOUND` (eventIds). */
  sustainability(query?: Record<string, unknown>): Promise<SustainabilityReport>;
  /**
   * The analytics report of one event (attendance, demographics, sustainability, engagement,
   * finance, feedback). Throws `NOT_FOUND`. Also what an `analytics.report_ready` payload carries.
   */
  event(eventId: string): Promise<EventAnalytics>;
  /**
   * The sustainability report of one event (`GET /events/:id/sustainability-report`): its
   * footprint, waste, energy, travel, goals and every factor used. Throws `NOT_FOUND`.
   */
  report(eventId: string): Promise<SustainabilityReportDocument>;
  /** Trend analysis of one metric. Throws `INVALID_REQUEST`, `INVALID_DATE_RANGE`, `INSUFFICIENT_DATA`. */
  trends(query?: Record<string, unknown>): Promise<TrendReport>;
  /** The travel emission factor set in use (name, year, source, each mode's factors and unit): what every figure is computed with. */
  emissionFactors(): EmissionFactorSetResponse;
}

/** The analytics of one account: the store aggregates, these build the reports. */
export function createAnalyticsOperations(
  storage: AnalyticsStore,
  context: Pick<OperationContext, "accountId" | "carbon" | "emissionFactors" | "clock">,
): AnalyticsOperations {
  const { accountId, carbon, emissionFactors: factors, clock } = context;

  const analytics: AnalyticsOperations = {
    async sustainability(query = {}) {
      const parsed = parseInput(SustainabilityQuery, query, "query");
      assertDateOrder(parsed.startDate, parsed.endDate);
      const granularity = parsed.granularity === "total" ? null : parsed.granularity;
      // A range given whole is checked before any query runs.
      if (granularity && parsed.startDate && parsed.endDate)
        enumerateBuckets(parsed.startDate, parsed.endDate, granularity);
      const figures = await storage.analyticsFigures(
        { accountId, startDate: parsed.startDate, endDate: parsed.endDate, eventIds: parsed.eventIds, granularity },
        carbon,
      );
      const missing = figures.missingEventIds;
      if (missing.length)
        throw new ServiceError("NOT_FOUND", {
          message: `eventIds: no event ${missing.join(", ")} in this account.`,
          field: "eventIds",
          details: { missing },
        });
      const range = {
        startDate: parsed.startDate ?? figures.span?.first ?? null,
        endDate: parsed.endDate ?? figures.span?.last ?? null,
      };
      let buckets: Bucket[] = [];
      if (granularity && range.startDate !== null && range.endDate !== null)
        buckets = enumerateBuckets(range.startDate, range.endDate, granularity);
      return buildSustainabilityReport({
        granularity: parsed.granularity,
        range,
        eventIds: parsed.eventIds ?? null,
        buckets,
        figures,
        carbon,
        factors,
      });
    },
    async event(eventId) {
      const figures = await storage.eventAnalyticsFigures(accountId, eventId);
      if (!figures) throw notFound("Event", eventId);
      return buildEventAnalytics(figures, carbon, factors);
    },
    async report(eventId) {
      const figures = await storage.eventAnalyticsFigures(accountId, eventId);
      if (!figures) throw notFound("Event", eventId);
      return buildReportDocument(figures, carbon, factors, clock().toISOString());
    },
    async trends(query = {}) {
      const parsed = parseInput(TrendQuery, query, "query");
      assertDateOrder(parsed.startDate, parsed.endDate);
      if (parsed.startDate && parsed.endDate) enumerateBuckets(parsed.startDate, parsed.endDate, parsed.granularity);
      const figures = await storage.analyticsFigures(
        {
          accountId,
          startDate: parsed.startDate,
          endDate: parsed.endDate,
          category: parsed.category,
          granularity: parsed.granularity,
        },
        carbon,
      );
      const startDate = parsed.startDate ?? figures.span?.first;
      const endDate = parsed.endDate ?? figures.span?.last;
      if (startDate === undefined || endDate === undefined) {
        throw new ServiceError("INSUFFICIENT_DATA", {
          message: "A trend needs at least 2 periods with data; no event matches.",
          details: { dataPoints: 0, required: 2, granularity: parsed.granularity },
        });
      }
      const buckets = enumerateBuckets(startDate, endDate, parsed.granularity);
      return buildTrendReport({ query: parsed, range: { startDate, endDate }, buckets, figures, carbon, factors });
    },
    emissionFactors() {
      return emissionFactorSetResponse(factors);
    },
  };

  return analytics;
}
