/**
 * Which notifications a change causes, and their `data` (docs/api.md, Envelope and
 * types). Pure functions of the change:
 * `change-notifications.ts` calls them inside the change's transaction, so what is sent is
 * fixed at commit.
 */
import type { EventAnalytics } from "../analytics/event-analytics.ts";
import type { Attendee } from "../resources/attendee.ts";
import { isCarbonNeutral } from "../carbon/carbon-neutral.ts";
import { type ActivityFigures, NO_ACTIVITY_FIGURES } from "../resources/activity-figures.ts";
import { footprintKg, type GoalStatus } from "../rules/goals.ts";
import { type CarbonSettings, offsetKg } from "../carbon/carbon-settings.ts";
import { type KeptFigures, scoreOf } from "../rules/kept-figures.ts";
import type { Event, EventRecord } from "../resources/event.ts";
import { PING_EVENT_TYPE, type WebhookRecord } from "../resources/webhook.ts";
import type { PaymentNotificationType, StoredChange } from "../storage/change-notifier.ts";
import type { Notification } from "../storage/envelope.ts";

/** Share of capacity at which `analytics.threshold_exceeded` (`capacity_utilization`) is sent, once per event. */
export const CAPACITY_THRESHOLD_PERCENT = 90;

const EVENT_STATUS_TYPES = {
  published: "event.published",
  cancelled: "event.cancelled",
  completed: "event.completed",
} as const;
const ATTENDEE_STATUS_TYPES = { cancelled: "attendee.cancelled", "checked-in": "attendee.checked_in" } as const;

/** The top-level fields whose values differ, with their values before the change (updatedAt and computed figures left out). */
export function previousValues<T extends object>(before: T, after: T, ignore: readonly string[] = []): Partial<T> {
  const previous: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(before)) {
    if (key === "updatedAt" || ignore.includes(key)) continue;
    if (JSON.stringify(value) !== JSON.stringify((after as Record<string, unknown>)[key])) previous[key] = value;
  }
  return previous as Partial<T>;
}

const EVENT_FIGURES = ["attendeeCount", "carbonFootprint", "sustainabilityScore", "waitlistCount"] as const;

/** `event.updated` when a field changed, and the status type when the status changed. */
export function eventUpdateNotifications(before: Event, after: Event): Notification[] {
  const previous = previousValues(before, after, EVENT_FIGURES);
  if (Object.keys(previous).length === 0) return [];
  const notifications: Notification[] = [{ type: "event.updated", data: { event: after, previous } }];
  if (before.status !== after.status && after.status in EVENT_STATUS_TYPES) {
    const type = EVENT_STATUS_TYPES[after.status as keyof typeof EVENT_STATUS_TYPES];
    notifications.push({ type, data: { event: after, previousStatus: before.status } });
  }
  return notifications;
}

const eventRef = (event: { id: string; name: string }) => ({ id: event.id, name: event.name });

/** True when an attendee's offset is a contribution: opted in with an amount above zero. */
function contributes(attendee: Attendee): boolean {
  return Boolean(attendee.carbonOffset?.opted && (attendee.carbonOffset.amount ?? 0) > 0);
}

function carbonOffsetNotification(
  attendee: Attendee,
  event: { id: string; name: string },
  offsetKg: number,
): Notification {
  return {
    type: "sustainability.carbon_offset",
    data: {
      attendee: { id: attendee.id, firstName: attendee.firstName, lastName: attendee.lastName, email: attendee.email },
      event: eventRef(event),
      carbonOffset: attendee.carbonOffset,
      offsetKg: Math.round(offsetKg * 1000) / 1000,
    },
  };
}

/** `attendee.registered`, and `sustainability.carbon_offset` when the registration carries a contribution. */
export function registrationNotifications(
  attendee: Attendee,
  event: { id: string; name: string },
  offsetKg: number,
): Notification[] {
  const notifications: Notification[] = [{ type: "attendee.registered", data: { attendee, event: eventRef(event) } }];
  if (contributes(attendee)) notifications.push(carbonOffsetNotification(attendee, event, offsetKg));
  return notifications;
}

/**
 * `attendee.updated` when a field changed, the status type (`attendee.cancelled`,
 * `attendee.checked_in`) when the status changed to one, `attendee.promoted` when a waiting
 * registration got a place, and `sustainability.carbon_offset` when the offset changed to a
 * contribution.
 */
