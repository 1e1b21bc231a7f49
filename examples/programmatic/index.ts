/**
 * Event Service without HTTP: the service object called directly, as a script, a job or
 * another framework's route would. Every failure is a `ServiceError` with the same code as the
 * HTTP error body. Run: `npx tsx index.ts`; it prints a JSON summary and exits.
 */
import { createEventService, createSqlStorage, ServiceError } from "@event-service/core";
import { SQLITE_PRAGMAS } from "@event-service/core/sqlite";
import Database from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";

const sqlite = new Database(":memory:");
for (const pragma of SQLITE_PRAGMAS) sqlite.pragma(pragma);
const storage = createSqlStorage({ db: new Kysely({ dialect: new SqliteDialect({ database: sqlite }) }) });
await storage.migrate();
const service = createEventService({ storage, publicUrl: "https://events.example.com" });

// An account (and its first key) is made the way the CLI makes it; its operations need no key.
const { accountId } = await service.keys.create({ account: "Acme", tier: "starter" });
const acme = service.forAccount(accountId);

const event = await acme.events.create({
  name: "Repair Café",
  location: { address: "Mariahilfer Str. 1", city: "Vienna", country: "AT" },
  startDate: "2038-03-06T10:00:00+01:00",
  endDate: "2038-03-06T16:00:00+01:00",
  capacity: 2,
  category: "workshop",
  sustainabilityGoals: { localSourcing: true, wasteReduction: 80 },
});
await acme.events.update(event.id, { status: "published" });

const ada = await acme.attendees.register({
  eventId: event.id,
  firstName: "Ada",
  lastName: "Lovelace",
  email: "ada@example.com",
  ticketType: "general",
  carbonOffset: { opted: true, amount: 3, travelMode: "train", travelDistance: 120 },
});
await acme.attendees.register({
  eventId: event.id,
  firstName: "Grace",
  lastName: "Hopper",
  email: "grace@example.com",
  ticketType: "general",
  carbonOffset: { opted: false, travelMode: "bike", travelDistance: 4 },
});

// The event is full now: the third registration is refused with the API's own error code.
let refused: string | undefined;
try {
  await acme.attendees.register({
    eventId: event.id,
    firstName: "Alan",
    lastName: "Turing",
    email: "alan@example.com",
    ticketType: "general",
  });
} catch (error) {
  if (!ServiceError.is(error)) throw error;
  refused = error.code;
}

const checkedIn = await acme.events.checkIn(event.id, { confirmationCode: ada.confirmationCode });
const report = await acme.analytics.event(event.id);

console.log(
  JSON.stringify(
    {
      event: event.id,
      qrCode: ada.qrCode,
      refused,
      checkedIn: checkedIn.status,
      attendance: report.attendance,
      carbonFootprintKg: report.sustainability.carbonFootprintKg,
    },
    null,
    2,
  ),
);
await storage.close();
