/**
 * The stored copies of registrations' personal data beyond their rows, scrubbed inside the
 * transaction of an erasure or an event's deletion: webhook payloads (rewritten as the caller's
 * `redact` says, their attempts' response excerpts cleared) and stored Idempotency-Key answers
 * (replaced).
 */
import { type Kysely, sql } from "kysely";
import { ID_PREFIXES } from "../_internal/ids.ts";
import type { Erasure } from "../storage/erasure.ts";
import type { Envelope, ErasureSubject } from "../storage/envelope.ts";
import type { Database } from "./database.ts";

/** Rows read, or written, per statement. */
const BATCH = 500;

/** A LIKE pattern matching text that contains `text` as is (its wildcards and the escape character escaped). */
function containing(text: string) {
  return sql<string>`${`%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`} escape '\\'`;
}

/**
 * Rewrites the account's stored webhook payloads that `redact` redacts, in every status, and
 * clears the response excerpts of their attempts. The SQL narrows the rows to those naming the
 * registration (or the event), `redact` decides. Returns how many were rewritten.
 */
export async function redactDeliveries(
  trx: Kysely<Database>,
  accountId: string,
  subject: ErasureSubject,
  redact: (envelope: Envelope) => Envelope | null,
  erasedAt: string,
): Promise<number> {
  let redacted = 0;
  // In batches by id: a deleted event's deliveries may be many, and each batch is read and written before the next.
  for (let after = ""; ; ) {
    const candidates = await trx
      .selectFrom("webhook_deliveries")
      .select(["id", "payload"])
      .where("account_id", "=", accountId)
      .where("id", ">", after)
      .where((eb) =>
        "attendeeId" in subject
          ? eb.or([
              eb("payload", "like", containing(JSON.stringify(subject.attendeeId))),
              eb.and([
                eb("type", "=", "analytics.report_ready"),
                eb("payload", "like", containing(JSON.stringify(subject.eventId))),
              ]),
            ])
          : eb("payload", "like", containing(JSON.stringify(subject.eventId))),
      )
      .orderBy("id")
      .limit(BATCH)
      .execute();
    const ids: string[] = [];
    for (const row of candidates) {
      const envelope = redact(JSON.parse(row.payload) as Envelope);
      if (!envelope) continue;
      await trx
        .updateTable("webhook_deliveries")
        .set({ payload: JSON.stringify(envelope), updated_at: erasedAt })
        .where("id", "=", row.id)
        .execute();
      ids.push(row.id);
    }
    if (ids.length > 0) {
      await trx
        .updateTable("webhook_attempts")
        .set({ response_excerpt: null })
        .where("delivery_id", "in", ids)
        .where("response_excerpt", "is not", null)
        .execute();
    }
    redacted += ids.length;
    if (candidates.length < BATCH) return redacted;
    after = candidates[candidates.length - 1]!.id;
  }
}

/**
 * Replaces the account's stored Idempotency-Key answers that name one of `attendeeIds` with
 * `erasure.replay`: every answer that carries a registration's data names its id (the
 * registration itself, a check-in, `details.attendee` or `details.attendeeId` of a refusal).
 * `mentioning` narrows the rows in SQL (the registration's id, or its event's id, which each
 * such answer names too). Returns how many were replaced.
 */
export async function replaceStoredAnswers(
  trx: Kysely<Database>,
  accountId: string,
  mentioning: string,
  attendeeIds: ReadonlySet<string>,
  erasure: Erasure,
): Promise<number> {
  const rows = await trx
    .selectFrom("idempotency_keys")
    .select(["key", "response_body"])
    .where("account_id", "=", accountId)
    .where("response_body", "like", containing(mentioning))
    .execute();
  const keys = rows
    .filter(
      (row) =>
        row.response_body !== null &&
        row.response_body !== erasure.replay.body &&
        namesAny(row.response_body, attendeeIds),
    )
    .map((row) => row.key);
  // In chunks: an event's registrations may be many, and a statement takes a bounded number of parameters.
  for (let start = 0; start < keys.length; start += BATCH) {
    await trx
      .updateTable("idempotency_keys")
      .set({ response_status: erasure.replay.status, response_body: erasure.replay.body })
      .where("account_id", "=", accountId)
      .where("key", "in", keys.slice(start, start + BATCH))
      .execute();
  }
  return keys.length;
}

/** Any resource id (`att_…`, `ven_…`): a prefix of ID_PREFIXES and hex. */
const RESOURCE_ID = new RegExp(`\\b(?:${Object.values(ID_PREFIXES).join("|")})_[0-9a-f]+\\b`, "g");

/** True when `text` holds one of the ids in `ids` (registrations', or a vendor's). */
function namesAny(text: string, ids: ReadonlySet<string>): boolean {
  for (const match of text.matchAll(RESOURCE_ID)) if (ids.has(match[0])) return true;
  return false;
}
