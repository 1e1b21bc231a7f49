/**
 * What the outbox stores and sends, as the storage contract knows it: a notification before it
 * is fanned out, the envelope of a delivery, and the redaction an erasure applies to stored
 * envelopes (part of `eraseAttendee`'s and `deleteEvent`'s contract). No decision about which
 * change notifies what: `webhooks/change-notifications.ts` holds those.
 */
import type { PING_EVENT_TYPE, WebhookEventType } from "../resources/webhook.ts";

/** One notification before it is fanned out to the webhooks subscribed to its type. */
export interface Notification {
  type: WebhookEventType | typeof PING_EVENT_TYPE;
  data: Record<string, unknown>;
}

/** The body of every delivery (docs/api.md, Envelope and types). `id` is the same on every attempt of a delivery. */
export interface Envelope {
  id: string;
  type: string;
  createdAt: string;
  data: Record<string, unknown>;
  account: { id: string; name: string };
  /** Set when an erasure redacted `data` ({@link redactEnvelope}): the time of the erasure. */
  erasedAt?: string;
}

/** Whose personal data an erasure removes from stored payloads: one registration, or every registration of a deleted event. */
export type ErasureSubject = { attendeeId: string; eventId: string } | { eventId: string };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The envelope with the subject's personal data taken out, or `null` when it carries none.
 * A payload carries it when its `data.attendee` is the registration (or, for an event, any
 * registration of the event: `attendee.*`, `sustainability.carbon_offset`), or when it is an
 * `analytics.report_ready` of the event, whose report names free-text values of the
 * registrations it counted (companies, dietary preferences). The redacted envelope keeps its
 * id, type, createdAt and account; `data` keeps only references, `attendee: {id, eventId}`
 * and `event: {id, name}` where it had them, and `url`; `erasedAt` marks it. An envelope
 * redacted before, or an `attendee.deleted` (ids only), is left as it is.
 */
export function redactEnvelope(envelope: Envelope, subject: ErasureSubject, erasedAt: string): Envelope | null {
  if (envelope.erasedAt !== undefined || envelope.type === "attendee.deleted") return null;
  const { attendee, event, url } = envelope.data;
  const registration = isRecord(attendee) && typeof attendee.id === "string" ? attendee : null;
  const eventRefOf = isRecord(event) && typeof event.id === "string" ? { id: event.id, name: event.name } : null;
  const eventId = typeof registration?.eventId === "string" ? registration.eventId : eventRefOf?.id;
  const carries =
    registration !== null &&
    ("attendeeId" in subject ? registration.id === subject.attendeeId : eventId === subject.eventId);
  const report = envelope.type === "analytics.report_ready" && eventRefOf?.id === subject.eventId;
  if (!carries && !report) return null;
  const data: Record<string, unknown> = {
    ...(registration && { attendee: { id: registration.id, eventId: eventId ?? null } }),
    ...(eventRefOf && { event: eventRefOf }),
    ...(typeof url === "string" && { url }),
  };
  return { ...envelope, data, erasedAt };
}
