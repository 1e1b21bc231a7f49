import { ServiceError } from "../errors.ts";
import { createAnalyticsQueries } from "./analytics-queries.ts";
import type { AnalyticsStore } from "../storage/analytics-store.ts";
import type { SqlContext } from "./sql-context.ts";

/** Analytics reads (`AnalyticsStore`) on SQL, aggregated in the database. */
export function createAnalyticsStore(ctx: SqlContext): AnalyticsStore {
  const analytics = createAnalyticsQueries(ctx.db, ctx.dialect, ctx.factors);

  return {
    async analyticsFigures(scope, carbon) {
      if (scope.eventIds !== undefined) {
        const found = new Set(await analytics.existingEventIds(scope.accountId, scope.eventIds));
        const missing = scope.eventIds.filter((id) => !found.has(id));
        if (missing.length) {
          throw new ServiceError("NOT_FOUND", { message: `eventIds: no event ${missing.join(", ")} in this account.`, field: "eventIds", details: { missing } });
        }
      }
      return analytics.figures(scope, carbon);
    },

    async eventAnalyticsFigures(accountId, eventId) {
      return analytics.eventAnalyticsFigures(accountId, eventId);
    },
  };
}
