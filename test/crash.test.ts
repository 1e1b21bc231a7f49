/**
 * End-to-end: a server killed with SIGKILL in the middle of a burst of registrations, on each
 * backend. No shutdown runs: whatever was committed is all there is. A new server on the same
 * database then holds every registration that was answered 201 (and perhaps some that were
 * committed but never answered, nothing else), the event's kept figures equal a recount from
 * its registrations, and its delivery worker notifies every stored registration at least once
 * (the dead worker's leased deliveries included) and nothing that was not stored.
 */
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { DELIVERY_LEASE_MARGIN_MS } from "../packages/core/src/webhooks/attempt-delivery.ts";
import { type ApiResponse, queryDatabase, startServer, type TestServer } from "./_setup.ts";
import { type Client, clientFor, createEvent, expectStatus } from "./fixtures/api.ts";
import { BACKENDS } from "./fixtures/backends.ts";
import { attendeeInput } from "./fixtures/builders.ts";
import { makeCertificate } from "./fixtures/conventions.ts";
import { type Answer, deliveryEnv, type Received, type Receiver, startReceiver } from "./fixtures/receiver.ts";

/** Registrations sent, how many are in flight at a time, and the number of 201 answers after which the server is killed. */
const BURST = 120;
const IN_FLIGHT = 20;
const KILL_AFTER_CREATED = 30;

/**
 * The README's carbon model (UK Government GHG Conversion Factors 2023), kg CO2e per km, for
 * the modes the burst uses; flights stay within the domestic band (up to 500 km).
 */
const FACTORS = { car: 0.16844, train: 0.03546, bus: 0.10231, flight: 0.27257, bike: 0 } as const;
const MODES = Object.keys(FACTORS) as Array<keyof typeof FACTORS>;
const LOW_CARBON = new Set(["train", "bus", "bike", "walk"]);
/** The default offset price, USD per tonne. */
const OFFSET_USD_PER_TONNE = 15;

/** Travel and offset of the burst's i-th registration: distances in hundreds of km keep every trip's kg at 3 decimals. */
function carbonOffsetOf(i: number) {
  return {
    opted: i % 3 === 0,
    amount: i % 3 === 0 ? 1 + (i % 4) : 0,
    travelMode: MODES[i % MODES.length]!,
    travelDistance: 100 * (1 + (i % 5)),
  };
}

/** The event's three figures recounted from its registrations, as the API docs define them. */
function recount(registrations: any[]) {
  const active = registrations.filter((a) => ["confirmed", "pending", "checked-in"].includes(a.status));
  let emissions = 0;
  let offsetKg = 0;
  let reported = 0;
  let low = 0;
  for (const { carbonOffset } of active) {
    if (carbonOffset?.travelMode) {
      reported += 1;
      if (LOW_CARBON.has(carbonOffset.travelMode)) low += 1;
      emissions += (carbonOffset.travelDistance ?? 0) * FACTORS[carbonOffset.travelMode as keyof typeof FACTORS];
    }
    if (carbonOffset?.opted) offsetKg += ((carbonOffset.amount ?? 0) / OFFSET_USD_PER_TONNE) * 1000;
  }
  // No sustainability goals: the score is the travel part and the offset part only.
  let score = 0;
  if (reported > 0) score += (20 * low) / reported;
  if (emissions > 0) score += 20 * Math.min(1, offsetKg / emissions);
  else if (reported > 0) score += 20;
  return {
    attendeeCount: active.length,
    carbonFootprint: Math.round(emissions * 1000) / 1000,
    sustainabilityScore: Math.round(score * 10) / 10,
  };
}

/** Every registration of an event, through the paginated list. */
async function allRegistrations(client: Client, eventId: string): Promise<any[]> {
  const all: any[] = [];
  for (let page = 1; ; page++) {
    const body = expectStatus(await client.get(`/attendees?eventId=${eventId}&limit=100&page=${page}`), 200);
    all.push(...body.attendees);
    if (page >= body.pagination.totalPages) return all;
  }
}

/** The registration ids of the `attendee.registered` notifications among `requests`. */
const registeredIn = (requests: Received[]) =>
  new Set(requests.filter((r) => r.body.type === "attendee.registered").map((r) => r.body.data.attendee.id as string));

