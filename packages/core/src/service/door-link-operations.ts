import type * as z from "zod";
import { createId } from "../_internal/ids.ts";
import { ServiceError } from "../errors.ts";
import type { AttendeeRecord } from "../resources/attendee.ts";
import {
  type CheckInLink,
  type CheckInLinkCreateInput,
  type CheckInLinkListQuery,
  type CheckInLinkRecord,
  checkInUrlOf,
  type Door,
  type DoorAttendee,
  type DoorEvent,
  type DoorScan,
  type DoorSearch,
  type DoorSearchQuery,
  doorLinkNotFound,
  type DoorScanInput,
  type OfflineList,
} from "../resources/check-in-link.ts";
import { paginate } from "../resources/common.ts";
import type { EventRecord } from "../resources/event.ts";
import { isLinkToken, linkHashOf, newLinkToken } from "../resources/link-token.ts";
import { confirmationCodeHash, isDoorOpen } from "../rules/check-in.ts";
import { isStoredConfirmationCode, typedConfirmationCode } from "../rules/confirmation-code.ts";
import { isAdmitted } from "../rules/payments.ts";
import type { CheckInLinkStore } from "../storage/check-in-link-store.ts";
import type { EventStore } from "../storage/event-store.ts";
import type { TransactionStore } from "../storage/transaction.ts";
import { notFound } from "./not-found.ts";
import type { OperationContext } from "./operation-context.ts";
import { scanAtDoor, undoCheckIn } from "./registrations.ts";
import type { TransactionContext } from "./transaction-context.ts";

/** Names typed at a door's search before it lists anyone. */
export const DOOR_SEARCH_MIN_LENGTH = 2;
/** Registrations a door's search lists at most. */
export const DOOR_SEARCH_LIMIT = 20;

/** The organiser's view of a link; `url` only where the token is at hand (its creation). */
function checkInLinkOf(link: CheckInLinkRecord, url: string | null): CheckInLink {
  return {
    id: link.id,
    eventId: link.eventId,
    label: link.label,
    url,
    expiresAt: link.expiresAt,
    createdAt: link.createdAt,
  };
}

/** The organiser's operations on an account's events' check-in links. */
export function createCheckInLinkOperations(storage: CheckInLinkStore, context: OperationContext) {
  const { accountId, clock, baseUrl } = context;
  return {
    async create(eventId: string, parsed: z.output<typeof CheckInLinkCreateInput>) {
      const now = clock().toISOString();
      const expiresAt = parsed.expiresAt ?? null;
      if (expiresAt !== null && expiresAt <= now)
        throw new ServiceError("INVALID_REQUEST", { message: "expiresAt: must be in the future", field: "expiresAt" });
      const token = newLinkToken("door");
      const link: CheckInLinkRecord = {
        id: createId("checkInLink"),
        accountId,
        eventId,
        linkHash: linkHashOf(token),
        label: parsed.label || null,
        expiresAt,
        createdAt: now,
      };
      if (!(await storage.addCheckInLink(link))) throw notFound("Event", eventId);
      return checkInLinkOf(link, checkInUrlOf(baseUrl, token));
    },
    async list(eventId: string, parsed: CheckInLinkListQuery) {
      const page = await storage.listCheckInLinks(accountId, eventId, parsed);
      if (!page) throw notFound("Event", eventId);
      return {
        checkInLinks: page.items.map((link) => checkInLinkOf(link, null)),
        pagination: paginate(parsed.page, parsed.limit, page.total),
      };
    },
    async revoke(eventId: string, linkId: string) {
      if (!(await storage.revokeCheckInLink(accountId, eventId, linkId)))
        throw notFound("Check-in link", `${linkId} of event ${eventId}`);
      return { success: true as const, message: `Check-in link ${linkId} was revoked.`, deletedId: linkId };
    },
  };
}

/** The live link a door's token opens at `now`, or `null`: a token of the wrong shape is not looked up. */
export async function findDoorLink(
  storage: CheckInLinkStore,
  token: string,
  now: string,
): Promise<CheckInLinkRecord | null> {
  if (!isLinkToken(token, "door")) return null;
  return storage.findCheckInLink(linkHashOf(token), now);
}

/** The event as its door shows it: no account data, the city and country of its place. */
export function doorEventOf(event: EventRecord): DoorEvent {
  return {
    id: event.id,
    name: event.name,
    status: event.status,
    startDate: event.startDate,
    endDate: event.endDate,
    timeZone: event.timeZone,
    location: { city: event.location.city, country: event.location.country },
  };
}

