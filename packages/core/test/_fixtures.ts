import type { EventCreateInput } from "../src/resources/event.ts";

/** A valid event for the service's `events.create`, in 2027 (a draft with 10 places). */
export const EVENT: EventCreateInput = {
  name: "Green Summit",
  location: { address: "Alexanderplatz 1", city: "Berlin", country: "DE" },
  startDate: "2027-05-01T09:00:00.000Z",
  endDate: "2027-05-01T17:00:00.000Z",
  capacity: 10,
  category: "conference",
};
