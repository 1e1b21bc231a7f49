/**
 * Retention: the background purge removes expired idempotency records and the deliveries (with
 * their attempts) last active before the retention that will never be sent again, and keeps the
 * rest: recent deliveries, pending ones of an active webhook however old, one exactly at the cutoff.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import Database from "better-sqlite3";
import { createBackgroundPurge, DEFAULT_WEBHOOK_RETENTION_DAYS, retentionCutoff } from "../src/background-purge.ts";
import { createEventService } from "../src/service.ts";
import type { PurgeResult, Storage } from "../src/storage.ts";
import { sqliteStorage } from "./_sqlite.ts";
import { recordAttempt } from "./_webhook-helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "retention-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const EVENT = {
  name: "Green Summit",
  location: { address: "Alexanderplatz 1", city: "Berlin", country: "DE" },
  startDate: "2041-05-01T09:00:00.000Z",
  endDate: "2041-05-01T17:00:00.000Z",
  capacity: 10,
  category: "conference",
};

const CREATED = "2041-01-01T00:00:00.000Z";
const NOW = new Date("2041-03-01T00:00:00.000Z");
/** 30 days before NOW. */
const CUTOFF = "2041-01-30T00:00:00.000Z";

const attempt = (number: number, at: string, succeeded: boolean) => ({
  number,
  startedAt: at,
  durationMs: 5,
  statusCode: succeeded ? 200 : 500,
  error: null,
  responseExcerpt: null,
  succeeded,
});

/**
 * Claims `deliveryId` (due by `at`) and records one attempt at `at`; `next` keeps it pending until
 * then. The lease ends at `at`, so the other deliveries claimed with it are free again at once.
 */
async function attemptAt(
  storage: Storage,
  deliveryId: string,
  at: string,
  succeeded: boolean,
  next: string | null = null,
) {
  const claimed = await storage.claimDueDeliveries({ workerId: "w", now: at, leaseUntil: at, limit: 100 });
  assert.ok(
    claimed.some((d) => d.id === deliveryId),
    `${deliveryId} claimed at ${at}`,
  );
  const result = await recordAttempt(storage, {
    deliveryId,
    workerId: "w",
    attempt: attempt(1, at, succeeded),
    nextAttemptAt: next,
    gone: false,
    disableAfter: 10,
    now: at,
  });
  assert.equal(result.recorded, true);
}

test("retentionCutoff: whole days of 24 hours before now; the default is 30 days", () => {
  assert.equal(DEFAULT_WEBHOOK_RETENTION_DAYS, 30);
  assert.equal(retentionCutoff(NOW, 30).toISOString(), CUTOFF);
  assert.equal(retentionCutoff(NOW, 0).toISOString(), NOW.toISOString());
  assert.throws(() => createBackgroundPurge({ storage: {} as Storage, webhookRetentionDays: -1 }), RangeError);
});

