import * as z from "zod";
import { ServiceError } from "../errors.ts";
import { TRAVEL_MODES } from "../carbon/emission-factors.ts";
import { AccessibilityNeeds, ATTENDEE_STATUSES, DietaryPreferences, EmergencyContact } from "./attendee.ts";
import { Timestamp } from "./common.ts";
import { EVENT_STATUSES } from "./event.ts";
import { PAYMENT_PROVIDERS, PAYMENT_STATUSES } from "./payment.ts";

/** A live ticket link of a registration as stored: its token's hash only. A registration may hold several at once. */
export interface TicketLinkRecord {
  id: string;
  accountId: string;
  attendeeId: string;
  /** SHA-256 of the token, hex (`linkHashOf`). */
  linkHash: string;
  createdAt: string;
}

/** The one answer to a ticket link that leads nowhere, whatever the reason (unknown, rotated, erased). */
export function ticketNotFound(): ServiceError {
  return new ServiceError("NOT_FOUND", { message: "No ticket at this link." });
}

/** The attendee's ticket link: where its token is served, under the versioned base. */
export function ticketUrlOf(baseUrl: string, token: string): string {
  return `${baseUrl}/v1/tickets/${token}`;
}

/**
 * The travel an attendee reports through the ticket link, merged into the registration's
 * `carbonOffset` (its offset contribution `amount` stays the organiser's); `null` clears a field.
 */
export const TicketTravelInput = z.strictObject({
  travelMode: z.enum(TRAVEL_MODES).nullable().optional(),
  travelDistance: z.number().min(0).max(100_000).nullable().optional().meta({ description: "Travel distance in km." }),
  opted: z.boolean().optional().meta({ description: "Offset my travel." }),
});
export type TicketTravelInput = z.input<typeof TicketTravelInput>;

/** Body of `PUT /tickets/:token`: what the attendee may change of their own registration (partial; `null` clears). */
export const TicketUpdateInput = z.strictObject({
  dietaryPreferences: DietaryPreferences.nullish(),
  accessibilityNeeds: AccessibilityNeeds.nullish(),
  emergencyContact: EmergencyContact.nullish(),
  carbonOffset: TicketTravelInput.optional(),
});
export type TicketUpdateInput = z.input<typeof TicketUpdateInput>;
export type TicketUpdate = z.output<typeof TicketUpdateInput>;

/** The attendee's own view of their registration through the ticket link: no other attendee, no account data. */
export const Ticket = z.object({
  event: z.object({
    id: z.string(),
    name: z.string(),
    status: z.enum(EVENT_STATUSES).meta({ description: "`cancelled` when the organiser called the event off." }),
    startDate: Timestamp,
    endDate: Timestamp,
    timeZone: z.string().nullable().meta({ description: "IANA name the event's times are shown in; null: UTC." }),
    location: z.object({
      address: z.string(),
      city: z.string(),
      state: z.string().nullable(),
      country: z.string(),
      zipCode: z.string().nullable(),
    }),
  }),
  attendee: z.object({
    id: z.string(),
    firstName: z.string(),
    lastName: z.string(),
    email: z.string(),
    ticketType: z.string(),
    status: z.enum(ATTENDEE_STATUSES),
    confirmationCode: z.string(),
    qrCode: z.url().nullable().meta({
      description: "URL of the QR code image for check-in while the registration is admitted; null otherwise.",
    }),
    waitlistPosition: z
      .int()
      .min(1)
      .nullable()
      .meta({ description: "Place in the waiting list (1 is next) while waitlisted." }),
    dietaryPreferences: z.array(z.string()),
    accessibilityNeeds: AccessibilityNeeds.nullable(),
    emergencyContact: EmergencyContact.nullable(),
    carbonOffset: z
      .object({
        opted: z.boolean().nullable(),
        travelMode: z.enum(TRAVEL_MODES).nullable(),
        travelDistance: z.number().nullable(),
      })
      .meta({ description: "The travel reported for the event's footprint, and whether the attendee offsets it." }),
  }),
  payment: z
    .object({
      status: z.enum(PAYMENT_STATUSES),
      provider: z.enum(PAYMENT_PROVIDERS),
      currency: z.string(),
      amount: z.int().min(0).meta({ description: "The price, in the currency's minor unit." }),
      amountPaid: z.int().min(0),
      amountRefunded: z.int().min(0),
      amountDue: z.int().min(0).meta({ description: "What is still owed (0 once admitted or cancelled)." }),
      expiresAt: Timestamp.nullable(),
    })
    .nullable()
    .meta({ description: "A priced ticket's payment; null for a free registration and while waitlisted." }),
  changesAllowed: z.boolean().meta({
    description:
      "Whether `PUT` and `cancel` are taken now: the registration is not cancelled and the event has not started.",
  }),
});
export type Ticket = z.infer<typeof Ticket>;

/** The answer of `POST /tickets/:token/checkout`: where the attendee pays. */
export const CheckoutSession = z.object({
  url: z
    .url()
    .meta({ description: "The Stripe Checkout Session's page (on checkout.stripe.com); valid until it expires." }),
});
export type CheckoutSession = z.infer<typeof CheckoutSession>;
