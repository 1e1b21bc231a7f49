import { ACTIVITY_OPERATIONS } from "./activities.ts";
import { ANALYTICS_OPERATIONS } from "./analytics.ts";
import { ATTENDEE_OPERATIONS } from "./attendees.ts";
import { BOOKING_OPERATIONS } from "./bookings.ts";
import type * as z from "zod";
import type { MethodsOf, Operation } from "./define.ts";
import { EVENT_OPERATIONS } from "./events.ts";
import { CHECK_IN_LINK_OPERATIONS } from "./check-in-links.ts";
import { DOOR_LINK_OPERATIONS } from "./door-link.ts";
import { PAYMENT_OPERATIONS } from "./payments.ts";
import { THRESHOLD_OPERATIONS } from "./thresholds.ts";
import { TICKET_LINK_OPERATIONS } from "./ticket-link.ts";
import { VENDOR_LINK_OPERATIONS } from "./vendor-link.ts";
import { VENDOR_OPERATIONS } from "./vendors.ts";
import { WEBHOOK_OPERATIONS } from "./webhooks.ts";

/** Every operation of an account, each served under every version prefix with an API key. */
export const ACCOUNT_OPERATIONS = [
  ...EVENT_OPERATIONS,
  ...CHECK_IN_LINK_OPERATIONS,
  ...ATTENDEE_OPERATIONS,
  ...PAYMENT_OPERATIONS,
  ...WEBHOOK_OPERATIONS,
  ...ANALYTICS_OPERATIONS,
  ...ACTIVITY_OPERATIONS,
  ...THRESHOLD_OPERATIONS,
  ...VENDOR_OPERATIONS,
  ...BOOKING_OPERATIONS,
];

/** Every operation of a vendor's link, of an attendee's ticket link, and of a door's check-in link. */
export { DOOR_LINK_OPERATIONS, TICKET_LINK_OPERATIONS, VENDOR_LINK_OPERATIONS };

type AccountOperation = (typeof ACCOUNT_OPERATIONS)[number];
type LinkOperation = (typeof VENDOR_LINK_OPERATIONS)[number];
type TicketOperation = (typeof TICKET_LINK_OPERATIONS)[number];
type DoorOperation = (typeof DOOR_LINK_OPERATIONS)[number];

/** An account's operations as an embedder calls them (`service.forAccount(id).events.create(input)`). */
export type EventOperations = MethodsOf<AccountOperation, "events">;
export type AttendeeOperations = MethodsOf<AccountOperation, "attendees">;
export type WebhookOperations = MethodsOf<AccountOperation, "webhooks">;
export type AnalyticsOperations = MethodsOf<AccountOperation, "analytics">;
export type ActivityOperations = MethodsOf<AccountOperation, "activities">;
export type ThresholdOperations = MethodsOf<AccountOperation, "thresholds">;
export type VendorOperations = MethodsOf<AccountOperation, "vendors">;
/** The vendor bookings of the account's events. */
export type BookingOperations = MethodsOf<AccountOperation, "bookings">;
/** The account's payment settings. */
export type PaymentOperations = MethodsOf<AccountOperation, "payments">;

/**
 * What a vendor may do through its booking's link: see what is asked, confirm or decline, and,
 * once confirmed, record and correct its own activity data for the event until 30 days after it ends.
 */
export type VendorLinkOperations = MethodsOf<LinkOperation, "link"> & {
  /** Whose link it is: the booking's id (what an Idempotency-Key of its requests is kept under) and account. */
  readonly booking: { readonly id: string; readonly accountId: string };
  activities: MethodsOf<LinkOperation, "link.activities">;
};

/**
 * What an attendee may do through their ticket link: see their ticket, change their own details
 * and travel, cancel (both until the event starts), and fetch the event as a calendar file.
 */
export type TicketLinkOperations = MethodsOf<TicketOperation, "ticket"> & {
  /** Whose link it is: the registration's id (what an Idempotency-Key of its requests is kept under) and account. */
  readonly attendee: { readonly id: string; readonly accountId: string };
};

/**
 * What a door does through its event's check-in link: see the event and its counts, scan tickets,
 * undo a check-in, find a registration by name, and download the offline list.
 */
export type DoorLinkOperations = MethodsOf<DoorOperation, "door"> & {
  /** Whose link it is: the link's id (what an Idempotency-Key of its requests is kept under), account and event. */
  readonly link: { readonly id: string; readonly accountId: string; readonly eventId: string };
};

type InputOf<S> = S extends z.ZodType ? z.input<S> : never;
type ParsedOf<S> = S extends z.ZodType ? z.output<S> : never;

/**
 * Each operation's types by its `id`, for the typed client: the body it takes (as sent), its
 * query (as parsed: the client sends each value as text), and what it answers.
 */
export type OperationTypes = {
  [D in AccountOperation | LinkOperation | TicketOperation | DoorOperation as D["id"]]: D extends Operation<
    infer _C,
    infer _Id,
    infer _P,
    infer Q,
    infer B,
    infer _O,
    infer R
  >
    ? { body: InputOf<B>; query: ParsedOf<Q>; result: Awaited<R> }
    : never;
};
