import type { CarbonSettings } from "../carbon/carbon-settings.ts";
import type { FactorSets } from "../carbon/factor-sets.ts";
import type { AttendeeRecord } from "../resources/attendee.ts";
import type { EventRecord } from "../resources/event.ts";
import { contributionChange, sumFigures } from "../rules/kept-figures.ts";
import { mergeTallyChanges, tallyChange, travelTallyChange } from "../rules/kept-tallies.ts";
import type { PaymentTerms } from "../rules/payments.ts";
import { ticketEmailReason } from "../rules/emails.ts";
import { duplicateRegistration } from "../rules/registration-change.ts";
import type { ChangeNotifier, StoredChange } from "../storage/change-notifier.ts";
import { type ErasureSubject, redactEnvelope } from "../storage/envelope.ts";
import type { Erasure } from "../storage/erasure.ts";
import { StorageConflict, type StorageTransaction } from "../storage/transaction.ts";
import { appendChangesToOutbox, appendToOutbox } from "../webhooks/outbox.ts";
import type { TransactionContext } from "./transaction-context.ts";

/** What the steps of one business transaction share: its unit of work, and what its context gave it. */
export interface Steps {
  tx: StorageTransaction;
  /** The factor sets: an event's figures move by the set of its start's year. */
  factorSets: FactorSets;
  /** The carbon settings of the figures the transaction judges. */
  carbon: CarbonSettings;
  notifier: ChangeNotifier | null;
  /**
   * The net change of the event's active registrations that {@link moveFigures} made so far in
   * this transaction: its capacity utilisation moved when it is not 0 (a cancellation whose
   * place the first in line takes moves nothing).
   */
  activeDelta: number;
  /** How the registrations the transaction admits or promotes pay. */
  payments: PaymentTerms;
  /** Whether the changes queue their emails (the service has a transport). */
  emails: boolean;
}

/** Runs `fn` as one business transaction on the context's storage (see `TransactionStore.transaction`). */
export function runTransaction<T>(context: TransactionContext, fn: (steps: Steps) => Promise<T>): Promise<T> {
  return context.storage.transaction((tx) =>
    fn({
      tx,
      factorSets: context.factorSets,
      carbon: context.carbon,
      notifier: context.notifier,
      activeDelta: 0,
      payments: context.payments,
      emails: context.emails,
    }),
  );
}

/**
 * {@link runTransaction} for a change that may write a registration: a write that broke the
 * one-active-registration-per-email uniqueness (a race the event's lock did not cover) is
 * answered as `DUPLICATE_REGISTRATION` for `attempted()`, read in a transaction of its own after
 * the failed one rolled back.
 */
export async function runRegistrationTransaction<T>(
  context: TransactionContext,
  fn: (steps: Steps) => Promise<T>,
  attempted: () => AttendeeRecord | undefined,
): Promise<T> {
  try {
    return await runTransaction(context, fn);
  } catch (error) {
    const attendee = StorageConflict.is(error, "active-email") ? attempted() : undefined;
    if (attendee) await context.storage.transaction((tx) => assertNoActiveDuplicate(tx, attendee));
    throw error;
  }
}

/** Moves the event's kept figures and tallies from what `before` contributed to what `after` does (either may be `null`: none), priced by the event's set. */
export async function moveFigures(
  steps: Steps,
  event: Pick<EventRecord, "id" | "startDate">,
  before: AttendeeRecord | null,
  after: AttendeeRecord | null,
): Promise<void> {
  const factors = steps.factorSets.forStart(event.startDate);
  const delta = contributionChange(before, after, factors);
  steps.activeDelta += delta.activeRegistrations;
  await steps.tx.figures.adjust(event.id, delta);
  await steps.tx.tallies.adjust(event.id, tallyChange(before, after), travelTallyChange(before, after, factors));
}

/** Tally entries one adjustment writes: a statement takes a bounded number of parameters. */
const TALLY_BATCH = 200;

/**
 * {@link moveFigures} of many registrations' changes of one event at once: their figures summed
 * into one adjustment, their tallies merged by value into as few writes as their values need.
 */
