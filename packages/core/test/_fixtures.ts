import type { EventCreateInput } from "../src/resources/event.ts";

/** A valid event for the service's `events.create`, in 2038 (a draft with 10 places). */
export const EVENT: EventCreateInput = {
  name: "Green Summit",
  location: { address: "Alexanderplatz 1", city: "Berlin", country: "DE" },
  startDate: "2038-05-01T09:00:00.000Z",
  endDate: "2038-05-01T17:00:00.000Z",
  capacity: 10,
  category: "conference",
};

/** A request to a handler: JSON `body` when given, the API key as a bearer token, and `headers` on top. */
export function apiRequest(
  method: string,
  url: string,
  key: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Request {
  return new Request(url, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body !== undefined && { "content-type": "application/json" }),
      ...headers,
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
}
