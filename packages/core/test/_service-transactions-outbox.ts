/**
 * The service's transactions on the outbox and the deliveries over a real storage (part of `describeServiceTransactions`): what each
 * write puts in the outbox, claiming under a lease with its bounds, recording attempts (retry,
 * final, disabling), redelivery, held deliveries (pings), the delivery log, the backlog and the
 * purge, and the idempotency records' life cycle. Every test opens a database of its own, since
 * claims and the backlog see the whole outbox.
 */
import assert from "node:assert/strict";
import { describe, test, type TestContext } from "node:test";
import { createConfirmationCode, createId } from "../src/_internal/ids.ts";
import { DEFAULT_CARBON_SETTINGS } from "../src/carbon/carbon-settings.ts";
import { ServiceError } from "../src/errors.ts";
import { type AttendeeCreate, type AttendeeRecord, newAttendeeRecord } from "../src/resources/attendee.ts";
import { type EventCreate, type EventRecord, newEventRecord } from "../src/resources/event.ts";
import type { PricedActivity } from "../src/resources/priced-activity.ts";
import type { WebhookRecord } from "../src/resources/webhook.ts";
import {
  type ClaimedDelivery,
  type DeliveryAttempt,
  DeliveryListQuery,
  type DeliveryRecord,
} from "../src/resources/webhook-delivery.ts";
import type { AttemptRecorded, DeliveryAttemptRecord } from "../src/resources/webhook-delivery.ts";
import {
  changeWebhook,
  createPingDelivery,
  recordAttempt,
  recordDeliveryAttempts,
  redeliverDelivery,
} from "./_webhook-helpers.ts";
import type { Storage } from "../src/storage.ts";
import {
  checkIn,
  deleteEvent,
  eraseAttendee,
  insertEvent,
  insertWebhook,
  registerAttendee,
  undoCheckIn,
  updateAttendee,
  updateEvent,
} from "./_transactions.ts";

/** `2041-01-01T00:00:00Z` plus `seconds`, as stored timestamps are written. */
export const at = (seconds: number) => new Date(Date.UTC(2041, 0, 1) + seconds * 1000).toISOString();

export async function newAccount(storage: Storage, name: string): Promise<string> {
  const info = await storage.createApiKey({
    id: createId("apiKey"),
    account: name,
    newAccountId: createId("account"),
    hash: createId("apiKey"),
    prefix: "esk_x…",
    tier: "free",
    scopes: ["events:read"],
    now: at(0),
  });
  return info.accountId;
}

/** A diesel record of 100 litres at 2.5 kg a litre, stored at `now`; `overrides` change any field. */
export function fuelRecord(
  accountId: string,
  eventId: string,
  now: string,
  overrides: Partial<PricedActivity> = {},
): PricedActivity {
  return {
    id: createId("activity"),
    accountId,
    eventId,
    kind: "fuel",
    quantity: 100,
    unit: "litres",
    source: null,
    country: null,
    fuel: "diesel",
    mealType: null,
    material: null,
    recycledContent: null,
    mode: null,
    stream: null,
    dataQuality: "measured",
    vendorId: null,
    bookingId: null,
    note: null,
    emissionsKg: 250,
    factor: { name: "Diesel", value: 2.5, unit: "kg CO2e per litre", source: "DESNZ", year: 2024 },
    createdAt: now,
    updatedAt: now,
    ...overrides,
  };
}

export function webhookRecord(accountId: string, overrides: Partial<WebhookRecord> = {}): WebhookRecord {
  return {
    id: createId("webhook"),
    accountId,
    url: `https://93.184.216.34/${createId("webhook")}`,
    events: ["*"],
    description: null,
    secret: "whsec_contract",
    previousSecret: null,
    previousSecretExpiresAt: null,
    active: true,
    metadata: {},
    consecutiveFailures: 0,
    disabledAt: null,
    createdAt: at(0),
    updatedAt: at(0),
    ...overrides,
  };
}

export function eventAt(accountId: string, now: string, overrides: Partial<EventCreate> = {}): EventRecord {
  return newEventRecord(
    {
      name: "Outbox Summit",
      description: null,
      location: { address: "Main St 1", city: "Berlin", country: "DE" },
      startDate: "2042-05-01T09:00:00.000Z",
      endDate: "2042-05-01T17:00:00.000Z",
      capacity: 50,
      category: "conference",
      ...overrides,
    },
    { id: createId("event"), accountId, now },
  );
}

export function attendeeAt(
  accountId: string,
  eventId: string,
  now: string,
  overrides: Partial<AttendeeCreate> = {},
): AttendeeRecord {
  return newAttendeeRecord(
    {
      eventId,
      firstName: "Grace",
      lastName: "Hopper",
      email: `${createId("attendee")}@example.com`,
      ticketType: "general",
      ...overrides,
    },
    { id: createId("attendee"), accountId, confirmationCode: createConfirmationCode(), now },
  );
}

/** Attempts begin in the order they are made (failures count in the order attempts began), a millisecond apart unless given. */
let attemptsMade = 0;
const attempt = (
  number: number,
  outcome: { statusCode: number | null; succeeded: boolean; excerpt?: string },
  startedAt = at(500 + ++attemptsMade / 1000),
): DeliveryAttempt => ({
  number,
  startedAt,
  durationMs: 12,
  statusCode: outcome.statusCode,
  error: outcome.statusCode === null ? "connect ECONNREFUSED" : null,
  responseExcerpt: outcome.excerpt ?? null,
  succeeded: outcome.succeeded,
});

/** Records attempts in one transaction, with the first one's `disableAfter`. */
function recordAttempts(
  storage: Storage,
  records: Array<DeliveryAttemptRecord & { disableAfter: number }>,
): Promise<AttemptRecorded[]> {
  return recordDeliveryAttempts(
    storage,
    records.map(({ disableAfter: _, ...record }) => record),
    records[0]?.disableAfter,
  );
}

/** The webhook's delivery log, oldest first (ties, written in one transaction, in id order). */
async function log(storage: Storage, accountId: string, webhookId: string): Promise<DeliveryRecord[]> {
  const page = await storage.listDeliveries(accountId, webhookId, DeliveryListQuery.parse({ limit: "100" }));
  assert.ok(page, `webhook ${webhookId} has a log`);
  return [...page.items].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
}

