/**
 * The storage contract's part outside `transaction`: the methods of `Storage` that read, and the
 * atomic ones that write on their own (keys and rate limits, Idempotency-Keys, webhooks,
 * thresholds), called directly with concrete values. Most tests make an account of their own, so
 * lists and analytics count exactly what the test wrote in the database the suite shares; what
 * sees the whole store (claims, the backlog, the purge, the payment worker's lists, close) runs
 * on a database of its own.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createId } from "../src/_internal/ids.ts";
import { startYear } from "../src/carbon/factor-sets.ts";
import { DEFAULT_CARBON_SETTINGS } from "../src/carbon/carbon-settings.ts";
import { AttendeeListQuery, type AttendeeRecord } from "../src/resources/attendee.ts";
import { type EventRecord, EventListQuery } from "../src/resources/event.ts";
import type { PaymentEntry } from "../src/resources/payment.ts";
import { ActivityListQuery, type PricedActivity } from "../src/resources/priced-activity.ts";
import { ThresholdListQuery, type ThresholdRecord } from "../src/resources/threshold.ts";
import { type BookingRecord, BookingListQuery, newVendorRecord, VendorListQuery } from "../src/resources/vendor.ts";
import { linkHashOf, newLinkToken } from "../src/resources/link-token.ts";
import { WebhookListQuery } from "../src/resources/webhook.ts";
import { DeliveryListQuery } from "../src/resources/webhook-delivery.ts";
import type { Storage, StorageTransaction } from "../src/storage.ts";
import type { Envelope } from "../src/storage/envelope.ts";
import { StorageConflict } from "../src/storage/transaction.ts";
import type { TestBackend, TestDatabase } from "./_backends.ts";
import { attendeeAt, eventAt, fuelRecord, newAccount, webhookRecord } from "./_service-transactions-outbox.ts";

/** `2038-01-01T00:00:00Z` plus `seconds`: the times of these tests, out of reach of the dates other tests move. */
export const late = (seconds: number) => new Date(Date.UTC(2038, 0, 1) + seconds * 1000).toISOString();

/** Epoch seconds of `late(seconds)`. */
const lateEpoch = (seconds: number) => Date.UTC(2038, 0, 1) / 1000 + seconds;

/** An event on 2038-05-01 (unless `overrides` say otherwise), made at `late(0)`. */
export const lateEventRecord = (accountId: string, overrides: Parameters<typeof eventAt>[2] = {}) =>
  eventAt(accountId, late(0), {
    startDate: "2038-05-01T09:00:00.000Z",
    endDate: "2038-05-01T17:00:00.000Z",
    ...overrides,
  });

const NO_KEPT = { attendeeCount: 0, carbonFootprint: 0, waitlistCount: 0 };

/**
 * The methods of a live storage object: its own function-valued keys and its prototypes' (a
 * class-based storage keeps them there), the interface as it is at run time.
 */
export function storageMethods(storage: Storage): string[] {
  const names = new Set<string>();
  for (
    let object: object | null = storage;
    object && object !== Object.prototype;
    object = Object.getPrototypeOf(object)
  )
    for (const key of Object.getOwnPropertyNames(object))
      if (key !== "constructor" && typeof (storage as unknown as Record<string, unknown>)[key] === "function")
        names.add(key);
  return [...names].sort();
}

/**
 * The reads and atomic writes outside a transaction. `storage()` is the suite's storage (its
 * calls recorded); `record` wraps another storage the same way, for the database of its own.
 */
