/**
 * The delivery side of the outbox on the real SQL storage: claims under leases (two workers
 * never hold one attempt), per-webhook bounds, attempt recording and the failure count, the
 * retry schedule, the SSRF guard again at delivery, and the worker end to end with an
 * injected fetch.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, test } from "node:test";
import { createEventService } from "../src/service.ts";
import { nextAttemptAt } from "../src/rules/delivery-status.ts";
import type { AttemptWrite, Storage, StorageTransaction } from "../src/storage.ts";
import { createDeliveryWorker } from "../src/delivery-worker.ts";
import { parseRetryAfterMs, sendDelivery } from "../src/webhooks/send-delivery.ts";
import { verifySignature } from "../src/webhooks/signature.ts";
import { sqliteStorage } from "./_sqlite.ts";
import { EVENT } from "./_fixtures.ts";
import { recordAttempt } from "./_webhook-helpers.ts";

/** A storage with one account, `webhooks` webhooks on public literals (private networks allowed) and `events` events created. */
async function setUp(options: { webhooks?: number; events?: number } = {}) {
  const storage = await sqliteStorage();
  const service = createEventService({ storage, webhooks: { allowPrivateNetworks: true } });
  const { accountId } = await service.keys.create({ account: "Acme" });
  const account = service.forAccount(accountId);
  const hooks = [];
  for (let i = 0; i < (options.webhooks ?? 1); i++)
    hooks.push(await account.webhooks.create({ url: `https://93.184.216.34/hook/${i}`, events: ["event.created"] }));
  for (let i = 0; i < (options.events ?? 1); i++) await account.events.create(EVENT);
  return { storage, service, account, accountId, hooks };
}

const NOW = "2041-01-01T00:00:00.000Z";
const LATER = "2041-01-01T00:01:00.000Z";
const claim = (
  storage: Storage,
  workerId: string,
  overrides: Partial<Parameters<Storage["claimDueDeliveries"]>[0]> = {},
) => storage.claimDueDeliveries({ workerId, now: NOW, leaseUntil: LATER, limit: 100, ...overrides });

/** Attempts begin in the order they are made, a millisecond apart (failures count in the order attempts began). */
let attemptsMade = 0;
const attempt = (number: number, succeeded: boolean, statusCode: number | null = succeeded ? 200 : 500) => ({
  number,
  startedAt: new Date(Date.parse(NOW) + ++attemptsMade).toISOString(),
  durationMs: 5,
  statusCode,
  error: null,
  responseExcerpt: null,
  succeeded,
});

describe("claiming due deliveries", () => {
  test("a claimed delivery is held: a second worker gets nothing until the lease expires", async () => {
    const { storage } = await setUp({ events: 3 });
    const first = await claim(storage, "a");
    assert.equal(first.length, 3);
    assert.deepEqual(await claim(storage, "b"), []);
    const afterLease = await claim(storage, "b", {
      now: "2041-01-01T00:01:00.001Z",
      leaseUntil: "2041-01-01T00:02:00.000Z",
    });
    assert.deepEqual(afterLease.map((d) => d.id).sort(), first.map((d) => d.id).sort());
    // The first worker lost its lease: its late record changes nothing.
    const late = await recordAttempt(storage, {
      deliveryId: first[0]!.id,
      workerId: "a",
      attempt: attempt(1, true),
      nextAttemptAt: null,
      gone: false,
      now: NOW,
    });
    assert.deepEqual(late, { recorded: false, webhookDisabled: false });
  });

  test("concurrent claims never hand out one delivery twice", async () => {
    const { storage } = await setUp({ events: 30 });
    const results = await Promise.all(["a", "b", "c", "d"].map((worker) => claim(storage, worker, { limit: 10 })));
    const ids = results.flat().map((d) => d.id);
    assert.equal(ids.length, 30);
    assert.equal(new Set(ids).size, 30);
  });

  test("the room given per webhook (one left for the first, two for any other); the global limit", async () => {
    const { storage, hooks } = await setUp({ webhooks: 2, events: 5 });
    const claimed = await claim(storage, "a", { webhookRoom: { each: 2, left: { [hooks[0]!.id]: 1 } } });
    const count = (id: string) => claimed.filter((d) => d.webhookId === id).length;
    assert.equal(count(hooks[0]!.id), 1);
    assert.equal(count(hooks[1]!.id), 2);
    assert.equal((await claim(storage, "b", { limit: 3 })).length, 3);
  });

  test("a claimed delivery carries what one attempt needs", async () => {
    const { storage, hooks, accountId } = await setUp();
    const [delivery] = await claim(storage, "a");
    assert.equal(delivery!.url, "https://93.184.216.34/hook/0");
    assert.equal(delivery!.secret, hooks[0]!.secret);
    assert.equal(delivery!.accountId, accountId);
    assert.equal(delivery!.type, "event.created");
    assert.equal(delivery!.attemptCount, 0);
    assert.equal(delivery!.finalAttempt, null);
    const envelope = JSON.parse(delivery!.payload);
    assert.equal(envelope.id, delivery!.id);
    assert.deepEqual(envelope.account, { id: accountId, name: "Acme" });
  });

  test("deliveries of an inactive webhook are not claimed", async () => {
    const { storage, account, hooks } = await setUp();
    await account.webhooks.update(hooks[0]!.id, { active: false });
    assert.deepEqual(await claim(storage, "a"), []);
  });
});

