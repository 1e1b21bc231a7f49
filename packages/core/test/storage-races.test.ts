/**
 * The storage's writes under real concurrency: several storages ("processes", each with its own
 * connections) on one database race for the same rows. On PostgreSQL their transactions truly run
 * in parallel (READ COMMITTED), so these prove the locks, the insert-or-nothing claims and the
 * unique-violation backstops; on SQLite they run too (serialised by its single writer).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type Kysely, sql } from "kysely";
import { createConfirmationCode, createId } from "../src/_internal/ids.ts";
import { DEFAULT_CARBON_SETTINGS } from "../src/carbon/carbon-settings.ts";
import { ServiceError } from "../src/errors.ts";
import { type AttendeeCreate, type AttendeeRecord, newAttendeeRecord } from "../src/resources/attendee.ts";
import { type EventCreate, newEventRecord } from "../src/resources/event.ts";
import type { WebhookRecord } from "../src/resources/webhook.ts";
import type { Database } from "../src/sql/database.ts";
import { dialectOf, POSTGRES } from "../src/sql/dialect.ts";
import { attendeeToRow, webhookToRow } from "../src/sql/rows.ts";
import { linkHashOf, newLinkToken } from "../src/resources/link-token.ts";
import { BACKENDS, type TestDatabase } from "./_backends.ts";
import { changeWebhook } from "./_webhook-helpers.ts";
import {
  deleteEvent,
  eraseAttendee,
  insertEvent,
  insertWebhook,
  registerAttendee,
  updateAttendee,
} from "./_transactions.ts";
import type { Storage } from "../src/storage.ts";

let clock = Date.parse("2026-03-01T00:00:00.000Z");
const tick = () => new Date((clock += 1000)).toISOString();

/** The codes of settled results: "ok" for a fulfilled one, the ServiceError code (or the error) for a rejected one. */
function outcomes(results: PromiseSettledResult<unknown>[]): string[] {
  return results.map((result) => {
    if (result.status === "fulfilled") return "ok";
    const error = result.reason;
    return ServiceError.is(error)
      ? error.code
      : `unexpected: ${error instanceof Error ? `${error.message} ${(error as { code?: string }).code ?? ""}` : String(error)}`;
  });
}

const count = (list: string[], value: string) => list.filter((item) => item === value).length;

