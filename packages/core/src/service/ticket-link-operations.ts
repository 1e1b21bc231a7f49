import type * as z from "zod";
import { calendarOf } from "../_internal/icalendar.ts";
import { createId } from "../_internal/ids.ts";
import { type AttendeeRecord, qrCodeUrlOf } from "../resources/attendee.ts";
import type { EventRecord } from "../resources/event.ts";
import { isLinkToken, linkHashOf, newLinkToken } from "../resources/link-token.ts";
import {
  type Ticket,
  type TicketLinkRecord,
  type TicketUpdateInput,
  ticketNotFound,
  ticketUrlOf,
} from "../resources/ticket-link.ts";
import { assertCheckoutPayable, refundOnCancel } from "../rules/payments.ts";
import type { RefundPolicy } from "../resources/ticket-type.ts";
import { ServiceError } from "../errors.ts";
import {
  assertTicketChangeable,
  showsQrCode,
  ticketAmountDue,
  ticketChangeRefusal,
  ticketUpdateOf,
} from "../rules/ticket-link.ts";
import type { AttendeeUpdate } from "../resources/attendee.ts";
import type { EventStore } from "../storage/event-store.ts";
import type { TicketLinkStore } from "../storage/ticket-link-store.ts";
import type { TransactionStore } from "../storage/transaction.ts";
import { notFound } from "./not-found.ts";
import type { OperationContext } from "./operation-context.ts";
import type { StripePayments } from "./stripe-payments.ts";
import { updateAttendee } from "./registrations.ts";
import type { TransactionContext } from "./transaction-context.ts";
import { lockRegistration, runTransaction } from "./transaction-steps.ts";

/** What a change of a registration needs beside the transaction's context: whose, the clock, the wake-up of deliveries, Stripe. */
export type RegistrationChangeContext = TransactionContext &
  Pick<OperationContext, "accountId" | "clock" | "queued" | "stripe">;

/**
 * Changes one of the account's registrations as the organiser's `PUT` does (`updateAttendee`:
 * status rules, refund by the refund policy, promotion, notifications), then wakes the deliveries
 * and closes a PaymentIntent nobody is to pay any more. `guard` may refuse it under the lock.
 */
export async function changeRegistration(
  context: RegistrationChangeContext,
  change: Pick<Parameters<typeof updateAttendee>[1], "id" | "update" | "guard">,
) {
  const result = await updateAttendee(context, {
    ...change,
    accountId: context.accountId,
    now: context.clock().toISOString(),
  });
  context.queued();
  await context.stripe?.closeIntent(result.before, result.after);
  return result;
}

/** A new ticket link of the account's registration `attendeeId`: the record to store and the token, shown once. */
export function newTicketLink(
  accountId: string,
  attendeeId: string,
  now: string,
): { token: string; link: TicketLinkRecord } {
  const token = newLinkToken("ticket");
  return {
    token,
    link: { id: createId("ticketLink"), accountId, attendeeId, linkHash: linkHashOf(token), createdAt: now },
  };
}

/**
 * Replaces every ticket link of the account's registration `id` by `link` under its event's lock
 * (the old tokens open nothing from the commit on) and returns the registration; `NOT_FOUND` when
 * the account has none with this id.
 */
export function rotateTicketLink(
  context: TransactionContext,
  { accountId, id, link }: { accountId: string; id: string; link: TicketLinkRecord },
): Promise<AttendeeRecord> {
  return runTransaction(context, async ({ tx }) => {
    const locked = await lockRegistration(tx, accountId, id);
    if (!locked) throw notFound("Attendee", id);
    await tx.ticketLinks.replace(link);
    return locked.attendee;
  });
}

/**
 * The registration a ticket link's token opens, as found outside a transaction, or `null`: a
 * token of the wrong shape is not looked up.
 */
export async function findLinkedRegistration(storage: TicketLinkStore, token: string): Promise<AttendeeRecord | null> {
  if (!isLinkToken(token, "ticket")) return null;
  return storage.findTicketLink(linkHashOf(token));
}

/**
 * The attendee's view of their registration (`Ticket`), `baseUrl` the base of its QR image. It
 * holds no link's token: a ticket link's answer may be kept for an Idempotency-Key's replay.
 */
export function ticketOf(
  event: EventRecord,
  attendee: AttendeeRecord,
  { baseUrl, now }: { baseUrl: string; now: string },
): Ticket {
  const { payment, carbonOffset } = attendee;
  const { address, city, state, country, zipCode } = event.location;
  return {
    event: {
      id: event.id,
      name: event.name,
      status: event.status,
      startDate: event.startDate,
      endDate: event.endDate,
      timeZone: event.timeZone,
      location: { address, city, state, country, zipCode },
    },
    attendee: {
      id: attendee.id,
      firstName: attendee.firstName,
      lastName: attendee.lastName,
      email: attendee.email,
      ticketType: attendee.ticketType,
      status: attendee.status,
      confirmationCode: attendee.confirmationCode,
      qrCode: showsQrCode(event, attendee) ? qrCodeUrlOf(baseUrl, attendee.id) : null,
      waitlistPosition: attendee.waitlistPosition,
      dietaryPreferences: attendee.dietaryPreferences,
      accessibilityNeeds: attendee.accessibilityNeeds,
      emergencyContact: attendee.emergencyContact,
      carbonOffset: {
        opted: carbonOffset?.opted ?? null,
        travelMode: carbonOffset?.travelMode ?? null,
        travelDistance: carbonOffset?.travelDistance ?? null,
      },
    },
    payment: payment && {
      status: payment.status,
      provider: payment.provider,
      currency: payment.currency,
      amount: payment.amount,
      amountPaid: payment.amountPaid,
      amountRefunded: payment.amountRefunded,
      amountDue: ticketAmountDue({ status: attendee.status, payment }),
      expiresAt: payment.expiresAt,
    },
    changesAllowed: ticketChangeRefusal(event, attendee, now) === null,
  };
}

