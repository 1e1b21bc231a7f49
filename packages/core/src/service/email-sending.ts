/**
 * What an email of the outbox says and to whom, made when its turn comes: the recipient's
 * address as it is then, the event as it is then, and a fresh link whose token is put in the
 * message and only its hash stored (a link of its own beside the others of the registration or
 * booking; a rotation kills it with them). `null` when nobody is to get it any more.
 */
import { DEFAULT_CARBON_SETTINGS } from "../carbon/carbon-settings.ts";
import type { ClaimedEmail, EmailMessage } from "../resources/email.ts";
import { createId } from "../_internal/ids.ts";
import { linkHashOf, newLinkToken } from "../resources/link-token.ts";
import { ticketUrlOf } from "../resources/ticket-link.ts";
import { vendorLinkOf } from "../resources/vendor.ts";
import { EMAILED_BOOKING_STATUSES, takesTicketEmail } from "../rules/emails.ts";
import type { AccountStore } from "../storage/account-store.ts";
import type { AttendeeStore } from "../storage/attendee-store.ts";
import type { EventStore } from "../storage/event-store.ts";
import type { TicketLinkStore } from "../storage/ticket-link-store.ts";
import type { VendorStore } from "../storage/vendor-store.ts";
import { onFirstUse } from "../_internal/on-first-use.ts";

/** The messages' templates (drawn by Preact), loaded by the first email: a service that sends none never holds them. */
const loadMessages = onFirstUse(() => import("./email-messages.tsx"));

/** What composing an email reads and writes. */
export type EmailSource = Pick<AccountStore, "findAccount"> &
  Pick<EventStore, "getEvent"> &
  Pick<AttendeeStore, "getAttendee"> &
  Pick<VendorStore, "getBooking" | "getVendor" | "addBookingLink"> &
  Pick<TicketLinkStore, "addTicketLink">;

/** What {@link composeEmail} needs beside the store. */
export interface ComposeOptions {
  from: string;
  /** The base of the links (`<base>/v1/...`). */
  baseUrl: string;
}

/**
 * The message of `email` at `at`, with a link minted for it, or `null` when nobody is to get it
 * any more: the registration cancelled or erased, the booking no longer requested or confirmed,
 * the vendor's contact without an email address, the event gone. Reads everything before it
 * mints the link, so a link is made only for a message about to be sent.
 */
export async function composeEmail(
  storage: EmailSource,
  email: ClaimedEmail,
  at: string,
  options: ComposeOptions,
): Promise<EmailMessage | null> {
  // Before any link is minted: a template that fails to load leaves the email to its next attempt.
  const { ticketEmail, vendorEmail } = await loadMessages();
  const event = await storage.getEvent(email.accountId, email.eventId, DEFAULT_CARBON_SETTINGS);
  if (!event) return null;
  if (email.kind === "vendor_link") {
    const booking = await storage.getBooking(email.accountId, email.eventId, email.subjectId);
    if (!booking || !EMAILED_BOOKING_STATUSES.includes(booking.status)) return null;
    const [vendor, account] = await Promise.all([
      storage.getVendor(email.accountId, booking.vendorId),
      storage.findAccount(email.accountId),
    ]);
    const to = vendor?.contact?.email;
    if (!vendor || !to || !account) return null;
    const token = newLinkToken("vendor");
    const linked = await storage.addBookingLink({
      bookingId: booking.id,
      linkHash: linkHashOf(token),
      at,
      statuses: EMAILED_BOOKING_STATUSES,
    });
    if (!linked) return null;
    const url = vendorLinkOf(options.baseUrl, token);
    const content = vendorEmail({
      event,
      accountName: account.name,
      vendorName: vendor.name,
      services: booking.services,
      url,
    });
    return { to, from: options.from, ...content };
  }
  if (email.reason === "booked") return null;
  const attendee = await storage.getAttendee(email.accountId, email.subjectId);
  if (!attendee || !takesTicketEmail(attendee)) return null;
  const token = newLinkToken("ticket");
  const linked = await storage.addTicketLink({
    id: createId("ticketLink"),
    accountId: email.accountId,
    attendeeId: attendee.id,
    linkHash: linkHashOf(token),
    createdAt: at,
  });
  // Erased since it was read: nobody to write to.
  if (!linked) return null;
  const url = ticketUrlOf(options.baseUrl, token);
  return { to: attendee.email, from: options.from, ...ticketEmail(email.reason, { event, attendee, url }) };
}
