/**
 * End-to-end: the door's check-in links (issue 35; docs/api.md, "Door") through the real server.
 * The organiser makes, lists and revokes links (`url` in the create answer only, null in a replay
 * and in lists; another account's event 404); the JSON twin without a key: the event and its
 * counts, a scan answering 200 with every result reached by real data (another event of the
 * account named, another account's code not found, priced and unpaid, waitlisted, cancelled, a
 * draft event), codes in any case, spacing and dashes, concurrent scans of one code checking in
 * once with one `attendee.checked_in` at a real receiver, one Idempotency-Key answered once
 * (sequentially and concurrently), undo, the name search and the offline list without emails (its
 * hashes as a browser computes them with Web Crypto), a revoked link dead on a second process at
 * the next request, an expired link, bad tokens spending the per-address allowance, and the
 * token in no log line and no table.
 */
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { createCheckInLinkClient, createClient, EventServiceError } from "@event-service/client";
import { queryDatabase, startServer, type TestServer } from "./_setup.ts";
import {
  type Client,
  clientFor,
  createEvent,
  expectError,
  expectStatus,
  moveAttendee,
  moveEvent,
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
  // A few bad tokens are sent on purpose; the allowance itself is tested on a server of its own.
  server = await startServer({
    env: deliveryEnv(tls.certPath, { WEBHOOK_TIMEOUT_MS: "15000", AUTH_FAILURE_LIMIT_PER_MINUTE: "100000" }),
  });
});

after(async () => {
  const output = server.output();
  try {
    assert.equal(await server.stop("SIGTERM"), 0);
  } finally {
    await receiver.close();
    rmSync(tls.dir, { recursive: true, force: true });
  }
  assert.doesNotMatch(output, /"msg":"unexpected error"/);
});

const DOOR_URL = /^http:\/\/127\.0\.0\.1:\d+\/v1\/check-in\/chk_[A-Za-z0-9_-]{43}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A new account of its own, a client of it, and a webhook on the door's notifications at its own receiver path. */
async function newAccount() {
  const key = await server.createKey({ account: `Door Links ${++accounts} ${Date.now()}`, tier: "enterprise" });
  const client = clientFor(server, key.key);
  const path = `/door-links/${accounts}`;
  const webhook = expectStatus(
    await client.post("/webhooks", { url: `${receiver.origin}${path}`, events: ["attendee.checked_in"] }),
    201,
  );
  return { client, webhook, path, key: key.key };
}

/** A new check-in link of the event (201 asserted). */
async function newLink(client: Client, eventId: string, body: Record<string, unknown> = {}) {
  return expectStatus(await client.post(`/events/${eventId}/check-in-links`, body), 201);
}

/** A door's side of a link: requests without a key to its path. */
function door(url: string, on: TestServer = server) {
  const path = new URL(url).pathname;
  return {
    path,
    token: path.split("/").at(-1)!,
    view: () => on.request("GET", path),
    scan: (code: unknown, headers: Record<string, string> = {}) =>
      on.request("POST", `${path}/scan`, { body: { code }, headers }),
    undo: (attendeeId: string) => on.request("DELETE", `${path}/scan/${attendeeId}`),
    search: (search: string) => on.request("GET", `${path}/attendees?search=${encodeURIComponent(search)}`),
    offlineList: () => on.request("GET", `${path}/offline-list`),
  };
}

/** A published event with room for 10, and its door. */
async function openEvent(client: Client, overrides: Record<string, unknown> = {}) {
  const event = await createEvent(client, { capacity: 10, ...overrides });
  await moveEvent(client, event.id, "published");
  const link = await newLink(client, event.id, { label: "North gate" });
  return { event, link, door: door(link.url) };
}

const doorAttendee = (a: any) => ({
  id: a.id,
  firstName: a.firstName,
  lastName: a.lastName,
  ticketType: a.ticketType,
  status: a.status,
});

