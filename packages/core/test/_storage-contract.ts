/**
 * The storage contract: the storage as a driver, without the service. `storage.transaction(fn)`
 * (commit, rollback, its result) and the small operations its `tx` offers, called directly with
 * concrete values: what each writes and reads back, what it returns when nothing matches, the
 * uniqueness the database guards (`StorageConflict`), and the event's lock serialising two
 * transactions (on PostgreSQL from two connections); the methods outside `transaction` are
 * `_storage-contract-reads.ts`'s. Run on every backend by `storage.test.ts`, on one database per
 * backend, each test on rows of its own. The last two tests fail when an operation of `tx` or a
 * method of `Storage` is run by no test here, so a new one comes with its test. The business
 * transactions over a storage are `_service-transactions.ts`'s.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createId } from "../src/_internal/ids.ts";
import { startYear } from "../src/carbon/factor-sets.ts";
import { EmissionFactorSet } from "../src/carbon/emission-factors.ts";
import type { AttendeeRecord } from "../src/resources/attendee.ts";
import type { EmailKind, EmailStatus } from "../src/resources/email.ts";
import type { TicketLinkRecord } from "../src/resources/ticket-link.ts";
import type { CheckInLinkRecord } from "../src/resources/check-in-link.ts";
import type { KeptFigures } from "../src/rules/kept-figures.ts";
import type { Tally } from "../src/rules/kept-tallies.ts";
import type { PaymentEntry } from "../src/resources/payment.ts";
import type { ThresholdRecord } from "../src/resources/threshold.ts";
import { newVendorRecord, type BookingRecord } from "../src/resources/vendor.ts";
import { linkHashOf, newLinkToken } from "../src/resources/link-token.ts";
import type { NewDelivery, Storage, StorageTransaction } from "../src/storage.ts";
import { type Envelope, redactEnvelope } from "../src/storage/envelope.ts";
import { ERASED_ANSWER } from "../src/storage/erasure.ts";
import type { PricedActivity } from "../src/resources/priced-activity.ts";
import { NO_ACTIVITY_FIGURES } from "../src/resources/activity-figures.ts";
import { StorageConflict } from "../src/storage/transaction.ts";
import { type DeliveryAttempt, DeliveryListQuery } from "../src/resources/webhook-delivery.ts";
import type { TestBackend, TestDatabase } from "./_backends.ts";
import { describeStorageReads, late, lateEventRecord, storageMethods } from "./_storage-contract-reads.ts";
import { at, attendeeAt, eventAt, fuelRecord, newAccount, webhookRecord } from "./_service-transactions-outbox.ts";

const NO_FIGURES: KeptFigures = {
  activeRegistrations: 0,
  emissionsKg: 0,
  offsetUsd: 0,
  travelReported: 0,
  lowCarbonTravel: 0,
  waitlisted: 0,
};

/**
 * `storage` with every method called recorded in `methods` and every operation its transactions'
 * `tx` runs recorded in `operations` (`group.operation`), so that the last tests can name what no
 * test ran.
 */
