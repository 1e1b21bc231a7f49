/**
 * The storage's atomic operations under real parallel transactions, on every backend: several
 * connections (PostgreSQL: storages with pools of their own; SQLite file: worker threads with a
 * connection each) start the same contested operation at the same moment, and exactly the
 * documented outcome comes out: never a duplicate, an overfilled event, a delivery handed out
 * twice, or an error other than the documented one. SQLite in memory has one connection: there
 * the calls start together on it and are serialised, which checks the outcome, not the race.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createConfirmationCode, createId } from "../src/_internal/ids.ts";
import { DEFAULT_CARBON_SETTINGS } from "../src/carbon/carbon-settings.ts";
import { travelEmissionsKg } from "../src/carbon/emission-factors.ts";
import { AttendeeListQuery, newAttendeeRecord } from "../src/resources/attendee.ts";
import { newEventRecord } from "../src/resources/event.ts";
import { BookingListQuery, newVendorRecord } from "../src/resources/vendor.ts";
import { linkHashOf, newLinkToken } from "../src/resources/link-token.ts";
import { WebhookListQuery, type WebhookRecord } from "../src/resources/webhook.ts";
import type { ClaimedDelivery } from "../src/resources/webhook-delivery.ts";
import type { Storage } from "../src/storage.ts";
import { BACKENDS, type TestBackend, type TestDatabase } from "./_backends.ts";
import { type Call, type Outcome, type Racers, racersFor } from "./_parallel.ts";
import { insertEvent, insertWebhook, registerAttendee, updateAttendee } from "./_transactions.ts";

/**
 * Connections that race on the backends that have several: storages of their own on PostgreSQL
 * (cheap), worker threads on a SQLite file (each loads the storage's modules, which takes a
 * while on a loaded machine).
 */
const racerCount = (backend: TestBackend) => (backend.name === "postgres" ? 4 : 3);
const NOW = "2041-01-01T00:00:00.000Z";

const codes = (outcomes: Outcome[]) => outcomes.map((o) => (o.ok ? "ok" : (o.code ?? o.message))).sort();
const tally = (outcomes: Outcome[]) =>
  codes(outcomes).reduce<Record<string, number>>((t, code) => ({ ...t, [code]: (t[code] ?? 0) + 1 }), {});

async function newAccount(storage: Storage, name: string): Promise<string> {
  const info = await storage.createApiKey({
    id: createId("apiKey"),
    account: name,
    newAccountId: createId("account"),
    hash: createId("apiKey"),
    prefix: "esk_x…",
    tier: "free",
    scopes: ["events:read"],
    now: NOW,
  });
  return info.accountId;
}

const eventRecord = (accountId: string, capacity: number, now = NOW) =>
  newEventRecord(
    {
      name: "Race Day",
      location: { address: "Main St 1", city: "Berlin", country: "DE" },
      startDate: "2042-05-01T09:00:00.000Z",
      endDate: "2042-05-01T17:00:00.000Z",
      capacity,
      category: "conference",
    },
    { id: createId("event"), accountId, now },
  );

const attendeeRecord = (accountId: string, eventId: string, email = `${createId("attendee")}@example.com`) =>
  newAttendeeRecord(
    {
      eventId,
      firstName: "Ada",
      lastName: "Racer",
      email,
      ticketType: "general",
      company: "Racers Ltd",
      carbonOffset: { travelMode: "train", travelDistance: 100 },
    },
    { id: createId("attendee"), accountId, confirmationCode: createConfirmationCode(), now: NOW },
  );

const webhookRecord = (accountId: string, url: string): WebhookRecord => ({
  id: createId("webhook"),
  accountId,
  url,
  events: ["*"],
  description: null,
  secret: "whsec_race",
  previousSecret: null,
  previousSecretExpiresAt: null,
  active: true,
  metadata: {},
  consecutiveFailures: 0,
  disabledAt: null,
  createdAt: NOW,
  updatedAt: NOW,
});

