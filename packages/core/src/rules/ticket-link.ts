import { ServiceError } from "../errors.ts";
import type { AttendeeRecord, AttendeeStatus, AttendeeUpdate, CarbonOffset } from "../resources/attendee.ts";
import type { TicketUpdate } from "../resources/ticket-link.ts";
import type { EventStatus } from "../resources/event.ts";
import type { PaymentRecord } from "../resources/payment.ts";
import { isAdmittedStatus, RELEASED_ATTENDEE_STATUS } from "./attendee-status.ts";
import { outstanding } from "./payments.ts";

/**
 * What an attendee may still do through their ticket link: change their details or cancel until
 * the event starts, while the registration is not cancelled. Afterwards the link only shows the
 * ticket. Returns why not (`event_started`, `registration_cancelled`), or `null` when they may.
 */
export function ticketChangeRefusal(
  event: { startDate: string },
  attendee: { status: AttendeeStatus },
  now: string,
): "event_started" | "registration_cancelled" | null {
  if (now >= event.startDate) return "event_started";
  if (attendee.status === RELEASED_ATTENDEE_STATUS) return "registration_cancelled";
  return null;
}

/**
 * Throws `422 INVALID_STATE_TRANSITION` (with `details.reason`) unless the attendee may change or
 * cancel their registration through the ticket link now ({@link ticketChangeRefusal}).
 */
export function assertTicketChangeable(
  event: { id: string; startDate: string },
  attendee: { id: string; status: AttendeeStatus },
  now: string,
): void {
  const reason = ticketChangeRefusal(event, attendee, now);
  if (reason === null) return;
  const message =
    reason === "event_started"
      ? `Event ${event.id} started at ${event.startDate}: the ticket can no longer be changed or cancelled here.`
      : `Registration ${attendee.id} is cancelled: it can no longer be changed here.`;
  throw new ServiceError("INVALID_STATE_TRANSITION", { message, details: { reason } });
}

/** Whether the ticket link shows the QR code: the registration is admitted (its ticket admits at the door) and its event not called off. */
export function showsQrCode(event: { status: EventStatus }, attendee: { status: AttendeeStatus }): boolean {
  return event.status !== "cancelled" && isAdmittedStatus(attendee.status);
}

/**
 * What the ticket says the attendee still owes: the price less the money kept while the
 * registration waits for its payment (`pending`); nothing once it is admitted, and nothing once
 * it is cancelled (by the attendee, the organiser, the event's cancellation or a hold run out),
 * whatever was refunded.
 */
export function ticketAmountDue(attendee: { status: AttendeeStatus; payment: PaymentRecord }): number {
  return attendee.status === "pending" ? outstanding(attendee.payment) : 0;
}

/**
 * The organiser's kind of update that an attendee's change through the ticket link makes: the
 * details as given, and the travel merged into the registration's `carbonOffset` (a field left
 * out stays, `null` clears it; the offset contribution's `amount` is the organiser's).
 */
export function ticketUpdateOf(before: Pick<AttendeeRecord, "carbonOffset">, input: TicketUpdate): AttendeeUpdate {
  const update: AttendeeUpdate = {};
  if (input.dietaryPreferences !== undefined) update.dietaryPreferences = input.dietaryPreferences;
  if (input.accessibilityNeeds !== undefined) update.accessibilityNeeds = input.accessibilityNeeds;
  if (input.emergencyContact !== undefined) update.emergencyContact = input.emergencyContact;
  if (input.carbonOffset !== undefined) {
    const offset: CarbonOffset = { ...before.carbonOffset };
    for (const key of ["travelMode", "travelDistance", "opted"] as const) {
      const value = input.carbonOffset[key];
      if (value === null) delete offset[key];
      else if (value !== undefined) Object.assign(offset, { [key]: value });
    }
    update.carbonOffset = offset;
  }
  return update;
}
