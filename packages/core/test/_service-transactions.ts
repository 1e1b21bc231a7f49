/**
 * The business transactions of `service/` over a real storage, as one suite run against every
 * storage backend (`describeServiceTransactions(name, create)`): what each transaction writes,
 * refuses and notifies, and the storage's own reads and guarded operations as the service uses
 * them. It talks to the `Storage` interface and the service's functions only
 * (`_transactions.ts`). The storage's transaction operations on their own are the storage
 * contract's (`_storage-contract.ts`).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createConfirmationCode, createId } from "../src/_internal/ids.ts";
import { DEFAULT_CARBON_SETTINGS, offsetKg } from "../src/carbon/carbon-settings.ts";
import { type TravelMode, travelEmissionsKg } from "../src/carbon/emission-factors.ts";
import { sustainabilityScore } from "../src/carbon/sustainability-score.ts";
import { scoreTier } from "../src/analytics/certifications.ts";
import { ServiceError } from "../src/errors.ts";
import {
  type AttendeeCreate,
  type AttendeeRecord,
  AttendeeListQuery,
  newAttendeeRecord,
} from "../src/resources/attendee.ts";
import { limitsFor } from "../src/resources/api-key.ts";
import { ActivityListQuery, type PricedActivity } from "../src/resources/priced-activity.ts";
import type { ElectricitySource, WasteStream } from "../src/carbon/activity-kinds.ts";
import { type ActivityFigures, activityFiguresOf, NO_ACTIVITY_FIGURES } from "../src/resources/activity-figures.ts";
import { type EventCreate, EventListQuery, type EventRecord, newEventRecord } from "../src/resources/event.ts";
import { WebhookListQuery, type WebhookRecord } from "../src/resources/webhook.ts";
import { DeliveryListQuery } from "../src/resources/webhook-delivery.ts";
import type { Erasure, Storage } from "../src/storage.ts";
import { StorageConflict } from "../src/storage/transaction.ts";
import { describeOutboxAndDeliveries, webhookRecord } from "./_service-transactions-outbox.ts";
import { describeThresholds } from "./_service-transactions-thresholds.ts";
import { describeTicketLinks } from "./_service-transactions-ticket-links.ts";
import { describeDoorLinks } from "./_service-transactions-door.ts";
import { describeTicketTypes } from "./_service-transactions-tickets.ts";
import { describeEmails } from "./_service-transactions-emails.ts";
import { describeVendors } from "./_service-transactions-vendors.ts";
import { changeWebhook, recordAttempt } from "./_webhook-helpers.ts";
import * as registrations from "../src/service/registrations.ts";
import { newTicketLink } from "../src/service/ticket-link-operations.ts";
import { createChangeNotifier } from "../src/webhooks/change-notifications.ts";
import {
  checkIn,
  deleteEvent,
  eraseAttendee,
  insertEvent,
  insertWebhook,
  registerAttendee,
  transactionContext,
  undoCheckIn,
  updateAttendee,
  updateEvent,
} from "./_transactions.ts";

const carbon = DEFAULT_CARBON_SETTINGS;
let clock = Date.parse("2026-01-01T00:00:00.000Z");
const tick = () => new Date((clock += 1000)).toISOString();

/** An event as it is once published: the door (check-in) is open. */
const publishedEventRecord = (accountId: string, overrides: Partial<EventCreate> = {}): EventRecord => ({
  ...eventRecord(accountId, overrides),
  status: "published",
});

function eventRecord(accountId: string, overrides: Partial<EventCreate> = {}): EventRecord {
  return newEventRecord(
    {
      name: "Green Summit",
      description: null,
      location: { address: "Main St 1", city: "Berlin", country: "DE" },
      startDate: "2038-05-01T09:00:00.000Z",
      endDate: "2038-05-01T17:00:00.000Z",
      capacity: 10,
      category: "conference",
      ...overrides,
    },
    { id: createId("event"), accountId, now: tick() },
  );
}

export function attendeeRecord(
  accountId: string,
  eventId: string,
  overrides: Partial<AttendeeCreate> = {},
): AttendeeRecord {
  return newAttendeeRecord(
    {
      eventId,
      firstName: "Ada",
      lastName: "Lovelace",
      email: `${createId("attendee")}@example.com`,
      ticketType: "general",
      ...overrides,
    },
    { id: createId("attendee"), accountId, confirmationCode: createConfirmationCode(), now: tick() },
  );
}

async function rejectsWith(promise: Promise<unknown>, code: string, field?: string) {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(ServiceError.is(error), `not a ServiceError: ${error}`);
    assert.equal(error.code, code);
    if (field !== undefined) assert.equal(error.field, field);
    return true;
  });
}

const ERASED = { status: 404, body: '{"error":{"code":"NOT_FOUND","message":"erased"}}' };
const erasure = (): Erasure => ({ now: tick(), replay: ERASED });

async function newAccount(storage: Storage, name: string): Promise<string> {
  const info = await storage.createApiKey({
    id: createId("apiKey"),
    account: name,
    newAccountId: createId("account"),
    hash: createId("apiKey"),
    prefix: "esk_x…",
    tier: "free",
    scopes: ["events:read"],
    now: tick(),
  });
  return info.accountId;
}

/**
 * The methods of a live storage object: its own function-valued keys and its prototypes' (a
 * class-based storage keeps them there), the interface as it is at run time.
 */
function storageMethods(storage: Storage): string[] {
  const names = new Set<string>();
  for (
    let object: object | null = storage;
    object && object !== Object.prototype;
    object = Object.getPrototypeOf(object)
  ) {
    for (const key of Object.getOwnPropertyNames(object)) {
      if (key !== "constructor" && typeof (storage as unknown as Record<string, unknown>)[key] === "function")
        names.add(key);
    }
  }
  return [...names].sort();
}

/**
 * Runs the business transactions of `service/` over storages made by `create` (each call: a new,
 * empty, migrated storage).
 */
