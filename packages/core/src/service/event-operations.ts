import type * as z from "zod";
import { createId } from "../_internal/ids.ts";
import { eventStatsOf, NO_FIGURES } from "../rules/kept-figures.ts";
import { type CheckInInput, toApiAttendee } from "../resources/attendee.ts";
import { paginate } from "../resources/common.ts";
import {
  type Event,
  type EventCreateInput,
  type EventListQuery,
  type EventUpdateInput,
  newEventRecord,
  toApiEvent,
} from "../resources/event.ts";
import { alreadyCheckedIn, isCheckedIn } from "../rules/check-in.ts";
import { typedConfirmationCode } from "../rules/confirmation-code.ts";
import { ERASED_ANSWER } from "../storage/erasure.ts";
import type { EventStore } from "../storage/event-store.ts";
import { deleteEvent, insertEvent, updateEvent } from "./event-changes.ts";
import type { OperationContext } from "./operation-context.ts";
import { notFound } from "./not-found.ts";
import { checkIn, undoCheckIn } from "./registrations.ts";
import type { TransactionStore } from "../storage/transaction.ts";

/** The event operations of one account, over the stores they need. */
export function createEventOperations(storage: EventStore & TransactionStore, context: OperationContext) {
  const { accountId, clock, carbon, queued } = context;

  async function getEvent(id: string): Promise<Event> {
    const event = await storage.getEvent(accountId, id, carbon);
    if (!event) throw notFound("Event", id);
    return toApiEvent(event);
  }

  const events = {
    async create(parsed: z.output<typeof EventCreateInput>) {
      const record = newEventRecord(parsed, { id: createId("event"), accountId, now: clock().toISOString() });
      await insertEvent(context, record);
      queued();
      return toApiEvent({ ...record, ...eventStatsOf(record, NO_FIGURES, carbon) });
    },
    get: getEvent,
    async update(id: string, parsed: z.output<typeof EventUpdateInput>) {
      const { registrations } = await updateEvent(context, {
        accountId,
        id,
        update: parsed,
        now: clock().toISOString(),
      });
      queued();
      // Cancelled with the event, unpaid: nobody is to pay their PaymentIntents any more.
      for (const { before, after } of registrations) await context.stripe?.closeIntent(before, after);
      return getEvent(id);
    },
    async delete(id: string) {
      const deleted = await deleteEvent(context, {
        accountId,
        id,
        erasure: { now: clock().toISOString(), replay: ERASED_ANSWER },
      });
      queued();
      if (!deleted) throw notFound("Event", id);
      return { success: true as const, message: `Event ${id} and its registrations were deleted.`, deletedId: id };
    },
    async list(parsed: z.output<typeof EventListQuery>) {
      const page = await storage.listEvents(accountId, parsed, carbon);
      return { events: page.items.map(toApiEvent), pagination: paginate(parsed.page, parsed.limit, page.total) };
    },
    async checkIn(eventId: string, { confirmationCode }: z.output<typeof CheckInInput>) {
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
    async undoCheckIn(eventId: string, attendeeId: string) {
      const { after } = await undoCheckIn(context, { accountId, eventId, attendeeId, now: clock().toISOString() });
      queued();
      return toApiAttendee(after, context.baseUrl);
    },
  };

  return events;
}
