/**
 * The benchmarks' data set, written through core (as the API would) on any database the
 * server opens: 500 events of 20 registrations each, and an enterprise key whose limits no
 * run reaches. Returns the key, its account and the event in the middle.
 */
import { createEventService, createSqlStorage } from "@event-service/core";
import { openDatabase } from "@event-service/server";

export const SEED_EVENTS = 500;
export const SEED_REGISTRATIONS_PER_EVENT = 20;

/** Seeds `databaseUrl` (a SQLite file or a `postgres://` URL), writing `parallel` events at once. */
export async function seedBenchData(
  databaseUrl: string,
  parallel = 1,
): Promise<{ key: string; accountId: string; eventId: string }> {
  const storage = createSqlStorage({
    db: await openDatabase({ DATABASE_URL: databaseUrl, DATABASE_POOL_SIZE: parallel }),
  });
  try {
    await storage.migrate();
    const service = createEventService({ storage });
    const { key, accountId } = await service.keys.create({
      account: "Bench",
      tier: "enterprise",
      perMinute: 1_000_000,
      perDay: 100_000_000,
    });
    const acme = service.forAccount(accountId);
    const modes = ["car", "train", "bus", "flight", "bike"] as const;
    const ids: string[] = new Array(SEED_EVENTS);
    const seedEvent = async (e: number) => {
      const event = await acme.events.create({
        name: `Event ${e}`,
        description: "Seeded for the benchmark",
        location: { address: "Main St 1", city: "Berlin", country: "DE" },
        startDate: "2038-05-01T09:00:00Z",
        endDate: "2038-05-01T17:00:00Z",
        capacity: 1_000_000,
        category: e % 2 ? "conference" : "meetup",
        tags: ["seed", `t${e % 7}`],
        sustainabilityGoals: { carbonNeutral: e % 3 === 0, wasteReduction: e % 100 },
      });
      ids[e] = event.id;
      for (let a = 0; a < SEED_REGISTRATIONS_PER_EVENT; a++) {
        await acme.attendees.register({
          eventId: event.id,
          firstName: "Ada",
          lastName: `L${a}`,
          email: `seed-${e}-${a}@example.com`,
          ticketType: "general",
          carbonOffset: {
            opted: a % 2 === 0,
            amount: 5,
            travelMode: modes[a % modes.length],
            travelDistance: 100 + a * 10,
          },
        });
      }
    };
    for (let e = 0; e < SEED_EVENTS; e += parallel) {
      await Promise.all(Array.from({ length: Math.min(parallel, SEED_EVENTS - e) }, (_, i) => seedEvent(e + i)));
    }
    return { key, accountId, eventId: ids[SEED_EVENTS / 2]! };
  } finally {
    await storage.close();
  }
}
