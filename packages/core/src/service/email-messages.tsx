/**
 * The emails' words: a subject, a plain-text body and an HTML body per kind and reason. The HTML
 * is rendered by Preact, which escapes every value, the link included; the subject is one line
 * (a name's line breaks become spaces). No other attendee's or vendor's data is ever given.
 */
import { localDateTime } from "../_internal/local-time.ts";
import { renderToString } from "preact-render-to-string";
import type { AttendeeRecord } from "../resources/attendee.ts";
import type { EventRecord } from "../resources/event.ts";
import { inMajorUnits, outstanding } from "../rules/payments.ts";

/** What an email says: its subject and its two bodies. */
export interface EmailContent {
  subject: string;
  text: string;
  html: string;
}

/** The event as an email names it. */
export type EmailEvent = Pick<EventRecord, "name" | "startDate" | "endDate" | "timeZone"> & {
  location: Pick<EventRecord["location"], "city" | "country">;
};

/** A paragraph of the message: plain text, or a link (shown as its URL in the text body). */
type Part = { text: string } | { link: string; label: string };

/** One line of text, for a subject: runs of whitespace (line breaks too) become one space. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** When and where, in the event's own time zone: "1 May 2038, 09:00 CEST – 2 May 2038, 17:00 CEST, Berlin". */
function whenAndWhere(event: EmailEvent): string {
  const start = localDateTime(event.startDate, event.timeZone);
  const end = localDateTime(event.endDate, event.timeZone);
  return `${start} – ${end}, ${event.location.city}`;
}

/** The two bodies of the same paragraphs: the text one with the link's URL on a line of its own, the HTML one rendered by Preact. */
function render(subject: string, parts: readonly Part[]): EmailContent {
  const text = `${parts.map((part) => ("text" in part ? part.text : `${part.label}:\n${part.link}`)).join("\n\n")}\n`;
  const html = `<!doctype html>${renderToString(
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <title>{subject}</title>
      </head>
      <body>
        {parts.map((part) =>
          "text" in part ? (
            <p>{part.text}</p>
          ) : (
            <p>
              <a href={part.link}>{part.label}</a>
            </p>
          ),
        )}
      </body>
    </html>,
  )}\n`;
  return { subject, text, html };
}

/** What a registration owes, as a sentence, or `null` when nothing is due. */
function amountDue(attendee: AttendeeRecord): string | null {
  if (attendee.payment === null || attendee.status === "waitlisted") return null;
  const due = outstanding(attendee.payment);
  return due > 0 ? `Amount due: ${inMajorUnits(due, attendee.payment.currency)}.` : null;
}

/**
 * The email that gives an attendee their ticket link: on registering (`registered`), leaving
 * the waiting list (`promoted`) or paying in full (`paid`).
 */
export function ticketEmail(
  reason: "registered" | "promoted" | "paid",
  { event, attendee, url }: { event: EmailEvent; attendee: AttendeeRecord; url: string },
): EmailContent {
  const name = oneLine(event.name);
  const subject = {
    registered: `Your ticket for ${name}`,
    promoted: `You're off the waiting list: ${name}`,
    paid: `Payment received: ${name}`,
  }[reason];
  const status =
    attendee.status === "waitlisted"
      ? `You are on the waiting list${attendee.waitlistPosition === null ? "" : ` (place ${attendee.waitlistPosition})`}: this email's link shows your place, and you will get another email if a place frees up.`
      : attendee.status === "pending"
        ? "Your place is held until your payment is complete."
        : `Your confirmation code is ${attendee.confirmationCode}.`;
  const opening = {
    registered: `Hello ${attendee.firstName}, you are registered for ${event.name}.`,
    promoted: `Hello ${attendee.firstName}, a place freed up at ${event.name}: it is yours.`,
    paid: `Hello ${attendee.firstName}, we received your payment for ${event.name}.`,
  }[reason];
  const due = amountDue(attendee);
  return render(subject, [
    { text: opening },
    { text: whenAndWhere(event) },
    { text: status },
    ...(due === null ? [] : [{ text: due }]),
    { link: url, label: "Open your ticket" },
    {
      text: "The link is your own: anyone who has it can see and change your registration, so do not forward this email.",
    },
  ]);
}

/** The email that gives a vendor's contact its booking's link: what the organiser asks of it. */
export function vendorEmail({
  event,
  accountName,
  vendorName,
  services,
  url,
}: {
  event: EmailEvent;
  accountName: string;
  vendorName: string;
  services: string;
  url: string;
}): EmailContent {
  return render(`${oneLine(accountName)} asks you to confirm: ${oneLine(event.name)}`, [
    { text: `${accountName} would like to book ${vendorName} for ${event.name}.` },
    { text: whenAndWhere(event) },
    { text: `Services: ${services}` },
    { link: url, label: "Confirm or decline" },
    {
      text: "The link needs no account: through it you confirm or decline, and once confirmed you report the data asked for. Anyone who has it can do the same, so forward it only to colleagues.",
    },
  ]);
}
