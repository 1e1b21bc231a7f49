import { createId } from "../_internal/ids.ts";
import { parseInput } from "../_internal/parse-input.ts";
import { eventStatsOf, NO_FIGURES } from "../rules/kept-figures.ts";
import { type Attendee, CheckInInput, toApiAttendee } from "../resources/attendee.ts";
import { type DeleteResult, paginate } from "../resources/common.ts";
import {
  type Event,
  EventCreateInput,
  EventListQuery,
  EventUpdateInput,
  newEventRecord,
  toApiEvent,
} from "../resources/event.ts";
import { alreadyCheckedIn, isCheckedIn } from "../rules/check-in.ts";
import { typedConfirmationCode } from "../rules/confirmation-code.ts";
import { ERASED_ANSWER } from "../storage/erasure.ts";
import type { EventStore } from "../storage/event-store.ts";
import { deleteEvent, insertEvent, updateEvent } from "./event-changes.ts";
import type { ListResult, OperationContext } from "./operation-context.ts";
import { notFound } from "./not-found.ts";
import { checkIn, undoCheckIn } from "./registrations.ts";
import type { TransactionStore } from "../storage/transaction.ts";

/** Operations on one account's events. */
export interface EventOperations {
  /** Creates an event in `draft`. Throws `INVALID_REQUEST`. */
  create(input: EventCreateInput): Promise<Event>;
  /** Throws `NOT_FOUND`. */
  get(id: string): Promise<Event>;
  /** Partial update; throws `NOT_FOUND`, `INVALID_REQUEST`, `INVALID_STATE_TRANSITION`. */
  update(id: string, input: EventUpdateInput): Promise<Event>;
  /** Deletes the event and its registrations; throws `NOT_FOUND`. */
  delete(id: string): Promise<DeleteResult>;
  /** One page of events; `query` holds query-string values (strings) or their parsed forms. */
  list(query?: Record<string, unknown>): Promise<ListResult<"events", Event>>;
  /**
   * Checks in the registration with this confirmation code while the event is published;
   * throws `NOT_FOUND`, `ALREADY_CHECKED_IN`, `INVALID_STATE_TRANSITION` (details.reason
   * `event_not_published` when the door is closed).
   */
  checkIn(eventId: string, input: CheckInInput): Promise<Attendee>;
  /**
   * Undoes the check-in of the event's registration `attendeeId` (back to `confirmed`, sends
   * `attendee.updated`); throws `NOT_FOUND`, `INVALID_STATE_TRANSITION` (reason `not_checked_in`).
   */
  undoCheckIn(eventId: string, attendeeId: string): Promise<Attendee>;
}

/** The event operations of one account, over the stores they need. */
export function createEventOperations(
  storage: EventStore & TransactionStore,
  context: OperationContext,
): EventOperations {
  const { accountId, clock, carbon, queued } = context;

  async function getEvent(id: string): Promise<Event> {
    const event = await storage.getEvent(accountId, id, carbon);
    if (!event) throw notFound("Event", id);
    return toApiEvent(event);
  }

  const events: EventOperations = {
    async create(input) {
      const parsed = parseInput(EventCreateInput, input);
      const record = newEventRecord(parsed, { id: createId("event"), accountId, now: clock().toISOString() });
      await insertEvent(context, record);
      queued();
      return toApiEvent({ ...record, ...eventStatsOf(record, NO_FIGURES, carbon) });
    },
    get: getEvent,
    async update(id, input) {
      const parsed = parseInput(EventUpdateInput, input);
      await updateEvent(context, { accountId, id, update: parsed, now: clock().toISOString() });
      queued();
      return getEvent(id);
    },
    async delete(id) {
      const deleted = await deleteEvent(context, {
        accountId,
        id,
        erasure: { now: clock().toISOString(), replay: ERASED_ANSWER },
      });
      queued();
      if (!deleted) throw notFound("Event", id);
      return { success: true, message: `Event ${id} and its registrations were deleted.`, deletedId: id };
    },
    async list(query = {}) {
      const parsed = parseInput(EventListQuery, query, "query");
      const page = await storage.listEvents(accountId, parsed, carbon);
      return { events: page.items.map(toApiEvent), pagination: paginate(parsed.page, parsed.limit, page.total) };
    },
    async checkIn(eventId, input) {
      const { confirmationCode } = parseInput(CheckInInput, input);
      const { before, after } = await checkIn(context, {
        accountId,
        eventId,
        confirmationCode: typedConfirmationCode(confirmationCode),
        now: clock().toISOString(),
      });
      queued();
      if (isCheckedIn(before)) throw alreadyCheckedIn(before, toApiAttendee(before, context.baseUrl));
      return toApiAttendee(after, context.baseUrl);
    },
    async undoCheckIn(eventId, attendeeId) {
      const { after } = await undoCheckIn(context, { accountId, eventId, attendeeId, now: clock().toISOString() });
      queued();
      return toApiAttendee(after, context.baseUrl);
    },
  };

  return events;
}
