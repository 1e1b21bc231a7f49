/**
 * End-to-end: the waiting list. 200 simultaneous registrations into 20 places give exactly 20
 * confirmed and 180 waiting at positions 1..180; 5 simultaneous cancellations promote exactly
 * positions 1..5 (five `attendee.promoted` at a real HTTPS receiver) and the line closes up; a
 * raised capacity and an erasure promote too; those waiting cannot check in and are listed with
 * `status=waitlisted`.
 */
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { startServer, type TestServer } from "./_setup.ts";
import { type Client, clientFor, createEvent, expectError, expectStatus, moveEvent, register } from "./fixtures/api.ts";
import { attendeeInput } from "./fixtures/builders.ts";
import { makeCertificate } from "./fixtures/conventions.ts";
import { deliveryEnv, type Receiver, startReceiver } from "./fixtures/receiver.ts";

let tls: ReturnType<typeof makeCertificate>;
let receiver: Receiver;
let server: TestServer;
let client: Client;

before(async () => {
  tls = makeCertificate();
  receiver = await startReceiver({ cert: tls.cert, key: readFileSync(tls.keyPath, "utf8") });
  server = await startServer({ env: deliveryEnv(tls.certPath) });
  // Limits far above the bursts below: this suite is about the waiting list, not rate limits.
  const { key } = await server.createKey({
    account: "Waiting GmbH",
    tier: "enterprise",
    perMinute: 100_000,
    perDay: 10_000_000,
  });
  client = clientFor(server, key);
});

after(async () => {
  try {
    await server.stop();
  } finally {
    // Even when the server's stop fails: a receiver left listening would keep this file's process alive.
    await receiver.close();
  }
  rmSync(tls.dir, { recursive: true, force: true });
});

/** The event's waiting registrations, first in line first. */
async function line(eventId: string): Promise<any[]> {
  const { attendees } = expectStatus(
    await client.get(
      `/attendees?eventId=${eventId}&status=waitlisted&limit=100&page=1&sortBy=registrationDate&order=asc`,
    ),
    200,
  );
  const rest = expectStatus(
    await client.get(
      `/attendees?eventId=${eventId}&status=waitlisted&limit=100&page=2&sortBy=registrationDate&order=asc`,
    ),
    200,
  ).attendees;
  return [...attendees, ...rest].sort((a, b) => a.waitlistPosition - b.waitlistPosition);
}

