import type { DoorResult } from "../resources/check-in-link.ts";

/**
 * What a door shows for each scan's result, and its colour: shared by the page the server draws
 * and the page's script, so a scan reads the same with JavaScript on or off.
 */
export const DOOR_RESULT_WORDS: Readonly<Record<DoorResult, string>> = {
  checked_in: "Checked in",
  already_checked_in: "Already checked in",
  not_found: "Not found",
  wrong_event: "For another event",
  cancelled: "Cancelled",
  payment_required: "Payment required",
  not_admitted: "Not admitted",
  event_not_open: "Event not open",
};

/** Green lets the person in, amber says they are in already, red stops them. */
export type DoorTone = "ok" | "warn" | "stop";

export function doorToneOf(result: DoorResult): DoorTone {
  if (result === "checked_in") return "ok";
  if (result === "already_checked_in") return "warn";
  return "stop";
}

/** The words shown for a result: "For another event" names that event; "Already checked in" says when. */
export function doorResultText(result: DoorResult, detail: { eventName?: string; at?: string }): string {
  if (result === "wrong_event" && detail.eventName !== undefined) return `For another event: ${detail.eventName}`;
  if (result === "already_checked_in" && detail.at !== undefined) return `Already checked in at ${detail.at}`;
  return DOOR_RESULT_WORDS[result];
}
