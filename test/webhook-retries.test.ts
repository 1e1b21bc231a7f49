/**
 * End-to-end: webhook delivery when receivers fail. Retries with the same envelope after a 500
 * and after a timeout; disabling after 10 consecutive failures and at once on 410; a retry
 * schedule that survives a restart; two server processes on one database sending each attempt
 * once; redelivery and ping. A real HTTPS receiver on 127.0.0.1, trusted via NODE_EXTRA_CA_CERTS.
 */
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { verifySignature } from "@event-service/core/webhooks";
import { startServer, testDatabase, type TestServer } from "./_setup.ts";
import { type Client, clientFor, createEvent, expectError, expectStatus } from "./fixtures/api.ts";
import { makeCertificate } from "./fixtures/conventions.ts";
import { deliveryEnv, type Received, type Receiver, startReceiver } from "./fixtures/receiver.ts";

let tls: ReturnType<typeof makeCertificate>;
let receiver: Receiver;
/** Answers per path; 200 when a path has none. */
const answers = new Map<string, (request: Received, index: number) => ReturnType<Receiver["answer"]>>();

before(async () => {
  tls = makeCertificate();
  receiver = await startReceiver({ cert: tls.cert, key: readFileSync(tls.keyPath, "utf8") });
  receiver.answer = (request, index) => answers.get(request.path)?.(request, index) ?? { status: 200, body: "ok" };
});

after(async () => {
  await receiver.close();
  rmSync(tls.dir, { recursive: true, force: true });
});

let pathCounter = 0;

async function hook(
  client: Client,
  events: string[],
  answer?: (request: Received, index: number) => ReturnType<Receiver["answer"]>,
) {
  const path = `/retry/${++pathCounter}`;
  if (answer) answers.set(path, answer);
  const webhook = expectStatus(await client.post("/webhooks", { url: `${receiver.origin}${path}`, events }), 201);
  return { webhook, path, secret: webhook.secret as string };
}

async function receivedAt(path: string, count: number): Promise<Received[]> {
  await receiver.waitFor(() => receiver.at(path).length >= count, `${count} requests at ${path}`);
  return receiver.at(path);
}

/** Polls the API (no timing asserted) until `check` holds for the answer's body. */
async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const deliveriesOf = async (client: Client, webhookId: string) =>
  expectStatus(await client.get(`/webhooks/${webhookId}/deliveries?limit=100`), 200);