/** The event's place in one line: its address, city, state, postcode and country as far as known. */
function locationText(location: EventRecord["location"]): string {
  const { address, zipCode, city, state, country } = location;
  return [address, [zipCode, city].filter(Boolean).join(" "), state, country].filter(Boolean).join(", ");
}

/** The ticket link's calendar file: the event alone, its times in UTC, `CANCELLED` when called off. */
export function ticketCalendarOf(event: EventRecord, now: string): string {
  return calendarOf(
    {
      uid: `${event.id}@event-service`,
      stamp: now,
      start: event.startDate,
      end: event.endDate,
      summary: event.name,
      location: locationText(event.location),
      ...(event.status === "cancelled" && { status: "CANCELLED" as const }),
    },
    "-//Event Service//Ticket//EN",
  );
}

/** What the ticket's page is drawn from besides the ticket (`overview()`). */
export interface TicketOverview {
  ticket: Ticket;
  refundPolicy: RefundPolicy;
  /** What cancelling now would refund, in the currency's minor unit. */
  refundOnCancel: number;
  /** Whether "Pay" would make a Checkout Session now (Stripe configured, something owed, the hold running). */
  payable: boolean;
}

/** What the ticket link's operations run with: the context of a change of the registration's account, and the base of its links. */
export interface TicketLinkContext extends RegistrationChangeContext {
  baseUrl: string;
  /** Stripe's side of payments, with the Checkout Sessions "Pay" makes; absent without Stripe. */
  stripe: Pick<StripePayments, "ensureIntent" | "closeIntent" | "checkout"> | undefined;
}

/**
 * The operations of an attendee's ticket link whose registration was found
 * (`findLinkedRegistration`). Each reads the registration by its link again, a change under the
 * event's lock, so a link rotated or a registration erased meanwhile is `404`.
 */
export function createTicketLinkOperations(
  storage: TicketLinkStore & Pick<EventStore, "getEvent"> & TransactionStore,
  token: string,
  found: AttendeeRecord,
  context: TicketLinkContext,
) {
  const linkHash = linkHashOf(token);
  const { id, accountId } = found;

  const current = async () => {
    const attendee = await storage.findTicketLink(linkHash);
    const event = attendee && (await storage.getEvent(accountId, attendee.eventId, context.carbon));
    if (!attendee || !event) throw ticketNotFound();
    return { attendee, event };
  };
  const view = async () => {
    const { attendee, event } = await current();
    return ticketOf(event, attendee, { baseUrl: context.baseUrl, now: context.clock().toISOString() });
  };
  /** The organiser's change of the registration, taken only while the link is live and the attendee may still change it. */
  const change = async (update: AttendeeUpdate | ((before: AttendeeRecord) => AttendeeUpdate)) => {
    await changeRegistration(context, {
      id,
      update,
      guard: async ({ tx }, event, before) => {
        if ((await tx.ticketLinks.attendeeOf(linkHash)) !== before.id) throw ticketNotFound();
        assertTicketChangeable(event, before, context.clock().toISOString());
      },
    });
    return view();
  };

  return {
    attendee: { id, accountId },
    /** The link's token, for its page's links to itself (never logged or stored). */
    token,
    view,
    /**
     * The ticket with what its page offers now, from one reading: the refund a cancellation would
     * make by the event's refund policy (minor units), and whether Stripe would take a payment.
     */
    async overview(): Promise<TicketOverview> {
      const { attendee, event } = await current();
      const now = context.clock().toISOString();
      let payable = context.stripe !== undefined;
      try {
        assertCheckoutPayable(attendee, now);
      } catch {
        payable = false;
      }
      return {
        ticket: ticketOf(event, attendee, { baseUrl: context.baseUrl, now }),
        refundPolicy: event.refundPolicy,
        refundOnCancel: refundOnCancel(event, attendee.payment, now),
        payable,
      };
    },
    update: (parsed: z.output<typeof TicketUpdateInput>) => change((before) => ticketUpdateOf(before, parsed)),
    cancel: () => change({ status: "cancelled" }),
    /**
     * A Stripe Checkout Session paying what is still owed, back to the ticket page after (`?done=paid`
     * or `?done=payment_cancelled`). Without Stripe configured, a registration that takes no payment
     * through Stripe is refused as `checkout()` refuses it (`422` with its reason), any other `503`.
     */
    async checkout(): Promise<{ url: string }> {
      const { attendee } = await current();
      if (!context.stripe) {
        assertCheckoutPayable(attendee, context.clock().toISOString());
        throw new ServiceError("SERVICE_UNAVAILABLE", {
          message: "Payments through Stripe are not configured on this service; ask the organiser.",
        });
      }
      const ticketUrl = ticketUrlOf(context.baseUrl, token);
      return context.stripe.checkout(
        { accountId, attendeeId: id },
        { successUrl: `${ticketUrl}?done=paid`, cancelUrl: `${ticketUrl}?done=payment_cancelled` },
      );
    },
    async calendar() {
      const { event } = await current();
      return ticketCalendarOf(event, context.clock().toISOString());
    },
  };
}
