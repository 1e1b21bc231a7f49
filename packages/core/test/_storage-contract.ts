/**
 * The storage contract: the storage as a driver, without the service. `storage.transaction(fn)`
 * (commit, rollback, its result) and the small operations its `tx` offers, called directly with
 * concrete values: what each writes and reads back, what it returns when nothing matches, the
 * uniqueness the database guards (`StorageConflict`), and the event's lock serialising two
 * transactions (on PostgreSQL from two connections). Run on every backend by `storage.test.ts`,
 * on one database per backend, each test on rows of its own. The business transactions over a
 * storage are `_service-transactions.ts`'s.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createId } from "../src/_internal/ids.ts";
import type { AttendeeRecord } from "../src/resources/attendee.ts";
import type { KeptFigures } from "../src/rules/kept-figures.ts";
import type { PaymentEntry } from "../src/resources/payment.ts";
import type { ThresholdRecord } from "../src/resources/threshold.ts";
import { linkHashOf, newLinkToken, newVendorRecord, type BookingRecord } from "../src/resources/vendor.ts";
import type { Storage, StorageTransaction } from "../src/storage.ts";
import type { Envelope } from "../src/storage/envelope.ts";
import { StorageConflict } from "../src/storage/transaction.ts";
import { DeliveryListQuery } from "../src/resources/webhook-delivery.ts";
import type { TestBackend, TestDatabase } from "./_backends.ts";
import { at, attendeeAt, eventAt, newAccount, webhookRecord } from "./_service-transactions-outbox.ts";

const NO_FIGURES: KeptFigures = {
  activeRegistrations: 0,
  emissionsKg: 0,
  offsetUsd: 0,
  travelReported: 0,
  lowCarbonTravel: 0,
  waitlisted: 0,
};

/**
 * `storage` whose transactions hand `fn` a `tx` that records in `called` every operation run
 * (`group.operation`), so the last test can name the operations no test ran.
 */
function recording(storage: Storage, called: Set<string>): Storage {
  const wrap = (tx: StorageTransaction) =>
    new Proxy(tx, {
      get(target, group: string) {
        const operations = Reflect.get(target, group) as Record<string, unknown>;
        return new Proxy(operations, {
          get(inner, name: string) {
            const value = Reflect.get(inner, name);
            if (typeof value === "function") called.add(`${group}.${name}`);
            return value;
          },
        });
      },
    });
  return Object.assign(Object.create(storage) as Storage, {
    transaction: <T>(fn: (tx: StorageTransaction) => Promise<T>) => storage.transaction((tx) => fn(wrap(tx))),
  });
}

/** Every operation a `tx` offers, read from a live one (the interface as it is at run time). */
async function operationsOf(storage: Storage): Promise<string[]> {
  return storage.transaction(async (tx) =>
    Object.entries(tx)
      .flatMap(([group, operations]) =>
        Object.entries(operations as Record<string, unknown>)
          .filter(([, value]) => typeof value === "function")
          .map(([name]) => `${group}.${name}`),
      )
      .sort(),
  );
}