describe("recording attempts", () => {
  test("failures count per webhook across deliveries; the 10th disables it; a success resets the count", async () => {
    const { storage, account, hooks } = await setUp({ events: 12 });
    const deliveries = await claim(storage, "a");
    for (const [index, delivery] of deliveries.slice(0, 9).entries()) {
      const result = await recordAttempt(storage, {
        deliveryId: delivery.id,
        workerId: "a",
        attempt: attempt(1, false),
        nextAttemptAt: LATER,
        gone: false,
        now: NOW,
      });
      assert.deepEqual(result, { recorded: true, webhookDisabled: false }, `failure ${index + 1}`);
    }
    assert.equal((await account.webhooks.get(hooks[0]!.id)).consecutiveFailures, 9);
    await recordAttempt(storage, {
      deliveryId: deliveries[9]!.id,
      workerId: "a",
      attempt: attempt(1, true),
      nextAttemptAt: null,
      gone: false,
      now: NOW,
    });
    assert.equal((await account.webhooks.get(hooks[0]!.id)).consecutiveFailures, 0);
    const again = await claim(storage, "b", { now: LATER, leaseUntil: "2041-01-01T00:05:00.000Z" });
    let disabledAt = -1;
    for (const [index, delivery] of [...again, deliveries[10]!, deliveries[11]!].entries()) {
      const workerId = index < again.length ? "b" : "a";
      const result = await recordAttempt(storage, {
        deliveryId: delivery.id,
        workerId,
        attempt: attempt(delivery.attemptCount + 1, false),
        nextAttemptAt: LATER,
        gone: false,
        now: NOW,
      });
      if (result.webhookDisabled) disabledAt = index;
    }
    assert.equal(disabledAt, 9, "disabled by the 10th consecutive failure");
    const webhook = await account.webhooks.get(hooks[0]!.id);
    assert.equal(webhook.active, false);
    assert.equal(webhook.disabledAt, NOW);
    assert.equal(webhook.consecutiveFailures, 11);
  });

  test("a 410 disables at once; the delivery log keeps every attempt", async () => {
    const { storage, account, hooks } = await setUp();
    const [delivery] = await claim(storage, "a");
    const result = await recordAttempt(storage, {
      deliveryId: delivery!.id,
      workerId: "a",
      attempt: attempt(1, false, 410),
      nextAttemptAt: null,
      gone: true,
      now: NOW,
    });
    assert.deepEqual(result, { recorded: true, webhookDisabled: true });
    const log = await account.webhooks.deliveries(hooks[0]!.id);
    assert.equal(log.deliveries[0]!.status, "failed");
    assert.deepEqual(
      log.deliveries[0]!.attempts.map((a) => a.statusCode),
      [410],
    );
  });

  test("a change that rolls back writes no delivery", async () => {
    const { storage, account, hooks } = await setUp({ events: 0 });
    await account.webhooks.update(hooks[0]!.id, { events: ["*"] });
    const event = await account.events.create({ ...EVENT, capacity: 1 });
    await account.attendees.register({
      eventId: event.id,
      firstName: "A",
      lastName: "B",
      email: "a@example.com",
      ticketType: "general",
    });
    const before = (await account.webhooks.deliveries(hooks[0]!.id)).pagination.total;
    await assert.rejects(
      account.attendees.register({
        eventId: event.id,
        firstName: "C",
        lastName: "D",
        email: "c@example.com",
        ticketType: "general",
      }),
      /full/,
    );
    await assert.rejects(account.events.update(event.id, { status: "completed" }));
    assert.equal((await account.webhooks.deliveries(hooks[0]!.id)).pagination.total, before);
    void storage;
  });
});

describe("redelivery", () => {
  test("a final delivery gets one more attempt, final again; a pending one is only brought forward", async () => {
    const { storage, account, hooks } = await setUp({ events: 2 });
    const [done, waiting] = await claim(storage, "a");
    await recordAttempt(storage, {
      deliveryId: done!.id,
      workerId: "a",
      attempt: attempt(1, true),
      nextAttemptAt: null,
      gone: false,
      now: NOW,
    });
    await recordAttempt(storage, {
      deliveryId: waiting!.id,
      workerId: "a",
      attempt: attempt(1, false),
      nextAttemptAt: "2041-01-01T05:00:00.000Z",
      gone: false,
      now: NOW,
    });
    const again = await account.webhooks.redeliver(hooks[0]!.id, done!.id);
    assert.deepEqual([again.status, again.attemptCount], ["pending", 1]);
    const forward = await account.webhooks.redeliver(hooks[0]!.id, waiting!.id);
    assert.equal(forward.status, "pending");
    assert.notEqual(forward.nextAttemptAt, "2041-01-01T05:00:00.000Z");
    const [one, two] = (
      await claim(storage, "b", { now: "2100-01-01T00:00:00.000Z", leaseUntil: "2100-01-01T00:01:00.000Z" })
    ).sort((x, y) => (x.id === done!.id ? -1 : y.id === done!.id ? 1 : 0));
    assert.deepEqual([one!.id, one!.finalAttempt], [done!.id, 2]);
    assert.deepEqual([two!.id, two!.finalAttempt], [waiting!.id, null]);
    await assert.rejects(account.webhooks.redeliver(hooks[0]!.id, "dlv_missing"), /not found/);
  });
});

