/**
 * End-to-end: the door. Check-in works only while the event is published; twenty simultaneous
 * scans of one code check it in exactly once (one `200`, nineteen `409 ALREADY_CHECKED_IN`, one
 * `attendee.checked_in` delivered to a real HTTPS receiver); a mistaken check-in is undone with
 * `DELETE /events/:id/check-in/:attendeeId` (back to `confirmed`, `attendee.updated`).
 */
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { startServer, type TestServer } from "./_setup.ts";
import {
  type Client,
  clientFor,
  createEvent,
  expectError,
  expectStatus,
  moveEvent,
  PREFIXES,
  register,
} from "./fixtures/api.ts";
import { makeCertificate } from "./fixtures/conventions.ts";
import { deliveryEnv, type Receiver, startReceiver } from "./fixtures/receiver.ts";

let tls: ReturnType<typeof makeCertificate>;
let receiver: Receiver;
let server: TestServer;
let accounts = 0;

before(async () => {
  tls = makeCertificate();
  receiver = await startReceiver({ cert: tls.cert, key: readFileSync(tls.keyPath, "utf8") });
  // No test here times an attempt out; a long timeout keeps a slow first handshake on a loaded
  // machine from causing a (legitimate) retry, which "exactly those" notifications would count.
  server = await startServer({ env: deliveryEnv(tls.certPath, { WEBHOOK_TIMEOUT_MS: "15000" }) });
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

/** A new account (enterprise: the bursts below stay far from its limits), a client of it, and a webhook on `attendee.*` types. */
async function newAccount(prefix: (typeof PREFIXES)[number] = "/v1") {
  const key = await server.createKey({ account: `Door ${++accounts}`, tier: "enterprise" });
  const client = clientFor(server, key.key, prefix);
  const path = `/door/${accounts}`;
  const webhook = expectStatus(
    await client.post("/webhooks", {
      url: `${receiver.origin}${path}`,
      events: ["attendee.checked_in", "attendee.updated"],
    }),
    201,
  );
  return { client, webhook, path };
}

/** A published event with one registration. */
async function openDoor(client: Client) {
  const event = await createEvent(client, { capacity: 10 });
  await moveEvent(client, event.id, "published");
  const attendee = await register(client, event.id);
  return { event, attendee };
}

/** The webhook's stored deliveries: the outbox, written in the transaction of each change. */
async function deliveriesOf(client: Client, webhookId: string): Promise<any[]> {
  return expectStatus(await client.get(`/webhooks/${webhookId}/deliveries?limit=100`), 200).deliveries;
}

const typesOf = (items: Array<{ type: string }>) => items.map((item) => item.type).sort();

describe("exactly once at the door", () => {
  test("20 simultaneous scans of one code: one 200, nineteen 409 ALREADY_CHECKED_IN, one attendee.checked_in", async () => {
    const { client, webhook, path } = await newAccount();
    const { event, attendee } = await openDoor(client);
    const scans = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        client.post(`/events/${event.id}/check-in`, {
          confirmationCode: i % 2 ? attendee.confirmationCode : attendee.confirmationCode.toLowerCase(),
        }),
      ),
    );
    const statuses = scans.map((scan) => scan.status).sort();
    assert.deepEqual(statuses, [200, ...Array(19).fill(409)]);
    const winner = expectStatus(scans.find((scan) => scan.status === 200)!, 200);
    assert.equal(winner.status, "checked-in");
    for (const scan of scans.filter((s) => s.status === 409)) {
      const error = expectError(scan, 409, "ALREADY_CHECKED_IN");
      assert.equal(error.details.attendee.id, attendee.id);
      assert.equal(error.details.attendee.checkedInAt, winner.checkedInAt);
    }
    assert.deepEqual(expectStatus(await client.get(`/attendees/${attendee.id}`), 200), winner);

    // The outbox holds one check-in (and the attendee.updated that goes with it); the receiver gets exactly those.
    const stored = await deliveriesOf(client, webhook.id);
    assert.deepEqual(typesOf(stored), ["attendee.checked_in", "attendee.updated"]);
    const received = await receiver.waitFor(() => receiver.at(path).length >= 2, "the check-in's notifications");
    assert.deepEqual(typesOf(received.filter((r) => r.path === path).map((r) => r.body)), [
      "attendee.checked_in",
      "attendee.updated",
    ]);
    const checkedIn = receiver.at(path).find((r) => r.body.type === "attendee.checked_in")!;
    assert.equal(checkedIn.body.data.attendee.id, attendee.id);
    assert.equal(checkedIn.body.data.attendee.checkedInAt, winner.checkedInAt);
    assert.equal(checkedIn.body.data.previousStatus, "confirmed");
  });
});

