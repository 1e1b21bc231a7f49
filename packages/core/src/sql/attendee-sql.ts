import { type Kysely, sql } from "kysely";
import { createConfirmationCode } from "../_internal/ids.ts";
import { ServiceError } from "../errors.ts";
import { applyAttendeeUpdate, type AttendeeRecord, undoCheckIn } from "../resources/attendee.ts";
import { assertDoorOpen } from "../rules/check-in.ts";
import { type EventRecord } from "../resources/event.ts";
import { admission, eventFull } from "../rules/waitlist.ts";
import type { ChangeNotifier } from "../storage/change-notifier.ts";
import { closeUpWaitlist, promoteWaitlisted } from "./waitlist-sql.ts";
import { isActiveAttendeeStatus } from "../rules/attendee-status.ts";
import { EVENT_STATUSES_OPEN_FOR_REGISTRATION } from "../rules/event-status.ts";
import { redactDeliveries, replaceStoredAnswers } from "./erasure-sql.ts";
import type { AttendeesTable, Database } from "./database.ts";
import { type UniqueIndex } from "./dialect.ts";
import { ATTENDEE_COLUMNS, attendeeToRow, rowToAttendee } from "./rows.ts";
import { type Param, params, precompile } from "./precompiled.ts";
import type { SqlContext } from "./sql-context.ts";
import { backstop, likePattern } from "./sql-context.ts";
import type { AttendeeStore } from "../storage/attendee-store.ts";
import { countActive } from "./event-sql.ts";

/*
 * A violation of this unique index is the backstop of the duplicate check (a race the event's
 * lock did not cover), answered as DUPLICATE_REGISTRATION instead of a 500.
 */
const ACTIVE_EMAIL_INDEX: UniqueIndex = { name: "attendees_event_email_active", table: "attendees", columns: ["event_id", "email_key"] };

