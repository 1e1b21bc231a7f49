import { createAnalyticsQueries } from "./analytics-queries.ts";
import type { AnalyticsStore } from "../storage/analytics-store.ts";
import type { SqlContext } from "./sql-context.ts";

/** Analytics reads (`AnalyticsStore`) on SQL, aggregated in the database. */
export function createAnalyticsStore(ctx: SqlContext): AnalyticsStore {
  const analytics = createAnalyticsQueries(ctx.db, ctx.dialect, ctx.factorSets);

  return {
    async analyticsFigures(filter, carbon) {
      let missingEventIds: string[] = [];
      if (filter.eventIds !== undefined) {
        const found = new Set(await analytics.existingEventIds(filter.accountId, filter.eventIds));
        missingEventIds = filter.eventIds.filter((id) => !found.has(id));
      }
      return { ...(await analytics.figures(filter, carbon)), missingEventIds };
    },

    async eventAnalyticsFigures(accountId, eventId) {
      return analytics.eventAnalyticsFigures(accountId, eventId);
    },
  };
}
