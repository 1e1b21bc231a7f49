import type * as z from "zod";
import type { createActivityOperations } from "../service/activity-operations.ts";
import type { createAnalyticsOperations } from "../service/analytics-operations.ts";
import type { createAttendeeOperations } from "../service/attendee-operations.ts";
import type { createEventOperations } from "../service/event-operations.ts";
import type { createPaymentOperations } from "../service/payment-operations.ts";
import type { createThresholdOperations } from "../service/threshold-operations.ts";
import type { createTicketLinkOperations } from "../service/ticket-link-operations.ts";
import type { createCheckInLinkOperations, createDoorLinkOperations } from "../service/door-link-operations.ts";
import type { createVendorLinkOperations } from "../service/vendor-link-operations.ts";
import type { createVendorOperations } from "../service/vendor-operations.ts";
import type { createWebhookOperations } from "../service/webhook-operations.ts";
import type { Scope } from "../resources/api-key.ts";
import { defineOperation, type Operation } from "./define.ts";

/**
 * What an account's operations run with: the business operations of one account, built once per
 * account (`service.forAccount`), taking input that was validated at the boundary.
 */
export interface AccountContext {
  accountId: string;
  events: ReturnType<typeof createEventOperations>;
  attendees: ReturnType<typeof createAttendeeOperations>;
  webhooks: ReturnType<typeof createWebhookOperations>;
  analytics: ReturnType<typeof createAnalyticsOperations>;
  activities: ReturnType<typeof createActivityOperations>;
  thresholds: ReturnType<typeof createThresholdOperations>;
  vendors: ReturnType<typeof createVendorOperations>["vendors"];
  bookings: ReturnType<typeof createVendorOperations>["bookings"];
  payments: ReturnType<typeof createPaymentOperations>;
  checkInLinks: ReturnType<typeof createCheckInLinkOperations>;
}

/** What a vendor link's operations run with: the business operations of the booking its token opens. */
export type LinkContext = ReturnType<typeof createVendorLinkOperations>;

/** What a ticket link's operations run with: the business operations of the registration its token opens. */
export type TicketContext = ReturnType<typeof createTicketLinkOperations>;

/** What a door's operations run with: the business operations of the event its check-in link opens. */
export type DoorContext = ReturnType<typeof createDoorLinkOperations>;

/** Declares an operation of an account (its route takes an API key with `scope`). */
export const accountOperation = <
  const Id extends string,
  const P extends string,
  R,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  O extends boolean = false,
>(
  operation: Operation<AccountContext, Id, P, Q, B, O, R> & { scope: Scope },
) => operation;

/** The declarer of operations run with context `C`: each one's `run` gets its input typed by its schemas. */
const declarerOf =
  <C>() =>
  <
    const Id extends string,
    const P extends string,
    R,
    Q extends z.ZodType | undefined = undefined,
    B extends z.ZodType | undefined = undefined,
    O extends boolean = false,
  >(
    operation: Operation<C, Id, P, Q, B, O, R>,
  ) =>
    defineOperation(operation);

/** Declares an operation of a vendor's link (its route takes no API key: the token in its path opens the booking). */
export const linkOperation = declarerOf<LinkContext>();

/** Declares an operation of an attendee's ticket link (its route takes no API key: the token in its path opens the registration). */
export const ticketOperation = declarerOf<TicketContext>();

/** Declares an operation of a door's check-in link (its route takes no API key: the token in its path opens the event's door). */
export const doorOperation = declarerOf<DoorContext>();