describe("a code as a person types it", () => {
  test("any case, spaces and dashes find the code; a repeat in another form is 409; something else is 404", async () => {
    const { client } = await newAccount();
    const { event, attendee } = await openDoor(client);
    const others = [await register(client, event.id), await register(client, event.id)];
    const code: string = attendee.confirmationCode;
    const bare = code.replaceAll("-", "");
    const typed = [
      ` ${code.toLowerCase()} `,
      bare,
      `${bare.slice(0, 3).toLowerCase()} ${bare.slice(3, 7).toLowerCase()} ${bare.slice(7).toLowerCase()}`,
    ];
    const [first, ...again] = typed;
    const checkedIn = expectStatus(await client.post(`/events/${event.id}/check-in`, { confirmationCode: first }), 200);
    assert.deepEqual([checkedIn.id, checkedIn.status, checkedIn.confirmationCode], [attendee.id, "checked-in", code]);
    for (const confirmationCode of again) {
      const repeat = expectError(
        await client.post(`/events/${event.id}/check-in`, { confirmationCode }),
        409,
        "ALREADY_CHECKED_IN",
      );
      assert.equal(repeat.details.attendee.id, attendee.id, confirmationCode);
    }
    for (const other of others) {
      const spaced = other.confirmationCode.replaceAll("-", " ").toLowerCase();
      assert.equal(
        expectStatus(await client.post(`/events/${event.id}/check-in`, { confirmationCode: spaced }), 200).id,
        other.id,
      );
    }
    expectError(await client.post(`/events/${event.id}/check-in`, { confirmationCode: `${code}-2` }), 404, "NOT_FOUND");
    expectError(
      await client.post(`/events/${event.id}/check-in`, { confirmationCode: bare.slice(3) }),
      404,
      "NOT_FOUND",
    );
  });
});

describe("the door is open only while the event is published", () => {
  for (const prefix of PREFIXES) {
    test(`a draft, a cancelled and a completed event refuse check-in with reason event_not_published (${prefix})`, async () => {
      const { client } = await newAccount(prefix);
      const draft = await createEvent(client);
      const cancelled = await createEvent(client);
      const completed = await createEvent(client);
      const guests = new Map<string, any>();
      for (const event of [draft, cancelled, completed]) guests.set(event.id, await register(client, event.id));
      await moveEvent(client, cancelled.id, "cancelled");
      await moveEvent(client, completed.id, "published", "completed");
      for (const [event, status] of [
        [draft, "draft"],
        [cancelled, "cancelled"],
        [completed, "completed"],
      ] as const) {
        const guest = guests.get(event.id);
        const error = expectError(
          await client.post(`/events/${event.id}/check-in`, { confirmationCode: guest.confirmationCode }),
          422,
          "INVALID_STATE_TRANSITION",
        );
        assert.deepEqual(error.details, { reason: "event_not_published", eventStatus: status });
        // The closed door answers before the code is looked at.
        const unknown = expectError(
          await client.post(`/events/${event.id}/check-in`, { confirmationCode: "EVT-2222-2222" }),
          422,
          "INVALID_STATE_TRANSITION",
        );
        assert.equal(unknown.details.reason, "event_not_published");
        // Left as it was, but for the cancelled event's guest, cancelled with it.
        assert.equal(
          expectStatus(await client.get(`/attendees/${guest.id}`), 200).status,
          status === "cancelled" ? "cancelled" : "confirmed",
        );
      }
      // An administrative PUT follows the status rules alone: a draft's guest may be marked checked in.
      const marked = expectStatus(
        await client.put(`/attendees/${guests.get(draft.id).id}`, { status: "checked-in" }),
        200,
      );
      assert.equal(marked.status, "checked-in");
    });
  }
});

