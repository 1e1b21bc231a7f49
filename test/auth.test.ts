/**
 * End-to-end: API keys made by the CLI, authentication (401), scopes (403), revocation on a
 * running server, and the isolation of accounts (another account's data is 404 everywhere).
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { type ApiResponse, type CreatedKey, startServer, type TestServer } from "./_setup.ts";
import { attendeeInput, eventInput } from "./fixtures/builders.ts";
import {
  type Client,
  clientFor,
  createEvent,
  expectError,
  expectStatus,
  ids,
  moveEvent,
  PREFIXES,
  register,
} from "./fixtures/api.ts";
import { sleep } from "./fixtures/conventions.ts";

const ALL_SCOPES = [
  "events:read",
  "events:write",
  "attendees:read",
  "attendees:write",
  "webhooks:read",
  "webhooks:write",
  "analytics:read",
  "vendors:read",
  "vendors:write",
  "payments:read",
  "payments:write",
];

let server: TestServer;

before(async () => {
  server = await startServer();
});

after(async () => {
  const output = server.output();
  assert.equal(await server.stop("SIGTERM"), 0, "the server exits 0 on SIGTERM");
  assert.doesNotMatch(output, /"msg":"unexpected error"/, "no request failed unexpectedly");
});

describe("keys via the CLI", () => {
  test("keys create --json prints id, key, accountId, tier and every scope when none is named", async () => {
    const created = await server.createKey({ account: "Cli Corp", tier: "starter" });
    assert.deepEqual(Object.keys(created).sort(), ["accountCreated", "accountId", "id", "key", "scopes", "tier"]);
    assert.equal(created.accountCreated, true);
    assert.equal(created.tier, "starter");
    assert.deepEqual([...created.scopes].sort(), [...ALL_SCOPES].sort());
    assert.match(created.key, /^\S{20,}$/);
    assert.notEqual(created.key, created.id);
    const response = await server.request("GET", "/v1/events", { key: created.key });
    assert.deepEqual(expectStatus(response, 200).events, []);
  });

  test("--scopes limits the key; the same account name reuses the account; the account id works too", async () => {
    const [full, readOnly, other] = await Promise.all([
      server.createKey({ account: "Shared Account", tier: "professional" }),
      server.createKey({ account: "Shared Account", tier: "free", scopes: ["events:read", "attendees:read"] }),
      server.createKey({ account: "Other Account" }),
    ]);
    assert.deepEqual([...readOnly.scopes].sort(), ["attendees:read", "events:read"]);
    assert.equal(readOnly.tier, "free");
    assert.equal(readOnly.accountId, full.accountId);
    assert.notEqual(other.accountId, full.accountId);
    assert.notEqual(readOnly.id, full.id);
    const byId = await server.createKey({ account: full.accountId });
    assert.equal(byId.accountId, full.accountId);

    // One account, one set of data, whichever of its keys is used.
    const event = await createEvent(clientFor(server, full.key));
    for (const key of [readOnly.key, byId.key]) {
      assert.equal(expectStatus(await server.request("GET", `/v1/events/${event.id}`, { key }), 200).id, event.id);
    }
    expectError(await server.request("GET", `/v1/events/${event.id}`, { key: other.key }), 404, "NOT_FOUND");
  });

  test("keys list --json never shows a secret or its hash", async () => {
    const created = await server.createKey({ account: "Listed Ltd", scopes: ["events:read"] });
    const result = await server.cli(["keys", "list", "--json"]);
    assert.equal(result.code, 0, result.stderr);
    const keys = JSON.parse(result.stdout) as Array<Record<string, unknown>>;
    assert.ok(Array.isArray(keys));
    const entry = keys.find((key) => key.id === created.id);
    assert.ok(entry, `key ${created.id} listed`);
    assert.equal(entry.accountId, created.accountId);
    assert.equal(entry.tier, "professional");
    assert.deepEqual(entry.scopes, ["events:read"]);
    const hash = createHash("sha256").update(created.key).digest("hex");
    for (const secret of [created.key, created.key.slice(-24), hash, hash.slice(0, 24)]) {
      assert.ok(!result.stdout.includes(secret), "no secret or hash in the list");
    }
    assert.doesNotMatch(result.stdout, /[0-9a-f]{40,}/i, "no long hex string (secret or hash) in the list");
    for (const key of keys) {
      for (const field of Object.keys(key)) assert.doesNotMatch(field, /^(key|secret|hash|keyHash|key_hash)$/i);
    }

    const plain = await server.cli(["keys", "list"]);
    assert.equal(plain.code, 0, plain.stderr);
    assert.ok(plain.stdout.includes(created.id));
    assert.ok(!plain.stdout.includes(created.key) && !plain.stdout.includes(hash));
  });

  test("keys revoke from another process (the CLI): the running server answers 401 within a second; the account's other keys still work", async () => {
    // A server of its own: the polling below must not spend the shared server's allowance of
    // requests without a valid key (60 a minute per address) that the other tests here use.
    const server = await startServer({ env: { AUTH_FAILURE_LIMIT_PER_MINUTE: "1000" } });
    try {
      // The doomed key comes from the CLI on the running server's database (the other tests make
      // theirs in process): the server accepts it, then refuses it once the CLI revokes it.
      const made = await server.cli(["keys", "create", "--account", "Revocable", "--json"]);
      assert.equal(made.code, 0, made.stderr);
      const doomed = JSON.parse(made.stdout) as CreatedKey;
      const survivor = await server.createKey({ account: "Revocable" });
      assert.equal(survivor.accountId, doomed.accountId);
      const event = await createEvent(clientFor(server, doomed.key));
      // Now the server remembers the key.
      expectStatus(await server.request("GET", `/v1/events/${event.id}`, { key: doomed.key }), 200);

      const revoked = await server.cli(["keys", "revoke", doomed.id]);
      assert.equal(revoked.code, 0, revoked.stderr);
      const revokedAt = performance.now();
      // A revoked key is refused within 1 s from another process. A request every 50 ms until
      // 1.5 s have passed and at least three were sent a second or more after the CLI finished (on a
      // loaded machine one answer may take longer than the whole window); every one of those must
      // be refused (a slow answer cannot hide staleness: the server judges a request when it gets
      // it, which is after it was sent).
      const answers: Array<{ sentAfterMs: number; status: number }> = [];
      const lateCount = () => answers.filter((answer) => answer.sentAfterMs >= 1_000).length;
      while (performance.now() - revokedAt < 1_500 || lateCount() < 3) {
        const sentAfterMs = Math.round(performance.now() - revokedAt);
        answers.push({
          sentAfterMs,
          status: (await server.request("GET", `/v1/events/${event.id}`, { key: doomed.key })).status,
        });
        await sleep(50);
      }
      const late = answers.filter((answer) => answer.sentAfterMs >= 1_000);
      const seen = answers.map((answer) => `${answer.sentAfterMs}ms:${answer.status}`).join(" ");
      assert.ok(late.length >= 3, "requests were sent after the second");
      assert.ok(
        late.every((answer) => answer.status === 401),
        seen,
      );
      assert.ok(
        answers.every((answer) => answer.status === 200 || answer.status === 401),
        seen,
      );

      for (const prefix of PREFIXES) {
        expectError(
          await server.request("GET", `${prefix}/events/${event.id}`, { key: doomed.key }),
          401,
          "UNAUTHORIZED",
        );
        expectError(
          await server.request("POST", `${prefix}/events`, { key: doomed.key, body: eventInput() }),
          401,
          "UNAUTHORIZED",
        );
      }
      assert.equal(
        expectStatus(await server.request("GET", `/v1/events/${event.id}`, { key: survivor.key }), 200).id,
        event.id,
      );

      const again = await server.cli(["keys", "revoke", doomed.id]);
      assert.notEqual(again.code, 0, "revoking twice fails");
      expectError(await server.request("GET", "/v1/events", { key: doomed.key }), 401, "UNAUTHORIZED");
    } finally {
      assert.equal(await server.stop("SIGTERM"), 0);
    }
  });
});

describe("401 UNAUTHORIZED", () => {
  let key: CreatedKey;
  let eventId: string;
  let attendeeId: string;

  before(async () => {
    key = await server.createKey({ account: "Auth Checks" });
    const client = clientFor(server, key.key);
    eventId = (await createEvent(client)).id;
    attendeeId = (await register(client, eventId)).id;
  });

  const routes = (): Array<[string, string, unknown]> => [
    ["POST", "/events", eventInput()],
    ["GET", "/events", undefined],
    ["GET", `/events/${eventId}`, undefined],
    ["PUT", `/events/${eventId}`, { name: "Hijacked" }],
    ["DELETE", `/events/${eventId}`, undefined],
    ["POST", `/events/${eventId}/check-in`, { confirmationCode: "EVT-2222-2222" }],
    ["DELETE", `/events/${eventId}/check-in/${attendeeId}`, undefined],
    ["POST", "/attendees", attendeeInput(eventId)],
    ["GET", "/attendees", undefined],
    ["GET", `/attendees/${attendeeId}`, undefined],
    ["PUT", `/attendees/${attendeeId}`, { status: "cancelled" }],
  ];

  test("a 401 carries the Bearer challenge", async () => {
    const missing = await server.request("GET", "/v1/events");
    expectError(missing, 401, "UNAUTHORIZED");
    assert.equal(missing.headers.get("www-authenticate"), 'Bearer realm="event-service"');
    const wrong = await server.request("GET", "/v1/events", { key: "esk_0000" });
    expectError(wrong, 401, "UNAUTHORIZED");
    assert.equal(wrong.headers.get("www-authenticate"), 'Bearer realm="event-service", error="invalid_token"');
  });

  test("every route under both prefixes needs a key", async () => {
    for (const prefix of PREFIXES) {
      for (const [method, path, body] of routes()) {
        const error = expectError(await server.request(method, `${prefix}${path}`, { body }), 401, "UNAUTHORIZED");
        assert.equal(typeof error.message, "string");
      }
    }
    // Nothing happened.
    const client = clientFor(server, key.key);
    const event = expectStatus(await client.get(`/events/${eventId}`), 200);
    assert.notEqual(event.name, "Hijacked");
    assert.equal(expectStatus(await client.get(`/attendees/${attendeeId}`), 200).status, "confirmed");
  });

  const badHeaders: Array<[string, (key: string) => string]> = [
    ["an unknown key", () => "Bearer esk_000000000000000000000000000000000000000000000000"],
    ["a garbage token", () => "Bearer not-a-key"],
    ["an empty bearer token", () => "Bearer "],
    ["the scheme alone", () => "Bearer"],
    ["the key without a scheme", (k) => k],
    ["the Basic scheme", (k) => `Basic ${Buffer.from(`${k}:`).toString("base64")}`],
    ["the Token scheme", (k) => `Token ${k}`],
    ["trailing garbage after the key", (k) => `Bearer ${k} extra`],
    ["a truncated key", (k) => `Bearer ${k.slice(0, -1)}`],
    ["a key with an extra character", (k) => `Bearer ${k}0`],
  ];
  for (const [name, header] of badHeaders) {
    test(`401 for ${name}`, async () => {
      const response = await server.request("GET", "/v1/events", { headers: { authorization: header(key.key) } });
      expectError(response, 401, "UNAUTHORIZED");
    });
  }

  test("authentication comes before body validation", async () => {
    expectError(await server.request("POST", "/v1/events", { body: { nonsense: true } }), 401, "UNAUTHORIZED");
    expectError(
      await server.request("POST", "/api/attendees", {
        raw: "{not json",
        headers: { "content-type": "application/json" },
      }),
      401,
      "UNAUTHORIZED",
    );
  });

  test("/health and QR images need no key", async () => {
    const health = await server.request("GET", "/health");
    assert.equal(health.status, 200);
    assert.deepEqual(health.body, { status: "ok" });
    const qr = await fetch(`${server.url}/v1/qr/${attendeeId}.png`);
    assert.equal(qr.status, 200);
    assert.equal(qr.headers.get("content-type"), "image/png");
  });
});

describe("403 FORBIDDEN: scopes", () => {
  let full: Client;
  const keys: Record<string, CreatedKey> = {};

  before(async () => {
    const setup = await server.createKey({ account: "Scoped" });
    full = clientFor(server, setup.key);
    const made = await Promise.all([
      server.createKey({ account: "Scoped", scopes: ["events:read", "attendees:write"] }),
      server.createKey({ account: "Scoped", scopes: ["events:write", "attendees:read"] }),
      server.createKey({ account: "Scoped", scopes: ["webhooks:read", "webhooks:write", "analytics:read"] }),
    ]);
    for (const key of made) keys[key.scopes.join(",")] = key;
  });

  /** A registration of a new published event (the door is open) of the full key's account. */
  async function guestAtTheDoor() {
    const event = await createEvent(full);
    await moveEvent(full, event.id, "published");
    return { event, attendee: await register(full, event.id) };
  }

  type Route = { name: string; scope: string; ok: number; send(client: Client): Promise<ApiResponse> };
  const routes: Route[] = [
    { name: "POST /events", scope: "events:write", ok: 201, send: (c) => c.post("/events", eventInput()) },
    { name: "GET /events", scope: "events:read", ok: 200, send: (c) => c.get("/events") },
    {
      name: "GET /events/:id",
      scope: "events:read",
      ok: 200,
      send: async (c) => c.get(`/events/${(await createEvent(full)).id}`),
    },
    {
      name: "PUT /events/:id",
      scope: "events:write",
      ok: 200,
      send: async (c) => c.put(`/events/${(await createEvent(full)).id}`, { capacity: 7 }),
    },
    {
      name: "DELETE /events/:id",
      scope: "events:write",
      ok: 200,
      send: async (c) => c.delete(`/events/${(await createEvent(full)).id}`),
    },
    {
      name: "POST /events/:id/check-in",
      scope: "attendees:write",
      ok: 200,
      send: async (c) => {
        const { event, attendee } = await guestAtTheDoor();
        return c.post(`/events/${event.id}/check-in`, { confirmationCode: attendee.confirmationCode });
      },
    },
    {
      name: "DELETE /events/:id/check-in/:attendeeId",
      scope: "attendees:write",
      ok: 200,
      send: async (c) => {
        const { event, attendee } = await guestAtTheDoor();
        expectStatus(
          await full.post(`/events/${event.id}/check-in`, { confirmationCode: attendee.confirmationCode }),
          200,
        );
        return c.delete(`/events/${event.id}/check-in/${attendee.id}`);
      },
    },
    {
      name: "POST /attendees",
      scope: "attendees:write",
      ok: 201,
      send: async (c) => c.post("/attendees", attendeeInput((await createEvent(full)).id)),
    },
    { name: "GET /attendees", scope: "attendees:read", ok: 200, send: (c) => c.get("/attendees") },
    {
      name: "GET /attendees/:id",
      scope: "attendees:read",
      ok: 200,
      send: async (c) => c.get(`/attendees/${(await register(full, (await createEvent(full)).id)).id}`),
    },
    {
      name: "PUT /attendees/:id",
      scope: "attendees:write",
      ok: 200,
      send: async (c) =>
        c.put(`/attendees/${(await register(full, (await createEvent(full)).id)).id}`, { company: "Scoped" }),
    },
    {
      name: "DELETE /attendees/:id",
      scope: "attendees:write",
      ok: 200,
      send: async (c) => c.delete(`/attendees/${(await register(full, (await createEvent(full)).id)).id}`),
    },
  ];

  /** A `:write` scope includes the `:read` of its family; a read-only key never writes. */
  const grants = (scopes: readonly string[], scope: string) =>
    scopes.includes(scope) || (scope.endsWith(":read") && scopes.includes(scope.replace(":read", ":write")));

  for (const route of routes) {
    test(`${route.name} needs ${route.scope}${route.scope.endsWith(":read") ? " (or its :write)" : ""}; every other key gets 403 FORBIDDEN`, async () => {
      for (const key of Object.values(keys)) {
        for (const prefix of PREFIXES) {
          const response = await route.send(clientFor(server, key.key, prefix));
          if (grants(key.scopes, route.scope)) {
            expectStatus(response, route.ok);
          } else {
            expectError(response, 403, "FORBIDDEN");
          }
        }
      }
    });
  }

  test("a forbidden write changes nothing, and the scope check comes before body validation", async () => {
    const event = await createEvent(full);
    const reader = clientFor(server, Object.values(keys).find((key) => key.scopes.includes("events:read"))!.key);
    expectError(await reader.put(`/events/${event.id}`, { name: "Not allowed" }), 403, "FORBIDDEN");
    expectError(await reader.delete(`/events/${event.id}`), 403, "FORBIDDEN");
    expectError(await reader.post("/events", { bogus: true }), 403, "FORBIDDEN");
    expectError(await reader.get("/analytics/emission-factors"), 403, "FORBIDDEN");
    assert.deepEqual(expectStatus(await full.get(`/events/${event.id}`), 200), event);
  });
});

