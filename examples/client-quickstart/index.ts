/**
 * The typed client against a running server: create an event, register attendees, check one
 * in, print the event's analytics. Run a server (`npm start` at the repository root), create a
 * key (`npx event-service keys create --account Acme --json`), then:
 * `EVENT_SERVICE_URL=http://127.0.0.1:3000 EVENT_SERVICE_KEY=esk_… npx tsx index.ts`
 */
import { createClient, EventServiceError } from "@event-service/client";

const client = createClient({
  baseUrl: process.env.EVENT_SERVICE_URL ?? "http://127.0.0.1:3000",
  apiKey: process.env.EVENT_SERVICE_KEY ?? "",
});

try {
  const event = await client.events.create({
    name: "Green Summit",
    location: { address: "Alexanderplatz 1", city: "Berlin", country: "DE" },
    startDate: "2038-05-01T09:00:00+02:00",
    endDate: "2038-05-01T17:00:00+02:00",
    capacity: 100,
    category: "conference",
    sustainabilityGoals: { carbonNeutral: true, renewableEnergy: true },
  });
  await client.events.update(event.id, { status: "published" });

  const people = [
    { firstName: "Ada", lastName: "Lovelace", travelMode: "train", travelDistance: 420, amount: 12 },
    { firstName: "Grace", lastName: "Hopper", travelMode: "flight", travelDistance: 1200, amount: 40 },
    { firstName: "Alan", lastName: "Turing", travelMode: "bike", travelDistance: 6, amount: 0 },
  ] as const;
  const registered = [];
  for (const person of people) {
    registered.push(
      await client.attendees.register({
        eventId: event.id,
        firstName: person.firstName,
        lastName: person.lastName,
        email: `${person.firstName.toLowerCase()}@example.com`,
        ticketType: "general",
        carbonOffset: {
          opted: person.amount > 0,
          amount: person.amount,
          travelMode: person.travelMode,
          travelDistance: person.travelDistance,
        },
      }),
    );
  }

  // At the door: the QR code holds the confirmation code.
  const checkedIn = await client.events.checkIn(event.id, { confirmationCode: registered[0]!.confirmationCode });

  const analytics = await client.analytics.event(event.id);
  console.log(
    JSON.stringify(
      {
        event: { id: event.id, name: event.name },
        checkedIn: { id: checkedIn.id, status: checkedIn.status },
        attendance: analytics.attendance,
        sustainability: {
          carbonFootprintKg: analytics.sustainability.carbonFootprintKg,
          offsetKg: analytics.sustainability.offsetKg,
          netEmissionsKg: analytics.sustainability.netEmissionsKg,
          sustainabilityScore: analytics.sustainability.sustainabilityScore,
        },
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
