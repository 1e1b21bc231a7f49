import type { ActivityKind } from "../carbon/activity-kinds.ts";
import { ServiceError } from "../errors.ts";
import type { BookingStatus } from "../resources/vendor.ts";
import type { EventStatus } from "../resources/event.ts";
import { isOpenForRegistration } from "./event-status.ts";
import { assertTransition, type TransitionTable } from "./transitions.ts";

/**
 * The status changes a vendor booking allows (docs/api.md, Vendors): `requested -> confirmed |
 * declined | cancelled`, `confirmed -> cancelled`; `declined` and `cancelled` are final. The
 * organiser may make any of them; the vendor's link confirms or declines.
 */
export const BOOKING_TRANSITIONS: TransitionTable<BookingStatus> = {
  requested: ["confirmed", "declined", "cancelled"],
  confirmed: ["cancelled"],
  declined: [],
  cancelled: [],
};

/** Bookings that hold their vendor for the event: the same vendor is booked once while one is. */
export const ACTIVE_BOOKING_STATUSES: readonly BookingStatus[] = ["requested", "confirmed"];

/** Days after an event's end during which its vendors' links still take activity records. */
export const VENDOR_DATA_DAYS = 30;

/** Throws `400 INVALID_REQUEST` unless the event takes bookings: as registrations, a cancelled or completed one takes none. */
export function assertBookable(event: { id: string; status: EventStatus }): void {
  if (isOpenForRegistration(event.status)) return;
  throw new ServiceError("INVALID_REQUEST", {
    message: `Event ${event.id} is ${event.status} and takes no vendor bookings.`,
    details: { eventStatus: event.status },
  });
}

/** Throws `INVALID_STATE_TRANSITION` unless a booking may move from `from` to `to`. */
export function assertBookingTransition(from: BookingStatus, to: BookingStatus): void {
  assertTransition(BOOKING_TRANSITIONS, "A booking", from, to);
}

/** The last instant a vendor's link takes activity records for an event ending at `endDate`. */
export function dataAcceptedUntil(endDate: string): string {
  return new Date(Date.parse(endDate) + VENDOR_DATA_DAYS * 86_400_000).toISOString();
}

/** Throws `422 INVALID_STATE_TRANSITION` unless the booking is confirmed: its link's records are its vendor's from then on. */
export function assertConfirmed(status: BookingStatus): void {
  if (status === "confirmed") return;
  throw new ServiceError("INVALID_STATE_TRANSITION", {
    message: `This booking is ${status}: activity records are taken once it is confirmed.`,
    field: "status",
    details: { status },
  });
}

/**
 * Throws unless a vendor's link may change the event's activity records now: `422
 * INVALID_STATE_TRANSITION` before the booking is confirmed (or once it is declined), `422` too
 * once the event's data window (30 days after its end) has closed.
 */
export function assertTakesVendorData(status: BookingStatus, endDate: string, now: string): void {
  assertConfirmed(status);
  const until = dataAcceptedUntil(endDate);
  if (now > until) {
    throw new ServiceError("INVALID_STATE_TRANSITION", {
      message: `The event's records closed at ${until}, ${VENDOR_DATA_DAYS} days after it ended.`,
      details: { dataAcceptedUntil: until },
    });
  }
}

/**
 * Throws `400 INVALID_REQUEST` naming `kind` unless the booking asks its vendor for records of this
 * kind: for a new record (`"create"`), or for a change to one the vendor made (`"change"`) after
 * the organiser narrowed `dataRequested` (such a record stays the vendor's to read and delete
 * through the link, not to change).
 */
export function assertKindRequested(
  dataRequested: readonly ActivityKind[],
  kind: ActivityKind,
  action: "create" | "change",
): void {
  if (dataRequested.includes(kind)) return;
  const [message, issue] =
    action === "create"
      ? [`this booking asks for ${dataRequested.join(", ") || "none"}, not ${kind}`, "not among"]
      : [
          `the organiser no longer requests ${kind} from this booking (it asks for ${dataRequested.join(", ") || "nothing"}); the record can be read or deleted, not changed`,
          "no longer among",
        ];
  throw new ServiceError("INVALID_REQUEST", {
    message: `kind: ${message}`,
    field: "kind",
    details: { issues: [{ path: "kind", message: `${issue} the booking's dataRequested` }] },
  });
}

/**
 * What an event's status change does to its bookings: a cancelled event cancels those still
 * requested or confirmed; a completed one cancels those still requested (never answered), and
 * keeps its confirmed vendors, which report their data afterwards.
 */
export function bookingsClosedBy(eventStatus: string): readonly BookingStatus[] {
  if (eventStatus === "cancelled") return ACTIVE_BOOKING_STATUSES;
  if (eventStatus === "completed") return ["requested"];
  return [];
}
