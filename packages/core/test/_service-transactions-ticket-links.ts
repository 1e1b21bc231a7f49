/**
 * The service's transactions on attendees' ticket links over a real storage (part of
 * `describeServiceTransactions`): the first link written with its registration, another added
 * beside it, a new link replacing them all under the event's lock, a change refused by its guard
 * writing nothing, and an erasure taking every link with the registration.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ServiceError } from "../src/errors.ts";
import type { EventRecord } from "../src/resources/event.ts";
import { registerAttendee as register, updateAttendee } from "../src/service/registrations.ts";
import { newTicketLink, rotateTicketLink } from "../src/service/ticket-link-operations.ts";
import type { Storage } from "../src/storage.ts";
import { ERASED_ANSWER } from "../src/storage/erasure.ts";
import { createChangeNotifier } from "../src/webhooks/change-notifications.ts";
import { at, attendeeAt, eventAt, newAccount } from "./_service-transactions-outbox.ts";
import { eraseAttendee, insertEvent, transactionContext } from "./_transactions.ts";

export function describeTicketLinks(open: () => Promise<Storage>) {
  describe("ticket links", () => {
    let storage: Storage;
    let acme: string;
    let event: EventRecord;
    before(async () => {
      storage = await open();
      acme = await newAccount(storage, "Acme");
      event = { ...eventAt(acme, at(1)), status: "published" };
      await insertEvent(storage, event);
    });
    after(() => storage.close());

    let second = 100;
    const now = () => at((second += 1));
    const context = () => transactionContext(storage, { notifier: createChangeNotifier() });

    test("the first link is written with its registration; another is added beside it; a new one replaces them all", async () => {
      const record = attendeeAt(acme, event.id, now(), { email: "ada.links@example.com" });
      const first = newTicketLink(acme, record.id, record.registrationDate);
      const registered = await register(context(), record, first.link);
      assert.equal((await storage.findTicketLink(first.link.linkHash))?.id, registered.id);
      const emailed = newTicketLink(acme, record.id, now());
      assert.equal(await storage.addTicketLink(emailed.link), true);
      assert.deepEqual(
        [
          (await storage.findTicketLink(first.link.linkHash))?.id,
          (await storage.findTicketLink(emailed.link.linkHash))?.id,
        ],
        [registered.id, registered.id],
      );

      const rotated = newTicketLink(acme, record.id, now());
      const answered = await rotateTicketLink(context(), { accountId: acme, id: record.id, link: rotated.link });
      assert.equal(answered.id, registered.id);
      assert.deepEqual(
        [
          await storage.findTicketLink(first.link.linkHash),
          await storage.findTicketLink(emailed.link.linkHash),
          (await storage.findTicketLink(rotated.link.linkHash))?.id,
        ],
        [null, null, registered.id],
      );
      const other = await newAccount(storage, `Other ${second}`);
      await assert.rejects(
        rotateTicketLink(context(), {
          accountId: other,
          id: record.id,
          link: newTicketLink(other, record.id, now()).link,
        }),
        (error) => ServiceError.is(error) && error.code === "NOT_FOUND",
      );
      assert.equal((await storage.findTicketLink(rotated.link.linkHash))?.id, registered.id);
    });

    test("a change refused by its guard writes nothing; an erasure takes every link with the registration", async () => {
      const record = attendeeAt(acme, event.id, now(), { email: "bob.links@example.com" });
      const { link } = newTicketLink(acme, record.id, record.registrationDate);
      await register(context(), record, link);
      await assert.rejects(
        updateAttendee(context(), {
          accountId: acme,
          id: record.id,
          update: { status: "cancelled" },
          now: now(),
          guard: async ({ tx }, locked, before) => {
            assert.equal(await tx.ticketLinks.attendeeOf(link.linkHash), before.id);
            assert.equal(locked.id, event.id);
            throw new ServiceError("INVALID_STATE_TRANSITION", { message: "refused" });
          },
        }),
        (error) => ServiceError.is(error) && error.code === "INVALID_STATE_TRANSITION",
      );
      assert.equal((await storage.getAttendee(acme, record.id))?.status, "confirmed");

      await eraseAttendee(storage, acme, record.id, { now: now(), replay: ERASED_ANSWER });
      assert.equal(await storage.findTicketLink(link.linkHash), null);
      assert.equal(await storage.addTicketLink(newTicketLink(acme, record.id, now()).link), false);
    });
  });
}
