/**
 * The business transactions of registrations: register, update, check in, undo a check-in,
 * erase. Each runs in one storage transaction under its event's lock, asks `rules/` what the
 * change means, moves the event's kept figures, settles the waiting list and appends the
 * change's notifications to the outbox, so all of it commits together or not at all.
 */
import { createConfirmationCode } from "../_internal/ids.ts";
import { ServiceError } from "../errors.ts";
import type { AttendeeRecord, AttendeeUpdate } from "../resources/attendee.ts";
import { applyAttendeeUpdate, undoCheckIn as undoneCheckIn } from "../rules/attendee-update.ts";
import type { EventRecord } from "../resources/event.ts";
import { assertPlaceLeft } from "../rules/capacity.ts";
import { assertDoorOpen, doorResultOf, isCheckedIn, isDoorOpen } from "../rules/check-in.ts";
import type { DoorResult } from "../resources/check-in-link.ts";
import { isActiveAttendeeStatus } from "../rules/attendee-status.ts";
import { assertOpenForRegistration } from "../rules/event-status.ts";
import {
  assertPaidForStatus,
  assertRetypable,
  assertWithinMaximum,
  refundOnCancel,
  withAdmission,
} from "../rules/payments.ts";
import { assertTicketPlaceLeft, findTicketType, ticketTypeOf } from "../rules/ticket-types.ts";
import { duplicateRegistration, registrationChange } from "../rules/registration-change.ts";
import { admission } from "../rules/waitlist.ts";
import type { Change } from "../storage/common.ts";
import type { Erasure } from "../storage/erasure.ts";
import type { StorageTransaction } from "../storage/transaction.ts";
import type { TicketLinkRecord } from "../resources/ticket-link.ts";
import {
  type Steps,
  appendManyNotifications,
  appendNotifications,
  appendTicketEmails,
  assertNoActiveDuplicate,
  lockRegistration,
  moveFigures,
  moveFiguresOfMany,
  runRegistrationTransaction,
  runTransaction,
  scrubStoredCopies,
} from "./transaction-steps.ts";
import { createGroupQueue, type Outcome } from "./registration-queue.ts";
import type { TransactionContext } from "./transaction-context.ts";
import { notFound } from "./not-found.ts";
import { refundSteps, takingPlace } from "./payment-changes.ts";
import { checkEventThresholds } from "./threshold-checks.ts";
import { activeByType, ticketActive } from "./ticket-counts.ts";
import { settleWaitlist } from "./waitlist.ts";

/**
 * Registers `attendee` under its event's lock: throws `NOT_FOUND` (field `eventId`) for an unknown
 * event, `INVALID_REQUEST` (field `eventId`) for one not open for registration or ended by the
 * time of the registration (its `registrationDate`, the service's clock),
 * `DUPLICATE_REGISTRATION` when the email (case-insensitive) holds a registration of the event
 * that is not cancelled, and `EVENT_FULL` when no place is left and there is no waiting list to
 * join. Its `confirmationCode` is replaced if it is taken. Returns the registration as stored
 * (`confirmed`; `pending` with its payment for a priced ticket; or `waitlisted` with its place in
 * line). `ticketLink`, when given, is the registration's first ticket link, written with it.
 * Registrations of one event that arrive while one of its registration transactions runs in this
 * process are written together in the next (`registration-queue.ts`), in the order they arrived.
 */
export function registerAttendee(
  context: TransactionContext,
  attendee: AttendeeRecord,
  ticketLink?: TicketLinkRecord,
): Promise<AttendeeRecord> {
  return registrationQueue.run(context, attendee.eventId, { attendee, ticketLink });
}

/** A registration to write, with its first ticket link. */
interface NewRegistration {
  attendee: AttendeeRecord;
  ticketLink?: TicketLinkRecord | undefined;
}

const registrationQueue = createGroupQueue<NewRegistration, AttendeeRecord>((context, group) =>
  runRegistrationTransaction(
    context,
    (steps) => registerGroup(steps, group),
    // A uniqueness broken by one of several is found when each runs again alone.
    () => (group.length === 1 ? group[0]!.attendee : undefined),
  ),
);

