import * as z from "zod";
import { CheckoutSession, Ticket, TicketUpdateInput } from "../resources/ticket-link.ts";
import { ticketOperation } from "./context.ts";
import type { RouteResult } from "./define.ts";

/** A calendar file's answer: text/calendar, to be saved (not cached: the event may change). */
function calendarResponse(text: string): RouteResult {
  return {
    status: 200,
    body: new Blob([new TextEncoder().encode(text)]).stream(),
    headers: {
      "content-type": "text/calendar; charset=utf-8",
      "content-disposition": 'attachment; filename="event.ics"',
      "cache-control": "no-store",
    },
  };
}

/** What an attendee does through their ticket link (no API key: the token in the path opens one registration). */
export const TICKET_LINK_OPERATIONS = [
  ticketOperation({
    id: "ticket.view",
    client: "ticket.get",
    method: "GET",
    path: "/tickets/:token",
    tag: "Ticket link",
    operationId: "getTicket",
    summary: "The attendee's own ticket: the event, their registration, its QR code while admitted, the payment due",
    response: {
      status: 200,
      schema: Ticket,
      name: "Ticket",
      description: "The ticket (JSON unless the request's Accept prefers text/html)",
      jsonToo: true,
      media: {
        "text/html":
          "The attendee's ticket page (docs/api.md, Ticket page): its forms post to this URL; it loads nothing from another origin.",
      },
    },
    errors: ["NOT_FOUND"],
    run: (ticket) => ticket.view(),
  }),
  ticketOperation({
    id: "ticket.update",
    method: "PUT",
    path: "/tickets/:token",
    tag: "Ticket link",
    operationId: "updateTicket",
    summary:
      "The attendee changes their dietary preferences, accessibility needs, emergency contact or travel (partial), until the event starts",
    body: TicketUpdateInput,
    example: () => ({
      dietaryPreferences: ["vegan"],
      carbonOffset: { travelMode: "train", travelDistance: 420, opted: true },
    }),
    response: { status: 200, schema: Ticket, name: "Ticket", description: "The ticket, changed" },
    errors: ["INVALID_REQUEST", "NOT_FOUND", "INVALID_STATE_TRANSITION"],
    run: (ticket, { body }) => ticket.update(body),
  }),
  ticketOperation({
    id: "ticket.cancel",
    method: "POST",
    path: "/tickets/:token/cancel",
    tag: "Ticket link",
    operationId: "cancelTicket",
    summary:
      "The attendee cancels their registration, until the event starts: refunded by the event's refund policy, the next in line promoted",
    response: { status: 200, schema: Ticket, name: "Ticket", description: "The ticket, cancelled" },
    errors: ["NOT_FOUND", "INVALID_STATE_TRANSITION"],
    run: (ticket) => ticket.cancel(),
  }),
  ticketOperation({
    id: "ticket.checkout",
    method: "POST",
    path: "/tickets/:token/checkout",
    tag: "Ticket link",
    operationId: "checkoutTicket",
    summary:
      "A Stripe Checkout Session paying what the registration still owes; send the attendee to its url (they come back to the ticket page)",
    response: { status: 200, schema: CheckoutSession, name: "CheckoutSession", description: "The session to pay on" },
    errors: ["NOT_FOUND", "INVALID_STATE_TRANSITION", "SERVICE_UNAVAILABLE"],
    run: (ticket) => ticket.checkout(),
  }),
  ticketOperation({
    id: "ticket.calendar",
    method: "GET",
    path: "/tickets/:token/calendar.ics",
    tag: "Ticket link",
    operationId: "getTicketCalendar",
    summary: "The event as an iCalendar file (one VEVENT, times in UTC), to add it to a calendar",
    response: {
      status: 200,
      schema: z.string(),
      name: "TicketCalendar",
      description: "The calendar file",
      media: {
        "text/calendar":
          "RFC 5545, one VEVENT: UID `<eventId>@event-service`, DTSTAMP, DTSTART and DTEND in UTC, SUMMARY the event's name, LOCATION its address; STATUS:CANCELLED for an event called off.",
      },
    },
    errors: ["NOT_FOUND"],
    run: (ticket) => ticket.calendar(),
    respond: (text) => calendarResponse(text),
  }),
];