describe("200 registrations racing for 20 places", () => {
  test("exactly 20 confirmed and 180 waiting at 1..180; 5 cancellations at once promote exactly 1..5 and the line closes up", async () => {
    const path = "/waitlist/race";
    expectStatus(
      await client.post("/webhooks", { url: `${receiver.origin}${path}`, events: ["attendee.promoted"] }),
      201,
    );
    const event = await createEvent(client, { capacity: 20, waitlistEnabled: true });
    assert.equal(event.waitlistEnabled, true);
    assert.equal(event.waitlistCount, 0);
    await moveEvent(client, event.id, "published");

    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        client.post("/attendees", attendeeInput(event.id, { email: `racer${i}@example.com` })),
      ),
    );
    assert.deepEqual([...new Set(answers.map((a) => a.status))], [201]);
    const made = answers.map((a) => a.body);
    const confirmed = made.filter((a) => a.status === "confirmed");
    const waiting = made
      .filter((a) => a.status === "waitlisted")
      .sort((a, b) => a.waitlistPosition - b.waitlistPosition);
    assert.equal(confirmed.length, 20);
    assert.ok(confirmed.every((a) => a.waitlistPosition === null));
    assert.deepEqual(
      waiting.map((a) => a.waitlistPosition),
      Array.from({ length: 180 }, (_, i) => i + 1),
    );
    const full = expectStatus(await client.get(`/events/${event.id}`), 200);
    assert.deepEqual([full.attendeeCount, full.waitlistCount], [20, 180]);
    assert.deepEqual(
      (await line(event.id)).map((a) => a.id),
      waiting.map((a) => a.id),
    );

    const cancelled = await Promise.all(
      confirmed.slice(0, 5).map((a) => client.put(`/attendees/${a.id}`, { status: "cancelled" })),
    );
    for (const answer of cancelled) assert.equal(expectStatus(answer, 200).status, "cancelled");
    const promoted = await Promise.all(
      waiting.slice(0, 5).map(async (a) => expectStatus(await client.get(`/attendees/${a.id}`), 200)),
    );
    assert.deepEqual(
      promoted.map((a) => [a.status, a.waitlistPosition]),
      Array(5).fill(["confirmed", null]),
    );
    const rest = await line(event.id);
    assert.deepEqual(
      rest.map((a) => a.id),
      waiting.slice(5).map((a) => a.id),
    );
    assert.deepEqual(
      rest.map((a) => a.waitlistPosition),
      Array.from({ length: 175 }, (_, i) => i + 1),
    );
    const after = expectStatus(await client.get(`/events/${event.id}`), 200);
    assert.deepEqual([after.attendeeCount, after.waitlistCount], [20, 175]);

    const received = await receiver.waitFor(
      (all) => all.filter((r) => r.path === path).length >= 5,
      "five attendee.promoted",
    );
    const notes = received.filter((r) => r.path === path).map((r) => r.body);
    assert.deepEqual(
      notes.map((n) => n.type),
      Array(5).fill("attendee.promoted"),
    );
    assert.deepEqual(notes.map((n) => n.data.attendee.id).sort(), promoted.map((a) => a.id).sort());
    for (const note of notes) {
      assert.equal(note.data.previousStatus, "waitlisted");
      assert.equal(note.data.attendee.status, "confirmed");
      assert.deepEqual(note.data.event, { id: event.id, name: event.name });
    }
    // The outbox holds exactly those five: nothing more will come.
    const webhooks = expectStatus(await client.get("/webhooks?limit=100"), 200).webhooks;
    const hook = webhooks.find((w: any) => w.url === `${receiver.origin}${path}`);
    assert.equal(expectStatus(await client.get(`/webhooks/${hook.id}/deliveries?limit=100`), 200).deliveries.length, 5);
  });
});

