import type { CarbonSettings } from "../carbon/carbon-settings.ts";
import type { ActivityFigures } from "../resources/activity-figures.ts";
import type { EventAnalyticsFigures } from "../analytics/analytics-figures.ts";
import type { KeptFigures } from "../rules/kept-figures.ts";
import type { AttendeeRecord } from "../resources/attendee.ts";
import type { EventRecord } from "../resources/event.ts";
import type { ThresholdMetric } from "../resources/threshold.ts";
import type { Activity } from "../resources/activity.ts";
import type { Booking, VendorCategory } from "../resources/vendor.ts";
import type { ConfirmedVendor } from "../rules/local-sourcing.ts";
import type { Notification } from "./envelope.ts";

/** The `vendor.*` notification types: what a booking's change is. */
export type VendorNotificationType =
  | "vendor.booking_requested"
  | "vendor.confirmed"
  | "vendor.declined"
  | "vendor.cancelled"
  | "vendor.data_submitted";

/** The `payment.*` notification types: what happened to a registration's payment. */
export type PaymentNotificationType = "payment.succeeded" | "payment.failed" | "payment.expired" | "payment.refunded";

/**
 * A change a business transaction made, as it is handed to a {@link ChangeNotifier} inside the
 * write's transaction: what happened (`op`), the records before and after it, and its time.
 * Registration changes carry their event as it was locked for the change.
 */
export type StoredChange =
  | { op: "event.created"; event: EventRecord; at: string }
  | { op: "event.updated"; before: EventRecord; after: EventRecord; at: string }
  | { op: "event.deleted"; event: EventRecord; at: string }
  | { op: "attendee.registered"; event: EventRecord; attendee: AttendeeRecord; at: string }
  | {
      op: "attendee.updated";
      event: EventRecord;
      before: AttendeeRecord;
      after: AttendeeRecord;
      at: string;
      /** Why a cancellation happened when the service made it (`payment_expired`), for `attendee.cancelled`. */
      reason?: string;
    }
  | { op: "attendee.checked_in"; event: EventRecord; before: AttendeeRecord; after: AttendeeRecord; at: string }
  | { op: "attendee.erased"; event: EventRecord; attendee: AttendeeRecord; at: string }
  /** The event's activity records changed (created, updated or deleted); its activity figures are recounted. */
  | { op: "activity.changed"; event: EventRecord; at: string }
  /**
   * A vendor booking of the event changed (`type` says how; `activity`: the record its vendor
   * submitted); a confirmation or cancellation moves the event's local sourcing.
   */
  | {
      op: "booking.changed";
      type: VendorNotificationType;
      event: EventRecord;
      booking: Booking;
      vendor: { id: string; name: string; category: VendorCategory };
      activity?: Activity;
      at: string;
    }
  /** A promoted registration's Stripe payment got its PaymentIntent: its `attendee.promoted`, held back until now. */
  | { op: "attendee.promoted"; event: EventRecord; attendee: AttendeeRecord; at: string }
  /** A registration's payment changed (`type` says how; `refund`: the refund that did it); `attendee` as it now is. */
  | {
      op: "payment.changed";
      type: PaymentNotificationType;
      event: EventRecord;
      attendee: AttendeeRecord;
      refund?: { id: string; amount: number };
      at: string;
    };

/**
 * What a {@link ChangeNotifier} may read of the store, inside the change's transaction and
 * under its event's lock, so what it reads is what the change committed with, and the one write
 * it may make (`recordOneTime`). Narrow on purpose: the notifier decides, the storage only
 * answers these and saves what it is handed.
 */
export interface OutboxReader {
  /** True when some active webhook of the change's account receives `type` (`*` receives all). Read once per change. */
  wants(type: string): boolean;
  /** The event's kept figures as of this point of the transaction (after the change); one row. */
  keptFigures(eventId: string): Promise<KeptFigures>;
  /** The event's kept activity figures as of this point of the transaction; one row. */
  activityFigures(eventId: string): Promise<ActivityFigures>;
  /** The event's confirmed vendors (local sourcing) as of this point of the transaction. */
  confirmedVendors(eventId: string): Promise<ConfirmedVendor[]>;
  /**
   * Writes: records that the one-time notification `kind` of the event is being written, and
   * returns `true`; `false`, writing nothing, when it was recorded before. The record commits or
   * rolls back with the change.
   */
  recordOneTime(eventId: string, kind: string): Promise<boolean>;
  /** True when the account has a configured threshold of `metric` (for any of its events or all of them). */
  hasThreshold(accountId: string, metric: ThresholdMetric): Promise<boolean>;
  /** The figures of the per-event analytics report of the account's event, or `null`. */
  eventAnalyticsFigures(accountId: string, eventId: string): Promise<EventAnalyticsFigures | null>;
}

/**
 * Turns a change into the notifications it causes (`webhooks/change-notifications.ts` makes the
 * service's). `appendToOutbox` (`webhooks/outbox.ts`) calls it inside the change's transaction when
 * the account has an active webhook, and appends what it returns to the outbox in the same
 * transaction: one pending delivery per notification and active webhook subscribed to its type.
 * A change that fails or rolls back writes none; a notifier that throws fails the change.
 */
export type ChangeNotifier = {
  (change: StoredChange, reader: OutboxReader): Promise<Notification[]>;
  /**
   * The carbon settings its figures use (offsets in kg): the thresholds a transaction judges
   * beside its notifications (`service/threshold-checks.ts`) use the same. Default
   * `DEFAULT_CARBON_SETTINGS`.
   */
  readonly carbon?: CarbonSettings;
};