for (const backend of BACKENDS) {
  describe(`storage races: ${backend.name}`, () => {
    /** The database, its storage with the business transactions of `service/` over it. */
    let database: Omit<TestDatabase, "storage"> & { storage: Storage };
    /** The storages racing: the first and three "other processes" (one storage on SQLite in memory). */
    let storages: Storage[];
    const pick = (i: number) => storages[i % storages.length]!;

    before(async () => {
      const opened = await backend.open();
      database = { ...opened, storage: opened.storage };
      const others = await Promise.all([opened.another(), opened.another(), opened.another()]);
      storages = [database.storage, ...others.map((other) => (other === opened.storage ? database.storage : other))];
    });
    after(() => database.drop());

    async function newAccount(name: string): Promise<string> {
      const info = await database.storage.createApiKey({
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

    async function newEvent(accountId: string, overrides: Partial<EventCreate> = {}) {
      const event = newEventRecord(
        {
          name: "Race Summit",
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
      await insertEvent(database.storage, { ...event, status: "published" });
      return event;
    }

    const attendee = (accountId: string, eventId: string, overrides: Partial<AttendeeCreate> = {}): AttendeeRecord =>
      newAttendeeRecord(
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

    test("the same Idempotency-Key claimed from every process at once: one claim wins", async () => {
      const account = await newAccount("Idempotency race");
      const claim = {
        accountId: account,
        key: "same-key",
        requestHash: "h1",
        now: "2026-03-01T00:00:00.000Z",
        expiresAt: "2026-03-02T00:00:00.000Z",
        staleBefore: "2026-02-28T23:59:00.000Z",
      };
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) => pick(i).claimIdempotencyKey({ ...claim, requestHash: `h${i}` })),
      );
      assert.equal(results.filter((result) => result === null).length, 1);
      const winners = new Set(results.filter((result) => result !== null).map((result) => result!.requestHash));
      assert.equal(winners.size, 1, "every loser sees the one winning claim");

      // An expired record taken over from every process at once: again exactly one new claim.
      const later = {
        ...claim,
        now: "2026-03-03T00:00:00.000Z",
        expiresAt: "2026-03-04T00:00:00.000Z",
        staleBefore: "2026-03-02T23:59:00.000Z",
      };
      const takeovers = await Promise.all(
        Array.from({ length: 12 }, (_, i) => pick(i).claimIdempotencyKey({ ...later, requestHash: `t${i}` })),
      );
      assert.equal(takeovers.filter((result) => result === null).length, 1);
      const holder = takeovers.find((result) => result !== null)!;
      assert.equal(holder.createdAt, later.now);
      assert.match(holder.requestHash, /^t\d+$/);
    });

    test("keys for the same new account name from every process at once: one account", async () => {
      const name = `Same name ${createId("event")}`;
      const infos = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          pick(i).createApiKey({
            id: createId("apiKey"),
            account: name,
            newAccountId: createId("account"),
            hash: createId("apiKey"),
            prefix: "esk_x…",
            tier: "free",
            scopes: ["events:read"],
            now: tick(),
          }),
        ),
      );
      assert.equal(new Set(infos.map((info) => info.accountId)).size, 1);
      const { n } = await database.db
        .selectFrom("accounts")
        .select(sql<number>`count(*)`.as("n"))
        .where("name", "=", name)
        .executeTakeFirstOrThrow();
      assert.equal(Number(n), 1);
      assert.equal((await database.storage.listApiKeys(name)).length, 10);
    });

    test("the same webhook URL from every process at once: one webhook, the rest DUPLICATE_WEBHOOK", async () => {
      const account = await newAccount("Webhook race");
      const results = outcomes(
        await Promise.allSettled(
          Array.from({ length: 10 }, (_, i) => insertWebhook(pick(i), webhook(account, "https://93.184.216.34/same"))),
        ),
      );
      assert.deepEqual([count(results, "ok"), count(results, "DUPLICATE_WEBHOOK")], [1, 9], results.join(", "));

      // Updates of two webhooks to one URL, with an insert of it, at once: one of the three gets it.
      const [a, b] = [webhook(account, "https://93.184.216.34/a"), webhook(account, "https://93.184.216.34/b")];
      await insertWebhook(database.storage, a);
      await insertWebhook(database.storage, b);
      const target = "https://93.184.216.34/target";
      const moves = outcomes(
        await Promise.allSettled([
          changeWebhook(pick(1), account, a.id, (w) => ({ ...w, url: target })),
          changeWebhook(pick(2), account, b.id, (w) => ({ ...w, url: target })),
          insertWebhook(pick(3), webhook(account, target)),
        ]),
      );
      assert.deepEqual([count(moves, "ok"), count(moves, "DUPLICATE_WEBHOOK")], [1, 2], moves.join(", "));
    });

    test("the webhook cap holds with inserts from every process at once", async () => {
      const account = await newAccount("Webhook cap race");
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          insertWebhook(pick(i), webhook(account, `https://93.184.216.34/cap${i}`), 4),
        ),
      );
      assert.equal(results.filter(Boolean).length, 4);
      const { n } = await database.db
        .selectFrom("webhooks")
        .select(sql<number>`count(*)`.as("n"))
        .where("account_id", "=", account)
        .executeTakeFirstOrThrow();
      assert.equal(Number(n), 4);
    });

    test("registrations racing for the last places, and reactivations racing for one: never over capacity", async () => {
      const account = await newAccount("Capacity race");
      const event = await newEvent(account, { capacity: 5 });
      const results = outcomes(
        await Promise.allSettled(
          Array.from({ length: 16 }, (_, i) => registerAttendee(pick(i), attendee(account, event.id))),
        ),
      );
      assert.deepEqual([count(results, "ok"), count(results, "EVENT_FULL")], [5, 11], results.join(", "));
      const stats = await database.storage.getEvent(account, event.id, DEFAULT_CARBON_SETTINGS);
      assert.equal(stats!.attendeeCount, 5);

      // One registration cancelled, two cancelled ones reactivated at once: one place, one wins.
      const list = await database.db.selectFrom("attendees").select("id").where("event_id", "=", event.id).execute();
      const [first, second] = list.map((row) => row.id);
      await updateAttendee(database.storage, account, first!, { status: "cancelled" }, tick());
      await updateAttendee(database.storage, account, second!, { status: "cancelled" }, tick());
      await registerAttendee(pick(1), attendee(account, event.id));
      const reactivations = outcomes(
        await Promise.allSettled([
          updateAttendee(pick(2), account, first!, { status: "confirmed" }, tick()),
          updateAttendee(pick(3), account, second!, { status: "confirmed" }, tick()),
        ]),
      );
      assert.deepEqual(reactivations.sort(), ["EVENT_FULL", "ok"]);
      assert.equal((await database.storage.getEvent(account, event.id, DEFAULT_CARBON_SETTINGS))!.attendeeCount, 5);
    });

    test("updates of one registration from every process at once: none is lost", async () => {
      const account = await newAccount("Lost update race");
      const event = await newEvent(account);
      const registered = await registerAttendee(database.storage, attendee(account, event.id));
      // Each update changes a different field: read before the lock, one would overwrite the others with what it read.
      await Promise.all([
        updateAttendee(pick(0), account, registered.id, { company: "Analytical Engines" }, tick()),
        updateAttendee(pick(1), account, registered.id, { title: "Countess" }, tick()),
        updateAttendee(pick(2), account, registered.id, { phone: "+44 20 7946 0000" }, tick()),
        updateAttendee(pick(3), account, registered.id, { firstName: "Augusta Ada" }, tick()),
      ]);
      const stored = await database.storage.getAttendee(account, registered.id);
      assert.deepEqual(
        [stored!.company, stored!.title, stored!.phone, stored!.firstName],
        ["Analytical Engines", "Countess", "+44 20 7946 0000", "Augusta Ada"],
      );
    });

    test("two workers claiming deliveries at once: each delivery goes to one of them", async () => {
      const account = await newAccount("Claim race");
      await insertWebhook(database.storage, webhook(account, "https://93.184.216.34/claims-1"));
      await insertWebhook(database.storage, webhook(account, "https://93.184.216.34/claims-2"));
      const event = await newEvent(account, { capacity: 100 });
      for (let i = 0; i < 12; i++) await registerAttendee(database.storage, attendee(account, event.id));
      const { n } = await database.db
        .selectFrom("webhook_deliveries")
        .select(sql<number>`count(*)`.as("n"))
        .where("account_id", "=", account)
        .where("status", "=", "pending")
        .executeTakeFirstOrThrow();
      const pending = Number(n);
      assert.ok(pending >= 24, `${pending} deliveries`);
      const claimed: string[][] = [[], []];
      const now = "2100-01-01T00:00:00.000Z";
      const worker = async (index: number) => {
        for (;;) {
          const batch = await pick(index + 1).claimDueDeliveries({
            workerId: `w${index}`,
            now,
            leaseUntil: "2100-01-01T00:01:00.000Z",
            limit: 5,
          });
          if (batch.length === 0) return;
          claimed[index]!.push(...batch.map((delivery) => delivery.id));
        }
      };
      await Promise.all([worker(0), worker(1)]);
      const all = [...claimed[0]!, ...claimed[1]!];
      assert.equal(new Set(all).size, all.length, "no delivery claimed twice");
      assert.equal(all.length, pending);
      if (backend.parallel)
        assert.ok(
          claimed[0]!.length > 0 && claimed[1]!.length > 0,
          `both workers claimed: ${claimed[0]!.length} and ${claimed[1]!.length}`,
        );
    });

    test("erasures and updates of one registration at once: erased once, no update resurrects it", async () => {
      const account = await newAccount("Erase race");
      const event = await newEvent(account);
      const registered = await registerAttendee(database.storage, attendee(account, event.id));
      const results = await Promise.allSettled([
        eraseAttendee(pick(0), account, registered.id, { now: tick(), replay: { status: 404, body: "{}" } }),
        updateAttendee(pick(1), account, registered.id, { company: "Late Inc" }, tick()),
        eraseAttendee(pick(2), account, registered.id, { now: tick(), replay: { status: 404, body: "{}" } }),
        updateAttendee(pick(3), account, registered.id, { status: "cancelled" }, tick()),
      ]);
      const erasures = [results[0]!, results[2]!].map((result) =>
        result.status === "fulfilled" ? result.value !== null : "rejected",
      );
      assert.deepEqual(erasures.sort(), [false, true]);
      for (const update of [results[1]!, results[3]!]) {
        if (update.status === "rejected")
          assert.equal(ServiceError.is(update.reason) && update.reason.code, "NOT_FOUND");
      }
      assert.equal(await database.storage.getAttendee(account, registered.id), null);
      assert.equal((await database.storage.getEvent(account, event.id, DEFAULT_CARBON_SETTINGS))!.attendeeCount, 0);
    });

    test("ticket links added from every process while the registration is erased: none outlives it", async () => {
      const account = await newAccount("Link race");
      const event = await newEvent(account);
      for (let round = 0; round < 3; round++) {
        const registered = await registerAttendee(database.storage, attendee(account, event.id));
        const links = Array.from({ length: 6 }, () => ({
          id: createId("ticketLink"),
          accountId: account,
          attendeeId: registered.id,
          linkHash: linkHashOf(newLinkToken("ticket")),
          createdAt: tick(),
        }));
        const results = await Promise.allSettled([
          ...links.slice(0, 3).map((link, i) => pick(i + 1).addTicketLink(link)),
          eraseAttendee(pick(0), account, registered.id, { now: tick(), replay: { status: 404, body: "{}" } }),
          ...links.slice(3).map((link, i) => pick(i + 1).addTicketLink(link)),
        ]);
        assert.deepEqual(
          outcomes(results).filter((outcome) => outcome !== "ok"),
          [],
        );
        const rows = await database.db
          .selectFrom("ticket_links")
          .select("id")
          .where("attendee_id", "=", registered.id)
          .execute();
        assert.deepEqual(rows, [], "no link of an erased registration is left");
        for (const link of links) assert.equal(await database.storage.findTicketLink(link.linkHash), null);
      }
    });

    test("check-in links added from every process while their event is deleted: none outlives it", async () => {
      const account = await newAccount("Door race");
      for (let round = 0; round < 3; round++) {
        const event = await newEvent(account);
        const links = Array.from({ length: 6 }, () => ({
          id: createId("checkInLink"),
          accountId: account,
          eventId: event.id,
          linkHash: linkHashOf(newLinkToken("door")),
          label: null,
          expiresAt: null,
          createdAt: tick(),
        }));
        const results = await Promise.allSettled([
          ...links.slice(0, 3).map((link, i) => pick(i + 1).addCheckInLink(link)),
          deleteEvent(pick(0), account, event.id),
          ...links.slice(3).map((link, i) => pick(i + 1).addCheckInLink(link)),
        ]);
        assert.deepEqual(
          outcomes(results).filter((outcome) => outcome !== "ok"),
          [],
        );
        const rows = await database.db
          .selectFrom("check_in_links")
          .select("id")
          .where("event_id", "=", event.id)
          .execute();
        assert.deepEqual(rows, [], "no link of a deleted event is left");
        for (const link of links) assert.equal(await database.storage.findCheckInLink(link.linkHash, tick()), null);
      }
    });

    if (backend.name === "postgres") {
      test("a unique violation left by a concurrent writer is the documented code, never a 500", async () => {
        const account = await newAccount("Backstop");
        const event = await newEvent(account);
        const email = "twice@example.com";
        // Another writer that takes none of the storage's locks inserts the row first and commits
        // while the storage's own insert waits on the unique index.
        const cases = [
          {
            row: (conn: Kysely<Database>) =>
              conn
                .insertInto("webhooks")
                .values(webhookToRow(webhook(account, "https://93.184.216.34/backstop")))
                .execute(),
            call: () => insertWebhook(pick(1), webhook(account, "https://93.184.216.34/backstop")),
            code: "DUPLICATE_WEBHOOK",
          },
          {
            row: (conn: Kysely<Database>) =>
              conn
                .insertInto("attendees")
                .values(attendeeToRow(attendee(account, event.id, { email })))
                .execute(),
            call: () => registerAttendee(pick(1), attendee(account, event.id, { email })),
            code: "DUPLICATE_REGISTRATION",
          },
        ];
        for (const { row, call, code } of cases) {
          let release!: () => void;
          const held = new Promise<void>((resolve) => (release = resolve));
          let inserted!: () => void;
          const ready = new Promise<void>((resolve) => (inserted = resolve));
          const writer = database.db.transaction().execute(async (trx) => {
            await row(trx);
            inserted();
            await held;
          });
          void writer;
          await ready;
          // Watched from the start: it may reject as soon as the writer commits, before `writer` resolves here.
          const attempt = assert.rejects(call(), (error: unknown) => ServiceError.is(error) && error.code === code);
          // Give the storage's insert time to reach the index and wait there.
          await new Promise((resolve) => setTimeout(resolve, 300));
          release();
          await writer;
          await attempt;
        }
      });

      test("a deadlock between two write transactions is run again, and both commit", async () => {
        const account = await newAccount("Deadlock");
        const [e1, e2] = [await newEvent(account), await newEvent(account)];
        const db = database.db;
        let arrived = 0;
        let open!: () => void;
        const barrier = new Promise<void>((resolve) => (open = resolve));
        const runs = [0, 0];
        // Each transaction's end: the one run again waits for the other's before taking a lock,
        // so a busy machine cannot make the two deadlock a second time (which is not the case tested).
        const ended = [0, 1].map(() => {
          let resolve!: () => void;
          const promise = new Promise<void>((done) => (resolve = done));
          return { promise, resolve };
        });
        const lockBoth = (index: number, first: string, second: string) =>
          POSTGRES.writeTransaction(db, async (trx) => {
            runs[index]! += 1;
            if (runs[index]! > 1) await ended[1 - index]!.promise;
            const lock = (id: string) =>
              POSTGRES.lockRows(trx.selectFrom("events").select("id").where("id", "=", id)).execute();
            await lock(first);
            if (runs[index] === 1) {
              // Both hold their first lock before either asks for its second: a real deadlock.
              arrived += 1;
              if (arrived === 2) open();
              await barrier;
            }
            await lock(second);
            await trx.updateTable("events").set({ updated_at: tick() }).where("id", "in", [first, second]).execute();
            return index;
          }).finally(() => ended[index]!.resolve());
        assert.deepEqual(await Promise.all([lockBoth(0, e1.id, e2.id), lockBoth(1, e2.id, e1.id)]), [0, 1]);
        assert.equal(runs[0]! + runs[1]!, 3, `one of them ran again: ${runs}`);
        assert.equal(dialectOf(db).name, "postgres");
      });
    }
  });
}
