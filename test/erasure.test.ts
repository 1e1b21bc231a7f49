/**
 * End-to-end: erasure of a registration (`DELETE /v1/attendees/:id`) and the scrubbing that an
 * event's deletion does. The real server delivers to a real HTTPS receiver; afterwards the
 * test reads the raw database (every table and column, then the bytes of the SQLite file and
 * its write-ahead log) and finds none of the erased values.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import Database from "better-sqlite3";
import { verifySignature } from "@event-service/core/webhooks";
import { databaseTables, isPostgres, queryDatabase, startServer, type TestServer } from "./_setup.ts";
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
import { attendeeInput } from "./fixtures/builders.ts";
import { makeCertificate } from "./fixtures/conventions.ts";
import { type Answer, deliveryEnv, type Received, type Receiver, startReceiver } from "./fixtures/receiver.ts";

let tls: ReturnType<typeof makeCertificate>;
let receiver: Receiver;
let server: TestServer;

/** A receiver's answer that echoes what it got, as some do: the delivery log's response excerpts then hold the payload. */
const echo = (request: Received): Answer => ({ status: 200, body: request.raw });

before(async () => {
  tls = makeCertificate();
  receiver = await startReceiver({ cert: tls.cert, key: readFileSync(tls.keyPath, "utf8") });
  receiver.answer = echo;
  server = await startServer({ env: deliveryEnv(tls.certPath) });
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

let counter = 0;
/** A new account with a full key, and a client of it. */
async function newClient(prefix: (typeof PREFIXES)[number] = "/v1") {
  const name = `Erasure ${++counter}`;
  const key = await server.createKey({ account: name });
  return { client: clientFor(server, key.key, prefix), key, name };
}

/** A registration body full of personal values unique to `tag`, in every field that can hold one. */
let phones = 0;
function personalInput(eventId: string, tag: string) {
  // Unique in this server's store, so a number found belongs to one registration.
  const phone = () => `+49 30 ${4_000_000 + ++phones}`;
  return attendeeInput(eventId, {
    firstName: `Zebulon${tag}`,
    lastName: `Quattlebaum${tag}`,
    email: `zebulon.${tag.toLowerCase()}@erasure.example`,
    phone: phone(),
    company: `Quattlebaum Widgets ${tag}`,
    title: `Chief Forgetter ${tag}`,
    dietaryPreferences: [`xylophage-${tag.toLowerCase()}`],
    accessibilityNeeds: { wheelchairAccess: true, other: `quiet room for ${tag}` },
    emergencyContact: { name: `Philomena Quattlebaum${tag}`, phone: phone(), relationship: `aunt-of-${tag}` },
    customFields: { badgeName: `Zeb the ${tag}` },
    carbonOffset: { opted: true, amount: 25, travelMode: "car", travelDistance: 300 },
  });
}

/** The values of a registration a raw read of the store must not find after its erasure (and lower-cased, as search keys keep them). */
function personalValues(input: Record<string, any>, extra: string[] = []): string[] {
  const values = [
    input.firstName,
    input.lastName,
    input.email,
    input.phone,
    input.company,
    input.title,
    input.dietaryPreferences[0],
    input.accessibilityNeeds.other,
    input.emergencyContact.name,
    input.emergencyContact.phone,
    input.emergencyContact.relationship,
    input.customFields.badgeName,
    ...extra,
  ] as string[];
  return [...new Set(values.flatMap((value) => [value, value.toLowerCase()]))];
}

/**
 * Reads the server's database raw: every text, JSON or blob value of every column of every
 * table, then on SQLite, after a checkpoint that empties the write-ahead log into the file, the
 * file's bytes and its -wal and -shm companions. Returns each value found, with where.
 * (PostgreSQL's files belong to its server: what a deletion leaves in them until VACUUM reuses
 * the space is out of the service's reach, so only the rows are read there.)
 */
async function findInRawStore(values: string[]): Promise<string[]> {
  const found: string[] = [];
  if (isPostgres(server.database)) {
    const tables = await databaseTables(server.database);
    assert.ok(
      tables.includes("attendees") && tables.includes("webhook_deliveries") && tables.includes("idempotency_keys"),
      tables.join(", "),
    );
    for (const name of tables) {
      for (const row of await queryDatabase(server.database, `SELECT * FROM "${name}"`)) {
        for (const [column, cell] of Object.entries(row)) {
          const text = Buffer.isBuffer(cell)
            ? cell.toString("utf8")
            : typeof cell === "string"
              ? cell
              : cell !== null && typeof cell === "object"
                ? JSON.stringify(cell)
                : null;
          if (text === null) continue;
          for (const value of values) if (text.includes(value)) found.push(`${value} in ${name}.${column}`);
        }
      }
    }
    return found;
  }
  const db = new Database(server.database, { fileMustExist: true });
  try {
    db.pragma("busy_timeout = 5000");
    const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").all() as Array<{ name: string }>;
    assert.ok(
      tables.some((t) => t.name === "attendees") &&
        tables.some((t) => t.name === "webhook_deliveries") &&
        tables.some((t) => t.name === "idempotency_keys"),
    );
    for (const { name } of tables) {
      for (const row of db.prepare(`SELECT * FROM "${name}"`).all() as Array<Record<string, unknown>>) {
        for (const [column, cell] of Object.entries(row)) {
          const text = Buffer.isBuffer(cell) ? cell.toString("utf8") : typeof cell === "string" ? cell : null;
          if (text === null) continue;
          for (const value of values) if (text.includes(value)) found.push(`${value} in ${name}.${column}`);
        }
      }
    }
    // TRUNCATE copies the log into the file and empties it; it waits for (and reports) a reader of the running server.
    for (let attempt = 0; ; attempt++) {
      const [result] = db.pragma("wal_checkpoint(TRUNCATE)") as Array<{
        busy: number;
        log: number;
        checkpointed: number;
      }>;
      if (result!.busy === 0) break;
      assert.ok(attempt < 50, "the checkpoint could run");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    db.close();
  }
  for (const suffix of ["", "-wal", "-shm"]) {
    const file = `${server.database}${suffix}`;
    if (!existsSync(file)) continue;
    const bytes = readFileSync(file);
    for (const value of values)
      if (bytes.includes(Buffer.from(value, "utf8")))
        found.push(`${value} in the bytes of ${file.slice(server.database.length) || "the file"}`);
  }
  return found;
}

/** Waits until the webhook's delivery log satisfies `predicate`, and returns it. */
async function logOf(
  client: Client,
  webhookId: string,
  predicate: (deliveries: any[]) => boolean,
  what: string,
): Promise<any[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const { deliveries } = expectStatus(await client.get(`/webhooks/${webhookId}/deliveries?limit=100`), 200);
    if (predicate(deliveries)) return deliveries;
    assert.ok(
      Date.now() < deadline,
      `gave up waiting for ${what}: ${JSON.stringify(deliveries.map((d: any) => [d.type, d.status]))}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

let pathCounter = 0;
async function hook(client: Client, events: string[]) {
  const path = `/erasure/${++pathCounter}`;
  const webhook = expectStatus(await client.post("/webhooks", { url: `${receiver.origin}${path}`, events }), 201);
  return { webhook, path, secret: webhook.secret as string };
}

describe("DELETE /attendees/:id", () => {
  test("answers like every DELETE under both prefixes; afterwards the registration is gone from reads, lists, QR images and check-in", async () => {
    for (const prefix of PREFIXES) {
      const { client } = await newClient(prefix);
      const event = await createEvent(client, { capacity: 10 });
      await moveEvent(client, event.id, "published");
      const erased = await register(client, event.id);
      const kept = await register(client, event.id);
      const qr = new URL(erased.qrCode).pathname;
      assert.equal((await server.request("GET", qr)).status, 200);
      assert.equal((await server.request("GET", qr.replace(".png", ".svg"))).status, 200);

      const answer = await client.delete(`/attendees/${erased.id}`);
      assert.deepEqual(expectStatus(answer, 200), {
        success: true,
        message: `Attendee ${erased.id} was erased.`,
        deletedId: erased.id,
      });

      expectError(await client.get(`/attendees/${erased.id}`), 404, "NOT_FOUND");
      expectError(await client.put(`/attendees/${erased.id}`, { company: "x" }), 404, "NOT_FOUND");
      expectError(await client.delete(`/attendees/${erased.id}`), 404, "NOT_FOUND");
      const list = expectStatus(await client.get(`/attendees?eventId=${event.id}`), 200);
      assert.deepEqual(
        list.attendees.map((a: any) => a.id),
        [kept.id],
      );
      assert.equal(list.pagination.total, 1);
      assert.equal(
        expectStatus(await client.get(`/attendees?search=${encodeURIComponent(erased.email)}`), 200).pagination.total,
        0,
      );
      expectError(await server.request("GET", qr), 404, "NOT_FOUND");
      expectError(await server.request("GET", qr.replace(".png", ".svg")), 404, "NOT_FOUND");
      expectError(
        await client.post(`/events/${event.id}/check-in`, { confirmationCode: erased.confirmationCode }),
        404,
        "NOT_FOUND",
        "confirmationCode",
      );
      assert.equal(expectStatus(await client.get(`/events/${event.id}`), 200).attendeeCount, 1);
    }
  });

  test("another account's registration is 404 and stays; the scope is attendees:write", async () => {
    const { client: owner } = await newClient();
    const { client: stranger } = await newClient();
    const event = await createEvent(owner);
    const attendee = await register(owner, event.id);
    expectError(await stranger.delete(`/attendees/${attendee.id}`), 404, "NOT_FOUND");
    const readOnly = await server.createKey({ account: "Erasure readers", scopes: ["attendees:read", "events:read"] });
    expectError(await clientFor(server, readOnly.key).delete(`/attendees/${attendee.id}`), 403, "FORBIDDEN");
    expectError(await server.request("DELETE", `/v1/attendees/${attendee.id}`), 401, "UNAUTHORIZED");
    assert.equal(expectStatus(await owner.get(`/attendees/${attendee.id}`), 200).email, attendee.email);
    expectError(await owner.delete("/attendees/att_000000000000000000000000"), 404, "NOT_FOUND");
  });

  test("erasing an active registration of a full event frees its place; the kept figures equal a recount", async () => {
    const { client } = await newClient();
    const event = await createEvent(client, {
      capacity: 3,
      sustainabilityGoals: { carbonNeutral: true, renewableEnergy: true },
    });
    await moveEvent(client, event.id, "published");
    const trips = [
      { opted: true, amount: 5, travelMode: "flight", travelDistance: 2400 },
      { opted: false, travelMode: "train", travelDistance: 310.5 },
      { opted: true, amount: 1.25, travelMode: "car", travelDistance: 77.7 },
    ];
    const made: any[] = [];
    for (const carbonOffset of trips) made.push(await register(client, event.id, { carbonOffset }));
    expectError(await client.post("/attendees", attendeeInput(event.id)), 400, "EVENT_FULL");
    // A cancelled one holds no place; erasing it frees none and changes no figure.
    const cancelled = made[2];
    expectStatus(await client.put(`/attendees/${cancelled.id}`, { status: "cancelled" }), 200);
    const refill = await register(client, event.id, {
      carbonOffset: { opted: false, travelMode: "bus", travelDistance: 42 },
    });
    const full = expectStatus(await client.get(`/events/${event.id}`), 200);
    expectStatus(await client.delete(`/attendees/${cancelled.id}`), 200);
    assert.deepEqual(expectStatus(await client.get(`/events/${event.id}`), 200), full);
    expectError(await client.post("/attendees", attendeeInput(event.id)), 400, "EVENT_FULL");

    expectStatus(await client.delete(`/attendees/${made[0].id}`), 200);
    const newcomer = await register(client, event.id, {
      email: made[0].email,
      carbonOffset: { opted: true, amount: 3, travelMode: "walk", travelDistance: 2 },
    });
    assert.equal(newcomer.status, "confirmed", "the freed place (and the email) take a new registration");
    expectError(await client.post("/attendees", attendeeInput(event.id)), 400, "EVENT_FULL");

    // The recount: the per-event analytics sum the registrations afresh, in SQL.
    const kept = expectStatus(await client.get(`/events/${event.id}`), 200);
    const recount = expectStatus(await client.get(`/analytics/events/${event.id}`), 200);
    const remaining = [made[1], refill, newcomer];
    assert.equal(kept.attendeeCount, 3);
    assert.equal(recount.attendance.active, 3);
    assert.equal(recount.attendance.registered, 3, "the erased registrations are not counted anywhere");
    assert.equal(kept.carbonFootprint, recount.sustainability.carbonFootprintKg);
    assert.equal(kept.sustainabilityScore, recount.sustainability.sustainabilityScore);
    const listed = expectStatus(await client.get(`/events?search=${encodeURIComponent(event.name)}`), 200).events[0];
    assert.deepEqual(
      [listed.attendeeCount, listed.carbonFootprint, listed.sustainabilityScore],
      [kept.attendeeCount, kept.carbonFootprint, kept.sustainabilityScore],
    );
    // And the same registrations on a new event give the same figures.
    const twin = await createEvent(client, {
      capacity: 3,
      sustainabilityGoals: { carbonNeutral: true, renewableEnergy: true },
    });
    for (const attendee of remaining) await register(client, twin.id, { carbonOffset: attendee.carbonOffset });
    const twinFigures = expectStatus(await client.get(`/events/${twin.id}`), 200);
    assert.deepEqual(
      [twinFigures.attendeeCount, twinFigures.carbonFootprint, twinFigures.sustainabilityScore],
      [kept.attendeeCount, kept.carbonFootprint, kept.sustainabilityScore],
    );
  });

  test("concurrent requests on a full event: erasures of one registration and new registrations never overfill it", async () => {
    const { client } = await newClient();
    const event = await createEvent(client, { capacity: 4 });
    const made: any[] = [];
    for (let i = 0; i < 4; i++) made.push(await register(client, event.id));
    const [erasures, registrations] = await Promise.all([
      Promise.all(Array.from({ length: 3 }, () => client.delete(`/attendees/${made[0].id}`))),
      Promise.all(Array.from({ length: 6 }, () => client.post("/attendees", attendeeInput(event.id)))),
    ]);
    assert.deepEqual(erasures.map((r) => r.status).sort(), [200, 404, 404]);
    const statuses = registrations.map((r) => r.status);
    assert.ok(
      statuses.filter((status) => status === 201).length <= 1 &&
        statuses.every((status) => status === 201 || status === 400),
      String(statuses),
    );
    for (const refused of registrations.filter((r) => r.status === 400)) expectError(refused, 400, "EVENT_FULL");
    const list = expectStatus(await client.get(`/attendees?eventId=${event.id}&limit=100`), 200);
    const kept = expectStatus(await client.get(`/events/${event.id}`), 200);
    assert.equal(list.pagination.total, 3 + statuses.filter((status) => status === 201).length);
    assert.equal(kept.attendeeCount, list.pagination.total);
    assert.ok(kept.attendeeCount <= 4);
    // The place is free unless a concurrent registration took it.
    if (kept.attendeeCount === 3) await register(client, event.id);
    expectError(await client.post("/attendees", attendeeInput(event.id)), 400, "EVENT_FULL");
  });

  test("an Idempotency-Key replay of the registration or its check-in no longer hands the data back, and registers no one again", async () => {
    const { client } = await newClient();
    const event = await createEvent(client);
    await moveEvent(client, event.id, "published");
    const body = attendeeInput(event.id, { company: "Replay Only Ltd" });
    const first = await client.post("/attendees", body, { headers: { "idempotency-key": "erase-me-register" } });
    const attendee = expectStatus(first, 201);
    const checkIn = { confirmationCode: attendee.confirmationCode };
    expectStatus(
      await client.post(`/events/${event.id}/check-in`, checkIn, {
        headers: { "idempotency-key": "erase-me-check-in" },
      }),
      200,
    );
    const again = await client.post(`/events/${event.id}/check-in`, checkIn, {
      headers: { "idempotency-key": "erase-me-again" },
    });
    expectError(again, 409, "ALREADY_CHECKED_IN");
    const replayed = await client.post("/attendees", body, { headers: { "idempotency-key": "erase-me-register" } });
    assert.equal(replayed.headers.get("idempotent-replayed"), "true");
    assert.deepEqual(replayed.body, { ...attendee, ticketUrl: null });

    expectStatus(await client.delete(`/attendees/${attendee.id}`), 200);
    for (const [path, sent, key] of [
      ["/attendees", body, "erase-me-register"],
      [`/events/${event.id}/check-in`, checkIn, "erase-me-check-in"],
      [`/events/${event.id}/check-in`, checkIn, "erase-me-again"],
    ] as const) {
      const replay = await client.post(path, sent, { headers: { "idempotency-key": key } });
      assert.equal(replay.headers.get("idempotent-replayed"), "true");
      const error = expectError(replay, 404, "NOT_FOUND", null);
      assert.deepEqual(error.details, { erased: true });
      for (const value of [body.email, body.lastName, "Replay Only Ltd", attendee.confirmationCode])
        assert.ok(!JSON.stringify(replay.body).includes(value), `${key}: ${value}`);
    }
    assert.equal(
      expectStatus(await client.get(`/attendees?eventId=${event.id}`), 200).pagination.total,
      0,
      "no registration again",
    );
    // A new key registers anew, as any new request does.
    expectStatus(await client.post("/attendees", body, { headers: { "idempotency-key": "erase-me-new" } }), 201);
  });

  test("attendee.deleted reaches a real receiver, signed, with only the ids; earlier payloads are redacted in the log and in a pending retry", async () => {
    const { client, key, name } = await newClient();
    const all = await hook(client, ["*"]);
    const deletedOnly = await hook(client, ["attendee.deleted"]);
    const event = await createEvent(client);
    // Receivers echo what they got (so the log's response excerpts hold it); `later` first says 503, retry in an hour.
    const later = await hook(client, ["attendee.registered"]);
    receiver.answer = (request) => {
      if (request.path === later.path && receiver.at(later.path).length === 1)
        return { status: 503, headers: { "retry-after": "3600" } };
      return echo(request);
    };
    const input = personalInput(event.id, "Hook");
    const attendee = expectStatus(await client.post("/attendees", input), 201);
    expectStatus(await client.put(`/attendees/${attendee.id}`, { email: "zebulon.renamed@erasure.example" }), 200);
    // event.created, attendee.registered, sustainability.carbon_offset, attendee.updated.
    const before = await logOf(
      client,
      all.webhook.id,
      (ds) => ds.length === 4 && ds.every((d) => d.status === "succeeded"),
      "four delivered",
    );
    assert.ok(
      before.some((d) => d.attempts[0].responseExcerpt?.includes(input.email)),
      "the receiver echoed the personal data",
    );
    const pending = await logOf(
      client,
      later.webhook.id,
      (ds) => ds.length === 1 && ds[0].attemptCount === 1,
      "the 503 recorded",
    );
    assert.equal(pending[0].status, "pending");

    expectStatus(await client.delete(`/attendees/${attendee.id}`), 200);

    const [deleted] = await receiver
      .waitFor(() => receiver.at(deletedOnly.path).length >= 1, "attendee.deleted")
      .then(() => receiver.at(deletedOnly.path));
    assert.equal(deleted!.headers["x-service-event"], "attendee.deleted");
    assert.ok(verifySignature(deletedOnly.secret, deleted!.raw, deleted!.headers["x-service-signature"] as string));
    assert.deepEqual(Object.keys(deleted!.body).sort(), ["account", "createdAt", "data", "id", "type"]);
    assert.equal(deleted!.body.type, "attendee.deleted");
    assert.deepEqual(deleted!.body.data, { attendee: { id: attendee.id, eventId: event.id } });
    assert.deepEqual(deleted!.body.account, { id: key.accountId, name });

    // In the log: each payload that carried the registration keeps its envelope, with ids only in data and erasedAt; the echoes are gone.
    const log = await logOf(client, all.webhook.id, (ds) => ds.length === 5, "attendee.deleted in the log");
    const byId = new Map(before.map((d) => [d.id, d]));
    for (const delivery of log) {
      if (delivery.type === "attendee.deleted") {
        assert.deepEqual(delivery.payload.data, { attendee: { id: attendee.id, eventId: event.id } });
        continue;
      }
      const was = byId.get(delivery.id)!;
      if (delivery.type === "event.created") {
        assert.deepEqual(delivery, was);
        continue;
      }
      assert.deepEqual(Object.keys(delivery.payload).sort(), [
        "account",
        "createdAt",
        "data",
        "erasedAt",
        "id",
        "type",
      ]);
      assert.deepEqual(
        { ...delivery.payload, data: undefined, erasedAt: undefined },
        { ...was.payload, data: undefined, erasedAt: undefined },
      );
      assert.deepEqual(delivery.payload.data, {
        attendee: { id: attendee.id, eventId: event.id },
        event: { id: event.id, name: event.name },
      });
      assert.equal(delivery.status, "succeeded");
      assert.equal(delivery.attempts[0].statusCode, 200);
      assert.equal(delivery.attempts[0].responseExcerpt, null);
    }
    assert.deepEqual(log.map((d) => d.type).sort(), [
      "attendee.deleted",
      "attendee.registered",
      "attendee.updated",
      "event.created",
      "sustainability.carbon_offset",
    ]);
    // The retry that was pending goes out redacted.
    expectStatus(await client.post(`/webhooks/${later.webhook.id}/deliveries/${pending[0].id}/redeliver`, {}), 202);
    await receiver.waitFor(() => receiver.at(later.path).length >= 2, "the redelivery");
    const retried = receiver.at(later.path)[1]!;
    assert.equal(retried.body.id, pending[0].id);
    assert.deepEqual(retried.body.data, {
      attendee: { id: attendee.id, eventId: event.id },
      event: { id: event.id, name: event.name },
    });
    assert.match(retried.body.erasedAt, /^\d{4}-\d{2}-\d{2}T/);
    assert.ok(verifySignature(later.secret, retried.raw, retried.headers["x-service-signature"] as string));

    assert.deepEqual(
      await findInRawStore(personalValues(input, ["zebulon.renamed@erasure.example", attendee.confirmationCode])),
      [],
    );
    receiver.answer = echo;
  });
});

describe("raw store after an erasure and after an event's deletion", () => {
  test("no personal value of an erased registration is left in any table, column, or byte of the SQLite file and its log", async () => {
    const { client } = await newClient();
    const everything = await hook(client, ["*"]);
    const event = await createEvent(client, { capacity: 5 });
    await moveEvent(client, event.id, "published");
    const input = personalInput(event.id, "Raw");
    const attendee = expectStatus(
      await client.post("/attendees", input, { headers: { "idempotency-key": "raw-register" } }),
      201,
    );
    expectStatus(
      await client.put(`/attendees/${attendee.id}`, { company: "Quattlebaum Successor Raw", phone: "+49 30 5550000" }),
      200,
    );
    expectStatus(
      await client.post(
        `/events/${event.id}/check-in`,
        { confirmationCode: attendee.confirmationCode },
        { headers: { "idempotency-key": "raw-check-in" } },
      ),
      200,
    );
    const neighbour = expectStatus(await client.post("/attendees", personalInput(event.id, "Neighbour")), 201);
    await moveEvent(client, event.id, "completed");
    await logOf(
      client,
      everything.webhook.id,
      (ds) => ds.some((d) => d.type === "analytics.report_ready") && ds.every((d) => d.status === "succeeded"),
      "every delivery made",
    );
    const values = personalValues(input, ["Quattlebaum Successor Raw", "+49 30 5550000", attendee.confirmationCode]);
    const before = await findInRawStore(values);
    assert.ok(
      before.some((where) => where.includes("in attendees.")) &&
        before.some((where) => where.includes("webhook_deliveries.payload")),
      before.join("\n"),
    );
    assert.ok(
      before.some((where) => where.includes("idempotency_keys.response_body")),
      "the stored answers held it",
    );
    assert.ok(
      before.some((where) => where.includes("webhook_attempts.response_excerpt")),
      "the receiver's echoes held it",
    );
    assert.ok(
      before.some((where) => where.includes("event_tallies.value")),
      "the event's tallies held its company",
    );

    expectStatus(await client.delete(`/attendees/${attendee.id}`), 200);
    assert.deepEqual(await findInRawStore(values), []);
    // The neighbour's data stays (its report_ready mention included, redacted with the event's report).
    const neighbourFound = await findInRawStore([`Quattlebaum${"Neighbour"}`]);
    assert.ok(
      neighbourFound.some((where) => where.includes("attendees.")),
      neighbourFound.join("\n"),
    );
    assert.equal(expectStatus(await client.get(`/attendees/${neighbour.id}`), 200).lastName, "QuattlebaumNeighbour");
  });

  test("deleting an event leaves none of its registrations' personal values anywhere either", async () => {
    const { client } = await newClient();
    const everything = await hook(client, ["*"]);
    const event = await createEvent(client, { capacity: 5 });
    await moveEvent(client, event.id, "published");
    const first = personalInput(event.id, "EventOne");
    const second = personalInput(event.id, "EventTwo");
    const one = expectStatus(
      await client.post("/attendees", first, { headers: { "idempotency-key": "event-one" } }),
      201,
    );
    const two = expectStatus(await client.post("/attendees", second), 201);
    expectStatus(await client.put(`/attendees/${two.id}`, { title: "Renamed Title EventTwo" }), 200);
    expectError(
      await client.post(
        "/attendees",
        { ...first, firstName: "Again" },
        { headers: { "idempotency-key": "event-dup" } },
      ),
      409,
      "DUPLICATE_REGISTRATION",
    );
    // event.created, event.updated and event.published, and per registration attendee.registered and sustainability.carbon_offset, and one attendee.updated.
    await logOf(
      client,
      everything.webhook.id,
      (ds) => ds.length === 8 && ds.every((d) => d.status === "succeeded"),
      "every delivery made",
    );
    const values = [
      ...personalValues(first, [one.confirmationCode]),
      ...personalValues(second, ["Renamed Title EventTwo", two.confirmationCode]),
    ];
    assert.ok((await findInRawStore(values)).length > 0);

    expectStatus(await client.delete(`/events/${event.id}`), 200);
    assert.deepEqual(await findInRawStore(values), []);
    const log = await logOf(
      client,
      everything.webhook.id,
      (ds) => ds.some((d) => d.type === "event.deleted"),
      "event.deleted",
    );
    for (const delivery of log.filter(
      (d) => d.type.startsWith("attendee.") || d.type === "sustainability.carbon_offset",
    )) {
      assert.match(delivery.payload.erasedAt, /^\d{4}-/);
      assert.ok([one.id, two.id].includes(delivery.payload.data.attendee.id));
    }
    assert.equal(
      log.find((d) => d.type === "event.deleted").payload.erasedAt,
      undefined,
      "the event's own notifications keep their data",
    );
    const replay = await client.post("/attendees", first, { headers: { "idempotency-key": "event-one" } });
    expectError(replay, 404, "NOT_FOUND");
    const duplicate = await client.post(
      "/attendees",
      { ...first, firstName: "Again" },
      { headers: { "idempotency-key": "event-dup" } },
    );
    expectError(duplicate, 404, "NOT_FOUND");
  });
});
