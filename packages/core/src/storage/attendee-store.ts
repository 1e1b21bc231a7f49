import type { ExportCursor } from "../export/attendee-export.ts";
import type { AttendeeListQuery, AttendeeRecord, AttendeeUpdate } from "../resources/attendee.ts";
import type { Change, Page } from "./common.ts";
import type { ChangeNotifier } from "./change-notifier.ts";
import type { Erasure } from "./erasure.ts";

/**
 * Registrations, each under its event's lock, which keeps the event's figures and places exact.
 * Writes hand their change to a `ChangeNotifier` and save its notifications to the outbox in
 * their transaction.
 * Each method is atomic (see `Storage`).
 */
export interface AttendeeStore {
  /**
   * Registers an attendee under the event's lock: throws `NOT_FOUND` (field `eventId`) for an
   * unknown event, `INVALID_REQUEST` (field `eventId`) for a cancelled or completed one,
   * `EVENT_FULL` when active registrations have reached capacity and `DUPLICATE_REGISTRATION`
   * when the email (case-insensitive) holds an active registration for the event.
   * The registration's `confirmationCode` is replaced if it is already taken.
   */
  registerAttendee(attendee: AttendeeRecord, notifier?: ChangeNotifier): Promise<AttendeeRecord>;
  /** The account's registration, or `null`. */
  getAttendee(accountId: string, id: string): Promise<AttendeeRecord | null>;
  /**
   * Applies `update` under the event's lock with `applyAttendeeUpdate` (status rules); a
   * re-activation also checks capacity (`EVENT_FULL`) and, like an email change of an active
   * registration, duplicates (`DUPLICATE_REGISTRATION`). Throws `NOT_FOUND` too.
   */
  updateAttendee(accountId: string, id: string, update: AttendeeUpdate, now: string, notifier?: ChangeNotifier): Promise<Change<AttendeeRecord>>;
  /**
   * Checks in the event's registration with this confirmation code, atomically under the
   * event's lock. Throws `NOT_FOUND` (no such event or code) or `INVALID_STATE_TRANSITION`
   * (the event is not published: `assertDoorOpen`; the registration is cancelled). A
   * registration already checked in is left as it is and returned with `before === after`.
   */
  checkIn(accountId: string, eventId: string, confirmationCode: string, now: string, notifier?: ChangeNotifier): Promise<Change<AttendeeRecord>>;
  /**
   * Undoes the check-in of the event's registration `attendeeId` under the event's lock, with
   * `undoCheckIn` (back to `confirmed`), and notifies `attendee.updated`. Throws `NOT_FOUND`
   * (no such event, or no such registration of it) or `INVALID_STATE_TRANSITION` (not checked in).
   */
  undoCheckIn(accountId: string, eventId: string, attendeeId: string, now: string, notifier?: ChangeNotifier): Promise<Change<AttendeeRecord>>;
  /**
   * Erases the account's registration in one transaction, under its event's lock: the row goes
   * (so every read, list, QR image and check-in of it finds nothing); an active registration's
   * place and its share of the event's kept figures are released; every stored copy of its
   * personal data is scrubbed: webhook payloads (pending and final) that `redactEnvelope`
   * redacts for it, stored as redacted, with the response excerpts of their attempts cleared
   * (a receiver may echo what it got), and stored Idempotency-Key answers that name it,
   * replaced by `erasure.replay`. Then `attendee.deleted` (ids only) and the event's one-time
   * notifications go to the outbox. Returns the registration as it was, or `null` when the
   * account has none with this id (nothing changes). Never throws for a registration's status.
   */
  eraseAttendee(accountId: string, id: string, erasure: Erasure, notifier?: ChangeNotifier): Promise<AttendeeRecord | null>;
  /** The registration with this id in any account, or `null`. Serves the public QR image URLs only. */
  findAttendeeById(id: string): Promise<AttendeeRecord | null>;
  /**
   * Up to `limit` of the account's registrations of the event that come after `cursor` in
   * registration order (`registrationDate`, then `id`), from the first when `cursor` is `null`:
   * one keyset page of an export, read on an index, as fast on the last page as on the first.
   */
  eventAttendeesAfter(accountId: string, eventId: string, cursor: ExportCursor | null, limit: number): Promise<AttendeeRecord[]>;
  /** One page of the account's registrations, filtered and sorted as the query says (ties broken by id). */
  listAttendees(accountId: string, query: AttendeeListQuery): Promise<Page<AttendeeRecord>>;
}
