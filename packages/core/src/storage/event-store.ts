import type { CarbonSettings } from "../carbon/carbon-settings.ts";
import type { EventListQuery, EventRecord, EventUpdate, EventWithStats } from "../resources/event.ts";
import type { Change, Page } from "./common.ts";
import type { ChangeNotifier } from "./change-notifier.ts";
import type { Erasure } from "./erasure.ts";

/**
 * Events, with the figures kept on them. Writes hand their change to a `ChangeNotifier` and save
 * its notifications to the outbox in their transaction.
 * Each method is atomic (see `Storage`).
 */
export interface EventStore {
  /** Stores a new event. */
  insertEvent(event: EventRecord, notifier?: ChangeNotifier): Promise<void>;
  /** The account's event with its figures, or `null`. */
  getEvent(accountId: string, id: string, carbon: CarbonSettings): Promise<EventWithStats | null>;
  /**
   * Applies `update` under the event's lock with `applyEventUpdate` (status rules, date order,
   * capacity at or above active registrations). Throws `NOT_FOUND`, `INVALID_STATE_TRANSITION`
   * or `INVALID_REQUEST`.
   */
  updateEvent(accountId: string, id: string, update: EventUpdate, now: string, notifier?: ChangeNotifier): Promise<Change<EventRecord>>;
  /**
   * Deletes the event and all its registrations in one transaction, and scrubs its
   * registrations' personal data from stored copies as `eraseAttendee` does (webhook payloads
   * by `redactEnvelope` with the event as subject, stored Idempotency-Key answers that name one
   * of them). The deleted event, or `null` (nothing changes). `erasure` defaults to now and
   * `ERASED_ANSWER`.
   */
  deleteEvent(accountId: string, id: string, notifier?: ChangeNotifier, erasure?: Erasure): Promise<EventRecord | null>;
  /** One page of the account's events, filtered and sorted as the query says (ties broken by id). */
  listEvents(accountId: string, query: EventListQuery, carbon: CarbonSettings): Promise<Page<EventWithStats>>;
}