for (const backend of BACKENDS) {
  describe(`storage concurrency: ${backend.name}`, () => {
    let database: TestDatabase;
    let storage: Storage;
    let racers: Racers;

    before(async () => {
      database = await backend.open();
      storage = database.storage;
      racers = await racersFor(backend, database, racerCount(backend));
    });
    after(async () => {
      await racers?.close();
      await database?.drop();
    });

    test("registrations racing for the last places: exactly capacity stored, the rest EVENT_FULL, kept figures and tallies = recount", async () => {
      const account = await newAccount(storage, "Race registrations");
      const event = eventRecord(account, 10);
      await insertEvent(storage, event);
      const outcomes = await racers.race(
        Array.from(
          { length: 30 },
          (): Call => ({ method: "registerAttendee", args: [attendeeRecord(account, event.id)] }),
        ),
      );
      assert.deepEqual(tally(outcomes), { EVENT_FULL: 20, ok: 10 });
      const stored = await storage.listAttendees(account, AttendeeListQuery.parse({ eventId: event.id, limit: "100" }));
      assert.equal(stored.total, 10);
      assert.deepEqual(
        stored.items.map((a) => a.id).sort(),
        outcomes
          .filter((o) => o.ok)
          .map((o) => (o as { value: { id: string } }).value.id)
          .sort(),
      );
      const kept = await storage.getEvent(account, event.id, DEFAULT_CARBON_SETTINGS);
      assert.equal(kept?.attendeeCount, 10);
      assert.equal(kept?.carbonFootprint, Math.round(10 * travelEmissionsKg("train", 100) * 1000) / 1000);
      // The tallies every racer's upsert added to, on the same rows.
      const report = await storage.eventAnalyticsFigures(account, event.id);
      assert.equal(report?.statuses.confirmed, 10);
      assert.deepEqual(report?.ticketTypes, [{ value: "general", count: 10 }]);
      assert.deepEqual(report?.companies, { distinct: 1, notGiven: 0, top: [{ value: "Racers Ltd", count: 10 }] });
      assert.deepEqual(
        report?.byMode.map((m) => [m.mode, m.registrations, m.distanceKm]),
        [["train", 10, 1000]],
      );
    });

    test("the same email registering at once: one registration, the rest DUPLICATE_REGISTRATION", async () => {
      const account = await newAccount(storage, "Race duplicates");
      const event = eventRecord(account, 50);
      await insertEvent(storage, event);
      const outcomes = await racers.race(
        Array.from(
          { length: 8 },
          (_, i): Call => ({
            method: "registerAttendee",
            args: [attendeeRecord(account, event.id, i % 2 ? "Same@Example.com" : "same@example.com")],
          }),
        ),
      );
      assert.deepEqual(tally(outcomes), { DUPLICATE_REGISTRATION: 7, ok: 1 });
      assert.equal((await storage.getEvent(account, event.id, DEFAULT_CARBON_SETTINGS))?.attendeeCount, 1);
    });

    test("the same vendor booked for one event at once: one booking, the rest DUPLICATE_BOOKING", async () => {
      const account = await newAccount(storage, "Race bookings");
      const event = eventRecord(account, 50);
      await insertEvent(storage, event);
      const vendor = newVendorRecord(
        { name: "Race Catering", category: "catering" },
        { id: createId("vendor"), accountId: account, now: NOW },
      );
      await storage.transaction((tx) => tx.vendors.insert(vendor));
      const book = (): Call => ({
        method: "insertBooking",
        args: [
          account,
          event.id,
          { vendorId: vendor.id, services: "Lunch", dataRequested: [] },
          { id: createId("booking"), now: NOW, linkHash: linkHashOf(newLinkToken("vendor")) },
        ],
      });
      const outcomes = await racers.race(Array.from({ length: 8 }, book));
      assert.deepEqual(tally(outcomes), { DUPLICATE_BOOKING: 7, ok: 1 });
      assert.equal((await storage.listBookings(account, event.id, BookingListQuery.parse({}))).total, 1);
    });

    test("a vendor deleted while it is booked: the deletion and the booking never both succeed", async () => {
      const account = await newAccount(storage, "Race vendor deletion");
      const event = eventRecord(account, 50);
      await insertEvent(storage, event);
      for (let round = 0; round < 3; round++) {
        const vendor = newVendorRecord(
          { name: `Round ${round}`, category: "energy" },
          { id: createId("vendor"), accountId: account, now: NOW },
        );
        await storage.transaction((tx) => tx.vendors.insert(vendor));
        const outcome = codes(
          await racers.race([
            { method: "deleteVendor", args: [account, vendor.id, NOW] },
            {
              method: "insertBooking",
              args: [
                account,
                event.id,
                { vendorId: vendor.id, services: "Power", dataRequested: [] },
                { id: createId("booking"), now: NOW, linkHash: linkHashOf(newLinkToken("vendor")) },
              ],
            },
          ]),
        );
        // Sorted codes: the deletion went first (the booking found no vendor: NOT_FOUND) or the booking did
        // (the deletion found it in use); both "ok" would be a booking of a deleted vendor.
        assert.ok(["NOT_FOUND,ok", "VENDOR_IN_USE,ok"].includes(outcome.join(",")), outcome.join(" / "));
        const bookings = await storage.listBookings(account, event.id, BookingListQuery.parse({ limit: "100" }));
        const kept = await storage.getVendor(account, vendor.id);
        // Never a booking of a vendor that is gone.
        assert.equal(bookings.items.some((b) => b.vendorId === vendor.id) && kept === null, false);
      }
    });

    test("a cancelled registration re-activated while others take the last place: never over capacity", async () => {
      const account = await newAccount(storage, "Race reactivation");
      const event = eventRecord(account, 5);
      await insertEvent(storage, event);
      const cancelled: string[] = [];
      for (let i = 0; i < 5; i++) {
        const attendee = await registerAttendee(storage, attendeeRecord(account, event.id));
        await updateAttendee(storage, account, attendee.id, { status: "cancelled" }, NOW);
        cancelled.push(attendee.id);
      }
      const calls: Call[] = [
        ...cancelled.map(
          (id): Call => ({ method: "updateAttendee", args: [account, id, { status: "confirmed" }, NOW] }),
        ),
        ...Array.from(
          { length: 5 },
          (): Call => ({ method: "registerAttendee", args: [attendeeRecord(account, event.id)] }),
        ),
      ];
      const outcomes = await racers.race(calls);
      assert.deepEqual(tally(outcomes), { EVENT_FULL: 5, ok: 5 });
      const active = (
        await storage.listAttendees(account, AttendeeListQuery.parse({ eventId: event.id, limit: "100" }))
      ).items.filter((a) => a.status !== "cancelled");
      assert.equal(active.length, 5);
      assert.equal((await storage.getEvent(account, event.id, DEFAULT_CARBON_SETTINGS))?.attendeeCount, 5);
    });

    test("the same Idempotency-Key claimed at once: one holder; the others see its claim", async () => {
      const account = await newAccount(storage, "Race idempotency");
      const claim = (requestHash: string, now = NOW, staleBefore = "2040-12-31T23:59:00.000Z"): Call => ({
        method: "claimIdempotencyKey",
        args: [
          { accountId: account, key: "same-key", requestHash, now, expiresAt: "2041-01-02T00:00:00.000Z", staleBefore },
        ],
      });
      const outcomes = await racers.race(Array.from({ length: 12 }, (_, i) => claim(`hash-${i}`)));
      assert.ok(
        outcomes.every((o) => o.ok),
        JSON.stringify(outcomes.filter((o) => !o.ok)),
      );
      const holders = outcomes.flatMap((o, i) => (o.ok && o.value === null ? [i] : []));
      assert.equal(holders.length, 1);
      for (const o of outcomes)
        if (o.ok && o.value !== null)
          assert.deepEqual([o.value.state, o.value.requestHash], ["running", `hash-${holders[0]}`]);

      // The claim is abandoned (stale): again exactly one of those that race for it takes it over.
      const later = await racers.race(
        Array.from({ length: 12 }, (_, i) =>
          claim(`late-${i}`, "2041-01-01T00:10:00.000Z", "2041-01-01T00:05:00.000Z"),
        ),
      );
      assert.ok(
        later.every((o) => o.ok),
        JSON.stringify(later.filter((o) => !o.ok)),
      );
      const takers = later.flatMap((o, i) => (o.ok && o.value === null ? [i] : []));
      assert.equal(takers.length, 1);
      for (const o of later) if (o.ok && o.value !== null) assert.equal(o.value.requestHash, `late-${takers[0]}`);
    });

    test("keys for the same new account name at once: one account holding every key", async () => {
      const name = `Race account ${createId("account")}`;
      const outcomes = await racers.race(
        Array.from(
          { length: 8 },
          (): Call => ({
            method: "createApiKey",
            args: [
              {
                id: createId("apiKey"),
                account: name,
                newAccountId: createId("account"),
                hash: createId("apiKey"),
                prefix: "esk_r…",
                tier: "free",
                scopes: ["events:read"],
                now: NOW,
              },
            ],
          }),
        ),
      );
      assert.ok(
        outcomes.every((o) => o.ok),
        JSON.stringify(outcomes.filter((o) => !o.ok)),
      );
      const accountIds = new Set(outcomes.map((o) => (o as { value: { accountId: string } }).value.accountId));
      assert.equal(accountIds.size, 1);
      const account = await storage.findAccount(name);
      assert.equal(account?.id, [...accountIds][0]);
      assert.equal((await storage.listApiKeys(name)).length, 8);
    });

    test("the same webhook URL at once: one stored, the others DUPLICATE_WEBHOOK, never another error", async () => {
      const account = await newAccount(storage, "Race webhook URL");
      const url = "https://93.184.216.34/same";
      const outcomes = await racers.race(
        Array.from({ length: 8 }, (): Call => ({ method: "insertWebhook", args: [webhookRecord(account, url)] })),
      );
      assert.deepEqual(tally(outcomes), { DUPLICATE_WEBHOOK: 7, ok: 1 });
      assert.equal((await storage.listWebhooks(account, WebhookListQuery.parse({}))).total, 1);

      // Two webhooks changed to one new URL at once: one gets it.
      const first = webhookRecord(account, "https://93.184.216.34/one");
      const second = webhookRecord(account, "https://93.184.216.34/two");
      await insertWebhook(storage, first);
      await insertWebhook(storage, second);
      const changes = await racers.race(
        [first, second].map(
          (w): Call => ({ method: "updateWebhookUrl", args: [account, w.id, "https://93.184.216.34/target"] }),
        ),
      );
      assert.deepEqual(codes(changes), ["DUPLICATE_WEBHOOK", "ok"]);
      const urls = (await storage.listWebhooks(account, WebhookListQuery.parse({}))).items.map((w) => w.url).sort();
      assert.equal(urls.length, 3);
      assert.deepEqual(
        urls.filter((u) => u.endsWith("/same") || u.endsWith("/target")),
        ["https://93.184.216.34/same", "https://93.184.216.34/target"],
      );
      assert.equal(urls.filter((u) => u.endsWith("/one") || u.endsWith("/two")).length, 1, "the other kept its URL");
    });

    test("the webhook cap under parallel inserts: exactly the bound is stored", async () => {
      const account = await newAccount(storage, "Race webhook cap");
      const outcomes = await racers.race(
        Array.from(
          { length: 12 },
          (_, i): Call => ({
            method: "insertWebhook",
            args: [webhookRecord(account, `https://93.184.216.34/cap/${i}`), 5],
          }),
        ),
      );
      assert.ok(
        outcomes.every((o) => o.ok),
        JSON.stringify(outcomes.filter((o) => !o.ok)),
      );
      assert.equal(outcomes.filter((o) => o.ok && o.value === true).length, 5);
      assert.equal((await storage.listWebhooks(account, WebhookListQuery.parse({}))).total, 5);
    });

    test("workers claiming deliveries at once: none handed out twice, every bound kept, every one handed out in the end", async () => {
      const account = await newAccount(storage, "Race deliveries");
      const other = await newAccount(storage, "Race deliveries other");
      const webhooks = [
        webhookRecord(account, "https://93.184.216.34/d1"),
        webhookRecord(account, "https://93.184.216.34/d2"),
        webhookRecord(other, "https://93.184.216.34/d3"),
      ];
      for (const webhook of webhooks) await insertWebhook(storage, webhook);
      for (let i = 0; i < 12; i++) {
        await insertEvent(storage, eventRecord(account, 10, `2041-01-01T00:00:${String(i).padStart(2, "0")}.000Z`));
        await insertEvent(storage, eventRecord(other, 10, `2041-01-01T00:00:${String(i).padStart(2, "0")}.000Z`));
      }
      const total = 36;
      const claim = (workerId: string): Call => ({
        method: "claimDueDeliveries",
        args: [
          {
            workerId,
            now: "2041-01-01T00:01:00.000Z",
            leaseUntil: "2041-01-01T01:00:00.000Z",
            limit: 5,
            webhookRoom: { each: 3, left: {} },
            accountRoom: { each: 4, left: {} },
          },
        ],
      });
      const seen = new Map<string, string>();
      for (let round = 0; round < 20 && seen.size < total; round++) {
        const outcomes = await racers.race(Array.from({ length: 4 }, (_, i) => claim(`worker-${round}-${i}`)));
        for (const [i, outcome] of outcomes.entries()) {
          assert.ok(outcome.ok, JSON.stringify(outcome));
          const claimed = outcome.value as ClaimedDelivery[];
          assert.ok(claimed.length <= 5, "limit");
          const perWebhook = new Map<string, number>();
          const perAccount = new Map<string, number>();
          for (const delivery of claimed) {
            perWebhook.set(delivery.webhookId, (perWebhook.get(delivery.webhookId) ?? 0) + 1);
            perAccount.set(delivery.accountId, (perAccount.get(delivery.accountId) ?? 0) + 1);
            assert.equal(seen.get(delivery.id), undefined, `delivery ${delivery.id} handed out twice`);
            seen.set(delivery.id, `worker-${round}-${i}`);
          }
          assert.ok(
            [...perWebhook.values()].every((n) => n <= 3),
            "per webhook",
          );
          assert.ok(
            [...perAccount.values()].every((n) => n <= 4),
            "per account",
          );
        }
      }
      assert.equal(seen.size, total);
      // Every lease is held by the worker that got the delivery: its attempt is recorded, another worker's is refused.
      const [id, owner] = [...seen][0]!;
      const attempt = {
        number: 1,
        startedAt: NOW,
        durationMs: 1,
        statusCode: 200,
        error: null,
        responseExcerpt: null,
        succeeded: true,
      };
      const records = await racers.race(
        [owner, "intruder"].map(
          (workerId): Call => ({
            method: "recordDeliveryAttempt",
            args: [{ deliveryId: id, workerId, attempt, nextAttemptAt: null, gone: false, now: NOW }, 5],
          }),
        ),
      );
      assert.deepEqual(
        records.map((o) => o.ok && o.value.recorded),
        [true, false],
      );
    });

    test("the same delivery's attempt recorded twice at once: recorded once", async () => {
      const account = await newAccount(storage, "Race attempts");
      const webhook = webhookRecord(account, "https://93.184.216.34/attempts");
      await insertWebhook(storage, webhook);
      await insertEvent(storage, eventRecord(account, 10, "2041-06-01T00:00:00.000Z"));
      const [delivery] = (
        await storage.claimDueDeliveries({
          workerId: "w",
          now: "2041-06-01T00:00:00.000Z",
          leaseUntil: "2041-06-01T01:00:00.000Z",
          limit: 100,
        })
      ).filter((d) => d.webhookId === webhook.id);
      assert.ok(delivery, "the new delivery is claimed");
      const attempt = {
        number: 1,
        startedAt: NOW,
        durationMs: 1,
        statusCode: 500,
        error: null,
        responseExcerpt: null,
        succeeded: false,
      };
      const outcomes = await racers.race(
        Array.from(
          { length: 4 },
          (): Call => ({
            method: "recordDeliveryAttempt",
            args: [
              {
                deliveryId: delivery.id,
                workerId: "w",
                attempt,
                nextAttemptAt: "2041-06-01T00:05:00.000Z",
                gone: false,
                now: NOW,
              },
              5,
            ],
          }),
        ),
      );
      assert.deepEqual(outcomes.map((o) => o.ok && o.value.recorded).sort(), [false, false, false, true]);
      assert.equal((await storage.getDelivery(account, webhook.id, delivery.id))?.attempts.length, 1);
      assert.equal((await storage.getWebhook(account, webhook.id))?.consecutiveFailures, 1);
    });

    test("attempts of one webhook recorded at once: failures count in the order attempts began, whatever the order of the commits", async () => {
      const account = await newAccount(storage, "Race failure counts");
      const webhook = webhookRecord(account, "https://93.184.216.34/failures");
      await insertWebhook(storage, webhook);
      for (let i = 0; i < 24; i++)
        await insertEvent(storage, eventRecord(account, 10, `2041-07-01T00:00:${String(i).padStart(2, "0")}.000Z`));
      const deliveries = (
        await storage.claimDueDeliveries({
          workerId: "w",
          now: "2041-07-01T00:01:00.000Z",
          leaseUntil: "2041-07-01T02:00:00.000Z",
          limit: 100,
        })
      ).filter((d) => d.webhookId === webhook.id);
      assert.equal(deliveries.length, 24);
      const started = (second: number) => new Date(Date.UTC(2041, 6, 1, 1) + second * 1000).toISOString();
      const record = (delivery: ClaimedDelivery, second: number, succeeded: boolean): Call => ({
        method: "recordDeliveryAttempt",
        args: [
          {
            deliveryId: delivery.id,
            workerId: "w",
            nextAttemptAt: "2041-07-01T03:00:00.000Z",
            gone: false,
            now: "2041-07-01T01:10:00.000Z",
            attempt: {
              number: 1,
              startedAt: started(second),
              durationMs: 1,
              statusCode: succeeded ? 200 : 500,
              error: null,
              responseExcerpt: null,
              succeeded,
            },
          },
          5,
        ],
      });
      const failures = async () => (await storage.getWebhook(account, webhook.id))?.consecutiveFailures;
      // Successes that began at 100..107 at once: the latest of them is the one kept, so a failure that began at 106 does not count.
      const successes = await racers.race(deliveries.slice(0, 8).map((d, i) => record(d, 100 + i, true)));
      assert.ok(
        successes.every((o) => o.ok && o.value.recorded),
        JSON.stringify(successes),
      );
      assert.deepEqual(
        (await racers.race([record(deliveries[8]!, 106, false)])).map((o) => o.ok && o.value),
        [{ recorded: true, webhookDisabled: false }],
      );
      assert.equal(await failures(), 0);
      // Twelve stragglers (began before 107), an older success, and three failures that began after it, all at once: two count.
      const calls = [
        ...deliveries.slice(9, 21).map((d, i) => record(d, 50 + i, false)),
        record(deliveries[21]!, 60, true),
        ...deliveries.slice(22, 24).map((d, i) => record(d, 108 + i, false)),
      ];
      const outcomes = await racers.race(calls);
      assert.ok(
        outcomes.every((o) => o.ok && o.value.recorded && !o.value.webhookDisabled),
        JSON.stringify(outcomes),
      );
      assert.equal(await failures(), 2);
      assert.equal((await storage.getWebhook(account, webhook.id))?.active, true);
    });

    test("leases taken at once: the limit is granted exactly, never more", async () => {
      const { accountId } = await storage.createApiKey({
        id: createId("apiKey"),
        account: `Race leases ${createId("account")}`,
        newAccountId: createId("account"),
        hash: createId("apiKey"),
        prefix: "p",
        tier: "free",
        scopes: ["events:read"],
        now: NOW,
      });
      const windows = { minute: 1_900_000_020, day: 1_899_993_600 };
      const limits = { perMinute: 60, perDay: 1_000 };
      const outcomes = await racers.race(
        Array.from(
          { length: 40 },
          (_, i): Call => ({ method: "reserveRequests", args: [{ accountId, windows, want: 1 + (i % 3), limits }] }),
        ),
      );
      assert.ok(
        outcomes.every((o) => o.ok),
        JSON.stringify(outcomes.filter((o) => !o.ok)),
      );
      const granted = outcomes.map((o) => (o as { value: { granted: number } }).value.granted);
      assert.equal(
        granted.reduce((sum, g) => sum + g, 0),
        60,
        "40 leases asking 80 in all share exactly the 60",
      );
      assert.deepEqual(await storage.reserveRequests({ accountId, windows, want: 1, limits }), {
        granted: 0,
        minute: 60,
        day: 60,
      });
    });
  });
}
