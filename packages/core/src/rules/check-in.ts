import { createHash } from "node:crypto";
import { ServiceError } from "../errors.ts";
import type { AttendeeStatus } from "../resources/attendee.ts";
import type { DoorResult } from "../resources/check-in-link.ts";
import type { EventStatus } from "../resources/event.ts";
import type { PaymentRecord } from "../resources/payment.ts";
import { RELEASED_ATTENDEE_STATUS } from "./attendee-status.ts";
import { typedConfirmationCode } from "./confirmation-code.ts";
import { isAdmitted } from "./payments.ts";

/**
 * The door is open only while the event is `published`: a scan before publication or after
 * the event ended or was cancelled is refused (`INVALID_STATE_TRANSITION`, reason
 * `event_not_published`). A `PUT` of `status: "checked-in"` is an administrative change and
 * follows the status rules alone.
 */
export function assertDoorOpen(event: { id: string; status: EventStatus }): void {
  if (isDoorOpen(event)) return;
  throw new ServiceError("INVALID_STATE_TRANSITION", {
    message: `Event ${event.id} is ${event.status}: check-in works only while it is published.`,
    details: { reason: "event_not_published", eventStatus: event.status },
  });
}

/**
 * Only a checked-in registration has a check-in to undo; it goes back to `confirmed`. Allowed
 * whatever the event's status: a mistake at the door may be put right afterwards.
 */
export function assertCheckInUndoable(attendee: { id: string; status: AttendeeStatus }): void {
  if (isCheckedIn(attendee)) return;
  throw new ServiceError("INVALID_STATE_TRANSITION", {
    message: `Registration ${attendee.id} is ${attendee.status}, not checked in: there is no check-in to undo.`,
    details: { reason: "not_checked_in", status: attendee.status },
  });
}

/** True when the registration is checked in already: a scan of it changes nothing. */
export function isCheckedIn(attendee: { status: AttendeeStatus }): boolean {
  return attendee.status === "checked-in";
}

/**
 * `ALREADY_CHECKED_IN`: the scan of a registration {@link isCheckedIn} already, with the
 * registration as the API shows it (`shown`) in `details.attendee`.
 */
export function alreadyCheckedIn(attendee: { id: string; checkedInAt: string | null }, shown: unknown): ServiceError {
  return new ServiceError("ALREADY_CHECKED_IN", {
    message: `Registration ${attendee.id} was already checked in at ${attendee.checkedInAt}.`,
    details: { attendee: shown },
  });
}

/** True while the door checks people in: the event is published ({@link assertDoorOpen}). */
export function isDoorOpen(event: { status: EventStatus }): boolean {
  return event.status === "published";
}

/**
 * What a scan of this event's registration comes to at a door, in order: the door closed, the
 * registration cancelled, waiting, checked in already, priced and not paid; else it checks in.
 */
export function doorResultOf(
  event: { status: EventStatus },
  attendee: { status: AttendeeStatus; payment: Pick<PaymentRecord, "admittedAt"> | null },
): Exclude<DoorResult, "not_found" | "wrong_event"> {
  if (!isDoorOpen(event)) return "event_not_open";
  if (attendee.status === RELEASED_ATTENDEE_STATUS) return "cancelled";
  if (attendee.status === "waitlisted") return "not_admitted";
  if (isCheckedIn(attendee)) return "already_checked_in";
  if (!isAdmitted(attendee.payment)) return "payment_required";
  return "checked_in";
}

/**
 * What the offline list holds of a confirmation code: the hex SHA-256 of its UTF-8 bytes once
 * normalised ({@link typedConfirmationCode}), so a page hashes what it scans the same way.
 */
export function confirmationCodeHash(typed: string): string {
  return createHash("sha256").update(typedConfirmationCode(typed)).digest("hex");
}
