import type { Kysely } from "kysely";
import { type AttendeeRecord, promoteAttendee } from "../resources/attendee.ts";
import type { EventRecord } from "../resources/event.ts";
import { promotionsDue } from "../rules/waitlist.ts";
import type { ChangeNotifier } from "../storage/change-notifier.ts";
import type { Database } from "./database.ts";
import { rowToAttendee } from "./rows.ts";
import type { SqlContext } from "./sql-context.ts";

/**
 * Closes up the event's waiting list behind a registration that left it from `position`
 * (promoted, cancelled or erased): everyone after moves up one. Under the event's lock.
 */
export async function closeUpWaitlist(conn: Kysely<Database>, eventId: string, position: number): Promise<void> {
  await conn
    .updateTable("attendees")
    .set((eb) => ({ waitlist_position: eb("waitlist_position", "-", 1) }))
    .where("event_id", "=", eventId)
    .where("status", "=", "waitlisted")
    .where("waitlist_position", ">", position)
    .execute();
}

/**
 * Promotes the first in line of the event's waiting list into the places that are free now
 * (`promotionsDue` decides how many), in order, in the transaction of the change that freed
 * them and under the event's lock: each becomes `confirmed` and is notified as an update of the
 * registration (the notifier adds `attendee.promoted`); the rest of the list moves up. Returns
 * the promoted registrations.
 */
export async function promoteWaitlisted(ctx: SqlContext, trx: Kysely<Database>, event: EventRecord, now: string, notifier: ChangeNotifier | undefined): Promise<AttendeeRecord[]> {
  const figures = await ctx.keptFigures.read(trx, event.id);
  const due = promotionsDue(event, { active: figures.activeRegistrations, waitlisted: figures.waitlisted });
  if (due === 0) return [];
  const rows = await trx.selectFrom("attendees").selectAll().where("event_id", "=", event.id).where("status", "=", "waitlisted").orderBy("waitlist_position").limit(due).execute();
  const promoted: AttendeeRecord[] = [];
  for (const row of rows) {
    const before = rowToAttendee(row);
    const after = promoteAttendee(before, now);
    await trx.updateTable("attendees").set({ status: after.status, waitlist_position: null, updated_at: now }).where("id", "=", row.id).execute();
    await ctx.keptFigures.adjust(trx, event.id, before, after);
    await ctx.notify(trx, event.accountId, { op: "attendee.updated", event, before, after, at: now }, notifier);
    promoted.push(after);
  }
  await trx
    .updateTable("attendees")
    .set((eb) => ({ waitlist_position: eb("waitlist_position", "-", rows.length) }))
    .where("event_id", "=", event.id)
    .where("status", "=", "waitlisted")
    .execute();
  return promoted;
}
