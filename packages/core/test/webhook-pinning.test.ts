/**
 * The SSRF guard where it matters, at the connect: through the HTTP handler, the real delivery
 * worker and its connection pool, with an injected resolver playing a rebinding DNS
 * server and a hanging one. The private "receiver" is a TCP server on 127.0.0.1 that counts
 * the connections it gets.
 */
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { after, before, describe, test } from "node:test";
import { createHandler } from "../src/http/handler.ts";
import { createEventService } from "../src/service.ts";
import { createDeliveryWorker } from "../src/delivery-worker.ts";
import { sendDelivery } from "../src/webhooks/send-delivery.ts";
import { sqliteStorage } from "./_sqlite.ts";
import { EVENT } from "./_fixtures.ts";

describe("pinned connections", () => {
  let port = 0;
  let connections = 0;
  const server = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  before(
    () =>
      new Promise<void>((resolve) =>
        server.listen(0, "127.0.0.1", () => {
          port = (server.address() as { port: number }).port;
          resolve();
        }),
      ),
  );
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** The service over HTTP with `resolveHost`, and a key. */
  async function setUp(resolveHost: (host: string) => Promise<string[]>) {
    const storage = await sqliteStorage();
    const service = createEventService({ storage, webhooks: { resolveHost } });
    const handler = createHandler(service);
    const { key, accountId } = await service.keys.create({ account: "Acme" });
    const call = (method: string, path: string, body?: unknown) =>
      handler(
        new Request(`http://localhost${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          ...(body !== undefined && { body: JSON.stringify(body) }),
        }),
      );
    return { storage, service, account: service.forAccount(accountId), call };
  }

  test("a name answering public at creation and private at delivery never reaches the private address", async () => {
    let calls = 0;
    const rebinding = async (host: string) => {
      assert.equal(host, "rebind.test");
      calls += 1;
      return calls === 1 ? ["93.184.216.34"] : ["127.0.0.1"];
    };
    const { storage, account, call } = await setUp(rebinding);
    const created = await call("POST", "/v1/webhooks", {
      url: `https://rebind.test:${port}/hook`,
      events: ["event.created"],
    });
    assert.equal(created.status, 201, await created.clone().text());
    const webhook = (await created.json()) as { id: string };
    await account.events.create(EVENT);
    const before = connections;
    const worker = createDeliveryWorker({
      storage,
      resolveHost: rebinding,
      pollIntervalMs: 20,
      timeoutMs: 2_000,
      retryDelaysMs: [],
    });
    worker.start();
    let log = await account.webhooks.deliveries(webhook.id);
    for (const deadline = Date.now() + 10_000; log.deliveries[0]?.attemptCount !== 1 && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      log = await account.webhooks.deliveries(webhook.id);
    }
    await worker.stop();
    const [delivery] = log.deliveries;
    assert.equal(delivery?.status, "failed");
    assert.equal(delivery?.attempts[0]?.statusCode, null);
    assert.match(
      delivery?.attempts[0]?.error ?? "",
      /^refused before sending: url: rebind\.test is or resolves to a non-public address/,
    );
    assert.equal(calls, 2, "one look-up at creation, one for the attempt's connection");
    assert.equal(connections, before, "the private receiver got no connection");
  });

  test("an attempt resolves once and connects where that answer points; a second look-up would have said otherwise", async () => {
    // Private networks allowed so that the one answer (127.0.0.1) may be connected to; a
    // second look-up would answer a closed port's address family instead.
    let calls = 0;
    const resolveHost = async () => (++calls === 1 ? ["127.0.0.1"] : ["::1"]);
    const delivery = {
      id: "dlv_1",
      webhookId: "wh_1",
      accountId: "acct_1",
      url: `https://pinned.test:${port}/in`,
      secret: "whsec_x",
      previousSecret: null,
      previousSecretExpiresAt: null,
      type: "event.created",
      payload: '{"id":"dlv_1"}',
      attemptCount: 0,
      finalAttempt: null,
    };
    const before = connections;
    const outcome = await sendDelivery(delivery, { timeoutMs: 2_000, allowPrivateNetworks: true, resolveHost });
    // The receiver drops the connection before TLS: the attempt fails, but it reached 127.0.0.1.
    assert.equal(outcome.attempt.succeeded, false);
    assert.equal(calls, 1);
    assert.equal(connections, before + 1);
  });

  test("a resolver that never answers: 400 INVALID_URL within about 2 s at create and update, and a failed attempt at delivery", async () => {
    const hanging = (host: string) =>
      host === "slow.test" ? new Promise<string[]>(() => {}) : Promise.resolve(["93.184.216.34"]);
    const { call } = await setUp(hanging);
    let started = Date.now();
    const refused = await call("POST", "/v1/webhooks", { url: "https://slow.test/hook", events: ["event.created"] });
    let elapsed = Date.now() - started;
    assert.equal(refused.status, 400);
    const body = (await refused.json()) as { error: { code: string; field: string; message: string } };
    assert.deepEqual([body.error.code, body.error.field], ["INVALID_URL", "url"]);
    assert.match(body.error.message, /resolving the host slow\.test took longer than 2 s/);
    assert.ok(elapsed >= 1_900 && elapsed < 6_000, `answered after ${elapsed} ms`);

    const made = (await (
      await call("POST", "/v1/webhooks", { url: "https://fine.test/hook", events: ["event.created"] })
    ).json()) as { id: string };
    started = Date.now();
    const update = await call("PUT", `/v1/webhooks/${made.id}`, { url: "https://slow.test/other" });
    elapsed = Date.now() - started;
    assert.equal(update.status, 400);
    assert.ok(elapsed >= 1_900 && elapsed < 6_000, `answered after ${elapsed} ms`);

    // At delivery: the name is re-pointed to a hanging DNS server after creation.
    const slowDelivery = {
      id: "dlv_2",
      webhookId: made.id,
      accountId: "acct_1",
      url: "https://slow.test/hook",
      secret: "whsec_x",
      previousSecret: null,
      previousSecretExpiresAt: null,
      type: "event.created",
      payload: '{"id":"dlv_2"}',
      attemptCount: 0,
      finalAttempt: null,
    };
    started = Date.now();
    const outcome = await sendDelivery(slowDelivery, {
      timeoutMs: 5_000,
      allowPrivateNetworks: false,
      resolveHost: hanging,
    });
    elapsed = Date.now() - started;
    assert.match(
      outcome.attempt.error ?? "",
      /^refused before sending: url: resolving the host slow\.test took longer than 2 s/,
    );
    assert.ok(elapsed >= 1_900 && elapsed < 5_000, `gave up after ${elapsed} ms`);
  });
});