/**
 * Registers each of `group` (new registrations of one event, in order) in one transaction under
 * the event's lock, each decided as if alone after those before it: a refusal is that
 * registration's outcome and the others go on. The rows, links, figures, notifications and
 * emails of those admitted or waitlisted are written together.
 */
async function registerGroup(steps: Steps, group: readonly NewRegistration[]): Promise<Array<Outcome<AttendeeRecord>>> {
  const { tx } = steps;
  // Codes are unique across events, which the event's lock does not cover (a unique index is
  // the backstop): checked before it, so that the lock is held for less.
  const attendees = await withFreeCodes(
    tx,
    group.map(({ attendee }) => attendee),
  );
  const eventId = attendees[0]!.eventId;
  const locked = await tx.events.lockWithFigures(attendees[0]!.accountId, eventId);
  if (!locked)
    return attendees.map((attendee) => ({ ok: false, error: notFound("Event", attendee.eventId, "eventId") }));
  const { event, figures } = locked;
  const outcomes: Array<Outcome<AttendeeRecord>> = [];
  // What each needs checked before it is decided; a refusal here is its answer.
  const checked = attendees.map((attendee) => {
    try {
      assertOpenForRegistration(event, attendee.registrationDate);
      const ticket = ticketTypeOf(event, attendee.ticketType, attendee.registrationDate);
      assertWithinMaximum(ticket, attendee.carbonOffset);
      return { ticket };
    } catch (error) {
      return { error };
    }
  });
  const duplicates = await tx.attendees.activeDuplicates(
    eventId,
    attendees.filter((_, i) => !("error" in checked[i]!)).map((attendee) => attendee.email),
  );
  const standing = { active: figures.activeRegistrations, waitlisted: figures.waitlisted };
  let ticketActives: Map<string, number> | undefined;
  const admitted: Array<{ record: AttendeeRecord; ticketLink?: TicketLinkRecord | undefined }> = [];
  for (const [i, attendee] of attendees.entries()) {
    const { ticketLink } = group[i]!;
    const check = checked[i]!;
    try {
      if ("error" in check) throw check.error;
      const { ticket } = check;
      // Duplicates first: "already registered" tells more than "full" when both hold.
      const duplicate = duplicates.get(attendee.email.toLowerCase());
      if (duplicate !== undefined) throw duplicateRegistration(attendee, duplicate);
      const ticketKey = ticket?.name.toLowerCase();
      if (ticket && !ticketActives) ticketActives = await activeByType(tx, event.id);
      let record: AttendeeRecord = {
        ...attendee,
        ...(ticket && { ticketType: ticket.name }),
        ...admission(
          event,
          standing,
          ticket ? { type: ticket, active: ticketActives!.get(ticketKey!) ?? 0 } : undefined,
        ),
      };
      // Admitted, a priced ticket waits for its payment; one waiting pays when promoted.
      if (record.status === "confirmed") record = takingPlace(steps, event, record, record.registrationDate, false);
      if (isActiveAttendeeStatus(record.status)) {
        standing.active += 1;
        if (ticketKey !== undefined) ticketActives!.set(ticketKey, (ticketActives!.get(ticketKey) ?? 0) + 1);
      } else standing.waitlisted += 1;
      // Those after it with its email are its duplicates.
      duplicates.set(attendee.email.toLowerCase(), record.id);
      admitted.push({ record, ticketLink });
      outcomes.push({ ok: true, value: record });
    } catch (error) {
      outcomes.push({ ok: false, error });
    }
  }
  if (admitted.length === 0) return outcomes;
  const records = admitted.map(({ record }) => record);
  await tx.attendees.insertMany(records);
  const links = admitted.flatMap(({ ticketLink }) => (ticketLink ? [ticketLink] : []));
  if (links.length > 0) await tx.ticketLinks.addMany(links);
  await moveFiguresOfMany(
    steps,
    event,
    records.map((record) => ({ before: null, after: record })),
  );
  const changes = records.map((record) => ({
    op: "attendee.registered" as const,
    event,
    attendee: record,
    at: record.registrationDate,
  }));
  await appendTicketEmails(steps, event.accountId, changes);
  await appendManyNotifications(steps, event.accountId, changes);
  await checkEventThresholds(steps, event, records.at(-1)!.registrationDate, { footprint: true });
  return outcomes;
}

