/**
 * Which changes email whom, and how an email's attempts go: its retries' waits, when it gives
 * up, and whom it is still sent to when its turn comes (docs/api.md, Email).
 */
import type { AttendeeRecord } from "../resources/attendee.ts";
import type { EmailStatus } from "../resources/email.ts";
import type { BookingStatus } from "../resources/vendor.ts";
import { RELEASED_ATTENDEE_STATUS } from "./attendee-status.ts";
import { ACTIVE_BOOKING_STATUSES } from "./booking-status.ts";

/**
 * Why a registration's change emails its attendee their ticket link, or `null`: `registered`
 * for a new one (`before` null, whatever its status: confirmed, pending payment or waitlisted),
 * `promoted` when it leaves the waiting list for a place, `paid` when its payment is complete.
 */
export function ticketEmailReason(
  before: AttendeeRecord | null,
  after: AttendeeRecord,
): "registered" | "promoted" | "paid" | null {
  if (before === null) return "registered";
  if (before.status === "waitlisted" && (after.status === "confirmed" || after.status === "pending")) return "promoted";
  if (
    after.payment?.status === "paid" &&
    before.payment?.status !== "paid" &&
    after.status !== RELEASED_ATTENDEE_STATUS
  )
    return "paid";
  return null;
}

/** Whether a registration is still sent its queued ticket email: any but a cancelled one. */
export function takesTicketEmail(attendee: Pick<AttendeeRecord, "status">): boolean {
  return attendee.status !== RELEASED_ATTENDEE_STATUS;
}

/** The bookings still sent their queued vendor email (and given a link by it): requested or confirmed. */
export const EMAILED_BOOKING_STATUSES: readonly BookingStatus[] = ACTIVE_BOOKING_STATUSES;

/** The waits before the 2nd, 3rd, ... attempt of an email the SMTP server refused or did not answer: 1 min, 5 min, 30 min, 2 h, 6 h. */
export const EMAIL_RETRY_DELAYS_MS: readonly number[] = [60_000, 300_000, 1_800_000, 7_200_000, 21_600_000];

/** The statuses of emails no worker sends again: past {@link EMAIL_RETENTION_DAYS} they are purged. */
export const FINAL_EMAIL_STATUSES = ["sent", "failed", "skipped"] as const satisfies readonly EmailStatus[];

/** Days a final email's row (ids and outcome, no address, no link) is kept after its last attempt. */
export const EMAIL_RETENTION_DAYS = 30;

/** How long a worker holds an email it claimed: no other worker sends it before then. */
export const EMAIL_LEASE_MS = 300_000;

/**
 * What an email's attempt number `attempt` (1 for the first) leads to: `sent`, or after a
 * failure `pending` again with its next attempt due, or `failed` once the retries ran out
 * (`retryDelaysMs.length + 1` attempts in all).
 */
export function emailAfterAttempt(
  attempt: number,
  succeeded: boolean,
  retryDelaysMs: readonly number[],
  now: Date,
): { status: EmailStatus; nextAttemptAt: string | null } {
  if (succeeded) return { status: "sent", nextAttemptAt: null };
  const delay = retryDelaysMs[attempt - 1];
  if (delay === undefined) return { status: "failed", nextAttemptAt: null };
  return { status: "pending", nextAttemptAt: new Date(now.getTime() + delay).toISOString() };
}