const types = async (storage: Storage, accountId: string, webhookId: string) =>
  (await log(storage, accountId, webhookId)).map((d) => d.type).sort();

async function rejectsWith(promise: Promise<unknown>, code: string) {
  await assert.rejects(promise, (error: unknown) => ServiceError.is(error) && error.code === code);
}

const claimAll = (
  storage: Storage,
  workerId: string,
  now: string,
  leaseUntil: string,
  extra: Partial<Parameters<Storage["claimDueDeliveries"]>[0]> = {},
) => storage.claimDueDeliveries({ workerId, now, leaseUntil, limit: 100, ...extra });

const countBy = (claimed: ClaimedDelivery[], key: "webhookId" | "accountId") =>
  claimed.reduce<Record<string, number>>((counts, d) => ({ ...counts, [d[key]]: (counts[d[key]] ?? 0) + 1 }), {});

/**
 * The outbox, delivery and idempotency parts of the contract. `open` makes a new, empty, migrated
 * storage; each test closes the one it opened.
 */
export function describeOutboxAndDeliveries(open: () => Promise<Storage>) {
  const fresh = async (t: TestContext) => {
    const storage = await open();
    t.after(() => storage.close());
    return storage;
  };

  describe("the outbox", () => {
    test("each write puts one pending delivery per active subscribed webhook; unsubscribed, inactive and other accounts' get none", async (t) => {
      const storage = await fresh(t);
      const acme = await newAccount(storage, "Outbox Acme");
      const other = await newAccount(storage, "Outbox Other");
      const all = webhookRecord(acme, { events: ["*"] });
      const attendees = webhookRecord(acme, { events: ["attendee.registered", "attendee.cancelled"] });
      const events = webhookRecord(acme, { events: ["event.created", "event.deleted"] });
      const inactive = webhookRecord(acme, { events: ["*"], active: false });
      const foreign = webhookRecord(other, { events: ["*"] });
      for (const webhook of [all, attendees, events, inactive, foreign])
        assert.equal(await insertWebhook(storage, webhook), true);

      const event = eventAt(acme, at(10));
      await insertEvent(storage, event);
      const ada = await registerAttendee(storage, attendeeAt(acme, event.id, at(11)));
      const bob = await registerAttendee(
        storage,
        attendeeAt(acme, event.id, at(12), { carbonOffset: { opted: true, amount: 5 } }),
      );
      await updateAttendee(storage, acme, ada.id, { status: "cancelled" }, at(13));
      await updateEvent(storage, acme, event.id, { status: "published" }, at(14));
      await checkIn(storage, acme, event.id, bob.confirmationCode, at(15));
      await eraseAttendee(storage, acme, bob.id, { now: at(16), replay: { status: 404, body: "{}" } });
      await deleteEvent(storage, acme, event.id);

      assert.deepEqual(await types(storage, acme, all.id), [
        "attendee.cancelled",
        "attendee.checked_in",
        "attendee.deleted",
        "attendee.registered",
        "attendee.registered",
        "attendee.updated",
        "attendee.updated",
        "event.created",
        "event.deleted",
        "event.published",
        "event.updated",
        "sustainability.carbon_offset",
      ]);
      assert.deepEqual(await types(storage, acme, attendees.id), [
        "attendee.cancelled",
        "attendee.registered",
        "attendee.registered",
      ]);
      assert.deepEqual(await types(storage, acme, events.id), ["event.created", "event.deleted"]);
      assert.deepEqual(await types(storage, acme, inactive.id), []);
      assert.deepEqual(await types(storage, other, foreign.id), []);

      // Every delivery is pending, due at the time of its change, unattempted, and carries its envelope.
      const entries = await log(storage, acme, all.id);
      const created = entries.find((d) => d.type === "event.created")!;
      assert.deepEqual(
        {
          status: created.status,
          attemptCount: created.attemptCount,
          nextAttemptAt: created.nextAttemptAt,
          createdAt: created.createdAt,
          attempts: created.attempts,
        },
        { status: "pending", attemptCount: 0, nextAttemptAt: at(10), createdAt: at(10), attempts: [] },
      );
      const envelope = created.payload as Record<string, any>;
      assert.deepEqual(
        [envelope.id, envelope.type, envelope.createdAt, envelope.account],
        [created.id, "event.created", at(10), { id: acme, name: "Outbox Acme" }],
      );
      assert.equal(envelope.data.event.id, event.id);
      const registered = entries
        .filter((d) => d.type === "attendee.registered")
        .map((d) => (d.payload as Record<string, any>).data.attendee.id);
      assert.deepEqual(registered.sort(), [ada.id, bob.id].sort());
      assert.deepEqual(entries.find((d) => d.type === "attendee.deleted")!.nextAttemptAt, at(16));
      assert.equal(new Set(entries.map((d) => d.id)).size, entries.length, "every delivery has its own id");
    });

    test("a write that fails writes nothing to the outbox", async (t) => {
      const storage = await fresh(t);
      const acme = await newAccount(storage, "Outbox Failing");
      const webhook = webhookRecord(acme);
      await insertWebhook(storage, webhook);
      const event = eventAt(acme, at(10), { capacity: 1 });
      await insertEvent(storage, event);
      const first = await registerAttendee(storage, attendeeAt(acme, event.id, at(11), { email: "taken@example.com" }));
      const before = await log(storage, acme, webhook.id);
      assert.deepEqual(before.map((d) => d.type).sort(), [
        "analytics.threshold_exceeded",
        "attendee.registered",
        "event.created",
      ]);

      await rejectsWith(registerAttendee(storage, attendeeAt(acme, event.id, at(12))), "EVENT_FULL");
      await rejectsWith(
        registerAttendee(storage, attendeeAt(acme, event.id, at(12), { email: "TAKEN@example.com" })),
        "DUPLICATE_REGISTRATION",
      );
      await rejectsWith(
        updateEvent(storage, acme, event.id, { status: "completed", name: "Renamed" }, at(13)),
        "INVALID_STATE_TRANSITION",
      );
      await rejectsWith(
        updateEvent(storage, acme, event.id, { capacity: 0, name: "Renamed" }, at(13)),
        "INVALID_REQUEST",
      );
      // A draft: the door is closed; and nothing to undo yet.
      await rejectsWith(checkIn(storage, acme, event.id, first.confirmationCode, at(14)), "INVALID_STATE_TRANSITION");
      await rejectsWith(undoCheckIn(storage, acme, event.id, first.id, at(14)), "INVALID_STATE_TRANSITION");
      await updateAttendee(storage, acme, first.id, { status: "checked-in" }, at(15));
      const afterCheckIn = await log(storage, acme, webhook.id);
      await rejectsWith(
        updateAttendee(storage, acme, first.id, { status: "confirmed", company: "Changed" }, at(16)),
        "INVALID_STATE_TRANSITION",
      );

      assert.deepEqual(
        (await log(storage, acme, webhook.id)).map((d) => d.id),
        afterCheckIn.map((d) => d.id),
      );
      assert.deepEqual(
        afterCheckIn
          .slice(0, 3)
          .map((d) => d.id)
          .sort(),
        before.map((d) => d.id).sort(),
      );
      assert.equal(
        (await storage.getEvent(acme, event.id, DEFAULT_CARBON_SETTINGS))?.name,
        event.name,
        "the refused renames changed nothing",
      );
    });
  });

  describe("deliveries", () => {
    /** Two accounts: acme with webhooks a1 and a2, globex with g1, all subscribed to everything; `n` events each, created at at(10 + i). */
    async function outbox(t: TestContext, n: { acme: number; globex: number }) {
      const storage = await fresh(t);
      const acme = await newAccount(storage, "Claims Acme");
      const globex = await newAccount(storage, "Claims Globex");
      const a1 = webhookRecord(acme),
        a2 = webhookRecord(acme),
        g1 = webhookRecord(globex);
      for (const webhook of [a1, a2, g1]) await insertWebhook(storage, webhook);
      for (let i = 0; i < n.acme; i++) await insertEvent(storage, eventAt(acme, at(10 + i)));
      for (let i = 0; i < n.globex; i++) await insertEvent(storage, eventAt(globex, at(10 + i)));
      return { storage, acme, globex, a1, a2, g1 };
    }

    test("claimDueDeliveries hands each due delivery to one worker under a lease, within the per-webhook and per-account bounds", async (t) => {
      const { storage, a1, a2, g1 } = await outbox(t, { acme: 3, globex: 2 });
      assert.deepEqual(await claimAll(storage, "w0", at(9), at(100)), [], "nothing is due before it was written");
      assert.deepEqual(
        await storage.claimDueDeliveries({
          workerId: "w0",
          now: at(50),
          leaseUntil: at(100),
          limit: 0,
          webhookRoom: { each: 5, left: {} },
        }),
        [],
      );
      // Only what is due: at(10) and at(11) of each webhook, not at(12).
      const early = await claimAll(storage, "w0", at(11), at(100));
      assert.deepEqual(countBy(early, "webhookId"), { [a1.id]: 2, [a2.id]: 2, [g1.id]: 2 });

      // Two workers and then a third on a new outbox, with room for two per webhook.
      const shared = await outbox(t, { acme: 3, globex: 2 });
      const s = shared.storage;
      const w1 = await s.claimDueDeliveries({
        workerId: "w1",
        now: at(50),
        leaseUntil: at(100),
        limit: 100,
        webhookRoom: { each: 2, left: {} },
      });
      assert.deepEqual(countBy(w1, "webhookId"), { [shared.a1.id]: 2, [shared.a2.id]: 2, [shared.g1.id]: 2 });
      const one = w1.find((d) => d.webhookId === shared.a1.id)!;
      assert.deepEqual(
        { ...one, payload: undefined, id: undefined },
        {
          id: undefined,
          payload: undefined,
          webhookId: shared.a1.id,
          accountId: shared.acme,
          url: shared.a1.url,
          secret: "whsec_contract",
          previousSecret: null,
          previousSecretExpiresAt: null,
          type: "event.created",
          attemptCount: 0,
          finalAttempt: null,
        },
      );
      assert.equal(JSON.parse(one.payload).id, one.id, "the payload is the envelope's exact bytes");
      // A second worker gets only what the first does not hold; a third gets nothing.
      const w2 = await s.claimDueDeliveries({
        workerId: "w2",
        now: at(50),
        leaseUntil: at(100),
        limit: 100,
        webhookRoom: { each: 2, left: {} },
      });
      assert.deepEqual(countBy(w2, "webhookId"), { [shared.a1.id]: 1, [shared.a2.id]: 1 });
      assert.equal(new Set([...w1, ...w2].map((d) => d.id)).size, 8);
      assert.deepEqual(await claimAll(s, "w3", at(99), at(200)), []);
      // Room given per webhook (none left for a1, one for g1, two for any other); accounts likewise.
      const late = await outbox(t, { acme: 2, globex: 2 });
      const byWebhook = await late.storage.claimDueDeliveries({
        workerId: "w4",
        now: at(50),
        leaseUntil: at(100),
        limit: 100,
        webhookRoom: { each: 2, left: { [late.a1.id]: 0, [late.g1.id]: 1 } },
      });
      assert.deepEqual(countBy(byWebhook, "webhookId"), { [late.a2.id]: 2, [late.g1.id]: 1 });
      // Left: a1's two and one of g1's. An account without room gets nothing; the room counts what this claim hands out too.
      const busy = await late.storage.claimDueDeliveries({
        workerId: "w5",
        now: at(50),
        leaseUntil: at(100),
        limit: 100,
        accountRoom: { each: 2, left: { [late.acme]: 0 } },
      });
      assert.deepEqual(countBy(busy, "webhookId"), { [late.g1.id]: 1 });
      const byAccount = await late.storage.claimDueDeliveries({
        workerId: "w6",
        now: at(50),
        leaseUntil: at(100),
        limit: 100,
        accountRoom: { each: 1, left: { [late.globex]: 1 } },
      });
      assert.deepEqual(countBy(byAccount, "webhookId"), { [late.a1.id]: 1 });
      const limited = await late.storage.claimDueDeliveries({
        workerId: "w7",
        now: at(50),
        leaseUntil: at(100),
        limit: 1,
      });
      assert.equal(limited.length, 1);

      // An expired lease (a crashed worker) hands the deliveries out again, once.
      const again = await claimAll(s, "w8", at(100.001), at(300));
      assert.deepEqual(again.map((d) => d.id).sort(), [...w1, ...w2].map((d) => d.id).sort());
      assert.deepEqual(await claimAll(s, "w9", at(200), at(300)), []);
    });

    test("deliveries of inactive webhooks are not claimed; enabling the webhook releases them", async (t) => {
      const { storage, acme, a1, a2 } = await outbox(t, { acme: 2, globex: 0 });
      await changeWebhook(storage, acme, a1.id, (w) => ({ ...w, active: false }));
      const claimed = await claimAll(storage, "w1", at(50), at(60));
      assert.deepEqual(countBy(claimed, "webhookId"), { [a2.id]: 2 });
      await changeWebhook(storage, acme, a1.id, (w) => ({ ...w, active: true }));
      assert.deepEqual(countBy(await claimAll(storage, "w1", at(50), at(60)), "webhookId"), { [a1.id]: 2 });
    });

    test("recording an attempt: success, retry, final failure; the worker must hold the delivery; failures disable the webhook", async (t) => {
      const { storage, acme, a1, a2 } = await outbox(t, { acme: 4, globex: 0 });
      const claimed = (await claimAll(storage, "w1", at(50), at(100))).filter((d) => d.webhookId === a1.id);
      assert.equal(claimed.length, 4);
      const [d1, d2, d3, d4] = claimed as [ClaimedDelivery, ClaimedDelivery, ClaimedDelivery, ClaimedDelivery];
      const record = (
        d: ClaimedDelivery,
        workerId: string,
        a: DeliveryAttempt,
        nextAttemptAt: string | null,
        now: string,
        gone = false,
      ) =>
        recordAttempt(storage, { deliveryId: d.id, workerId, attempt: a, nextAttemptAt, gone, disableAfter: 3, now });

      // Not held by this worker, or not the next attempt: nothing changes.
      assert.deepEqual(await record(d1, "w2", attempt(1, { statusCode: 200, succeeded: true }), null, at(60)), {
        recorded: false,
        webhookDisabled: false,
      });
      assert.deepEqual(await record(d1, "w1", attempt(2, { statusCode: 200, succeeded: true }), null, at(60)), {
        recorded: false,
        webhookDisabled: false,
      });
      assert.equal((await storage.getDelivery(acme, a1.id, d1.id))?.attemptCount, 0);

      const ok = attempt(1, { statusCode: 200, succeeded: true, excerpt: "thanks" });
      assert.deepEqual(await record(d1, "w1", ok, null, at(60)), { recorded: true, webhookDisabled: false });
      assert.deepEqual(
        await record(d1, "w1", ok, null, at(60)),
        { recorded: false, webhookDisabled: false },
        "recorded once",
      );
      const succeeded = await storage.getDelivery(acme, a1.id, d1.id);
      assert.deepEqual(
        {
          status: succeeded?.status,
          attemptCount: succeeded?.attemptCount,
          nextAttemptAt: succeeded?.nextAttemptAt,
          updatedAt: succeeded?.updatedAt,
          attempts: succeeded?.attempts,
        },
        { status: "succeeded", attemptCount: 1, nextAttemptAt: null, updatedAt: at(60), attempts: [ok] },
      );

      // A failure with a retry stays pending until the retry, released by the worker.
      assert.deepEqual(await record(d2, "w1", attempt(1, { statusCode: 500, succeeded: false }), at(80), at(61)), {
        recorded: true,
        webhookDisabled: false,
      });
      const retrying = await storage.getDelivery(acme, a1.id, d2.id);
      assert.deepEqual([retrying?.status, retrying?.attemptCount, retrying?.nextAttemptAt], ["pending", 1, at(80)]);
      assert.equal((await storage.getWebhook(acme, a1.id))?.consecutiveFailures, 1);
      assert.deepEqual(
        await claimAll(storage, "w2", at(79), at(200)),
        [],
        "not before its retry (the others are still held by w1)",
      );
      const retry = await claimAll(storage, "w2", at(80), at(200));
      assert.deepEqual(
        retry.map((d) => [d.id, d.attemptCount]),
        [[d2.id, 1]],
      );

      // A final failure; the third consecutive failure disables the webhook.
      assert.deepEqual(await record(d3, "w1", attempt(1, { statusCode: null, succeeded: false }), null, at(81)), {
        recorded: true,
        webhookDisabled: false,
      });
      assert.equal((await storage.getDelivery(acme, a1.id, d3.id))?.status, "failed");
      assert.equal((await storage.getDelivery(acme, a1.id, d3.id))?.nextAttemptAt, null);
      assert.deepEqual(await record(d2, "w2", attempt(2, { statusCode: 503, succeeded: false }), at(300), at(82)), {
        recorded: true,
        webhookDisabled: true,
      });
      const disabled = await storage.getWebhook(acme, a1.id);
      assert.deepEqual([disabled?.active, disabled?.disabledAt, disabled?.consecutiveFailures], [false, at(82), 3]);
      // A late attempt of a disabled webhook is still recorded, and does not disable it twice.
      assert.deepEqual(await record(d4, "w1", attempt(1, { statusCode: 500, succeeded: false }), at(300), at(83)), {
        recorded: true,
        webhookDisabled: false,
      });
      assert.equal(
        (await storage.getWebhook(acme, a2.id))?.consecutiveFailures,
        0,
        "another webhook's count is its own",
      );
      assert.deepEqual(
        (await storage.getDelivery(acme, a1.id, d2.id))?.attempts.map((a) => a.statusCode),
        [500, 503],
      );
    });

    test("recording an attempt: a success resets the count; a 410 (gone) disables at once", async (t) => {
      const { storage, acme, a1, a2 } = await outbox(t, { acme: 3, globex: 0 });
      const claimed = await claimAll(storage, "w1", at(50), at(100));
      const of = (webhook: WebhookRecord) => claimed.filter((d) => d.webhookId === webhook.id);
      const record = (d: ClaimedDelivery, a: DeliveryAttempt, nextAttemptAt: string | null, gone = false) =>
        recordAttempt(storage, {
          deliveryId: d.id,
          workerId: "w1",
          attempt: a,
          nextAttemptAt,
          gone,
          disableAfter: 2,
          now: at(60),
        });
      await record(of(a1)[0]!, attempt(1, { statusCode: 500, succeeded: false }), null);
      assert.equal((await storage.getWebhook(acme, a1.id))?.consecutiveFailures, 1);
      await record(of(a1)[1]!, attempt(1, { statusCode: 204, succeeded: true }), null);
      assert.equal((await storage.getWebhook(acme, a1.id))?.consecutiveFailures, 0);
      assert.deepEqual(await record(of(a1)[2]!, attempt(1, { statusCode: 500, succeeded: false }), at(90)), {
        recorded: true,
        webhookDisabled: false,
      });
      assert.equal((await storage.getWebhook(acme, a1.id))?.active, true);

      assert.deepEqual(await record(of(a2)[0]!, attempt(1, { statusCode: 410, succeeded: false }), null, true), {
        recorded: true,
        webhookDisabled: true,
      });
      assert.deepEqual(
        [(await storage.getWebhook(acme, a2.id))?.active, (await storage.getWebhook(acme, a2.id))?.consecutiveFailures],
        [false, 1],
      );
    });

    test("failures count in the order attempts began: one that began before the latest success does not count; an older success changes nothing", async (t) => {
      const { storage, acme, a1, a2 } = await outbox(t, { acme: 9, globex: 0 });
      const claimed = await claimAll(storage, "w1", at(50), at(100));
      const [d1, d2, d3, d4, d5, d6, d7, d8, d9] = claimed.filter((d) => d.webhookId === a1.id) as ClaimedDelivery[];
      const record = (d: ClaimedDelivery, startedAt: number, statusCode: number, gone = false) =>
        recordAttempt(storage, {
          deliveryId: d.id,
          workerId: "w1",
          attempt: attempt(1, { statusCode, succeeded: statusCode < 300 }, at(startedAt)),
          nextAttemptAt: at(90),
          gone,
          disableAfter: 3,
          now: at(70),
        });
      const failures = async () => (await storage.getWebhook(acme, a1.id))?.consecutiveFailures;
      // A burst: the success that began at 20 is recorded first; the attempts that began before it and hung end later.
      await record(d1!, 20, 200);
      for (const [d, startedAt] of [
        [d2!, 10],
        [d3!, 11],
        [d4!, 19.999],
      ] as const) {
        assert.deepEqual(await record(d, startedAt, 500), { recorded: true, webhookDisabled: false });
      }
      assert.equal(await failures(), 0, "stragglers of the burst do not count");
      // Failures that began after it count; a success that began before the latest one resets nothing.
      await record(d5!, 21, 500);
      await record(d6!, 22, 503);
      await record(d7!, 15, 204);
      assert.equal(await failures(), 2);
      assert.deepEqual(
        await record(d8!, 23, 500),
        { recorded: true, webhookDisabled: true },
        "the third in the order they began",
      );
      const disabled = await storage.getWebhook(acme, a1.id);
      assert.deepEqual([disabled?.active, disabled?.disabledAt, disabled?.consecutiveFailures], [false, at(70), 3]);
      // The attempts themselves are all in the log, whatever counted.
      assert.equal((await storage.getDelivery(acme, a1.id, d9!.id))?.attempts.length, 0);
      assert.deepEqual(
        (await storage.getDelivery(acme, a1.id, d2!.id))?.attempts.map((a) => [a.startedAt, a.statusCode]),
        [[at(10), 500]],
      );

      // A 410 disables at once, even one that began before the latest success.
      const [g1, g2] = claimed.filter((d) => d.webhookId === a2.id) as ClaimedDelivery[];
      await recordAttempt(storage, {
        deliveryId: g1!.id,
        workerId: "w1",
        attempt: attempt(1, { statusCode: 200, succeeded: true }, at(40)),
        nextAttemptAt: null,
        gone: false,
        disableAfter: 3,
        now: at(70),
      });
      assert.deepEqual(
        await recordAttempt(storage, {
          deliveryId: g2!.id,
          workerId: "w1",
          attempt: attempt(1, { statusCode: 410, succeeded: false }, at(30)),
          nextAttemptAt: null,
          gone: true,
          disableAfter: 3,
          now: at(71),
        }),
        { recorded: true, webhookDisabled: true },
      );
      assert.deepEqual(
        [(await storage.getWebhook(acme, a2.id))?.active, (await storage.getWebhook(acme, a2.id))?.consecutiveFailures],
        [false, 0],
      );
    });

    test("recordDeliveryAttempts: in one batch, too, failures count in the order attempts began, whatever the order of the records", async (t) => {
      const { storage, acme, a1 } = await outbox(t, { acme: 6, globex: 0 });
      const [d1, d2, d3, d4, d5, d6] = (await claimAll(storage, "w1", at(50), at(100))).filter(
        (d) => d.webhookId === a1.id,
      ) as ClaimedDelivery[];
      const entry = (d: ClaimedDelivery, startedAt: number, statusCode: number) => ({
        deliveryId: d.id,
        workerId: "w1",
        attempt: attempt(1, { statusCode, succeeded: statusCode < 300 }, at(startedAt)),
        nextAttemptAt: at(90),
        gone: false,
        disableAfter: 3,
        now: at(70),
      });
      // Began: 10 fail, 11 fail, 12 success, 13 fail, 14 fail; recorded in another order. Two count.
      const results = await recordAttempts(storage, [
        entry(d4!, 13, 500),
        entry(d1!, 10, 500),
        entry(d3!, 12, 200),
        entry(d5!, 14, 500),
        entry(d2!, 11, 500),
      ]);
      assert.deepEqual(
        results,
        Array.from({ length: 5 }, () => ({ recorded: true, webhookDisabled: false })),
      );
      assert.equal((await storage.getWebhook(acme, a1.id))?.consecutiveFailures, 2);
      // The third that began after the success disables it, reported on that record.
      assert.deepEqual(await recordAttempts(storage, [entry(d6!, 15, 500)]), [
        { recorded: true, webhookDisabled: true },
      ]);
      assert.deepEqual(
        [(await storage.getWebhook(acme, a1.id))?.active, (await storage.getWebhook(acme, a1.id))?.consecutiveFailures],
        [false, 3],
      );
    });

    test("recordDeliveryAttempts: several records in one transaction, each as recordDeliveryAttempt would, the results in the order given", async (t) => {
      const { storage, acme, a1, a2 } = await outbox(t, { acme: 4, globex: 0 });
      const claimed = await claimAll(storage, "w1", at(50), at(100));
      const of = (webhook: WebhookRecord) => claimed.filter((d) => d.webhookId === webhook.id);
      const [f1, f2, f3] = of(a1) as [ClaimedDelivery, ClaimedDelivery, ClaimedDelivery];
      const ok = of(a2)[0]!;
      const entry = (d: ClaimedDelivery, workerId: string, a: DeliveryAttempt, nextAttemptAt: string | null) => ({
        deliveryId: d.id,
        workerId,
        attempt: a,
        nextAttemptAt,
        gone: false,
        disableAfter: 2,
        now: at(60),
      });
      const results = await recordAttempts(storage, [
        entry(f3, "w1", attempt(1, { statusCode: 500, succeeded: false }), null),
        entry(ok, "w1", attempt(1, { statusCode: 204, succeeded: true }), null),
        // Not held by w2: nothing changes for it, the rest is recorded.
        entry(f1, "w2", attempt(1, { statusCode: 204, succeeded: true }), null),
        entry(f2, "w1", attempt(1, { statusCode: 500, succeeded: false }), at(90)),
      ]);
      // Two failures of a1 in one batch: the second (whichever the order of locks) reaches the bound and disables it, once.
      assert.deepEqual(
        results.map((r) => r.recorded),
        [true, true, false, true],
      );
      assert.equal(results.filter((r) => r.webhookDisabled).length, 1);
      assert.ok(results[0]!.webhookDisabled || results[3]!.webhookDisabled);
      const a1After = await storage.getWebhook(acme, a1.id);
      assert.deepEqual([a1After?.active, a1After?.consecutiveFailures], [false, 2]);
      assert.equal((await storage.getWebhook(acme, a2.id))?.consecutiveFailures, 0);
      assert.deepEqual(
        await Promise.all(
          [f1, f2, f3, ok].map(async (d) => (await storage.getDelivery(acme, d.webhookId, d.id))?.status),
        ),
        ["pending", "pending", "failed", "succeeded"],
      );
      assert.equal((await storage.getDelivery(acme, a1.id, f2.id))?.nextAttemptAt, at(90));
      assert.deepEqual(await recordAttempts(storage, []), []);
    });

    test("redeliverDelivery: a final delivery gets one more (final) attempt, a pending one is brought forward, one being sent is left alone", async (t) => {
      const { storage, acme, globex, a1 } = await outbox(t, { acme: 3, globex: 0 });
      const [failed, succeeded, scheduled] = (await claimAll(storage, "w1", at(50), at(100))).filter(
        (d) => d.webhookId === a1.id,
      ) as [ClaimedDelivery, ClaimedDelivery, ClaimedDelivery];
      const record = (
        d: ClaimedDelivery,
        workerId: string,
        a: DeliveryAttempt,
        nextAttemptAt: string | null,
        now: string,
      ) =>
        recordAttempt(storage, {
          deliveryId: d.id,
          workerId,
          attempt: a,
          nextAttemptAt,
          gone: false,
          disableAfter: 100,
          now,
        });

      // Being sent: left as it is.
      const whileHeld = await redeliverDelivery(storage, acme, a1.id, failed.id, at(55));
      assert.deepEqual(
        [whileHeld?.status, whileHeld?.nextAttemptAt, whileHeld?.updatedAt],
        ["pending", at(10), at(10)],
      );

      await record(failed, "w1", attempt(1, { statusCode: 500, succeeded: false }), null, at(60));
      await record(succeeded, "w1", attempt(1, { statusCode: 200, succeeded: true }), null, at(60));
      await record(scheduled, "w1", attempt(1, { statusCode: 500, succeeded: false }), at(5000), at(60));

      const again = await redeliverDelivery(storage, acme, a1.id, failed.id, at(70));
      assert.deepEqual(
        [again?.status, again?.attemptCount, again?.nextAttemptAt, again?.updatedAt, again?.attempts.length],
        ["pending", 1, at(70), at(70), 1],
      );
      assert.equal((await redeliverDelivery(storage, acme, a1.id, succeeded.id, at(70)))?.status, "pending");
      const forward = await redeliverDelivery(storage, acme, a1.id, scheduled.id, at(70));
      assert.deepEqual([forward?.status, forward?.nextAttemptAt], ["pending", at(70)]);

      const claimed = await claimAll(storage, "w2", at(70), at(200));
      const byId = Object.fromEntries(claimed.map((d) => [d.id, d]));
      assert.deepEqual(Object.keys(byId).sort(), [failed.id, succeeded.id, scheduled.id].sort());
      assert.deepEqual(
        [byId[failed.id]!.attemptCount, byId[failed.id]!.finalAttempt],
        [1, 2],
        "one more attempt, final again",
      );
      assert.deepEqual([byId[succeeded.id]!.attemptCount, byId[succeeded.id]!.finalAttempt], [1, 2]);
      assert.deepEqual(
        [byId[scheduled.id]!.attemptCount, byId[scheduled.id]!.finalAttempt],
        [1, null],
        "a pending one keeps its schedule of retries",
      );
      assert.equal(JSON.parse(byId[failed.id]!.payload).id, failed.id, "the same envelope");
      assert.equal(byId[failed.id]!.payload, failed.payload);

      assert.equal(await redeliverDelivery(storage, globex, a1.id, failed.id, at(80)), null, "another account's");
      assert.equal(
        await redeliverDelivery(storage, acme, createId("webhook"), failed.id, at(80)),
        null,
        "another webhook's",
      );
      assert.equal(await redeliverDelivery(storage, acme, a1.id, createId("delivery"), at(80)), null, "unknown");
    });

    test("createPingDelivery: a one-attempt delivery held by the caller, to an active or inactive webhook, whose failure does not count", async (t) => {
      const storage = await fresh(t);
      const acme = await newAccount(storage, "Pings");
      const other = await newAccount(storage, "Pings Other");
      const webhook = webhookRecord(acme, {
        active: false,
        previousSecret: "whsec_old",
        previousSecretExpiresAt: at(1000),
      });
      await insertWebhook(storage, webhook);
      const held = await createPingDelivery(storage, acme, webhook.id, {
        workerId: "ping_1",
        now: at(20),
        leaseUntil: at(60),
      });
      assert.ok(held, "the webhook exists");
      assert.deepEqual(
        { ...held, id: undefined, payload: undefined },
        {
          id: undefined,
          payload: undefined,
          webhookId: webhook.id,
          accountId: acme,
          url: webhook.url,
          secret: "whsec_contract",
          previousSecret: "whsec_old",
          previousSecretExpiresAt: at(1000),
          type: "webhook.ping",
          attemptCount: 0,
          finalAttempt: 1,
        },
      );
      assert.deepEqual(JSON.parse(held.payload), {
        id: held.id,
        type: "webhook.ping",
        createdAt: at(20),
        data: { webhook: { id: webhook.id, url: webhook.url, events: webhook.events } },
        account: { id: acme, name: "Pings" },
      });
      await changeWebhook(storage, acme, webhook.id, (w) => ({ ...w, active: true }));
      assert.deepEqual(await claimAll(storage, "w1", at(30), at(90)), [], "held by the caller");
      assert.deepEqual(await storage.outboxBacklog(at(30)), {
        due: 1,
        scheduled: 0,
        paused: 0,
        oldestNextAttemptAt: at(20),
      });
      assert.deepEqual(
        await recordAttempt(storage, {
          deliveryId: held.id,
          workerId: "ping_1",
          attempt: attempt(1, { statusCode: 500, succeeded: false }),
          nextAttemptAt: null,
          gone: true,
          disableAfter: 1,
          now: at(31),
        }),
        { recorded: true, webhookDisabled: false },
      );
      const stored = await storage.getDelivery(acme, webhook.id, held.id);
      assert.deepEqual([stored?.status, stored?.type, stored?.attemptCount], ["failed", "webhook.ping", 1]);
      assert.deepEqual(stored?.payload, JSON.parse(held.payload), "the envelope sent is the one stored");
      const after = await storage.getWebhook(acme, webhook.id);
      assert.deepEqual([after?.active, after?.consecutiveFailures], [true, 0]);
      const hold = { workerId: "x", now: at(40), leaseUntil: at(60) };
      assert.equal(await createPingDelivery(storage, other, webhook.id, hold), null, "another account's");
      assert.equal(await createPingDelivery(storage, acme, createId("webhook"), hold), null, "unknown");
    });

    test("listDeliveries and getDelivery: newest first, by status, paged; per account and webhook", async (t) => {
      const { storage, acme, globex, a1, a2 } = await outbox(t, { acme: 5, globex: 0 });
      const claimed = (await claimAll(storage, "w1", at(50), at(100))).filter((d) => d.webhookId === a1.id);
      const firstTwo = claimed.filter((d) => JSON.parse(d.payload).createdAt <= at(11));
      for (const d of firstTwo) {
        await recordAttempt(storage, {
          deliveryId: d.id,
          workerId: "w1",
          attempt: attempt(1, { statusCode: 200, succeeded: true }),
          nextAttemptAt: null,
          gone: false,
          disableAfter: 5,
          now: at(60),
        });
      }
      const list = (query: Record<string, string>, webhookId = a1.id, account = acme) =>
        storage.listDeliveries(account, webhookId, DeliveryListQuery.parse(query));
      const all = await list({});
      assert.equal(all?.total, 5);
      assert.deepEqual(
        all?.items.map((d) => d.createdAt),
        [at(14), at(13), at(12), at(11), at(10)],
      );
      assert.ok(
        all?.items.every((d) => d.webhookId === a1.id && d.accountId === acme),
        "the webhook's own",
      );
      const page = await list({ limit: "2", page: "2" });
      assert.deepEqual([page?.total, page?.items.map((d) => d.createdAt)], [5, [at(12), at(11)]]);
      const done = await list({ status: "succeeded" });
      assert.deepEqual([done?.total, done?.items.map((d) => d.createdAt)], [2, [at(11), at(10)]]);
      assert.deepEqual(
        done?.items[0]?.attempts.map((a) => a.statusCode),
        [200],
      );
      assert.equal((await list({ status: "failed" }))?.total, 0);
      assert.equal((await list({ status: "pending" }))?.total, 3);
      assert.equal(await list({}, a1.id, globex), null, "another account's webhook");
      assert.equal(await list({}, createId("webhook")), null);

      const one = all!.items[4]!;
      assert.deepEqual(await storage.getDelivery(acme, a1.id, one.id), one);
      assert.equal(await storage.getDelivery(acme, a2.id, one.id), null, "under another webhook");
      assert.equal(await storage.getDelivery(globex, a1.id, one.id), null, "of another account");
      assert.equal(await storage.getDelivery(acme, a1.id, createId("delivery")), null);
    });

    test("outboxBacklog counts pending deliveries by state and gives the earliest due", async (t) => {
      const storage = await fresh(t);
      assert.deepEqual(await storage.outboxBacklog(at(0)), {
        due: 0,
        scheduled: 0,
        paused: 0,
        oldestNextAttemptAt: null,
      });
      const acme = await newAccount(storage, "Backlog");
      const live = webhookRecord(acme),
        paused = webhookRecord(acme);
      await insertWebhook(storage, live);
      await insertWebhook(storage, paused);
      for (const second of [10, 20, 30]) await insertEvent(storage, eventAt(acme, at(second)));
      await changeWebhook(storage, acme, paused.id, (w) => ({ ...w, active: false }));
      assert.deepEqual(await storage.outboxBacklog(at(25)), {
        due: 2,
        scheduled: 1,
        paused: 3,
        oldestNextAttemptAt: at(10),
      });
      const [first, second] = (await claimAll(storage, "w1", at(25), at(100))) as [ClaimedDelivery, ClaimedDelivery];
      assert.deepEqual(
        await storage.outboxBacklog(at(25)),
        { due: 2, scheduled: 1, paused: 3, oldestNextAttemptAt: at(10) },
        "held ones are still due",
      );
      await recordAttempt(storage, {
        deliveryId: first.id,
        workerId: "w1",
        attempt: attempt(1, { statusCode: 200, succeeded: true }),
        nextAttemptAt: null,
        gone: false,
        disableAfter: 5,
        now: at(26),
      });
      await recordAttempt(storage, {
        deliveryId: second.id,
        workerId: "w1",
        attempt: attempt(1, { statusCode: 500, succeeded: false }),
        nextAttemptAt: at(90),
        gone: false,
        disableAfter: 5,
        now: at(26),
      });
      assert.deepEqual(await storage.outboxBacklog(at(26)), {
        due: 0,
        scheduled: 2,
        paused: 3,
        oldestNextAttemptAt: at(30),
      });
      assert.deepEqual(await storage.outboxBacklog(at(95)), {
        due: 2,
        scheduled: 0,
        paused: 3,
        oldestNextAttemptAt: at(30),
      });
    });

    test("purgeExpired deletes final deliveries and abandoned ones of inactive webhooks past retention, with their attempts; never a live one", async (t) => {
      const storage = await fresh(t);
      const acme = await newAccount(storage, "Purge");
      const live = webhookRecord(acme),
        off = webhookRecord(acme);
      await insertWebhook(storage, live);
      await insertWebhook(storage, off);
      for (const second of [10, 11, 12, 13]) await insertEvent(storage, eventAt(acme, at(second)));
      const claimed = await claimAll(storage, "w1", at(20), at(1000));
      const ofLive = claimed.filter((d) => d.webhookId === live.id);
      const ofOff = claimed.filter((d) => d.webhookId === off.id);
      const record = (d: ClaimedDelivery, succeeded: boolean, nextAttemptAt: string | null, now: string) =>
        recordAttempt(storage, {
          deliveryId: d.id,
          workerId: "w1",
          attempt: attempt(1, { statusCode: succeeded ? 200 : 500, succeeded }),
          nextAttemptAt,
          gone: false,
          disableAfter: 100,
          now,
        });
      await record(ofLive[0]!, true, null, at(30)); // succeeded, old
      await record(ofLive[1]!, false, null, at(30)); // failed, old
      await record(ofLive[2]!, false, at(5000), at(30)); // pending of an active webhook: kept however old
      await record(ofLive[3]!, true, null, at(300)); // succeeded, recent: kept
      await record(ofOff[0]!, false, at(5000), at(30)); // pending of a webhook that becomes inactive: purged
      await record(ofOff[1]!, true, null, at(300)); // recent: kept
      // ofOff[2] and [3] stay held by w1 until at(1000): a worker has them, kept.
      await changeWebhook(storage, acme, off.id, (w) => ({ ...w, active: false }));

      const purged = await storage.purgeExpired({ now: at(400), deliveriesBefore: at(200), emailsBefore: at(200) });
      assert.deepEqual(purged, { idempotencyKeys: 0, deliveries: 3, attempts: 3, emails: 0 });
      const left = async (webhook: WebhookRecord) => (await log(storage, acme, webhook.id)).map((d) => d.id).sort();
      assert.deepEqual(await left(live), [ofLive[2]!.id, ofLive[3]!.id].sort());
      assert.deepEqual(await left(off), [ofOff[1]!.id, ofOff[2]!.id, ofOff[3]!.id].sort());
      assert.deepEqual(await storage.purgeExpired({ now: at(400), deliveriesBefore: at(200), emailsBefore: at(200) }), {
        idempotencyKeys: 0,
        deliveries: 0,
        attempts: 0,
        emails: 0,
      });
      // Once the lease is over, the held ones of the inactive webhook go too.
      assert.deepEqual(
        await storage.purgeExpired({ now: at(1001), deliveriesBefore: at(200), emailsBefore: at(200) }),
        {
          idempotencyKeys: 0,
          deliveries: 2,
          attempts: 0,
          emails: 0,
        },
      );
    });
  });

  describe("idempotency records", () => {
    test("claim, complete, replay, release, expiry and the purge, counted exactly", async (t) => {
      const storage = await fresh(t);
      const acme = await newAccount(storage, "Idempotent");
      // Keys live an hour; a running claim older than a minute is abandoned.
      const claim = (key: string, second: number, requestHash = "hash-1") =>
        storage.claimIdempotencyKey({
          accountId: acme,
          key,
          requestHash,
          now: at(second),
          expiresAt: at(second + 3600),
          staleBefore: at(second - 60),
        });
      assert.equal(await claim("k1", 0), null);
      assert.equal(await claim("k2", 0), null);
      assert.equal(await claim("k3", 10), null);
      // A running claim held by someone else: returned as it is, whatever the request.
      assert.deepEqual(await claim("k1", 30, "hash-2"), {
        accountId: acme,
        key: "k1",
        requestHash: "hash-1",
        state: "running",
        response: null,
        createdAt: at(0),
        expiresAt: at(3600),
      });
      await storage.completeIdempotencyKey(acme, "k1", { status: 201, body: '{"id":"evt_1"}' });
      const replay = await claim("k1", 40, "hash-2");
      assert.deepEqual(replay, {
        accountId: acme,
        key: "k1",
        requestHash: "hash-1",
        state: "done",
        response: { status: 201, body: '{"id":"evt_1"}' },
        createdAt: at(0),
        expiresAt: at(3600),
      });
      // A finished key is never released, and never goes stale.
      await storage.releaseIdempotencyKey(acme, "k1");
      assert.equal((await claim("k1", 1000))?.state, "done");
      // Released: the next request runs again.
      await storage.releaseIdempotencyKey(acme, "k2");
      assert.equal(await claim("k2", 41, "hash-3"), null);
      assert.equal((await claim("k2", 42))?.requestHash, "hash-3");
      // A running claim older than staleBefore was abandoned (its process died): taken over.
      assert.equal(await claim("k3", 100, "hash-4"), null);
      assert.deepEqual(
        [(await claim("k3", 101))?.requestHash, (await claim("k3", 101))?.createdAt],
        ["hash-4", at(100)],
      );

      assert.deepEqual(
        await storage.purgeExpired({ now: at(3600), deliveriesBefore: at(0), emailsBefore: at(0) }),
        { idempotencyKeys: 1, deliveries: 0, attempts: 0, emails: 0 },
        "k1 expired at 3600",
      );
      assert.deepEqual(
        await storage.purgeExpired({ now: at(3700), deliveriesBefore: at(0), emailsBefore: at(0) }),
        { idempotencyKeys: 2, deliveries: 0, attempts: 0, emails: 0 },
        "k2 and k3",
      );
      assert.equal(await claim("k1", 3700), null, "gone: a new claim");
    });
  });
}