export function describeStorageReads(
  backend: TestBackend,
  storage: () => Storage,
  record: (storage: Storage) => Storage,
) {
  const run = <T>(fn: (tx: StorageTransaction) => Promise<T>) => storage().transaction(fn);
  const lateEvent = async (accountId: string, overrides: Parameters<typeof eventAt>[2] = {}) => {
    const event = lateEventRecord(accountId, overrides);
    await run((tx) => tx.events.insert(event, startYear(event.startDate)));
    return event;
  };
  const lateAttendee = async (event: EventRecord, seconds: number, overrides: Partial<AttendeeRecord> = {}) => {
    const attendee = { ...attendeeAt(event.accountId, event.id, late(seconds)), ...overrides };
    await run((tx) => tx.attendees.insert(attendee));
    return attendee;
  };
  const account = (name: string) => newAccount(storage(), `${name} ${createId("account")}`);

  describe("accounts, keys and rate limits", () => {
    test("createApiKey makes the account once; findAccount by id or name; authenticate; listApiKeys newest first", async () => {
      const name = `Keys ${createId("account")}`;
      const newAccountId = createId("account");
      const first = await storage().createApiKey({
        id: createId("apiKey"),
        account: name,
        newAccountId,
        hash: "hash-keys-1",
        prefix: "esk_1…",
        tier: "enterprise",
        scopes: ["events:read", "attendees:write"],
        limits: { perMinute: 30, perDay: 900 },
        now: late(1),
      });
      assert.deepEqual(first, {
        id: first.id,
        accountId: newAccountId,
        accountName: name,
        prefix: "esk_1…",
        tier: "enterprise",
        scopes: ["events:read", "attendees:write"],
        createdAt: late(1),
        revokedAt: null,
      });
      const second = await storage().createApiKey({
        id: createId("apiKey"),
        account: newAccountId,
        newAccountId: createId("account"),
        hash: "hash-keys-2",
        prefix: "esk_2…",
        tier: "free",
        scopes: [],
        now: late(2),
      });
      assert.equal(second.accountId, newAccountId);
      assert.deepEqual(await storage().findAccount(name), {
        id: newAccountId,
        name,
        perMinute: 30,
        perDay: 900,
        createdAt: late(1),
      });
      assert.equal((await storage().findAccount(newAccountId))?.name, name);
      assert.equal(await storage().findAccount("No Such Account"), null);
      assert.deepEqual(await storage().authenticate("hash-keys-1"), {
        keyId: first.id,
        accountId: newAccountId,
        accountName: name,
        tier: "enterprise",
        scopes: ["events:read", "attendees:write"],
        perMinute: 30,
        perDay: 900,
      });
      assert.equal(await storage().authenticate("hash-unknown"), null);
      assert.deepEqual(
        (await storage().listApiKeys(name)).map((key) => key.id),
        [second.id, first.id],
      );
      assert.deepEqual(await storage().listApiKeys("No Such Account"), []);
      const everyKey = (await storage().listApiKeys()).map((key) => key.id);
      assert.ok(everyKey.includes(first.id) && everyKey.includes(second.id));
    });

    test("revokeApiKey once: the key no longer authenticates and the keys' revision goes up", async () => {
      const id = createId("apiKey");
      await storage().createApiKey({
        id,
        account: `Revoke ${createId("account")}`,
        newAccountId: createId("account"),
        hash: `hash-${id}`,
        prefix: "esk_r…",
        tier: "free",
        scopes: [],
        now: late(1),
      });
      const revision = await storage().keysRevision();
      assert.equal(await storage().revokeApiKey(id, late(5)), true);
      assert.equal(await storage().keysRevision(), revision + 1);
      assert.equal(await storage().authenticate(`hash-${id}`), null);
      assert.equal((await storage().listApiKeys()).find((key) => key.id === id)?.revokedAt, late(5));
      assert.equal(await storage().revokeApiKey(id, late(6)), false);
      assert.equal(await storage().revokeApiKey(createId("apiKey"), late(6)), false);
      assert.equal(await storage().keysRevision(), revision + 1);
    });

    test("reserveRequests grants within both limits, gives back to the stored windows, starts a new minute at 0", async () => {
      const accountId = await account("Limits");
      const windows = { minute: lateEpoch(60), day: lateEpoch(0) };
      const limits = { perMinute: 5, perDay: 7 };
      const reserve = (want: number, at = windows, giveBack?: { windows: typeof windows; count: number }) =>
        storage().reserveRequests({ accountId, windows: at, want, limits, ...(giveBack && { giveBack }) });
      assert.deepEqual(await reserve(3), { granted: 3, minute: 3, day: 3 });
      assert.deepEqual(await reserve(4), { granted: 2, minute: 5, day: 5 });
      assert.deepEqual(await reserve(1), { granted: 0, minute: 5, day: 5 });
      assert.deepEqual(await reserve(0, windows, { windows, count: 2 }), { granted: 0, minute: 3, day: 3 });
      const next = { minute: lateEpoch(120), day: lateEpoch(0) };
      assert.deepEqual(await reserve(5, next), { granted: 4, minute: 4, day: 7 });
      // A give-back to a minute no longer stored leaves the new one as it is.
      assert.deepEqual(await reserve(0, next, { windows, count: 1 }), { granted: 0, minute: 4, day: 6 });
    });
  });

  describe("idempotency keys", () => {
    test("claim, a second claim gets the holder, complete answers later claims, release frees, a stale claim is taken over", async () => {
      const accountId = await account("Idempotency");
      const claim = (key: string, now: string, staleBefore = late(0)) =>
        storage().claimIdempotencyKey({
          accountId,
          key,
          requestHash: "hash-a",
          now,
          expiresAt: late(86_400),
          staleBefore,
        });
      assert.equal(await claim("k1", late(1)), null);
      assert.deepEqual(await claim("k1", late(2)), {
        accountId,
        key: "k1",
        requestHash: "hash-a",
        state: "running",
        response: null,
        createdAt: late(1),
        expiresAt: late(86_400),
      });
      await storage().completeIdempotencyKey(accountId, "k1", { status: 201, body: '{"id":"x"}' });
      const done = await claim("k1", late(3));
      assert.equal(done?.state, "done");
      assert.deepEqual(done?.response, { status: 201, body: '{"id":"x"}' });
      // Another account's key of the same name is its own.
      assert.equal(
        await storage().claimIdempotencyKey({
          accountId: await account("Idempotency other"),
          key: "k1",
          requestHash: "hash-b",
          now: late(3),
          expiresAt: late(86_400),
          staleBefore: late(0),
        }),
        null,
      );
      assert.equal(await claim("k2", late(4)), null);
      await storage().releaseIdempotencyKey(accountId, "k2");
      assert.equal(await claim("k2", late(5)), null);
      assert.equal((await claim("k2", late(6)))?.state, "running");
      // Claimed at late(5) and abandoned: a claim that counts it stale takes it over.
      assert.equal(await claim("k2", late(400), late(300)), null);
      assert.equal((await claim("k2", late(401), late(300)))?.createdAt, late(400));
      // An expired answer is no answer.
      assert.equal(
        await storage().claimIdempotencyKey({
          accountId,
          key: "k1",
          requestHash: "hash-c",
          now: late(90_000),
          expiresAt: late(180_000),
          staleBefore: late(0),
        }),
        null,
      );
    });
  });

  describe("events and registrations", () => {
    test("getEvent with its kept figures and score; listEvents filtered and paged; null and empty for another account", async () => {
      const accountId = await account("Events");
      const other = await account("Events other");
      const summit = await lateEvent(accountId, { name: "Green Summit", category: "conference", tags: ["climate"] });
      const meetup = await lateEvent(accountId, {
        name: "Rail Meetup",
        category: "meetup",
        startDate: "2038-06-01T09:00:00.000Z",
        endDate: "2038-06-01T17:00:00.000Z",
      });
      await run((tx) =>
        tx.figures.adjust(summit.id, {
          activeRegistrations: 2,
          emissionsKg: 30.5,
          offsetUsd: 0,
          travelReported: 2,
          lowCarbonTravel: 1,
          waitlisted: 1,
        }),
      );
      const got = await storage().getEvent(accountId, summit.id, DEFAULT_CARBON_SETTINGS);
      const { sustainabilityScore, ...rest } = got ?? { sustainabilityScore: -1 };
      assert.deepEqual(rest, { ...summit, attendeeCount: 2, carbonFootprint: 30.5, waitlistCount: 1 });
      assert.ok(sustainabilityScore >= 0 && sustainabilityScore <= 100, `score ${sustainabilityScore}`);
      assert.equal(await storage().getEvent(other, summit.id, DEFAULT_CARBON_SETTINGS), null);
      assert.equal(await storage().getEvent(accountId, createId("event"), DEFAULT_CARBON_SETTINGS), null);
      const list = (query: Record<string, string>, of = accountId) =>
        storage().listEvents(of, EventListQuery.parse(query), DEFAULT_CARBON_SETTINGS);
      const ids = async (query: Record<string, string>) => {
        const page = await list(query);
        return { total: page.total, ids: page.items.map((event) => event.id) };
      };
      assert.deepEqual(await ids({ sortBy: "startDate", order: "asc" }), { total: 2, ids: [summit.id, meetup.id] });
      assert.deepEqual(await ids({ sortBy: "startDate", order: "desc", limit: "1" }), {
        total: 2,
        ids: [meetup.id],
      });
      // Without a filter the list runs statements compiled once per order: each page, order and total as filtered.
      assert.deepEqual(await ids({ sortBy: "startDate", order: "asc", limit: "1", page: "2" }), {
        total: 2,
        ids: [meetup.id],
      });
      assert.deepEqual(await ids({ sortBy: "name", order: "desc" }), { total: 2, ids: [meetup.id, summit.id] });
      assert.deepEqual(await ids({ sortBy: "name", order: "asc", limit: "1", page: "3" }), { total: 2, ids: [] });
      assert.deepEqual(await ids({ category: "meetup" }), { total: 1, ids: [meetup.id] });
      assert.deepEqual(await ids({ search: "green" }), { total: 1, ids: [summit.id] });
      assert.deepEqual(await ids({ tags: "climate" }), { total: 1, ids: [summit.id] });
      assert.deepEqual((await list({ search: "rail" })).items[0], {
        ...meetup,
        ...NO_KEPT,
        sustainabilityScore: (await storage().getEvent(accountId, meetup.id, DEFAULT_CARBON_SETTINGS))
          ?.sustainabilityScore,
      });
      assert.deepEqual(await list({}, other), { items: [], total: 0 });
    });

    test("getAttendee, findAttendeeById, listAttendees filtered; eventAttendeesAfter pages in registration order", async () => {
      const accountId = await account("Registrations");
      const other = await account("Registrations other");
      const event = await lateEvent(accountId);
      // Searched by "lovelace": no letter of it is a hex digit, so no other attendee's random email can hold it.
      const ada = await lateAttendee(event, 3, { firstName: "Ada", lastName: "Lovelace" });
      const bob = await lateAttendee(event, 1, { firstName: "Bob", ticketType: "vip" });
      const cy = await lateAttendee(event, 2, { firstName: "Cy", status: "cancelled", cancelledAt: late(9) });
      assert.deepEqual(await storage().getAttendee(accountId, ada.id), ada);
      assert.equal(await storage().getAttendee(other, ada.id), null);
      assert.deepEqual(await storage().findAttendeeById(ada.id), ada);
      assert.equal(await storage().findAttendeeById(createId("attendee")), null);
      const list = async (query: Record<string, string>, of = accountId) => {
        const page = await storage().listAttendees(of, AttendeeListQuery.parse(query));
        return { total: page.total, ids: page.items.map((attendee) => attendee.id) };
      };
      assert.deepEqual(await list({ eventId: event.id }), { total: 3, ids: [ada.id, cy.id, bob.id] });
      assert.deepEqual(await list({ eventId: event.id, order: "asc", limit: "2" }), {
        total: 3,
        ids: [bob.id, cy.id],
      });
      assert.deepEqual(await list({ status: "cancelled" }), { total: 1, ids: [cy.id] });
      assert.deepEqual(await list({ ticketType: "vip" }), { total: 1, ids: [bob.id] });
      assert.deepEqual(await list({ search: "lovelace" }), { total: 1, ids: [ada.id] });
      assert.deepEqual(await list({}, other), { total: 0, ids: [] });
      const firstTwo = await storage().eventAttendeesAfter(accountId, event.id, null, 2);
      assert.deepEqual(
        firstTwo.map((attendee) => attendee.id),
        [bob.id, cy.id],
      );
      assert.deepEqual(firstTwo[0], bob);
      const cursor = { registrationDate: cy.registrationDate, id: cy.id };
      assert.deepEqual(
        (await storage().eventAttendeesAfter(accountId, event.id, cursor, 2)).map((attendee) => attendee.id),
        [ada.id],
      );
      assert.deepEqual(
        await storage().eventAttendeesAfter(
          accountId,
          event.id,
          { registrationDate: ada.registrationDate, id: ada.id },
          2,
        ),
        [],
      );
      assert.deepEqual(await storage().eventAttendeesAfter(other, event.id, null, 2), []);
    });
  });

  describe("webhooks and thresholds", () => {
    test("insertWebhook up to the bound, once per URL; getWebhook, listWebhooks, deleteWebhook", async () => {
      const accountId = await account("Webhooks");
      const other = await account("Webhooks other");
      const one = webhookRecord(accountId, { createdAt: late(1), updatedAt: late(1) });
      const two = webhookRecord(accountId, { createdAt: late(2), updatedAt: late(2), active: false });
      assert.equal(await storage().insertWebhook(one, 2), true);
      await assert.rejects(storage().insertWebhook({ ...webhookRecord(accountId), url: one.url }, 2), (error) =>
        StorageConflict.is(error, "webhook-url"),
      );
      assert.equal(await storage().insertWebhook(two, 2), true);
      assert.equal(await storage().insertWebhook(webhookRecord(accountId), 2), false);
      assert.equal(await storage().insertWebhook({ ...webhookRecord(other), url: one.url }), true);
      assert.deepEqual(await storage().getWebhook(accountId, one.id), one);
      assert.equal(await storage().getWebhook(other, one.id), null);
      const list = async (query: Record<string, string>) => {
        const page = await storage().listWebhooks(accountId, WebhookListQuery.parse(query));
        return { total: page.total, ids: page.items.map((webhook) => webhook.id) };
      };
      assert.deepEqual(await list({}), { total: 2, ids: [two.id, one.id] });
      assert.deepEqual(await list({ active: "true" }), { total: 1, ids: [one.id] });
      assert.equal(await storage().deleteWebhook(other, one.id), null);
      assert.deepEqual(await storage().deleteWebhook(accountId, one.id), one);
      assert.equal(await storage().deleteWebhook(accountId, one.id), null);
      assert.deepEqual(await list({}), { total: 1, ids: [two.id] });
    });

    test("insertThreshold only for the account's event; getThreshold, updateThreshold, listThresholds, deleteThreshold", async () => {
      const accountId = await account("Thresholds");
      const other = await account("Thresholds other");
      const event = await lateEvent(accountId);
      const elsewhere = await lateEvent(other);
      const threshold = (overrides: Partial<ThresholdRecord>): ThresholdRecord => ({
        id: createId("threshold"),
        accountId,
        metric: "capacity_utilization",
        comparison: "above",
        value: 80,
        eventId: null,
        createdAt: late(1),
        updatedAt: late(1),
        ...overrides,
      });
      const wide = threshold({});
      const own = threshold({ eventId: event.id, createdAt: late(2), updatedAt: late(2) });
      assert.equal(await storage().insertThreshold(wide), true);
      assert.equal(await storage().insertThreshold(own), true);
      assert.equal(await storage().insertThreshold(threshold({ eventId: elsewhere.id })), false);
      assert.equal(await storage().insertThreshold(threshold({ eventId: createId("event") })), false);
      assert.deepEqual(await storage().getThreshold(accountId, own.id), own);
      assert.equal(await storage().getThreshold(other, own.id), null);
      const changed = { ...wide, value: 90, updatedAt: late(3) };
      assert.equal(await storage().updateThreshold({ ...changed, createdAt: late(9) }, true), "updated");
      assert.deepEqual(await storage().getThreshold(accountId, wide.id), changed);
      assert.equal(await storage().updateThreshold({ ...changed, eventId: elsewhere.id }, false), "no-event");
      assert.deepEqual(await storage().getThreshold(accountId, wide.id), changed);
      assert.equal(await storage().updateThreshold({ ...changed, accountId: other }, false), "not-found");
      assert.equal(await storage().updateThreshold(threshold({}), false), "not-found");
      const page = await storage().listThresholds(accountId, ThresholdListQuery.parse({}));
      assert.deepEqual(
        { total: page.total, ids: page.items.map((item) => item.id) },
        { total: 2, ids: [own.id, wide.id] },
      );
      assert.deepEqual(await storage().listThresholds(other, ThresholdListQuery.parse({})), { items: [], total: 0 });
      assert.equal(await storage().deleteThreshold(other, own.id), null);
      assert.deepEqual(await storage().deleteThreshold(accountId, own.id), own);
      assert.equal(await storage().deleteThreshold(accountId, own.id), null);
      assert.equal(await storage().getThreshold(accountId, own.id), null);
    });
  });

  describe("deliveries, activities, vendors, analytics", () => {
    test("listDeliveries newest first and by status, null for another account's webhook; getDelivery", async () => {
      const accountId = await account("Deliveries");
      const other = await account("Deliveries other");
      const hook = webhookRecord(accountId);
      await storage().insertWebhook(hook);
      const envelope = (seconds: number): Envelope => ({
        id: createId("delivery"),
        type: "event.updated",
        createdAt: late(seconds),
        data: { n: seconds },
        account: { id: accountId, name: "Deliveries" },
      });
      const older = envelope(1);
      const newer = envelope(2);
      await run((tx) =>
        tx.outbox.append([
          { webhookId: hook.id, envelope: older },
          { webhookId: hook.id, envelope: newer },
        ]),
      );
      const page = await storage().listDeliveries(accountId, hook.id, DeliveryListQuery.parse({}));
      assert.deepEqual(
        { total: page?.total, ids: page?.items.map((delivery) => delivery.id) },
        { total: 2, ids: [newer.id, older.id] },
      );
      assert.deepEqual(
        await storage().listDeliveries(accountId, hook.id, DeliveryListQuery.parse({ status: "failed" })),
        {
          items: [],
          total: 0,
        },
      );
      assert.equal(await storage().listDeliveries(other, hook.id, DeliveryListQuery.parse({})), null);
      assert.deepEqual(await storage().getDelivery(accountId, hook.id, older.id), {
        id: older.id,
        accountId,
        webhookId: hook.id,
        type: "event.updated",
        status: "pending",
        attemptCount: 0,
        nextAttemptAt: late(1),
        createdAt: late(1),
        updatedAt: late(1),
        payload: older,
        attempts: [],
      });
      assert.equal(await storage().getDelivery(other, hook.id, older.id), null);
      assert.equal(await storage().getDelivery(accountId, hook.id, createId("delivery")), null);
    });

    test("getActivity and listActivities oldest first, paged; vendors and bookings read back; listBookingActivities", async () => {
      const accountId = await account("Vendors");
      const other = await account("Vendors other");
      const event = await lateEvent(accountId);
      const vendor = newVendorRecord(
        { name: "Green Plate", category: "catering" },
        { id: createId("vendor"), accountId, now: late(1) },
      );
      const venue = newVendorRecord(
        { name: "Hall Nine", category: "venue" },
        { id: createId("vendor"), accountId, now: late(2) },
      );
      const booking: BookingRecord = {
        id: createId("booking"),
        accountId,
        eventId: event.id,
        vendorId: vendor.id,
        status: "requested",
        services: "Lunch",
        dataRequested: ["catering"],
        respondedAt: null,
        message: null,
        createdAt: late(3),
        updatedAt: late(3),
      };
      const linkHash = linkHashOf(newLinkToken("vendor"));
      const activity = (seconds: number, overrides: Partial<PricedActivity> = {}): PricedActivity =>
        fuelRecord(accountId, event.id, late(seconds), { quantity: seconds, emissionsKg: seconds * 2.5, ...overrides });
      const second = activity(20);
      const first = activity(10);
      const byLink = activity(30, { vendorId: vendor.id, bookingId: booking.id });
      await run(async (tx) => {
        await tx.vendors.insert(vendor);
        await tx.vendors.insert(venue);
        await tx.bookings.insert(booking, linkHash);
        for (const record of [second, first, byLink]) await tx.activities.insert(record);
      });
      assert.deepEqual(await storage().getActivity(accountId, event.id, first.id), first);
      assert.equal(await storage().getActivity(other, event.id, first.id), null);
      assert.equal(await storage().getActivity(accountId, createId("event"), first.id), null);
      const activities = await storage().listActivities(accountId, event.id, ActivityListQuery.parse({ limit: "2" }));
      assert.deepEqual(
        { total: activities.total, ids: activities.items.map((item) => item.id) },
        { total: 3, ids: [first.id, second.id] },
      );
      assert.deepEqual(await storage().listActivities(other, event.id, ActivityListQuery.parse({})), {
        items: [],
        total: 0,
      });
      assert.deepEqual(await storage().listBookingActivities(booking.id, { page: 1, limit: 10 }), {
        items: [byLink],
        total: 1,
      });
      assert.deepEqual(await storage().listBookingActivities(createId("booking"), { page: 1, limit: 10 }), {
        items: [],
        total: 0,
      });

      assert.deepEqual(await storage().getVendor(accountId, vendor.id), vendor);
      assert.equal(await storage().getVendor(other, vendor.id), null);
      const vendors = async (query: Record<string, string>, of = accountId) => {
        const page = await storage().listVendors(of, VendorListQuery.parse(query));
        return { total: page.total, ids: page.items.map((item) => item.id) };
      };
      assert.deepEqual(await vendors({}), { total: 2, ids: [venue.id, vendor.id] });
      assert.deepEqual(await vendors({ category: "catering" }), { total: 1, ids: [vendor.id] });
      assert.deepEqual(await vendors({ search: "HALL" }), { total: 1, ids: [venue.id] });
      assert.deepEqual(await vendors({}, other), { total: 0, ids: [] });

      assert.deepEqual(await storage().getBooking(accountId, event.id, booking.id), booking);
      assert.equal(await storage().getBooking(other, event.id, booking.id), null);
      assert.deepEqual(await storage().findBookingByLink(linkHash), booking);
      assert.equal(await storage().findBookingByLink(linkHashOf(newLinkToken("vendor"))), null);
      // A link added while the booking is in one of the statuses given opens it beside the first; none otherwise.
      const emailed = linkHashOf(newLinkToken("vendor"));
      const add = (hash: string, statuses: BookingRecord["status"][], bookingId = booking.id) =>
        storage().addBookingLink({ bookingId, linkHash: hash, at: late(4), statuses });
      assert.equal(await add(emailed, ["requested", "confirmed"]), true);
      assert.deepEqual(await storage().findBookingByLink(emailed), booking);
      assert.deepEqual(await storage().findBookingByLink(linkHash), booking);
      const refused = linkHashOf(newLinkToken("vendor"));
      assert.equal(await add(refused, ["confirmed"]), false);
      assert.equal(await add(refused, ["requested"], createId("booking")), false);
      assert.equal(await storage().findBookingByLink(refused), null);
      assert.deepEqual(await storage().listBookings(accountId, event.id, BookingListQuery.parse({})), {
        items: [booking],
        total: 1,
      });
      assert.deepEqual(
        await storage().listBookings(accountId, event.id, BookingListQuery.parse({ status: "confirmed" })),
        { items: [], total: 0 },
      );
      assert.deepEqual(await storage().listBookings(other, event.id, BookingListQuery.parse({})), {
        items: [],
        total: 0,
      });
    });

    test("analyticsFigures over the account's events with the missing ids; eventAnalyticsFigures", async () => {
      const accountId = await account("Analytics");
      const other = await account("Analytics other");
      const summit = await lateEvent(accountId, { category: "conference" });
      const meetup = await lateEvent(accountId, {
        category: "meetup",
        startDate: "2038-07-01T09:00:00.000Z",
        endDate: "2038-07-01T17:00:00.000Z",
      });
      const foreign = await lateEvent(other);
      // The analytics sum the registrations themselves (only the active ones count).
      const first = await lateAttendee(summit, 1);
      await lateAttendee(summit, 2);
      await lateAttendee(summit, 3, { status: "checked-in", checkedInAt: late(4) });
      const last = await lateAttendee(summit, 5, { status: "cancelled", cancelledAt: late(6) });
      await lateAttendee(meetup, 1);
      await lateAttendee(foreign, 1);
      const all = await storage().analyticsFigures({ accountId, granularity: "monthly" }, DEFAULT_CARBON_SETTINGS);
      assert.deepEqual(all.span, { first: summit.startDate, last: meetup.startDate });
      assert.equal(all.totals.events, 2);
      assert.equal(all.totals.attendance, 4);
      assert.equal(all.totals.checkedIn, 1);
      assert.equal(all.totals.travelReported, 0);
      assert.equal(all.buckets.length, 2);
      assert.deepEqual(all.missingEventIds, []);
      const some = await storage().analyticsFigures(
        { accountId, granularity: null, eventIds: [meetup.id, foreign.id] },
        DEFAULT_CARBON_SETTINGS,
      );
      assert.equal(some.totals.events, 1);
      assert.equal(some.totals.attendance, 1);
      assert.deepEqual(some.buckets, []);
      assert.deepEqual(some.missingEventIds, [foreign.id]);
      const conferences = await storage().analyticsFigures(
        { accountId, granularity: null, category: "conference" },
        DEFAULT_CARBON_SETTINGS,
      );
      assert.equal(conferences.totals.events, 1);
      assert.equal(conferences.totals.attendance, 3);
      const none = await storage().analyticsFigures(
        { accountId: await account("Analytics none"), granularity: null },
        DEFAULT_CARBON_SETTINGS,
      );
      assert.equal(none.span, null);
      assert.equal(none.totals.events, 0);
      const report = await storage().eventAnalyticsFigures(accountId, summit.id);
      assert.deepEqual(report?.event, summit);
      assert.deepEqual(report?.registrationWindow, { first: first.registrationDate, last: last.registrationDate });
      // Its counts by status and the lead time come from the event's tallies, none written here.
      assert.equal(report?.statuses.confirmed, 0);
      assert.equal(report?.averageLeadTimeDays, null);
      assert.equal(await storage().eventAnalyticsFigures(other, summit.id), null);
    });
  });

  describe("the whole store (a database of its own)", () => {
    let own: TestDatabase;
    let whole: Storage;
    let accountId: string;
    before(async () => {
      own = await backend.open();
      whole = record(own.storage);
      accountId = await newAccount(whole, "Whole");
    });
    after(() => own.drop());
    const runWhole = <T>(fn: (tx: StorageTransaction) => Promise<T>) => whole.transaction(fn);

    test("migrate again changes nothing; ping answers", async () => {
      const event = lateEventRecord(accountId);
      await runWhole((tx) => tx.events.insert(event, startYear(event.startDate)));
      await whole.migrate();
      assert.equal((await whole.getEvent(accountId, event.id, DEFAULT_CARBON_SETTINGS))?.id, event.id);
      assert.equal(await whole.ping(), undefined);
    });

    test("claimDueDeliveries leases the due ones of active webhooks in due order, within the room; outboxBacklog counts them", async () => {
      const active = webhookRecord(accountId);
      const paused = webhookRecord(accountId, { active: false });
      await whole.insertWebhook(active);
      await whole.insertWebhook(paused);
      const envelope = (seconds: number): Envelope => ({
        id: createId("delivery"),
        type: "event.updated",
        createdAt: late(seconds),
        data: {},
        account: { id: accountId, name: "Whole" },
      });
      const [a, b, c, later, held] = [envelope(3), envelope(1), envelope(2), envelope(500), envelope(4)];
      await runWhole((tx) =>
        tx.outbox.append([
          { webhookId: active.id, envelope: a },
          { webhookId: active.id, envelope: b },
          { webhookId: active.id, envelope: c },
          { webhookId: active.id, envelope: later },
          { webhookId: paused.id, envelope: held },
        ]),
      );
      assert.deepEqual(await whole.outboxBacklog(late(100)), {
        due: 3,
        scheduled: 1,
        paused: 1,
        oldestNextAttemptAt: late(1),
      });
      const claimed = await whole.claimDueDeliveries({
        workerId: "worker-1",
        now: late(100),
        leaseUntil: late(160),
        limit: 10,
        webhookRoom: { each: 2, left: {} },
      });
      assert.deepEqual(
        claimed.map((delivery) => delivery.id),
        [b.id, c.id],
      );
      assert.deepEqual(claimed[0], {
        id: b.id,
        webhookId: active.id,
        accountId,
        url: active.url,
        secret: active.secret,
        previousSecret: null,
        previousSecretExpiresAt: null,
        type: "event.updated",
        payload: JSON.stringify(b),
        attemptCount: 0,
        finalAttempt: null,
      });
      // Leased: another worker gets only what is left, until the lease ends.
      assert.deepEqual(
        (
          await whole.claimDueDeliveries({ workerId: "worker-2", now: late(101), leaseUntil: late(161), limit: 10 })
        ).map((delivery) => delivery.id),
        [a.id],
      );
      assert.deepEqual(
        await whole.claimDueDeliveries({ workerId: "worker-2", now: late(102), leaseUntil: late(162), limit: 10 }),
        [],
      );
      assert.deepEqual(
        (
          await whole.claimDueDeliveries({
            workerId: "worker-3",
            now: late(170),
            leaseUntil: late(230),
            limit: 10,
            accountRoom: { each: 10, left: { [accountId]: 1 } },
          })
        ).map((delivery) => delivery.id),
        [b.id],
      );
      assert.deepEqual(await whole.outboxBacklog(late(170)), {
        due: 3,
        scheduled: 1,
        paused: 1,
        oldestNextAttemptAt: late(1),
      });
    });

    test("intentsToMake, holdsDue and refundsDue list the payment worker's work, oldest first", async () => {
      const event = lateEventRecord(accountId);
      await runWhole((tx) => tx.events.insert(event, startYear(event.startDate)));
      const payment = (expiresAt: string, paymentIntentId: string | null): AttendeeRecord["payment"] => ({
        status: "requires_payment",
        amount: 5000,
        currency: "EUR",
        amountPaid: 0,
        amountRefunded: 0,
        provider: "stripe",
        expiresAt,
        paymentIntentId,
        clientSecret: paymentIntentId && `${paymentIntentId}_secret`,
        stripeAccount: null,
        promoted: false,
        admittedAt: null,
        checkoutSessionId: null,
      });
      const registration = async (payment: AttendeeRecord["payment"]) => {
        const attendee = { ...attendeeAt(accountId, event.id, late(1)), status: "pending" as const, payment };
        await runWhole((tx) => tx.attendees.insert(attendee));
        return { accountId, eventId: event.id, attendeeId: attendee.id };
      };
      const soon = await registration(payment(late(200), null));
      const sooner = await registration(payment(late(100), null));
      const withIntent = await registration(payment(late(150), "pi_whole_1"));
      await registration(null);
      assert.deepEqual(await whole.intentsToMake(10), [sooner, soon]);
      assert.deepEqual(await whole.intentsToMake(1), [sooner]);
      assert.deepEqual(await whole.holdsDue(late(150), 10), [sooner, withIntent]);
      assert.deepEqual(await whole.holdsDue(late(99), 10), []);
      const entry = (seconds: number, status: PaymentEntry["status"]): PaymentEntry => ({
        id: createId("payment"),
        accountId,
        eventId: event.id,
        attendeeId: soon.attendeeId,
        kind: "refund",
        amount: 1000,
        currency: "EUR",
        ticketType: "general",
        provider: "stripe",
        method: "card",
        reference: null,
        providerReference: null,
        paymentIntentId: "pi_whole_0",
        stripeAccount: null,
        status,
        createdAt: late(seconds),
      });
      const second = entry(20, "pending");
      const first = entry(10, "pending");
      await runWhole(async (tx) => {
        for (const made of [second, first, entry(5, "succeeded")]) await tx.payments.insert(made);
      });
      assert.deepEqual(await whole.refundsDue(10), [first, second]);
      assert.deepEqual(await whole.refundsDue(1), [first]);
    });

    test("purgeExpired deletes expired keys and final deliveries last active before the cut; close releases the store", async () => {
      const claim = (key: string, expiresAt: string) =>
        whole.claimIdempotencyKey({ accountId, key, requestHash: "h", now: late(1), expiresAt, staleBefore: late(0) });
      await claim("old", late(50));
      await claim("new", late(500));
      const hook = webhookRecord(accountId);
      await whole.insertWebhook(hook);
      const ping = (seconds: number): Envelope => ({
        id: createId("delivery"),
        type: "webhook.ping",
        createdAt: late(seconds),
        data: {},
        account: { id: accountId, name: "Whole" },
      });
      const hold = { workerId: "worker-p", leaseUntil: late(9_000), finalAttempt: 1, countsFailures: false };
      const done = async (envelope: Envelope, now: number) => {
        await runWhole((tx) => tx.deliveries.insertHeld({ webhookId: hook.id, envelope }, hold));
        await runWhole((tx) =>
          tx.deliveries.recordAttempt({
            deliveryId: envelope.id,
            workerId: "worker-p",
            attempt: {
              number: 1,
              startedAt: late(now),
              durationMs: 5,
              statusCode: 200,
              error: null,
              responseExcerpt: null,
              succeeded: true,
            },
            status: "succeeded",
            nextAttemptAt: null,
            now: late(now),
          }),
        );
      };
      const oldDone = ping(10);
      const newDone = ping(20);
      await done(oldDone, 11);
      await done(newDone, 300);
      const before = (await whole.listDeliveries(accountId, hook.id, DeliveryListQuery.parse({})))?.total ?? 0;
      // Emails: one sent before the cut, one sent after, one still pending from before it.
      const email = (subjectId: string) => ({
        kind: "vendor_link" as const,
        reason: "booked" as const,
        accountId,
        eventId: createId("event"),
        subjectId,
        at: late(10),
      });
      await runWhole((tx) => tx.emails.append([email("sent-old"), email("sent-new"), email("pending-old")]));
      const claimed = await whole.claimDueEmails({
        workerId: "mailer-p",
        now: late(10),
        leaseUntil: late(9_000),
        limit: 3,
        kinds: ["vendor_link"],
      });
      for (const [subject, at] of [
        ["sent-old", 20],
        ["sent-new", 400],
      ] as const) {
        const id = claimed.find((e) => e.subjectId === subject)!.id;
        await whole.recordEmailAttempt({
          id,
          workerId: "mailer-p",
          attempt: 1,
          status: "sent",
          nextAttemptAt: null,
          error: null,
          now: late(at),
        });
      }
      // Gone: the old succeeded one, and the pending one of the paused webhook of the claims' test; the old sent email.
      assert.deepEqual(
        await whole.purgeExpired({ now: late(100), deliveriesBefore: late(200), emailsBefore: late(200) }),
        { idempotencyKeys: 1, deliveries: 2, attempts: 1, emails: 1 },
      );
      const left = await whole.claimDueEmails({
        workerId: "mailer-q",
        now: late(9_001),
        leaseUntil: late(9_500),
        limit: 3,
        kinds: ["vendor_link"],
      });
      assert.deepEqual(
        left.map((e) => e.subjectId),
        ["pending-old"],
      );
      assert.equal(await whole.getDelivery(accountId, hook.id, oldDone.id), null);
      assert.equal((await whole.getDelivery(accountId, hook.id, newDone.id))?.status, "succeeded");
      assert.equal((await whole.listDeliveries(accountId, hook.id, DeliveryListQuery.parse({})))?.total, before - 1);
      assert.equal((await whole.outboxBacklog(late(170))).paused, 0);
      assert.equal(await claim("old", late(600)), null, "the expired key is free again");
      assert.equal((await claim("new", late(600)))?.state, "running");
      assert.deepEqual(
        await whole.purgeExpired({ now: late(100), deliveriesBefore: late(200), emailsBefore: late(200) }),
        { idempotencyKeys: 0, deliveries: 0, attempts: 0, emails: 0 },
      );
      await whole.close();
      await assert.rejects(whole.ping());
    });
  });
}
