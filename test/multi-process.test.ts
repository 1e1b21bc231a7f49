/**
 * Two server processes on one database, on SQLite and on PostgreSQL: the guards that keep
 * capacity, duplicates, rate limits and webhook delivery hold across processes, not just
 * inside one. Requests are split between the processes and sent at once; both run their
 * delivery worker.
 */
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { type ApiResponse, errorOf, startServer, type TestServer } from "./_setup.ts";
import { type Client, clientFor, createEvent, expectError, expectStatus } from "./fixtures/api.ts";
import { BACKENDS, type FreshDatabase } from "./fixtures/backends.ts";
import { attendeeInput, eventInput } from "./fixtures/builders.ts";
import { makeCertificate, minuteEnd, sleep, tally, waitForMinuteRoom } from "./fixtures/conventions.ts";
import { deliveryEnv, type Receiver, startReceiver } from "./fixtures/receiver.ts";

let tls: ReturnType<typeof makeCertificate>;
let receiver: Receiver;

before(async () => {
  tls = makeCertificate();
  receiver = await startReceiver({ cert: tls.cert, key: readFileSync(tls.keyPath, "utf8") });
});

after(async () => {
  await receiver.close();
  rmSync(tls.dir, { recursive: true, force: true });
});

/** The rate-limit headers' remaining count. */
const remaining = (response: ApiResponse) => Number(response.headers.get("x-ratelimit-remaining"));

