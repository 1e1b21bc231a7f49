import * as z from "zod";
import { ServiceError } from "../errors.ts";
import { ATTENDEE_STATUSES } from "./attendee.ts";
import { DateTimeInput, pagingParams, plainText, resolvePaging, Timestamp } from "./common.ts";
import { EVENT_STATUSES } from "./event.ts";

/** An event's check-in link as stored: its token's hash only. Revoking one deletes it. */
export interface CheckInLinkRecord {
  id: string;
  accountId: string;
  eventId: string;
  /** SHA-256 of the token, hex (`linkHashOf`). */
  linkHash: string;
  label: string | null;
  expiresAt: string | null;
  createdAt: string;
}

/** The one answer to a check-in link that leads nowhere, whatever the reason (unknown, revoked, expired, event deleted). */
export function doorLinkNotFound(): ServiceError {
  return new ServiceError("NOT_FOUND", { message: "No door at this link." });
}

/** A check-in link's address: where its token is served, under the versioned base. */
export function checkInUrlOf(baseUrl: string, token: string): string {
  return `${baseUrl}/v1/check-in/${token}`;
}

/** Body of `POST /events/:id/check-in-links`. */
export const CheckInLinkCreateInput = z.strictObject({
  label: plainText(100)
    .nullish()
    .meta({ description: 'What the door team calls this link ("North gate"); at most 100 characters.' }),
  expiresAt: DateTimeInput.nullish().meta({
    description: "When the link stops working (in the future); none: until revoked or the event is deleted.",
  }),
});
export type CheckInLinkCreateInput = z.input<typeof CheckInLinkCreateInput>;

/** An event's check-in link as the organiser sees it. */
export const CheckInLink = z.object({
  id: z.string(),
  eventId: z.string(),
  label: z.string().nullable(),
  url: z.string().nullable().meta({
    description:
      "`<base>/v1/check-in/<token>`: in the create answer only; null in lists and in a replayed answer (only its hash is kept).",
  }),
  expiresAt: Timestamp.nullable(),
  createdAt: Timestamp,
});
export type CheckInLink = z.infer<typeof CheckInLink>;

/** Query of `GET /events/:id/check-in-links`: paging only, oldest first. */
export const CheckInLinkListQuery = z.strictObject({ ...pagingParams }).transform(resolvePaging);
export type CheckInLinkListQuery = z.output<typeof CheckInLinkListQuery>;

/** What a scan at the door comes to. */
export const DOOR_RESULTS = [
  "checked_in",
  "already_checked_in",
  "not_found",
  "wrong_event",
  "cancelled",
  "payment_required",
  "not_admitted",
  "event_not_open",
] as const;
export type DoorResult = (typeof DOOR_RESULTS)[number];

/** A registration as the door sees it: a name to greet and a ticket type; never an email or anything else. */
export const DoorAttendee = z.object({
  id: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  ticketType: z.string(),
  status: z.enum(ATTENDEE_STATUSES),
});
export type DoorAttendee = z.infer<typeof DoorAttendee>;

/** The event a door opens onto, as its staff need it. */
export const DoorEvent = z.object({
  id: z.string(),
  name: z.string(),
  status: z.enum(EVENT_STATUSES),
  startDate: Timestamp,
  endDate: Timestamp,
  timeZone: z.string().nullable(),
  location: z.object({ city: z.string(), country: z.string() }),
});
export type DoorEvent = z.infer<typeof DoorEvent>;

/** Answer of `GET /check-in/:token`. */
export const Door = z.object({
  event: DoorEvent,
  label: z.string().nullable(),
  doorOpen: z.boolean().meta({ description: "True while the event is published: scans check people in." }),
  counts: z.object({
    checkedIn: z.number().int(),
    expected: z.number().int().meta({ description: "Admitted registrations: confirmed and checked in." }),
  }),
});
export type Door = z.infer<typeof Door>;

/**
 * Body of `POST /check-in/:token/scan`: what was typed or scanned (`code`), or a registration
 * picked from the door's search (`attendeeId`); exactly one of them.
 */
export const DoorScanInput = z
  .strictObject({
    code: z.string().max(200).optional().meta({
      description:
        "A confirmation code (`EVT-7KQ2-M9XH`; case, spaces and dashes do not count) or a ticket's QR code content (the same code).",
    }),
    attendeeId: z
      .string()
      .max(100)
      .optional()
      .meta({ description: "Instead of `code`: a registration the door found by name (its `id`)." }),
  })
  .superRefine((body, issues) => {
    if ((body.code === undefined) === (body.attendeeId === undefined))
      issues.addIssue({ code: "custom", path: ["code"], message: "give either code or attendeeId" });
  });
export type DoorScanInput = z.input<typeof DoorScanInput>;

/** Answer of a scan, and of an undo: what it came to, whose ticket it is, when it was checked in. */
export const DoorScan = z.object({
  result: z.enum([...DOOR_RESULTS, "undone"]),
  attendee: DoorAttendee.nullable().meta({ description: "Null for `not_found`." }),
  checkedInAt: Timestamp.nullable(),
  event: z
    .object({ id: z.string(), name: z.string() })
    .optional()
    .meta({ description: "With `wrong_event`: the event the code belongs to." }),
});
export type DoorScan = z.infer<typeof DoorScan>;

/** Query of `GET /check-in/:token/attendees`. */
export const DoorSearchQuery = z.strictObject({
  search: plainText(100)
    .optional()
    .meta({ description: "Part of a first or last name; fewer than 2 characters lists nobody." }),
});

/** A registration found by name at the door. */
export const DoorSearchHit = DoorAttendee.extend({ checkedInAt: Timestamp.nullable() });

/** Answer of `GET /check-in/:token/attendees`. */
export const DoorSearch = z.object({ attendees: z.array(DoorSearchHit) });
export type DoorSearch = z.infer<typeof DoorSearch>;

/** One registration of the offline list. */
export const OfflineEntry = DoorAttendee.extend({
  codeHash: z.string().meta({ description: "Hex SHA-256 of the normalised confirmation code (docs/api.md, Door)." }),
  checkedInAt: Timestamp.nullable(),
  paymentRequired: z
    .boolean()
    .meta({ description: "True when the ticket is priced and not paid: a scan answers `payment_required`." }),
});
export type OfflineEntry = z.infer<typeof OfflineEntry>;

/** Answer of `GET /check-in/:token/offline-list`. */
export const OfflineList = z.object({
  event: DoorEvent,
  generatedAt: Timestamp,
  attendees: z.array(OfflineEntry),
});
export type OfflineList = z.infer<typeof OfflineList>;
