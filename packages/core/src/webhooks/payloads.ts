/**
 * Which notifications a change causes, and their `data` (spec 6.2 where it gives a shape, the
 * shapes documented in docs/api.md elsewhere). Pure functions of the change: the SQL outbox
 * calls them inside the change's transaction, so what is sent is fixed at commit.
 */
import type { EventAnalytics } from "../analytics/event-analytics.ts";
import type { Attendee } from "../resources/attendee.ts";
import type { Event } from "../resources/event.ts";
import type { WebhookEventType } from "../resources/webhook.ts";

/** The type of the test notification of `POST /webhooks/:id/ping` (not subscribable). */
export const PING_EVENT_TYPE = "webhook.ping";

/** One notification before it is fanned out to the webhooks subscribed to its type. */
export interface Notification {
  type: WebhookEventType | typeof PING_EVENT_TYPE;
  data: Record<string, unknown>;
}

/** The body of every delivery (spec 6.2). `id` is the same on every attempt of a delivery. */
export interface Envelope {
  id: string;
  type: string;
  createdAt: string;
  data: Record<string, unknown>;
  account: { id: string; name: string };
  /** Set when an erasure redacted `data` ({@link redactEnvelope}): the time of the erasure. */
  erasedAt?: string;
}

/** Share of capacity at which `analytics.threshold_exceeded` (`capacity_utilization`) is sent, once per event. */
export const CAPACITY_THRESHOLD_PERCENT = 90;

const EVENT_STATUS_TYPES = { published: "event.published", cancelled: "event.cancelled", completed: "event.completed" } as const;
const ATTENDEE_STATUS_TYPES = { cancelled: "attendee.cancelled", "checked-in": "attendee.checked_in" } as const;

/** The top-level fields whose values differ, with their values before the change (updatedAt and computed figures left out). */
export function previousValues<T extends object>(before: T, after: T, ignore: readonly string[] = []): Partial<T> {
  const previous: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(before)) {
    if (key === "updatedAt" || ignore.includes(key)) continue;
    if (JSON.stringify(value) !== JSON.stringify((after as Record<string, unknown>)[key])) previous[key] = value;
  }
  return previous as Partial<T>;
}

const EVENT_FIGURES = ["attendeeCount", "carbonFootprint", "sustainabilityScore"] as const;

/** `event.updated` when a field changed, and the status type when the status changed. */
export function eventUpdateNotifications(before: Event, after: Event): Notification[] {
  const previous = previousValues(before, after, EVENT_FIGURES);
  if (Object.keys(previous).length === 0) return [];
  const notifications: Notification[] = [{ type: "event.updated", data: { event: after, previous } }];
  if (before.status !== after.status && after.status in EVENT_STATUS_TYPES) {
    const type = EVENT_STATUS_TYPES[after.status as keyof typeof EVENT_STATUS_TYPES];
    notifications.push({ type, data: { event: after, previousStatus: before.status } });
  }
  return notifications;
}

const eventRef = (event: { id: string; name: string }) => ({ id: event.id, name: event.name });

/** True when an attendee's offset is a contribution: opted in with an amount above zero. */
function contributes(attendee: Attendee): boolean {
  return Boolean(attendee.carbonOffset?.opted && (attendee.carbonOffset.amount ?? 0) > 0);
}

function carbonOffsetNotification(attendee: Attendee, event: { id: string; name: string }, offsetKg: number): Notification {
  return {
    type: "sustainability.carbon_offset",
    data: {
      attendee: { id: attendee.id, firstName: attendee.firstName, lastName: attendee.lastName, email: attendee.email },
      event: eventRef(event),
      carbonOffset: attendee.carbonOffset,
      offsetKg: Math.round(offsetKg * 1000) / 1000,
    },
  };
}

/** `attendee.registered`, and `sustainability.carbon_offset` when the registration carries a contribution. */
export function registrationNotifications(attendee: Attendee, event: { id: string; name: string }, offsetKg: number): Notification[] {
  const notifications: Notification[] = [{ type: "attendee.registered", data: { attendee, event: eventRef(event) } }];
  if (contributes(attendee)) notifications.push(carbonOffsetNotification(attendee, event, offsetKg));
  return notifications;
}

/**
 * `attendee.updated` when a field changed, the status type (`attendee.cancelled`,
 * `attendee.checked_in`) when the status changed to one, and `sustainability.carbon_offset` when
 * the offset changed to a contribution.
 */
export function attendeeUpdateNotifications(before: Attendee, after: Attendee, event: { id: string; name: string }, offsetKg: number): Notification[] {
  const previous = previousValues(before, after);
  if (Object.keys(previous).length === 0) return [];
  const notifications: Notification[] = [{ type: "attendee.updated", data: { attendee: after, event: eventRef(event), previous } }];
  if (before.status !== after.status && after.status in ATTENDEE_STATUS_TYPES) {
    const type = ATTENDEE_STATUS_TYPES[after.status as keyof typeof ATTENDEE_STATUS_TYPES];
    notifications.push({ type, data: { attendee: after, event: eventRef(event), previousStatus: before.status } });
  }
  if ("carbonOffset" in previous && contributes(after)) notifications.push(carbonOffsetNotification(after, event, offsetKg));
  return notifications;
}