describe("accounts never see each other's data", () => {
  let alice: Client;
  let bob: Client;
  let aliceEvent: any;
  let aliceAttendee: any;
  let bobEvent: any;

  before(async () => {
    const [a, b] = await Promise.all([
      server.createKey({ account: "Alice Events" }),
      server.createKey({ account: "Bob Events" }),
    ]);
    alice = clientFor(server, a.key);
    bob = clientFor(server, b.key);
    aliceEvent = await createEvent(alice, { name: "Alice Private Gala", tags: ["private"] });
    aliceEvent = await moveEvent(alice, aliceEvent.id, "published");
    aliceAttendee = await register(alice, aliceEvent.id, { email: "guest@alice.example", company: "Alice Corp" });
    bobEvent = await createEvent(bob, { name: "Bob Meetup" });
    await register(bob, bobEvent.id, { email: "guest@bob.example" });
  });

  /** The 404 for `id` looks exactly like the 404 for an id that never existed. */
  function sameAsMissing(response: ApiResponse, missing: ApiResponse, id: string, missingId: string) {
    const error = expectError(response, 404, "NOT_FOUND");
    const missingError = expectError(missing, 404, "NOT_FOUND");
    assert.deepEqual(
      JSON.parse(JSON.stringify(error).replaceAll(id, "ID")),
      JSON.parse(JSON.stringify(missingError).replaceAll(missingId, "ID")),
    );
  }

  for (const prefix of PREFIXES) {
    test(`through ${prefix}: get, update, delete, check in, register: 404 as if it did not exist`, async () => {
      const other = clientFor(server, bob.key, prefix);
      const missingEvent = "evt_000000000000000000000000";
      const missingAttendee = "att_000000000000000000000000";
      sameAsMissing(
        await other.get(`/events/${aliceEvent.id}`),
        await other.get(`/events/${missingEvent}`),
        aliceEvent.id,
        missingEvent,
      );
      sameAsMissing(
        await other.put(`/events/${aliceEvent.id}`, { name: "Taken over" }),
        await other.put(`/events/${missingEvent}`, { name: "Taken over" }),
        aliceEvent.id,
        missingEvent,
      );
      sameAsMissing(
        await other.put(`/events/${aliceEvent.id}`, { status: "cancelled" }),
        await other.put(`/events/${missingEvent}`, { status: "cancelled" }),
        aliceEvent.id,
        missingEvent,
      );
      sameAsMissing(
        await other.delete(`/events/${aliceEvent.id}`),
        await other.delete(`/events/${missingEvent}`),
        aliceEvent.id,
        missingEvent,
      );
      sameAsMissing(
        await other.post(`/events/${aliceEvent.id}/check-in`, { confirmationCode: aliceAttendee.confirmationCode }),
        await other.post(`/events/${missingEvent}/check-in`, { confirmationCode: aliceAttendee.confirmationCode }),
        aliceEvent.id,
        missingEvent,
      );
      sameAsMissing(
        await other.delete(`/events/${aliceEvent.id}/check-in/${aliceAttendee.id}`),
        await other.delete(`/events/${missingEvent}/check-in/${aliceAttendee.id}`),
        aliceEvent.id,
        missingEvent,
      );
      const registration = expectError(
        await other.post("/attendees", attendeeInput(aliceEvent.id)),
        404,
        "NOT_FOUND",
        "eventId",
      );
      assert.ok(!JSON.stringify(registration).includes("Alice"));
      sameAsMissing(
        await other.get(`/attendees/${aliceAttendee.id}`),
        await other.get(`/attendees/${missingAttendee}`),
        aliceAttendee.id,
        missingAttendee,
      );
      sameAsMissing(
        await other.put(`/attendees/${aliceAttendee.id}`, { status: "cancelled" }),
        await other.put(`/attendees/${missingAttendee}`, { status: "cancelled" }),
        aliceAttendee.id,
        missingAttendee,
      );
      sameAsMissing(
        await other.delete(`/attendees/${aliceAttendee.id}`),
        await other.delete(`/attendees/${missingAttendee}`),
        aliceAttendee.id,
        missingAttendee,
      );
      // Alice's own confirmation code does not work on Bob's event either (a draft: its door is
      // closed, and the answer says nothing of the code).
      const door = expectError(
        await other.post(`/events/${bobEvent.id}/check-in`, { confirmationCode: aliceAttendee.confirmationCode }),
        422,
        "INVALID_STATE_TRANSITION",
      );
      assert.equal(door.details.reason, "event_not_published");
      assert.ok(!JSON.stringify(door).includes(aliceAttendee.id));

      // Nothing of Alice's changed.
      assert.deepEqual(expectStatus(await alice.get(`/events/${aliceEvent.id}`), 200), {
        ...aliceEvent,
        attendeeCount: 1,
      });
      // (A read never shows the ticket link the create answer gave.)
      assert.deepEqual(expectStatus(await alice.get(`/attendees/${aliceAttendee.id}`), 200), {
        ...aliceAttendee,
        ticketUrl: null,
      });
    });

    test(`through ${prefix}: lists show only the caller's own data`, async () => {
      const other = clientFor(server, bob.key, prefix);
      const events = expectStatus(await other.get("/events?limit=100"), 200);
      assert.deepEqual(ids(events.events), [bobEvent.id]);
      assert.equal(events.pagination.total, 1);
      for (const query of [
        "search=alice",
        "tags=private",
        "status=published",
        `search=${encodeURIComponent("Private Gala")}`,
        "minScore=0&search=gala",
        "sortBy=carbonFootprint&search=gala",
      ]) {
        const body = expectStatus(await other.get(`/events?${query}`), 200);
        assert.deepEqual(body.events, [], query);
        assert.equal(body.pagination.total, 0, query);
      }
      const attendees = expectStatus(await other.get("/attendees?limit=100"), 200);
      assert.equal(attendees.pagination.total, 1);
      assert.equal(attendees.attendees[0].email, "guest@bob.example");
      for (const query of [`eventId=${aliceEvent.id}`, "search=alice", "carbonOffset=false&search=guest@alice"]) {
        const body = expectStatus(await other.get(`/attendees?${query}`), 200);
        assert.deepEqual(body.attendees, [], query);
        assert.equal(body.pagination.total, 0, query);
      }
      // And the other way round.
      const mine = expectStatus(await alice.get("/events"), 200);
      assert.deepEqual(ids(mine.events), [aliceEvent.id]);
      const mineAttendees = expectStatus(await alice.get(`/attendees?eventId=${bobEvent.id}`), 200);
      assert.equal(mineAttendees.pagination.total, 0);
    });
  }

  test("the same email may register with two accounts' events; duplicates are per event", async () => {
    await register(bob, bobEvent.id, { email: "guest@alice.example" });
    expectError(
      await alice.post("/attendees", attendeeInput(aliceEvent.id, { email: "GUEST@alice.example" })),
      409,
      "DUPLICATE_REGISTRATION",
    );
  });
});
