/**
 * The aggregated figures the storage computes for analytics (in SQL: sums, counts and averages
 * per account, event or bucket), and the filter of the events they are computed over. The reports are built
 * from them by pure functions (`buildSustainabilityReport`, `buildEventAnalytics`,
 * `buildTrendReport`).
 */
import type { ActivityFigures } from "../resources/activity-figures.ts";
import type { EventRecord } from "../resources/event.ts";
import type { ActivityGroup, KindFigures } from "./footprint.ts";
import type { AttendeeStatus } from "../resources/attendee.ts";
import type { BucketGranularity } from "./date-buckets.ts";
import type { ConfirmedVendor } from "../rules/local-sourcing.ts";

/** Money of a set of events in one currency, in its minor unit (docs/api.md, Payments). */
export interface RevenueFigures {
  currency: string;
  /** Money received. */
  gross: number;
  /** Money returned, or being returned (a Stripe refund on its way). */
  refunded: number;
  /** What active registrations not admitted yet still owe: their price less the money kept. */
  outstanding: number;
}

/**
 * What one event's ticket types took: money received per type and currency, and the active
 * registrations admitted or free per type and the currency they paid in (`null`: free).
 */
export interface TicketMoneyFigures {
  gross: Array<{ ticketType: string; currency: string; gross: number }>;
  sold: Array<{ ticketType: string; currency: string | null; sold: number }>;
}

/** Which events an aggregate covers: the account's events that are not cancelled, narrowed by the filters given. */
export interface AnalyticsFilter {
  accountId: string;
  /** Events starting at or after this instant. */
  startDate?: string | undefined;
  /** Events starting at or before this instant. */
  endDate?: string | undefined;
  /** Only these events (ids of the account). */
  eventIds?: readonly string[] | undefined;
  /** Only events of this category (exact match). */
  category?: string | undefined;
  /** Group the per-bucket figures by this period of the events' `startDate`; `null` for no buckets. */
  granularity: BucketGranularity | null;
}

/** Figures over a set of events and their active registrations. */
export interface AggregateFigures {
  events: number;
  /** Active registrations (confirmed, pending, checked-in). */
  attendance: number;
  checkedIn: number;
  /** Active registrations that opted to offset. */
  offsetOpted: number;
  /** USD of offsets of the active registrations that opted. */
  offsetUsd: number;
  emissionsKg: number;
  /** Active registrations that reported a travel mode. */
  travelReported: number;
  /** Of those, train, bus, bike or walk. */
  lowCarbonTravel: number;
  /** Events with each goal (`wasteReduction`: a target above 0). */
  goals: { carbonNeutral: number; renewableEnergy: number; localSourcing: number; wasteReduction: number };
  /** Sum of the events' `wasteReduction` targets (none counts as 0). */
  wasteTargetSum: number;
  /** Highest `wasteReduction` target; `null` when no event has one. */
  wasteTargetMax: number | null;
  /** The events' kept activity figures, summed. */
  activities: ActivityFigures;
}

/** The figures of one bucket: the events starting in it. */
export interface BucketFigures extends AggregateFigures {
  /** The bucket's first day, `YYYY-MM-DD`. */
  period: string;
}

/** Travel of the active registrations by mode (`null`: no mode reported). */
export interface ModeFigures {
  mode: string | null;
  registrations: number;
  distanceKm: number;
  emissionsKg: number;
  offsetOpted: number;
  offsetUsd: number;
}

/** Counts and statistics over the events' own figures (their scores and emissions). */
export interface PerEventFigures {
  /** Unrounded sustainability scores: mean, min, max and mean of squares (for the standard deviation); `null` with no events. */
  score: { mean: number; min: number; max: number; meanOfSquares: number } | null;
  /** kg CO2e per event; `null` with no events. */
  emissions: { mean: number; min: number; max: number } | null;
  /** Events meeting each certification (see `CERTIFICATIONS`). */
  certifications: { carbonNeutral: number; lowCarbonTravel: number; gold: number; silver: number; bronze: number };
}

/** Everything the sustainability and trends reports need, for one scope. */
export interface AnalyticsFigures {
  /** Earliest and latest `startDate` of the events in scope; `null` when there are none. */
  span: { first: string; last: string } | null;
  totals: AggregateFigures;
  perEvent: PerEventFigures;
  byMode: ModeFigures[];
  /** One row per bucket holding events, oldest first (empty when `granularity` is `null`). */
  buckets: BucketFigures[];
  /** The events' activity records by kind (kinds with records only). */
  activityKinds: KindFigures[];
  /** The events' ticket money per currency. */
  revenue: RevenueFigures[];
  /** How many of the events each factor set priced, by the set's year (`null`: never priced), ascending. */
  factorYears: Array<{ year: number | null; events: number }>;
}

/** A value and how many registrations have it. */
export interface ValueCount {
  value: string;
  count: number;
}

/** Everything the per-event analytics report needs. */
export interface EventAnalyticsFigures {
  event: EventRecord;
  /** The year of the factor set that priced the event's figures (`null`: never priced). */
  factorYear: number | null;
  /** Registrations by status (all of them, cancelled included). */
  statuses: Record<AttendeeStatus, number>;
  /** The rest are over active registrations. */
  ticketTypes: ValueCount[];
  companies: { distinct: number; notGiven: number; top: ValueCount[] };
  dietaryPreferences: ValueCount[];
  accessibility: { wheelchairAccess: number; signLanguage: number; visualAid: number; other: number; any: number };
  byMode: ModeFigures[];
  /** Active registrations reporting travel, by mode and the band of the mode's factors that priced them (`travelBandSql`). */
  travelBands: Array<{ mode: string; band: number; registrations: number }>;
  /** First and last `registrationDate` (all registrations); `null` with none. */
  registrationWindow: { first: string; last: string } | null;
  /** Mean days from registration to the event's start, over active registrations; `null` with none. */
  averageLeadTimeDays: number | null;
  /** The event's kept activity figures. */
  activities: ActivityFigures;
  /** Its activity records grouped by kind, qualifiers, quality and factor. */
  activityGroups: ActivityGroup[];
  /** Its confirmed vendors' locations and certifications (local sourcing). */
  confirmedVendors: ConfirmedVendor[];
  /** Its money per currency. */
  revenue: RevenueFigures[];
  /** Its money per ticket type. */
  ticketMoney: TicketMoneyFigures;
}
