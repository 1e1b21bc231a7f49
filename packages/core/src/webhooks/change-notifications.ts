/**
 * What a change notifies: turns a {@link StoredChange} into its notifications and their
 * payloads, reading what it needs through the narrow {@link OutboxReader} inside the change's
 * transaction. `appendToOutbox` (`webhooks/outbox.ts`) appends what this returns to the outbox in
 * the same transaction.
 */
import { buildEventAnalytics } from "../analytics/event-analytics.ts";
import { createFactorSets, type FactorSets } from "../carbon/factor-sets.ts";
import { type CarbonSettings, DEFAULT_CARBON_SETTINGS, offsetKg } from "../carbon/carbon-settings.ts";
import { NO_ACTIVITY_FIGURES } from "../resources/activity-figures.ts";
import { eventStatsOf, type KeptFigures } from "../rules/kept-figures.ts";
import { goalStatuses } from "../rules/goals.ts";
import { vendorFiguresOf } from "../rules/local-sourcing.ts";
import { type AttendeeRecord, toApiAttendee } from "../resources/attendee.ts";
import { type EventRecord, toApiEvent } from "../resources/event.ts";
import { keepsBuiltInCapacityRule } from "../rules/threshold-crossing.ts";
import type { ChangeNotifier, OutboxReader, StoredChange } from "../storage/change-notifier.ts";
import type { Notification } from "../storage/envelope.ts";
import {
  attendeeDeletedNotification,
  attendeeUpdateNotifications,
  paymentNotification,
  promotedNotification,
  CAPACITY_THRESHOLD_PERCENT,
  completionReports,
  eventUpdateNotifications,
  goalAchievedNotification,
  notificationFigures,
  registrationNotifications,
  thresholdNotification,
  vendorNotification,
} from "./payloads.ts";

/** The public base URL of the links notifications hand out when none is given. */
export const DEFAULT_PUBLIC_URL = "http://localhost:3000";

/** Options of {@link createChangeNotifier}. */
export interface ChangeNotifierOptions {
  /** The base of the links handed out (`qrCode`, the analytics `url`). Default {@link DEFAULT_PUBLIC_URL}. */
  baseUrl?: string;
  /** The carbon settings of the figures. Default `DEFAULT_CARBON_SETTINGS`. */
  carbon?: CarbonSettings;
  /** The factor sets of the figures (an event's set is named in its analytics report's `methodology`). Default: the bundled set alone. */
  factorSets?: FactorSets;
}

/**
 * The service's notifier: for each change, its own notifications (`event.*`,
 * `attendee.*`, `sustainability.carbon_offset`, the completion reports) and the event's
 * one-time ones (carbon-neutral goal first achieved, capacity first at the threshold).
 * Figures and reports are read only while some webhook receives their type, so an account
 * without webhooks pays nothing for them.
 *
 * @example
 * const notifier = createChangeNotifier({ baseUrl: "https://events.example.com" });
 * await storage.transaction((tx) => appendToOutbox(tx, accountId, { op: "event.created", event, at: event.createdAt }, notifier));
 */
