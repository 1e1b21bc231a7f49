import type { ClaimedEmail, EmailKind, EmailStatus, NewEmail } from "../resources/email.ts";

/** What {@link EmailStore.claimDueEmails} may take, for whom, and until when. */
export interface EmailClaim {
  workerId: string;
  now: string;
  /** The lease's end: no other worker gets the email before then. */
  leaseUntil: string;
  /** At most this many emails. */
  limit: number;
  /** Only emails of these kinds (those the worker can make a link for). */
  kinds: readonly EmailKind[];
}

/** An attempt's outcome to record on an email a worker holds (`rules/emails.ts` says which). */
export interface EmailAttemptWrite {
  id: string;
  workerId: string;
  /** The attempt's number (1 for the first): it is recorded only when the email has `attempt - 1` attempts. */
  attempt: number;
  status: EmailStatus;
  /** When the next attempt is due while `status` is `pending`; otherwise null. */
  nextAttemptAt: string | null;
  /** Why it failed (the SMTP server's answer), or null. */
  error: string | null;
  now: string;
}

/** The email outbox's sending side: emails claimed under leases by workers, their attempts recorded. */
export interface EmailStore {
  /**
   * Hands up to `limit` due emails of `kinds` to `workerId`, atomically: pending ones whose
   * `next_attempt_at` has come and whose lease (if any) has expired, in due order. Each is leased
   * until `leaseUntil`: no other worker, in this process or another, gets it before then (the
   * where clause is both the selector and the guard); a crashed worker's come back after it.
   */
  claimDueEmails(claim: EmailClaim): Promise<ClaimedEmail[]>;
  /**
   * Records attempt `write.attempt` of an email `write.workerId` holds (pending, its lease the
   * worker's, `attempt - 1` attempts made): its status, next attempt and error; the lease is
   * released. `false`, writing nothing, when the worker no longer holds it. One guarded update.
   */
  recordEmailAttempt(write: EmailAttemptWrite): Promise<boolean>;
}

/** The email outbox in a write transaction: the emails a change queues, committed with it. */
export interface EmailWrites {
  /** Appends `emails` as `pending`, due at their `at`, no attempt made. */
  append(emails: readonly NewEmail[]): Promise<void>;
}