export function attendeeUpdateNotifications(
  before: Attendee,
  after: Attendee,
  event: { id: string; name: string },
  offsetKg: number,
  options: { reason?: string | undefined; promoted?: Attendee | null } = {},
): Notification[] {
  const previous = previousValues(before, after);
  if (Object.keys(previous).length === 0) return [];
  const notifications: Notification[] = [
    { type: "attendee.updated", data: { attendee: after, event: eventRef(event), previous } },
  ];
  if (before.status !== after.status && after.status in ATTENDEE_STATUS_TYPES) {
    const type = ATTENDEE_STATUS_TYPES[after.status as keyof typeof ATTENDEE_STATUS_TYPES];
    const data = { attendee: after, event: eventRef(event), previousStatus: before.status };
    notifications.push({ type, data: options.reason === undefined ? data : { ...data, reason: options.reason } });
  }
  // A priced registration is promoted into `pending`: its payment (with the buyer's client secret) is due.
  // `promoted: null`: held back until the buyer's client secret exists (a Stripe payment's PaymentIntent).
  if (
    before.status === "waitlisted" &&
    (after.status === "confirmed" || after.status === "pending") &&
    options.promoted !== null
  ) {
    notifications.push(promotedNotification(options.promoted ?? after, event));
  }
  if ("carbonOffset" in previous && contributes(after))
    notifications.push(carbonOffsetNotification(after, event, offsetKg));
  return notifications;
}

/** `attendee.promoted`: a waiting registration got a place (`attendee` with the buyer's client secret when it is to pay). */
export function promotedNotification(attendee: Attendee, event: { id: string; name: string }): Notification {
  return { type: "attendee.promoted", data: { attendee, event: eventRef(event), previousStatus: "waitlisted" } };
}

/**
 * `payment.*` of a registration (docs/api.md, Payments): its `payment` (never the client secret), the
 * registration by its ids and ticket type only (a payment notification carries no personal
 * data), its event; a refund's own id and amount with `payment.refunded`.
 */
export function paymentNotification(
  type: PaymentNotificationType,
  attendee: Pick<Attendee, "id" | "eventId" | "ticketType" | "payment">,
  event: { id: string; name: string },
  refund?: { id: string; amount: number },
): Notification {
  return {
    type,
    data: {
      payment: attendee.payment,
      attendee: { id: attendee.id, eventId: attendee.eventId, ticketType: attendee.ticketType },
      event: eventRef(event),
      ...(refund && { refund }),
    },
  };
}

/** `webhook.ping`: the webhook as it is subscribed (never its secret), sent at once to test the receiver. */
export function pingNotification(webhook: Pick<WebhookRecord, "id" | "url" | "events">): Notification {
  return { type: PING_EVENT_TYPE, data: { webhook: { id: webhook.id, url: webhook.url, events: webhook.events } } };
}

/** `attendee.deleted`: the registration was erased. Only ids, so that the notification carries none of the data it erased. */
export function attendeeDeletedNotification(attendee: { id: string; eventId: string }): Notification {
  return { type: "attendee.deleted", data: { attendee: { id: attendee.id, eventId: attendee.eventId } } };
}

/**
 * The figures of an event that the derived notifications (goal, threshold, reports) are computed
 * from: its kept figures (`rules/kept-figures.ts`) and activity figures
 * (`resources/activity-figures.ts`), with its capacity, its offsets in kg, its whole footprint
 * and its score.
 */
export interface NotificationFigures extends KeptFigures {
  capacity: number;
  offsetKg: number;
  /** Attendees' travel and every priced activity record, kg CO2e. */
  footprintKg: number;
  activities: ActivityFigures;
  sustainabilityScore: number;
}

/** The notification figures of an event from its kept figures. */
export function notificationFigures(
  event: Pick<EventRecord, "capacity" | "sustainabilityGoals">,
  kept: KeptFigures,
  carbon: CarbonSettings,
  activities: ActivityFigures = NO_ACTIVITY_FIGURES,
): NotificationFigures {
  return {
    ...kept,
    capacity: event.capacity,
    offsetKg: offsetKg(kept.offsetUsd, carbon),
    footprintKg: footprintKg({ capacity: event.capacity, kept, activities }),
    activities,
    sustainabilityScore: scoreOf(event, kept, carbon),
  };
}

const round = (value: number, digits = 3) => Math.round(value * 10 ** digits) / 10 ** digits;

/** The carbon-neutral goal's metrics: kg CO2e of the whole footprint, and the offset share in percent. */
export function carbonNeutralMetrics(figures: NotificationFigures) {
  return {
    totalEmissions: round(figures.footprintKg),
    totalOffset: round(figures.offsetKg),
    percentage: figures.footprintKg > 0 ? round((figures.offsetKg / figures.footprintKg) * 100, 1) : 0,
  };
}