function recording(storage: Storage, methods: Set<string>, operations: Set<string>): Storage {
  const wrap = (tx: StorageTransaction) =>
    new Proxy(tx, {
      get(target, group: string) {
        const operationsOf = Reflect.get(target, group) as Record<string, unknown>;
        return new Proxy(operationsOf, {
          get(inner, name: string) {
            const value = Reflect.get(inner, name);
            if (typeof value === "function") operations.add(`${group}.${name}`);
            return value;
          },
        });
      },
    });
  return new Proxy(storage, {
    get(target, property) {
      const value = Reflect.get(target, property);
      if (typeof value !== "function" || typeof property !== "string") return value;
      methods.add(property);
      if (property === "transaction")
        return <T>(fn: (tx: StorageTransaction) => Promise<T>) => target.transaction((tx) => fn(wrap(tx)));
      return value.bind(target);
    },
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

/** A successful attempt started at `startedAt`. */
const attemptAt = (startedAt: string): DeliveryAttempt => ({
  number: 1,
  startedAt,
  durationMs: 9,
  statusCode: 200,
  error: null,
  responseExcerpt: null,
  succeeded: true,
});

export function describeStorageContract(backend: TestBackend) {
  describe(`storage contract: ${backend.name}`, () => {
    const called = new Set<string>();
    const calledMethods = new Set<string>();
    const record = (storage: Storage) => recording(storage, calledMethods, called);
    let database: TestDatabase;
    let storage: Storage;
    let acme: string;
    let globex: string;

    before(async () => {
      database = await backend.open();
      storage = record(database.storage);
      acme = await newAccount(storage, "Acme");
      globex = await newAccount(storage, "Globex");
    });
    after(() => database.drop());

    const run = <T>(fn: (tx: StorageTransaction) => Promise<T>) => storage.transaction(fn);
    const newEvent = async (capacity = 50) => {
      const event = eventAt(acme, at(1), { capacity });
      await run((tx) => tx.events.insert(event, startYear(event.startDate)));
      return event;
    };
    /** An event on 2038-05-01, out of reach of the dates the other tests move. */
    const newLateEvent = async () => {
      const event = lateEventRecord(acme);
      await run((tx) => tx.events.insert(event, startYear(event.startDate)));
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
          await tx.events.insert(event, startYear(event.startDate));
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
            await tx.events.insert(event, startYear(event.startDate));
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
        // With the kept figures, read by the lock's own statement.
        await run((tx) => tx.figures.adjust(event.id, { ...NO_FIGURES, activeRegistrations: 3, waitlisted: 2 }));
        const locked = await run((tx) => tx.events.lockWithFigures(acme, event.id));
        assert.equal(locked?.event.name, "Outbox Summit");
        assert.deepEqual(locked?.figures, { ...NO_FIGURES, activeRegistrations: 3, waitlisted: 2 });
        assert.equal(await run((tx) => tx.events.lockWithFigures(globex, event.id)), null);
        assert.equal(await run((tx) => tx.events.lockWithFigures(acme, createId("event"))), null);
        await run((tx) =>
          tx.events.update({ ...event, name: "Renamed", tags: ["x"], updatedAt: at(3) }, { replaceTags: true }),
        );
        const updated = await run((tx) => tx.events.lock(acme, event.id));
        assert.equal(updated?.name, "Renamed");
        assert.deepEqual(updated?.tags, ["x"]);
        assert.equal(updated?.updatedAt, at(3));
        await assert.rejects(run((tx) => tx.events.insert(event, startYear(event.startDate))));
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

      test("insertMany writes each as insert does; activeDuplicates and codesTaken answer for many at once", async () => {
        const event = await newEvent();
        const other = await newEvent();
        const ada = await newAttendee(event.id, { email: "Ada.Many@Example.com" });
        // More than one multi-row statement's worth, with a waiting one and one with a dietary list.
        const many = Array.from({ length: 45 }, (_, i) =>
          attendeeAt(acme, event.id, at(3), {
            email: `Guest${i}.Many@example.com`,
            ...(i === 7 && { dietaryPreferences: ["vegan"] }),
          }),
        );
        many[9] = { ...many[9]!, status: "waitlisted", waitlistPosition: 1 };
        await run((tx) => tx.attendees.insertMany(many));
        assert.deepEqual(await run((tx) => tx.attendees.get(acme, many[7]!.id)), many[7]);
        assert.deepEqual(await run((tx) => tx.attendees.get(acme, many[9]!.id)), many[9]);
        assert.deepEqual(await run((tx) => tx.attendees.get(acme, many[44]!.id)), many[44]);
        assert.equal((await run((tx) => tx.attendees.idsOf(event.id))).length, 46);

        const found = await run((tx) =>
          tx.attendees.activeDuplicates(event.id, [
            "ADA.MANY@example.com",
            "guest3.many@EXAMPLE.com",
            "nobody@example.com",
          ]),
        );
        assert.deepEqual(
          found,
          new Map([
            ["ada.many@example.com", ada.id],
            ["guest3.many@example.com", many[3]!.id],
          ]),
        );
        assert.deepEqual(
          await run((tx) => tx.attendees.activeDuplicates(event.id, ["guest9.many@example.com"])),
          new Map([["guest9.many@example.com", many[9]!.id]]),
        );
        assert.deepEqual(
          await run((tx) => tx.attendees.activeDuplicates(other.id, ["ada.many@example.com"])),
          new Map(),
        );
        // A cancelled registration holds its email no longer, alone or among many.
        await run((tx) => tx.attendees.updateStatus({ ...many[5]!, status: "cancelled", cancelledAt: at(4) }));
        assert.deepEqual(
          await run((tx) => tx.attendees.activeDuplicates(event.id, ["guest5.many@example.com"])),
          new Map(),
        );
        assert.deepEqual(
          await run((tx) =>
            tx.attendees.activeDuplicates(event.id, ["guest5.many@example.com", "guest6.many@example.com"]),
          ),
          new Map([["guest6.many@example.com", many[6]!.id]]),
        );
        assert.deepEqual(await run((tx) => tx.attendees.activeDuplicates(event.id, [])), new Map());

        assert.deepEqual(
          await run((tx) => tx.attendees.codesTaken([ada.confirmationCode, many[10]!.confirmationCode, "ZZZZ-ZZZZ"])),
          new Set([ada.confirmationCode, many[10]!.confirmationCode]),
        );
        assert.deepEqual(
          await run((tx) => tx.attendees.codesTaken([many[1]!.confirmationCode])),
          new Set([many[1]!.confirmationCode]),
        );
        assert.deepEqual(await run((tx) => tx.attendees.codesTaken(["ZZZZ-ZZZZ"])), new Set());

        // One breaking the uniqueness of an active email fails them all, as insert does.
        const fresh = attendeeAt(acme, event.id, at(5));
        const twin = attendeeAt(acme, event.id, at(5), { email: "guest4.many@example.com" });
        await assert.rejects(
          run((tx) => tx.attendees.insertMany([fresh, twin])),
          (error) => StorageConflict.is(error, "active-email"),
        );
        assert.equal(await run((tx) => tx.attendees.get(acme, fresh.id)), null);
        await run((tx) => tx.attendees.insertMany([fresh]));
        assert.deepEqual(await run((tx) => tx.attendees.get(acme, fresh.id)), fresh);
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

      test("inStatuses lists the event's registrations in those statuses in registration order; setStatuses writes many alike", async () => {
        const event = await newEvent();
        const first = await newAttendee(event.id, { registrationDate: at(2) });
        const waiting = await newAttendee(event.id, {
          registrationDate: at(3),
          status: "waitlisted",
          waitlistPosition: 1,
        });
        const gone = await newAttendee(event.id, { registrationDate: at(4), status: "cancelled", cancelledAt: at(4) });
        await newAttendee((await newEvent()).id);
        const listed = await run((tx) => tx.attendees.inStatuses(event.id, ["confirmed", "waitlisted"]));
        assert.deepEqual(
          listed.map((a) => a.id),
          [first.id, waiting.id],
        );
        assert.deepEqual(listed[0], first);
        assert.deepEqual(await run((tx) => tx.attendees.inStatuses(event.id, [])), []);
        await run((tx) =>
          tx.attendees.setStatuses([first.id, waiting.id], {
            status: "cancelled",
            waitlistPosition: null,
            cancelledAt: at(5),
            updatedAt: at(6),
          }),
        );
        await run((tx) =>
          tx.attendees.setStatuses([], {
            status: "confirmed",
            waitlistPosition: null,
            cancelledAt: null,
            updatedAt: at(7),
          }),
        );
        for (const id of [first.id, waiting.id]) {
          const read = await run((tx) => tx.attendees.get(acme, id));
          assert.deepEqual(
            [read?.status, read?.waitlistPosition, read?.cancelledAt, read?.updatedAt, read?.firstName],
            ["cancelled", null, at(5), at(6), first.firstName],
          );
        }
        assert.deepEqual(
          (await run((tx) => tx.attendees.inStatuses(event.id, ["cancelled"]))).map((a) => a.id),
          [first.id, waiting.id, gone.id],
        );
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

      test("append writes many deliveries at once, each pending with its own envelope", async () => {
        const hook = webhookRecord(acme);
        await storage.insertWebhook(hook);
        const envelopes = Array.from({ length: 250 }, (_, n) => ({
          id: createId("delivery"),
          type: "attendee.cancelled",
          createdAt: at(10),
          data: { n },
          account: { id: acme, name: "Acme" },
        }));
        await run((tx) => tx.outbox.append(envelopes.map((envelope) => ({ webhookId: hook.id, envelope }))));
        const page = await storage.listDeliveries(acme, hook.id, DeliveryListQuery.parse({ limit: "100" }));
        assert.equal(page?.total, 250);
        const byId = new Map(envelopes.map((envelope) => [envelope.id, envelope]));
        for (const delivery of page?.items ?? []) {
          assert.equal(delivery.status, "pending");
          assert.deepEqual(delivery.payload, byId.get(delivery.id));
        }
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
          createdAt: at(2),
          updatedAt: at(2),
        };
        const linkHash = linkHashOf(newLinkToken("vendor"));
        await run((tx) => tx.bookings.insert(booking, linkHash));
        assert.deepEqual(await run((tx) => tx.bookings.get(acme, event.id, booking.id)), booking);
        assert.equal(await run((tx) => tx.bookings.get(globex, event.id, booking.id)), null);
        assert.equal((await run((tx) => tx.bookings.getByLink(linkHash)))?.id, booking.id);
        assert.equal(await run((tx) => tx.bookings.getByLink(linkHashOf(newLinkToken("vendor")))), null);
        // A second live link (an email's), then a rotation: the one new link replaces both.
        const emailed = linkHashOf(newLinkToken("vendor"));
        assert.equal(
          await storage.addBookingLink({
            bookingId: booking.id,
            linkHash: emailed,
            at: at(2),
            statuses: ["requested"],
          }),
          true,
        );
        assert.equal((await run((tx) => tx.bookings.getByLink(emailed)))?.id, booking.id);
        const rotated = linkHashOf(newLinkToken("vendor"));
        await run((tx) => tx.bookings.replaceLinks(booking.id, rotated, at(3)));
        assert.equal(await run((tx) => tx.bookings.getByLink(linkHash)), null);
        assert.equal(await run((tx) => tx.bookings.getByLink(emailed)), null);
        assert.equal((await run((tx) => tx.bookings.getByLink(rotated)))?.id, booking.id);
        assert.equal(await run((tx) => tx.bookings.findByVendor(event.id, vendor.id, ["requested"])), booking.id);
        assert.equal(await run((tx) => tx.bookings.findByVendor(event.id, vendor.id, ["confirmed"])), null);
        assert.equal(await run((tx) => tx.vendors.hasBooking(vendor.id, ["requested"])), true);
        await assert.rejects(
          run((tx) => tx.bookings.insert({ ...booking, id: createId("booking") }, linkHashOf(newLinkToken("vendor")))),
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

    describe("email outbox", () => {
      test("append, claimDueEmails (kinds, due order, lease), recordEmailAttempt by the holder only; concurrent claims take each email once", async () => {
        const eventId = createId("event");
        const ada = createId("attendee");
        const booking = createId("booking");
        await run((tx) =>
          tx.emails.append([
            { kind: "ticket_link", reason: "registered", accountId: acme, eventId, subjectId: ada, at: at(10) },
            { kind: "vendor_link", reason: "booked", accountId: acme, eventId, subjectId: booking, at: at(11) },
            { kind: "ticket_link", reason: "paid", accountId: acme, eventId, subjectId: ada, at: at(12) },
          ]),
        );
        await run((tx) => tx.emails.append([]));
        const plus = (iso: string, seconds: number) => new Date(Date.parse(iso) + seconds * 1000).toISOString();
        const claim = (
          workerId: string,
          now: string,
          kinds: EmailKind[] = ["ticket_link", "vendor_link"],
          limit = 10,
        ) => storage.claimDueEmails({ workerId, now, leaseUntil: plus(now, 60), limit, kinds });
        // Not due yet; then the vendor kind alone.
        assert.deepEqual(await claim("w1", at(9)), []);
        const vendorOnly = await claim("w1", at(20), ["vendor_link"]);
        assert.deepEqual(
          vendorOnly.map((e) => [e.kind, e.reason, e.subjectId, e.eventId, e.accountId, e.attempts]),
          [["vendor_link", "booked", booking, eventId, acme, 0]],
        );
        // Leased: nobody else gets it; the ticket ones go to the next claims, oldest first, each once.
        const [first, second] = await Promise.all([
          claim("w2", at(20), undefined, 1),
          claim("w3", at(20), undefined, 1),
        ]);
        assert.deepEqual([...(first ?? []), ...(second ?? [])].map((e) => e.reason).sort(), ["paid", "registered"]);
        assert.deepEqual(await claim("w4", at(20)), []);
        const vendorEmail = vendorOnly[0]!;
        const attempt = (workerId: string, n: number, status: EmailStatus, next: string | null) =>
          storage.recordEmailAttempt({
            id: vendorEmail.id,
            workerId,
            attempt: n,
            status,
            nextAttemptAt: next,
            error: status === "pending" ? "451 try later" : null,
            now: at(21),
          });
        // Only its holder records, and only the attempt due.
        assert.equal(await attempt("w2", 1, "pending", at(30)), false);
        assert.equal(await attempt("w1", 2, "pending", at(30)), false);
        assert.equal(await attempt("w1", 1, "pending", at(30)), true);
        assert.equal(await attempt("w1", 1, "pending", at(30)), false);
        // Retried when due, with its attempts counted; then sent, and never claimed again.
        assert.deepEqual(await claim("w5", at(29), ["vendor_link"]), []);
        const retried = await claim("w5", at(30), ["vendor_link"]);
        assert.deepEqual(
          retried.map((e) => [e.id, e.attempts]),
          [[vendorEmail.id, 1]],
        );
        assert.equal(await attempt("w5", 2, "sent", null), true);
        assert.deepEqual(await claim("w6", plus(at(30), 3600), ["vendor_link"]), []);
        // A crashed worker's lease runs out: the email comes back.
        const back = await claim("w7", plus(at(20), 61), ["ticket_link"]);
        assert.equal(back.length, 2);
      });
    });

    describe("ticket links", () => {
      const ticketLink = (attendeeId: string, seconds: number, accountId = acme): TicketLinkRecord => ({
        id: createId("ticketLink"),
        accountId,
        attendeeId,
        linkHash: linkHashOf(newLinkToken("ticket")),
        createdAt: at(seconds),
      });

      test("add keeps every live link of a registration; replace leaves the new one alone; attendeeOf, findTicketLink", async () => {
        const event = await newEvent();
        const ada = await newAttendee(event.id, { email: "ada.links@example.com" });
        const bob = await newAttendee(event.id, { id: createId("attendee"), email: "bob.links@example.com" });
        const [first, second, third, bobs] = [
          ticketLink(ada.id, 3),
          ticketLink(ada.id, 4),
          ticketLink(ada.id, 5),
          ticketLink(bob.id, 6),
        ];
        await run(async (tx) => {
          await tx.ticketLinks.add(first);
          await tx.ticketLinks.add(bobs);
        });
        assert.equal(await storage.addTicketLink(second), true);
        assert.equal((await storage.findTicketLink(first.linkHash))?.id, ada.id);
        assert.deepEqual(await storage.findTicketLink(second.linkHash), ada);
        assert.equal(await run((tx) => tx.ticketLinks.attendeeOf(second.linkHash)), ada.id);
        assert.equal(await storage.findTicketLink(linkHashOf(newLinkToken("ticket"))), null);
        assert.equal(await run((tx) => tx.ticketLinks.attendeeOf(linkHashOf(newLinkToken("ticket")))), null);

        await run((tx) => tx.ticketLinks.replace(third));
        assert.deepEqual(
          [
            await storage.findTicketLink(first.linkHash),
            await storage.findTicketLink(second.linkHash),
            (await storage.findTicketLink(third.linkHash))?.id,
            (await storage.findTicketLink(bobs.linkHash))?.id,
          ],
          [null, null, ada.id, bob.id],
        );
        // One hash names one link.
        await assert.rejects(run((tx) => tx.ticketLinks.add({ ...third, id: createId("ticketLink") })));
      });

      test("addMany adds the links of several registrations, one or many at once, as add does", async () => {
        const event = await newEvent();
        const ada = await newAttendee(event.id, { id: createId("attendee"), email: "ada.addmany@example.com" });
        const bob = await newAttendee(event.id, { id: createId("attendee"), email: "bob.addmany@example.com" });
        const [adas, bobs, more] = [ticketLink(ada.id, 3), ticketLink(bob.id, 3), ticketLink(bob.id, 4)];
        await run((tx) => tx.ticketLinks.addMany([adas, bobs]));
        await run((tx) => tx.ticketLinks.addMany([more]));
        assert.deepEqual(
          [
            await run((tx) => tx.ticketLinks.attendeeOf(adas.linkHash)),
            await run((tx) => tx.ticketLinks.attendeeOf(bobs.linkHash)),
            await run((tx) => tx.ticketLinks.attendeeOf(more.linkHash)),
          ],
          [ada.id, bob.id, bob.id],
        );
        // One hash names one link: the whole write fails.
        const fresh = ticketLink(ada.id, 5);
        await assert.rejects(run((tx) => tx.ticketLinks.addMany([fresh, { ...adas, id: createId("ticketLink") }])));
        assert.equal(await run((tx) => tx.ticketLinks.attendeeOf(fresh.linkHash)), null);
      });

      test("addTicketLink writes nothing for another account's or an unknown registration", async () => {
        const event = await newEvent();
        const ada = await newAttendee(event.id, { id: createId("attendee"), email: "ada.other@example.com" });
        const foreign = ticketLink(ada.id, 3, globex);
        assert.equal(await storage.addTicketLink(foreign), false);
        assert.equal(await storage.findTicketLink(foreign.linkHash), null);
        const unknown = ticketLink(createId("attendee"), 3);
        assert.equal(await storage.addTicketLink(unknown), false);
        assert.equal(await storage.findTicketLink(unknown.linkHash), null);
      });

      test("a registration's links go with it: attendees.remove and events.delete", async () => {
        const event = await newEvent();
        const ada = await newAttendee(event.id, { id: createId("attendee"), email: "ada.gone@example.com" });
        const bob = await newAttendee(event.id, { id: createId("attendee"), email: "bob.gone@example.com" });
        const [adas, bobs] = [ticketLink(ada.id, 3), ticketLink(bob.id, 3)];
        assert.deepEqual([await storage.addTicketLink(adas), await storage.addTicketLink(bobs)], [true, true]);
        await run((tx) => tx.attendees.remove(ada.id));
        assert.equal(await storage.findTicketLink(adas.linkHash), null);
        assert.equal(await run((tx) => tx.ticketLinks.attendeeOf(adas.linkHash)), null);
        assert.equal(await storage.addTicketLink(ticketLink(ada.id, 4)), false);
        await run((tx) => tx.events.delete(event.id));
        assert.equal(await run((tx) => tx.ticketLinks.attendeeOf(bobs.linkHash)), null);
        const rows = await database.db
          .selectFrom("ticket_links")
          .select("id")
          .where("attendee_id", "in", [ada.id, bob.id])
          .execute();
        assert.deepEqual(rows, []);
      });
    });

    describe("check-in links and the door's reads", () => {
      const checkInLink = (eventId: string, seconds: number, overrides: Partial<CheckInLinkRecord> = {}) => ({
        id: createId("checkInLink"),
        accountId: acme,
        eventId,
        linkHash: linkHashOf(newLinkToken("door")),
        label: null,
        expiresAt: null,
        createdAt: at(seconds),
        ...overrides,
      });

      test("add (own events only), list oldest first by page, find while not expired, revoke; the event's deletion takes them", async () => {
        const event = await newEvent();
        const other = await newEvent();
        const [first, second, third] = [
          checkInLink(event.id, 3, { label: "North", expiresAt: "2038-01-01T00:00:00.000Z" }),
          checkInLink(event.id, 4),
          checkInLink(event.id, 5),
        ];
        for (const link of [third, first, second]) assert.equal(await storage.addCheckInLink(link), true);
        const elsewhere = checkInLink(other.id, 3);
        assert.equal(await storage.addCheckInLink(elsewhere), true);
        assert.equal(await storage.addCheckInLink(checkInLink(event.id, 6, { accountId: globex })), false);
        assert.equal(await storage.addCheckInLink(checkInLink(createId("event"), 6)), false);

        assert.deepEqual(await storage.listCheckInLinks(acme, event.id, { page: 1, limit: 2 }), {
          items: [first, second],
          total: 3,
        });
        assert.deepEqual(await storage.listCheckInLinks(acme, event.id, { page: 2, limit: 2 }), {
          items: [third],
          total: 3,
        });
        assert.equal(await storage.listCheckInLinks(globex, event.id, { page: 1, limit: 2 }), null);
        assert.equal(await storage.listCheckInLinks(acme, createId("event"), { page: 1, limit: 2 }), null);

        assert.deepEqual(await storage.findCheckInLink(first.linkHash, "2037-12-31T23:59:59.999Z"), first);
        assert.equal(await storage.findCheckInLink(first.linkHash, "2038-01-01T00:00:00.000Z"), null);
        assert.deepEqual(await storage.findCheckInLink(second.linkHash, "2999-01-01T00:00:00.000Z"), second);
        assert.equal(await storage.findCheckInLink(linkHashOf(newLinkToken("door")), at(1)), null);

        assert.equal(await storage.revokeCheckInLink(globex, event.id, second.id), false);
        assert.equal(await storage.revokeCheckInLink(acme, other.id, second.id), false);
        assert.equal(await storage.revokeCheckInLink(acme, event.id, second.id), true);
        assert.equal(await storage.revokeCheckInLink(acme, event.id, second.id), false);
        assert.equal(await storage.findCheckInLink(second.linkHash, at(1)), null);

        await run((tx) => tx.events.delete(event.id));
        assert.equal(await storage.findCheckInLink(third.linkHash, at(1)), null);
        const rows = await database.db
          .selectFrom("check_in_links")
          .select("id")
          .where("event_id", "=", event.id)
          .execute();
        assert.deepEqual(rows, []);
        assert.deepEqual(await storage.findCheckInLink(elsewhere.linkHash, at(1)), elsewhere);
      });

      test("doorCounts, searchDoorAttendees (names only), doorList, findAttendeeByCode (the account's only)", async () => {
        const event = await newEvent();
        const other = await newEvent();
        const admitted = { admittedAt: at(3) };
        const ada = await newAttendee(event.id, {
          firstName: "Ada",
          lastName: "Lovelace",
          email: "zed.door@example.com",
        });
        const alan = await newAttendee(event.id, {
          firstName: "Alan",
          lastName: "Turing",
          email: "ada.door@example.com",
          company: "Adastra",
          status: "checked-in",
          checkedInAt: at(4),
        });
        const payment = {
          status: "requires_payment" as const,
          amount: 5000,
          currency: "EUR",
          amountPaid: 0,
          amountRefunded: 0,
          provider: "manual" as const,
          expiresAt: null,
          paymentIntentId: null,
          clientSecret: null,
          stripeAccount: null,
          promoted: false,
          admittedAt: null,
          checkoutSessionId: null,
        };
        const owing = await newAttendee(event.id, { firstName: "Olga", lastName: "Owing", status: "pending", payment });
        const paid = await newAttendee(event.id, {
          firstName: "Paul",
          lastName: "Paid",
          payment: { ...payment, status: "paid", amountPaid: 5000, ...admitted },
        });
        const waiting = await newAttendee(event.id, { firstName: "Wanda", lastName: "Waits", status: "waitlisted" });
        const gone = await newAttendee(event.id, { firstName: "Gus", lastName: "Gone", status: "cancelled" });
        const elsewhere = await newAttendee(other.id, { firstName: "Ada", lastName: "Elsewhere" });

        assert.deepEqual(await storage.doorCounts(event.id), { checkedIn: 1, expected: 3 });
        assert.deepEqual(await storage.doorCounts(createId("event")), { checkedIn: 0, expected: 0 });

        const entry = (a: AttendeeRecord) => ({
          id: a.id,
          firstName: a.firstName,
          lastName: a.lastName,
          ticketType: a.ticketType,
          status: a.status,
          confirmationCode: a.confirmationCode,
          checkedInAt: a.checkedInAt,
          payment: a.payment && { admittedAt: a.payment.admittedAt },
        });
        assert.deepEqual(await storage.searchDoorAttendees(event.id, "ADA", 20), [entry(ada)]);
        assert.deepEqual(await storage.searchDoorAttendees(event.id, "zed", 20), []);
        assert.deepEqual(await storage.searchDoorAttendees(event.id, "alan tu", 20), [entry(alan)]);
        assert.deepEqual(await storage.searchDoorAttendees(event.id, "a", 2), [entry(ada), entry(owing)]);
        assert.deepEqual(await storage.searchDoorAttendees(event.id, "%", 20), []);
        const list = await storage.doorList(event.id);
        assert.deepEqual(
          list,
          [ada, alan, owing, paid, waiting, gone].map(entry).sort((a, b) => (a.id < b.id ? -1 : 1)),
        );
        assert.deepEqual(
          list.filter((e) => e.payment !== null).map((e) => [e.id, e.payment]),
          [
            [owing.id, { admittedAt: null }],
            [paid.id, admitted],
          ].sort((a, b) => ((a[0] as string) < (b[0] as string) ? -1 : 1)),
        );

        assert.deepEqual(await storage.findAttendeeByCode(acme, elsewhere.confirmationCode), elsewhere);
        assert.equal(await storage.findAttendeeByCode(globex, elsewhere.confirmationCode), null);
        assert.equal(await storage.findAttendeeByCode(acme, "EVT-0000-0000"), null);
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
        // Many at once, and the sums of every registration of the event in one read.
        const bob = await newAttendee(event.id);
        await run((tx) =>
          tx.payments.insertMany([
            entry({ attendeeId: bob.id, amount: 3000 }),
            entry({ attendeeId: bob.id, provider: "stripe", method: "card", amount: 2000 }),
            entry({
              attendeeId: bob.id,
              kind: "refund",
              provider: "stripe",
              method: null,
              amount: 500,
              status: "pending",
            }),
            entry({ attendeeId: bob.id, kind: "refund", amount: 700, status: "failed" }),
          ]),
        );
        await run((tx) => tx.payments.insertMany([]));
        assert.deepEqual(
          (await run((tx) => tx.payments.sumsOfEvent(event.id))).toSorted((a, b) =>
            `${a.attendeeId}${a.provider}`.localeCompare(`${b.attendeeId}${b.provider}`),
          ),
          [
            { attendeeId: ada.id, provider: "manual", paid: 5000, refunded: 1500 },
            { attendeeId: bob.id, provider: "manual", paid: 3000, refunded: 0 },
            { attendeeId: bob.id, provider: "stripe", paid: 2000, refunded: 500 },
          ].toSorted((a, b) => `${a.attendeeId}${a.provider}`.localeCompare(`${b.attendeeId}${b.provider}`)),
        );
        assert.deepEqual(await run((tx) => tx.payments.sumsOfEvent(createId("event"))), []);
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
              checkoutSessionId: "cs_contract_1",
            },
          }),
        );
        assert.equal((await storage.getAttendee(acme, ada.id))?.payment?.checkoutSessionId, "cs_contract_1");
        // What one PaymentIntent brought: its payments only, not its refunds nor another intent's money.
        await run((tx) =>
          tx.payments.insert(entry({ provider: "stripe", amount: 3000, providerReference: "pi_contract_1" })),
        );
        await run((tx) =>
          tx.payments.insert(entry({ provider: "stripe", amount: 700, providerReference: "pi_contract_2" })),
        );
        await run((tx) =>
          tx.payments.insert(
            entry({ provider: "stripe", kind: "refund", amount: 3000, providerReference: "pi_contract_1" }),
          ),
        );
        assert.deepEqual(
          await run(async (tx) => [
            await tx.payments.receivedOn(ada.id, "pi_contract_1"),
            await tx.payments.receivedOn(ada.id, "pi_contract_2"),
            await tx.payments.receivedOn(ada.id, "pi_none"),
          ]),
          [3000, 700, 0],
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

    describe("activities and their figures", () => {
      const fuel = (eventId: string, overrides: Partial<PricedActivity> = {}): PricedActivity =>
        fuelRecord(acme, eventId, late(1), { note: "Generator", ...overrides });

      test("insert, get, update, delete; null or false for another account's, event's or none", async () => {
        const event = await newLateEvent();
        const other = await newLateEvent();
        const record = fuel(event.id);
        await run((tx) => tx.activities.insert(record));
        assert.deepEqual(await run((tx) => tx.activities.get(acme, event.id, record.id)), record);
        assert.equal(await run((tx) => tx.activities.get(globex, event.id, record.id)), null);
        assert.equal(await run((tx) => tx.activities.get(acme, other.id, record.id)), null);
        await assert.rejects(run((tx) => tx.activities.insert(record)));
        await assert.rejects(run((tx) => tx.activities.insert(fuel(createId("event")))));
        const changed = { ...record, quantity: 40, emissionsKg: 100, note: null, updatedAt: late(2) };
        await run((tx) => tx.activities.update({ ...changed, createdAt: late(9) }));
        assert.deepEqual(await run((tx) => tx.activities.get(acme, event.id, record.id)), changed);
        assert.equal(await run((tx) => tx.activities.delete(globex, event.id, record.id)), false);
        assert.equal(await run((tx) => tx.activities.delete(acme, other.id, record.id)), false);
        assert.equal(await run((tx) => tx.activities.delete(acme, event.id, record.id)), true);
        assert.equal(await run((tx) => tx.activities.delete(acme, event.id, record.id)), false);
        assert.equal(await run((tx) => tx.activities.get(acme, event.id, record.id)), null);
      });

      test("figures.recountActivities sums the event's records onto it; readActivities reads them; a missing event's read throws", async () => {
        const event = await newLateEvent();
        const other = await newLateEvent();
        assert.deepEqual(await run((tx) => tx.figures.readActivities(event.id)), NO_ACTIVITY_FIGURES);
        const waste = (stream: PricedActivity["stream"], quantity: number, emissionsKg: number | null) =>
          fuel(event.id, { kind: "waste", unit: "kg", fuel: null, stream, quantity, emissionsKg });
        await run(async (tx) => {
          await tx.activities.insert(fuel(event.id));
          await tx.activities.insert(fuel(event.id, { dataQuality: "estimated", emissionsKg: 50, quantity: 20 }));
          await tx.activities.insert(
            fuel(event.id, { kind: "electricity", unit: "kWh", fuel: null, source: "grid", quantity: 800 }),
          );
          await tx.activities.insert(
            fuel(event.id, {
              kind: "electricity",
              unit: "kWh",
              fuel: null,
              source: "renewable_tariff",
              quantity: 200,
              emissionsKg: 0,
            }),
          );
          await tx.activities.insert(waste("landfill", 30, 10));
          await tx.activities.insert(waste("recycling", 60, 2));
          await tx.activities.insert(waste("composting", 10, null));
          await tx.activities.insert(fuel(other.id, { quantity: 7, emissionsKg: 17.5 }));
        });
        const expected = {
          emissionsKg: 250 + 50 + 250 + 0 + 10 + 2,
          measuredEmissionsKg: 250 + 250 + 0 + 10 + 2,
          electricityKwh: 1000,
          renewableKwh: 200,
          wasteKg: 100,
          divertedKg: 70,
          recyclingKg: 60,
        };
        assert.deepEqual(await run((tx) => tx.figures.readActivities(event.id)), NO_ACTIVITY_FIGURES);
        assert.deepEqual(await run((tx) => tx.figures.recountActivities(event.id)), expected);
        assert.deepEqual(await run((tx) => tx.figures.readActivities(event.id)), expected);
        assert.deepEqual(await run((tx) => tx.figures.readActivities(other.id)), NO_ACTIVITY_FIGURES);
        assert.deepEqual(await run((tx) => tx.figures.recountActivities(createId("event"))), NO_ACTIVITY_FIGURES);
        await assert.rejects(run((tx) => tx.figures.readActivities(createId("event"))));
      });

      test("figures.reprice prices the event again by a set (travel from its registrations, its records) and records the set's year; other events keep theirs", async () => {
        const set = EmissionFactorSet.parse({
          name: "Synthetic set",
          year: 2040,
          source: "The storage contract",
          factors: [
            { mode: "car", factor: 1 },
            { mode: "flight", factor: 2, maxDistanceKm: 1000 },
            { mode: "flight", factor: 3 },
            { mode: "train", factor: 0.5 },
            { mode: "bus", factor: 0.25 },
            { mode: "bike", factor: 0 },
            { mode: "walk", factor: 0 },
          ],
          activities: [{ kind: "fuel", fuel: "diesel", unit: "litres", factor: 10, name: "Synthetic diesel" }],
        });
        const event = await newLateEvent();
        const other = await newLateEvent();
        const trip = (eventId: string, travelMode: "car" | "flight", travelDistance: number) =>
          attendeeAt(acme, eventId, late(1), { carbonOffset: { opted: false, travelMode, travelDistance } });
        const record = fuel(event.id);
        const kept = fuel(other.id);
        await run(async (tx) => {
          await tx.attendees.insert(trip(event.id, "car", 10));
          await tx.attendees.insert(trip(event.id, "flight", 2000));
          await tx.attendees.insert(trip(other.id, "car", 100));
          await tx.activities.insert(record);
          await tx.activities.insert(kept);
        });
        await run((tx) => tx.figures.reprice(event.id, set));
        // 10 x 1 + 2000 x 3 (the flight's second band); 100 litres x 10.
        assert.equal((await run((tx) => tx.figures.read(event.id))).emissionsKg, 6010);
        assert.equal((await run((tx) => tx.figures.readActivities(event.id))).emissionsKg, 1000);
        const repriced = await run((tx) => tx.activities.get(acme, event.id, record.id));
        assert.equal(repriced?.emissionsKg, 1000);
        assert.deepEqual(
          [repriced?.factor?.name, repriced?.factor?.value, repriced?.factor?.year],
          ["Synthetic diesel", 10, 2040],
        );
        const figures = await run((tx) => tx.figures.eventAnalytics(acme, event.id));
        assert.equal(figures?.factorYear, 2040);
        assert.deepEqual(figures?.byMode.map((m) => [m.mode, m.registrations, m.emissionsKg]).sort(), [
          ["car", 1, 10],
          ["flight", 1, 6000],
        ]);
        assert.deepEqual(figures?.travelBands.map((b) => [b.mode, b.band]).sort(), [
          ["car", 0],
          ["flight", 1],
        ]);
        // The other event keeps its figures and its set.
        assert.equal((await run((tx) => tx.figures.read(other.id))).emissionsKg, 0);
        assert.deepEqual(await run((tx) => tx.activities.get(acme, other.id, kept.id)), kept);
        assert.equal(
          (await run((tx) => tx.figures.eventAnalytics(acme, other.id)))?.factorYear,
          startYear(other.startDate),
        );
      });

      test("figures.eventAnalytics reads the report's figures of the account's event in the transaction; null for another's", async () => {
        const event = await newLateEvent();
        const ada = await newAttendee(event.id, { company: "Acme Labs" });
        await newAttendee(event.id, { status: "cancelled", cancelledAt: late(3) });
        // The report reads the tallies kept on the event, as written (the storage counts nothing itself).
        const tally = (facet: Tally["facet"], value: string): Tally => ({
          facet,
          value,
          registrations: 1,
          registeredDays: 24_000,
        });
        await run(async (tx) => {
          await tx.tallies.adjust(
            event.id,
            [tally("status", "confirmed"), tally("status", "cancelled"), tally("ticket", "general")],
            [],
          );
          await tx.activities.insert(fuel(event.id));
          await tx.figures.recountActivities(event.id);
        });
        const figures = await run((tx) => tx.figures.eventAnalytics(acme, event.id));
        assert.equal(figures?.event.id, event.id);
        assert.deepEqual(figures?.statuses, { confirmed: 1, pending: 0, cancelled: 1, "checked-in": 0, waitlisted: 0 });
        assert.deepEqual(figures?.ticketTypes, [{ value: "general", count: 1 }]);
        assert.equal(figures?.registrationWindow?.first, ada.registrationDate);
        assert.equal(figures?.activities.emissionsKg, 250);
        assert.deepEqual(figures?.confirmedVendors, []);
        assert.equal(await run((tx) => tx.figures.eventAnalytics(globex, event.id)), null);
        assert.equal(await run((tx) => tx.figures.eventAnalytics(acme, createId("event"))), null);
      });
    });

    describe("deliveries", () => {
      const attempt = (number: number, statusCode: number, excerpt: string | null): DeliveryAttempt => ({
        number,
        startedAt: late(20 + number),
        durationMs: 12,
        statusCode,
        error: null,
        responseExcerpt: excerpt,
        succeeded: statusCode < 300,
      });
      const pingOf = (webhookId: string): NewDelivery => ({
        webhookId,
        envelope: {
          id: createId("delivery"),
          type: "webhook.ping",
          createdAt: late(10),
          data: { webhookId },
          account: { id: acme, name: "Acme" },
        },
      });

      test("insertHeld stores a pending delivery leased to its holder and returns its payload; get; recordAttempt only by the holder", async () => {
        const hook = webhookRecord(acme);
        await storage.insertWebhook(hook);
        const ping = pingOf(hook.id);
        const hold = { workerId: "worker-a", leaseUntil: late(600), finalAttempt: 1, countsFailures: false };
        const payload = await run((tx) => tx.deliveries.insertHeld(ping, hold));
        assert.deepEqual(JSON.parse(payload), ping.envelope);
        const stored = await run((tx) => tx.deliveries.get(acme, hook.id, ping.envelope.id));
        assert.deepEqual(
          { ...stored, payload: null },
          {
            id: ping.envelope.id,
            accountId: acme,
            webhookId: hook.id,
            type: "webhook.ping",
            status: "pending",
            attemptCount: 0,
            nextAttemptAt: late(10),
            createdAt: late(10),
            updatedAt: late(10),
            payload: null,
            attempts: [],
          },
        );
        assert.deepEqual(stored?.payload, ping.envelope);
        assert.equal(await run((tx) => tx.deliveries.get(globex, hook.id, ping.envelope.id)), null);
        assert.equal(await run((tx) => tx.deliveries.get(acme, createId("webhook"), ping.envelope.id)), null);
        // Held: no claim hands it out before its lease ends.
        const claimed = await storage.claimDueDeliveries({
          workerId: "worker-b",
          now: late(30),
          leaseUntil: late(90),
          limit: 1000,
        });
        assert.equal(
          claimed.some((delivery) => delivery.id === ping.envelope.id),
          false,
        );
        const write = (workerId: string, number: number) => ({
          deliveryId: ping.envelope.id,
          workerId,
          attempt: attempt(number, 502, "bad gateway"),
          status: "failed" as const,
          nextAttemptAt: null,
          now: late(40),
        });
        assert.equal(await run((tx) => tx.deliveries.recordAttempt(write("worker-b", 1))), null);
        assert.equal(await run((tx) => tx.deliveries.recordAttempt(write("worker-a", 2))), null);
        assert.deepEqual(await run((tx) => tx.deliveries.recordAttempt(write("worker-a", 1))), {
          webhookId: hook.id,
          countsFailures: false,
        });
        // Recorded once: the lease is released and the attempt number taken.
        assert.equal(await run((tx) => tx.deliveries.recordAttempt(write("worker-a", 1))), null);
        const done = await run((tx) => tx.deliveries.get(acme, hook.id, ping.envelope.id));
        assert.equal(done?.status, "failed");
        assert.equal(done?.attemptCount, 1);
        assert.equal(done?.nextAttemptAt, null);
        assert.equal(done?.updatedAt, late(40));
        assert.deepEqual(done?.attempts, [attempt(1, 502, "bad gateway")]);
        assert.equal(
          await run((tx) => tx.deliveries.recordAttempt({ ...write("worker-a", 1), deliveryId: createId("delivery") })),
          null,
        );
      });

      test("lock reads a delivery's state; requeue makes it due again unless a worker holds it", async () => {
        const hook = webhookRecord(acme);
        await storage.insertWebhook(hook);
        const ping = pingOf(hook.id);
        await run((tx) =>
          tx.deliveries.insertHeld(ping, {
            workerId: "worker-a",
            leaseUntil: late(600),
            finalAttempt: 1,
            countsFailures: true,
          }),
        );
        const id = ping.envelope.id;
        assert.deepEqual(await run((tx) => tx.deliveries.lock(acme, hook.id, id)), {
          status: "pending",
          attemptCount: 0,
          finalAttempt: 1,
        });
        assert.equal(await run((tx) => tx.deliveries.lock(globex, hook.id, id)), null);
        assert.equal(await run((tx) => tx.deliveries.lock(acme, hook.id, createId("delivery"))), null);
        const again = { status: "pending" as const, finalAttempt: 3, now: late(50) };
        assert.equal(await run((tx) => tx.deliveries.requeue(id, again)), false);
        assert.deepEqual(
          await run((tx) =>
            tx.deliveries.recordAttempt({
              deliveryId: id,
              workerId: "worker-a",
              attempt: attempt(1, 200, "ok"),
              status: "succeeded",
              nextAttemptAt: null,
              now: late(45),
            }),
          ),
          { webhookId: hook.id, countsFailures: true },
        );
        assert.deepEqual(await run((tx) => tx.deliveries.lock(acme, hook.id, id)), {
          status: "succeeded",
          attemptCount: 1,
          finalAttempt: 1,
        });
        assert.equal(await run((tx) => tx.deliveries.requeue(id, again)), true);
        assert.deepEqual(await run((tx) => tx.deliveries.lock(acme, hook.id, id)), {
          status: "pending",
          attemptCount: 1,
          finalAttempt: 3,
        });
        const due = await run((tx) => tx.deliveries.get(acme, hook.id, id));
        assert.equal(due?.nextAttemptAt, late(50));
        assert.equal(due?.updatedAt, late(50));
        assert.equal(await run((tx) => tx.deliveries.requeue(createId("delivery"), again)), false);
      });
    });

    describe("erasure", () => {
      test("redactPayloads rewrites the account's payloads naming the registration and clears their excerpts", async () => {
        const event = await newLateEvent();
        const ada = await newAttendee(event.id, { firstName: "Ada" });
        const bob = await newAttendee(event.id, { firstName: "Bob" });
        const hook = webhookRecord(acme);
        await storage.insertWebhook(hook);
        const envelopeOf = (attendee: AttendeeRecord): Envelope => ({
          id: createId("delivery"),
          type: "attendee.registered",
          createdAt: late(10),
          data: { attendee: { id: attendee.id, eventId: event.id, firstName: attendee.firstName } },
          account: { id: acme, name: "Acme" },
        });
        const ofAda = envelopeOf(ada);
        const ofBob = envelopeOf(bob);
        const hold = { workerId: "worker-e", leaseUntil: late(600), finalAttempt: 1, countsFailures: false };
        await run((tx) => tx.deliveries.insertHeld({ webhookId: hook.id, envelope: ofAda }, hold));
        await run((tx) => tx.deliveries.insertHeld({ webhookId: hook.id, envelope: ofBob }, hold));
        await run((tx) =>
          tx.deliveries.recordAttempt({
            deliveryId: ofAda.id,
            workerId: "worker-e",
            attempt: { ...attemptAt(late(11)), responseExcerpt: "echo Ada" },
            status: "succeeded",
            nextAttemptAt: null,
            now: late(12),
          }),
        );
        const subject = { attendeeId: ada.id, eventId: event.id };
        const redact = (envelope: Envelope) => redactEnvelope(envelope, subject, late(60));
        assert.equal(await run((tx) => tx.erasure.redactPayloads(globex, subject, redact, late(60))), 0);
        assert.equal(await run((tx) => tx.erasure.redactPayloads(acme, subject, redact, late(60))), 1);
        const redacted = await storage.getDelivery(acme, hook.id, ofAda.id);
        assert.deepEqual(redacted?.payload, {
          ...ofAda,
          data: { attendee: { id: ada.id, eventId: event.id } },
          erasedAt: late(60),
        });
        assert.equal(redacted?.attempts[0]?.responseExcerpt, null);
        assert.equal(redacted?.status, "succeeded");
        assert.deepEqual((await storage.getDelivery(acme, hook.id, ofBob.id))?.payload, ofBob);
        // Redacted once: a second erasure finds nothing more to rewrite.
        assert.equal(await run((tx) => tx.erasure.redactPayloads(acme, subject, redact, late(61))), 0);
      });

      test("replaceAnswers replaces the stored answers naming one of the registrations", async () => {
        const ada = createId("attendee");
        const bob = createId("attendee");
        const eventId = createId("event");
        const claim = (key: string) =>
          storage.claimIdempotencyKey({
            accountId: acme,
            key,
            requestHash: "h1",
            now: late(1),
            expiresAt: late(86_400),
            staleBefore: late(0),
          });
        const answers: Record<string, string> = {
          [`erase-a-${ada}`]: JSON.stringify({ id: ada, eventId }),
          [`erase-b-${bob}`]: JSON.stringify({ id: bob, eventId }),
          [`erase-c-${ada}`]: JSON.stringify({ error: { details: { attendeeId: ada }, eventId } }),
        };
        for (const [key, body] of Object.entries(answers)) {
          assert.equal(await claim(key), null);
          await storage.completeIdempotencyKey(acme, key, { status: 201, body });
        }
        const erasure = { now: late(70), replay: ERASED_ANSWER };
        assert.equal(await run((tx) => tx.erasure.replaceAnswers(globex, eventId, new Set([ada]), erasure)), 0);
        assert.equal(await run((tx) => tx.erasure.replaceAnswers(acme, eventId, new Set([ada]), erasure)), 2);
        assert.equal(await run((tx) => tx.erasure.replaceAnswers(acme, eventId, new Set([ada]), erasure)), 0);
        assert.deepEqual((await claim(`erase-a-${ada}`))?.response, ERASED_ANSWER);
        assert.deepEqual((await claim(`erase-c-${ada}`))?.response, ERASED_ANSWER);
        assert.deepEqual((await claim(`erase-b-${bob}`))?.response, { status: 201, body: answers[`erase-b-${bob}`] });
      });
    });

    describeStorageReads(backend, () => storage, record);

    test("every operation of a transaction is run by a test", async () => {
      const untested = (await operationsOf(database.storage)).filter((operation) => !called.has(operation));
      assert.deepEqual(untested, [], "operations of a transaction that no test here runs");
    });

    test("every method of Storage is called by a test", () => {
      const methods = storageMethods(database.storage);
      assert.ok(methods.length >= 40 && methods.includes("transaction"), `found the methods: ${methods.join(", ")}`);
      assert.deepEqual(
        methods.filter((method) => !calledMethods.has(method)),
        [],
        "methods of Storage that no test here calls",
      );
    });
  });
}