export function describeServiceTransactions(name: string, createStorage: () => Promise<Storage>) {
  // Every method a test calls is recorded, so that the last test can name the methods no test covers.
  const called = new Set<string>();
  let live: Storage | undefined;
  const create = async () => {
    const made = await createStorage();
    live ??= made;
    return new Proxy(made, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (typeof value === "function" && typeof property === "string") called.add(property);
        return value;
      },
    });
  };

  describe(`service transactions: ${name}`, () => {
    let storage: Storage;
    let acme: string;
    let globex: string;

    before(async () => {
      storage = await create();
      acme = await newAccount(storage, "Acme");
      globex = await newAccount(storage, "Globex");
    });
    after(() => storage.close());

    test("migrate is idempotent and ping answers; after close, nothing answers", async () => {
      await storage.migrate();
      await storage.ping();
      const other = await create();
      await other.ping();
      await other.close();
      await assert.rejects(other.ping());
    });

    describe("accounts and keys", () => {
      test("a key for an existing account name joins that account; a new name creates one", async () => {
        const hash = createId("apiKey");
        const info = await storage.createApiKey({
          id: createId("apiKey"),
          account: "Acme",
          newAccountId: createId("account"),
          hash,
          prefix: "esk_abc…",
          tier: "enterprise",
          scopes: ["events:read", "analytics:read"],
          limits: { perMinute: 99, perDay: 999 },
          now: tick(),
        });
        assert.equal(info.accountId, acme);
        assert.equal(info.accountName, "Acme");
        const auth = await storage.authenticate(hash);
        assert.deepEqual(auth, {
          keyId: info.id,
          accountId: acme,
          accountName: "Acme",
          tier: "enterprise",
          scopes: ["events:read", "analytics:read"],
          perMinute: 99,
          perDay: 999,
        });
        assert.equal((await storage.findAccount(acme))?.name, "Acme");
        assert.equal((await storage.findAccount("Acme"))?.id, acme);
        assert.equal(await storage.findAccount("Nobody"), null);

        const listed = await storage.listApiKeys("Acme");
        assert.ok(listed.some((key) => key.id === info.id));
        assert.ok(listed.every((key) => key.accountId === acme));
        assert.doesNotMatch(JSON.stringify(listed), new RegExp(hash));

        assert.equal(await storage.revokeApiKey(info.id, tick()), true);
        assert.equal(await storage.revokeApiKey(info.id, tick()), false);
        assert.equal(await storage.authenticate(hash), null);
        assert.notEqual((await storage.listApiKeys(acme)).find((key) => key.id === info.id)?.revokedAt, null);
      });

      test("an account that sets no limits stores none: the tier's apply (limitsFor)", async () => {
        const hash = createId("apiKey");
        await storage.createApiKey({
          id: createId("apiKey"),
          account: "Initech",
          newAccountId: createId("account"),
          hash,
          prefix: "p",
          tier: "starter",
          scopes: ["events:read"],
          now: tick(),
        });
        const stored = (await storage.authenticate(hash))!;
        assert.deepEqual(
          { tier: stored.tier, perMinute: stored.perMinute, perDay: stored.perDay },
          { tier: "starter", perMinute: null, perDay: null },
        );
        assert.deepEqual(limitsFor(stored.tier, stored.perMinute, stored.perDay), { perMinute: 300, perDay: 10_000 });
      });
    });

    describe("rate-limit windows and idempotency keys", () => {
      test("reserveRequests grants up to the limits, exactly under concurrency, rolls windows and takes counts back", async () => {
        const account = async (tier: "free" | "enterprise", limits?: { perMinute: number; perDay: number }) =>
          (
            await storage.createApiKey({
              id: createId("apiKey"),
              account: `Leased ${createId("account")}`,
              newAccountId: createId("account"),
              hash: createId("apiKey"),
              prefix: "p",
              tier,
              scopes: ["events:read"],
              limits,
              now: tick(),
            })
          ).accountId;
        const a = await account("free");
        const b = await account("enterprise", { perMinute: 7, perDay: 70 });
        const windows = { minute: 1_800_000_000, day: 1_799_971_200 };
        const free = { perMinute: 60, perDay: 1_000 };
        const lease = (
          accountId: string,
          want: number,
          limits = free,
          at = windows,
          giveBack?: { windows: typeof windows; count: number },
        ) => storage.reserveRequests({ accountId, windows: at, want, limits, ...(giveBack && { giveBack }) });

        // 25 leases of 3 at once for 60: exactly 60 granted (20 × 3), the rest get nothing.
        const grants = await Promise.all(Array.from({ length: 25 }, () => lease(a, 3)));
        assert.equal(
          grants.reduce((sum, g) => sum + g.granted, 0),
          60,
        );
        assert.deepEqual(
          grants.map((g) => g.granted).sort((x, y) => x - y),
          [...Array(5).fill(0), ...Array(20).fill(3)],
        );
        assert.deepEqual(
          grants
            .map((g) => g.minute)
            .filter((_, i) => grants[i]!.granted > 0)
            .sort((x, y) => x - y),
          Array.from({ length: 20 }, (_, i) => 3 * (i + 1)),
        );
        assert.deepEqual(await lease(a, 5), { granted: 0, minute: 60, day: 60 });
        // Another account has its own windows; a grant stops at its limits.
        assert.deepEqual(await lease(b, 5, { perMinute: 7, perDay: 70 }), { granted: 5, minute: 5, day: 5 });
        assert.deepEqual(await lease(b, 5, { perMinute: 7, perDay: 70 }), { granted: 2, minute: 7, day: 7 });
        // Giving back frees the counts; a give-back of a past minute leaves the new minute alone but frees its day.
        assert.deepEqual(await lease(a, 0, free, windows, { windows, count: 4 }), { granted: 0, minute: 56, day: 56 });
        const next = { minute: windows.minute + 60, day: windows.day };
        assert.deepEqual(await lease(a, 2, free, next), { granted: 2, minute: 2, day: 58 });
        assert.deepEqual(await lease(a, 1, free, next, { windows, count: 6 }), { granted: 1, minute: 3, day: 53 });
        // A lease of an older minute counts in the stored one; a new day starts both again.
        assert.deepEqual(await lease(a, 1, free, windows), { granted: 1, minute: 4, day: 54 });
        assert.deepEqual(await lease(a, 3, free, { minute: windows.minute + 86_400, day: windows.day + 86_400 }), {
          granted: 3,
          minute: 3,
          day: 3,
        });
        // The day's limit binds too.
        assert.deepEqual(
          await lease(b, 10, { perMinute: 100, perDay: 9 }, { minute: windows.minute + 120, day: windows.day }),
          { granted: 2, minute: 2, day: 9 },
        );
      });

      test("keysRevision rises with every revocation and every change of an account's limits, and with nothing else", async () => {
        const before = await storage.keysRevision();
        const name = `Revised ${createId("account")}`;
        const created = await storage.createApiKey({
          id: createId("apiKey"),
          account: name,
          newAccountId: createId("account"),
          hash: createId("apiKey"),
          prefix: "p",
          tier: "free",
          scopes: ["events:read"],
          now: tick(),
        });
        assert.equal(await storage.keysRevision(), before, "a new key changes nothing remembered");
        await storage.createApiKey({
          id: createId("apiKey"),
          account: name,
          newAccountId: createId("account"),
          hash: createId("apiKey"),
          prefix: "p",
          tier: "enterprise",
          scopes: ["events:read"],
          limits: { perMinute: 10 },
          now: tick(),
        });
        assert.equal(await storage.keysRevision(), before + 1);
        assert.equal(await storage.revokeApiKey(created.id, tick()), true);
        assert.equal(await storage.keysRevision(), before + 2);
        assert.equal(await storage.revokeApiKey(created.id, tick()), false);
        assert.equal(await storage.keysRevision(), before + 2, "revoking a revoked key changes nothing");
      });

      test("claimIdempotencyKey: first claim wins, the rest see it until it expires or goes stale", async () => {
        const claim = {
          accountId: acme,
          key: `k-${createId("event")}`,
          requestHash: "h1",
          now: "2026-01-01T00:00:00.000Z",
          expiresAt: "2026-01-02T00:00:00.000Z",
          staleBefore: "2025-12-31T23:59:00.000Z",
        };
        const results = await Promise.all(Array.from({ length: 5 }, () => storage.claimIdempotencyKey(claim)));
        assert.equal(results.filter((r) => r === null).length, 1);
        const held = results.find((r) => r !== null)!;
        assert.equal(held.state, "running");
        assert.equal(held.requestHash, "h1");
        assert.equal(held.response, null);
        // Another account may use the same key.
        assert.equal(await storage.claimIdempotencyKey({ ...claim, accountId: globex }), null);

        await storage.completeIdempotencyKey(acme, claim.key, { status: 201, body: '{"id":1}' });
        const done = await storage.claimIdempotencyKey({
          ...claim,
          now: "2026-01-01T12:00:00.000Z",
          staleBefore: "2026-01-01T11:59:00.000Z",
        });
        assert.equal(done?.state, "done");
        assert.deepEqual(done?.response, { status: 201, body: '{"id":1}' });
        // Expired: a new claim.
        assert.equal(
          await storage.claimIdempotencyKey({
            ...claim,
            requestHash: "h2",
            now: "2026-01-02T00:00:01.000Z",
            expiresAt: "2026-01-03T00:00:01.000Z",
          }),
          null,
        );
        // A running claim older than staleBefore is abandoned and taken over; a fresh one is not.
        assert.equal(
          (
            await storage.claimIdempotencyKey({
              ...claim,
              now: "2026-01-02T00:00:30.000Z",
              staleBefore: "2026-01-01T23:59:30.000Z",
            })
          )?.requestHash,
          "h2",
        );
        assert.equal(
          await storage.claimIdempotencyKey({
            ...claim,
            requestHash: "h3",
            now: "2026-01-02T00:05:00.000Z",
            staleBefore: "2026-01-02T00:04:00.000Z",
          }),
          null,
        );
        // Released claims free the key.
        await storage.releaseIdempotencyKey(acme, claim.key);
        assert.equal(
          await storage.claimIdempotencyKey({ ...claim, requestHash: "h4", now: "2026-01-02T00:05:01.000Z" }),
          null,
        );
        // Expired records are purged.
        assert.ok(
          (
            await storage.purgeExpired({
              now: "2026-01-04T00:00:00.000Z",
              deliveriesBefore: "2000-01-01T00:00:00.000Z",
              emailsBefore: "2000-01-01T00:00:00.000Z",
            })
          ).idempotencyKeys >= 2,
        );
      });
    });

    describe("webhooks", () => {
      const webhook = (accountId: string, url: string): WebhookRecord => ({
        id: createId("webhook"),
        accountId,
        url,
        events: ["*"],
        description: null,
        secret: "whsec_x",
        active: true,
        metadata: {},
        previousSecret: null,
        previousSecretExpiresAt: null,
        consecutiveFailures: 0,
        disabledAt: null,
        createdAt: tick(),
        updatedAt: tick(),
      });

      test("insert, get, list, update and delete, one URL per account", async () => {
        const first = webhook(acme, "https://93.184.216.34/a");
        await insertWebhook(storage, first);
        assert.deepEqual(await storage.getWebhook(acme, first.id), first);
        assert.equal(await storage.getWebhook(globex, first.id), null);
        // The storage reports a taken URL as a conflict; the service names the webhook that has it.
        await assert.rejects(storage.insertWebhook(webhook(acme, first.url)), (error: unknown) =>
          StorageConflict.is(error, "webhook-url"),
        );
        await assert.rejects(
          insertWebhook(storage, webhook(acme, first.url)),
          (error: unknown) =>
            ServiceError.is(error) &&
            error.code === "DUPLICATE_WEBHOOK" &&
            error.field === "url" &&
            (error.details as { webhookId: string }).webhookId === first.id,
        );
        await insertWebhook(storage, webhook(globex, first.url));
        const second = webhook(acme, "https://93.184.216.34/b");
        await insertWebhook(storage, { ...second, active: false });
        await rejectsWith(
          changeWebhook(storage, acme, second.id, (w) => ({ ...w, url: first.url })),
          "DUPLICATE_WEBHOOK",
        );
        assert.equal(
          await changeWebhook(storage, globex, second.id, (w) => w),
          null,
          "another account's webhook is not found",
        );
        const { before, after } = (await changeWebhook(storage, acme, second.id, (w) => ({
          ...w,
          description: "B",
          active: true,
        })))!;
        assert.equal(before.active, false);
        assert.equal(after.description, "B");
        assert.deepEqual(await storage.getWebhook(acme, second.id), after);
        const active = await storage.listWebhooks(acme, WebhookListQuery.parse({ active: "true" }));
        assert.deepEqual(
          active.items.map((w) => w.id),
          [second.id, first.id],
        );
        assert.equal((await storage.listWebhooks(acme, WebhookListQuery.parse({ active: "false" }))).total, 0);
        assert.equal(await storage.deleteWebhook(globex, first.id), null);
        assert.equal((await storage.deleteWebhook(acme, first.id))?.id, first.id);
        assert.equal(await storage.getWebhook(acme, first.id), null);
      });

      test("a bound on the account's webhooks holds under concurrent inserts; other accounts are not counted", async () => {
        const capped = await newAccount(storage, `Capped ${tick()}`);
        assert.equal(await insertWebhook(storage, webhook(capped, "https://93.184.216.34/c0"), 3), true);
        const results = await Promise.all(
          Array.from({ length: 6 }, (_, i) =>
            insertWebhook(storage, webhook(capped, `https://93.184.216.34/c${i + 1}`), 3),
          ),
        );
        assert.deepEqual(results.filter(Boolean).length, 2);
        assert.equal((await storage.listWebhooks(capped, WebhookListQuery.parse({}))).total, 3);
        assert.equal(await insertWebhook(storage, webhook(capped, "https://93.184.216.34/c9"), 3), false);
        assert.equal(await insertWebhook(storage, webhook(capped, "https://93.184.216.34/c9"), 4), true);
      });
    });

    describe("events", () => {
      test("round-trips every field", async () => {
        const event = eventRecord(acme, {
          description: "All about it",
          location: {
            address: "Main St 1",
            city: "Berlin",
            state: "BE",
            country: "DE",
            zipCode: "10178",
            coordinates: { lat: 52.52, lng: 13.41 },
          },
          sustainabilityGoals: { carbonNeutral: true, wasteReduction: 40.5, localSourcing: false },
          tags: ["climate", "food"],
        });
        await insertEvent(storage, event);
        const stored = await storage.getEvent(acme, event.id, carbon);
        assert.deepEqual(stored, {
          ...event,
          attendeeCount: 0,
          carbonFootprint: 0,
          sustainabilityScore: 21.1,
          waitlistCount: 0,
        });
      });

      test("another account's event does not exist", async () => {
        const event = eventRecord(acme);
        await insertEvent(storage, event);
        assert.equal(await storage.getEvent(globex, event.id, carbon), null);
        assert.equal(await deleteEvent(storage, globex, event.id), null);
        await rejectsWith(updateEvent(storage, globex, event.id, { name: "x" }, tick()), "NOT_FOUND");
        await rejectsWith(registerAttendee(storage, attendeeRecord(globex, event.id)), "NOT_FOUND", "eventId");
        assert.notEqual(await storage.getEvent(acme, event.id, carbon), null);
      });

      test("update applies status rules and keeps capacity above active registrations", async () => {
        const event = eventRecord(acme, { capacity: 3 });
        await insertEvent(storage, event);
        await registerAttendee(storage, attendeeRecord(acme, event.id));
        await registerAttendee(storage, attendeeRecord(acme, event.id));
        await rejectsWith(updateEvent(storage, acme, event.id, { capacity: 1 }, tick()), "INVALID_REQUEST", "capacity");
        const { before: b, after: a } = await updateEvent(
          storage,
          acme,
          event.id,
          { capacity: 2, status: "published", tags: ["new"] },
          tick(),
        );
        assert.equal(b.status, "draft");
        assert.equal(a.status, "published");
        assert.equal(a.capacity, 2);
        await rejectsWith(
          updateEvent(storage, acme, event.id, { status: "draft" }, tick()),
          "INVALID_STATE_TRANSITION",
          "status",
        );
        await rejectsWith(
          updateEvent(storage, acme, event.id, { endDate: "2038-04-01T00:00:00.000Z" }, tick()),
          "INVALID_REQUEST",
          "endDate",
        );
        const stored = await storage.getEvent(acme, event.id, carbon);
        assert.equal(stored?.capacity, 2);
        assert.deepEqual(stored?.tags, ["new"]);
        assert.equal(stored?.endDate, event.endDate);
        const page = await storage.listEvents(acme, EventListQuery.parse({ tags: "new" }), carbon);
        assert.deepEqual(
          page.items.map((e) => e.id),
          [event.id],
        );
      });

      test("delete removes the event and its registrations in one go", async () => {
        const event = eventRecord(acme);
        await insertEvent(storage, event);
        const attendee = await registerAttendee(storage, attendeeRecord(acme, event.id));
        assert.equal((await deleteEvent(storage, acme, event.id))?.id, event.id);
        assert.equal(await storage.getEvent(acme, event.id, carbon), null);
        assert.equal(await storage.getAttendee(acme, attendee.id), null);
        assert.equal(await deleteEvent(storage, acme, event.id), null);
      });
    });

    describe("event lists", () => {
      let account: string;
      const ids: Record<string, string> = {};
      before(async () => {
        account = await newAccount(storage, "Lists");
        const specs: Array<[string, Partial<EventCreate>]> = [
          [
            "alpha",
            {
              name: "Alpha 100% Green",
              category: "meetup",
              capacity: 5,
              tags: ["climate"],
              startDate: "2038-01-10T10:00:00.000Z",
              endDate: "2038-01-10T12:00:00.000Z",
            },
          ],
          [
            "beta",
            {
              name: "beta_talk",
              category: "conference",
              capacity: 50,
              tags: ["food", "climate"],
              description: "Zero waste catering",
              startDate: "2038-02-10T10:00:00.000Z",
              endDate: "2038-02-11T12:00:00.000Z",
              sustainabilityGoals: { renewableEnergy: true },
            },
          ],
          [
            "gamma",
            {
              name: "Gamma",
              category: "conference",
              capacity: 50,
              startDate: "2038-03-10T10:00:00.000Z",
              endDate: "2038-03-10T12:00:00.000Z",
              sustainabilityGoals: { carbonNeutral: true, localSourcing: true },
            },
          ],
        ];
        for (const [key, overrides] of specs) {
          const event = eventRecord(account, overrides);
          ids[key] = event.id;
          await insertEvent(storage, event);
        }
        // gamma: one car trip of 100 km (16.844 kg), beta: one train trip (3.546 kg) with offsets.
        await registerAttendee(
          storage,
          attendeeRecord(account, ids.gamma!, { carbonOffset: { travelMode: "car", travelDistance: 100 } }),
        );
        await registerAttendee(
          storage,
          attendeeRecord(account, ids.beta!, {
            carbonOffset: { opted: true, amount: 1, travelMode: "train", travelDistance: 100 },
          }),
        );
      });
      const list = (query: Record<string, string>) => storage.listEvents(account, EventListQuery.parse(query), carbon);
      const names = async (query: Record<string, string>) => (await list(query)).items.map((e) => e.name);

      test("default order is newest first, ties broken by id", async () => {
        assert.deepEqual(await names({}), ["Gamma", "beta_talk", "Alpha 100% Green"]);
        assert.deepEqual(await names({ order: "asc" }), ["Alpha 100% Green", "beta_talk", "Gamma"]);
        assert.deepEqual(await names({ sortBy: "capacity", order: "asc" }), [
          "Alpha 100% Green",
          ...[ids.beta!, ids.gamma!].sort().map((id) => (id === ids.beta ? "beta_talk" : "Gamma")),
        ]);
        assert.deepEqual(await names({ sortBy: "name", order: "asc" }), ["Alpha 100% Green", "beta_talk", "Gamma"]);
        assert.deepEqual(await names({ sortBy: "startDate", order: "desc" }), [
          "Gamma",
          "beta_talk",
          "Alpha 100% Green",
        ]);
      });

      test("filters", async () => {
        assert.deepEqual(await names({ category: "conference", order: "asc" }), ["beta_talk", "Gamma"]);
        assert.deepEqual(await names({ tags: "food,nothing" }), ["beta_talk"]);
        assert.deepEqual(await names({ tags: "CLIMATE", order: "asc" }), ["Alpha 100% Green", "beta_talk"]);
        assert.deepEqual(await names({ search: "WASTE" }), ["beta_talk"]);
        assert.deepEqual(await names({ search: "100%" }), ["Alpha 100% Green"]);
        assert.deepEqual(await names({ search: "a_t" }), ["beta_talk"]);
        assert.deepEqual(await names({ search: "%" }), ["Alpha 100% Green"]);
        assert.deepEqual(await names({ startDate: "2038-02-10T10:00:00Z", order: "asc" }), ["beta_talk", "Gamma"]);
        assert.deepEqual(await names({ endDate: "2038-02-11" }), ["beta_talk", "Alpha 100% Green"]);
        assert.deepEqual(await names({ endDate: "2038-02-11T11:59:59Z" }), ["Alpha 100% Green"]);
        assert.deepEqual(await names({ status: "published" }), []);
      });

      test("pagination counts across pages; a page past the end is empty", async () => {
        const first = await list({ limit: "2", order: "asc" });
        assert.equal(first.total, 3);
        assert.deepEqual(
          first.items.map((e) => e.name),
          ["Alpha 100% Green", "beta_talk"],
        );
        const second = await list({ limit: "2", page: "2", order: "asc" });
        assert.deepEqual(
          second.items.map((e) => e.name),
          ["Gamma"],
        );
        const past = await list({ limit: "2", page: "5" });
        assert.deepEqual(past, { items: [], total: 3 });
      });

      test("carbon footprint, score, minScore and sorting by footprint", async () => {
        const all = await list({ order: "asc" });
        const byName = Object.fromEntries(all.items.map((e) => [e.name, e]));
        assert.equal(byName.Gamma!.carbonFootprint, 16.844);
        assert.equal(byName.beta_talk!.carbonFootprint, 3.546);
        assert.equal(byName["Alpha 100% Green"]!.carbonFootprint, 0);
        // gamma: 15 + 15 goals, car trip (no low-carbon share), no offsets = 30.
        assert.equal(byName.Gamma!.sustainabilityScore, 30);
        // beta: 15 renewable + 20 low-carbon share + 20 coverage (1 USD = 66.7 kg >= 3.546 kg) = 55.
        assert.equal(byName.beta_talk!.sustainabilityScore, 55);
        assert.deepEqual(await names({ sortBy: "carbonFootprint", order: "desc" }), [
          "Gamma",
          "beta_talk",
          "Alpha 100% Green",
        ]);
        assert.deepEqual(await names({ minScore: "30", order: "asc" }), ["beta_talk", "Gamma"]);
        assert.deepEqual(await names({ minScore: "30.1" }), ["beta_talk"]);
        assert.deepEqual(await names({ minScore: "55", sortBy: "carbonFootprint" }), ["beta_talk"]);
        const page = await list({ minScore: "0", limit: "1", sortBy: "carbonFootprint", order: "asc" });
        assert.equal(page.total, 3);
        assert.equal(page.items[0]!.name, "Alpha 100% Green");
      });
    });

    test("an event's kept figures equal a recount of its registrations after every kind of change", async () => {
      const account = await newAccount(storage, "Kept figures");
      // Published, so that check-ins are among the changes.
      const event = publishedEventRecord(account, { capacity: 50 });
      await insertEvent(storage, event);
      const modes: Array<TravelMode | undefined> = ["car", "flight", "train", "bus", "bike", "walk", undefined];
      let seed = 11;
      const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
      const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
      const travel = () => {
        const mode = pick(modes);
        return {
          opted: random() < 0.5,
          amount: Math.round(random() * 5000) / 100,
          ...(mode && { travelMode: mode, travelDistance: Math.round(random() * 50000) / 10 }),
        };
      };
      const ids: string[] = [];
      for (let step = 0; step < 120; step++) {
        const roll = random();
        try {
          if (roll < 0.35 || ids.length === 0) {
            ids.push(
              (await registerAttendee(storage, attendeeRecord(account, event.id, { carbonOffset: travel() }))).id,
            );
          } else if (roll < 0.6) {
            await updateAttendee(
              storage,
              account,
              pick(ids),
              { carbonOffset: random() < 0.2 ? null : travel() },
              tick(),
            );
          } else if (roll < 0.85) {
            await updateAttendee(
              storage,
              account,
              pick(ids),
              { status: pick(["confirmed", "pending", "cancelled", "checked-in"] as const) },
              tick(),
            );
          } else if (roll < 0.9) {
            const id = pick(ids);
            assert.equal((await eraseAttendee(storage, account, id, erasure()))?.id, id);
            ids.splice(ids.indexOf(id), 1);
          } else {
            const attendee = await storage.getAttendee(account, pick(ids));
            await checkIn(storage, account, event.id, attendee!.confirmationCode, tick());
          }
        } catch (error) {
          // Refused transitions (checked-in is final, ...) change nothing, as their contract says.
          assert.ok(ServiceError.is(error) && error.code === "INVALID_STATE_TRANSITION", String(error));
        }
      }
      const recount = async () => {
        const all = await storage.listAttendees(account, AttendeeListQuery.parse({ eventId: event.id, limit: "100" }));
        const active = all.items.filter((a) => a.status !== "cancelled");
        const emissions = active.reduce(
          (sum, a) =>
            sum +
            (a.carbonOffset?.travelMode
              ? travelEmissionsKg(a.carbonOffset.travelMode, a.carbonOffset.travelDistance ?? 0)
              : 0),
          0,
        );
        const offsetUsd = active.reduce(
          (sum, a) => sum + (a.carbonOffset?.opted ? (a.carbonOffset.amount ?? 0) : 0),
          0,
        );
        const reported = active.filter((a) => a.carbonOffset?.travelMode).length;
        const low = active.filter((a) =>
          ["train", "bus", "bike", "walk"].includes(a.carbonOffset?.travelMode ?? ""),
        ).length;
        const kept = await storage.getEvent(account, event.id, DEFAULT_CARBON_SETTINGS);
        assert.equal(kept!.attendeeCount, active.length);
        assert.equal(kept!.carbonFootprint, Math.round(emissions * 1000) / 1000);
        assert.equal(
          kept!.sustainabilityScore,
          sustainabilityScore({
            goals: event.sustainabilityGoals,
            travelReported: reported,
            lowCarbonTravel: low,
            emissionsKg: emissions,
            offsetKg: offsetKg(offsetUsd, DEFAULT_CARBON_SETTINGS),
          }),
        );
        return { all: all.items, active };
      };
      const walked = await recount();
      assert.ok(
        walked.active.length > 5 && walked.all.length > walked.active.length,
        "the walk registered, cancelled and kept some",
      );
      // Cancelling the event moves every registration it cancels out of the figures at once.
      await updateEvent(storage, account, event.id, { status: "cancelled" }, tick());
      const { active } = await recount();
      assert.ok(active.length > 0 && active.every((a) => a.status === "checked-in"), "only the checked-in stay");
    });

    describe("the SQL score agrees with the JavaScript formula", () => {
      test("on 25 generated events", async () => {
        const account = await newAccount(storage, "Scores");
        const modes: Array<TravelMode | undefined> = ["car", "flight", "train", "bus", "bike", "walk", undefined];
        let seed = 7;
        const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
        const expected = new Map<string, { score: number; footprint: number }>();
        for (let e = 0; e < 25; e++) {
          const goals = {
            ...(random() < 0.5 && { carbonNeutral: random() < 0.7 }),
            ...(random() < 0.5 && { renewableEnergy: random() < 0.7 }),
            ...(random() < 0.5 && { localSourcing: random() < 0.7 }),
            ...(random() < 0.5 && { wasteReduction: Math.round(random() * 1000) / 10 }),
          };
          const event = eventRecord(account, { capacity: 20, sustainabilityGoals: goals });
          await insertEvent(storage, event);
          let emissions = 0,
            offsetUsd = 0,
            reported = 0,
            low = 0;
          const count = Math.floor(random() * 6);
          for (let a = 0; a < count; a++) {
            const mode = modes[Math.floor(random() * modes.length)];
            const distance = Math.round(random() * 50000) / 10;
            const opted = random() < 0.5;
            const amount = Math.round(random() * 5000) / 100;
            const cancelled = random() < 0.2;
            const attendee = await registerAttendee(
              storage,
              attendeeRecord(account, event.id, {
                carbonOffset: { opted, amount, ...(mode && { travelMode: mode, travelDistance: distance }) },
              }),
            );
            if (cancelled) {
              await updateAttendee(storage, account, attendee.id, { status: "cancelled" }, tick());
              continue;
            }
            if (mode) {
              reported += 1;
              if (["train", "bus", "bike", "walk"].includes(mode)) low += 1;
              emissions += travelEmissionsKg(mode, distance);
            }
            if (opted) offsetUsd += amount;
          }
          const score = sustainabilityScore({
            goals,
            travelReported: reported,
            lowCarbonTravel: low,
            emissionsKg: emissions,
            offsetKg: offsetKg(offsetUsd),
          });
          expected.set(event.id, { score, footprint: Math.round(emissions * 1000) / 1000 });
        }
        const listed = await storage.listEvents(account, EventListQuery.parse({ limit: "100" }), carbon);
        assert.equal(listed.total, 25);
        for (const event of listed.items) {
          assert.equal(event.sustainabilityScore, expected.get(event.id)!.score, event.id);
          assert.ok(Math.abs(event.carbonFootprint - expected.get(event.id)!.footprint) < 1e-6, event.id);
        }
        for (const minScore of [0, 10, 25.5, 40, 60.1]) {
          const filtered = await storage.listEvents(
            account,
            EventListQuery.parse({ limit: "100", minScore: String(minScore) }),
            carbon,
          );
          const want = [...expected]
            .filter(([, v]) => v.score >= minScore)
            .map(([id]) => id)
            .sort();
          assert.deepEqual(filtered.items.map((e) => e.id).sort(), want, `minScore ${minScore}`);
        }

        // The analytics aggregates (SQL) agree with the same per-event figures.
        const figures = await storage.analyticsFigures({ accountId: account, granularity: "monthly" }, carbon);
        const values = [...expected.values()];
        assert.equal(figures.totals.events, 25);
        assert.ok(Math.abs(figures.totals.emissionsKg - values.reduce((sum, v) => sum + v.footprint, 0)) < 1e-3);
        assert.equal(
          figures.totals.attendance,
          listed.items.reduce((sum, e) => sum + e.attendeeCount, 0),
        );
        const tiers = { gold: 0, silver: 0, bronze: 0 };
        for (const { score } of values) {
          const tier = scoreTier(score);
          if (tier) tiers[tier] += 1;
        }
        const { gold, silver, bronze } = figures.perEvent.certifications;
        assert.deepEqual({ gold, silver, bronze }, tiers);
        assert.ok(Math.abs(figures.perEvent.score!.max - Math.max(...values.map((v) => v.score))) <= 0.05);
        // Every event starts 2038-05-01: one monthly bucket holding all of them.
        assert.deepEqual(
          figures.buckets.map((bucket) => [bucket.period, bucket.events]),
          [["2038-05-01", 25]],
        );
        assert.deepEqual(figures.span, { first: "2038-05-01T09:00:00.000Z", last: "2038-05-01T09:00:00.000Z" });
      });
    });

    describe("analytics figures", () => {
      test("are per account; eventIds of another account are reported missing; cancelled events are left out", async () => {
        const mine = await newAccount(storage, "Analytics Mine");
        const theirs = await newAccount(storage, "Analytics Theirs");
        const kept = eventRecord(mine, { startDate: "2038-01-04T09:00:00.000Z", endDate: "2038-01-04T10:00:00.000Z" });
        const dropped = eventRecord(mine, {
          startDate: "2038-01-05T09:00:00.000Z",
          endDate: "2038-01-05T10:00:00.000Z",
        });
        const foreign = eventRecord(theirs);
        for (const event of [kept, dropped, foreign]) await insertEvent(storage, event);
        await registerAttendee(
          storage,
          attendeeRecord(mine, kept.id, {
            carbonOffset: { opted: true, amount: 3, travelMode: "car", travelDistance: 100 },
          }),
        );
        await registerAttendee(
          storage,
          attendeeRecord(mine, dropped.id, {
            carbonOffset: { opted: false, travelMode: "flight", travelDistance: 100 },
          }),
        );
        await registerAttendee(
          storage,
          attendeeRecord(theirs, foreign.id, {
            carbonOffset: { opted: false, travelMode: "flight", travelDistance: 100 },
          }),
        );
        await updateEvent(storage, mine, dropped.id, { status: "cancelled" }, tick());
        const figures = await storage.analyticsFigures({ accountId: mine, granularity: "weekly" }, carbon);
        assert.deepEqual([figures.totals.events, figures.totals.attendance, figures.totals.offsetUsd], [1, 1, 3]);
        assert.ok(Math.abs(figures.totals.emissionsKg - 16.844) < 1e-9);
        assert.deepEqual(
          figures.byMode.map((m) => [m.mode, m.registrations]),
          [["car", 1]],
        );
        assert.deepEqual(
          figures.buckets.map((bucket) => bucket.period),
          ["2038-01-04"],
        );
        const scoped = await storage.analyticsFigures(
          { accountId: mine, eventIds: [kept.id, foreign.id], granularity: null },
          carbon,
        );
        assert.deepEqual(scoped.missingEventIds, [foreign.id]);
        assert.equal(scoped.totals.events, 1, "the account's event is counted, the other account's is not");
        assert.deepEqual(
          (await storage.analyticsFigures({ accountId: mine, eventIds: [kept.id], granularity: null }, carbon))
            .missingEventIds,
          [],
        );
        assert.equal(await storage.eventAnalyticsFigures(mine, foreign.id), null);
        const own = await storage.eventAnalyticsFigures(theirs, foreign.id);
        assert.deepEqual(own?.statuses, { confirmed: 1, pending: 0, cancelled: 0, "checked-in": 0, waitlisted: 0 });
      });
    });

    describe("erasure", () => {
      const hook = (accountId: string): WebhookRecord => ({
        id: createId("webhook"),
        accountId,
        url: `https://93.184.216.34/${createId("webhook")}`,
        events: ["*"],
        description: null,
        secret: "whsec_x",
        previousSecret: null,
        previousSecretExpiresAt: null,
        active: true,
        metadata: {},
        consecutiveFailures: 0,
        disabledAt: null,
        createdAt: tick(),
        updatedAt: tick(),
      });
      const deliveries = async (accountId: string, webhookId: string) =>
        (await storage.listDeliveries(
          accountId,
          webhookId,
          DeliveryListQuery.parse({ limit: "100" }),
        ))!.items.reverse();
      const personal = {
        firstName: "Erasmus",
        lastName: "Forgetful",
        email: "erasmus.forgetful@example.org",
        phone: "+49 30 5550123",
        company: "Oblivion Works",
        dietaryPreferences: ["moonbeam-only"],
        carbonOffset: { opted: true, amount: 12, travelMode: "car" as const, travelDistance: 120 },
        emergencyContact: { name: "Mnemosyne Forgetful", phone: "+49 30 5550999" },
      };

      test("takes the registration out of every read, frees its place, and is per account", async () => {
        const account = await newAccount(storage, "Erasure reads");
        const event = publishedEventRecord(account, { capacity: 2, sustainabilityGoals: { carbonNeutral: true } });
        await insertEvent(storage, event);
        const erased = await registerAttendee(storage, attendeeRecord(account, event.id, personal));
        const kept = await registerAttendee(
          storage,
          attendeeRecord(account, event.id, { carbonOffset: { travelMode: "train", travelDistance: 50 } }),
        );
        await rejectsWith(registerAttendee(storage, attendeeRecord(account, event.id)), "EVENT_FULL");
        assert.equal(
          await eraseAttendee(storage, globex, erased.id, erasure()),
          null,
          "another account's registration does not exist",
        );
        assert.deepEqual(await storage.getAttendee(account, erased.id), erased);

        assert.deepEqual(await eraseAttendee(storage, account, erased.id, erasure()), erased);
        assert.equal(await storage.getAttendee(account, erased.id), null);
        assert.equal(await storage.findAttendeeById(erased.id), null);
        assert.deepEqual(
          (await storage.listAttendees(account, AttendeeListQuery.parse({ eventId: event.id }))).items.map((a) => a.id),
          [kept.id],
        );
        await rejectsWith(
          checkIn(storage, account, event.id, erased.confirmationCode, tick()),
          "NOT_FOUND",
          "confirmationCode",
        );
        assert.equal(
          await eraseAttendee(storage, account, erased.id, erasure()),
          null,
          "a second erasure finds nothing",
        );
        // Its place and its share of the figures are gone: only the train trip is left.
        const figures = await storage.getEvent(account, event.id, carbon);
        assert.equal(figures!.attendeeCount, 1);
        assert.equal(figures!.carbonFootprint, Math.round(travelEmissionsKg("train", 50) * 1000) / 1000);
        assert.equal(
          figures!.sustainabilityScore,
          sustainabilityScore({
            goals: event.sustainabilityGoals,
            travelReported: 1,
            lowCarbonTravel: 1,
            emissionsKg: travelEmissionsKg("train", 50),
            offsetKg: 0,
          }),
        );
        const again = await registerAttendee(storage, attendeeRecord(account, event.id, { email: personal.email }));
        assert.equal(again.status, "confirmed", "the freed place and the email take a new registration");

        // A cancelled registration holds no place: erasing it changes no figure.
        await updateAttendee(storage, account, kept.id, { status: "cancelled" }, tick());
        const before = await storage.getEvent(account, event.id, carbon);
        await eraseAttendee(storage, account, kept.id, erasure());
        assert.deepEqual(await storage.getEvent(account, event.id, carbon), before);
      });

      test("concurrent erasures of one registration: one erases, the others find nothing", async () => {
        const account = await newAccount(storage, "Erasure race");
        const event = eventRecord(account);
        await insertEvent(storage, event);
        const attendee = await registerAttendee(storage, attendeeRecord(account, event.id));
        await registerAttendee(storage, attendeeRecord(account, event.id));
        const results = await Promise.all(
          Array.from({ length: 8 }, () => eraseAttendee(storage, account, attendee.id, erasure())),
        );
        assert.equal(results.filter((r) => r !== null).length, 1);
        assert.equal((await storage.getEvent(account, event.id, carbon))!.attendeeCount, 1);
      });

      test("redacts the stored payloads that carry it, clears their attempts' excerpts, and writes attendee.deleted with ids only", async () => {
        const account = await newAccount(storage, "Erasure payloads");
        const webhook = hook(account);
        await insertWebhook(storage, webhook);
        const event = eventRecord(account, { capacity: 5 });
        await insertEvent(storage, event);
        const erased = await registerAttendee(storage, attendeeRecord(account, event.id, personal));
        const other = await registerAttendee(storage, attendeeRecord(account, event.id, { company: "Stays Inc" }));
        await updateAttendee(
          storage,
          account,
          erased.id,
          { email: "erasmus.new@example.org", title: "Chief Forgetter" },
          tick(),
        );
        // The first attempt of the registration's notification, answered by a receiver that echoes what it got.
        const claimed = await storage.claimDueDeliveries({
          workerId: "w1",
          now: "2100-01-01T00:00:00.000Z",
          leaseUntil: "2100-01-01T00:01:00.000Z",
          limit: 100,
        });
        const registered = claimed.find((d) => d.type === "attendee.registered" && d.payload.includes(erased.id))!;
        await recordAttempt(storage, {
          deliveryId: registered.id,
          workerId: "w1",
          nextAttemptAt: null,
          gone: false,
          disableAfter: 10,
          now: tick(),
          attempt: {
            number: 1,
            startedAt: tick(),
            durationMs: 5,
            statusCode: 200,
            error: null,
            responseExcerpt: `got ${registered.payload}`,
            succeeded: true,
          },
        });
        const beforeErasure = await deliveries(account, webhook.id);
        const carrying = beforeErasure.filter((d) => JSON.stringify(d.payload).includes(erased.id)).map((d) => d.type);
        assert.deepEqual(carrying.sort(), ["attendee.registered", "attendee.updated", "sustainability.carbon_offset"]);

        const at = erasure();
        await eraseAttendee(storage, account, erased.id, at);
        const after = await deliveries(account, webhook.id);
        assert.equal(after.length, beforeErasure.length + 1);
        for (const [index, delivery] of beforeErasure.entries()) {
          const now = after[index]!;
          assert.equal(now.id, delivery.id);
          const envelope = delivery.payload as Record<string, any>;
          if (JSON.stringify(envelope).includes(erased.id)) {
            assert.deepEqual(now.payload, {
              ...envelope,
              data: { attendee: { id: erased.id, eventId: event.id }, event: { id: event.id, name: event.name } },
              erasedAt: at.now,
            });
            assert.deepEqual(
              now.attempts.map((a) => a.responseExcerpt),
              now.attempts.map(() => null),
            );
          } else {
            assert.deepEqual(now, delivery, "a payload without the registration is left as it was");
          }
        }
        assert.equal(
          after.filter((d) => d.attempts.length > 0 && d.attempts[0]!.statusCode === 200).length,
          1,
          "the attempt itself stays in the log",
        );
        const deleted = after.at(-1)!;
        assert.equal(deleted.type, "attendee.deleted");
        assert.deepEqual((deleted.payload as Record<string, any>).data, {
          attendee: { id: erased.id, eventId: event.id },
        });
        const text = JSON.stringify(after);
        for (const value of [
          personal.email,
          "erasmus.new@example.org",
          personal.lastName,
          personal.phone,
          personal.company,
          "moonbeam-only",
          "Mnemosyne",
          "Chief Forgetter",
          erased.confirmationCode,
        ]) {
          assert.ok(!text.includes(value), `${value} is gone from the delivery log`);
        }
        assert.ok(text.includes("Stays Inc"), "another registration's payloads keep their data");
        assert.ok(after.some((d) => JSON.stringify(d.payload).includes(other.id) && !("erasedAt" in d.payload)));
      });

      test("an attempt that was out while its payload was redacted keeps no response excerpt", async () => {
        const account = await newAccount(storage, "Erasure in flight");
        const webhook = hook(account);
        await insertWebhook(storage, webhook);
        const event = eventRecord(account);
        await insertEvent(storage, event);
        const erased = await registerAttendee(storage, attendeeRecord(account, event.id, personal));
        const claimed = await storage.claimDueDeliveries({
          workerId: "w2",
          now: "2100-01-01T00:00:00.000Z",
          leaseUntil: "2100-01-01T00:01:00.000Z",
          limit: 100,
        });
        await eraseAttendee(storage, account, erased.id, erasure());
        for (const [index, delivery] of claimed.entries()) {
          const result = await recordAttempt(storage, {
            deliveryId: delivery.id,
            workerId: "w2",
            nextAttemptAt: null,
            gone: false,
            disableAfter: 10,
            now: tick(),
            attempt: {
              number: 1,
              startedAt: tick(),
              durationMs: 5,
              statusCode: 200,
              error: null,
              responseExcerpt: `echo ${index} ${delivery.payload}`,
              succeeded: true,
            },
          });
          assert.equal(result.recorded, true);
        }
        const log = await deliveries(account, webhook.id);
        const excerpts = Object.fromEntries(
          log.filter((d) => d.attempts.length > 0).map((d) => [d.type, d.attempts[0]!.responseExcerpt]),
        );
        assert.deepEqual(Object.keys(excerpts).sort(), [
          "attendee.registered",
          "event.created",
          "sustainability.carbon_offset",
        ]);
        assert.equal(excerpts["attendee.registered"], null);
        assert.equal(excerpts["sustainability.carbon_offset"], null);
        assert.match(
          excerpts["event.created"]!,
          /^echo \d /,
          "an attempt of a payload without the registration keeps its excerpt",
        );
      });

      test("redacts its event's analytics.report_ready, whose report names the companies it counted", async () => {
        const account = await newAccount(storage, "Erasure report");
        const webhook = hook(account);
        await insertWebhook(storage, webhook);
        const event = eventRecord(account);
        await insertEvent(storage, event);
        const erased = await registerAttendee(storage, attendeeRecord(account, event.id, personal));
        await updateEvent(storage, account, event.id, { status: "published" }, tick());
        await updateEvent(storage, account, event.id, { status: "completed" }, tick());
        const report = (await deliveries(account, webhook.id)).find((d) => d.type === "analytics.report_ready")!;
        assert.ok(JSON.stringify(report.payload).includes(personal.company));
        const at = erasure();
        await eraseAttendee(storage, account, erased.id, at);
        const redacted = (await deliveries(account, webhook.id)).find((d) => d.id === report.id)!;
        const envelope = report.payload as Record<string, any>;
        assert.deepEqual(redacted.payload, {
          ...envelope,
          data: { event: { id: event.id, name: event.name }, url: envelope.data.url },
          erasedAt: at.now,
        });
        const sustainability = (await deliveries(account, webhook.id)).find(
          (d) => d.type === "sustainability.report_generated",
        )!;
        assert.equal("erasedAt" in sustainability.payload, false, "a report of figures only is kept");
      });

      test("replaces the stored Idempotency-Key answers that name it", async () => {
        const account = await newAccount(storage, "Erasure replays");
        const event = eventRecord(account);
        await insertEvent(storage, event);
        const erased = await registerAttendee(storage, attendeeRecord(account, event.id, personal));
        const other = await registerAttendee(storage, attendeeRecord(account, event.id));
        const stored = async (key: string, body: unknown) => {
          const now = tick();
          const claim = {
            accountId: account,
            key,
            requestHash: key,
            now,
            expiresAt: "2100-01-01T00:00:00.000Z",
            staleBefore: "2000-01-01T00:00:00.000Z",
          };
          assert.equal(await storage.claimIdempotencyKey(claim), null);
          await storage.completeIdempotencyKey(account, key, { status: 201, body: JSON.stringify(body) });
          return () => storage.claimIdempotencyKey({ ...claim, now: tick() });
        };
        const registration = await stored("register", erased);
        const duplicate = await stored("duplicate", {
          error: {
            code: "DUPLICATE_REGISTRATION",
            message: `${personal.email} already holds ...`,
            details: { attendeeId: erased.id },
          },
        });
        const unrelated = await stored("other", other);
        await eraseAttendee(storage, account, erased.id, erasure());
        assert.deepEqual((await registration())?.response, ERASED);
        assert.deepEqual((await duplicate())?.response, ERASED);
        assert.deepEqual((await unrelated())?.response, { status: 201, body: JSON.stringify(other) });
      });

      test("deleting an event scrubs its registrations from stored payloads and answers, and keeps the event's own", async () => {
        const account = await newAccount(storage, "Erasure event");
        const webhook = hook(account);
        await insertWebhook(storage, webhook);
        const event = eventRecord(account);
        const elsewhere = eventRecord(account);
        await insertEvent(storage, event);
        await insertEvent(storage, elsewhere);
        const first = await registerAttendee(storage, attendeeRecord(account, event.id, personal));
        const second = await registerAttendee(
          storage,
          attendeeRecord(account, event.id, { lastName: "Second-Person" }),
        );
        const outside = await registerAttendee(
          storage,
          attendeeRecord(account, elsewhere.id, { lastName: "Outsider" }),
        );
        const claim = {
          accountId: account,
          key: "k1",
          requestHash: "h",
          now: tick(),
          expiresAt: "2100-01-01T00:00:00.000Z",
          staleBefore: "2000-01-01T00:00:00.000Z",
        };
        await storage.claimIdempotencyKey(claim);
        await storage.completeIdempotencyKey(account, "k1", { status: 201, body: JSON.stringify(second) });
        const created = await storage.claimIdempotencyKey({ ...claim, key: "k2" });
        assert.equal(created, null);
        await storage.completeIdempotencyKey(account, "k2", {
          status: 201,
          body: JSON.stringify({ id: event.id, name: event.name }),
        });

        const at = erasure();
        assert.equal((await deleteEvent(storage, account, event.id, undefined, at))?.id, event.id);
        const log = await deliveries(account, webhook.id);
        const text = JSON.stringify(log);
        for (const value of [
          personal.email,
          personal.lastName,
          "Second-Person",
          personal.phone,
          personal.company,
          "Mnemosyne",
          first.confirmationCode,
        ]) {
          assert.ok(!text.includes(value), `${value} is gone from the delivery log`);
        }
        assert.ok(text.includes("Outsider"), "another event's registrations keep their payloads");
        const registered = log.filter(
          (d) => d.type === "attendee.registered" && JSON.stringify(d.payload).includes(event.id),
        );
        assert.deepEqual(
          registered.map((d) => (d.payload as Record<string, any>).data.attendee.id),
          [first.id, second.id],
        );
        assert.ok(registered.every((d) => (d.payload as Record<string, any>).erasedAt === at.now));
        const own = log.filter((d) => d.type === "event.created" || d.type === "event.deleted");
        assert.deepEqual(
          own.map((d) => [d.type, "erasedAt" in d.payload]),
          [
            ["event.created", false],
            ["event.created", false],
            ["event.deleted", false],
          ],
        );
        assert.equal((own.at(-1)!.payload as Record<string, any>).createdAt, at.now);
        assert.deepEqual((await storage.claimIdempotencyKey({ ...claim, now: tick() }))?.response, ERASED);
        assert.deepEqual(
          (await storage.claimIdempotencyKey({ ...claim, key: "k2", now: tick() }))?.response?.status,
          201,
          "the event's own answer stays",
        );
        assert.equal((await storage.getAttendee(account, outside.id))?.id, outside.id);
      });
    });

    describe("registrations", () => {
      test("capacity, duplicates (case-insensitive) and closed events", async () => {
        const event = eventRecord(acme, { capacity: 2 });
        await insertEvent(storage, event);
        const first = await registerAttendee(storage, attendeeRecord(acme, event.id, { email: "Ada@Example.com" }));
        assert.equal(first.status, "confirmed");
        await rejectsWith(
          registerAttendee(storage, attendeeRecord(acme, event.id, { email: "ada@example.COM" })),
          "DUPLICATE_REGISTRATION",
          "email",
        );
        await registerAttendee(storage, attendeeRecord(acme, event.id));
        await rejectsWith(registerAttendee(storage, attendeeRecord(acme, event.id)), "EVENT_FULL");
        // Cancelling frees the place and the email.
        await updateAttendee(storage, acme, first.id, { status: "cancelled" }, tick());
        const again = await registerAttendee(storage, attendeeRecord(acme, event.id, { email: "ada@example.com" }));
        assert.equal(again.status, "confirmed");
        // Re-activating the cancelled one now finds the event full, then a duplicate.
        await rejectsWith(updateAttendee(storage, acme, first.id, { status: "confirmed" }, tick()), "EVENT_FULL");
        await updateEvent(storage, acme, event.id, { capacity: 3 }, tick());
        await rejectsWith(
          updateAttendee(storage, acme, first.id, { status: "confirmed" }, tick()),
          "DUPLICATE_REGISTRATION",
        );
        await updateEvent(storage, acme, event.id, { status: "cancelled" }, tick());
        await rejectsWith(registerAttendee(storage, attendeeRecord(acme, event.id)), "INVALID_REQUEST", "eventId");
        await rejectsWith(registerAttendee(storage, attendeeRecord(acme, createId("event"))), "NOT_FOUND", "eventId");
      });

      test("an email change of an active registration checks duplicates", async () => {
        const event = eventRecord(acme);
        await insertEvent(storage, event);
        await registerAttendee(storage, attendeeRecord(acme, event.id, { email: "taken@example.com" }));
        const other = await registerAttendee(storage, attendeeRecord(acme, event.id));
        await rejectsWith(
          updateAttendee(storage, acme, other.id, { email: "TAKEN@example.com" }, tick()),
          "DUPLICATE_REGISTRATION",
        );
        const { after: changed } = await updateAttendee(
          storage,
          acme,
          other.id,
          { email: "free@example.com", company: "Acme" },
          tick(),
        );
        assert.equal(changed.email, "free@example.com");
        assert.equal(changed.company, "Acme");
        assert.deepEqual(await storage.getAttendee(acme, other.id), changed);
        assert.equal(await storage.getAttendee(globex, other.id), null);
        await rejectsWith(updateAttendee(storage, globex, other.id, { company: "x" }, tick()), "NOT_FOUND");
      });

      test("check-in by code: once, then reported as already checked in", async () => {
        const event = publishedEventRecord(acme);
        await insertEvent(storage, event);
        const attendee = await registerAttendee(storage, attendeeRecord(acme, event.id));
        const first = await checkIn(storage, acme, event.id, attendee.confirmationCode, tick());
        assert.equal(first.before.status, "confirmed");
        assert.equal(first.after.status, "checked-in");
        assert.notEqual(first.after.checkedInAt, null);
        const second = await checkIn(storage, acme, event.id, attendee.confirmationCode, tick());
        assert.equal(second.before.status, "checked-in");
        assert.deepEqual(second.before, second.after);
        await rejectsWith(checkIn(storage, acme, event.id, "EVT-2222-2222", tick()), "NOT_FOUND", "confirmationCode");
        await rejectsWith(checkIn(storage, globex, event.id, attendee.confirmationCode, tick()), "NOT_FOUND");
        const cancelled = await registerAttendee(storage, attendeeRecord(acme, event.id));
        await updateAttendee(storage, acme, cancelled.id, { status: "cancelled" }, tick());
        await rejectsWith(
          checkIn(storage, acme, event.id, cancelled.confirmationCode, tick()),
          "INVALID_STATE_TRANSITION",
        );
        assert.equal((await storage.findAttendeeById(attendee.id))?.confirmationCode, attendee.confirmationCode);
      });

      test("check-in only while the event is published: the door's reason, nothing written", async () => {
        for (const status of ["draft", "cancelled", "completed"] as const) {
          const event = { ...eventRecord(acme), status };
          await insertEvent(storage, event);
          const attendee = await registerAttendee(storage, attendeeRecord(acme, event.id)).catch(() => null);
          const code = attendee?.confirmationCode ?? "EVT-2222-2222";
          await assert.rejects(
            checkIn(storage, acme, event.id, code, tick()),
            (error: unknown) =>
              ServiceError.is(error) &&
              error.code === "INVALID_STATE_TRANSITION" &&
              (error.details as { reason?: string }).reason === "event_not_published",
          );
          if (attendee) assert.deepEqual(await storage.getAttendee(acme, attendee.id), attendee);
        }
      });

      test("undo of a check-in: back to confirmed under the event's lock, the figures unchanged", async () => {
        const event = publishedEventRecord(acme, { capacity: 2 });
        await insertEvent(storage, event);
        const attendee = await registerAttendee(
          storage,
          attendeeRecord(acme, event.id, { carbonOffset: { travelMode: "car", travelDistance: 120 } }),
        );
        const figures = async () => (await storage.getEvent(acme, event.id, carbon))!;
        const registered = await figures();
        await rejectsWith(undoCheckIn(storage, acme, event.id, attendee.id, tick()), "INVALID_STATE_TRANSITION");
        const { after: checkedIn } = await checkIn(storage, acme, event.id, attendee.confirmationCode, tick());
        const undoneAt = tick();
        const undone = await undoCheckIn(storage, acme, event.id, attendee.id, undoneAt);
        assert.deepEqual(undone.before, checkedIn);
        assert.deepEqual(undone.after, { ...checkedIn, status: "confirmed", checkedInAt: null, updatedAt: undoneAt });
        assert.deepEqual(await storage.getAttendee(acme, attendee.id), undone.after);
        const after = await figures();
        assert.equal(after.attendeeCount, registered.attendeeCount);
        assert.equal(after.carbonFootprint, registered.carbonFootprint);
        assert.ok(registered.carbonFootprint > 0);
        // Not checked in any more: a second undo is refused; the door lets it in again.
        await rejectsWith(undoCheckIn(storage, acme, event.id, attendee.id, tick()), "INVALID_STATE_TRANSITION");
        assert.equal(
          (await checkIn(storage, acme, event.id, attendee.confirmationCode, tick())).after.status,
          "checked-in",
        );
        // Unknown event, a registration of another event, another account: not found.
        const other = publishedEventRecord(acme);
        await insertEvent(storage, other);
        await rejectsWith(undoCheckIn(storage, acme, other.id, attendee.id, tick()), "NOT_FOUND");
        await rejectsWith(undoCheckIn(storage, acme, "evt_unknown", attendee.id, tick()), "NOT_FOUND");
        await rejectsWith(undoCheckIn(storage, globex, event.id, attendee.id, tick()), "NOT_FOUND");
        await rejectsWith(undoCheckIn(storage, acme, event.id, "att_unknown", tick()), "NOT_FOUND");
      });

      test("an event's registrations in keyset pages: registration order, ties by id, nothing else, erased ones left out", async () => {
        const event = eventRecord(acme, { capacity: 20 });
        const other = eventRecord(acme);
        await insertEvent(storage, event);
        await insertEvent(storage, other);
        const sameTime = tick();
        const registered: AttendeeRecord[] = [];
        for (let i = 0; i < 8; i++) {
          // Three share one registration time: the id orders them.
          const attendee = attendeeRecord(acme, event.id);
          registered.push(
            await registerAttendee(storage, i >= 2 && i < 5 ? { ...attendee, registrationDate: sameTime } : attendee),
          );
        }
        await registerAttendee(storage, attendeeRecord(acme, other.id));
        const erased = registered.splice(6, 1)[0]!;
        await eraseAttendee(storage, acme, erased.id, { now: tick(), replay: { status: 404, body: "{}" } });
        await updateAttendee(storage, acme, registered[0]!.id, { status: "cancelled" }, tick());
        const expected = [...registered]
          .sort(
            (a, b) => a.registrationDate.localeCompare(b.registrationDate) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
          )
          .map((a) => a.id);

        const seen: string[] = [];
        let cursor: { registrationDate: string; id: string } | null = null;
        for (let reads = 0; reads < 10; reads++) {
          const page = await storage.eventAttendeesAfter(acme, event.id, cursor, 3);
          seen.push(...page.map((a) => a.id));
          if (page.length < 3) break;
          cursor = { registrationDate: page.at(-1)!.registrationDate, id: page.at(-1)!.id };
        }
        assert.deepEqual(seen, expected);
        assert.equal(
          (await storage.eventAttendeesAfter(acme, event.id, null, 100)).find((a) => a.id === registered[0]!.id)
            ?.status,
          "cancelled",
        );
        assert.deepEqual(
          await storage.eventAttendeesAfter(globex, event.id, null, 100),
          [],
          "another account reads nothing",
        );
        assert.deepEqual(await storage.eventAttendeesAfter(acme, "evt_unknown", null, 100), []);
      });

      test("registrations of one event sent together: the first alone, those arriving meanwhile in one transaction, each its own answer in order", async () => {
        const drop = await newAccount(storage, "Drop");
        const webhook = webhookRecord(drop);
        await insertWebhook(storage, webhook);
        const event: EventRecord = { ...publishedEventRecord(drop, { capacity: 5 }), waitlistEnabled: true };
        await insertEvent(storage, event);
        let transactions = 0;
        const counted: Storage = {
          ...storage,
          transaction: (fn) => {
            transactions += 1;
            return storage.transaction(fn);
          },
        };
        // One context, as an account's operations keep: its registrations share one queue.
        const context = transactionContext(counted, { notifier: createChangeNotifier() });
        const buyers = Array.from({ length: 12 }, (_, i) =>
          attendeeRecord(drop, event.id, { email: `b${i}@example.com` }),
        );
        buyers[3] = attendeeRecord(drop, event.id, { email: "B1@Example.com" });
        buyers[7] = { ...attendeeRecord(drop, event.id), registrationDate: "2039-01-01T00:00:00.000Z" };
        buyers[10] = attendeeRecord(drop, event.id, { email: "b0@EXAMPLE.com" });
        const links = buyers.map((buyer) => newTicketLink(drop, buyer.id, buyer.registrationDate).link);
        const answers = await Promise.allSettled(
          buyers.map((buyer, i) => registrations.registerAttendee(context, buyer, links[i])),
        );
        assert.equal(transactions, 2);
        const outcome = (answer: PromiseSettledResult<AttendeeRecord>) =>
          answer.status === "fulfilled"
            ? [answer.value.status, answer.value.waitlistPosition]
            : [(answer.reason as ServiceError).code, (answer.reason as ServiceError).field ?? null];
        assert.deepEqual(answers.map(outcome), [
          ["confirmed", null],
          ["confirmed", null],
          ["confirmed", null],
          ["DUPLICATE_REGISTRATION", "email"],
          ["confirmed", null],
          ["confirmed", null],
          ["waitlisted", 1],
          ["INVALID_REQUEST", "eventId"],
          ["waitlisted", 2],
          ["waitlisted", 3],
          ["DUPLICATE_REGISTRATION", "email"],
          ["waitlisted", 4],
        ]);
        const stats = (await storage.getEvent(drop, event.id, carbon))!;
        assert.deepEqual([stats.attendeeCount, stats.waitlistCount], [5, 4]);
        const admitted = answers.flatMap((answer, i) =>
          answer.status === "fulfilled" ? [[answer.value, i] as const] : [],
        );
        for (const [attendee, i] of admitted) {
          assert.deepEqual(await storage.getAttendee(drop, attendee.id), attendee);
          assert.equal((await storage.findTicketLink(links[i]!.linkHash))?.id, attendee.id);
        }
        for (const i of [3, 7, 10]) assert.equal(await storage.getAttendee(drop, buyers[i]!.id), null);
        // One attendee.registered each, and the event's one-time capacity notification once.
        const page = await storage.listDeliveries(drop, webhook.id, DeliveryListQuery.parse({ limit: "100" }));
        const registered = page!.items.filter((delivery) => delivery.type === "attendee.registered");
        assert.deepEqual(
          registered.map((delivery) => (delivery.payload.data as { attendee: { id: string } }).attendee.id).sort(),
          admitted.map(([attendee]) => attendee.id).sort(),
        );
        assert.equal(page!.items.filter((delivery) => delivery.type === "analytics.threshold_exceeded").length, 1);
      });

      test("a group whose transaction fails runs again one by one, each its own answer; the store unavailable is every member's answer", async () => {
        const event: EventRecord = { ...publishedEventRecord(acme, { capacity: 3 }), waitlistEnabled: true };
        await insertEvent(storage, event);
        let transactions = 0;
        let failure: Error | null = null;
        // The transactions of groups of several fail with `failure` (as a uniqueness the lock did not cover would).
        const failing: Storage = {
          ...storage,
          transaction: (fn) => {
            transactions += 1;
            return storage.transaction((tx) =>
              fn({
                ...tx,
                attendees: {
                  ...tx.attendees,
                  insertMany: async (records) => {
                    if (records.length > 1 && failure) throw failure;
                    return tx.attendees.insertMany(records);
                  },
                },
              }),
            );
          },
        };
        const context = transactionContext(failing, { notifier: null });
        const send = (count: number) =>
          Promise.allSettled(
            Array.from({ length: count }, () =>
              registrations.registerAttendee(context, attendeeRecord(acme, event.id), undefined),
            ),
          );
        failure = new Error("a write of several failed");
        const answers = await send(5);
        // The first alone, the group of four that failed, then each of the four alone.
        assert.equal(transactions, 6);
        assert.deepEqual(
          answers.map((answer) =>
            answer.status === "fulfilled" ? [answer.value.status, answer.value.waitlistPosition] : "refused",
          ),
          [
            ["confirmed", null],
            ["confirmed", null],
            ["confirmed", null],
            ["waitlisted", 1],
            ["waitlisted", 2],
          ],
        );
        // The queue is let go of once its last group settled, a few microtasks after the answers.
        await new Promise((resolve) => setImmediate(resolve));
        transactions = 0;
        failure = new ServiceError("SERVICE_UNAVAILABLE", { message: "The store cannot serve now." });
        const refused = await send(4);
        // Not run again: every member of the group gets the 503; the first, alone, was written.
        assert.equal(transactions, 2);
        assert.deepEqual(
          refused.map((answer) =>
            answer.status === "fulfilled" ? answer.value.status : (answer.reason as ServiceError).code,
          ),
          ["waitlisted", "SERVICE_UNAVAILABLE", "SERVICE_UNAVAILABLE", "SERVICE_UNAVAILABLE"],
        );
        const stats = (await storage.getEvent(acme, event.id, carbon))!;
        assert.deepEqual([stats.attendeeCount, stats.waitlistCount], [3, 3]);
      });

      test("waiting list: a full event takes registrations in line; a freed place promotes the first in line in the same write; the line closes up", async () => {
        const event: EventRecord = { ...publishedEventRecord(acme, { capacity: 2 }), waitlistEnabled: true };
        await insertEvent(storage, event);
        const register = (email: string) => registerAttendee(storage, attendeeRecord(acme, event.id, { email }));
        const [a, b, c, d, e] = [
          await register("a@example.com"),
          await register("b@example.com"),
          await register("c@example.com"),
          await register("d@example.com"),
          await register("e@example.com"),
        ];
        assert.deepEqual(
          [a, b, c, d, e].map((x) => [x.status, x.waitlistPosition]),
          [
            ["confirmed", null],
            ["confirmed", null],
            ["waitlisted", 1],
            ["waitlisted", 2],
            ["waitlisted", 3],
          ],
        );
        const standing = async () => {
          const stats = (await storage.getEvent(acme, event.id, carbon))!;
          const line = (
            await storage.listAttendees(
              acme,
              AttendeeListQuery.parse({
                eventId: event.id,
                status: "waitlisted",
                sortBy: "registrationDate",
                order: "asc",
              }),
            )
          ).items;
          return {
            attendeeCount: stats.attendeeCount,
            waitlistCount: stats.waitlistCount,
            line: line.map((x) => [x.email, x.waitlistPosition]),
          };
        };
        assert.deepEqual(await standing(), {
          attendeeCount: 2,
          waitlistCount: 3,
          line: [
            ["c@example.com", 1],
            ["d@example.com", 2],
            ["e@example.com", 3],
          ],
        });
        // A waiting registration holds its email, and cannot check in.
        await rejectsWith(register("C@example.com"), "DUPLICATE_REGISTRATION");
        await rejectsWith(checkIn(storage, acme, event.id, c.confirmationCode, tick()), "INVALID_STATE_TRANSITION");

        // A cancellation promotes the first in line; the rest move up.
        await updateAttendee(storage, acme, a.id, { status: "cancelled" }, tick());
        assert.deepEqual(await storage.getAttendee(acme, c.id).then((x) => [x?.status, x?.waitlistPosition]), [
          "confirmed",
          null,
        ]);
        assert.deepEqual(await standing(), {
          attendeeCount: 2,
          waitlistCount: 2,
          line: [
            ["d@example.com", 1],
            ["e@example.com", 2],
          ],
        });
        // One leaving the line: those behind move up, no one is promoted.
        await updateAttendee(storage, acme, d.id, { status: "cancelled" }, tick());
        assert.deepEqual(await standing(), { attendeeCount: 2, waitlistCount: 1, line: [["e@example.com", 1]] });
        // An erasure of one holding a place promotes too.
        await eraseAttendee(storage, acme, b.id, { now: tick(), replay: { status: 404, body: "{}" } });
        assert.deepEqual(await standing(), { attendeeCount: 2, waitlistCount: 0, line: [] });
        assert.equal((await storage.getAttendee(acme, e.id))?.status, "confirmed");

        const [f, g] = [await register("f@example.com"), await register("g@example.com")];
        assert.deepEqual([f.waitlistPosition, g.waitlistPosition], [1, 2]);
        // By hand only with a place free; a raised capacity promotes in order.
        await rejectsWith(updateAttendee(storage, acme, g.id, { status: "confirmed" }, tick()), "EVENT_FULL");
        await updateEvent(storage, acme, event.id, { capacity: 3 }, tick());
        assert.deepEqual(await standing(), { attendeeCount: 3, waitlistCount: 1, line: [["g@example.com", 1]] });
        assert.equal((await storage.getAttendee(acme, f.id))?.status, "confirmed");
        // Erasing one waiting closes the line up; turning the list off keeps the full event closed.
        await eraseAttendee(storage, acme, g.id, { now: tick(), replay: { status: 404, body: "{}" } });
        assert.deepEqual(await standing(), { attendeeCount: 3, waitlistCount: 0, line: [] });
        await updateEvent(storage, acme, event.id, { waitlistEnabled: false }, tick());
        await rejectsWith(register("h@example.com"), "EVENT_FULL");
        const h = await (async () => {
          await updateEvent(storage, acme, event.id, { waitlistEnabled: true }, tick());
          return register("h@example.com");
        })();
        assert.equal(h.waitlistPosition, 1);
        // A re-activation of a cancelled registration takes a place, not a turn: refused while full.
        await rejectsWith(updateAttendee(storage, acme, a.id, { status: "confirmed" }, tick()), "EVENT_FULL");
        // Those waiting are no one's figures: the kept ones equal a recount of the places held.
        const listed = (await storage.listAttendees(acme, AttendeeListQuery.parse({ eventId: event.id, limit: "100" })))
          .items;
        assert.equal(listed.filter((x) => ["confirmed", "pending", "checked-in"].includes(x.status)).length, 3);
        assert.equal(listed.filter((x) => x.status === "waitlisted").length, 1);
      });

      test("waiting list under load: registrations racing for the last places, then cancellations racing", async () => {
        const event: EventRecord = { ...publishedEventRecord(acme, { capacity: 5 }), waitlistEnabled: true };
        await insertEvent(storage, event);
        const made = await Promise.all(
          Array.from({ length: 25 }, (_, i) =>
            registerAttendee(storage, attendeeRecord(acme, event.id, { email: `race${i}@example.com` })),
          ),
        );
        const confirmed = made.filter((x) => x.status === "confirmed");
        const waiting = made
          .filter((x) => x.status === "waitlisted")
          .sort((x, y) => x.waitlistPosition! - y.waitlistPosition!);
        assert.equal(confirmed.length, 5);
        assert.deepEqual(
          waiting.map((x) => x.waitlistPosition),
          Array.from({ length: 20 }, (_, i) => i + 1),
        );
        await Promise.all(
          confirmed.slice(0, 3).map((x) => updateAttendee(storage, acme, x.id, { status: "cancelled" }, tick())),
        );
        const after = await Promise.all(waiting.map((x) => storage.getAttendee(acme, x.id)));
        assert.deepEqual(
          after.slice(0, 3).map((x) => [x?.status, x?.waitlistPosition]),
          [
            ["confirmed", null],
            ["confirmed", null],
            ["confirmed", null],
          ],
        );
        assert.deepEqual(
          after.slice(3).map((x) => x?.waitlistPosition),
          Array.from({ length: 17 }, (_, i) => i + 1),
        );
        const stats = (await storage.getEvent(acme, event.id, carbon))!;
        assert.deepEqual([stats.attendeeCount, stats.waitlistCount], [5, 17]);
      });

      test("a taken confirmation code is replaced", async () => {
        const event = eventRecord(acme);
        await insertEvent(storage, event);
        const first = await registerAttendee(storage, attendeeRecord(acme, event.id));
        const clash = { ...attendeeRecord(acme, event.id), confirmationCode: first.confirmationCode };
        const second = await registerAttendee(storage, clash);
        assert.notEqual(second.confirmationCode, first.confirmationCode);
        assert.equal((await storage.getAttendee(acme, second.id))?.confirmationCode, second.confirmationCode);
      });

      test("concurrent registrations never overfill", async () => {
        const event = eventRecord(acme, { capacity: 7 });
        await insertEvent(storage, event);
        const results = await Promise.allSettled(
          Array.from({ length: 30 }, () => registerAttendee(storage, attendeeRecord(acme, event.id))),
        );
        assert.equal(results.filter((r) => r.status === "fulfilled").length, 7);
        for (const r of results)
          if (r.status === "rejected") assert.equal((r.reason as ServiceError).code, "EVENT_FULL");
        assert.equal((await storage.getEvent(acme, event.id, carbon))?.attendeeCount, 7);
      });

      test("attendee lists filter, search and sort", async () => {
        const account = await newAccount(storage, "People");
        const event = eventRecord(account, { capacity: 50 });
        await insertEvent(storage, event);
        const people: Array<Partial<AttendeeCreate>> = [
          {
            firstName: "Grace",
            lastName: "Hopper",
            email: "grace@navy.mil",
            company: "Navy",
            ticketType: "speaker",
            carbonOffset: { opted: true },
          },
          { firstName: "Alan", lastName: "Turing", email: "alan@bletchley.uk", company: null, ticketType: "general" },
          {
            firstName: "ada",
            lastName: "Byron",
            email: "ada@analytical.engine",
            company: "analytical",
            ticketType: "general",
            carbonOffset: { opted: false },
          },
        ];
        const made: AttendeeRecord[] = [];
        for (const person of people)
          made.push(await registerAttendee(storage, attendeeRecord(account, event.id, person)));
        await updateAttendee(storage, account, made[1]!.id, { status: "pending" }, tick());
        const list = async (query: Record<string, string>) =>
          (await storage.listAttendees(account, AttendeeListQuery.parse(query))).items.map((a) => a.firstName);
        assert.deepEqual(await list({}), ["ada", "Alan", "Grace"]);
        assert.deepEqual(await list({ sortBy: "firstName", order: "asc" }), ["ada", "Alan", "Grace"]);
        assert.deepEqual(await list({ sortBy: "lastName", order: "asc" }), ["ada", "Grace", "Alan"]);
        assert.deepEqual(await list({ sortBy: "company", order: "asc" }), ["ada", "Grace", "Alan"]);
        assert.deepEqual(await list({ sortBy: "company", order: "desc" }), ["Grace", "ada", "Alan"]);
        assert.deepEqual(await list({ status: "pending" }), ["Alan"]);
        assert.deepEqual(await list({ ticketType: "general", order: "asc" }), ["Alan", "ada"]);
        assert.deepEqual(await list({ carbonOffset: "true" }), ["Grace"]);
        assert.deepEqual(await list({ carbonOffset: "false", order: "asc" }), ["Alan", "ada"]);
        assert.deepEqual(await list({ search: "GRACE HOP" }), ["Grace"]);
        assert.deepEqual(await list({ search: "bletchley" }), ["Alan"]);
        assert.deepEqual(await list({ search: "ANALYTICAL" }), ["ada"]);
        assert.deepEqual(await list({ eventId: createId("event") }), []);
        assert.equal((await storage.listAttendees(acme, AttendeeListQuery.parse({ eventId: event.id }))).total, 0);
        const page = await storage.listAttendees(account, AttendeeListQuery.parse({ limit: "2", page: "2" }));
        assert.equal(page.total, 3);
        assert.deepEqual(
          page.items.map((a) => a.firstName),
          ["Grace"],
        );
      });
    });

    describe("activities", () => {
      /** A stored activity of the event with the figures given (the storage keeps them as they are). */
      const activity = (
        accountId: string,
        eventId: string,
        overrides: Partial<PricedActivity> = {},
      ): PricedActivity => {
        const at = tick();
        return {
          id: createId("activity"),
          accountId,
          eventId,
          kind: "fuel",
          quantity: 120.5,
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
          emissionsKg: 120.5 * 2.51279,
          factor: {
            name: "Diesel (average biofuel blend)",
            value: 2.51279,
            unit: "kg CO2e per litre",
            source: "DESNZ",
            year: 2024,
          },
          createdAt: at,
          updatedAt: at,
          ...overrides,
        };
      };

      test("insert, get, update and delete an event's record, scoped by account and event, figures kept exactly", async () => {
        const event = eventRecord(acme);
        const other = eventRecord(acme);
        await insertEvent(storage, event);
        await insertEvent(storage, other);
        const fuel = activity(acme, event.id, { note: "Generator, stage B" });
        const waste = activity(acme, event.id, {
          kind: "waste",
          quantity: 0.1,
          unit: "kg",
          fuel: null,
          stream: "recycling",
          material: null,
          dataQuality: "estimated",
          emissionsKg: 0.1 * 0.3,
          factor: { name: "Waste - recycling", value: 0.3, unit: "kg CO2e per kg", source: "DESNZ", year: 2024 },
        });
        const materials = activity(acme, event.id, {
          kind: "materials",
          unit: "kg",
          fuel: null,
          material: "paper",
          recycledContent: false,
          emissionsKg: null,
          factor: null,
        });
        await storage.transaction(async (tx) => {
          for (const record of [fuel, waste, materials]) await tx.activities.insert(record);
          assert.deepEqual(await tx.activities.get(acme, event.id, waste.id), waste);
        });
        assert.deepEqual(await storage.getActivity(acme, event.id, fuel.id), fuel);
        assert.deepEqual(await storage.getActivity(acme, event.id, waste.id), waste);
        assert.equal((await storage.getActivity(acme, event.id, waste.id))!.emissionsKg, 0.1 * 0.3);
        assert.deepEqual(await storage.getActivity(acme, event.id, materials.id), materials);
        // Another account's, or the same id under another event: not found.
        assert.equal(await storage.getActivity(globex, event.id, fuel.id), null);
        assert.equal(await storage.getActivity(acme, other.id, fuel.id), null);

        const changed: PricedActivity = {
          ...fuel,
          quantity: 80,
          unit: "kg",
          fuel: "hvo",
          note: null,
          dataQuality: "estimated",
          emissionsKg: null,
          factor: null,
          updatedAt: tick(),
        };
        await storage.transaction(async (tx) => {
          await tx.activities.update(changed);
          // Written through another account's or event's scope, nothing changes.
          await tx.activities.update({ ...changed, accountId: globex, quantity: 1 });
          await tx.activities.update({ ...changed, eventId: other.id, quantity: 1 });
        });
        assert.deepEqual(await storage.getActivity(acme, event.id, fuel.id), changed);

        const deleted = await storage.transaction(async (tx) => [
          await tx.activities.delete(globex, event.id, waste.id),
          await tx.activities.delete(acme, other.id, waste.id),
          await tx.activities.delete(acme, event.id, waste.id),
          await tx.activities.delete(acme, event.id, waste.id),
        ]);
        assert.deepEqual(deleted, [false, false, true, false]);
        assert.equal(await storage.getActivity(acme, event.id, waste.id), null);
      });

      test("an event's list is oldest first (ties by id), a page at a time with the total; deleting the event removes them", async () => {
        const event = eventRecord(acme);
        const other = eventRecord(acme);
        await insertEvent(storage, event);
        await insertEvent(storage, other);
        const at = tick();
        const tied = [activity(acme, event.id, { createdAt: at }), activity(acme, event.id, { createdAt: at })].sort(
          (a, b) => (a.id < b.id ? -1 : 1),
        );
        const first = activity(acme, event.id, { createdAt: "2020-01-01T00:00:00.000Z" });
        const last = activity(acme, event.id);
        await storage.transaction(async (tx) => {
          for (const record of [last, tied[1]!, first, tied[0]!]) await tx.activities.insert(record);
          await tx.activities.insert(activity(acme, other.id));
        });
        const page = (page: number, limit: number) =>
          storage.listActivities(acme, event.id, ActivityListQuery.parse({ page: String(page), limit: String(limit) }));
        const all = await page(1, 10);
        assert.equal(all.total, 4);
        assert.deepEqual(
          all.items.map((a) => a.id),
          [first.id, tied[0]!.id, tied[1]!.id, last.id],
        );
        assert.deepEqual(all.items[0], first);
        const second = await page(2, 3);
        assert.equal(second.total, 4);
        assert.deepEqual(
          second.items.map((a) => a.id),
          [last.id],
        );
        assert.deepEqual(await storage.listActivities(globex, event.id, ActivityListQuery.parse({})), {
          items: [],
          total: 0,
        });

        await deleteEvent(storage, acme, event.id);
        assert.deepEqual(await storage.listActivities(acme, event.id, ActivityListQuery.parse({})), {
          items: [],
          total: 0,
        });
        assert.equal(await storage.getActivity(acme, event.id, first.id), null);
        assert.equal((await storage.listActivities(acme, other.id, ActivityListQuery.parse({}))).total, 1);
      });

      test("recountActivities keeps on the event what activityFiguresOf sums of its records (the SQL twin); readActivities reads it", async () => {
        const event = eventRecord(acme);
        const other = eventRecord(acme);
        await insertEvent(storage, event);
        await insertEvent(storage, other);
        const electricity = (source: ElectricitySource, quantity: number, emissionsKg: number) =>
          activity(acme, event.id, {
            kind: "electricity",
            unit: "kWh",
            fuel: null,
            country: "GB",
            source,
            quantity,
            emissionsKg,
          });
        const waste = (stream: WasteStream, quantity: number, emissionsKg: number | null) =>
          activity(acme, event.id, { kind: "waste", unit: "kg", fuel: null, stream, quantity, emissionsKg });
        const records = [
          activity(acme, event.id, { dataQuality: "estimated" }),
          electricity("grid", 10_000, 2070.7),
          electricity("renewable_tariff", 1_500.25, 0),
          electricity("onsite_renewable", 499.75, 0),
          waste("landfill", 4_000, 1865.6),
          waste("incineration", 1_000, 21.3),
          waste("recycling", 3_000.5, 19.6),
          waste("composting", 2_500, 22.28),
          waste("anaerobic_digestion", 1_000, 8.912),
          waste("reuse", 499.5, null),
        ];
        await storage.transaction(async (tx) => {
          for (const record of records) await tx.activities.insert(record);
          await tx.activities.insert(activity(acme, other.id, { quantity: 7 }));
        });
        const expected = activityFiguresOf(records);
        // Hand-checked, so the twin is not merely agreeing with itself.
        assert.deepEqual(
          [expected.electricityKwh, expected.renewableKwh, expected.wasteKg, expected.divertedKg, expected.recyclingKg],
          [12_000, 2_000, 12_000, 7_000, 3_000.5],
        );
        const close = (actual: ActivityFigures) => {
          for (const [figure, value] of Object.entries(expected)) {
            const got = actual[figure as keyof ActivityFigures];
            assert.ok(Math.abs(got - value) <= 1e-9 * Math.max(1, Math.abs(value)), `${figure}: ${got} vs ${value}`);
          }
        };
        assert.deepEqual(
          await storage.transaction((tx) => tx.figures.readActivities(event.id)),
          NO_ACTIVITY_FIGURES,
          "nothing kept before the recount",
        );
        close(await storage.transaction((tx) => tx.figures.recountActivities(event.id)));
        close(await storage.transaction((tx) => tx.figures.readActivities(event.id)));
        await storage.transaction(async (tx) => {
          await tx.activities.delete(acme, event.id, records[1]!.id);
          const after = await tx.figures.recountActivities(event.id);
          assert.equal(after.electricityKwh, 2_000);
          assert.equal(after.renewableKwh, 2_000);
        });
        assert.equal((await storage.transaction((tx) => tx.figures.readActivities(other.id))).emissionsKg, 0);
      });
    });

    describeOutboxAndDeliveries(create);
    describeThresholds(create);
    describeVendors(create);
    describeTicketTypes(create);
    describeEmails(create);
    describeTicketLinks(create);
    describeDoorLinks(create);

    // Last: a method of Storage that no test above called fails here, so a new method comes with its test.
    test("every method of Storage is covered by a test", () => {
      assert.ok(live, "a storage was opened");
      const methods = storageMethods(live);
      assert.ok(methods.length >= 30 && methods.includes("transaction"), `found the methods: ${methods.join(", ")}`);
      assert.deepEqual(
        methods.filter((method) => !called.has(method)),
        [],
        "methods of Storage that no test of the contract calls",
      );
    });
  });
}