describe("undo a check-in", () => {
  test("back to confirmed with checkedInAt null, attendee.updated sent; then it checks in again with a second attendee.checked_in", async () => {
    const { client, webhook, path } = await newAccount();
    const { event, attendee } = await openDoor(client);
    const before = expectStatus(await client.get(`/events/${event.id}`), 200);
    const checkedIn = expectStatus(
      await client.post(`/events/${event.id}/check-in`, { confirmationCode: attendee.confirmationCode }),
      200,
    );

    const undone = expectStatus(await client.delete(`/events/${event.id}/check-in/${attendee.id}`), 200);
    assert.deepEqual(undone, { ...checkedIn, status: "confirmed", checkedInAt: null, updatedAt: undone.updatedAt });
    assert.ok(undone.updatedAt >= checkedIn.updatedAt);
    assert.deepEqual(expectStatus(await client.get(`/attendees/${attendee.id}`), 200), undone);
    const figures = expectStatus(await client.get(`/events/${event.id}`), 200);
    assert.equal(figures.attendeeCount, before.attendeeCount);
    assert.equal(figures.carbonFootprint, before.carbonFootprint);

    const again = expectStatus(
      await client.post(`/events/${event.id}/check-in`, { confirmationCode: attendee.confirmationCode }),
      200,
    );
    assert.equal(again.status, "checked-in");

    const stored = await deliveriesOf(client, webhook.id);
    assert.deepEqual(typesOf(stored), [
      "attendee.checked_in",
      "attendee.checked_in",
      "attendee.updated",
      "attendee.updated",
      "attendee.updated",
    ]);
    await receiver.waitFor(() => receiver.at(path).length >= 5, "five notifications");
    const updates = receiver
      .at(path)
      .filter((r) => r.body.type === "attendee.updated")
      .map((r) => r.body.data);
    const undo = updates.find((data) => data.attendee.status === "confirmed")!;
    assert.equal(undo.attendee.id, attendee.id);
    assert.equal(undo.attendee.checkedInAt, null);
    assert.equal(undo.previous.status, "checked-in");
    assert.equal(undo.previous.checkedInAt, checkedIn.checkedInAt);
    assert.equal(receiver.at(path).filter((r) => r.body.type === "attendee.checked_in").length, 2);
  });

  for (const prefix of PREFIXES) {
    test(`nothing to undo: 422 not_checked_in; unknown event or another event's registration: 404 (${prefix})`, async () => {
      const { client } = await newAccount(prefix);
      const { event, attendee } = await openDoor(client);
      const error = expectError(
        await client.delete(`/events/${event.id}/check-in/${attendee.id}`),
        422,
        "INVALID_STATE_TRANSITION",
      );
      assert.deepEqual(error.details, { reason: "not_checked_in", status: "confirmed" });
      expectStatus(
        await client.post(`/events/${event.id}/check-in`, { confirmationCode: attendee.confirmationCode }),
        200,
      );
      expectStatus(await client.delete(`/events/${event.id}/check-in/${attendee.id}`), 200);
      // A retry of the undo changes nothing.
      expectError(await client.delete(`/events/${event.id}/check-in/${attendee.id}`), 422, "INVALID_STATE_TRANSITION");
      const other = await createEvent(client);
      expectError(await client.delete(`/events/${other.id}/check-in/${attendee.id}`), 404, "NOT_FOUND");
      expectError(
        await client.delete(`/events/evt_000000000000000000000000/check-in/${attendee.id}`),
        404,
        "NOT_FOUND",
      );
      expectError(await client.delete(`/events/${event.id}/check-in/att_000000000000000000000000`), 404, "NOT_FOUND");
      assert.equal(expectStatus(await client.get(`/attendees/${attendee.id}`), 200).status, "confirmed");
    });
  }

  test("an undo works after the event ended; a cancelled registration cannot check in", async () => {
    const { client } = await newAccount();
    const { event, attendee } = await openDoor(client);
    const cancelled = await register(client, event.id);
    expectStatus(await client.put(`/attendees/${cancelled.id}`, { status: "cancelled" }), 200);
    expectError(
      await client.post(`/events/${event.id}/check-in`, { confirmationCode: cancelled.confirmationCode }),
      422,
      "INVALID_STATE_TRANSITION",
    );
    expectStatus(
      await client.post(`/events/${event.id}/check-in`, { confirmationCode: attendee.confirmationCode }),
      200,
    );
    await moveEvent(client, event.id, "completed");
    assert.equal(
      expectStatus(await client.delete(`/events/${event.id}/check-in/${attendee.id}`), 200).status,
      "confirmed",
    );
    // The door stays closed for the completed event.
    const error = expectError(
      await client.post(`/events/${event.id}/check-in`, { confirmationCode: attendee.confirmationCode }),
      422,
      "INVALID_STATE_TRANSITION",
    );
    assert.equal(error.details.reason, "event_not_published");
  });
});
