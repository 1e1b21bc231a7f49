import { ServiceError } from "../errors.ts";
import type { AttendeeStatus } from "../resources/attendee.ts";
import type { EventStatus } from "../resources/event.ts";

/**
 * The door is open only while the event is `published`: a scan before publication or after
 * the event ended or was cancelled is refused (`INVALID_STATE_TRANSITION`, reason
 * `event_not_published`). A `PUT` of `status: "checked-in"` is an administrative change and
 * follows the status rules alone.
 */
export function assertDoorOpen(event: { id: string; status: EventStatus }): void {
  if (event.status === "published") return;
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
