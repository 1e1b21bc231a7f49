import type { AnalyticsFigures, AnalyticsFilter, EventAnalyticsFigures } from "../analytics/analytics-figures.ts";
import type { CarbonSettings } from "../carbon/carbon-settings.ts";

/** What {@link AnalyticsStore.analyticsFigures} found: the figures, and which of the ids asked for are not the account's events. */
export interface FilteredAnalyticsFigures extends AnalyticsFigures {
  /** The ids of `filter.eventIds` that are not the account's events (no figure counts them), in the order given; empty without `eventIds`. */
  missingEventIds: string[];
}

/**
 * Analytics reads, aggregated in the store.
 * Each method is atomic (see `Storage`).
 */
export interface AnalyticsStore {
  /**
   * Analytics over the events the filter selects (the account's, not cancelled, within its conditions) and
   * their active registrations, aggregated in the store: totals, per-event statistics, travel by
   * mode and, with a granularity, one row per bucket of the events' `startDate` that holds events.
   * The ids of `filter.eventIds` that are not the account's events come back in `missingEventIds`.
   * Read-only; one consistent snapshot is not promised.
   */
  analyticsFigures(filter: AnalyticsFilter, carbon: CarbonSettings): Promise<FilteredAnalyticsFigures>;
  /** The figures of the per-event analytics report of the account's event, or `null`. Read-only. */
  eventAnalyticsFigures(accountId: string, eventId: string): Promise<EventAnalyticsFigures | null>;
}
