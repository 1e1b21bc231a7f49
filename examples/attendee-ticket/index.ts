/**
 * The attendee's ticket link through the typed client. The organiser creates a free event with
 * one place and a waiting list; two people register, and each registration's create answer
 * carries its `ticketUrl`, the attendee's only credential (no API key: `createTicketLinkClient`
 * runs in the attendee's browser as well, and the same URL opened in a browser is the
 * attendee's ticket page). The first reads their ticket, switches their travel from the car to
 * the train, opts to offset it, tells their diet, adds the event to a calendar and cancels; the
 * second, next in line, is promoted. The organiser watches the travel footprint move and
 * replaces the second attendee's link, after which the old one answers 404. Run a server
 * (`npm start` at the repository root), create a key
 * (`npx event-service keys create --account Acme --json`), then:
 * `EVENT_SERVICE_URL=http://127.0.0.1:3000 EVENT_SERVICE_KEY=esk_… npx tsx index.ts`
 */
import { createClient, createTicketLinkClient, EventServiceError, type Ticket } from "@event-service/client";

const baseUrl = process.env.EVENT_SERVICE_URL ?? "http://127.0.0.1:3000";
const apiKey = process.env.EVENT_SERVICE_KEY ?? "";

/** What an attendee sees of their place (the link itself is never printed: it is theirs alone). */
const place = ({ attendee }: Ticket) => ({
  status: attendee.status,
  confirmationCode: attendee.confirmationCode,
  qrCode: attendee.qrCode,
  waitlistPosition: attendee.waitlistPosition,
});

try {
  const organiser = createClient({ baseUrl, apiKey });
  const event = await organiser.events.create({
    name: "Repair Café Evening",
    location: { address: "Oranienstraße 25", city: "Berlin", country: "DE", zipCode: "10999" },
    startDate: "2038-09-15T18:00:00+02:00",
    endDate: "2038-09-15T21:00:00+02:00",
    timeZone: "Europe/Berlin",
    capacity: 1,
    waitlistEnabled: true,
    category: "workshop",
  });
  await organiser.events.update(event.id, { status: "published" });

  /** The travel line of the event's footprint, as the organiser's analytics show it. */
  const travel = async () => {
    const { footprint } = await organiser.analytics.event(event.id);
    return footprint.byKind.find((line) => line.kind === "attendee_travel");
  };

  const ada = await organiser.attendees.register({
    eventId: event.id,
    firstName: "Ada",
    lastName: "Lovelace",
    email: "ada@example.com",
    ticketType: "general",
    carbonOffset: { travelMode: "car", travelDistance: 240 },
  });
  // The one place is taken: Grace waits, and counts in no figure until she has a place.
  const grace = await organiser.attendees.register({
    eventId: event.id,
    firstName: "Grace",
    lastName: "Hopper",
    email: "grace@example.com",
    ticketType: "general",
    carbonOffset: { travelMode: "bus", travelDistance: 60 },
  });
  const footprint = { registered: await travel() };

  // The organiser sends each ticketUrl to its attendee (by email, say); here they are handed over.
  const adaTicket = createTicketLinkClient(ada.ticketUrl);
  const graceTicket = createTicketLinkClient(grace.ticketUrl);
  const adaRegistered = await adaTicket.get();
  const graceWaiting = await graceTicket.get();

  // Ada takes the train instead of the car, offsets it, and asks for a vegan meal.
  const changed = await adaTicket.update({
    dietaryPreferences: ["vegan"],
    carbonOffset: { travelMode: "train", travelDistance: 240, opted: true },
  });
  const travelChanged = await travel();

  // The .ics file to add to a calendar, its lines ending in CRLF.
  const calendar = (await adaTicket.calendar())
    .split("\r\n")
    .filter((line) => line.startsWith("SUMMARY:") || line.startsWith("DTSTART:"));

  // Ada cannot come after all; her place goes to the first in line.
  const adaCancelled = await adaTicket.cancel();
  const gracePromoted = await graceTicket.get();
  const afterPromotion = await travel();

  // Grace lost the email with her link: the organiser makes her a new one, and the old one
  // stops working at once.
  const renewed = await organiser.attendees.ticketLink(grace.id);
  let oldLink: { status: number; code: string } | null = null;
  try {
    await graceTicket.get();
  } catch (error) {
    if (!EventServiceError.is(error) || error.code !== "NOT_FOUND") throw error;
    oldLink = { status: error.status, code: error.code };
  }
  const graceRenewed = await createTicketLinkClient(renewed.ticketUrl).get();

  console.log(
    JSON.stringify(
      {
        event: { id: event.id, name: event.name, capacity: event.capacity },
        ada: {
          id: ada.id,
          registered: place(adaRegistered),
          changed: {
            dietaryPreferences: changed.attendee.dietaryPreferences,
            carbonOffset: changed.attendee.carbonOffset,
          },
          calendar,
          cancelled: place(adaCancelled),
        },
        grace: {
          id: grace.id,
          waiting: place(graceWaiting),
          promoted: place(gracePromoted),
          oldLink,
          newLink: place(graceRenewed),
        },
        travelFootprint: { ...footprint, travelChanged, afterPromotion },
      },
      null,
      2,
    ),
  );
} catch (error) {
  if (!EventServiceError.is(error)) throw error;
  console.error(`${error.status} ${error.code}: ${error.message}`);
  process.exitCode = 1;
}