/** `attendees`, each whose confirmation code is taken (or repeated among them) with a new one. */
async function withFreeCodes(tx: StorageTransaction, attendees: AttendeeRecord[]): Promise<AttendeeRecord[]> {
  for (;;) {
    const taken = await tx.attendees.codesTaken(attendees.map((attendee) => attendee.confirmationCode));
    const seen = new Set<string>();
    let replaced = false;
    attendees = attendees.map((attendee) => {
      const free = !taken.has(attendee.confirmationCode) && !seen.has(attendee.confirmationCode);
      const record = free ? attendee : { ...attendee, confirmationCode: createConfirmationCode() };
      replaced ||= !free;
      seen.add(record.confirmationCode);
      return record;
    });
    if (!replaced) return attendees;
  }
}

/**
 * Applies `update` to the account's registration under its event's lock with `applyAttendeeUpdate`
 * (status rules); a change that takes a place (`registrationChange`) needs the event open for
 * registration and not ended at `now`, and a place left (`EVENT_FULL`), and one that could duplicate an email is checked
 * (`DUPLICATE_REGISTRATION`). A place given up promotes the first in line. Throws `NOT_FOUND` too.
 * `guard`, when given, runs first under the lock with the event and the registration as they are,
 * and may refuse the change by throwing (the attendee's own link: its token still live, the event
 * not started).
 */
export function updateAttendee(
  context: TransactionContext,
  {
    accountId,
    id,
    update,
    now,
    guard,
  }: {
    accountId: string;
    id: string;
    update: AttendeeUpdate | ((before: AttendeeRecord) => AttendeeUpdate);
    now: string;
    guard?: (steps: Steps, event: EventRecord, before: AttendeeRecord) => Promise<void>;
  },
): Promise<Change<AttendeeRecord>> {
  let attempted: AttendeeRecord | undefined;
  return runRegistrationTransaction(
    context,
    async (steps) => {
      const { tx } = steps;
      const locked = await lockRegistration(tx, accountId, id);
      if (!locked) throw notFound("Attendee", id);
      const { event, attendee: before } = locked;
      await guard?.(steps, event, before);
      const changes = typeof update === "function" ? update(before) : update;
      let after = applyAttendeeUpdate(before, changes, now);
      attempted = after;
      const change = registrationChange(before, after);
      // A new ticket type must be one of the event's and on sale; a place taken or a type
      // changed while holding one needs room in the type too.
      const retyped = after.ticketType.toLowerCase() !== before.ticketType.toLowerCase();
      const ticket =
        retyped || change.takesPlace ? ticketTypeOf(event, after.ticketType, retyped ? now : undefined) : null;
      if (ticket) after = { ...after, ticketType: ticket.name };
      if (retyped) assertRetypable(before, findTicketType(event, after.ticketType));
      if (change.takesPlace) {
        assertOpenForRegistration(event, now);
        assertPlaceLeft(event, (await tx.figures.read(event.id)).activeRegistrations);
        // One waiting takes its place as a promotion does: a priced ticket is then due.
        if (before.payment === null) {
          const taking = takingPlace(steps, event, after, now, before.status === "waitlisted");
          if (taking.payment !== null) assertPaidForStatus(before, { ...taking, status: after.status });
          after = taking;
        }
      }
      // Not paid yet, the payment it will owe (its ticket's price with its offset) must be one payment can take.
      if (after.payment === null && (changes.carbonOffset !== undefined || retyped))
        assertWithinMaximum(findTicketType(event, after.ticketType), after.carbonOffset);
      after = withAdmission(before, after, now);
      if (change.freesPlace && after.payment !== null) {
        const refund = refundOnCancel(event, after.payment, now);
        if (refund > 0)
          after = await refundSteps(steps, event, { ...after, payment: after.payment }, refund, now, null);
      }
      if (ticket && isActiveAttendeeStatus(after.status) && (retyped || change.takesPlace))
        assertTicketPlaceLeft(event, ticket, await ticketActive(tx, event.id, ticket));
      if (change.checksDuplicate) await assertNoActiveDuplicate(tx, after);
      await tx.attendees.update(after);
      await moveFigures(steps, event, before, after);
      await appendNotifications(steps, accountId, { op: "attendee.updated", event, before, after, at: now });
      // Leaving a ticket type with a capacity frees a place of it, as cancelling would.
      const freesTicket = retyped && isActiveAttendeeStatus(before.status) && isActiveAttendeeStatus(after.status);
      await settleWaitlist(steps, event, freesTicket ? { ...change, freesPlace: true } : change, now);
      await checkEventThresholds(steps, event, now, { footprint: true });
      return { before, after };
    },
    () => attempted,
  );
}

