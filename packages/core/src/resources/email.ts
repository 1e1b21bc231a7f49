/**
 * The emails the service sends when it has a transport: what the outbox holds of one (never a
 * token, never an address: both are read or made when it is sent), and the transport an embedder
 * or the server gives it.
 */

/** What an email carries: the ticket link to an attendee, or the vendor link to a vendor's contact. */
export const EMAIL_KINDS = ["ticket_link", "vendor_link"] as const;
export type EmailKind = (typeof EMAIL_KINDS)[number];

/** Why an email is sent: the change that queued it. */
export const EMAIL_REASONS = ["registered", "promoted", "paid", "booked"] as const;
export type EmailReason = (typeof EMAIL_REASONS)[number];

/** The reasons of each kind. */
export const EMAIL_KIND_REASONS = {
  ticket_link: ["registered", "promoted", "paid"],
  vendor_link: ["booked"],
} as const satisfies Record<EmailKind, readonly EmailReason[]>;

/**
 * An email is `pending` while an attempt is due or running; then `sent`, `failed` (its attempts
 * ran out) or `skipped` (nobody to send it to any more: the registration or booking was
 * cancelled or erased, or has no address).
 */
export const EMAIL_STATUSES = ["pending", "sent", "failed", "skipped"] as const;
export type EmailStatus = (typeof EMAIL_STATUSES)[number];

/** An email to queue, in the transaction of the change it tells of. */
export type NewEmail = { accountId: string; eventId: string; subjectId: string; at: string } & (
  | { kind: "ticket_link"; reason: "registered" | "promoted" | "paid" }
  | { kind: "vendor_link"; reason: "booked" }
);

/** An email a worker claimed: its `subjectId` is the attendee's id (`ticket_link`) or the booking's (`vendor_link`). */
export interface ClaimedEmail {
  id: string;
  accountId: string;
  eventId: string;
  kind: EmailKind;
  reason: EmailReason;
  subjectId: string;
  /** Attempts made before this one. */
  attempts: number;
  createdAt: string;
}

const ADDRESSES = /[^\s<>()[\]"',;:]+@([A-Za-z0-9.-]+)/g;

/**
 * `text` (an SMTP server's answer, which often repeats the recipient) with every email address
 * cut to its domain, `…@example.com`: what is logged and kept of a failed attempt.
 */
export function redactAddresses(text: string): string {
  return text.replace(ADDRESSES, "…@$1");
}

/** A message as a transport sends it. */
export interface EmailMessage {
  to: string;
  from: string;
  subject: string;
  text: string;
  html: string;
}

/**
 * What sends the messages (the server builds one from nodemailer and `SMTP_URL`; an embedder
 * may pass its own). `send` resolves once the message was accepted for delivery and rejects
 * when it was not (it is retried).
 */
export interface EmailTransport {
  send(message: EmailMessage): Promise<void>;
}