export async function moveFiguresOfMany(
  steps: Steps,
  event: Pick<EventRecord, "id" | "startDate">,
  changes: ReadonlyArray<{ before: AttendeeRecord | null; after: AttendeeRecord | null }>,
): Promise<void> {
  if (changes.length === 0) return;
  const eventId = event.id;
  const factors = steps.factorSets.forStart(event.startDate);
  const delta = sumFigures(changes.map(({ before, after }) => contributionChange(before, after, factors)));
  steps.activeDelta += delta.activeRegistrations;
  await steps.tx.figures.adjust(eventId, delta);
  const { tallies, travel } = mergeTallyChanges(
    changes.flatMap(({ before, after }) => tallyChange(before, after)),
    changes.flatMap(({ before, after }) => travelTallyChange(before, after, factors)),
  );
  for (let start = 0; start < Math.max(tallies.length, travel.length); start += TALLY_BATCH)
    await steps.tx.tallies.adjust(
      eventId,
      tallies.slice(start, start + TALLY_BATCH),
      travel.slice(start, start + TALLY_BATCH),
    );
}

/** Appends the notifications of several changes of the account made by one transaction, together (`appendChangesToOutbox`). */
export function appendManyNotifications(
  steps: Steps,
  accountId: string,
  changes: readonly StoredChange[],
): Promise<number> {
  return appendChangesToOutbox(steps.tx, accountId, changes, steps.notifier ?? undefined);
}

/**
 * Appends the ticket emails that registrations' changes send their attendees
 * (`ticketEmailReason`) to the email outbox, in one write, when the service sends emails.
 */
export async function appendTicketEmails(
  steps: Steps,
  accountId: string,
  changes: readonly StoredChange[],
): Promise<void> {
  if (!steps.emails) return;
  const emails = [];
  for (const change of changes) {
    if (change.op !== "attendee.registered" && change.op !== "attendee.updated") continue;
    const after = change.op === "attendee.registered" ? change.attendee : change.after;
    const reason = ticketEmailReason(change.op === "attendee.registered" ? null : change.before, after);
    if (reason !== null)
      emails.push({
        kind: "ticket_link" as const,
        reason,
        accountId,
        eventId: after.eventId,
        subjectId: after.id,
        at: change.at,
      });
  }
  if (emails.length > 0) await steps.tx.emails.append(emails);
}

/**
 * Appends the notifications `steps.notifier` makes of `change` of the account to the outbox, in
 * the change's transaction, and the ticket email a registration's change sends its attendee
 * (`ticketEmailReason`) to the email outbox when the service sends emails. Returns how many
 * deliveries were appended.
 */
export async function appendNotifications(steps: Steps, accountId: string, change: StoredChange): Promise<number> {
  await appendTicketEmails(steps, accountId, [change]);
  return appendToOutbox(steps.tx, accountId, change, steps.notifier ?? undefined);
}

/**
 * The account's registration `id` and its event, the event locked first (it serialises
 * everything about its registrations) and the registration read under the lock: read before it,
 * a concurrent change could be lost. A registration never moves to another event, so the event
 * found unlocked is the one to lock. `null` when either is gone (a concurrent erasure included).
 */
export async function lockRegistration(
  tx: StorageTransaction,
  accountId: string,
  id: string,
): Promise<{ event: EventRecord; attendee: AttendeeRecord } | null> {
  const eventId = await tx.attendees.eventIdOf(accountId, id);
  const event = eventId === null ? null : await tx.events.lock(accountId, eventId);
  const attendee = event && (await tx.attendees.get(accountId, id));
  return event && attendee ? { event, attendee } : null;
}

/** Throws `DUPLICATE_REGISTRATION` when another registration of the event that is not cancelled holds the email. Exact under the event's lock. */
export async function assertNoActiveDuplicate(tx: StorageTransaction, attendee: AttendeeRecord): Promise<void> {
  const duplicate = await tx.attendees.findActiveDuplicate(attendee.eventId, attendee.email, attendee.id);
  if (duplicate !== null) throw duplicateRegistration(attendee, duplicate);
}

/**
 * Scrubs the account's stored copies of an erased subject's personal data, in the erasure's
 * transaction: the webhook payloads `redactEnvelope` redacts for it (their attempts' response
 * excerpts cleared), and the stored Idempotency-Key answers that mention the subject (the
 * registration, or the event) and name one of `attendeeIds`, replaced by `erasure.replay`.
 */
export async function scrubStoredCopies(
  tx: StorageTransaction,
  accountId: string,
  subject: ErasureSubject,
  attendeeIds: ReadonlySet<string>,
  erasure: Erasure,
): Promise<void> {
  await tx.erasure.redactPayloads(
    accountId,
    subject,
    (envelope) => redactEnvelope(envelope, subject, erasure.now),
    erasure.now,
  );
  const mentioning = "attendeeId" in subject ? subject.attendeeId : subject.eventId;
  if (attendeeIds.size > 0) await tx.erasure.replaceAnswers(accountId, mentioning, attendeeIds, erasure);
}
