/**
 * The email outbox on SQL: appending the emails a change queues (`tx.emails`), claiming due ones
 * under a lease and recording their attempts (`EmailStore`). Which change emails whom and what an
 * attempt leads to is `rules/emails.ts`'s; this module applies it.
 */
import type { ExpressionBuilder, Kysely } from "kysely";
import { createId } from "../_internal/ids.ts";
import type { ClaimedEmail, EmailKind, EmailReason, EmailStatus } from "../resources/email.ts";
import type { EmailStore, EmailWrites } from "../storage/email-store.ts";
import type { Database } from "./database.ts";
import type { SqlDialect } from "./dialect.ts";

/** The status of an email that still has an attempt to make. */
const PENDING = "pending" satisfies EmailStatus;

/** What a claim may take at `now`: pending, due, and held by no worker (never leased, or its lease ran out). */
const claimable = (now: string) => (eb: ExpressionBuilder<Database, "email_outbox">) =>
  eb.and([
    eb("email_outbox.status", "=", PENDING),
    eb("email_outbox.next_attempt_at", "<=", now),
    eb.or([eb("email_outbox.lease_until", "is", null), eb("email_outbox.lease_until", "<", now)]),
  ]);

/** The email outbox's operations of `storage.transaction` (`tx.emails`), bound to one transaction's connection. */
export function createEmailWrites(trx: Kysely<Database>): EmailWrites {
  return {
    async append(emails) {
      if (emails.length === 0) return;
      await trx
        .insertInto("email_outbox")
        .values(
          emails.map((email) => ({
            id: createId("email"),
            account_id: email.accountId,
            event_id: email.eventId,
            kind: email.kind,
            reason: email.reason,
            subject_id: email.subjectId,
            status: PENDING,
            attempts: 0,
            next_attempt_at: email.at,
            lease_owner: null,
            lease_until: null,
            last_error: null,
            created_at: email.at,
            updated_at: email.at,
          })),
        )
        .execute();
    },
  };
}

/** The sending side of the email outbox (`EmailStore`) on SQL. */
export function createEmailStore(
  db: Kysely<Database>,
  dialect: SqlDialect,
  write: <T>(fn: (trx: Kysely<Database>) => Promise<T>) => Promise<T>,
): EmailStore {
  return {
    async claimDueEmails(claim) {
      if (claim.limit <= 0 || claim.kinds.length === 0) return [];
      // A read first: most looks find nothing due, and a read takes no write lock from the API's writes.
      const anyDue = await db
        .selectFrom("email_outbox")
        .select("id")
        .where(claimable(claim.now))
        .where("kind", "in", claim.kinds)
        .limit(1)
        .executeTakeFirst();
      if (!anyDue) return [];
      return write(async (trx) => {
        const candidates = await dialect
          .claimRows(
            trx
              .selectFrom("email_outbox")
              .select("id")
              .where(claimable(claim.now))
              .where("kind", "in", claim.kinds)
              .orderBy("next_attempt_at")
              .orderBy("id")
              .limit(claim.limit),
          )
          .execute();
        if (candidates.length === 0) return [];
        // The guard repeats the selection: an email another worker took in between is not taken twice.
        const rows = await trx
          .updateTable("email_outbox")
          .set({ lease_owner: claim.workerId, lease_until: claim.leaseUntil })
          .where(
            "id",
            "in",
            candidates.map((row) => row.id),
          )
          .where((eb) => dialect.checkOnly(claimable(claim.now)(eb)))
          .returning(["id", "account_id", "event_id", "kind", "reason", "subject_id", "attempts", "created_at"])
          .execute();
        return rows
          .map(
            (row): ClaimedEmail => ({
              id: row.id,
              accountId: row.account_id,
              eventId: row.event_id,
              kind: row.kind as EmailKind,
              reason: row.reason as EmailReason,
              subjectId: row.subject_id,
              attempts: Number(row.attempts),
              createdAt: row.created_at,
            }),
          )
          .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1));
      });
    },
    async recordEmailAttempt(attempt) {
      const updated = await db
        .updateTable("email_outbox")
        .set({
          status: attempt.status,
          attempts: attempt.attempt,
          next_attempt_at: attempt.nextAttemptAt ?? attempt.now,
          lease_owner: null,
          lease_until: null,
          last_error: attempt.error,
          updated_at: attempt.now,
        })
        .where("id", "=", attempt.id)
        .where("status", "=", PENDING)
        .where("lease_owner", "=", attempt.workerId)
        .where("attempts", "=", attempt.attempt - 1)
        .returning("id")
        .execute();
      return updated.length > 0;
    },
  };
}