// The three suites run side by side, each on servers of its own (and paths of its own on the
// receiver): most of their time is waiting for attempts. The tests within a suite run in order.
describe("webhook retries", { concurrency: true }, () => {
  describe("retries, disabling, redelivery and ping on one server", { concurrency: false }, () => {
    let server: TestServer;
    let client: Client;

    before(async () => {
      server = await startServer({ env: deliveryEnv(tls.certPath) });
      client = clientFor(server, (await server.createKey({ account: "Retry Co" })).key);
    });
    after(() => server.stop());

    test("a 500 and then a timeout are retried with the same envelope, and the log shows every attempt", async () => {
      const { webhook, path, secret } = await hook(client, ["event.created"], (_request, index) =>
        index === 0 ? { status: 500, body: "boom" } : index === 1 ? "hang" : { status: 204 },
      );
      const event = await createEvent(client);
      const requests = await receivedAt(path, 3);
      assert.equal(
        new Set(requests.map((r) => r.headers["x-service-delivery"])).size,
        1,
        "one envelope id on every attempt",
      );
      assert.equal(new Set(requests.map((r) => r.raw)).size, 1, "the same bytes on every attempt");
      for (const request of requests)
        assert.ok(verifySignature(secret, request.raw, request.headers["x-service-signature"] as string));
      assert.equal(requests[0]!.body.data.event.id, event.id);

      const log = await eventually(
        () => deliveriesOf(client, webhook.id),
        (body) => body.deliveries[0]?.status === "succeeded",
        "the delivery to succeed",
      );
      const [delivery] = log.deliveries;
      assert.equal(delivery.id, requests[0]!.body.id);
      assert.equal(delivery.attemptCount, 3);
      assert.equal(delivery.nextAttemptAt, null);
      assert.deepEqual(delivery.payload, requests[0]!.body);
      assert.deepEqual(
        delivery.attempts.map((a: any) => [a.number, a.statusCode, a.succeeded]),
        [
          [1, 500, false],
          [2, null, false],
          [3, 204, true],
        ],
      );
      assert.equal(delivery.attempts[0].responseExcerpt, "boom");
      assert.match(delivery.attempts[1].error, /timeout/);
      assert.ok(
        delivery.attempts[1].durationMs >= 900,
        `the timed-out attempt waited for the timeout (${delivery.attempts[1].durationMs} ms)`,
      );
      const current = expectStatus(await client.get(`/webhooks/${webhook.id}`), 200);
      assert.equal(current.consecutiveFailures, 0, "the success reset the count");
      assert.equal(current.active, true);
    });

    test("a Retry-After on a 429 is honoured when it asks for more than the schedule", async () => {
      const { webhook, path } = await hook(client, ["event.created"], (_request, index) =>
        index === 0 ? { status: 429, headers: { "retry-after": "1" } } : { status: 200 },
      );
      await createEvent(client);
      await receivedAt(path, 2);
      const log = await eventually(
        () => deliveriesOf(client, webhook.id),
        (body) => body.deliveries[0]?.status === "succeeded",
        "the delivery to succeed",
      );
      const [first, second] = log.deliveries[0].attempts;
      assert.equal(first.statusCode, 429);
      assert.equal(second.statusCode, 200);
      const waited = Date.parse(second.startedAt) - Date.parse(first.startedAt);
      assert.ok(waited >= 1000, `the retry waited for Retry-After: 1 (${waited} ms) instead of the schedule's 0 ms`);
    });

    test("a Retry-After asking for the far future is capped at the schedule plus 1 hour; the attempt is recorded", async () => {
      const hour = 3_600_000;
      const farDate = "Fri, 31 Dec 9999 23:59:59 GMT";
      for (const [retryAfter, status, why] of [
        ["99999999999", 429, "seconds into the year 5195"],
        ["9".repeat(30), 429, "seconds past the largest date (an invalid date uncapped)"],
        [farDate, 503, "an HTTP date in the year 9999"],
      ] as const) {
        const { webhook, path } = await hook(client, ["event.created"], () => ({
          status,
          headers: { "retry-after": retryAfter },
        }));
        await createEvent(client);
        await receivedAt(path, 1);
        const log = await eventually(
          () => deliveriesOf(client, webhook.id),
          (body) => body.deliveries[0]?.attemptCount === 1,
          `the attempt to be recorded (${why})`,
        );
        const [delivery] = log.deliveries;
        assert.equal(delivery.status, "pending", why);
        assert.deepEqual(
          delivery.attempts.map((a: any) => [a.number, a.statusCode, a.succeeded]),
          [[1, status, false]],
          why,
        );
        // The schedule's first retry is immediate (0 ms); the cap adds at most 1 hour to it.
        const waits = Date.parse(delivery.nextAttemptAt) - Date.parse(delivery.attempts[0].startedAt);
        assert.ok(
          waits >= hour - 1_000 && waits <= hour + 10_000,
          `${why}: next attempt ${delivery.nextAttemptAt}, ${waits} ms after the attempt`,
        );
        assert.equal(receiver.at(path).length, 1, "no retry before the capped time");
      }
    });

    test("a redirect is not followed and counts as a failure; after the schedule the delivery fails for good", async () => {
      const { webhook, path } = await hook(client, ["event.created"], () => ({
        status: 302,
        headers: { location: `${receiver.origin}/elsewhere` },
      }));
      await createEvent(client);
      await receivedAt(path, 5);
      const log = await eventually(
        () => deliveriesOf(client, webhook.id),
        (body) => body.deliveries[0]?.status === "failed",
        "the delivery to fail",
      );
      assert.deepEqual(
        log.deliveries[0].attempts.map((a: any) => a.statusCode),
        [302, 302, 302, 302, 302],
      );
      assert.equal(receiver.at("/elsewhere").length, 0);
      const current = expectStatus(await client.get(`/webhooks/${webhook.id}`), 200);
      assert.equal(current.consecutiveFailures, 5);
      assert.equal(current.active, true);
    });

    test("10 consecutive failed attempts disable the webhook; re-enabling resets the count", async () => {
      const { webhook, path } = await hook(client, ["event.created"], () => ({ status: 500 }));
      await createEvent(client);
      await createEvent(client);
      await receivedAt(path, 10);
      const disabled = await eventually(
        async () => expectStatus(await client.get(`/webhooks/${webhook.id}`), 200),
        (w) => w.active === false,
        "the webhook to be disabled",
      );
      assert.equal(disabled.consecutiveFailures, 10);
      assert.ok(disabled.disabledAt);
      // Disabled: a new change writes no delivery for it.
      await createEvent(client);
      assert.equal((await deliveriesOf(client, webhook.id)).pagination.total, 2);
      const enabled = expectStatus(await client.put(`/webhooks/${webhook.id}`, { active: true }), 200);
      assert.equal(enabled.consecutiveFailures, 0);
      assert.equal(enabled.disabledAt, null);
    });

    test("a 410 Gone disables the webhook at once", async () => {
      const { webhook, path } = await hook(client, ["event.created"], () => ({ status: 410 }));
      await createEvent(client);
      await receivedAt(path, 1);
      const disabled = await eventually(
        async () => expectStatus(await client.get(`/webhooks/${webhook.id}`), 200),
        (w) => w.active === false,
        "the webhook to be disabled",
      );
      assert.equal(disabled.consecutiveFailures, 1);
      const log = await deliveriesOf(client, webhook.id);
      assert.equal(log.deliveries[0].status, "failed");
      assert.equal(log.deliveries[0].attemptCount, 1);
      assert.equal(receiver.at(path).length, 1);
    });

    test("redelivery sends the same envelope again, once; an unknown delivery is 404", async () => {
      const { webhook, path } = await hook(client, ["event.created"]);
      await createEvent(client);
      const [first] = await receivedAt(path, 1);
      const done = await eventually(
        () => deliveriesOf(client, webhook.id),
        (body) => body.deliveries[0]?.status === "succeeded",
        "the first delivery",
      );
      const deliveryId = done.deliveries[0].id;
      answers.set(path, () => ({ status: 500 }));
      const queued = expectStatus(await client.post(`/webhooks/${webhook.id}/deliveries/${deliveryId}/redeliver`), 202);
      assert.equal(queued.id, deliveryId);
      assert.equal(queued.status, "pending");
      const requests = await receivedAt(path, 2);
      assert.equal(requests[1]!.raw, first!.raw);
      assert.equal(requests[1]!.headers["x-service-delivery"], deliveryId);
      // A failed redelivery is final: one attempt, no schedule.
      const failed = await eventually(
        () => deliveriesOf(client, webhook.id),
        (body) => body.deliveries[0]?.status === "failed",
        "the redelivery to fail",
      );
      assert.deepEqual(
        failed.deliveries[0].attempts.map((a: any) => a.statusCode),
        [200, 500],
      );
      expectError(
        await client.post(`/webhooks/${webhook.id}/deliveries/dlv_000000000000000000000000/redeliver`),
        404,
        "NOT_FOUND",
      );
    });

    test("ping sends a signed webhook.ping at once and answers with its attempt", async () => {
      const { webhook, path, secret } = await hook(client, ["attendee.registered"]);
      const result = expectStatus(await client.post(`/webhooks/${webhook.id}/ping`), 200);
      assert.equal(result.type, "webhook.ping");
      assert.equal(result.status, "succeeded");
      assert.deepEqual(
        result.attempts.map((a: any) => [a.number, a.statusCode, a.succeeded]),
        [[1, 200, true]],
      );
      const [request] = receiver.at(path);
      assert.equal(request!.headers["x-service-event"], "webhook.ping");
      assert.ok(verifySignature(secret, request!.raw, request!.headers["x-service-signature"] as string));
      assert.deepEqual(request!.body.data, {
        webhook: { id: webhook.id, url: webhook.url, events: ["attendee.registered"] },
      });

      answers.set(path, () => ({ status: 503, body: "down" }));
      const failed = expectStatus(await client.post(`/webhooks/${webhook.id}/ping`), 200);
      assert.equal(failed.status, "failed");
      assert.equal(failed.attempts[0].statusCode, 503);
      assert.equal(
        expectStatus(await client.get(`/webhooks/${webhook.id}`), 200).consecutiveFailures,
        0,
        "a ping does not count towards disabling",
      );
      expectError(await client.post("/webhooks/wh_000000000000000000000000/ping"), 404, "NOT_FOUND");
    });
  });

  describe("a pending retry survives a restart", { concurrency: false }, () => {
    test("the retry scheduled before SIGTERM is sent by the next server on the same database", async () => {
      const env = deliveryEnv(tls.certPath, { WEBHOOK_RETRY_DELAYS_MS: "0,3000" });
      // The database outlives both servers (each removes its own temporary folder when stopped).
      const { url: database, drop } = await testDatabase();
      const first = await startServer({ env, database });
      const client = clientFor(first, (await first.createKey({ account: "Restart Co" })).key);
      const { webhook, path } = await hook(client, ["event.created"], (_request, index) =>
        index < 2 ? { status: 500 } : { status: 200 },
      );
      await createEvent(client);
      const failed = await receivedAt(path, 2);
      // Stopped after the second failure: the third attempt is due 3 s later, and the server is gone by then.
      assert.equal(await first.stop(), 0);
      assert.equal(receiver.at(path).length, 2);
      const second = await startServer({ env, database });
      try {
        const requests = await receivedAt(path, 3);
        assert.equal(requests[2]!.headers["x-service-delivery"], failed[0]!.headers["x-service-delivery"]);
        const log = await eventually(
          () => deliveriesOf(clientFor(second, client.key), webhook.id),
          (body) => body.deliveries[0]?.status === "succeeded",
          "the delivery to succeed after the restart",
        );
        assert.deepEqual(
          log.deliveries[0].attempts.map((a: any) => a.statusCode),
          [500, 500, 200],
        );
      } finally {
        await second.stop();
        await drop();
      }
    });
  });

  describe("two server processes on one database", { concurrency: false }, () => {
    test("every notification is sent exactly once although both workers race for it", async () => {
      // A long attempt timeout: on a loaded machine 32 first TLS handshakes at once can take over
      // the suites' 1 s, and a timed-out attempt is rightly retried: a second receipt that is not a race.
      const env = deliveryEnv(tls.certPath, { WEBHOOK_TIMEOUT_MS: "15000" });
      const a = await startServer({ env });
      const b = await startServer({ env, database: a.database });
      try {
        const key = (await a.createKey({ account: "Race Co" })).key;
        const clients = [clientFor(a, key), clientFor(b, key)];
        const { path } = await hook(clients[0]!, ["event.created"]);
        const created = await Promise.all(Array.from({ length: 40 }, (_, i) => createEvent(clients[i % 2]!)));
        const requests = await receivedAt(path, 40);
        // Let any duplicate arrive: both workers have polled several times after this.
        await new Promise((resolve) => setTimeout(resolve, 1500));
        const ids = receiver.at(path).map((r) => r.headers["x-service-delivery"]);
        assert.equal(ids.length, 40, "no attempt sent twice");
        assert.equal(new Set(ids).size, 40);
        assert.deepEqual(requests.map((r) => r.body.data.event.id).sort(), created.map((e) => e.id).sort());
      } finally {
        await Promise.all([a.stop(), b.stop()]);
      }
    });
  });
});
