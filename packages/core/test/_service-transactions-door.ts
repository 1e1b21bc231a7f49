/**
 * The service's door over a real storage (part of `describeServiceTransactions`): the organiser's
 * check-in links (made on the account's events only, listed without a url, revoked), and a door's
 * operations through its link: the counts, scans through the check-in's transaction (each result,
 * one notification however many scan at once), a code of another event of the account, the name
 * search and the door list.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ServiceError } from "../src/errors.ts";
import type { EventRecord } from "../src/resources/event.ts";
import { DeliveryListQuery } from "../src/resources/webhook-delivery.ts";
import { confirmationCodeHash } from "../src/rules/check-in.ts";
import {
  createCheckInLinkOperations,
  createDoorLinkOperations,
  findDoorLink,
} from "../src/service/door-link-operations.ts";
import type { OperationContext } from "../src/service/operation-context.ts";
import type { Storage } from "../src/storage.ts";
import { createChangeNotifier } from "../src/webhooks/change-notifications.ts";
import { at, attendeeAt, eventAt, newAccount, webhookRecord } from "./_service-transactions-outbox.ts";
import { insertEvent, insertWebhook, registerAttendee, transactionContext } from "./_transactions.ts";

export function describeDoorLinks(open: () => Promise<Storage>) {
  describe("the door", () => {
    let storage: Storage;
    let acme: string;
    let event: EventRecord;
    let other: EventRecord;
    let hookId: string;
    const clock = () => new Date(at(50));
    before(async () => {
      storage = await open();
      acme = await newAccount(storage, "Acme");
      event = { ...eventAt(acme, at(1), { name: "Door Fest" }), status: "published" };
      other = { ...eventAt(acme, at(1), { name: "Other Fest" }), status: "published" };
      await insertEvent(storage, event);
      await insertEvent(storage, other);
      const hook = webhookRecord(acme, { events: ["attendee.checked_in"] });
      await insertWebhook(storage, hook);
      hookId = hook.id;
    });
    after(() => storage.close());

    const organiser = () =>
      createCheckInLinkOperations(storage, {
        ...transactionContext(storage, { notifier: createChangeNotifier() }),
        accountId: acme,
        baseUrl: "https://events.example.com",
        scopes: [],
        tier: "enterprise",
        clock,
        notifier: createChangeNotifier(),
        queued: () => {},
      } satisfies OperationContext);
    const doorOf = async (url: string) => {
      const link = await findDoorLink(storage, url.split("/").at(-1)!, clock().toISOString());
      assert.ok(link, "the link opens its door");
      return createDoorLinkOperations(storage, link, {
        ...transactionContext(storage, { notifier: createChangeNotifier() }),
        accountId: acme,
        clock,
        queued: () => {},
      });
    };

    test("links of the account's events only, listed without url, revoked; a scan checks in once, notified once", async () => {
      const made = await organiser().create(event.id, { label: "North", expiresAt: null });
      assert.match(made.url!, /^https:\/\/events\.example\.com\/v1\/check-in\/chk_[A-Za-z0-9_-]{43}$/);
      await assert.rejects(
        organiser().create(eventAt(acme, at(1)).id, {}),
        (error) => ServiceError.is(error) && error.code === "NOT_FOUND",
      );
      await assert.rejects(
        organiser().create(event.id, { expiresAt: at(50) }),
        (error) => ServiceError.is(error) && error.field === "expiresAt",
      );
      const listed = await organiser().list(event.id, { page: 1, limit: 20 });
      assert.deepEqual(listed.checkInLinks, [{ ...made, url: null }]);

      const door = await doorOf(made.url!);
      const ada = await registerAttendee(
        storage,
        attendeeAt(acme, event.id, at(2), { firstName: "Ada", lastName: "Lovelace" }),
      );
      const elsewhere = await registerAttendee(storage, attendeeAt(acme, other.id, at(2)));
      assert.deepEqual((await door.view()).counts, { checkedIn: 0, expected: 1 });
      const scans = await Promise.all(
        Array.from({ length: 6 }, () => door.scan({ code: ada.confirmationCode.toLowerCase() })),
      );
      assert.deepEqual(
        scans.map((scan) => scan.result).sort(),
        ["already_checked_in", ...Array(4).fill("already_checked_in"), "checked_in"].sort(),
      );
      assert.equal(new Set(scans.map((scan) => scan.checkedInAt)).size, 1);
      assert.deepEqual((await door.view()).counts, { checkedIn: 1, expected: 1 });
      const deliveries = (await storage.listDeliveries(acme, hookId, DeliveryListQuery.parse({ limit: "100" })))!.items;
      assert.deepEqual(
        deliveries.map((delivery) => delivery.type),
        ["attendee.checked_in"],
      );
      const wrong = await door.scan({ code: elsewhere.confirmationCode });
      assert.deepEqual([wrong.result, wrong.event], ["wrong_event", { id: other.id, name: "Other Fest" }]);
      assert.deepEqual(
        (await door.search({ search: "LOVE" })).attendees.map((a) => a.id),
        [ada.id],
      );
      assert.deepEqual(
        (await door.offlineList()).attendees.map((entry) => [entry.id, entry.codeHash]),
        [[ada.id, confirmationCodeHash(ada.confirmationCode)]],
      );

      await organiser().revoke(event.id, made.id);
      assert.equal(await findDoorLink(storage, made.url!.split("/").at(-1)!, clock().toISOString()), null);
      await assert.rejects(
        organiser().revoke(event.id, made.id),
        (error) => ServiceError.is(error) && error.status === 404,
      );
    });
  });
}
