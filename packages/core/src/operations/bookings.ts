import {
  Booking,
  BookingCreateInput,
  BookingListQuery,
  BookingUpdateInput,
  BookingWithLink,
} from "../resources/vendor.ts";
import { listOf } from "./define.ts";
import { accountOperation } from "./context.ts";

/** A booking's answer as a replay shows it: its vendor's link is kept nowhere in the clear. */
const withoutLink = (booking: BookingWithLink) => ({ ...booking, vendorLink: null });

/** The vendor bookings of an account's events. */
export const BOOKING_OPERATIONS = [
  accountOperation({
    id: "bookings.create",
    method: "POST",
    path: "/events/:id/vendors",
    scope: "vendors:write",
    tag: "Vendors",
    operationId: "createBooking",
    summary: "Book a vendor for the event: the answer holds the vendor's own link (shown this once)",
    body: BookingCreateInput,
    example: () => ({
      vendorId: "ven_5h2n8c4r1z6t",
      services: "Lunch and coffee for 200 guests",
      dataRequested: ["catering", "waste"],
    }),
    response: {
      status: 201,
      schema: BookingWithLink,
      name: "BookingWithLink",
      description: "The booking, requested, with its vendor's link",
    },
    errors: ["INVALID_REQUEST", "NOT_FOUND", "DUPLICATE_BOOKING"],
    run: (account, { params, body }) => account.bookings.create(params.id, body),
    replay: withoutLink,
  }),
  accountOperation({
    id: "bookings.list",
    method: "GET",
    path: "/events/:id/vendors",
    scope: "vendors:read",
    tag: "Vendors",
    operationId: "listBookings",
    summary: "List the event's vendor bookings, oldest first",
    query: BookingListQuery,
    response: {
      status: 200,
      schema: listOf("bookings", Booking),
      name: "BookingList",
      description: "One page of bookings",
    },
    errors: ["INVALID_REQUEST", "NOT_FOUND"],
    run: (account, { params, query }) => account.bookings.list(params.id, query),
  }),
  accountOperation({
    id: "bookings.get",
    method: "GET",
    path: "/events/:id/vendors/:bookingId",
    scope: "vendors:read",
    tag: "Vendors",
    operationId: "getBooking",
    summary: "Get a vendor booking",
    response: { status: 200, schema: Booking, name: "Booking", description: "The booking" },
    errors: ["NOT_FOUND"],
    run: (account, { params }) => account.bookings.get(params.id, params.bookingId),
  }),
  accountOperation({
    id: "bookings.update",
    method: "PUT",
    path: "/events/:id/vendors/:bookingId",
    scope: "vendors:write",
    tag: "Vendors",
    operationId: "updateBooking",
    summary:
      "Change a booking's services, data asked or status (requested -> confirmed | declined | cancelled, confirmed -> cancelled)",
    body: BookingUpdateInput,
    example: () => ({ services: "Lunch, coffee and a dinner for 200 guests" }),
    response: { status: 200, schema: Booking, name: "Booking", description: "The updated booking" },
    errors: ["INVALID_REQUEST", "NOT_FOUND", "INVALID_STATE_TRANSITION"],
    run: (account, { params, body }) => account.bookings.update(params.id, params.bookingId, body),
  }),
  accountOperation({
    id: "bookings.rotateLink",
    method: "POST",
    path: "/events/:id/vendors/:bookingId/rotate-link",
    scope: "vendors:write",
    tag: "Vendors",
    operationId: "rotateBookingLink",
    summary: "Give the booking a new vendor link (shown this once); the old one answers 404 from now on",
    response: {
      status: 200,
      schema: BookingWithLink,
      name: "BookingWithLink",
      description: "The booking with its new link",
    },
    errors: ["NOT_FOUND", "INVALID_STATE_TRANSITION"],
    run: (account, { params }) => account.bookings.rotateLink(params.id, params.bookingId),
    replay: withoutLink,
  }),
];