/** Registrations (`AttendeeStore`) on SQL, each change under its event's lock. */
export function createAttendeeStore(ctx: SqlContext): AttendeeStore {
  const { db, dialect, write, notify } = ctx;
  const adjustEventStats = ctx.keptFigures.adjust;
  // A registration's own statements, compiled once: it is the busiest write.
  const duplicateQuery = precompile(db, (conn, param: Param<{ event: string; email: string; id: string }>) =>
    conn
      .selectFrom("attendees")
      .select("id")
      .where("event_id", "=", param("event"))
      .where("email_key", "=", param("email"))
      // Active means not cancelled; written as the literal of the partial unique index
      // attendees_event_email_active, so the planner uses it instead of reading every
      // registration of the event.
      .where("status", "<>", sql.lit("cancelled"))
      .where("id", "<>", param("id")),
  );
  const codeQuery = precompile(db, (conn, param: Param<{ code: string }>) => conn.selectFrom("attendees").select("id").where("confirmation_code", "=", param("code")));
  const insertQuery = precompile(db, (conn, param: Param<AttendeesTable>) =>
    conn.insertInto("attendees").values(params(param, ATTENDEE_COLUMNS)),
  );

  async function assertNoActiveDuplicate(conn: Kysely<Database>, attendee: AttendeeRecord) {
    const duplicate = (await duplicateQuery({ event: attendee.eventId, email: attendee.email.toLowerCase(), id: attendee.id }, conn)).rows[0];
    if (duplicate) {
      throw new ServiceError("DUPLICATE_REGISTRATION", {
        message: `${attendee.email} already holds an active registration for event ${attendee.eventId}.`,
        field: "email",
        details: { attendeeId: duplicate.id },
      });
    }
  }

  async function assertCapacityLeft(conn: Kysely<Database>, event: EventRecord) {
    const active = await countActive(conn, event.id);
    if (active >= event.capacity) throw eventFull(event, active);
  }

  /** Where the event's registrations stand, as kept on its row (exact under its lock). */
  async function standing(conn: Kysely<Database>, eventId: string) {
    const figures = await ctx.keptFigures.read(conn, eventId);
    return { active: figures.activeRegistrations, waitlisted: figures.waitlisted };
  }

  /**
   * After a registration moved from `before` to `after` (`null`: erased): closes up the waiting
   * list behind one that left it, and fills the places one that held a place gave up.
   */
  async function settleWaitlist(conn: Kysely<Database>, event: EventRecord, before: AttendeeRecord, after: AttendeeRecord | null, now: string, notifier: ChangeNotifier | undefined) {
    if (before.status === "waitlisted" && after?.status !== "waitlisted" && before.waitlistPosition !== null) {
      await closeUpWaitlist(conn, event.id, before.waitlistPosition);
    }
    if (isActiveAttendeeStatus(before.status) && !(after && isActiveAttendeeStatus(after.status))) {
      await promoteWaitlisted(ctx, conn, event, now, notifier);
    }
  }

  function assertOpenForRegistration(event: EventRecord) {
    if (!EVENT_STATUSES_OPEN_FOR_REGISTRATION.includes(event.status)) {
      throw new ServiceError("INVALID_REQUEST", {
        message: `eventId: event ${event.id} is ${event.status} and takes no registrations`,
        field: "eventId",
        details: { eventStatus: event.status },
      });
    }
  }


  const ATTENDEE_SORT_COLUMNS = {
    registrationDate: sql.ref("registration_date"),
    firstName: dialect.asciiCaseFold(sql.ref("first_name")),
    lastName: dialect.asciiCaseFold(sql.ref("last_name")),
    company: dialect.asciiCaseFold(sql.ref("company")),
  } as const;


  return {
    async registerAttendee(attendee, notifier) {
      return backstop(dialect, ACTIVE_EMAIL_INDEX, () => write(async (trx) => {
        const event = await ctx.lockEvent(trx, attendee.accountId, attendee.eventId);
        if (!event) throw new ServiceError("NOT_FOUND", { message: `Event ${attendee.eventId} not found.`, field: "eventId" });
        assertOpenForRegistration(event);
        // Duplicates first: "already registered" tells more than "full" when both hold.
        await assertNoActiveDuplicate(trx, attendee);
        let record: AttendeeRecord = { ...attendee, ...admission(event, await standing(trx, event.id)) };
        while ((await codeQuery({ code: record.confirmationCode }, trx)).rows.length > 0) {
          record = { ...record, confirmationCode: createConfirmationCode() };
        }
        const row = attendeeToRow(record);
        await insertQuery(row, trx);
        await adjustEventStats(trx, record.eventId, null, record);
        await notify(trx, event.accountId, { op: "attendee.registered", event, attendee: record, at: record.registrationDate }, notifier);
        return record;
      }), () => assertNoActiveDuplicate(db, attendee));
    },

    async getAttendee(accountId, id) {
      const row = await db.selectFrom("attendees").selectAll().where("id", "=", id).where("account_id", "=", accountId).executeTakeFirst();
      return row ? rowToAttendee(row) : null;
    },

    async updateAttendee(accountId, id, update, now, notifier) {
      let attempted: AttendeeRecord | undefined;
      return backstop(dialect, ACTIVE_EMAIL_INDEX, () => write(async (trx) => {
        // The event's lock first (it serialises everything about its registrations), then the
        // registration read under it: read before the lock, a concurrent change could be lost.
        // A registration never moves to another event, so its event found unlocked is the one to lock.
        const found = await trx.selectFrom("attendees").select("event_id").where("id", "=", id).where("account_id", "=", accountId).executeTakeFirst();
        const event = found && (await ctx.lockEvent(trx, accountId, found.event_id));
        const row = event && (await trx.selectFrom("attendees").selectAll().where("id", "=", id).where("account_id", "=", accountId).executeTakeFirst());
        if (!event || !row) throw new ServiceError("NOT_FOUND", { message: `Attendee ${id} not found.` });
        const before = rowToAttendee(row);
        const after = applyAttendeeUpdate(before, update, now);
        attempted = after;
        // A re-activation or a promotion by hand takes a place: the kept count does not hold one for it.
        const reactivated = !isActiveAttendeeStatus(before.status) && isActiveAttendeeStatus(after.status);
        if (reactivated) {
          assertOpenForRegistration(event);
          await assertCapacityLeft(trx, event);
        }
        const emailChanged = after.email.toLowerCase() !== before.email.toLowerCase();
        const reinstated = before.status === "cancelled" && after.status !== "cancelled";
        if (after.status !== "cancelled" && (reinstated || emailChanged)) await assertNoActiveDuplicate(trx, after);
        const { id: _id, account_id: _account, event_id: _event, confirmation_code: _code, registration_date: _date, ...changes } = attendeeToRow(after);
        await trx.updateTable("attendees").set(changes).where("id", "=", id).execute();
        await adjustEventStats(trx, before.eventId, before, after);
        await notify(trx, accountId, { op: "attendee.updated", event, before, after, at: now }, notifier);
        await settleWaitlist(trx, event, before, after, now, notifier);
        return { before, after };
      }), () => assertNoActiveDuplicate(db, attempted!));
    },

    async checkIn(accountId, eventId, confirmationCode, now, notifier) {
      return write(async (trx) => {
        const event = await ctx.lockEvent(trx, accountId, eventId);
        if (!event) throw new ServiceError("NOT_FOUND", { message: `Event ${eventId} not found.` });
        assertDoorOpen(event);
        const row = await trx.selectFrom("attendees").selectAll().where("event_id", "=", eventId).where("confirmation_code", "=", confirmationCode).executeTakeFirst();
        if (!row) {
          throw new ServiceError("NOT_FOUND", { message: `No registration with confirmation code ${confirmationCode} for event ${eventId}.`, field: "confirmationCode" });
        }
        const before = rowToAttendee(row);
        if (before.status === "checked-in") return { before, after: before };
        const after = applyAttendeeUpdate(before, { status: "checked-in" }, now);
        // The event's figures stay: checked-in counts as active, like the confirmed or pending it was.
        await trx.updateTable("attendees").set({ status: after.status, checked_in_at: after.checkedInAt, updated_at: now }).where("id", "=", row.id).execute();
        await notify(trx, accountId, { op: "attendee.checked_in", event, before, after, at: now }, notifier);
        return { before, after };
      });
    },

    async undoCheckIn(accountId, eventId, attendeeId, now, notifier) {
      return write(async (trx) => {
        const event = await ctx.lockEvent(trx, accountId, eventId);
        if (!event) throw new ServiceError("NOT_FOUND", { message: `Event ${eventId} not found.` });
        const row = await trx.selectFrom("attendees").selectAll().where("id", "=", attendeeId).where("event_id", "=", eventId).executeTakeFirst();
        if (!row) throw new ServiceError("NOT_FOUND", { message: `Attendee ${attendeeId} of event ${eventId} not found.` });
        const before = rowToAttendee(row);
        const after = undoCheckIn(before, now);
        await trx.updateTable("attendees").set({ status: after.status, checked_in_at: after.checkedInAt, updated_at: now }).where("id", "=", row.id).execute();
        await adjustEventStats(trx, eventId, before, after);
        await notify(trx, accountId, { op: "attendee.updated", event, before, after, at: now }, notifier);
        return { before, after };
      });
    },

    async eraseAttendee(accountId, id, erasure, notifier) {
      return write(async (trx) => {
        const found = await trx.selectFrom("attendees").select("event_id").where("id", "=", id).where("account_id", "=", accountId).executeTakeFirst();
        if (!found) return null;
        const event = await ctx.lockEvent(trx, accountId, found.event_id);
        // Read again under the event's lock: a concurrent erasure may have taken it meanwhile.
        const row = event && (await trx.selectFrom("attendees").selectAll().where("id", "=", id).where("account_id", "=", accountId).executeTakeFirst());
        if (!event || !row) return null;
        const erased = rowToAttendee(row);
        await trx.deleteFrom("attendees").where("id", "=", id).execute();
        await adjustEventStats(trx, erased.eventId, erased, null);
        await redactDeliveries(trx, accountId, { attendeeId: id, eventId: erased.eventId }, erasure.now);
        await replaceStoredAnswers(trx, accountId, id, new Set([id]), erasure);
        await notify(trx, accountId, { op: "attendee.erased", event, attendee: erased, at: erasure.now }, notifier);
        await settleWaitlist(trx, event, erased, null, erasure.now, notifier);
        return erased;
      });
    },

    async findAttendeeById(id) {
      const row = await db.selectFrom("attendees").selectAll().where("id", "=", id).executeTakeFirst();
      return row ? rowToAttendee(row) : null;
    },

    async eventAttendeesAfter(accountId, eventId, cursor, limit) {
      let query = db.selectFrom("attendees").selectAll().where("event_id", "=", eventId).where("account_id", "=", accountId);
      if (cursor) query = query.where((eb) => eb(eb.refTuple("registration_date", "id"), ">", eb.tuple(cursor.registrationDate, cursor.id)));
      const rows = await query.orderBy("registration_date").orderBy("id").limit(limit).execute();
      return rows.map(rowToAttendee);
    },

    async listAttendees(accountId, query) {
      let base = db.selectFrom("attendees").where("account_id", "=", accountId);
      if (query.eventId) base = base.where("event_id", "=", query.eventId);
      if (query.status) base = base.where("status", "=", query.status);
      if (query.ticketType) base = base.where("ticket_type", "=", query.ticketType);
      if (query.carbonOffset !== undefined) base = base.where("offset_opted", "=", query.carbonOffset ? 1 : 0);
      if (query.search) {
        base = base.where(sql`search_key`, "like", likePattern(query.search));
      }
      const direction = query.order;
      const [count, rows] = await Promise.all([
        base.select(sql<number>`count(*)`.as("n")).executeTakeFirstOrThrow(),
        base
          .selectAll()
          .$if(query.sortBy === "company", (q) => q.orderBy(sql`case when company is null then 1 else 0 end`))
          .orderBy(ATTENDEE_SORT_COLUMNS[query.sortBy], direction)
          .orderBy("id", direction)
          .limit(query.limit)
          .offset((query.page - 1) * query.limit)
          .execute(),
      ]);
      return { items: rows.map(rowToAttendee), total: Number(count.n) };
    },

  };
}