describe("the retry schedule", () => {
  const outcome = (
    number: number,
    fields: { succeeded?: boolean; statusCode?: number; retryAfterMs?: number | null; gone?: boolean } = {},
  ) => ({
    attempt: { ...attempt(number, fields.succeeded ?? false, fields.statusCode ?? 500) },
    retryAfterMs: fields.retryAfterMs ?? null,
    gone: fields.gone ?? false,
  });
  const delays = [0, 60_000, 600_000, 3_600_000];
  const now = new Date(NOW);
  const after = (ms: number) => new Date(now.getTime() + ms).toISOString();

  test("immediately, then 1 min, 10 min, 1 h; then final", () => {
    assert.equal(nextAttemptAt({ finalAttempt: null }, outcome(1), delays, now)?.toISOString(), after(0));
    assert.equal(nextAttemptAt({ finalAttempt: null }, outcome(2), delays, now)?.toISOString(), after(60_000));
    assert.equal(nextAttemptAt({ finalAttempt: null }, outcome(3), delays, now)?.toISOString(), after(600_000));
    assert.equal(nextAttemptAt({ finalAttempt: null }, outcome(4), delays, now)?.toISOString(), after(3_600_000));
    assert.equal(nextAttemptAt({ finalAttempt: null }, outcome(5), delays, now), null);
  });

  test("success, 410 and the last attempt of a redelivery are final; Retry-After wins when longer", () => {
    assert.equal(
      nextAttemptAt({ finalAttempt: null }, outcome(1, { succeeded: true, statusCode: 200 }), delays, now),
      null,
    );
    assert.equal(nextAttemptAt({ finalAttempt: null }, outcome(1, { statusCode: 410, gone: true }), delays, now), null);
    assert.equal(nextAttemptAt({ finalAttempt: 3 }, outcome(3), delays, now), null);
    assert.equal(
      nextAttemptAt(
        { finalAttempt: null },
        outcome(1, { statusCode: 429, retryAfterMs: 30_000 }),
        delays,
        now,
      )?.toISOString(),
      after(30_000),
    );
    assert.equal(
      nextAttemptAt(
        { finalAttempt: null },
        outcome(3, { statusCode: 503, retryAfterMs: 30_000 }),
        delays,
        now,
      )?.toISOString(),
      after(600_000),
    );
  });

  test("Retry-After is capped at the schedule's delay plus 1 hour: a receiver cannot push its retries into the far future", () => {
    const hour = 3_600_000;
    // Asked for a year: the first retry (schedule: immediately) waits 1 h, the fourth (schedule: 1 h) waits 2 h.
    assert.equal(
      nextAttemptAt(
        { finalAttempt: null },
        outcome(1, { statusCode: 429, retryAfterMs: 365 * 24 * hour }),
        delays,
        now,
      )?.toISOString(),
      after(hour),
    );
    assert.equal(
      nextAttemptAt(
        { finalAttempt: null },
        outcome(4, { statusCode: 503, retryAfterMs: 365 * 24 * hour }),
        delays,
        now,
      )?.toISOString(),
      after(2 * hour),
    );
    // Below the cap it is honoured as asked.
    assert.equal(
      nextAttemptAt(
        { finalAttempt: null },
        outcome(2, { statusCode: 429, retryAfterMs: hour }),
        delays,
        now,
      )?.toISOString(),
      after(hour),
    );
    // Values that would make an invalid date (past the year 275760) or are not finite numbers at all.
    for (const header of ["99999999999", "9".repeat(20), "9".repeat(400)]) {
      const asked = parseRetryAfterMs(header, now);
      const next = nextAttemptAt(
        { finalAttempt: null },
        outcome(1, { statusCode: 429, retryAfterMs: asked }),
        delays,
        now,
      );
      assert.equal(next?.toISOString(), after(hour), header);
    }
    const farDate = parseRetryAfterMs("Fri, 31 Dec 9999 23:59:59 GMT", now);
    assert.equal(
      nextAttemptAt(
        { finalAttempt: null },
        outcome(2, { statusCode: 503, retryAfterMs: farDate }),
        delays,
        now,
      )?.toISOString(),
      after(60_000 + hour),
    );
  });

  test("Retry-After in seconds or as an HTTP date", () => {
    assert.equal(parseRetryAfterMs("120", now), 120_000);
    assert.equal(parseRetryAfterMs(new Date(now.getTime() + 90_000).toUTCString(), now), 90_000);
    assert.equal(parseRetryAfterMs("soon", now), null);
    assert.equal(parseRetryAfterMs(null, now), null);
  });
});

