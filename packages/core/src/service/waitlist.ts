/**
 * The waiting list's moves inside a business transaction, under the event's lock: closing up
 * behind a registration that left the list, and promoting the first in line into free places.
 * When and how many is `rules/waitlist.ts`'s to say.
 */
import type { AttendeeRecord } from "../resources/attendee.ts";
import { promoteAttendee } from "../rules/attendee-update.ts";
import type { EventRecord } from "../resources/event.ts";
import type { KeptFigures } from "../rules/kept-figures.ts";
import type { RegistrationChange } from "../rules/registration-change.ts";
import { promotionOrder } from "../rules/ticket-types.ts";
import { closeUpAfterPromotion, closeUpBehind, promotionsDue } from "../rules/waitlist.ts";
import { takingPlace } from "./payment-changes.ts";
import { ticketRoom } from "./ticket-counts.ts";
import { moveFigures, appendNotifications, type Steps } from "./transaction-steps.ts";

/**
 * Promotes from the event's waiting list into the places free with the event's kept `figures` as
 * they stand (`promotionsDue` says how many), in line order; when ticket types have capacities,
 * those whose type is sold out keep their turn and the next in line go first (`promotionOrder`).
 * Each becomes `confirmed` (`pending` with its payment due, for a priced ticket) and is notified as an update of the registration (the notifier adds
 * `attendee.promoted`); the rest of the list moves up. Returns the promoted registrations.
 */
export async function promoteWaitlisted(
  steps: Steps,
  event: EventRecord,
  figures: KeptFigures,
  now: string,
): Promise<AttendeeRecord[]> {
  const due = promotionsDue(event, { active: figures.activeRegistrations, waitlisted: figures.waitlisted }, now);
  if (due === 0) return [];
  const bounded = event.ticketTypes.some((type) => type.capacity !== null);
  const waiting = await steps.tx.waitlist.firstInLine(event.id, bounded ? figures.waitlisted : due);
  const chosen = bounded
    ? promotionOrder(waiting, due, await ticketRoom(steps.tx, event)).map((i) => waiting[i]!)
    : waiting;
  const promoted: AttendeeRecord[] = [];
  for (const before of chosen) {
    const after = takingPlace(steps, event, promoteAttendee(before, now), now, true);
    await steps.tx.attendees.updateStatus(after);
    await moveFigures(steps, event, before, after);
    await appendNotifications(steps, event.accountId, { op: "attendee.updated", event, before, after, at: now });
    promoted.push(after);
  }
  // The head of the line moves the rest up at once; those passed over, behind each promoted one.
  const positions = chosen.map((attendee) => attendee.waitlistPosition ?? 0);
  if (chosen.length === 0) return promoted;
  if (positions.every((position, i) => position === i + 1)) {
    const { behind, places } = closeUpAfterPromotion(chosen.length);
    await steps.tx.waitlist.moveUp(event.id, behind, places);
  } else {
    for (const position of positions.toReversed()) {
      const { behind, places } = closeUpBehind(position);
      await steps.tx.waitlist.moveUp(event.id, behind, places);
    }
  }
  return promoted;
}

/** After a registration's `change` (already written): closes up the waiting list behind one that left it, and fills the place one gave up. */
export async function settleWaitlist(
  steps: Steps,
  event: EventRecord,
  change: RegistrationChange,
  now: string,
): Promise<void> {
  if (change.leftWaitlistAt !== null) {
    const { behind, places } = closeUpBehind(change.leftWaitlistAt);
    await steps.tx.waitlist.moveUp(event.id, behind, places);
  }
  if (change.freesPlace) await promoteWaitlisted(steps, event, await steps.tx.figures.read(event.id), now);
}