/** `attendee.deleted`: the registration was erased. Only ids, so that the notification carries none of the data it erased. */
export function attendeeDeletedNotification(attendee: { id: string; eventId: string }): Notification {
  return { type: "attendee.deleted", data: { attendee: { id: attendee.id, eventId: attendee.eventId } } };
}

/** Whose personal data an erasure removes from stored payloads: one registration, or every registration of a deleted event. */
export type ErasureSubject = { attendeeId: string; eventId: string } | { eventId: string };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

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
  const carries = registration !== null && ("attendeeId" in subject ? registration.id === subject.attendeeId : eventId === subject.eventId);
  const report = envelope.type === "analytics.report_ready" && eventRefOf?.id === subject.eventId;
  if (!carries && !report) return null;
  const data: Record<string, unknown> = {
    ...(registration && { attendee: { id: registration.id, eventId: eventId ?? null } }),
    ...(eventRefOf && { event: eventRefOf }),
    ...(typeof url === "string" && { url }),
  };
  return { ...envelope, data, erasedAt };
}

/** The figures of an event that the derived notifications (goal, threshold, reports) are computed from. */
export interface EventFigures {
  capacity: number;
  /** Registrations by status, all of them (cancelled included). */
  registrations: { total: number; confirmed: number; pending: number; checkedIn: number; cancelled: number };
  /** Confirmed, pending and checked-in. */
  activeRegistrations: number;
  emissionsKg: number;
  offsetUsd: number;
  offsetKg: number;
  travelReported: number;
  lowCarbonTravel: number;
  sustainabilityScore: number;
}

const round = (value: number, digits = 3) => Math.round(value * 10 ** digits) / 10 ** digits;

/** The carbon-neutral goal's metrics (spec 6.2): kg CO2e, and the offset share in percent. */
export function carbonNeutralMetrics(figures: EventFigures) {
  return {
    totalEmissions: round(figures.emissionsKg),
    totalOffset: round(figures.offsetKg),
    percentage: figures.emissionsKg > 0 ? round((figures.offsetKg / figures.emissionsKg) * 100, 1) : 0,
  };
}

/** True when a carbon-neutral event's offsets first cover its travel emissions (there must be some). */
export function isCarbonNeutralAchieved(carbonNeutralGoal: boolean | null | undefined, figures: EventFigures): boolean {
  return Boolean(carbonNeutralGoal) && figures.emissionsKg > 0 && figures.offsetKg >= figures.emissionsKg;
}

/** `sustainability.goal_achieved` for the carbon-neutral goal (spec 6.2 shape). */
export function goalAchievedNotification(event: { id: string; name: string }, figures: EventFigures): Notification {
  return {
    type: "sustainability.goal_achieved",
    data: { event: eventRef(event), goal: { type: "carbon_neutral", achieved: true, metrics: carbonNeutralMetrics(figures) } },
  };
}

/** Active registrations as a percentage of capacity. */
export function capacityUtilization(figures: EventFigures): number {
  return round((figures.activeRegistrations / figures.capacity) * 100, 1);
}

/** `analytics.threshold_exceeded` for capacity utilization. */
export function thresholdNotification(event: { id: string; name: string }, figures: EventFigures): Notification {
  return {
    type: "analytics.threshold_exceeded",
    data: {
      event: eventRef(event),
      metric: "capacity_utilization",
      threshold: CAPACITY_THRESHOLD_PERCENT,
      value: capacityUtilization(figures),
      activeRegistrations: figures.activeRegistrations,
      capacity: figures.capacity,
    },
  };
}

/**
 * `sustainability.report_generated` and `analytics.report_ready`, sent when an event becomes
 * completed: the reports computed from the stored data at that moment, and the address of the
 * event's analytics.
 */
export function completionReports(
  event: { id: string; name: string; sustainabilityGoals: Event["sustainabilityGoals"] },
  figures: EventFigures,
  at: string,
  analyticsUrl: string,
  analyticsReport: EventAnalytics | null,
): Notification[] {
  const emissions = round(figures.emissionsKg);
  const offset = round(figures.offsetKg);
  const sustainability = {
    generatedAt: at,
    emissions: {
      totalKg: emissions,
      offsetKg: offset,
      netKg: round(Math.max(0, figures.emissionsKg - figures.offsetKg)),
      perAttendeeKg: figures.activeRegistrations > 0 ? round(figures.emissionsKg / figures.activeRegistrations) : 0,
      offsetUsd: round(figures.offsetUsd, 2),
    },
    travel: { reported: figures.travelReported, lowCarbon: figures.lowCarbonTravel },
    goals: event.sustainabilityGoals,
    carbonNeutralAchieved: isCarbonNeutralAchieved(event.sustainabilityGoals.carbonNeutral, figures),
    sustainabilityScore: figures.sustainabilityScore,
  };
  return [
    { type: "sustainability.report_generated", data: { event: eventRef(event), report: sustainability, url: analyticsUrl } },
    // The analytics report is the one GET /v1/analytics/events/:id answers, as of the completion.
    ...(analyticsReport
      ? [{ type: "analytics.report_ready" as const, data: { event: eventRef(event), report: { generatedAt: at, ...analyticsReport }, url: analyticsUrl } }]
      : []),
  ];
}
