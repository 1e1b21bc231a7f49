import type { AnalyticsFigures, AnalyticsScope, EventAnalyticsFigures } from "../analytics/analytics-figures.ts";
import type { CarbonSettings } from "../carbon/carbon-settings.ts";

/**
 * Analytics reads, aggregated in the store.
 * Each method is atomic (see `Storage`).
 */
export interface AnalyticsStore {
  /**
   * Analytics over the scope's events (the account's, not cancelled, within its filters) and
   * their active registrations, aggregated in the store: totals, per-event statistics, travel by
   * mode and, with a granularity, one row per bucket of the events' `startDate` that holds events.
   * Throws `NOT_FOUND` (field `eventIds`, `details.missing`) when `scope.eventIds` names an id that
   * is not one of the account's events. Read-only; one consistent snapshot is not promised.
   */
  analyticsFigures(scope: AnalyticsScope, carbon: CarbonSettings): Promise<AnalyticsFigures>;
  /** The figures of the per-event analytics report of the account's event, or `null`. Read-only. */
  eventAnalyticsFigures(accountId: string, eventId: string): Promise<EventAnalyticsFigures | null>;
}
