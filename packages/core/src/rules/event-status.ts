import { ServiceError } from "../errors.ts";

/** Every status an event can have. A new event is always `draft`. */
export const EVENT_STATUSES = ["draft", "published", "cancelled", "completed"] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];

/**
 * The status changes an event allows: `draft -> published | cancelled`,
 * `published -> completed | cancelled`; `cancelled` and `completed` are final.
 * Setting the current status again is a no-op and always allowed.
 */
export const EVENT_TRANSITIONS: Readonly<Record<EventStatus, readonly EventStatus[]>> = {
  draft: ["published", "cancelled"],
  published: ["completed", "cancelled"],
  cancelled: [],
  completed: [],
};

/** Event statuses that still take registrations. */
export const EVENT_STATUSES_OPEN_FOR_REGISTRATION: readonly EventStatus[] = ["draft", "published"];

/** True when an event may move from `from` to `to` (including staying where it is). */
export function isEventTransitionAllowed(from: EventStatus, to: EventStatus): boolean {
  return from === to || EVENT_TRANSITIONS[from].includes(to);
}

/** Throws `INVALID_STATE_TRANSITION` unless the event may move from `from` to `to`. */
export function assertEventTransition(from: EventStatus, to: EventStatus): void {
  if (isEventTransitionAllowed(from, to)) return;
  const allowed = EVENT_TRANSITIONS[from];
  throw new ServiceError("INVALID_STATE_TRANSITION", {
    message: `An event cannot go from ${from} to ${to}` +
      (allowed.length ? ` (allowed: ${allowed.join(", ")}).` : ` (${from} is final).`),
    field: "status",
    details: { from, to, allowed: [...allowed] },
  });
}
