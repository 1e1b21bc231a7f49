/**
 * `Storage.outboxBacklog` on the real SQL storage: pending deliveries by state (due, waiting
 * for a retry, held by an inactive webhook) and the earliest due among active webhooks, as
 * queues, attempts and disablements change them.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createEventService } from "../src/service.ts";
import { sqliteStorage } from "./_sqlite.ts";
import { EVENT } from "./_fixtures.ts";
import { recordAttempt } from "./_webhook-helpers.ts";

const T1 = "2041-01-01T00:00:00.000Z";
const T2 = "2041-01-01T00:00:10.000Z";
const NOW = "2041-01-01T00:01:00.000Z";
const RETRY_AT = "2041-01-01T00:10:00.000Z";

test("pending deliveries by state and the earliest due of an active webhook", async () => {
  const storage = await sqliteStorage();
  let clock = T1;
  const service = createEventService({ storage, now: () => new Date(clock), webhooks: { allowPrivateNetworks: true } });
  const { accountId } = await service.keys.create({ account: "Acme" });
  const account = service.forAccount(accountId);
  const hooks = [];
  for (let i = 0; i < 3; i++)
    hooks.push(await account.webhooks.create({ url: `https://93.184.216.34/hook/${i}`, events: ["event.created"] }));

  assert.deepEqual(await storage.outboxBacklog(NOW), { due: 0, scheduled: 0, paused: 0, oldestNextAttemptAt: null });

  await account.events.create(EVENT); // three deliveries due at T1
  clock = T2;
  await account.events.create(EVENT); // three due at T2
  assert.deepEqual(await storage.outboxBacklog(NOW), { due: 6, scheduled: 0, paused: 0, oldestNextAttemptAt: T1 });
  // Before T2 the second event's deliveries are not due yet.
  assert.deepEqual(await storage.outboxBacklog("2041-01-01T00:00:05.000Z"), {
    due: 3,
    scheduled: 3,
    paused: 0,
    oldestNextAttemptAt: T1,
  });

  // One failed attempt with a retry scheduled; one success leaves the backlog.
  const [first, second] = await storage.claimDueDeliveries({
    workerId: "w",
    now: NOW,
    leaseUntil: RETRY_AT,
    limit: 2,
    webhookRoom: { each: 1, left: {} },
  });
  const attempt = (succeeded: boolean) => ({
    number: 1,
    startedAt: NOW,
    durationMs: 5,
    statusCode: succeeded ? 200 : 500,
    error: null,
    responseExcerpt: null,
    succeeded,
  });
  await recordAttempt(storage, {
    deliveryId: first!.id,
    workerId: "w",
    attempt: attempt(false),
    nextAttemptAt: RETRY_AT,
    gone: false,
    disableAfter: 10,
    now: NOW,
  });
  await recordAttempt(storage, {
    deliveryId: second!.id,
    workerId: "w",
    attempt: attempt(true),
    nextAttemptAt: null,
    gone: false,
    disableAfter: 10,
    now: NOW,
  });
  assert.deepEqual(await storage.outboxBacklog(NOW), { due: 4, scheduled: 1, paused: 0, oldestNextAttemptAt: T1 });

  // An inactive webhook's deliveries wait for it: paused, and out of the earliest.
  for (const hook of hooks) await account.webhooks.update(hook.id, { active: false });
  assert.deepEqual(await storage.outboxBacklog(NOW), { due: 0, scheduled: 0, paused: 5, oldestNextAttemptAt: null });
  const third = hooks.find((hook) => hook.id !== first!.webhookId && hook.id !== second!.webhookId)!;
  await account.webhooks.update(third.id, { active: true });
  assert.deepEqual(await storage.outboxBacklog(NOW), { due: 2, scheduled: 0, paused: 3, oldestNextAttemptAt: T1 });
  await account.webhooks.update(first!.webhookId, { active: true });
  assert.deepEqual(await storage.outboxBacklog(NOW), { due: 3, scheduled: 1, paused: 1, oldestNextAttemptAt: T1 });
  await storage.close();
});
