import { AttendeeExportQuery, EXPORT_MEDIA_TYPES } from "../export/attendee-export.ts";
import { Attendee, AttendeeCreateInput, AttendeeListQuery, AttendeeUpdateInput } from "../resources/attendee.ts";
import { DeleteResult } from "../resources/common.ts";
import { listOf } from "./define.ts";
import { accountOperation } from "./context.ts";

/** A registration's answer as a replay shows it: its ticket link is kept nowhere in the clear. */
const withoutTicketUrl = (attendee: Attendee) => ({ ...attendee, ticketUrl: null });

/** The operations on an account's registrations. */
export const ATTENDEE_OPERATIONS = [
  accountOperation({
    id: "attendees.register",
    method: "POST",
    path: "/attendees",
    scope: "attendees:write",
    tag: "Attendees",
    operationId: "registerAttendee",
    summary: "Register an attendee",
    body: AttendeeCreateInput,
    example: () => ({
      eventId: "evt_8f3k2m9q4x7w",
      firstName: "Ada",
      lastName: "Lovelace",
      email: "ada@example.com",
      ticketType: "Standard",
      dietaryPreferences: ["vegetarian"],
      carbonOffset: { opted: true, amount: 5, travelDistance: 420, travelMode: "train" },
    }),
    response: {
      status: 201,
      schema: Attendee,
      name: "Attendee",
      description: "The registration, with the attendee's ticket link (`ticketUrl`, shown here only)",
    },
    errors: ["INVALID_REQUEST", "EVENT_FULL", "NOT_FOUND", "DUPLICATE_REGISTRATION"],
    run: (account, { body }) => account.attendees.register(body),
    replay: withoutTicketUrl,
  }),
  accountOperation({
    id: "attendees.ticketLink",
    method: "POST",
    path: "/attendees/:id/ticket-link",
    scope: "attendees:write",
    tag: "Attendees",
    operationId: "rotateTicketLink",
    summary: "Make a new ticket link for the attendee; every older one stops working",
    response: {
      status: 200,
      schema: Attendee,
      name: "Attendee",
      description: "The registration, with its new ticket link (`ticketUrl`, shown here only)",
    },
    errors: ["NOT_FOUND"],
    run: (account, { params }) => account.attendees.ticketLink(params.id),
    replay: withoutTicketUrl,
  }),
  accountOperation({
    id: "attendees.list",
    method: "GET",
    path: "/attendees",
    scope: "attendees:read",
    tag: "Attendees",
    operationId: "listAttendees",
    summary: "List registrations",
    query: AttendeeListQuery,
    response: {
      status: 200,
      schema: listOf("attendees", Attendee),
      name: "AttendeeList",
      description: "One page of registrations",
    },
    errors: ["INVALID_REQUEST"],
    run: (account, { query }) => account.attendees.list(query),
  }),
  accountOperation({
    id: "attendees.get",
    method: "GET",
    path: "/attendees/:id",
    scope: "attendees:read",
    tag: "Attendees",
    operationId: "getAttendee",
    summary: "Get a registration",
    response: { status: 200, schema: Attendee, name: "Attendee", description: "The registration" },
    errors: ["NOT_FOUND"],
    run: (account, { params }) => account.attendees.get(params.id),
  }),
  accountOperation({
    id: "attendees.update",
    method: "PUT",
    path: "/attendees/:id",
    scope: "attendees:write",
    tag: "Attendees",
    operationId: "updateAttendee",
    summary: "Update a registration (partial; status rules apply)",
    body: AttendeeUpdateInput,
    example: () => ({ company: "Analytical Engines Ltd", dietaryPreferences: ["vegan"] }),
    response: { status: 200, schema: Attendee, name: "Attendee", description: "The updated registration" },
    errors: ["INVALID_REQUEST", "NOT_FOUND", "INVALID_STATE_TRANSITION", "EVENT_FULL", "DUPLICATE_REGISTRATION"],
    run: (account, { params, body }) => account.attendees.update(params.id, body),
  }),
  accountOperation({
    id: "attendees.delete",
    method: "DELETE",
    path: "/attendees/:id",
    scope: "attendees:write",
    tag: "Attendees",
    operationId: "deleteAttendee",
    summary:
      "Erase a registration: its personal data leaves every table and stored payload; an active one frees its place",
    response: { status: 200, schema: DeleteResult, name: "DeleteResult", description: "The erasure" },
    errors: ["NOT_FOUND"],
    run: (account, { params }) => account.attendees.delete(params.id),
  }),
  accountOperation({
    id: "attendees.export",
    method: "GET",
    path: "/events/:id/attendees/export",
    scope: "attendees:read",
    tag: "Attendees",
    operationId: "exportAttendees",
    summary: "Export every registration of an event in registration order, streamed, as CSV or NDJSON",
    query: AttendeeExportQuery,
    response: {
      status: 200,
      schema: Attendee,
      name: "Attendee",
      description: "The registrations, streamed as they are read",
      media: {
        "text/csv":
          "A header row, then one row a registration: the fields of Attendee, nested ones flattened with dots (`carbonOffset.opted`), lists joined with `;`, `customFields` as JSON; RFC 4180, CRLF; a cell starting with =, +, -, @, a tab or CR is prefixed with '.",
        "application/x-ndjson": "One Attendee object a line.",
      },
    },
    errors: ["INVALID_REQUEST", "NOT_FOUND"],
    run: (account, { params, query }) => account.attendees.export(params.id, query),
    respond: ({ format, stream }, { params }) => ({
      status: 200,
      body: stream,
      headers: {
        "content-type": EXPORT_MEDIA_TYPES[format],
        "content-disposition": `attachment; filename="attendees-${params.id}.${format}"`,
        "cache-control": "no-store",
      },
    }),
  }),
];