export function describeStorageContract(backend: TestBackend) {
  describe(`storage contract: ${backend.name}`, () => {
    const called = new Set<string>();
    let database: TestDatabase;
    let storage: Storage;
    let acme: string;
    let globex: string;

    before(async () => {
      database = await backend.open();
      storage = recording(database.storage, called);
      acme = await newAccount(storage, "Acme");
      globex = await newAccount(storage, "Globex");
    });
    after(() => database.drop());

    const run = <T>(fn: (tx: StorageTransaction) => Promise<T>) => storage.transaction(fn);
    const newEvent = async (capacity = 50) => {
      const event = eventAt(acme, at(1), { capacity });
      await run((tx) => tx.events.insert(event));
      return event;
    };
    const newAttendee = async (eventId: string, overrides: Partial<AttendeeRecord> = {}) => {
      const attendee = { ...attendeeAt(acme, eventId, at(2)), ...overrides };
      await run((tx) => tx.attendees.insert(attendee));
      return attendee;
    };

    describe("transaction", () => {
      test("returns what fn returns and commits everything it wrote together", async () => {
        const event = eventAt(acme, at(1));
        const result = await run(async (tx) => {
          await tx.events.insert(event);
          await tx.figures.adjust(event.id, { ...NO_FIGURES, activeRegistrations: 2 });
          return "done";
        });
        assert.equal(result, "done");
        assert.equal((await run((tx) => tx.events.lock(acme, event.id)))?.id, event.id);
        assert.equal((await run((tx) => tx.figures.read(event.id))).activeRegistrations, 2);
      });

      test("writes nothing when fn throws, and rethrows its error", async () => {
        const event = eventAt(acme, at(1));
        const failure = new Error("no");
        await assert.rejects(
          run(async (tx) => {
            await tx.events.insert(event);
            throw failure;
          }),
          (error) => error === failure,
        );
        assert.equal(await run((tx) => tx.events.lock(acme, event.id)), null);
      });

      test("two transactions locking one event run one after the other (from two connections where there are two)", async () => {
        const event = await newEvent();
        const other = await database.another();
        const steps: string[] = [];
        let locked!: () => void;
        const firstHolds = new Promise<void>((resolve) => (locked = resolve));
        const first = database.storage.transaction(async (tx) => {
          await tx.events.lock(acme, event.id);
          steps.push("first locked");
          locked();
          // Holds the lock while the second asks for it; the second may only go on once this commits.
          await new Promise((resolve) => setTimeout(resolve, 100));
          await tx.figures.adjust(event.id, { ...NO_FIGURES, waitlisted: 1 });
          steps.push("first commits");
        });
        await firstHolds;
        const second = other.transaction(async (tx) => {
          await tx.events.lock(acme, event.id);
          steps.push("second locked");
          return tx.figures.read(event.id);
        });
        const [, seen] = await Promise.all([first, second]);
        assert.deepEqual(steps, ["first locked", "first commits", "second locked"]);
        assert.equal(seen.waitlisted, 1);
      });
    });

    describe("events", () => {
      test("lock returns the account's event, null for another account's or none; update and delete", async () => {
        const event = await newEvent();
        assert.equal((await run((tx) => tx.events.lock(acme, event.id)))?.name, "Outbox Summit");
        assert.equal(await run((tx) => tx.events.lock(globex, event.id)), null);
        assert.equal(await run((tx) => tx.events.lock(acme, createId("event"))), null);
        await run((tx) =>
          tx.events.update({ ...event, name: "Renamed", tags: ["x"], updatedAt: at(3) }, { replaceTags: true }),
        );
        const updated = await run((tx) => tx.events.lock(acme, event.id));
        assert.equal(updated?.name, "Renamed");
        assert.deepEqual(updated?.tags, ["x"]);
        assert.equal(updated?.updatedAt, at(3));
        await assert.rejects(run((tx) => tx.events.insert(event)));
        await run((tx) => tx.events.delete(event.id));
        assert.equal(await run((tx) => tx.events.lock(acme, event.id)), null);
      });
    });

    describe("registrations", () => {
      test("insert, get, getByCode, idsOf, eventIdOf; null where nothing matches", async () => {
        const event = await newEvent();
        const ada = await newAttendee(event.id);
        assert.equal(await run((tx) => tx.attendees.eventIdOf(acme, ada.id)), event.id);
        assert.equal(await run((tx) => tx.attendees.eventIdOf(globex, ada.id)), null);
        assert.deepEqual(await run((tx) => tx.attendees.get(acme, ada.id)), ada);
        assert.equal(await run((tx) => tx.attendees.get(globex, ada.id)), null);
        assert.equal((await run((tx) => tx.attendees.getByCode(event.id, ada.confirmationCode)))?.id, ada.id);
        assert.equal(await run((tx) => tx.attendees.getByCode(event.id, "NOPE-NOPE")), null);
        assert.deepEqual(await run((tx) => tx.attendees.idsOf(event.id)), [ada.id]);
        assert.deepEqual(await run((tx) => tx.attendees.idsOf(createId("event"))), []);
        assert.equal(await run((tx) => tx.attendees.codeTaken(ada.confirmationCode)), true);
        assert.equal(await run((tx) => tx.attendees.codeTaken("ZZZZ-ZZZZ")), false);
      });

      test("one active registration per email and event: findActiveDuplicate, and StorageConflict active-email", async () => {
        const event = await newEvent();
        const ada = await newAttendee(event.id, { email: "Ada@Example.com" });
        assert.equal(await run((tx) => tx.attendees.findActiveDuplicate(event.id, "ada@example.com", "")), ada.id);
        assert.equal(await run((tx) => tx.attendees.findActiveDuplicate(event.id, "ada@example.com", ada.id)), null);
        const twin = { ...attendeeAt(acme, event.id, at(3)), email: "ada@example.com" };
        await assert.rejects(
          run((tx) => tx.attendees.insert(twin)),
          (error) => StorageConflict.is(error, "active-email"),
        );
        await run((tx) => tx.attendees.updateStatus({ ...ada, status: "cancelled", cancelledAt: at(4) }));
        assert.equal(await run((tx) => tx.attendees.findActiveDuplicate(event.id, "ada@example.com", "")), null);
        await run((tx) => tx.attendees.insert(twin));
        await assert.rejects(
          run((tx) => tx.attendees.update({ ...ada, status: "confirmed", cancelledAt: null })),
          (error) => StorageConflict.is(error, "active-email"),
        );
      });

      test("update writes the fields but the fixed ones; updateStatus only the status and payment; remove", async () => {
        const event = await newEvent();
        const ada = await newAttendee(event.id);
        await run((tx) =>
          tx.attendees.update({ ...ada, firstName: "Augusta", confirmationCode: "CHANGED-1", updatedAt: at(5) }),
        );
        const updated = await run((tx) => tx.attendees.get(acme, ada.id));
        assert.equal(updated?.firstName, "Augusta");
        assert.equal(updated?.confirmationCode, ada.confirmationCode);
        await run((tx) =>
          tx.attendees.updateStatus({ ...ada, firstName: "Ignored", status: "checked-in", checkedInAt: at(6) }),
        );
        const checked = await run((tx) => tx.attendees.get(acme, ada.id));
        assert.equal(checked?.firstName, "Augusta");
        assert.equal(checked?.status, "checked-in");
        assert.equal(checked?.checkedInAt, at(6));
        await run((tx) => tx.attendees.remove(ada.id));
        assert.equal(await run((tx) => tx.attendees.get(acme, ada.id)), null);
      });

      test("ticketHolders counts the registrations not cancelled by type and status; withRefundable none unpaid", async () => {
        const event = await newEvent();
        await newAttendee(event.id);
        await newAttendee(event.id);
        await newAttendee(event.id, { status: "cancelled", cancelledAt: at(3) });
        assert.deepEqual(await run((tx) => tx.attendees.ticketHolders(event.id)), [
          { ticketType: "general", status: "confirmed", registrations: 2 },
        ]);
        assert.deepEqual(await run((tx) => tx.attendees.withRefundable(event.id)), []);
      });
    });

    describe("waiting list", () => {
      test("firstInLine in order up to limit; moveUp closes the line behind a place", async () => {
        const event = await newEvent(1);
        const line: AttendeeRecord[] = [];
        for (const position of [1, 2, 3])
          line.push(await newAttendee(event.id, { status: "waitlisted", waitlistPosition: position }));
        const first = await run((tx) => tx.waitlist.firstInLine(event.id, 2));
        assert.deepEqual(
          first.map((a) => a.id),
          [line[0]!.id, line[1]!.id],
        );
        await run((tx) => tx.attendees.remove(line[0]!.id));
        await run((tx) => tx.waitlist.moveUp(event.id, 1, 1));
        const after = await run((tx) => tx.waitlist.firstInLine(event.id, 10));
        assert.deepEqual(
          after.map((a) => [a.id, a.waitlistPosition]),
          [
            [line[1]!.id, 1],
            [line[2]!.id, 2],
          ],
        );
        assert.deepEqual(await run((tx) => tx.waitlist.firstInLine(createId("event"), 10)), []);
      });
    });

    describe("figures and tallies", () => {
      test("figures.adjust adds to the kept figures; read reads them; a missing event's read throws", async () => {
        const event = await newEvent();
        assert.deepEqual(await run((tx) => tx.figures.read(event.id)), NO_FIGURES);
        const delta = { ...NO_FIGURES, activeRegistrations: 3, emissionsKg: 12.5, offsetUsd: 4, travelReported: 2 };
        await run((tx) => tx.figures.adjust(event.id, delta));
        await run((tx) => tx.figures.adjust(event.id, { ...NO_FIGURES, activeRegistrations: -1, lowCarbonTravel: 1 }));
        assert.deepEqual(await run((tx) => tx.figures.read(event.id)), {
          ...delta,
          activeRegistrations: 2,
          lowCarbonTravel: 1,
        });
        await assert.rejects(run((tx) => tx.figures.read(createId("event"))));
      });

      test("tallies.adjust adds per value and drops a value left with none; read by facet", async () => {
        const event = await newEvent();
        const diet = (value: string, registrations: number) => ({
          facet: "diet" as const,
          value,
          registrations,
          registeredDays: registrations * 100,
        });
        await run((tx) => tx.tallies.adjust(event.id, [diet("vegan", 2), diet("none", 1)], []));
        await run((tx) => tx.tallies.adjust(event.id, [diet("none", -1), diet("vegan", 1)], []));
        assert.deepEqual(await run((tx) => tx.tallies.read(event.id, "diet")), [{ value: "vegan", registrations: 3 }]);
        assert.deepEqual(await run((tx) => tx.tallies.read(event.id, "ticket")), []);
      });
    });

    describe("outbox", () => {
      test("subscriptions of active webhooks; account; recordOneTime once; append queues pending deliveries", async () => {
        const hook = webhookRecord(acme, { events: ["attendee.registered"] });
        await storage.insertWebhook(hook);
        await storage.insertWebhook(webhookRecord(acme, { active: false }));
        assert.deepEqual(await run((tx) => tx.outbox.subscriptions(globex)), []);
        const subscriptions = await run((tx) => tx.outbox.subscriptions(acme));
        assert.deepEqual(
          subscriptions.filter((s) => s.webhookId === hook.id),
          [{ webhookId: hook.id, types: ["attendee.registered"] }],
        );
        assert.deepEqual(await run((tx) => tx.outbox.account(acme)), { id: acme, name: "Acme" });
        assert.equal(await run((tx) => tx.outbox.account(createId("account"))), null);
        const event = await newEvent();
        assert.equal(await run((tx) => tx.outbox.recordOneTime(event.id, "capacity", at(7))), true);
        assert.equal(await run((tx) => tx.outbox.recordOneTime(event.id, "capacity", at(8))), false);
        const envelope: Envelope = {
          id: createId("delivery"),
          type: "attendee.registered",
          createdAt: at(9),
          data: { n: 1 },
          account: { id: acme, name: "Acme" },
        };
        await run((tx) => tx.outbox.append([{ webhookId: hook.id, envelope }]));
        const page = await storage.listDeliveries(acme, hook.id, DeliveryListQuery.parse({}));
        assert.equal(page?.items.length, 1);
        assert.equal(page?.items[0]?.status, "pending");
        assert.equal(page?.items[0]?.id, envelope.id);
        assert.deepEqual(page?.items[0]?.attempts, []);
      });
    });

    describe("webhooks", () => {
      test("lock, get, findByUrl, update (StorageConflict webhook-url), lockFailures and setFailures", async () => {
        const one = webhookRecord(acme);
        const two = webhookRecord(acme);
        await storage.insertWebhook(one);
        await storage.insertWebhook(two);
        await run((tx) => tx.webhooks.lockAccount(acme));
        await run((tx) => tx.webhooks.lockAccount(createId("account")));
        assert.deepEqual(await run((tx) => tx.webhooks.lock(acme, one.id)), one);
        assert.equal(await run((tx) => tx.webhooks.lock(globex, one.id)), null);
        assert.deepEqual(await run((tx) => tx.webhooks.get(acme, two.id)), two);
        assert.equal(await run((tx) => tx.webhooks.get(acme, createId("webhook"))), null);
        assert.equal(await run((tx) => tx.webhooks.findByUrl(acme, one.url, two.id)), one.id);
        assert.equal(await run((tx) => tx.webhooks.findByUrl(acme, one.url, one.id)), null);
        assert.equal(await run((tx) => tx.webhooks.findByUrl(globex, one.url, "")), null);
        await assert.rejects(
          run((tx) => tx.webhooks.update({ ...two, url: one.url })),
          (error) => StorageConflict.is(error, "webhook-url"),
        );
        await run((tx) => tx.webhooks.update({ ...two, description: "changed", updatedAt: at(4) }));
        assert.equal((await run((tx) => tx.webhooks.get(acme, two.id)))?.description, "changed");
        assert.deepEqual(await run((tx) => tx.webhooks.lockFailures(one.id)), {
          consecutiveFailures: 0,
          lastSuccessStartedAt: null,
          active: true,
        });
        await run((tx) =>
          tx.webhooks.setFailures(one.id, { consecutiveFailures: 3, lastSuccessStartedAt: at(2) }, null),
        );
        assert.deepEqual(await run((tx) => tx.webhooks.lockFailures(one.id)), {
          consecutiveFailures: 3,
          lastSuccessStartedAt: at(2),
          active: true,
        });
        await run((tx) =>
          tx.webhooks.setFailures(one.id, { consecutiveFailures: 4, lastSuccessStartedAt: at(2) }, at(5)),
        );
        assert.equal((await run((tx) => tx.webhooks.lockFailures(one.id)))?.active, false);
        assert.equal(await run((tx) => tx.webhooks.lockFailures(createId("webhook"))), null);
      });
    });

    describe("vendors and bookings", () => {
      test("vendors: insert, lock, get, update, hasBooking, delete; null for another account", async () => {
        const vendor = newVendorRecord(
          { name: "Green Plate", category: "catering" },
          { id: createId("vendor"), accountId: acme, now: at(1) },
        );
        await run((tx) => tx.vendors.insert(vendor));
        assert.deepEqual(await run((tx) => tx.vendors.lock(acme, vendor.id)), vendor);
        assert.equal(await run((tx) => tx.vendors.lock(globex, vendor.id)), null);
        await run((tx) => tx.vendors.update({ ...vendor, name: "Blue Plate", updatedAt: at(2) }));
        assert.equal((await run((tx) => tx.vendors.get(acme, vendor.id)))?.name, "Blue Plate");
        assert.equal(await run((tx) => tx.vendors.get(globex, vendor.id)), null);
        assert.equal(await run((tx) => tx.vendors.hasBooking(vendor.id, ["requested", "confirmed"])), false);
        await run((tx) => tx.vendors.delete(vendor.id));
        assert.equal(await run((tx) => tx.vendors.get(acme, vendor.id)), null);
      });

      test("bookings: insert, get, getByLink, findByVendor, listByStatus, update, confirmedVendors; one active per vendor and event", async () => {
        const event = await newEvent();
        const vendor = newVendorRecord(
          { name: "Sound Co", category: "catering" },
          { id: createId("vendor"), accountId: acme, now: at(1) },
        );
        await run((tx) => tx.vendors.insert(vendor));
        const booking: BookingRecord = {
          id: createId("booking"),
          accountId: acme,
          eventId: event.id,
          vendorId: vendor.id,
          status: "requested",
          services: "Lunch",
          dataRequested: ["catering"],
          respondedAt: null,
          message: null,
          linkHash: linkHashOf(newLinkToken()),
          createdAt: at(2),
          updatedAt: at(2),
        };
        await run((tx) => tx.bookings.insert(booking));
        assert.deepEqual(await run((tx) => tx.bookings.get(acme, event.id, booking.id)), booking);
        assert.equal(await run((tx) => tx.bookings.get(globex, event.id, booking.id)), null);
        assert.equal((await run((tx) => tx.bookings.getByLink(booking.linkHash)))?.id, booking.id);
        assert.equal(await run((tx) => tx.bookings.getByLink(linkHashOf(newLinkToken()))), null);
        assert.equal(await run((tx) => tx.bookings.findByVendor(event.id, vendor.id, ["requested"])), booking.id);
        assert.equal(await run((tx) => tx.bookings.findByVendor(event.id, vendor.id, ["confirmed"])), null);
        assert.equal(await run((tx) => tx.vendors.hasBooking(vendor.id, ["requested"])), true);
        await assert.rejects(
          run((tx) =>
            tx.bookings.insert({ ...booking, id: createId("booking"), linkHash: linkHashOf(newLinkToken()) }),
          ),
          (error) => StorageConflict.is(error, "active-booking"),
        );
        assert.deepEqual(await run((tx) => tx.bookings.confirmedVendors(event.id)), []);
        await run((tx) =>
          tx.bookings.update({ ...booking, status: "confirmed", respondedAt: at(3), updatedAt: at(3) }),
        );
        assert.deepEqual(
          (await run((tx) => tx.bookings.listByStatus(event.id, ["confirmed"]))).map((b) => b.id),
          [booking.id],
        );
        assert.deepEqual(await run((tx) => tx.bookings.listByStatus(event.id, ["requested"])), []);
        const confirmed = await run((tx) => tx.bookings.confirmedVendors(event.id));
        assert.equal(confirmed.length, 1);
      });
    });

    describe("payments", () => {
      test("insert, sums by provider, settle once, findByIntent, scrubReferences; Stripe's events once; settings", async () => {
        const event = await newEvent();
        const ada = await newAttendee(event.id);
        const entry = (overrides: Partial<PaymentEntry>): PaymentEntry => ({
          id: createId("payment"),
          accountId: acme,
          eventId: event.id,
          attendeeId: ada.id,
          kind: "payment",
          amount: 5000,
          currency: "EUR",
          ticketType: "general",
          provider: "manual",
          method: "cash",
          reference: null,
          providerReference: null,
          paymentIntentId: null,
          stripeAccount: null,
          status: "succeeded",
          createdAt: at(3),
          ...overrides,
        });
        assert.deepEqual(await run((tx) => tx.payments.sums(ada.id)), []);
        await run((tx) => tx.payments.insert(entry({})));
        const refund = entry({ kind: "refund", amount: 1500, status: "pending" });
        await run((tx) => tx.payments.insert(refund));
        assert.deepEqual(await run((tx) => tx.payments.sums(ada.id)), [
          { provider: "manual", paid: 5000, refunded: 1500 },
        ]);
        assert.equal(await run((tx) => tx.payments.settle(refund.id, "succeeded", "re_1")), true);
        assert.equal(await run((tx) => tx.payments.settle(refund.id, "failed", null)), false);
        assert.equal(await run((tx) => tx.payments.settle(createId("payment"), "failed", null)), false);
        await run((tx) =>
          tx.attendees.updateStatus({
            ...ada,
            status: "pending",
            payment: {
              status: "requires_payment",
              amount: 5000,
              currency: "EUR",
              amountPaid: 0,
              amountRefunded: 0,
              provider: "stripe",
              expiresAt: at(9),
              paymentIntentId: "pi_contract_1",
              clientSecret: "pi_contract_1_secret",
              stripeAccount: null,
              promoted: false,
              admittedAt: null,
            },
          }),
        );
        assert.deepEqual(await run((tx) => tx.payments.findByIntent("pi_contract_1")), {
          accountId: acme,
          eventId: event.id,
          attendeeId: ada.id,
        });
        assert.equal(await run((tx) => tx.payments.findByIntent("pi_none")), null);
        await run((tx) => tx.payments.scrubReferences({ attendeeId: ada.id }));
        assert.equal(
          await run((tx) => tx.payments.recordStripeEvent("evt_contract_1", "payment_intent.succeeded", at(4))),
          true,
        );
        assert.equal(
          await run((tx) => tx.payments.recordStripeEvent("evt_contract_1", "payment_intent.succeeded", at(5))),
          false,
        );
        assert.equal(await storage.getPaymentSettings(globex), null);
        await run((tx) => tx.payments.putSettings(globex, "acct_contract", at(6)));
        assert.equal((await storage.getPaymentSettings(globex))?.stripeAccountId, "acct_contract");
      });
    });

    describe("thresholds", () => {
      test("applicable: the account's, for the event or all events, by metric; states and setState; accountHas", async () => {
        const event = await newEvent();
        const threshold = (overrides: Partial<ThresholdRecord>): ThresholdRecord => ({
          id: createId("threshold"),
          accountId: acme,
          metric: "capacity_utilization",
          comparison: "above",
          value: 50,
          eventId: null,
          createdAt: at(1),
          updatedAt: at(1),
          ...overrides,
        });
        const wide = threshold({});
        const own = threshold({ eventId: event.id, metric: "total_emissions_kg", value: 100 });
        const elsewhere = threshold({ accountId: globex });
        for (const record of [wide, own, elsewhere]) assert.equal(await storage.insertThreshold(record), true);
        const ids = (records: ThresholdRecord[]) => records.map((record) => record.id).sort();
        assert.deepEqual(ids(await run((tx) => tx.thresholds.applicable(acme, event.id))), [wide.id, own.id].sort());
        assert.deepEqual(ids(await run((tx) => tx.thresholds.applicable(acme, event.id, ["capacity_utilization"]))), [
          wide.id,
        ]);
        assert.deepEqual(await run((tx) => tx.thresholds.applicable(acme, event.id, [])), []);
        assert.deepEqual(await run((tx) => tx.thresholds.states(event.id, [wide.id, own.id])), []);
        await run((tx) => tx.thresholds.setState(wide.id, event.id, true, at(2)));
        await run((tx) => tx.thresholds.setState(own.id, event.id, false, at(2)));
        await run((tx) => tx.thresholds.setState(own.id, event.id, true, at(3)));
        const states = await run((tx) => tx.thresholds.states(event.id, [wide.id, own.id]));
        assert.deepEqual(
          [...states].sort((a, b) => a.thresholdId.localeCompare(b.thresholdId)),
          [
            { thresholdId: wide.id, reached: true },
            { thresholdId: own.id, reached: true },
          ].sort((a, b) => a.thresholdId.localeCompare(b.thresholdId)),
        );
        assert.equal(await run((tx) => tx.thresholds.accountHas(acme, "total_emissions_kg")), true);
        assert.equal(await run((tx) => tx.thresholds.accountHas(acme, "waste_diversion_percent")), false);
        assert.equal(await run((tx) => tx.thresholds.accountHas(globex, "total_emissions_kg")), false);
      });
    });

    test("every operation of a transaction is run by a test", async () => {
      const untested = (await operationsOf(database.storage)).filter((operation) => !called.has(operation));
      assert.deepEqual(untested, NOT_YET_DIRECT);
    });
  });
}

/**
 * Operations that no test here runs yet: covered only through the business transactions
 * (`_service-transactions.ts`). The list may only shrink: a new operation gets its test here.
 */
const NOT_YET_DIRECT = [
  "activities.delete",
  "activities.get",
  "activities.insert",
  "activities.update",
  "deliveries.get",
  "deliveries.insertHeld",
  "deliveries.lock",
  "deliveries.recordAttempt",
  "deliveries.requeue",
  "erasure.redactPayloads",
  "erasure.replaceAnswers",
  "figures.eventAnalytics",
  "figures.readActivities",
  "figures.recountActivities",
];
