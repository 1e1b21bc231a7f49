import type * as z from "zod";
import { createId } from "../_internal/ids.ts";
import { ServiceError } from "../errors.ts";
import type { VendorActivityInput } from "../resources/activity.ts";
import { paginate } from "../resources/common.ts";
import type { EventRecord } from "../resources/event.ts";
import {
  type ActivityListQuery,
  newActivityRecord,
  toApiActivity,
  type VendorActivityUpdateInput,
} from "../resources/priced-activity.ts";
import {
  type BookingRecord,
  type VendorAnswerInput,
  type VendorRecord,
  type VendorRequest,
  linkNotFound,
} from "../resources/vendor.ts";
import { linkHashOf, isLinkToken } from "../resources/link-token.ts";
import {
  assertConfirmed,
  assertKindRequested,
  assertTakesVendorData,
  dataAcceptedUntil,
} from "../rules/booking-status.ts";
import type { EventStore } from "../storage/event-store.ts";
import type { VendorStore } from "../storage/vendor-store.ts";
import { changeActivities, priced, reviseActivity } from "./activity-changes.ts";
import { answerBooking, type LinkedBooking, linkedBookingOf, notifyBooking } from "./booking-changes.ts";
import type { TransactionStore } from "../storage/transaction.ts";
import type { TransactionContext } from "./transaction-context.ts";
import type { Steps } from "./transaction-steps.ts";

/** What the link operations need beside the storage: the context of their transactions (the booking's account's notifier), the clock and the wake-up of deliveries. */
export interface VendorLinkContext extends TransactionContext {
  clock: () => Date;
  queued: () => void;
}

/** The view of a booking through its link. */
function viewOf({ booking, vendor, event }: Pick<LinkedBooking, "booking" | "vendor" | "event">): VendorRequest {
  return {
    id: booking.id,
    status: booking.status,
    services: booking.services,
    dataRequested: booking.dataRequested,
    vendor: { name: vendor.name },
    event: {
      name: event.name,
      startDate: event.startDate,
      endDate: event.endDate,
      timeZone: event.timeZone,
      location: { city: event.location.city, country: event.location.country },
    },
    dataAcceptedUntil: dataAcceptedUntil(event.endDate),
  };
}

/** A booking found by one of its links, with that link's hash (the one its operations look it up by again). */
export type FoundBooking = BookingRecord & { linkHash: string };

/**
 * The booking of a vendor link's token, as found outside a transaction (its account and event,
 * which never change), or `null`: a token of the wrong shape is not looked up.
 */
export async function findLinkedBooking(storage: VendorStore, token: string): Promise<FoundBooking | null> {
  if (!isLinkToken(token, "vendor")) return null;
  const linkHash = linkHashOf(token);
  const booking = await storage.findBookingByLink(linkHash);
  if (!booking || booking.status === "cancelled") return null;
  // A deleted vendor's booking (a declined one, say) opens nothing either.
  return (await storage.getVendor(booking.accountId, booking.vendorId)) ? { ...booking, linkHash } : null;
}

/**
 * The operations of a vendor's link whose booking was found (`findLinkedBooking`). Each runs
 * under the event's lock and reads the booking by its link again there, so a link rotated or a
 * booking cancelled meanwhile is `404`.
 */
export function createVendorLinkOperations(
  storage: VendorStore & Pick<EventStore, "getEvent"> & TransactionStore,
  found: FoundBooking,
  context: VendorLinkContext,
) {
  const { linkHash, accountId, eventId } = found;
  const { clock, queued } = context;

  /** Runs `change` of the vendor's records in one activity transaction (`changeActivities`), its booking checked open for data. */
  const changeRecords = <T>(change: (steps: Steps, linked: LinkedBooking, now: string) => Promise<T>): Promise<T> => {
    const now = clock().toISOString();
    return changeActivities(context, { accountId, eventId, now }, async (steps, event: EventRecord) => {
      const linked = await linkedBookingOf(steps, event, linkHash);
      assertTakesVendorData(linked.booking.status, event.endDate, now);
      return change(steps, linked, now);
    });
  };

  /** One of the records made through this booking, or `NOT_FOUND`. */
  const ownRecord = async (steps: Steps, booking: BookingRecord, id: string) => {
    const record = await steps.tx.activities.get(accountId, eventId, id);
    if (!record || record.bookingId !== booking.id)
      throw new ServiceError("NOT_FOUND", { message: `Activity ${id} not found.` });
    return record;
  };

  const answer = async (status: "confirmed" | "declined", parsed: z.output<typeof VendorAnswerInput>) => {
    const linked = await answerBooking(context, {
      linkHash,
      accountId,
      eventId,
      status,
      message: parsed.message ?? null,
      now: clock().toISOString(),
    });
    queued();
    return viewOf(linked);
  };

  return {
    booking: { id: found.id, accountId },
    /** The service's clock: a page tells by it whether the link still takes records. */
    now: () => clock().toISOString(),
    async view() {
      const [booking, event] = await Promise.all([
        storage.findBookingByLink(linkHash),
        storage.getEvent(accountId, eventId, context.carbon),
      ]);
      const vendor: VendorRecord | null = booking && (await storage.getVendor(accountId, booking.vendorId));
      if (!booking || !event || !vendor || booking.status === "cancelled") throw linkNotFound();
      return viewOf({ booking, vendor, event });
    },
    confirm: (parsed: z.output<typeof VendorAnswerInput>) => answer("confirmed", parsed),
    decline: (parsed: z.output<typeof VendorAnswerInput>) => answer("declined", parsed),
    activities: {
      async create(parsed: z.output<typeof VendorActivityInput>) {
        const activity = await changeRecords(async (steps, { event, booking, vendor }, now) => {
          assertKindRequested(booking.dataRequested, parsed.kind, "create");
          const record = newActivityRecord(parsed, {
            id: createId("activity"),
            accountId,
            eventId,
            eventCountry: event.location.country,
            now,
          });
          const stored = priced(steps, event, { ...record, vendorId: vendor.id, bookingId: booking.id });
          await steps.tx.activities.insert(stored);
          const answer = toApiActivity(stored);
          await notifyBooking(steps, event, booking, "vendor.data_submitted", now, { vendor, activity: answer });
          return answer;
        });
        queued();
        return activity;
      },
      async list(parsed: z.output<typeof ActivityListQuery>) {
        const booking = await storage.findBookingByLink(linkHash);
        if (!booking || booking.status === "cancelled") throw linkNotFound();
        assertConfirmed(booking.status);
        const page = await storage.listBookingActivities(booking.id, parsed);
        return {
          activities: page.items.map(toApiActivity),
          pagination: paginate(parsed.page, parsed.limit, page.total),
        };
      },
      async update(id: string, parsed: z.output<typeof VendorActivityUpdateInput>) {
        const activity = await changeRecords(async (steps, { event, booking }, now) => {
          const record = await ownRecord(steps, booking, id);
          assertKindRequested(booking.dataRequested, record.kind, "change");
          return reviseActivity(steps, event, record, parsed, now);
        });
        queued();
        return toApiActivity(activity);
      },
      async delete(id: string) {
        await changeRecords(async (steps, { booking }) => {
          await ownRecord(steps, booking, id);
          await steps.tx.activities.delete(accountId, eventId, id);
        });
        queued();
        return { success: true as const, message: `Activity ${id} was deleted.`, deletedId: id };
      },
    },
  };
}
