import type * as z from "zod";
import { assertDateOrder, type Bucket, enumerateBuckets } from "../analytics/date-buckets.ts";
import { buildEventAnalytics } from "../analytics/event-analytics.ts";
import { buildReportDocument } from "../analytics/report-document.ts";
import { buildSustainabilityReport, type SustainabilityQuery } from "../analytics/sustainability-report.ts";
import { buildTrendReport, type TrendQuery } from "../analytics/trend-report.ts";
import { emissionFactorSetResponse } from "../carbon/emission-factors.ts";
import type { EmissionFactorsQuery } from "../analytics/emission-factors-query.ts";
import { factorSetsUsed } from "../analytics/methodology.ts";
import type { EventAnalyticsFigures } from "../analytics/analytics-figures.ts";
import { ServiceError } from "../errors.ts";
import type { AnalyticsStore } from "../storage/analytics-store.ts";
import type { OperationContext } from "./operation-context.ts";
import { notFound } from "./not-found.ts";

/** The analytics of one account: the store aggregates, these build the reports. */
export function createAnalyticsOperations(
  storage: AnalyticsStore,
  context: Pick<OperationContext, "accountId" | "carbon" | "factorSets" | "clock">,
) {
  const { accountId, carbon, factorSets, clock } = context;
  /** The set that priced an event's figures. */
  const setOf = (figures: EventAnalyticsFigures) => factorSets.pricedBy(figures.factorYear, figures.event.startDate);

  const analytics = {
    async sustainability(parsed: z.output<typeof SustainabilityQuery>) {
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
      const { factors, used } = factorSetsUsed(factorSets, figures.factorYears);
      return buildSustainabilityReport({
        granularity: parsed.granularity,
        range,
        eventIds: parsed.eventIds ?? null,
        buckets,
        figures,
        carbon,
        factors,
        factorSetsUsed: used,
      });
    },
    async event(eventId: string) {
      const figures = await storage.eventAnalyticsFigures(accountId, eventId);
      if (!figures) throw notFound("Event", eventId);
      return buildEventAnalytics(figures, carbon, setOf(figures));
    },
    async report(eventId: string) {
      const figures = await storage.eventAnalyticsFigures(accountId, eventId);
      if (!figures) throw notFound("Event", eventId);
      return buildReportDocument(figures, carbon, setOf(figures), clock().toISOString());
    },
    async trends(parsed: z.output<typeof TrendQuery>) {
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
      const { factors, used } = factorSetsUsed(factorSets, figures.factorYears);
      return buildTrendReport({
        query: parsed,
        range: { startDate, endDate },
        buckets,
        figures,
        carbon,
        factors,
        factorSetsUsed: used,
      });
    },
    /** The set that prices what happens in `year` (an event starting then); without one, the latest set. */
    emissionFactors(query: EmissionFactorsQuery = {}) {
      return emissionFactorSetResponse(query.year === undefined ? factorSets.latest : factorSets.forYear(query.year));
    },
  };

  return analytics;
}