/** A registration as a door shows it: a name and a ticket type, never an email. */
function doorAttendeeOf(
  attendee: Pick<AttendeeRecord, "id" | "firstName" | "lastName" | "ticketType" | "status">,
): DoorAttendee {
  return {
    id: attendee.id,
    firstName: attendee.firstName,
    lastName: attendee.lastName,
    ticketType: attendee.ticketType,
    status: attendee.status,
  };
}

/** What a door link's operations run with: the context of a change of the link's account. */
export type DoorLinkContext = TransactionContext & Pick<OperationContext, "accountId" | "clock" | "queued">;

/**
 * The operations of a door whose link was found (`findDoorLink`): its event's counts, scans
 * through the check-in's business transaction, undoing one, a search by name, the offline list.
 * Nothing here shows an email or anything of a registration beyond its name, ticket type and
 * status; a code of another account's event is `not_found`.
 */
export function createDoorLinkOperations(
  storage: CheckInLinkStore & Pick<EventStore, "getEvent"> & TransactionStore,
  link: CheckInLinkRecord,
  context: DoorLinkContext,
) {
  const { accountId, eventId } = link;
  const { clock } = context;

  const event = async () => {
    const found = await storage.getEvent(accountId, eventId, context.carbon);
    if (!found) throw doorLinkNotFound();
    return found;
  };

  return {
    link: { id: link.id, accountId, eventId },
    async view(): Promise<Door> {
      const [found, counts] = await Promise.all([event(), storage.doorCounts(eventId)]);
      return { event: doorEventOf(found), label: link.label, doorOpen: isDoorOpen(found), counts };
    },
    async scan({ code, attendeeId }: z.output<typeof DoorScanInput>): Promise<DoorScan> {
      const typed = code === undefined ? "" : typedConfirmationCode(code);
      // Text that is no code matches none: it is not looked up (nor sent to the database as is).
      const confirmationCode = isStoredConfirmationCode(typed) ? typed : null;
      let scanned: Awaited<ReturnType<typeof scanAtDoor>>;
      try {
        const now = clock().toISOString();
        scanned = await scanAtDoor(context, { accountId, eventId, confirmationCode, attendeeId, now });
      } catch (error) {
        if (ServiceError.is(error) && error.code === "NOT_FOUND") throw doorLinkNotFound();
        throw error;
      }
      context.queued();
      const { result, attendee } = scanned;
      if (attendee) return { result, attendee: doorAttendeeOf(attendee), checkedInAt: attendee.checkedInAt };
      if (result === "not_found" && confirmationCode !== null) {
        // Another event of the same account: the door is told which (another account's code is not found).
        const other = await storage.findAttendeeByCode(accountId, confirmationCode);
        const otherEvent = other && (await storage.getEvent(accountId, other.eventId, context.carbon));
        if (other && otherEvent)
          return {
            result: "wrong_event",
            attendee: doorAttendeeOf(other),
            checkedInAt: other.checkedInAt,
            event: { id: otherEvent.id, name: otherEvent.name },
          };
      }
      return { result, attendee: null, checkedInAt: null };
    },
    async undo(attendeeId: string): Promise<DoorScan> {
      const { after } = await undoCheckIn(context, { accountId, eventId, attendeeId, now: clock().toISOString() });
      context.queued();
      return { result: "undone", attendee: doorAttendeeOf(after), checkedInAt: null };
    },
    async search({ search }: z.output<typeof DoorSearchQuery>): Promise<DoorSearch> {
      const typed = (search ?? "").trim();
      if (typed.length < DOOR_SEARCH_MIN_LENGTH) return { attendees: [] };
      const found = await storage.searchDoorAttendees(eventId, typed, DOOR_SEARCH_LIMIT);
      return { attendees: found.map((entry) => ({ ...doorAttendeeOf(entry), checkedInAt: entry.checkedInAt })) };
    },
    async offlineList(): Promise<OfflineList> {
      const found = await event();
      const generatedAt = clock().toISOString();
      const entries = await storage.doorList(eventId);
      return {
        event: doorEventOf(found),
        generatedAt,
        attendees: entries.map((entry) => ({
          id: entry.id,
          codeHash: confirmationCodeHash(entry.confirmationCode),
          firstName: entry.firstName,
          lastName: entry.lastName,
          ticketType: entry.ticketType,
          status: entry.status,
          checkedInAt: entry.checkedInAt,
          paymentRequired: !isAdmitted(entry.payment),
        })),
      };
    },
  };
}