/** SHA-256 of the normalised code as a browser computes it: Web Crypto over the UTF-8 bytes, hex. */
async function webCryptoCodeHash(typed: string): Promise<string> {
  const bare = typed.replace(/[\s\-\u2010-\u2015\u2212]+/g, "").toUpperCase();
  const parts = /^EVT([0-9A-Z]{4})([0-9A-Z]{4})$/.exec(bare);
  const normalised = parts ? `EVT-${parts[1]}-${parts[2]}` : bare;
  const digest = await globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(normalised));
  return Buffer.from(digest).toString("hex");
}

describe("the organiser's check-in links", () => {
  test("create answers the url once; a replay and the list show null; revoke kills it; another account's event is 404", async () => {
    const { client } = await newAccount();
    const event = await createEvent(client);
    const created = await newLink(client, event.id, { label: "  North gate ", expiresAt: "2038-05-02T00:00:00+02:00" });
    assert.match(created.url, DOOR_URL);
    assert.deepEqual(
      { ...created, url: null },
      {
        id: created.id,
        eventId: event.id,
        label: "North gate",
        url: null,
        expiresAt: "2038-05-01T22:00:00.000Z",
        createdAt: created.createdAt,
      },
    );
    assert.match(created.createdAt, ISO);
    const plain = await newLink(client, event.id);
    assert.deepEqual([plain.label, plain.expiresAt], [null, null]);

    // A replay of the create shows the link without its url: the token was never kept.
    const key = `door-${randomBytes(6).toString("hex")}`;
    const first = await client.post(
      `/events/${event.id}/check-in-links`,
      { label: "Replay" },
      { headers: { "idempotency-key": key } },
    );
    const again = await client.post(
      `/events/${event.id}/check-in-links`,
      { label: "Replay" },
      { headers: { "idempotency-key": key } },
    );
    assert.match(expectStatus(first, 201).url, DOOR_URL);
    assert.equal(again.headers.get("idempotent-replayed"), "true");
    assert.deepEqual(expectStatus(again, 201), { ...first.body, url: null });

    const listed = expectStatus(await client.get(`/events/${event.id}/check-in-links`), 200);
    assert.deepEqual(
      listed.checkInLinks.map((link: any) => [link.id, link.label, link.url]),
      [
        [created.id, "North gate", null],
        [plain.id, null, null],
        [first.body.id, "Replay", null],
      ],
    );
    assert.deepEqual(listed.pagination, {
      page: 1,
      limit: 20,
      total: 3,
      totalPages: 1,
      hasNext: false,
      hasPrev: false,
    });

    // Only the hash is stored.
    const token = new URL(created.url).pathname.split("/").at(-1)!;
    const rows = await queryDatabase(server.database, "select link_hash from check_in_links where id = ?", [
      created.id,
    ]);
    assert.deepEqual(rows, [{ link_hash: createHash("sha256").update(token).digest("hex") }]);

    expectStatus(await door(created.url).view(), 200);
    const revoked = expectStatus(await client.delete(`/events/${event.id}/check-in-links/${created.id}`), 200);
    assert.deepEqual(revoked, {
      success: true,
      message: `Check-in link ${created.id} was revoked.`,
      deletedId: created.id,
    });
    expectError(await door(created.url).view(), 404, "NOT_FOUND");
    expectError(await door(created.url).scan("EVT-AAAA-AAAA"), 404, "NOT_FOUND");
    expectError(await client.delete(`/events/${event.id}/check-in-links/${created.id}`), 404, "NOT_FOUND");
    expectStatus(await door(plain.url).view(), 200);

    // Another account sees none of it.
    const other = (await newAccount()).client;
    expectError(await other.post(`/events/${event.id}/check-in-links`, {}), 404, "NOT_FOUND");
    expectError(await other.get(`/events/${event.id}/check-in-links`), 404, "NOT_FOUND");
    expectError(await other.delete(`/events/${event.id}/check-in-links/${plain.id}`), 404, "NOT_FOUND");

    // Bad input is 400 naming the field.
    expectError(
      await client.post(`/events/${event.id}/check-in-links`, { label: "x".repeat(101) }),
      400,
      "INVALID_REQUEST",
      "label",
    );
    expectError(
      await client.post(`/events/${event.id}/check-in-links`, { expiresAt: "2001-01-01T00:00:00Z" }),
      400,
      "INVALID_REQUEST",
      "expiresAt",
    );
    expectError(
      await client.post(`/events/${event.id}/check-in-links`, { expiresAt: "soon" }),
      400,
      "INVALID_REQUEST",
      "expiresAt",
    );

    // Deleting the event takes its links.
    expectStatus(await client.delete(`/events/${event.id}`), 200);
    expectError(await door(plain.url).view(), 404, "NOT_FOUND");
    assert.deepEqual(
      await queryDatabase(server.database, "select id from check_in_links where event_id = ?", [event.id]),
      [],
    );
  });

  test("an expired link is 404 from its expiry on", async () => {
    const { client } = await newAccount();
    const event = await createEvent(client);
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    const link = await newLink(client, event.id, { expiresAt });
    expectStatus(await door(link.url).view(), 200);
    while (Date.now() <= Date.parse(expiresAt) + 50) await new Promise((resolve) => setTimeout(resolve, 100));
    expectError(await door(link.url).view(), 404, "NOT_FOUND");
  });
});

