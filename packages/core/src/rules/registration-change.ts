import { ServiceError } from "../errors.ts";
import type { AttendeeStatus } from "../resources/attendee.ts";
import { isActiveAttendeeStatus } from "./attendee-status.ts";

/** What a registration change needs of the two states: status, email and waiting-list place. */
export interface RegistrationState {
  status: AttendeeStatus;
  email: string;
  waitlistPosition: number | null;
}

/** What a registration's change from one state to another means for its event. */
export interface RegistrationChange {
  /**
   * It takes a place it did not hold (a re-activation of a cancelled registration, a promotion of
   * a waiting one by hand): the event must be open for registration and have a place left.
   */
  takesPlace: boolean;
  /**
   * It must not leave two registrations of the event that are not cancelled with one email
   * (compared lower-cased): a cancelled one reinstated, or an email changed while not cancelled.
   */
  checksDuplicate: boolean;
  /** The waiting-list place it gave up (those behind move up), or `null`. */
  leftWaitlistAt: number | null;
  /** It gave up a place it held (cancelled or erased): the first in line may be promoted into it. */
  freesPlace: boolean;
}

/** What the change of a registration from `before` to `after` (`null`: erased) means. */
export function registrationChange(before: RegistrationState, after: RegistrationState | null): RegistrationChange {
  const wasActive = isActiveAttendeeStatus(before.status);
  const isActive = after !== null && isActiveAttendeeStatus(after.status);
  const reinstated = before.status === "cancelled" && after !== null && after.status !== "cancelled";
  const emailChanged = after !== null && after.email.toLowerCase() !== before.email.toLowerCase();
  return {
    takesPlace: !wasActive && isActive,
    checksDuplicate: after !== null && after.status !== "cancelled" && (reinstated || emailChanged),
    leftWaitlistAt: before.status === "waitlisted" && after?.status !== "waitlisted" ? before.waitlistPosition : null,
    freesPlace: wasActive && !isActive,
  };
}

/** `DUPLICATE_REGISTRATION` (field `email`): the email holds another registration of the event that is not cancelled, `duplicateId`. */
export function duplicateRegistration(attendee: { email: string; eventId: string }, duplicateId: string): ServiceError {
  return new ServiceError("DUPLICATE_REGISTRATION", {
    message: `${attendee.email} already holds an active registration for event ${attendee.eventId}.`,
    field: "email",
    details: { attendeeId: duplicateId },
  });
}