describe("sending", () => {
  const delivery = {
    id: "dlv_1",
    webhookId: "wh_1",
    accountId: "acct_1",
    url: "https://hooks.example.test/in",
    secret: "whsec_x",
    previousSecret: null,
    previousSecretExpiresAt: null,
    type: "event.created",
    payload: '{"id":"dlv_1"}',
    attemptCount: 0,
    finalAttempt: null,
  };

  test("the SSRF guard runs again before each attempt: a name now resolving to 127.0.0.1, or a private literal, is not contacted", async () => {
    let calls = 0;
    const fetch = (async () => {
      calls += 1;
      return new Response("ok");
    }) as typeof globalThis.fetch;
    const toLoopback = async () => ["127.0.0.1"];
    const refused = await sendDelivery(delivery, {
      timeoutMs: 1000,
      allowPrivateNetworks: false,
      resolveHost: toLoopback,
      fetch,
    });
    assert.equal(refused.attempt.succeeded, false);
    assert.equal(refused.attempt.statusCode, null);
    assert.match(
      refused.attempt.error!,
      /^refused before sending: url: hooks\.example\.test is or resolves to a non-public address/,
    );
    for (const url of ["https://10.0.0.7/in", "https://[::1]/in", "https://169.254.169.254/latest"]) {
      const literal = await sendDelivery({ ...delivery, url }, { timeoutMs: 1000, allowPrivateNetworks: false, fetch });
      assert.match(literal.attempt.error!, /non-public/, url);
    }
    assert.equal(calls, 0);
    const allowed = await sendDelivery(delivery, {
      timeoutMs: 1000,
      allowPrivateNetworks: true,
      resolveHost: toLoopback,
      fetch,
    });
    assert.equal(allowed.attempt.succeeded, true);
    assert.equal(calls, 1);
  });

  test("a stored URL that breaks today's URL rules (a port below 1024, credentials, not https) fails its attempt unsent, saying why", async () => {
    let calls = 0;
    const fetch = (async () => {
      calls += 1;
      return new Response("ok");
    }) as typeof globalThis.fetch;
    const cases: Array<[string, string]> = [
      [
        "https://93.184.216.34:22/in",
        "refused before sending: url: port 22 is not allowed; use 443 or a port from 1024 to 65535",
      ],
      [
        "https://93.184.216.34:0/in",
        "refused before sending: url: port 0 is not allowed; use 443 or a port from 1024 to 65535",
      ],
      [
        "https://user:pw@93.184.216.34/in",
        "refused before sending: url: must not carry credentials (user or password)",
      ],
      ["http://93.184.216.34/in", "refused before sending: url: must use https://"],
    ];
    for (const [url, error] of cases) {
      for (const allowPrivateNetworks of [false, true]) {
        const result = await sendDelivery({ ...delivery, url }, { timeoutMs: 1000, allowPrivateNetworks, fetch });
        assert.deepEqual(
          [result.attempt.succeeded, result.attempt.statusCode, result.attempt.error, result.attempt.number],
          [false, null, error, 1],
          url,
        );
      }
    }
    assert.equal(calls, 0);
    const allowed = await sendDelivery(
      { ...delivery, url: "https://93.184.216.34:8443/in" },
      { timeoutMs: 1000, allowPrivateNetworks: false, fetch },
    );
    assert.deepEqual([allowed.attempt.succeeded, calls], [true, 1]);
  });

  test("the request: POST, the exact payload, spec headers, signature, no redirect following", async () => {
    let seen: { url: string; init: RequestInit } | undefined;
    const fetch = (async (url: string, init: RequestInit) => {
      seen = { url, init };
      return new Response("moved", { status: 301, headers: { location: "https://elsewhere.test/" } });
    }) as unknown as typeof globalThis.fetch;
    const result = await sendDelivery(delivery, { timeoutMs: 1000, allowPrivateNetworks: true, fetch });
    assert.equal(seen!.url, delivery.url);
    assert.equal(seen!.init.method, "POST");
    assert.equal(seen!.init.redirect, "manual");
    assert.equal(seen!.init.body, delivery.payload);
    const headers = seen!.init.headers as Record<string, string>;
    assert.equal(headers["content-type"], "application/json");
    assert.equal(headers["user-agent"], "Service-Webhooks/1.0");
    assert.equal(headers["x-service-event"], "event.created");
    assert.equal(headers["x-service-delivery"], "dlv_1");
    assert.ok(verifySignature("whsec_x", delivery.payload, headers["x-service-signature"]));
    assert.deepEqual(
      [result.attempt.statusCode, result.attempt.succeeded, result.attempt.responseExcerpt],
      [301, false, "moved"],
    );
  });
});

