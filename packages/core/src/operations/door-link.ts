import { Door, DoorScan, DoorScanInput, DoorSearch, DoorSearchQuery, OfflineList } from "../resources/check-in-link.ts";
import { doorOperation } from "./context.ts";

/** What a door does through its check-in link (no API key: the token in the path opens one event's door). */
export const DOOR_LINK_OPERATIONS = [
  doorOperation({
    id: "door.view",
    client: "door.get",
    method: "GET",
    path: "/check-in/:token",
    tag: "Check-in link",
    operationId: "getDoor",
    summary: "The door's event, its label, whether the door is open, and how many of the admitted are checked in",
    response: {
      status: 200,
      schema: Door,
      name: "Door",
      description: "The door (JSON unless the request's Accept prefers text/html)",
      jsonToo: true,
      media: {
        "text/html":
          "The door's check-in page (docs/api.md, Door page): its forms post to this URL; it loads nothing from another origin.",
      },
    },
    errors: ["NOT_FOUND"],
    run: (door) => door.view(),
  }),
  doorOperation({
    id: "door.scan",
    method: "POST",
    path: "/check-in/:token/scan",
    tag: "Check-in link",
    operationId: "scanAtDoor",
    summary:
      "Scan a ticket (its confirmation code or QR content): always 200 for a person's code, `result` saying what it came to",
    body: DoorScanInput,
    example: () => ({ code: "EVT-7KQ2-M9XH" }),
    response: { status: 200, schema: DoorScan, name: "DoorScan", description: "What the scan came to" },
    errors: ["INVALID_REQUEST", "NOT_FOUND"],
    run: (door, { body }) => door.scan(body),
  }),
  doorOperation({
    id: "door.undo",
    method: "DELETE",
    path: "/check-in/:token/scan/:attendeeId",
    tag: "Check-in link",
    operationId: "undoDoorScan",
    summary: "Undo a check-in of the door's event: the registration goes back to confirmed",
    response: { status: 200, schema: DoorScan, name: "DoorScan", description: '`result: "undone"`' },
    errors: ["NOT_FOUND", "INVALID_STATE_TRANSITION"],
    run: (door, { params }) => door.undo(params.attendeeId),
  }),
  doorOperation({
    id: "door.search",
    method: "GET",
    path: "/check-in/:token/attendees",
    tag: "Check-in link",
    operationId: "searchAtDoor",
    summary: "The event's registrations whose name holds `search` (2 characters at least), at most 20, never an email",
    query: DoorSearchQuery,
    response: { status: 200, schema: DoorSearch, name: "DoorSearch", description: "The registrations found" },
    errors: ["INVALID_REQUEST", "NOT_FOUND"],
    run: (door, { query }) => door.search(query),
  }),
  doorOperation({
    id: "door.offlineList",
    method: "GET",
    path: "/check-in/:token/offline-list",
    tag: "Check-in link",
    operationId: "getOfflineList",
    summary: "Every registration of the event as an offline door decides from it: codes as hashes, names, statuses",
    response: { status: 200, schema: OfflineList, name: "OfflineList", description: "The door list" },
    errors: ["NOT_FOUND"],
    run: (door) => door.offlineList(),
  }),
];