/**
 * Checks in the event's registration with this confirmation code under the event's lock. Throws
 * `NOT_FOUND` (no such event or code) or `INVALID_STATE_TRANSITION` (the door is closed:
 * `assertDoorOpen`; the registration is cancelled or waiting). A registration checked in already
 * (`isCheckedIn`) is left as it is and returned with `before === after`.
 */
export function checkIn(
  context: TransactionContext,
  {
    accountId,
    eventId,
    confirmationCode,
    now,
  }: { accountId: string; eventId: string; confirmationCode: string; now: string },
): Promise<Change<AttendeeRecord>> {
  return changeCheckIn(context, accountId, eventId, "attendee.checked_in", now, async (tx, event) => {
    assertDoorOpen(event);
    const before = await tx.attendees.getByCode(eventId, confirmationCode);
    if (!before)
      throw new ServiceError("NOT_FOUND", {
        message: `No registration with confirmation code ${confirmationCode} for event ${eventId}.`,
        field: "confirmationCode",
      });
    // Checked in already: left as it is, nothing notified.
    if (isCheckedIn(before)) return { before, after: before };
    return { before, after: withAdmission(before, applyAttendeeUpdate(before, { status: "checked-in" }, now), now) };
  });
}

/**
 * A scan at a door: the event's registration with this confirmation code, under the event's lock,
 * checked in as {@link checkIn} does when the door rules say it may be (`doorResultOf`), else left
 * as it is with what the scan came to. `attendee` is `null` when the event has no such code
 * (`confirmationCode` null: what was scanned is no code at all).
 * Throws `NOT_FOUND` only when the event itself is gone.
 */
export async function scanAtDoor(
  context: TransactionContext,
  {
    accountId,
    eventId,
    confirmationCode,
    attendeeId,
    now,
  }: { accountId: string; eventId: string; confirmationCode: string | null; attendeeId?: string; now: string },
): Promise<{ result: Exclude<DoorResult, "wrong_event">; attendee: AttendeeRecord | null }> {
  let result: Exclude<DoorResult, "wrong_event"> = "not_found";
  const { after } = await changeCheckIn(context, accountId, eventId, "attendee.checked_in", now, async (tx, event) => {
    const before = await scannedRegistration(tx, { accountId, eventId, confirmationCode, attendeeId });
    // A closed door says so whatever is scanned.
    if (!before) result = isDoorOpen(event) ? "not_found" : "event_not_open";
    if (!before) return { before: null, after: null };
    result = doorResultOf(event, before);
    if (result !== "checked_in") return { before, after: before };
    return { before, after: withAdmission(before, applyAttendeeUpdate(before, { status: "checked-in" }, now), now) };
  });
  return { result, attendee: after };
}

/** The event's registration a scan names: by its code, or by its id when the door picked it from a search. */
async function scannedRegistration(
  tx: StorageTransaction,
  scan: { accountId: string; eventId: string; confirmationCode: string | null; attendeeId?: string },
): Promise<AttendeeRecord | null> {
  if (scan.attendeeId !== undefined) {
    const found = await tx.attendees.get(scan.accountId, scan.attendeeId);
    return found && found.eventId === scan.eventId ? found : null;
  }
  return scan.confirmationCode === null ? null : tx.attendees.getByCode(scan.eventId, scan.confirmationCode);
}