describe("the receiver's answer: a 2xx status is a delivery; the body is read up to the excerpt", () => {
  const delivery = {
    id: "dlv_2",
    webhookId: "wh_1",
    accountId: "acct_1",
    url: "",
    secret: "whsec_x",
    previousSecret: null,
    previousSecretExpiresAt: null,
    type: "event.created",
    payload: '{"id":"dlv_2"}',
    attemptCount: 0,
    finalAttempt: null,
  };

  /** A local receiver answering every request with `answer`; resolves `closed` when the request's connection closes. */
  async function receiver(t: { after: (fn: () => unknown) => void }, answer: (response: ServerResponse) => void) {
    let closed!: () => void;
    const connectionClosed = new Promise<void>((resolve) => (closed = resolve));
    const server = createServer((request, response) => {
      request.socket.once("close", closed);
      request.resume();
      request.once("end", () => answer(response));
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    t.after(() => {
      server.closeAllConnections();
      server.close();
    });
    // Webhook URLs are https://; the injected fetch (a real HTTP client) takes the attempt to
    // this plain-HTTP receiver instead, body, stream and connection as a receiver's.
    const local = `http://127.0.0.1:${(server.address() as AddressInfo).port}/in`;
    const fetch = ((_url: string, init: RequestInit) => globalThis.fetch(local, init)) as typeof globalThis.fetch;
    return { url: "https://receiver.test/in", fetch, connectionClosed };
  }

  test("a 200 with a 10 MB body sent slowly is delivered as soon as the excerpt is read; the rest is dropped, the connection closed", async (t) => {
    const chunk = "x".repeat(64 * 1024);
    let timer: NodeJS.Timeout | undefined;
    t.after(() => clearInterval(timer));
    let sent = 0;
    const { url, fetch, connectionClosed } = await receiver(t, (response) => {
      response.writeHead(200, { "content-type": "text/plain", "content-length": String(10 * 1024 * 1024) });
      response.write(`${"a".repeat(1000)}${"b".repeat(100)}`);
      // The rest, 64 KiB every 100 ms: more than a minute for the whole body.
      timer = setInterval(() => {
        if (response.destroyed || sent > 10 * 1024 * 1024) return clearInterval(timer);
        sent += chunk.length;
        response.write(chunk);
      }, 100);
    });
    const result = await sendDelivery({ ...delivery, url }, { timeoutMs: 30_000, allowPrivateNetworks: true, fetch });
    assert.deepEqual(
      [result.attempt.succeeded, result.attempt.statusCode, result.attempt.error, result.attempt.responseExcerpt],
      [true, 200, null, `${"a".repeat(1000)}${"b".repeat(24)}`],
    );
    assert.ok(result.attempt.durationMs < 10_000, `took ${result.attempt.durationMs} ms`);
    // Dropped, not drained: the receiver sees its connection closed long before the body could end.
    await connectionClosed;
    assert.ok(sent < 5 * 1024 * 1024, `${sent} bytes were sent before the close`);
  });

  test("a 2xx whose body stalls before the excerpt is full is still a delivery, with the excerpt as far as it came", async (t) => {
    const { url, fetch, connectionClosed } = await receiver(t, (response) => {
      response.writeHead(202, { "content-type": "text/plain", "content-length": "100000" });
      response.write("accepted, thinking");
    });
    // Long enough for the status line to arrive on a loaded machine; the body never ends, so the
    // attempt waits it out.
    const result = await sendDelivery({ ...delivery, url }, { timeoutMs: 3_000, allowPrivateNetworks: true, fetch });
    assert.deepEqual(
      [result.attempt.succeeded, result.attempt.statusCode, result.attempt.error, result.attempt.responseExcerpt],
      [true, 202, null, "accepted, thinking"],
    );
    await connectionClosed;
  });

  test("a 500 whose body stalls is a failure with its status and excerpt", async (t) => {
    const { url, fetch } = await receiver(t, (response) => {
      response.writeHead(500, { "content-type": "text/plain", "content-length": "100000" });
      response.write("broken");
    });
    const result = await sendDelivery({ ...delivery, url }, { timeoutMs: 300, allowPrivateNetworks: true, fetch });
    assert.deepEqual(
      [result.attempt.succeeded, result.attempt.statusCode, result.attempt.responseExcerpt],
      [false, 500, "broken"],
    );
  });
});

describe("the worker", () => {
  test("sends every due delivery once, records it, and stops after its attempts in flight", async () => {
    const { storage, account, hooks } = await setUp({ events: 5 });
    const received: string[] = [];
    const fetch = (async (_url: string, init: RequestInit) => {
      received.push(JSON.parse(String(init.body)).id);
      await new Promise((resolve) => setTimeout(resolve, 5));
      return new Response(null, { status: 204 });
    }) as unknown as typeof globalThis.fetch;
    const attempts: string[] = [];
    const worker = createDeliveryWorker({
      storage,
      fetch,
      allowPrivateNetworks: true,
      pollIntervalMs: 20,
      onAttempt: (info) => attempts.push(info.deliveryId),
    });
    const other = createDeliveryWorker({ storage, fetch, allowPrivateNetworks: true, pollIntervalMs: 20 });
    worker.start();
    other.start();
    const deadline = Date.now() + 10_000;
    while (
      (await account.webhooks.deliveries(hooks[0]!.id, { status: "succeeded" })).pagination.total < 5 &&
      Date.now() < deadline
    ) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await Promise.all([worker.stop(), other.stop()]);
    assert.equal(received.length, 5);
    assert.equal(new Set(received).size, 5);
    const log = await account.webhooks.deliveries(hooks[0]!.id);
    assert.deepEqual(
      log.deliveries.map((d) => [d.status, d.attemptCount]),
      Array(5).fill(["succeeded", 1]),
    );
  });

  test("a receiver that hangs holds at most its per-webhook share: the other webhook's deliveries all go out meanwhile", async () => {
    const { storage, account, hooks } = await setUp({ webhooks: 2, events: 10 });
    const slowUrl = "https://93.184.216.34/hook/0";
    let slowInFlight = 0;
    let slowMax = 0;
    const release: Array<() => void> = [];
    const fetch = (async (url: string) => {
      if (url !== slowUrl) return new Response(null, { status: 200 });
      slowInFlight += 1;
      slowMax = Math.max(slowMax, slowInFlight);
      await new Promise<void>((resolve) => release.push(resolve));
      slowInFlight -= 1;
      return new Response(null, { status: 200 });
    }) as unknown as typeof globalThis.fetch;
    const worker = createDeliveryWorker({
      storage,
      fetch,
      allowPrivateNetworks: true,
      pollIntervalMs: 10,
      concurrency: 4,
      perWebhookConcurrency: 2,
      perAccountConcurrency: 4,
      timeoutMs: 60_000,
    });
    worker.start();
    const fast = hooks[1]!.id;
    const deadline = Date.now() + 10_000;
    while (
      (await account.webhooks.deliveries(fast, { status: "succeeded" })).pagination.total < 10 &&
      Date.now() < deadline
    ) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(
      (await account.webhooks.deliveries(fast, { status: "succeeded" })).pagination.total,
      10,
      "every delivery to the fast receiver went out",
    );
    assert.equal(slowMax, 2, "never more than 2 attempts at once to the slow receiver");
    assert.equal((await account.webhooks.deliveries(hooks[0]!.id, { status: "succeeded" })).pagination.total, 0);
    // Released, the slow receiver's deliveries follow, two at a time.
    const drain = setInterval(() => release.splice(0).forEach((resolve) => resolve()), 5);
    while (
      (await account.webhooks.deliveries(hooks[0]!.id, { status: "succeeded" })).pagination.total < 10 &&
      Date.now() < deadline
    ) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    clearInterval(drain);
    await worker.stop();
    assert.equal((await account.webhooks.deliveries(hooks[0]!.id, { status: "succeeded" })).pagination.total, 10);
    assert.equal(slowMax, 2);
  });
});

describe("wake-ups while a receiver is at its bound", () => {
  test("a wake-up does not look while a webhook holds its bound; the next attempt to end looks, and finds the new work", async () => {
    const { storage, account, hooks } = await setUp({ webhooks: 1, events: 2 });
    const release: Array<() => void> = [];
    const sent: string[] = [];
    const fetch = (async (url: string) => {
      sent.push(url);
      if (url.endsWith("/hook/0")) await new Promise<void>((resolve) => release.push(resolve));
      return new Response(null, { status: 200 });
    }) as unknown as typeof globalThis.fetch;
    let looks = 0;
    const counted = {
      ...storage,
      claimDueDeliveries: (claim: Parameters<Storage["claimDueDeliveries"]>[0]) => (
        looks++, storage.claimDueDeliveries(claim)
      ),
    };
    // An hour between polls: every look below comes from a wake-up or an attempt that ends.
    const worker = createDeliveryWorker({
      storage: counted,
      fetch,
      allowPrivateNetworks: true,
      pollIntervalMs: 3_600_000,
      perWebhookConcurrency: 2,
      timeoutMs: 60_000,
    });
    worker.start();
    const until = async (what: string, condition: () => boolean) => {
      const deadline = Date.now() + 10_000;
      while (!condition()) {
        assert.ok(Date.now() < deadline, `gave up waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    await until("both deliveries to the hanging receiver", () => release.length === 2);
    // A second webhook, and a change for it, queued while the first holds both of its slots.
    const other = await account.webhooks.create({ url: "https://93.184.216.34/hook/1", events: ["event.created"] });
    await account.events.create(EVENT);
    const before = looks;
    for (let i = 0; i < 5; i++) worker.wake();
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(looks, before, "no look while the bound is held");
    assert.deepEqual(
      sent.filter((url) => url.endsWith("/hook/1")),
      [],
    );
    release.shift()!();
    await until("the other webhook's delivery", () => sent.some((url) => url.endsWith("/hook/1")));
    assert.ok(looks > before, "the attempt that ended looked");
    // The rest answered as they arrive: the first receiver's third delivery too.
    const drain = setInterval(() => release.splice(0).forEach((resolve) => resolve()), 5);
    await until(
      "the third delivery to the first receiver",
      () => sent.filter((url) => url.endsWith("/hook/0")).length === 3,
    );
    await worker.stop();
    clearInterval(drain);
    assert.equal((await account.webhooks.deliveries(other.id, { status: "succeeded" })).pagination.total, 1);
    assert.equal((await account.webhooks.deliveries(hooks[0]!.id, { status: "succeeded" })).pagination.total, 3);
  });
});

/** A fetch whose every request waits until the test releases it, then answers 200. */
function heldAnswers() {
  const release: Array<() => void> = [];
  const fetch = (async () => {
    await new Promise<void>((resolve) => release.push(resolve));
    return new Response(null, { status: 200 });
  }) as unknown as typeof globalThis.fetch;
  return { fetch, release };
}

/** Waits (up to 10 s) until `condition` holds. */
async function until(what: string, condition: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    assert.ok(Date.now() < deadline, `gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("refilling a receiver at its bound", () => {
  test("a webhook at its bound is refilled once a quarter of its slots are free, by one claim of several deliveries", async () => {
    const { storage, account, hooks } = await setUp({ webhooks: 1, events: 12 });
    const { fetch, release } = heldAnswers();
    const claims: number[] = [];
    const counted = {
      ...storage,
      claimDueDeliveries: async (claim: Parameters<Storage["claimDueDeliveries"]>[0]) => {
        const claimed = await storage.claimDueDeliveries(claim);
        claims.push(claimed.length);
        return claimed;
      },
    };
    // Bound 8: a quarter is 2. An hour between polls: every claim below comes from an attempt that ends.
    const worker = createDeliveryWorker({
      storage: counted,
      fetch,
      allowPrivateNetworks: true,
      pollIntervalMs: 3_600_000,
      perWebhookConcurrency: 8,
      timeoutMs: 60_000,
    });
    worker.start();
    await until("the bound's 8 attempts", () => release.length === 8);
    const taken = () => claims.reduce((sum, n) => sum + n, 0);
    assert.equal(taken(), 8);
    const before = claims.length;
    // One slot free: the webhook stays full, and neither the attempt that ended nor a wake-up claims.
    release.shift()!();
    const succeeded = async () =>
      (await account.webhooks.deliveries(hooks[0]!.id, { status: "succeeded" })).pagination.total;
    await until("the first attempt recorded", async () => (await succeeded()) === 1);
    worker.wake();
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(claims.length, before, "no claim for one free slot of eight");
    // A second: a quarter free, one claim takes both slots.
    release.shift()!();
    await until("the refill", () => release.length === 8);
    assert.deepEqual(claims.slice(before), [2]);
    assert.equal(taken(), 10);
    const drain = setInterval(() => release.splice(0).forEach((resolve) => resolve()), 5);
    await until("every delivery", () => taken() === 12);
    await worker.stop();
    clearInterval(drain);
  });
});

describe("recording attempts in batches", () => {
  test("attempts that end in one turn of the event loop are recorded with one transaction; each attempt's result is its own", async () => {
    const { storage, account, hooks } = await setUp({ webhooks: 1, events: 8 });
    const { fetch, release } = heldAnswers();
    const batches: number[] = [];
    // Attempts recorded per transaction.
    const counted = {
      ...storage,
      transaction: <T>(fn: (tx: StorageTransaction) => Promise<T>) =>
        storage.transaction((tx) => {
          const batch = batches.push(0) - 1;
          const deliveries = {
            ...tx.deliveries,
            recordAttempt: (write: AttemptWrite) => (
              (batches[batch] = batches[batch]! + 1), tx.deliveries.recordAttempt(write)
            ),
          };
          return fn({ ...tx, deliveries });
        }),
    };
    const recorded: string[] = [];
    const worker = createDeliveryWorker({
      storage: counted,
      fetch,
      allowPrivateNetworks: true,
      pollIntervalMs: 3_600_000,
      timeoutMs: 60_000,
      onAttempt: (info) => recorded.push(info.deliveryId),
    });
    worker.start();
    await until("the 8 attempts", () => release.length === 8);
    // All eight answers at once: one batch of eight.
    release.splice(0).forEach((resolve) => resolve());
    await worker.stop();
    assert.deepEqual(batches, [8]);
    assert.equal(new Set(recorded).size, 8);
    assert.equal((await account.webhooks.deliveries(hooks[0]!.id, { status: "succeeded" })).pagination.total, 8);
  });
});

describe("fair slots between accounts", () => {
  /**
   * Account A with four receivers that hang (each holds its request open until released, or
   * until the attempt's timeout), account B with one that answers at once; A's four
   * notifications are due before B's. Four slots in all.
   */
  async function hangingAccount() {
    const storage = await sqliteStorage();
    let clock = new Date("2020-01-01T00:00:00.000Z");
    const service = createEventService({ storage, now: () => clock, webhooks: { allowPrivateNetworks: true } });
    const a = service.forAccount((await service.keys.create({ account: "Slow Receivers" })).accountId);
    const b = service.forAccount((await service.keys.create({ account: "Prompt Receiver" })).accountId);
    for (let i = 0; i < 4; i++)
      await a.webhooks.create({ url: `https://93.184.216.34/slow/${i}`, events: ["event.created"] });
    const fast = await b.webhooks.create({ url: "https://93.184.216.34/fast", events: ["event.created"] });
    await a.events.create(EVENT);
    clock = new Date("2020-01-01T00:00:01.000Z");
    await b.events.create(EVENT);
    const state = { hanging: 0, maxHanging: 0, slowDone: 0, fastReceived: 0, release: [] as Array<() => void> };
    const fetch = (async (url: string, init: RequestInit) => {
      if (url.includes("/fast")) {
        state.fastReceived += 1;
        return new Response(null, { status: 204 });
      }
      state.hanging += 1;
      state.maxHanging = Math.max(state.maxHanging, state.hanging);
      try {
        await new Promise<void>((resolve, reject) => {
          state.release.push(resolve);
          init.signal?.addEventListener("abort", () => reject(init.signal!.reason), { once: true });
        });
        return new Response(null, { status: 200 });
      } finally {
        state.hanging -= 1;
        state.slowDone += 1;
      }
    }) as unknown as typeof globalThis.fetch;
    return { storage, b, fast, state, fetch };
  }

  const until = async (condition: () => boolean | Promise<boolean>) => {
    const deadline = Date.now() + 10_000;
    while (!(await condition()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    return condition();
  };

  test("without a per-account share (the control), A's four hanging receivers hold all four slots and B waits", async () => {
    const { storage, state, fetch } = await hangingAccount();
    const worker = createDeliveryWorker({
      storage,
      fetch,
      allowPrivateNetworks: true,
      pollIntervalMs: 10,
      concurrency: 4,
      perAccountConcurrency: 4,
      timeoutMs: 60_000,
    });
    worker.start();
    assert.ok(await until(() => state.hanging === 4), "A's four attempts are in flight");
    // Every slot is taken: however often the worker polls, B's delivery cannot be claimed.
    worker.wake();
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(state.fastReceived, 0);
    state.release.splice(0).forEach((resolve) => resolve());
    assert.ok(await until(() => state.fastReceived === 1), "B's delivery goes out once a slot frees");
    await worker.stop();
  });

  test("with the default share (half the slots), B's notification goes out while A's receivers hang", async () => {
    const { storage, b, fast, state, fetch } = await hangingAccount();
    const worker = createDeliveryWorker({
      storage,
      fetch,
      allowPrivateNetworks: true,
      pollIntervalMs: 10,
      concurrency: 4,
      timeoutMs: 60_000,
    });
    worker.start();
    assert.ok(
      await until(async () => (await b.webhooks.deliveries(fast.id, { status: "succeeded" })).pagination.total === 1),
      "B's delivery succeeded",
    );
    assert.equal(state.fastReceived, 1);
    assert.equal(state.slowDone, 0, "while none of A's requests has ended");
    assert.equal(state.hanging, 2, "A holds its share: 2 of the 4 slots");
    assert.equal(state.maxHanging, 2);
    // Released, A's other two follow, still at most two at a time.
    const drain = setInterval(() => state.release.splice(0).forEach((resolve) => resolve()), 5);
    assert.ok(await until(() => state.slowDone === 4));
    clearInterval(drain);
    await worker.stop();
    assert.equal(state.maxHanging, 2);
  });

  test("the claim leaves out accounts without room and counts what it hands out", async () => {
    const { storage } = await hangingAccount();
    const due = {
      workerId: "w",
      now: "2041-01-01T00:00:00.000Z",
      leaseUntil: "2041-01-01T00:01:00.000Z",
      limit: 10,
      webhookRoom: { each: 10, left: {} },
    };
    const first = await storage.claimDueDeliveries({ ...due, accountRoom: { each: 1, left: {} } });
    assert.equal(first.length, 2, "one per account");
    assert.notEqual(first[0]!.accountId, first[1]!.accountId);
    const slow = first.find((d) => d.url.includes("/slow/"))!;
    const more = await storage.claimDueDeliveries({ ...due, accountRoom: { each: 2, left: { [slow.accountId]: 1 } } });
    assert.equal(more.length, 1, "one more of A's: it holds one of its two");
    assert.equal(more[0]!.accountId, slow.accountId);
    assert.deepEqual(
      await storage.claimDueDeliveries({ ...due, accountRoom: { each: 2, left: { [slow.accountId]: 0 } } }),
      [],
    );
  });
});