// The backends run side by side (each on its own database, receiver path and accounts).
describe("two server processes sharing one database", { concurrency: true }, () => {
  for (const backend of BACKENDS) {
    // One case after the other: each counts what reaches the database and the receiver.
    describe(`on ${backend.name}`, { skip: backend.skip, concurrency: 1 }, () => {
      let fresh: FreshDatabase;
      let a: TestServer;
      let b: TestServer;
      let key: string;

      before(async () => {
        fresh = await backend.fresh();
        // A long attempt timeout: on a loaded machine many first TLS handshakes at once can take
        // over a second, and a timed-out attempt is rightly retried: a second receipt that is not a race.
        const env = deliveryEnv(tls.certPath, { WEBHOOK_TIMEOUT_MS: "15000" });
        // One after the other: the second joins a database the first has created and migrated.
        a = await startServer({ database: fresh.database, env });
        b = await startServer({ database: fresh.database, env });
        key = (await a.createKey({ account: `Shared ${backend.name}` })).key;
      });
      after(async () => {
        const outputs = a.output() + b.output();
        const codes = [await b?.stop(), await a?.stop()];
        await fresh?.drop();
        assert.deepEqual(codes, [0, 0], "both servers exit 0 on SIGTERM");
        assert.doesNotMatch(outputs, /"msg":"unexpected error"/);
      });

      test("50 concurrent registrations split over both processes fill capacity 20 exactly", async () => {
        const event = await a.request("POST", "/v1/events", { key, body: eventInput({ capacity: 20 }) });
        assert.equal(event.status, 201);
        const eventId = event.body.id as string;
        const responses = await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            (i % 2 ? a : b).request("POST", "/v1/attendees", { key, body: attendeeInput(eventId) }),
          ),
        );
        assert.deepEqual(tally(responses), { "201": 20, "400 EVENT_FULL": 30 });
        const listed = await b.request("GET", `/v1/attendees?eventId=${eventId}&limit=100`, { key });
        assert.equal(listed.body.pagination.total, 20);
        assert.deepEqual(
          listed.body.attendees.map((x: any) => x.id).sort(),
          responses
            .filter((r) => r.status === 201)
            .map((r) => r.body.id)
            .sort(),
        );
        assert.equal((await a.request("GET", `/v1/events/${eventId}`, { key })).body.attendeeCount, 20);
        assert.equal((await b.request("GET", `/v1/events/${eventId}`, { key })).body.attendeeCount, 20);
        // The per-event report's counts, kept by both processes' transactions.
        const report = (await a.request("GET", `/v1/analytics/events/${eventId}`, { key })).body;
        assert.deepEqual([report.attendance.registered, report.attendance.confirmed], [20, 20]);
        assert.equal(
          report.demographics.ticketTypes.reduce((sum: number, t: { count: number }) => sum + t.count, 0),
          20,
        );
      });

      test("the same email registered through both processes at once is accepted once", async () => {
        const event = await b.request("POST", "/v1/events", { key, body: eventInput({ capacity: 100 }) });
        const eventId = event.body.id as string;
        const responses = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            (i % 2 ? a : b).request("POST", "/api/attendees", {
              key,
              body: attendeeInput(eventId, { email: i % 3 ? "Same@Example.com" : "same@example.COM" }),
            }),
          ),
        );
        assert.deepEqual(responses.map((r) => r.status).sort(), [201, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
        for (const r of responses.filter((r) => r.status === 409))
          assert.equal(errorOf(r).code, "DUPLICATE_REGISTRATION");
        assert.equal((await a.request("GET", `/v1/events/${eventId}`, { key })).body.attendeeCount, 1);
      });

      test("a ticket drop through both processes: 120 at once for 30 places and a waiting list, repeated emails and keyed retries; exactly 30 admitted, the line 1..N once each", async () => {
        const event = await a.request("POST", "/v1/events", {
          key,
          body: eventInput({ capacity: 30, waitlistEnabled: true }),
        });
        const eventId = event.body.id as string;
        // Every tenth buyer sends the email of the one before; every fifth sends an Idempotency-Key.
        const email = (i: number) => `drop-${i % 10 === 9 ? i - 1 : i}@example.com`;
        const bodies = Array.from({ length: 120 }, (_, i) => attendeeInput(eventId, { email: email(i) }));
        const send = (i: number) =>
          (i % 2 ? a : b).request("POST", "/v1/attendees", {
            key,
            body: bodies[i],
            ...(i % 5 === 0 && { headers: { "idempotency-key": `drop-${eventId}-${i}` } }),
          });
        const responses = await Promise.all(Array.from({ length: 120 }, (_, i) => send(i)));
        assert.deepEqual(tally(responses), { "201": 108, "409 DUPLICATE_REGISTRATION": 12 });
        const created = responses.filter((r) => r.status === 201).map((r) => r.body);
        assert.equal(created.filter((x: any) => x.status === "confirmed").length, 30);
        const line = created.filter((x: any) => x.status === "waitlisted").map((x: any) => x.waitlistPosition);
        assert.deepEqual(
          line.sort((x: number, y: number) => x - y),
          Array.from({ length: 78 }, (_, i) => i + 1),
        );
        // The keyed ones again, through the other process: the first answers, replayed.
        for (const i of [0, 5, 10, 15]) {
          const again = await (i % 2 ? b : a).request("POST", "/v1/attendees", {
            key,
            body: bodies[i],
            headers: { "idempotency-key": `drop-${eventId}-${i}` },
          });
          assert.equal(again.status, responses[i]!.status);
          assert.equal(again.headers.get("idempotent-replayed"), "true");
          assert.equal(again.body.id, responses[i]!.body.id);
        }
        const listed = await b.request("GET", `/v1/attendees?eventId=${eventId}&limit=100&page=1`, { key });
        const second = await b.request("GET", `/v1/attendees?eventId=${eventId}&limit=100&page=2`, { key });
        const stored = [...listed.body.attendees, ...second.body.attendees].map((x: any) => x.id).sort();
        assert.deepEqual(stored, created.map((x: any) => x.id).sort());
        const figures = (await a.request("GET", `/v1/events/${eventId}`, { key })).body;
        assert.deepEqual([figures.attendeeCount, figures.waitlistCount], [30, 78]);
      });

      test("one free key (60 a minute) hammered through both processes: exactly 60 answers 200 between them, then 429 from both", async () => {
        const limited = await a.createKey({ account: `Limited ${backend.name}`, tier: "free" });
        assert.equal(limited.tier, "free");
        await waitForMinuteRoom();
        const reset = minuteEnd();
        // Both processes hammered at once, 150 requests each, 10 in flight to each at a time.
        const hammer = (server: TestServer, n: number) =>
          Promise.all(
            Array.from({ length: 10 }, async (_, lane) => {
              const answers: ApiResponse[] = [];
              for (let i = lane; i < n; i += 10)
                answers.push(await server.request("GET", i % 4 ? "/v1/events" : "/api/events", { key: limited.key }));
              return answers;
            }),
          ).then((lanes) => lanes.flat());
        const [fromA, fromB] = await Promise.all([hammer(a, 150), hammer(b, 150)]);
        const responses = [...fromA, ...fromB];
        assert.deepEqual(tally(responses), { "200": 60, "429 RATE_LIMIT_EXCEEDED": 240 });
        // Each process served a share: its blocks are at most 3 (60 / 20), so neither took it all.
        const served = (list: ApiResponse[]) => list.filter((r) => r.status === 200).length;
        assert.ok(served(fromA) > 0 && served(fromB) > 0, `served ${served(fromA)} / ${served(fromB)}`);
        for (const response of responses.filter((r) => r.status === 429)) {
          const error = expectError(response, 429, "RATE_LIMIT_EXCEEDED");
          assert.deepEqual(error.details, {
            window: "minute",
            limit: 60,
            resetAt: new Date(reset * 1000).toISOString(),
          });
          assert.equal(remaining(response), 0);
        }
        // Both processes keep refusing for the rest of the minute.
        expectError(await a.request("GET", "/v1/events", { key: limited.key }), 429, "RATE_LIMIT_EXCEEDED");
        expectError(await b.request("GET", "/v1/events", { key: limited.key }), 429, "RATE_LIMIT_EXCEEDED");
      });

      test("a burst of changes through both processes, both workers delivering: the receiver gets every notification exactly once", async () => {
        const clients: Client[] = [clientFor(a, key), clientFor(b, key, "/api")];
        const path = `/multi-process/${backend.name}`;
        const webhook = expectStatus(
          await clients[0]!.post("/webhooks", {
            url: `${receiver.origin}${path}`,
            events: ["event.created", "attendee.registered"],
          }),
          201,
        );
        const host = await createEvent(clients[1]!, { capacity: 1000 });
        const [events, registrations] = await Promise.all([
          Promise.all(Array.from({ length: 20 }, (_, i) => createEvent(clients[i % 2]!))),
          Promise.all(
            Array.from({ length: 40 }, async (_, i) =>
              expectStatus(await clients[i % 2]!.post("/attendees", attendeeInput(host.id)), 201),
            ),
          ),
        ]);
        const expected = [
          ...[host, ...events].map((event) => `event.created ${event.id}`),
          ...registrations.map((registration) => `attendee.registered ${registration.id}`),
        ].sort();
        const requests = await receiver.waitFor(
          () => receiver.at(path).length >= expected.length,
          `${expected.length} notifications at ${path}`,
          40_000,
        );
        assert.ok(requests.length > 0);

        // Both workers record their attempts: wait until the log shows every delivery final.
        const deadline = Date.now() + 30_000;
        let log: any[] = [];
        for (;;) {
          log = [];
          for (let page = 1; ; page++) {
            const body = expectStatus(
              await clients[page % 2]!.get(`/webhooks/${webhook.id}/deliveries?limit=100&page=${page}`),
              200,
            );
            log.push(...body.deliveries);
            if (page >= body.pagination.totalPages) break;
          }
          if (log.length === expected.length && log.every((d) => d.status === "succeeded")) break;
          assert.ok(
            Date.now() < deadline,
            `deliveries still not final: ${JSON.stringify(log.map((d) => [d.type, d.status, d.attemptCount]))}`,
          );
          await sleep(100);
        }
        for (const delivery of log) assert.equal(delivery.attemptCount, 1, `${delivery.id} was attempted once`);
        // Let a duplicate that was sent before the log went final arrive: both workers have polled several times after this.
        await sleep(1500);
        const received = receiver.at(path);
        const deliveryIds = received.map((r) => r.headers["x-service-delivery"]);
        assert.equal(new Set(deliveryIds).size, received.length, "no delivery was sent twice");
        assert.deepEqual(
          received
            .map((r) =>
              r.body.type === "event.created"
                ? `event.created ${r.body.data.event.id}`
                : `attendee.registered ${r.body.data.attendee.id}`,
            )
            .sort(),
          expected,
        );
        assert.deepEqual(deliveryIds.sort(), log.map((d) => d.id).sort());
      });
    });
  }
});
