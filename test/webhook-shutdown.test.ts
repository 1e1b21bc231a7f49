/**
 * End-to-end: SIGTERM with webhook deliveries in flight. The receiver holds every request;
 * the server is stopped while it waits for them. The delivery worker stops after
 * its current attempt: the attempts in flight finish and are recorded before the store
 * closes, the server exits 0, and after a restart on the same database every delivery is
 * received exactly once (counted by envelope id): none lost, none sent twice.
 */
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { after, before, test } from "node:test";
import { verifyWebhook } from "@event-service/core/webhooks";
import { startServer, testDatabase } from "./_setup.ts";
import { clientFor, createEvent, expectStatus } from "./fixtures/api.ts";
import { logLines, makeCertificate, sleep } from "./fixtures/conventions.ts";
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

test("SIGTERM with attempts in flight: they are recorded, the server exits 0, and after a restart every delivery arrives once", async () => {
  const { url: database, drop } = await testDatabase();
  // A long attempt timeout: the held attempts end by the receiver's answer, not by timing out.
  const env = deliveryEnv(tls.certPath, { WEBHOOK_TIMEOUT_MS: "30000" });
  const first = await startServer({ database, env });
  const events = 20;
  let webhookId: string;
  let secret: string;
  try {
    const { key } = await first.createKey({ account: "Draining Co", tier: "enterprise" });
    const client = clientFor(first, key);
    const webhook = expectStatus(
      await client.post("/webhooks", { url: `${receiver.origin}/held`, events: ["event.created"] }),
      201,
    );
    webhookId = webhook.id;
    secret = webhook.secret;
    // Every request is held until released: the worker's per-webhook bound (16 today) fills, the rest wait their turn.
    receiver.answer = () => "hang";
    for (let i = 0; i < events; i++) await createEvent(client);
    await receiver.waitFor((received) => received.length >= 1, "attempts in flight");
    // Until the worker has claimed what it can (the count holds still for a second).
    for (let seen = -1; seen !== receiver.received.length; ) {
      seen = receiver.received.length;
      await sleep(1_000);
    }

    const stopping = first.stop("SIGTERM");
    // Answer the held attempts only once the server is shutting down: they were in flight at SIGTERM.
    for (
      const deadline = Date.now() + 10_000;
      !logLines(first.output()).some((line) => line.msg === "shutting down");
    ) {
      assert.ok(Date.now() < deadline, `no "shutting down" in the log:\n${first.output()}`);
      await sleep(20);
    }
    await sleep(300);
    receiver.answer = () => ({ status: 200, body: "ok" });
    const inFlight = receiver.release(200);
    assert.ok(inFlight >= 1 && inFlight <= events, `${inFlight} attempts in flight at SIGTERM`);
    assert.equal(await stopping, 0, `exit code after SIGTERM\n${first.output()}`);
    const attempts = logLines(first.output()).filter((line) => line.msg === "webhook delivery attempt");
    assert.equal(attempts.length, inFlight, "each attempt in flight was finished and recorded before the exit");
    assert.ok(attempts.every((line) => line.statusCode === 200 && line.succeeded === true));
    assert.equal(receiver.received.length, inFlight, "nothing new was sent while stopping");
    assert.ok(!logLines(first.output()).some((line) => line.level >= 50), `no error logged:\n${first.output()}`);
  } finally {
    await first.stop("SIGKILL");
  }

  const second = await startServer({ database, env });
  try {
    const { key } = await second.createKey({ account: "Draining Co", tier: "enterprise" });
    const client = clientFor(second, key);
    await receiver.waitFor((received) => received.length >= events, `all ${events} deliveries`);
    let log = expectStatus(await client.get(`/webhooks/${webhookId!}/deliveries?limit=100`), 200);
    for (
      const deadline = Date.now() + 20_000;
      log.deliveries.some((d: any) => d.status !== "succeeded") && Date.now() < deadline;
    ) {
      await sleep(50);
      log = expectStatus(await client.get(`/webhooks/${webhookId!}/deliveries?limit=100`), 200);
    }
    // Give a wrongly repeated attempt the time to show up before counting.
    await sleep(1_000);
    assert.equal(log.pagination.total, events);
    assert.deepEqual(
      log.deliveries.map((d: any) => [d.status, d.attemptCount]),
      Array(events).fill(["succeeded", 1]),
      "one recorded attempt each",
    );
    const receipts = new Map<string, number>();
    for (const request of receiver.received) {
      const { id } = verifyWebhook(secret!, request.headers, request.raw);
      receipts.set(id, (receipts.get(id) ?? 0) + 1);
    }
    assert.equal(receiver.received.length, events, "no delivery sent twice");
    assert.deepEqual([...receipts.keys()].sort(), log.deliveries.map((d: any) => d.id).sort(), "none lost");
    assert.ok([...receipts.values()].every((count) => count === 1));
  } finally {
    await second.stop();
    await drop();
  }
});