test("the purge removes exactly the old final deliveries (and pending ones of an inactive webhook) with their attempts, and expired idempotency records", async () => {
  const file = join(dir, "purge.sqlite");
  const storage = await sqliteStorage(file);
  let clock = new Date(CREATED);
  const service = createEventService({ storage, now: () => clock, webhooks: { allowPrivateNetworks: true } });
  const { accountId } = await service.keys.create({ account: "Acme" });
  const account = service.forAccount(accountId);
  const active = await account.webhooks.create({ url: "https://93.184.216.34/active", events: ["event.created"] });
  const inactive = await account.webhooks.create({ url: "https://93.184.216.34/inactive", events: ["event.created"] });
  for (let i = 0; i < 6; i++) await account.events.create({ ...EVENT, name: `Event ${i}` });
  await account.webhooks.update(inactive.id, { active: false });
  const log = async (id: string) => (await account.webhooks.deliveries(id, { limit: 100 })).deliveries;
  const ids = (await log(active.id)).map((d) => d.id).sort();
  assert.equal(ids.length, 6);
  assert.equal((await log(inactive.id)).length, 6);
  const [oldSucceeded, oldFailed, atCutoff, justBefore, recent, oldPending] = ids as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  await attemptAt(storage, oldSucceeded, "2041-01-02T00:00:00.000Z", true);
  await attemptAt(storage, oldFailed, "2041-01-02T00:02:00.000Z", false);
  // Old and still pending (its retry due long ago): the worker will send it, so it stays.
  await attemptAt(storage, oldPending, "2041-01-02T00:04:00.000Z", false, "2041-01-02T00:05:00.000Z");
  await attemptAt(storage, justBefore, "2041-01-29T23:59:59.999Z", true);
  await attemptAt(storage, atCutoff, CUTOFF, true);
  await attemptAt(storage, recent, "2041-02-20T00:00:00.000Z", false);

  // An idempotency record expired by NOW, and one still live.
  const claim = { accountId, requestHash: "h", now: CREATED, staleBefore: CREATED };
  assert.equal(
    await storage.claimIdempotencyKey({ ...claim, key: "expired", expiresAt: "2041-01-02T00:00:00.000Z" }),
    null,
  );
  assert.equal(
    await storage.claimIdempotencyKey({ ...claim, key: "live", expiresAt: "2041-03-02T00:00:00.000Z" }),
    null,
  );

  const purged: PurgeResult[] = [];
  clock = NOW;
  const purge = createBackgroundPurge({
    storage,
    webhookRetentionDays: 30,
    now: () => NOW,
    onPurged: (result) => purged.push(result),
  });
  const result = await purge.run();
  // 3 final deliveries of the active webhook (2 old, 1 a millisecond before the cutoff) and the inactive one's 6 pending ones.
  assert.deepEqual(result, { idempotencyKeys: 1, deliveries: 9, attempts: 3, emails: 0 });
  assert.deepEqual(purged, [result]);

  assert.deepEqual((await log(active.id)).map((d) => d.id).sort(), [atCutoff, recent, oldPending].sort());
  assert.deepEqual(await log(inactive.id), []);
  const kept = await storage.getDelivery(accountId, active.id, recent);
  assert.equal(kept?.attempts.length, 1);

  const db = new Database(file, { readonly: true });
  try {
    const rows = db.prepare("SELECT delivery_id FROM webhook_attempts ORDER BY delivery_id").all() as Array<{
      delivery_id: string;
    }>;
    assert.deepEqual(
      rows.map((row) => row.delivery_id),
      [atCutoff, recent, oldPending].sort(),
    );
    const keys = db.prepare("SELECT key FROM idempotency_keys").all() as Array<{ key: string }>;
    assert.deepEqual(
      keys.map((row) => row.key),
      ["live"],
    );
  } finally {
    db.close();
  }

  // A second run finds nothing more, and says nothing.
  assert.deepEqual(await purge.run(), { idempotencyKeys: 0, deliveries: 0, attempts: 0, emails: 0 });
  assert.equal(purged.length, 1);
  await storage.close();
});

test("start runs at once and then on its timer; stop waits for the run", async () => {
  const storage = await sqliteStorage();
  let runs = 0;
  const counting: Storage = Object.assign(Object.create(storage) as Storage, {
    purgeExpired: async (purge: { now: string; deliveriesBefore: string; emailsBefore: string }) => {
      runs += 1;
      assert.equal(purge.deliveriesBefore, CUTOFF);
      // Final emails are kept 30 days whatever the webhooks' retention.
      assert.equal(purge.emailsBefore, "2041-01-30T00:00:00.000Z");
      return storage.purgeExpired(purge);
    },
  });
  const purge = createBackgroundPurge({ storage: counting, now: () => NOW, intervalMs: 10 });
  purge.start();
  const deadline = Date.now() + 10_000;
  while (runs < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  await purge.stop();
  const stoppedAt = runs;
  assert.ok(stoppedAt >= 3);
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(runs, stoppedAt, "no run after stop");
  await storage.close();
});