/** True when an event with the carbon-neutral goal is carbon neutral (`isCarbonNeutral`) over its whole footprint. */
export function isCarbonNeutralAchieved(
  carbonNeutralGoal: boolean | null | undefined,
  figures: NotificationFigures,
): boolean {
  return (
    Boolean(carbonNeutralGoal) && isCarbonNeutral({ emissionsKg: figures.footprintKg, offsetKg: figures.offsetKg })
  );
}

/**
 * `sustainability.goal_achieved`: `carbon_neutral` with its documented metrics
 * (`totalEmissions`, `totalOffset`, `percentage`); the other goals with the figures that met them.
 */
export function goalAchievedNotification(
  event: { id: string; name: string },
  figures: NotificationFigures,
  goal: GoalStatus,
): Notification {
  const metrics = goal.type === "carbon_neutral" ? carbonNeutralMetrics(figures) : goal.metrics;
  return {
    type: "sustainability.goal_achieved",
    data: { event: eventRef(event), goal: { type: goal.type, achieved: true, metrics } },
  };
}

/** Active registrations as a percentage of capacity. */
export function capacityUtilization(figures: NotificationFigures): number {
  return round((figures.activeRegistrations / figures.capacity) * 100, 1);
}

/** `analytics.threshold_exceeded` for capacity utilization. */
export function thresholdNotification(event: { id: string; name: string }, figures: NotificationFigures): Notification {
  return {
    type: "analytics.threshold_exceeded",
    data: {
      event: eventRef(event),
      metric: "capacity_utilization",
      threshold: CAPACITY_THRESHOLD_PERCENT,
      value: capacityUtilization(figures),
      activeRegistrations: figures.activeRegistrations,
      capacity: figures.capacity,
    },
  };
}

/**
 * `analytics.threshold_exceeded` for a configured threshold crossed by the event's `value` of its
 * metric (docs/api.md, Thresholds); the value rounded to 3 decimals (it was judged unrounded).
 */
export function configuredThresholdNotification(
  event: { id: string; name: string },
  threshold: { id: string; metric: string; value: number },
  value: number,
): Notification {
  return {
    type: "analytics.threshold_exceeded",
    data: {
      event: eventRef(event),
      metric: threshold.metric,
      threshold: threshold.value,
      value: round(value),
      thresholdId: threshold.id,
    },
  };
}

/**
 * `sustainability.report_generated` and `analytics.report_ready`, sent when an event becomes
 * completed: the reports computed from the stored data at that moment, and their addresses (the
 * printable sustainability report; the event's analytics).
 */
export function completionReports(
  event: { id: string; name: string; sustainabilityGoals: Event["sustainabilityGoals"] },
  figures: NotificationFigures,
  at: string,
  urls: { report: string; analytics: string },
  analyticsReport: EventAnalytics | null,
): Notification[] {
  const emissions = round(figures.footprintKg);
  const offset = round(figures.offsetKg);
  const sustainability = {
    generatedAt: at,
    emissions: {
      totalKg: emissions,
      travelKg: round(figures.emissionsKg),
      activitiesKg: round(figures.activities.emissionsKg),
      offsetKg: offset,
      netKg: round(Math.max(0, figures.footprintKg - figures.offsetKg)),
      perAttendeeKg: figures.activeRegistrations > 0 ? round(figures.footprintKg / figures.activeRegistrations) : 0,
      offsetUsd: round(figures.offsetUsd, 2),
    },
    travel: { reported: figures.travelReported, lowCarbon: figures.lowCarbonTravel },
    goals: event.sustainabilityGoals,
    carbonNeutralAchieved: isCarbonNeutralAchieved(event.sustainabilityGoals.carbonNeutral, figures),
    sustainabilityScore: figures.sustainabilityScore,
  };
  return [
    {
      type: "sustainability.report_generated",
      data: { event: eventRef(event), report: sustainability, url: urls.report },
    },
    // The analytics report is the one GET /v1/analytics/events/:id answers, as of the completion.
    ...(analyticsReport
      ? [
          {
            type: "analytics.report_ready" as const,
            data: { event: eventRef(event), report: { generatedAt: at, ...analyticsReport }, url: urls.analytics },
          },
        ]
      : []),
  ];
}

/** A `vendor.*` notification: the booking, its vendor and event (identity only), and a submitted record. */
export function vendorNotification(change: Extract<StoredChange, { op: "booking.changed" }>): Notification {
  const data: Record<string, unknown> = {
    booking: change.booking,
    vendor: change.vendor,
    event: eventRef(change.event),
  };
  if (change.activity) data.activity = change.activity;
  return { type: change.type, data };
}