describe("what frees a place, and what waiting means", () => {
  test("a raised capacity and an erasure promote in order; a cancellation in the line closes it up; a promotion by hand needs a free place", async () => {
    const event = await createEvent(client, { capacity: 1, waitlistEnabled: true });
    const [a, b, c, d] = [
      await register(client, event.id),
      await register(client, event.id),
      await register(client, event.id),
      await register(client, event.id),
    ];
    assert.deepEqual(
      [a, b, c, d].map((x) => [x.status, x.waitlistPosition]),
      [
        ["confirmed", null],
        ["waitlisted", 1],
        ["waitlisted", 2],
        ["waitlisted", 3],
      ],
    );
    expectError(await client.put(`/attendees/${c.id}`, { status: "confirmed" }), 400, "EVENT_FULL");
    expectError(
      await client.put(`/attendees/${a.id}`, { status: "waitlisted" }),
      422,
      "INVALID_STATE_TRANSITION",
      "status",
    );

    const raised = expectStatus(await client.put(`/events/${event.id}`, { capacity: 2 }), 200);
    assert.deepEqual([raised.attendeeCount, raised.waitlistCount], [2, 2]);
    assert.equal(expectStatus(await client.get(`/attendees/${b.id}`), 200).status, "confirmed");
    assert.deepEqual(
      (await line(event.id)).map((x) => [x.id, x.waitlistPosition]),
      [
        [c.id, 1],
        [d.id, 2],
      ],
    );

    expectStatus(await client.put(`/attendees/${c.id}`, { status: "cancelled" }), 200);
    assert.deepEqual(
      (await line(event.id)).map((x) => [x.id, x.waitlistPosition]),
      [[d.id, 1]],
    );

    expectStatus(await client.delete(`/attendees/${a.id}`), 200);
    const promoted = expectStatus(await client.get(`/attendees/${d.id}`), 200);
    assert.deepEqual([promoted.status, promoted.waitlistPosition], ["confirmed", null]);
    const now = expectStatus(await client.get(`/events/${event.id}`), 200);
    assert.deepEqual([now.attendeeCount, now.waitlistCount], [2, 0]);
  });

  test("those waiting keep their email from others, cannot check in, and hold no place in the figures", async () => {
    const event = await createEvent(client, { capacity: 1, waitlistEnabled: true });
    await moveEvent(client, event.id, "published");
    await register(client, event.id, {
      carbonOffset: { opted: true, amount: 10, travelMode: "car", travelDistance: 100 },
    });
    const figures = expectStatus(await client.get(`/events/${event.id}`), 200);
    const waiting = await register(client, event.id, {
      email: "waiting@example.com",
      carbonOffset: { opted: true, amount: 10, travelMode: "flight", travelDistance: 5000 },
    });
    assert.equal(waiting.status, "waitlisted");
    expectError(
      await client.post("/attendees", attendeeInput(event.id, { email: "WAITING@example.com" })),
      409,
      "DUPLICATE_REGISTRATION",
    );
    expectError(
      await client.post(`/events/${event.id}/check-in`, { confirmationCode: waiting.confirmationCode }),
      422,
      "INVALID_STATE_TRANSITION",
    );
    const same = expectStatus(await client.get(`/events/${event.id}`), 200);
    assert.deepEqual(
      [same.attendeeCount, same.carbonFootprint, same.waitlistCount],
      [figures.attendeeCount, figures.carbonFootprint, 1],
    );
    const report = expectStatus(await client.get(`/analytics/events/${event.id}`), 200);
    assert.deepEqual([report.attendance.active, report.attendance.waitlisted, report.attendance.registered], [1, 1, 2]);
  });

  test("without a waiting list a full event refuses; turning it off keeps those already waiting in line", async () => {
    const closed = await createEvent(client, { capacity: 1 });
    await register(client, closed.id);
    expectError(await client.post("/attendees", attendeeInput(closed.id)), 400, "EVENT_FULL");

    const event = await createEvent(client, { capacity: 1, waitlistEnabled: true });
    const first = await register(client, event.id);
    const waiting = await register(client, event.id);
    assert.equal(
      expectStatus(await client.put(`/events/${event.id}`, { waitlistEnabled: false }), 200).waitlistEnabled,
      false,
    );
    expectError(await client.post("/attendees", attendeeInput(event.id)), 400, "EVENT_FULL");
    expectStatus(await client.put(`/attendees/${first.id}`, { status: "cancelled" }), 200);
    assert.equal(expectStatus(await client.get(`/attendees/${waiting.id}`), 200).status, "confirmed");
  });

  test("an event that has ended promotes no one: a place given up afterwards stays free", async () => {
    const event = await createEvent(client, { capacity: 1, waitlistEnabled: true });
    const first = await register(client, event.id);
    const waiting = await register(client, event.id);
    expectStatus(
      await client.put(`/events/${event.id}`, { startDate: "2022-05-01T09:00:00Z", endDate: "2022-05-01T17:00:00Z" }),
      200,
    );
    expectStatus(await client.put(`/attendees/${first.id}`, { status: "cancelled" }), 200);
    const still = expectStatus(await client.get(`/attendees/${waiting.id}`), 200);
    assert.deepEqual([still.status, still.waitlistPosition], ["waitlisted", 1]);
    assert.equal(expectStatus(await client.get(`/events/${event.id}`), 200).attendeeCount, 0);
  });

  test("a cancelled event promotes no one: those waiting are cancelled with it, and none is taken back", async () => {
    const event = await createEvent(client, { capacity: 1, waitlistEnabled: true });
    const first = await register(client, event.id);
    const waiting = await register(client, event.id);
    await moveEvent(client, event.id, "cancelled");
    const gone = expectStatus(await client.get(`/attendees/${first.id}`), 200);
    const left = expectStatus(await client.get(`/attendees/${waiting.id}`), 200);
    assert.deepEqual([gone.status, left.status, left.waitlistPosition], ["cancelled", "cancelled", null]);
    expectError(
      await client.put(`/attendees/${waiting.id}`, { status: "confirmed" }),
      400,
      "INVALID_REQUEST",
      "eventId",
    );
  });
});