export function createChangeNotifier(options: ChangeNotifierOptions = {}): ChangeNotifier {
  const baseUrl = options.baseUrl ?? DEFAULT_PUBLIC_URL;
  const carbon = options.carbon ?? DEFAULT_CARBON_SETTINGS;
  const apiEvent = (event: EventRecord, figures: KeptFigures) =>
    toApiEvent({ ...event, ...eventStatsOf(event, figures, carbon) });
  const apiAttendee = (attendee: AttendeeRecord) => toApiAttendee(attendee, baseUrl);
  /** A promoted registration as `attendee.promoted` shows it, or `null` while its Stripe PaymentIntent is still to be made. */
  const promotedAttendee = (attendee: AttendeeRecord) =>
    attendee.payment?.provider === "stripe" && attendee.payment.clientSecret === null
      ? null
      : toApiAttendee(attendee, baseUrl, true);
  const offsetOf = (attendee: AttendeeRecord) =>
    attendee.carbonOffset?.opted ? offsetKg(attendee.carbonOffset.amount ?? 0, carbon) : 0;

  /**
   * The one-time notifications of the event, each recorded in the change's transaction when
   * written (`recordOneTime`): each goal the event set, the first time its figures meet it
   * (`rules/goals.ts`; a later record that undoes it is the analytics' to show, not un-notified),
   * and capacity first at the threshold.
   */
  async function oneTime(event: EventRecord, reader: OutboxReader): Promise<Notification[]> {
    const goals = event.sustainabilityGoals;
    const anyGoal = Boolean(
      goals.carbonNeutral || goals.renewableEnergy || goals.localSourcing || (goals.wasteReduction ?? 0) > 0,
    );
    const wantsGoal = anyGoal && reader.wants("sustainability.goal_achieved");
    const wantsThreshold = reader.wants("analytics.threshold_exceeded");
    if (!wantsGoal && !wantsThreshold) return [];
    const kept = await reader.keptFigures(event.id);
    const activities = wantsGoal ? await reader.activityFigures(event.id) : NO_ACTIVITY_FIGURES;
    const figures = notificationFigures(event, kept, carbon, activities);
    const notifications: Notification[] = [];
    if (wantsGoal) {
      const vendors = goals.localSourcing
        ? vendorFiguresOf(event, await reader.confirmedVendors(event.id), carbon)
        : undefined;
      for (const goal of goalStatuses(goals, { capacity: event.capacity, kept, activities, vendors }, carbon)) {
        if (goal.set && goal.met === true && (await reader.recordOneTime(event.id, `goal_achieved:${goal.type}`)))
          notifications.push(goalAchievedNotification(event, figures, goal));
      }
    }
    const reached = figures.activeRegistrations * 100 >= CAPACITY_THRESHOLD_PERCENT * figures.capacity;
    // The built-in rule gives way to the account's own capacity thresholds (`service/threshold-checks.ts` judges those).
    if (
      wantsThreshold &&
      reached &&
      keepsBuiltInCapacityRule(await reader.hasThreshold(event.accountId, "capacity_utilization")) &&
      (await reader.recordOneTime(event.id, "threshold:capacity_utilization"))
    ) {
      notifications.push(thresholdNotification(event, figures));
    }
    return notifications;
  }

  async function eventUpdated(
    before: EventRecord,
    after: EventRecord,
    at: string,
    reader: OutboxReader,
  ): Promise<Notification[]> {
    // An update moves no registration: both states show the figures kept on the row.
    const kept = await reader.keptFigures(after.id);
    const notifications = eventUpdateNotifications(apiEvent(before, kept), apiEvent(after, kept));
    if (notifications.length === 0) return [];
    const completed = before.status !== "completed" && after.status === "completed";
    if (completed && (reader.wants("sustainability.report_generated") || reader.wants("analytics.report_ready"))) {
      const analyticsFigures = reader.wants("analytics.report_ready")
        ? await reader.eventAnalyticsFigures(after.accountId, after.id)
        : null;
      const sets = options.factorSets ?? createFactorSets();
      const report =
        analyticsFigures &&
        buildEventAnalytics(
          analyticsFigures,
          carbon,
          sets.pricedBy(analyticsFigures.factorYear, analyticsFigures.event.startDate),
        );
      notifications.push(
        ...completionReports(
          after,
          notificationFigures(after, kept, carbon, await reader.activityFigures(after.id)),
          at,
          {
            report: `${baseUrl}/v1/events/${after.id}/sustainability-report`,
            analytics: `${baseUrl}/v1/analytics/events/${after.id}`,
          },
          report,
        ),
      );
    }
    return [...notifications, ...(await oneTime(after, reader))];
  }

  const notify = async (change: StoredChange, reader: OutboxReader): Promise<Notification[]> => {
    switch (change.op) {
      case "event.created":
      case "event.deleted":
        if (!reader.wants(change.op)) return [];
        return [
          { type: change.op, data: { event: apiEvent(change.event, await reader.keptFigures(change.event.id)) } },
        ];
      case "event.updated":
        return eventUpdated(change.before, change.after, change.at, reader);
      case "attendee.registered": {
        const own = registrationNotifications(apiAttendee(change.attendee), change.event, offsetOf(change.attendee));
        return [...own, ...(await oneTime(change.event, reader))];
      }
      case "attendee.updated":
      case "attendee.checked_in": {
        const own = attendeeUpdateNotifications(
          apiAttendee(change.before),
          apiAttendee(change.after),
          change.event,
          offsetOf(change.after),
          {
            reason: change.op === "attendee.updated" ? change.reason : undefined,
            promoted: change.before.status === "waitlisted" ? promotedAttendee(change.after) : undefined,
          },
        );
        if (own.length === 0) return [];
        // A check-in moves no figure (checked-in counts as active, like what it was), so it reaches no new threshold.
        return change.op === "attendee.checked_in" ? own : [...own, ...(await oneTime(change.event, reader))];
      }
      case "attendee.erased":
        return [attendeeDeletedNotification(change.attendee), ...(await oneTime(change.event, reader))];
      case "activity.changed":
        // Records notify nothing of their own: what they change is the goals the event meets.
        return oneTime(change.event, reader);
      case "booking.changed": {
        const own = reader.wants(change.type) ? [vendorNotification(change)] : [];
        // A confirmation or a cancellation moves the event's local sourcing; the rest move no goal.
        const moves = change.type === "vendor.confirmed" || change.type === "vendor.cancelled";
        return moves ? [...own, ...(await oneTime(change.event, reader))] : own;
      }
      case "attendee.promoted":
        if (!reader.wants("attendee.promoted")) return [];
        return [promotedNotification(toApiAttendee(change.attendee, baseUrl, true), change.event)];
      case "payment.changed":
        if (!reader.wants(change.type)) return [];
        return [paymentNotification(change.type, apiAttendee(change.attendee), change.event, change.refund)];
    }
  };
  return Object.assign(notify, { carbon });
}
