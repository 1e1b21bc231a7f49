import type { ExportCursor } from "../export/attendee-export.ts";
import type { AttendeeListQuery, AttendeeRecord } from "../resources/attendee.ts";
import type { Page } from "./common.ts";

/**
 * Reads of registrations, outside a transaction. Registrations are written in transactions
 * (`TransactionStore`: `tx.attendees`, under their event's lock), by the business transactions
 * of `service/`.
 */
export interface AttendeeStore {
  /** The account's registration, or `null`. */
  getAttendee(accountId: string, id: string): Promise<AttendeeRecord | null>;
  /** The registration with this id in any account, or `null`. Serves the public QR image URLs only. */
  findAttendeeById(id: string): Promise<AttendeeRecord | null>;
  /**
   * Up to `limit` of the account's registrations of the event that come after `cursor` in
   * registration order (`registrationDate`, then `id`), from the first when `cursor` is `null`:
   * one keyset page of an export, read on an index, as fast on the last page as on the first.
   */
  eventAttendeesAfter(
    accountId: string,
    eventId: string,
    cursor: ExportCursor | null,
    limit: number,
  ): Promise<AttendeeRecord[]>;
  /** One page of the account's registrations, filtered and sorted as the query says (ties broken by id). */
  listAttendees(accountId: string, query: AttendeeListQuery): Promise<Page<AttendeeRecord>>;
}
