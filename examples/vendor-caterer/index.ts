/**
 * Vendor coordination through the typed client. The organiser creates an event with a local
 * sourcing goal, records a caterer (where it cooks, its ISO 20121 certification) and books it,
 * asking for its catering data. The caterer, holding nothing but the booking's link (no API
 * key: `createVendorLinkClient` runs in its browser as well), reads the request, confirms it,
 * reports the covers it served by meal type and corrects one count. The organiser then reads the
 * event's vendor shares (local, certified) and the catering line of its footprint. Run a server
 * (`npm start` at the repository root), create a key
 * (`npx event-service keys create --account Acme --json`), then:
 * `EVENT_SERVICE_URL=http://127.0.0.1:3000 EVENT_SERVICE_KEY=esk_… npx tsx index.ts`
 */
import {
  createClient,
  createVendorLinkClient,
  EventServiceError,
  type VendorActivityInput,
  type VendorRequest,
} from "@event-service/client";

const baseUrl = process.env.EVENT_SERVICE_URL ?? "http://127.0.0.1:3000";
const apiKey = process.env.EVENT_SERVICE_KEY ?? "";

/** The caterer's side: its link is all it has. What it saw, and its records once corrected. */
async function caterer(vendorLink: string | null) {
  const link = createVendorLinkClient({ link: vendorLink });
  const request: VendorRequest = await link.get();
  const confirmed = await link.confirm({ message: "Happy to cater: seasonal menu from our Bernau kitchen." });

  // Covers served, by meal type, as the caterer's tills count them.
  const covers: VendorActivityInput[] = [
    { kind: "catering", quantity: 150, unit: "meals", mealType: "meat", dataQuality: "measured" },
    { kind: "catering", quantity: 50, unit: "meals", mealType: "fish", dataQuality: "measured" },
    { kind: "catering", quantity: 200, unit: "meals", mealType: "vegetarian", dataQuality: "measured" },
    { kind: "catering", quantity: 100, unit: "meals", mealType: "vegan", dataQuality: "measured" },
  ];
  for (const record of covers) await link.activities.create(record);

  // The second day's vegan count came in late: 20 more. The caterer finds its record and corrects it.
  const { activities } = await link.activities.list();
  const vegan = activities.find((record) => record.kind === "catering" && record.mealType === "vegan");
  if (!vegan) throw new Error("the vegan covers were not recorded");
  await link.activities.update(vegan.id, { quantity: 120, note: "Both days" });

  const records = [];
  for await (const record of link.activities.listAll())
    records.push({ mealType: record.mealType, quantity: record.quantity, emissionsKg: record.emissionsKg });
  return {
    request: {
      services: request.services,
      dataRequested: request.dataRequested,
      event: request.event.name,
      dataAcceptedUntil: request.dataAcceptedUntil,
    },
    status: confirmed.status,
    records,
  };
}

try {
  const organiser = createClient({ baseUrl, apiKey });
  const event = await organiser.events.create({
    name: "Circular Cities Forum",
    location: {
      address: "Alexanderplatz 1",
      city: "Berlin",
      country: "DE",
      coordinates: { lat: 52.5219, lng: 13.4132 },
    },
    startDate: "2038-06-10T09:00:00+02:00",
    endDate: "2038-06-11T18:00:00+02:00",
    capacity: 300,
    category: "conference",
    sustainabilityGoals: { localSourcing: true },
  });
  await organiser.events.update(event.id, { status: "published" });

  // Some 21 km north-east of the venue: within the default 160 km, so local.
  const greenFork = await organiser.vendors.create({
    name: "Green Fork Catering",
    category: "catering",
    contact: { name: "Mina Okafor", email: "mina@greenfork.example" },
    location: { city: "Bernau bei Berlin", country: "DE", coordinates: { lat: 52.6798, lng: 13.5874 } },
    certifications: [{ scheme: "ISO 20121", reference: "DE-20121-0417", validUntil: "2039-03-31" }],
  });
  const booking = await organiser.bookings.create(event.id, {
    vendorId: greenFork.id,
    services: "Lunch and coffee breaks for 300, both days",
    dataRequested: ["catering"],
  });

  // The organiser sends booking.vendorLink to the caterer (by email, say); here it is handed over.
  const fromCaterer = await caterer(booking.vendorLink);

  const answered = await organiser.bookings.get(event.id, booking.id);
  const { vendors, footprint, sustainability } = await organiser.analytics.event(event.id);
  console.log(
    JSON.stringify(
      {
        event: { id: event.id, name: event.name },
        caterer: fromCaterer,
        booking: { status: answered.status, message: answered.message },
        vendors,
        localSourcingGoal: sustainability.goalProgress.find((goal) => goal.type === "local_sourcing"),
        catering: footprint.byKind.find((line) => line.kind === "catering"),
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
