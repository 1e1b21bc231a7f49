import type { AttendeeRecord, AttendeeStatus } from "../resources/attendee.ts";
import type { CheckInLinkRecord } from "../resources/check-in-link.ts";
import type { Page } from "./common.ts";

/** One registration of an event's door list: what a door may know of it, and its code to hash. */
export interface DoorListEntry {
  id: string;
  firstName: string;
  lastName: string;
  ticketType: string;
  status: AttendeeStatus;
  confirmationCode: string;
  checkedInAt: string | null;
  /** The payment's admission, `null` for a free registration (`isAdmitted` reads it). */
  payment: { admittedAt: string | null } | null;
}

/**
 * Events' check-in links and what a door reads: each link is a token's hash (never the token)
 * opening one event's door. Revoking a link deletes it; deleting the event (`tx.events.delete`)
 * deletes its links. None of these reads is cached: a revoked or expired link opens nothing
 * from the next request on, on every process.
 */
export interface CheckInLinkStore {
  /**
   * Adds `link` to the account's event `link.eventId` and returns `true`; returns `false` and
   * writes nothing when the account has no such event. Atomic with the event's deletion: the
   * event is held until the link is written, so a link never outlives its event.
   */
  addCheckInLink(link: CheckInLinkRecord): Promise<boolean>;
  /** One page of the account's event's links, oldest first (ties by id); `null` when the account has no such event. */
  listCheckInLinks(
    accountId: string,
    eventId: string,
    page: { page: number; limit: number },
  ): Promise<Page<CheckInLinkRecord> | null>;
  /** Deletes the account's event's link `linkId`; `false` when there is none. */
  revokeCheckInLink(accountId: string, eventId: string, linkId: string): Promise<boolean>;
  /** The link whose token hashes to `linkHash`, if it is live at `now` (not expired), or `null`. */
  findCheckInLink(linkHash: string, now: string): Promise<CheckInLinkRecord | null>;
  /** The event's registrations checked in, and admitted ones (`ADMITTED_ATTENDEE_STATUSES`, checked in included). */
  doorCounts(eventId: string): Promise<{ checkedIn: number; expected: number }>;
  /**
   * At most `limit` of the event's registrations whose first or last name (`first last`) holds
   * `search`, case-insensitive, ordered by last name, first name and id. Names only: never an
   * email or a company.
   */
  searchDoorAttendees(eventId: string, search: string, limit: number): Promise<DoorListEntry[]>;
  /** Every registration of the event, in one read, ordered by id. */
  doorList(eventId: string): Promise<DoorListEntry[]>;
  /** The account's registration with this confirmation code (stored form), whatever its event, or `null`. */
  findAttendeeByCode(accountId: string, confirmationCode: string): Promise<AttendeeRecord | null>;
}