describe("the door's JSON twin", () => {
  test("GET: the event, the label, doorOpen and the counts of admitted and checked in", async () => {
    const { client } = await newAccount();
    const event = await createEvent(client, {
      name: "Door Fest",
      location: { address: "Hafen 1", city: "Hamburg", country: "DE" },
      timeZone: "Europe/Berlin",
      capacity: 3,
      waitlistEnabled: true,
    });
    const link = await newLink(client, event.id, { label: "Gate A" });
    const [a, b] = [await register(client, event.id), await register(client, event.id)];
    const cancelled = await register(client, event.id);
    await moveAttendee(client, cancelled.id, "cancelled");
    await register(client, event.id);
    await register(client, event.id); // waitlisted
    const closed = expectStatus(await door(link.url).view(), 200);
    assert.deepEqual(closed, {
      event: {
        id: event.id,
        name: "Door Fest",
        status: "draft",
        startDate: "2038-05-01T09:00:00.000Z",
        endDate: "2038-05-01T17:00:00.000Z",
        timeZone: "Europe/Berlin",
        location: { city: "Hamburg", country: "DE" },
      },
      label: "Gate A",
      doorOpen: false,
      counts: { checkedIn: 0, expected: 3 },
    });
    await moveEvent(client, event.id, "published");
    assert.equal(expectStatus(await door(link.url).scan(a.confirmationCode), 200).result, "checked_in");
    const open = expectStatus(await door(link.url).view(), 200);
    assert.deepEqual([open.doorOpen, open.counts], [true, { checkedIn: 1, expected: 3 }]);
    assert.ok(b.id);
  });

  test("every result, reached with real data; a person's ticket is never a 4xx", async () => {
    const { client } = await newAccount();
    const { event, door: gate } = await openEvent(client, { capacity: 2, waitlistEnabled: true });
    const guest = await register(client, event.id, { firstName: "Grace", lastName: "Hopper" });
    const goner = await register(client, event.id);
    await moveAttendee(client, goner.id, "cancelled");
    const taker = await register(client, event.id);
    const waiting = await register(client, event.id);
    assert.equal(waiting.status, "waitlisted");

    const checked = expectStatus(await gate.scan(guest.confirmationCode), 200);
    assert.match(checked.checkedInAt, ISO);
    assert.deepEqual(checked, {
      result: "checked_in",
      attendee: { ...doorAttendee(guest), status: "checked-in" },
      checkedInAt: checked.checkedInAt,
    });
    assert.deepEqual(expectStatus(await gate.scan(guest.confirmationCode), 200), {
      result: "already_checked_in",
      attendee: { ...doorAttendee(guest), status: "checked-in" },
      checkedInAt: checked.checkedInAt,
    });
    assert.deepEqual(expectStatus(await gate.scan(goner.confirmationCode), 200), {
      result: "cancelled",
      attendee: { ...doorAttendee(goner), status: "cancelled" },
      checkedInAt: null,
    });
    assert.deepEqual(expectStatus(await gate.scan(waiting.confirmationCode), 200), {
      result: "not_admitted",
      attendee: doorAttendee(waiting),
      checkedInAt: null,
    });
    assert.deepEqual(expectStatus(await gate.scan("EVT-2222-2222"), 200), {
      result: "not_found",
      attendee: null,
      checkedInAt: null,
    });
    assert.deepEqual(expectStatus(await gate.scan(""), 200), {
      result: "not_found",
      attendee: null,
      checkedInAt: null,
    });
    assert.deepEqual(expectStatus(await gate.scan("https://evil.example/<script>"), 200).result, "not_found");

    // A code of another event of the account names that event; another account's code is not found.
    const elsewhere = await createEvent(client, { name: "Other Fest" });
    const stranger = await register(client, elsewhere.id);
    assert.deepEqual(expectStatus(await gate.scan(stranger.confirmationCode), 200), {
      result: "wrong_event",
      attendee: doorAttendee(stranger),
      checkedInAt: null,
      event: { id: elsewhere.id, name: "Other Fest" },
    });
    const outsider = (await newAccount()).client;
    const foreign = await register(outsider, (await openEvent(outsider)).event.id);
    assert.deepEqual(expectStatus(await gate.scan(foreign.confirmationCode), 200), {
      result: "not_found",
      attendee: null,
      checkedInAt: null,
    });

    // A priced ticket not paid (manual payments: no Stripe here).
    const priced = await openEvent(client, {
      ticketTypes: [{ name: "Standard", price: { amount: 4500, currency: "EUR" } }],
    });
    const unpaid = await register(client, priced.event.id, { ticketType: "Standard" });
    assert.equal(unpaid.status, "pending");
    assert.deepEqual(expectStatus(await priced.door.scan(unpaid.confirmationCode), 200), {
      result: "payment_required",
      attendee: doorAttendee(unpaid),
      checkedInAt: null,
    });
    // Paid, it checks in.
    expectStatus(await client.post(`/attendees/${unpaid.id}/payments`, { amount: 4500, method: "cash" }), 200);
    assert.equal(expectStatus(await priced.door.scan(unpaid.confirmationCode), 200).result, "checked_in");

    // A draft event's door is not open, whatever is scanned.
    const draft = await createEvent(client);
    const early = await register(client, draft.id);
    const draftDoor = door((await newLink(client, draft.id)).url);
    assert.deepEqual(expectStatus(await draftDoor.scan(early.confirmationCode), 200), {
      result: "event_not_open",
      attendee: doorAttendee(early),
      checkedInAt: null,
    });
    assert.deepEqual(expectStatus(await draftDoor.scan("EVT-2222-2222"), 200).result, "event_not_open");
    assert.equal(expectStatus(await client.get(`/attendees/${early.id}`), 200).status, "confirmed");
    assert.equal(expectStatus(await client.get(`/attendees/${taker.id}`), 200).status, "confirmed");

    // Only a malformed body is 400.
    expectError(await server.request("POST", `${gate.path}/scan`, { body: {} }), 400, "INVALID_REQUEST", "code");
    expectError(await gate.scan(42), 400, "INVALID_REQUEST", "code");
    expectError(await gate.scan("x".repeat(201)), 400, "INVALID_REQUEST", "code");
  });

  test("a code in any case, spacing and dashes, and a ticket's QR content, find the registration", async () => {
    const { client } = await newAccount();
    const { event, door: gate } = await openEvent(client);
    const forms = (code: string) => [
      code.toLowerCase(),
      ` ${code.replaceAll("-", " ")} `,
      code.replaceAll("-", ""),
      code.replaceAll("-", "\u2013"),
    ];
    const one = await register(client, event.id);
    const answers = [];
    for (const form of forms(one.confirmationCode)) answers.push(expectStatus(await gate.scan(form), 200));
    assert.deepEqual(
      answers.map((answer) => [answer.result, answer.attendee.id]),
      [
        ["checked_in", one.id],
        ["already_checked_in", one.id],
        ["already_checked_in", one.id],
        ["already_checked_in", one.id],
      ],
    );
    // The QR image of a registration encodes its confirmation code: what a camera reads is what is scanned.
    const attendee = await register(client, event.id);
    const svg = await server.request("GET", `/v1/qr/${attendee.id}.svg`);
    assert.equal(svg.status, 200);
    assert.equal(expectStatus(await gate.scan(attendee.confirmationCode), 200).attendee.id, attendee.id);
  });

  test("two doors scanning one code at once: one checked_in, the others already_checked_in with its time, one attendee.checked_in", async () => {
    const { client, path } = await newAccount();
    const { event, door: north } = await openEvent(client);
    const south = door((await newLink(client, event.id, { label: "South" })).url);
    const attendee = await register(client, event.id);
    const scans = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 ? north : south).scan(attendee.confirmationCode)),
    );
    const bodies = scans.map((scan) => expectStatus(scan, 200));
    const results = bodies.map((body) => body.result).sort();
    assert.deepEqual(results, ["already_checked_in", ...Array(8).fill("already_checked_in"), "checked_in"].sort());
    const first = bodies.find((body) => body.result === "checked_in")!;
    for (const body of bodies) assert.equal(body.checkedInAt, first.checkedInAt);
    const received = await receiver.waitFor(() => receiver.at(path).length >= 1, "the check-in's notification");
    assert.ok(received.length >= 1);
    // Every other request reached the server first; a second notification would have been written with the first.
    const deliveries = expectStatus(await client.get("/webhooks"), 200).webhooks;
    const stored = expectStatus(await client.get(`/webhooks/${deliveries[0].id}/deliveries?limit=100`), 200).deliveries;
    assert.deepEqual(
      stored.map((d: any) => d.type),
      ["attendee.checked_in"],
    );
    assert.deepEqual(
      receiver.at(path).map((r) => [r.body.type, r.body.data.attendee.id]),
      [["attendee.checked_in", attendee.id]],
    );
    assert.equal(expectStatus(await north.view(), 200).counts.checkedIn, 1);
  });

  test("one Idempotency-Key: sent twice, and twice at once, one check-in and the same answer", async () => {
    const { client, path } = await newAccount();
    const { event, door: gate } = await openEvent(client);
    const one = await register(client, event.id);
    const key = `scan-${randomBytes(6).toString("hex")}`;
    const first = await gate.scan(one.confirmationCode, { "idempotency-key": key });
    const again = await gate.scan(one.confirmationCode, { "idempotency-key": key });
    assert.equal(expectStatus(first, 200).result, "checked_in");
    assert.equal(again.headers.get("idempotent-replayed"), "true");
    assert.deepEqual(expectStatus(again, 200), first.body);

    // Two at once (the offline queue sent twice): one runs, the other waits for its answer or is told it is in use.
    const two = await register(client, event.id);
    const key2 = `scan-${randomBytes(6).toString("hex")}`;
    const send = async () => {
      for (;;) {
        const response = await gate.scan(two.confirmationCode, { "idempotency-key": key2 });
        if (response.status !== 409) return response;
        assert.equal(response.body.error.code, "IDEMPOTENCY_KEY_IN_USE");
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const [a, b] = await Promise.all([send(), send()]);
    assert.deepEqual(expectStatus(a, 200), expectStatus(b, 200));
    assert.equal(a.body.result, "checked_in");
    // Two check-ins, two notifications: one per registration.
    await receiver.waitFor(() => receiver.at(path).length >= 2, "two check-ins");
    const webhooks = expectStatus(await client.get("/webhooks"), 200).webhooks;
    const stored = expectStatus(await client.get(`/webhooks/${webhooks[0].id}/deliveries?limit=100`), 200).deliveries;
    assert.deepEqual(
      stored.map((d: any) => d.type),
      ["attendee.checked_in", "attendee.checked_in"],
    );

    // Another door's same key is a key of its own.
    const other = door((await newLink(client, event.id)).url);
    const three = await register(client, event.id);
    const elsewhere = await other.scan(three.confirmationCode, { "idempotency-key": key });
    assert.equal(elsewhere.headers.get("idempotent-replayed"), null);
    assert.equal(expectStatus(elsewhere, 200).attendee.id, three.id);
  });

  test("undo: back to confirmed; not checked in is 422; another event's attendee is 404", async () => {
    const { client } = await newAccount();
    const { event, door: gate } = await openEvent(client);
    const attendee = await register(client, event.id);
    expectStatus(await gate.scan(attendee.confirmationCode), 200);
    assert.deepEqual(expectStatus(await gate.undo(attendee.id), 200), {
      result: "undone",
      attendee: doorAttendee(attendee),
      checkedInAt: null,
    });
    const read = expectStatus(await client.get(`/attendees/${attendee.id}`), 200);
    assert.deepEqual([read.status, read.checkedInAt], ["confirmed", null]);
    const refused = expectError(await gate.undo(attendee.id), 422, "INVALID_STATE_TRANSITION");
    assert.equal(refused.details.reason, "not_checked_in");
    const elsewhere = await register(client, (await openEvent(client)).event.id);
    expectError(await gate.undo(elsewhere.id), 404, "NOT_FOUND");
    expectError(await gate.undo("att_nope"), 404, "NOT_FOUND");
    assert.equal(expectStatus(await gate.scan(attendee.confirmationCode), 200).result, "checked_in");
  });

  test("the name search: this event's registrations by first or last name, 2 characters at least, at most 20, never an email", async () => {
    const { client } = await newAccount();
    const { event, door: gate } = await openEvent(client, { capacity: 40 });
    const ada = await register(client, event.id, {
      firstName: "Ada",
      lastName: "Lovelace",
      email: "zed.hidden@example.com",
    });
    const alan = await register(client, event.id, {
      firstName: "Alan",
      lastName: "Turing",
      email: "ada.mail@example.com",
      company: "Adastra",
    });
    for (let i = 0; i < 22; i++)
      await register(client, event.id, { firstName: "Many", lastName: `Smith ${String(i).padStart(2, "0")}` });
    const other = await openEvent(client);
    await register(client, other.event.id, { firstName: "Ada", lastName: "Elsewhere" });

    assert.deepEqual(expectStatus(await gate.search(""), 200), { attendees: [] });
    assert.deepEqual(expectStatus(await gate.search("a"), 200), { attendees: [] });
    assert.deepEqual(expectStatus(await gate.search(" a "), 200), { attendees: [] });
    // "ada" is in Alan's email and company: names only.
    const found = expectStatus(await gate.search("ADA"), 200);
    assert.deepEqual(found, { attendees: [{ ...doorAttendee(ada), checkedInAt: null }] });
    assert.deepEqual(expectStatus(await gate.search("zed"), 200), { attendees: [] });
    assert.deepEqual(ids(expectStatus(await gate.search("turi"), 200).attendees), [alan.id]);
    assert.deepEqual(ids(expectStatus(await gate.search("alan tu"), 200).attendees), [alan.id]);
    const many = expectStatus(await gate.search("smith"), 200).attendees;
    assert.equal(many.length, 20);
    assert.deepEqual(many.map((a: any) => a.lastName).slice(0, 2), ["Smith 00", "Smith 01"]);
    assert.doesNotMatch(JSON.stringify(many), /@/);
    assert.deepEqual(Object.keys(found.attendees[0]!).sort(), [
      "checkedInAt",
      "firstName",
      "id",
      "lastName",
      "status",
      "ticketType",
    ]);
    expectStatus(await gate.scan(ada.confirmationCode), 200);
    assert.match(expectStatus(await gate.search("love"), 200).attendees[0].checkedInAt, ISO);
    // LIKE's wildcards are text.
    assert.deepEqual(expectStatus(await gate.search("%%"), 200), { attendees: [] });
  });

  test("the offline list: every registration of the event, codes as the documented hash, no email", async () => {
    const { client } = await newAccount();
    const { event, door: gate } = await openEvent(client, {
      capacity: 2,
      waitlistEnabled: true,
      ticketTypes: [
        { name: "Free", price: { amount: 0, currency: "EUR" } },
        { name: "Paid", price: { amount: 1000, currency: "EUR" } },
      ],
    });
    const free = await register(client, event.id, { ticketType: "Free", email: "free.one@example.com" });
    const paid = await register(client, event.id, { ticketType: "Paid", email: "paid.one@example.com" });
    const waiting = await register(client, event.id, { ticketType: "Free", email: "wait.one@example.com" });
    expectStatus(await gate.scan(free.confirmationCode), 200);
    const list = expectStatus(await gate.offlineList(), 200);
    assert.match(list.generatedAt, ISO);
    assert.deepEqual(list.event, expectStatus(await gate.view(), 200).event);
    const byId = Object.fromEntries(list.attendees.map((entry: any) => [entry.id, entry]));
    assert.deepEqual(Object.keys(byId).sort(), [free.id, paid.id, waiting.id].sort());
    assert.deepEqual(byId[paid.id], {
      ...doorAttendee(paid),
      codeHash: await webCryptoCodeHash(paid.confirmationCode),
      checkedInAt: null,
      paymentRequired: true,
    });
    assert.equal(byId[free.id].status, "checked-in");
    assert.equal(byId[free.id].paymentRequired, false);
    assert.equal(
      byId[free.id].codeHash,
      await webCryptoCodeHash(` ${free.confirmationCode.toLowerCase().replaceAll("-", " ")}`),
    );
    assert.equal(byId[waiting.id].status, "waitlisted");
    const text = JSON.stringify(list);
    assert.doesNotMatch(text, /@|EVT-/);
    assert.deepEqual(Object.keys(byId[paid.id]).sort(), [
      "checkedInAt",
      "codeHash",
      "firstName",
      "id",
      "lastName",
      "paymentRequired",
      "status",
      "ticketType",
    ]);
  });

  test("through the client: events.checkInLinks and createCheckInLinkClient", async () => {
    const { key } = await newAccount();
    const organiser = createClient({ baseUrl: server.url, apiKey: key });
    const event = await organiser.events.create({
      name: "Client Door",
      location: { address: "Main St 1", city: "Leipzig", country: "DE" },
      startDate: "2038-06-01T08:00:00.000Z",
      endDate: "2038-06-01T16:00:00.000Z",
      capacity: 10,
      category: "conference",
    });
    await organiser.events.update(event.id, { status: "published" });
    const made = await organiser.events.checkInLinks.create(event.id, { label: "Client gate" });
    assert.match(made.url!, DOOR_URL);
    const attendee = await organiser.attendees.register({
      eventId: event.id,
      firstName: "Katherine",
      lastName: "Johnson",
      email: "katherine.door@example.com",
      ticketType: "general",
    });
    const gate = createCheckInLinkClient(made.url);
    assert.deepEqual((await gate.get()).counts, { checkedIn: 0, expected: 1 });
    const scanned = await gate.scan(attendee.confirmationCode.toLowerCase(), { idempotencyKey: "client-scan-1" });
    assert.equal(scanned.result, "checked_in");
    assert.deepEqual(
      await gate.scan(attendee.confirmationCode.toLowerCase(), { idempotencyKey: "client-scan-1" }),
      scanned,
    );
    assert.deepEqual(ids((await gate.search("kath")).attendees), [attendee.id]);
    assert.equal((await gate.offlineList()).attendees.length, 1);
    assert.equal((await gate.undo(attendee.id)).result, "undone");
    const listed = await organiser.events.checkInLinks.list(event.id);
    assert.deepEqual(
      listed.checkInLinks.map((link) => [link.id, link.url]),
      [[made.id, null]],
    );
    await organiser.events.checkInLinks.revoke(event.id, made.id);
    await assert.rejects(gate.get(), (error) => error instanceof EventServiceError && error.status === 404);
    assert.throws(() => createCheckInLinkClient(null), TypeError);
    assert.throws(() => createCheckInLinkClient(`${server.url}/v1/tickets/tkt_x`), TypeError);
  });

  test("the access log never carries a door's token", async () => {
    const { client } = await newAccount();
    const { door: gate } = await openEvent(client);
    const requestId = `door-log-${randomBytes(6).toString("hex")}`;
    const headers = { "x-request-id": requestId };
    await server.request("GET", gate.path, { headers });
    await server.request("POST", `${gate.path}/scan`, { body: { code: "EVT-2222-2222" }, headers });
    await server.request("GET", `${gate.path}/offline-list`, { headers });
    await server.request("GET", `${gate.path}x`, { headers });
    const lines = () =>
      server
        .output()
        .split("\n")
        .filter((line) => line.includes(requestId));
    const deadline = Date.now() + 10_000;
    while (lines().length < 4 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(lines().length, 4, server.output().slice(-2000));
    const secret = gate.token.slice(4, 24);
    assert.deepEqual(
      lines().filter((line) => line.includes(secret)),
      [],
    );
    assert.ok(
      lines().every((line) => line.includes("/v1/check-in/chk_…")),
      lines().join("\n"),
    );
  });
});

describe("a revoked link on two processes, and bad tokens", () => {
  test("revoked on one process, the other answers 404 at its very next request", async () => {
    const second = await startServer({ database: server.database });
    try {
      const { client } = await newAccount();
      const { event, link } = await openEvent(client);
      const there = door(link.url, second);
      expectStatus(await there.view(), 200);
      expectStatus(await there.search("ad"), 200);
      expectStatus(await client.delete(`/events/${event.id}/check-in-links/${link.id}`), 200);
      expectError(await there.view(), 404, "NOT_FOUND");
      expectError(await there.scan("EVT-2222-2222"), 404, "NOT_FOUND");
    } finally {
      assert.equal(await second.stop(), 0);
    }
  });

  test("bad tokens spend the per-address allowance of bad keys (429 after it); a live link spends none of it, only its own budget (DOOR_LINK_LIMIT_PER_MINUTE)", async () => {
    const limited = await startServer({ env: { AUTH_FAILURE_LIMIT_PER_MINUTE: "3", DOOR_LINK_LIMIT_PER_MINUTE: "7" } });
    try {
      const client = clientFor(limited, (await limited.createKey({ account: "Door Limited" })).key);
      const event = await createEvent(client);
      const link = expectStatus(await client.post(`/events/${event.id}/check-in-links`, {}), 201);
      const good = new URL(link.url).pathname;
      const bad = good.replace(/[^/]+$/, `chk_${randomBytes(32).toString("base64url")}`);
      // Past the address's allowance of 3: a live link spends none of it, only its own 7.
      for (let i = 0; i < 7; i++) expectStatus(await limited.request("GET", good), 200);
      const spent = await limited.request("POST", `${good}/scan`, { body: { code: "EVT-2222-2222" } });
      const overBudget = expectError(spent, 429, "RATE_LIMIT_EXCEEDED");
      assert.equal(overBudget.details.scope, "checkInLink");
      assert.match(overBudget.message, /through this check-in link \(limit 7 per minute\)/);
      for (let i = 0; i < 3; i++) expectError(await limited.request("GET", bad), 404, "NOT_FOUND");
      const refused = expectError(
        await limited.request("POST", `${bad}/scan`, { body: { code: "EVT-2222-2222" } }),
        429,
        "RATE_LIMIT_EXCEEDED",
      );
      assert.equal(refused.details.scope, "address");
    } finally {
      assert.equal(await limited.stop(), 0);
    }
  });
});

function ids(items: Array<{ id: string }>): string[] {
  return items.map((item) => item.id);
}