let tls: ReturnType<typeof makeCertificate>;
let receiver: Receiver;

/** How each case's receiver path answers (the cases run side by side on one receiver). */
const answers = new Map<string, (request: Received) => Answer>();

before(async () => {
  tls = makeCertificate();
  receiver = await startReceiver({ cert: tls.cert, key: readFileSync(tls.keyPath, "utf8") });
  receiver.answer = (request) => answers.get(request.path)?.(request) ?? { status: 200 };
});

after(async () => {
  await receiver.close();
  rmSync(tls.dir, { recursive: true, force: true });
});

// The backends run side by side when the file runs alone: each case spends most of its time on
// its servers and the deliveries.
describe("SIGKILL in the middle of a burst of registrations, then a restart on the same database", {
  concurrency: true,
}, () => {
  for (const backend of BACKENDS) {
    test(`on ${backend.name}: every 201 is stored, the figures equal a recount, every stored registration is notified, nothing else`, {
      skip: backend.skip,
    }, async (t) => {
      const { database, drop } = await backend.fresh();
      // Attempts the receiver holds unanswered must not time out (and be retried) before the
      // kill: the burst takes a few seconds on a loaded machine. The lease is this plus 30 s.
      const env = deliveryEnv(tls.certPath, { WEBHOOK_TIMEOUT_MS: "10000" });
      const servers: TestServer[] = [];
      try {
        const first = await startServer({ database, env });
        servers.push(first);
        const { key } = await first.createKey({ account: `Crash ${backend.name}`, tier: "enterprise" });
        const client = clientFor(first, key);
        const path = `/crash/${backend.name}`;
        // Until the kill, every other attempt is held unanswered: the first worker dies holding
        // leases on deliveries whose attempts never completed. Only a 200 counts as notified.
        let alive = true;
        let held = 0;
        const acknowledged: Received[] = [];
        answers.set(path, (request) => {
          if (alive && held++ % 2 === 1) return "hang";
          acknowledged.push(request);
          return { status: 200 };
        });
        expectStatus(await client.post("/webhooks", { url: `${receiver.origin}${path}`, events: ["*"] }), 201);
        const event = await createEvent(client, { capacity: 10_000 });

        const inputs = Array.from({ length: BURST }, (_, i) =>
          attendeeInput(event.id, { email: `crash-${backend.name}-${i}@example.com`, carbonOffset: carbonOffsetOf(i) }),
        );
        let createdCount = 0;
        let killed: Promise<number | null> | undefined;
        // Sent by IN_FLIGHT at a time, each as the one before it is answered: the kill then always
        // finds registrations unsent (all 120 at once, one event's registrations committed together
        // were all answered before the kill took effect, once in a fresh-clone CI).
        const outcomes: Array<ApiResponse | Error> = [];
        let next = 0;
        const send = async (): Promise<void> => {
          for (let i = next++; i < inputs.length; i = next++) {
            try {
              const response = await first.request("POST", "/v1/attendees", { key, body: inputs[i] });
              if (response.status === 201 && ++createdCount === KILL_AFTER_CREATED) {
                killed = first.stop("SIGKILL");
                void killed.then(() => (alive = false));
              }
              outcomes[i] = response;
            } catch (error) {
              outcomes[i] = error as Error;
            }
          }
        };
        await Promise.all(Array.from({ length: IN_FLIGHT }, send));
        assert.ok(
          killed,
          `the server was killed after ${KILL_AFTER_CREATED} registrations (${createdCount} answered 201)`,
        );
        assert.equal(await killed, null, "killed by a signal, no exit code");

        const answered = outcomes.filter((o): o is ApiResponse => !(o instanceof Error));
        const created = answered.filter((r) => r.status === 201).map((r) => r.body);
        // Only 201s or no answer: the burst fits capacity and rate limits, and a kill cuts connections.
        assert.deepEqual(
          answered.filter((r) => r.status !== 201).map((r) => r.status),
          [],
        );
        for (const failure of outcomes.filter((o): o is Error => o instanceof Error)) {
          assert.match(
            `${failure.message} ${(failure as any).cause?.code ?? (failure as any).cause?.message ?? ""}`,
            /fetch failed|ECONNRESET|ECONNREFUSED|EPIPE|socket|closed|terminated/i,
          );
        }
        assert.ok(
          created.length >= KILL_AFTER_CREATED && created.length < BURST,
          `${created.length} of ${BURST} answered 201 before the kill`,
        );

        const notifiedBeforeKill = registeredIn(acknowledged).size;
        const heldAtKill = held;
        // The dead worker's leases would run out by themselves, each its attempt timeout plus
        // core's margin after its claim: some 40 s of waiting here. They are checked to be what
        // the worker wrote (its id, ending within that time of the kill), then ended by hand, as
        // the clock would end them; the restarted worker then takes those deliveries up.
        const killedAt = Date.now();
        const leases = await queryDatabase<{ lease_owner: string | null; lease_until: string }>(
          database,
          "SELECT lease_owner, lease_until FROM webhook_deliveries WHERE status = 'pending' AND lease_until IS NOT NULL",
        );
        for (const lease of leases) {
          assert.ok(lease.lease_owner, `a lease until ${lease.lease_until} names its worker`);
          assert.ok(
            Date.parse(lease.lease_until) <= killedAt + Number(env.WEBHOOK_TIMEOUT_MS) + DELIVERY_LEASE_MARGIN_MS,
            `a lease until ${lease.lease_until}, killed at ${new Date(killedAt).toISOString()}`,
          );
        }
        await queryDatabase(
          database,
          "UPDATE webhook_deliveries SET lease_until = ? WHERE status = 'pending' AND lease_until IS NOT NULL",
          [new Date(killedAt).toISOString()],
        );
        const second = await startServer({ database, env });
        servers.push(second);
        const after = clientFor(second, key);
        for (const registration of created) {
          const stored = expectStatus(await after.get(`/attendees/${registration.id}`), 200);
          assert.deepEqual(
            [stored.email, stored.confirmationCode, stored.status, stored.carbonOffset],
            [registration.email, registration.confirmationCode, registration.status, registration.carbonOffset],
          );
        }
        const stored = await allRegistrations(after, event.id);
        const storedIds = new Set(stored.map((a) => a.id));
        assert.equal(storedIds.size, stored.length);
        for (const registration of created)
          assert.ok(storedIds.has(registration.id), `201 ${registration.id} is stored`);
        // Stored beyond the 201s: only registrations of the burst, committed before the kill but never answered.
        const sent = new Set(inputs.map((input) => input.email));
        for (const registration of stored) assert.ok(sent.has(registration.email), `${registration.email} was sent`);
        assert.ok(stored.length <= BURST);

        const figures = expectStatus(await after.get(`/events/${event.id}`), 200);
        const expected = recount(stored);
        assert.equal(expected.attendeeCount, stored.length);
        assert.deepEqual(
          {
            attendeeCount: figures.attendeeCount,
            carbonFootprint: figures.carbonFootprint,
            sustainabilityScore: figures.sustainabilityScore,
          },
          expected,
        );

        // Every stored registration is notified (answered 200) at least once, by the first worker
        // before the kill or by the restarted one, which takes up the dead worker's deliveries
        // once their leases have run out (ended by hand above).
        await receiver.waitFor(
          () => stored.every((a) => registeredIn(acknowledged).has(a.id)),
          `attendee.registered for all ${stored.length} stored registrations`,
          90_000,
        );
        for (const request of receiver.at(path).filter((r) => r.body.type === "attendee.registered")) {
          assert.ok(
            storedIds.has(request.body.data.attendee.id),
            `notified ${request.body.data.attendee.id} is stored`,
          );
          assert.equal(request.body.data.event.id, event.id);
        }
        assert.deepEqual([...registeredIn(acknowledged)].sort(), [...storedIds].sort());
        t.diagnostic(
          `${created.length} answered 201, ${stored.length} stored; ${notifiedBeforeKill} notified before the kill, ${heldAtKill} attempts received before it, ${leases.length} leases left by the dead worker`,
        );
        assert.doesNotMatch(second.output(), /"msg":"unexpected error"/);
      } finally {
        for (const server of servers) await server.stop("SIGKILL");
        await drop();
      }
    });
  }
});
