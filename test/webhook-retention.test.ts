/**
 * End-to-end: WEBHOOK_RETENTION_DAYS reaches the server's background purge, which runs at start
 * and then on its timer. A server restarted with a retention of 0 days purges the final
 * deliveries (and their attempts) at once and keeps a pending one.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { queryDatabase, startServer, testDatabase } from "./_setup.ts";
import { clientFor, createEvent, expectStatus } from "./fixtures/api.ts";
import { waitForOutput } from "./fixtures/conventions.ts";
import { createWebhook } from "./fixtures/webhooks.ts";

test("a restart with WEBHOOK_RETENTION_DAYS=0 purges the final deliveries and their attempts, and keeps the pending one", async () => {
  const { url: database, drop } = await testDatabase();
  // Attempts to the public literal fail fast (no network in the tests); the retry is an hour away.
  const env = { WEBHOOK_TIMEOUT_MS: "300", WEBHOOK_RETRY_DELAYS_MS: "3600000" };
  try {
    const first = await startServer({ env, database });
    const key = (await first.createKey({ account: "Retention Co" })).key;
    const client = clientFor(first, key);
    const hook = await createWebhook(client, { events: ["event.created"] });
    const pings = [
      expectStatus(await client.post(`/webhooks/${hook.id}/ping`), 200),
      expectStatus(await client.post(`/webhooks/${hook.id}/ping`), 200),
    ];
    for (const ping of pings) assert.equal(ping.attempts.length, 1);
    await createEvent(client);
    // The event's first attempt fails and its retry waits an hour: pending, with one attempt.
    const deadline = Date.now() + 20_000;
    let log: any[] = [];
    while (Date.now() < deadline) {
      log = expectStatus(await client.get(`/webhooks/${hook.id}/deliveries`), 200).deliveries;
      if (log.some((d) => d.type === "event.created" && d.attemptCount === 1)) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const pending = log.find((d) => d.type === "event.created");
    assert.equal(pending?.status, "pending");
    assert.equal(log.length, 3);
    assert.equal(await first.stop(), 0);

    const second = await startServer({ env: { ...env, WEBHOOK_RETENTION_DAYS: "0" }, database });
    try {
      const again = clientFor(second, key);
      let kept: any[] = [];
      const until = Date.now() + 20_000;
      while (Date.now() < until) {
        kept = expectStatus(await again.get(`/webhooks/${hook.id}/deliveries`), 200).deliveries;
        if (kept.length === 1) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.deepEqual(
        kept.map((d) => d.id),
        [pending.id],
      );
      const attempts = await queryDatabase<{ delivery_id: string }>(
        database,
        "SELECT delivery_id FROM webhook_attempts",
      );
      assert.deepEqual(
        attempts.map((row) => row.delivery_id),
        [pending.id],
      );
      const purged = /"deliveries":2,"attempts":2,"emails":0,"msg":"purged expired records"/;
      await waitForOutput(second, purged);
      assert.match(second.output(), purged);
    } finally {
      assert.equal(await second.stop(), 0);
    }
  } finally {
    await drop();
  }
});

test("a bad WEBHOOK_RETENTION_DAYS stops the server at start, naming it", async () => {
  await assert.rejects(startServer({ env: { WEBHOOK_RETENTION_DAYS: "a month" } }), /WEBHOOK_RETENTION_DAYS/);
});
