/**
 * A festival's whole footprint through the typed client: the generators' diesel, the catering
 * (meals by type) and the waste (kg by stream) recorded as activities beside two attendees'
 * travel; then the footprint by kind and by GHG Protocol scope, the waste diversion rate, and the
 * printable sustainability report saved as HTML (open it in a browser, print it to PDF). Run a
 * server (`npm start` at the repository root), create a key
 * (`npx event-service keys create --account Acme --json`), then:
 * `EVENT_SERVICE_URL=http://127.0.0.1:3000 EVENT_SERVICE_KEY=esk_… npx tsx index.ts`
 * (`REPORT_FILE` names the HTML file; default festival-report.html in the current folder).
 */
import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { type ActivityInput, createClient, EventServiceError } from "@event-service/client";

const baseUrl = process.env.EVENT_SERVICE_URL ?? "http://127.0.0.1:3000";
const apiKey = process.env.EVENT_SERVICE_KEY ?? "";
const reportFile = resolve(process.env.REPORT_FILE ?? "festival-report.html");
const client = createClient({ baseUrl, apiKey });

/** What the festival burned, served and threw away: each record a quantity of one kind in its unit. */
const activities: ActivityInput[] = [
  // Generators: diesel in litres, as the fuel invoices give it.
  { kind: "fuel", quantity: 1_200, unit: "litres", fuel: "diesel", note: "Generators, main stage" },
  { kind: "fuel", quantity: 400, unit: "litres", fuel: "diesel", note: "Generators, second stage" },
  // Catering: meals by type, counted by the traders (estimates, until the tills are read).
  { kind: "catering", quantity: 800, unit: "meals", mealType: "meat", dataQuality: "estimated" },
  { kind: "catering", quantity: 200, unit: "meals", mealType: "fish", dataQuality: "estimated" },
  { kind: "catering", quantity: 700, unit: "meals", mealType: "vegetarian", dataQuality: "estimated" },
  { kind: "catering", quantity: 300, unit: "meals", mealType: "vegan", dataQuality: "estimated" },
  // Waste: kg by stream from the contractor's weighbridge tickets, by material where known.
  { kind: "waste", quantity: 1_500, unit: "kg", stream: "landfill", note: "General waste" },
  { kind: "waste", quantity: 1_000, unit: "kg", stream: "recycling", material: "glass" },
  { kind: "waste", quantity: 500, unit: "kg", stream: "recycling", material: "plastic" },
  { kind: "waste", quantity: 1_000, unit: "kg", stream: "composting", material: "food" },
];

try {
  const event = await client.events.create({
    name: "Meadow Sounds Festival",
    location: { address: "Home Farm", city: "Stroud", country: "GB" },
    startDate: "2038-07-16T12:00:00+01:00",
    endDate: "2038-07-18T23:00:00+01:00",
    capacity: 2_000,
    category: "festival",
    sustainabilityGoals: { carbonNeutral: true, wasteReduction: 50 },
  });
  await client.events.update(event.id, { status: "published" });

  for (const [firstName, travelMode, travelDistance] of [
    ["Ada", "train", 300],
    ["Grace", "car", 80],
  ] as const) {
    await client.attendees.register({
      eventId: event.id,
      firstName,
      lastName: "Festivalgoer",
      email: `${firstName.toLowerCase()}@example.com`,
      ticketType: "weekend",
      carbonOffset: { opted: false, travelMode, travelDistance },
    });
  }
  for (const activity of activities) await client.activities.create(event.id, activity);

  const { footprint, sustainability } = await client.analytics.event(event.id);

  // The printable report: the same figures as a page with inline SVG charts, loading nothing
  // from another origin (client.events.sustainabilityReport gives its JSON).
  await writeFile(reportFile, await client.events.sustainabilityReportPage(event.id));

  console.log(
    JSON.stringify(
      {
        event: { id: event.id, name: event.name },
        footprint: {
          totalEmissionsKg: footprint.totalEmissionsKg,
          byKind: footprint.byKind,
          byScope: footprint.byScope,
          measuredSharePercent: footprint.measuredSharePercent,
        },
        waste: {
          measuredWasteKg: sustainability.resources.measuredWasteKg,
          diversionRatePercent: sustainability.resources.diversionRatePercent,
          recyclingRatePercent: sustainability.resources.recyclingRatePercent,
          wasteReductionGoal: sustainability.goalProgress.find((goal) => goal.type === "waste_reduction"),
        },
        report: reportFile,
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