/**
 * Undoes the check-in of the event's registration `attendeeId` under the event's lock (back to
 * `confirmed`: `undoCheckIn`), notified as `attendee.updated`. Throws `NOT_FOUND` (no such event,
 * or no such registration of it) or `INVALID_STATE_TRANSITION` (not checked in).
 */
export function undoCheckIn(
  context: TransactionContext,
  { accountId, eventId, attendeeId, now }: { accountId: string; eventId: string; attendeeId: string; now: string },
): Promise<Change<AttendeeRecord>> {
  return changeCheckIn(context, accountId, eventId, "attendee.updated", now, async (tx) => {
    const found = await tx.attendees.get(accountId, attendeeId);
    if (!found || found.eventId !== eventId) throw notFound("Attendee", `${attendeeId} of event ${eventId}`);
    return { before: found, after: undoneCheckIn(found, now) };
  });
}

/**
 * A change of one registration's check-in under its event's lock (throws `NOT_FOUND` for no such
 * event): `decide` finds the registration and says what it becomes, `before` itself when nothing
 * changes (then nothing is written). A check-in and its undoing move no place, so the status
 * fields, the kept figures and the notification `op` are all that is written.
 */
function changeCheckIn<T extends AttendeeRecord | null = AttendeeRecord>(
  context: TransactionContext,
  accountId: string,
  eventId: string,
  op: "attendee.checked_in" | "attendee.updated",
  now: string,
  decide: (tx: StorageTransaction, event: EventRecord) => Promise<Change<T>>,
): Promise<Change<T>> {
  return runTransaction(context, async (steps) => {
    const event = await steps.tx.events.lock(accountId, eventId);
    if (!event) throw notFound("Event", eventId);
    const { before, after } = await decide(steps.tx, event);
    if (after === before || before === null || after === null) return { before, after };
    await steps.tx.attendees.updateStatus(after);
    await moveFigures(steps, event, before, after);
    await appendNotifications(steps, accountId, { op, event, before, after, at: now });
    return { before, after };
  });
}

/**
 * Erases the account's registration under its event's lock: the row goes (so every read, list,
 * QR image and check-in of it finds nothing); an active registration's place and its share of the
 * kept figures are released (the first in line promoted); every stored copy of its personal data
 * is scrubbed: webhook payloads that `redactEnvelope` redacts for it (their attempts' response
 * excerpts cleared: a receiver may echo what it got), and stored Idempotency-Key answers that
 * name it, replaced by `erasure.replay`. Then `attendee.deleted` (ids only) and the event's
 * one-time notifications go to the outbox. Returns the registration as it was, or `null` when the
 * account has none with this id (nothing changes). Never throws for a registration's status.
 */
export function eraseAttendee(
  context: TransactionContext,
  { accountId, id, erasure }: { accountId: string; id: string; erasure: Erasure },
): Promise<AttendeeRecord | null> {
  return runTransaction(context, async (steps) => {
    const { tx } = steps;
    // Under the event's lock: a concurrent erasure may have taken it meanwhile.
    const locked = await lockRegistration(tx, accountId, id);
    if (!locked) return null;
    const { event, attendee: erased } = locked;
    // An erasure cancels: what was paid goes back by the event's refund policy, and the ledger
    // keeps the amounts without the references that may name the payer.
    const refund = erased.payment ? refundOnCancel(event, erased.payment, erasure.now) : 0;
    if (refund > 0) await refundSteps(steps, event, { ...erased, payment: erased.payment! }, refund, erasure.now, null);
    if (erased.payment) await tx.payments.scrubReferences({ attendeeId: id });
    await tx.attendees.remove(id);
    await moveFigures(steps, event, erased, null);
    await scrubStoredCopies(tx, accountId, { attendeeId: id, eventId: erased.eventId }, new Set([id]), erasure);
    await appendNotifications(steps, accountId, { op: "attendee.erased", event, attendee: erased, at: erasure.now });
    await settleWaitlist(steps, event, registrationChange(erased, null), erasure.now);
    await checkEventThresholds(steps, event, erasure.now, { footprint: true });
    return erased;
  });
}
