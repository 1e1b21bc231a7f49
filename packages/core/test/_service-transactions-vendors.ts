/**
 * The service's transactions on vendors and their bookings over a real storage (part of `describeServiceTransactions`): the reads
 * (account isolation, the list's filters and paging, a link found by its hash alone), the
 * operations of a transaction, the one-active-booking index as the backstop of the check made
 * under the event's lock, and the races the locks settle: many bookings of one vendor for one
 * event at once (one wins), and a vendor's deletion against its booking (never both). Every
 * test opens a database of its own.
 */
import assert from "node:assert/strict";
import { describe, test, type TestContext } from "node:test";
import { createId } from "../src/_internal/ids.ts";
import { ServiceError } from "../src/errors.ts";
import { ActivityInput } from "../src/resources/activity.ts";
import { newActivityRecord, priceActivity } from "../src/resources/priced-activity.ts";
import {
  type BookingRecord,
  BookingListQuery,
  newVendorRecord,
  type VendorCreate,
  VendorListQuery,
  type VendorRecord,
} from "../src/resources/vendor.ts";
import { linkHashOf, newLinkToken } from "../src/resources/link-token.ts";
import { ACTIVE_BOOKING_STATUSES } from "../src/rules/booking-status.ts";
import { DEFAULT_EMISSION_FACTORS } from "../src/carbon/emission-factors.ts";
import { StorageConflict } from "../src/storage/transaction.ts";
import { at, eventAt, newAccount } from "./_service-transactions-outbox.ts";
import {
  answerBooking,
  deleteEvent,
  deleteVendor,
  insertBooking,
  insertEvent,
  updateBooking,
} from "./_transactions.ts";
import type { Storage } from "../src/storage.ts";

function vendorAt(accountId: string, now: string, overrides: Partial<VendorCreate> = {}): VendorRecord {
  return newVendorRecord(
    { name: "Green Plate Catering", category: "catering", ...overrides },
    { id: createId("vendor"), accountId, now },
  );
}

function bookingOf(vendor: VendorRecord, eventId: string, overrides: Partial<BookingRecord> = {}): BookingRecord {
  return {
    id: createId("booking"),
    accountId: vendor.accountId,
    eventId,
    vendorId: vendor.id,
    status: "requested",
    services: "Lunch",
    dataRequested: ["catering"],
    respondedAt: null,
    message: null,
    linkHash: linkHashOf(newLinkToken("vendor")),
    createdAt: at(5),
    updatedAt: at(5),
    ...overrides,
  };
}

/** The code of a rejected promise's `ServiceError`, or the error's name. */
async function codeOf(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => "ok",
    (error: unknown) => (ServiceError.is(error) ? error.code : String((error as Error).name)),
  );
}

export function describeVendors(open: () => Promise<Storage>) {
  const fresh = async (t: TestContext) => {
    const storage = await open();
    t.after(() => storage.close());
    const acme = await newAccount(storage, "Acme");
    const globex = await newAccount(storage, "Globex");
    const event = eventAt(acme, at(1), {
      location: { address: "A 1", city: "Berlin", country: "DE", coordinates: { lat: 52.52, lng: 13.405 } },
    });
    await insertEvent(storage, event);
    return { storage, acme, globex, event };
  };
  const addVendor = (storage: Storage, vendor: VendorRecord) => storage.transaction((tx) => tx.vendors.insert(vendor));

  describe("vendors and bookings", () => {
    test("vendors: written in a transaction, read by account only, listed newest first by category and name", async (t) => {
      const { storage, acme, globex } = await fresh(t);
      const plate = vendorAt(acme, at(2), {
        contact: { name: "Ana", email: "ana@example.com", phone: null },
        location: { city: "Potsdam", country: "DE", coordinates: { lat: 52.39, lng: 13.06 } },
        certifications: [{ scheme: "ISO 20121", reference: "C-1", validUntil: "2043-01-01" }],
        metadata: { po: "4711" },
      });
      const sound = vendorAt(acme, at(3), { name: "ÄRGER Sound", category: "audio_visual" });
      const theirs = vendorAt(globex, at(4), { name: "Green Plate Copy" });
      for (const vendor of [plate, sound, theirs]) await addVendor(storage, vendor);

      assert.deepEqual(await storage.getVendor(acme, plate.id), plate);
      assert.equal(await storage.getVendor(globex, plate.id), null);
      const all = await storage.listVendors(acme, VendorListQuery.parse({}));
      assert.deepEqual([all.total, all.items.map((v) => v.id)], [2, [sound.id, plate.id]]);
      const catering = await storage.listVendors(acme, VendorListQuery.parse({ category: "catering" }));
      assert.deepEqual(
        catering.items.map((v) => v.id),
        [plate.id],
      );
      // The service lower-cases the name into the search key, so a non-ASCII letter is found in any case.
      const found = await storage.listVendors(acme, VendorListQuery.parse({ search: "ärger" }));
      assert.deepEqual(
        found.items.map((v) => v.id),
        [sound.id],
      );
      const wildcard = await storage.listVendors(acme, VendorListQuery.parse({ search: "%" }));
      assert.equal(wildcard.total, 0);
      const second = await storage.listVendors(acme, VendorListQuery.parse({ limit: "1", page: "2" }));
      assert.deepEqual([second.total, second.items.map((v) => v.id)], [2, [plate.id]]);

      const renamed = { ...plate, name: "Blue Plate", contact: null, updatedAt: at(9) };
      await storage.transaction(async (tx) => {
        assert.deepEqual(await tx.vendors.lock(acme, plate.id), plate);
        assert.equal(await tx.vendors.lock(globex, plate.id), null);
        await tx.vendors.update(renamed);
      });
      assert.deepEqual(await storage.getVendor(acme, plate.id), renamed);
      assert.equal((await storage.listVendors(acme, VendorListQuery.parse({ search: "green" }))).total, 0);
      await storage.transaction((tx) => tx.vendors.delete(plate.id));
      assert.equal(await storage.getVendor(acme, plate.id), null);
      assert.deepEqual(await storage.getVendor(globex, theirs.id), theirs);
    });

    test("bookings: by account and event, by the link's hash, by status; the confirmed vendors; the vendor's records", async (t) => {
      const { storage, acme, globex, event } = await fresh(t);
      const near = vendorAt(acme, at(2), {
        location: { city: "Potsdam", country: "DE", coordinates: { lat: 52.39, lng: 13.06 } },
        certifications: [{ scheme: "B Corp", reference: null, validUntil: null }],
      });
      const far = vendorAt(acme, at(2), { name: "Far", location: { city: "Munich", country: "DE" } });
      for (const vendor of [near, far]) await addVendor(storage, vendor);
      const first = bookingOf(near, event.id, { createdAt: at(5) });
      const second = bookingOf(far, event.id, { createdAt: at(6), status: "confirmed", respondedAt: at(6) });
      await storage.transaction(async (tx) => {
        await tx.bookings.insert(first);
        await tx.bookings.insert(second);
      });

      assert.deepEqual(await storage.getBooking(acme, event.id, first.id), first);
      assert.equal(await storage.getBooking(globex, event.id, first.id), null);
      assert.equal(await storage.getBooking(acme, createId("event"), first.id), null);
      assert.deepEqual(await storage.findBookingByLink(second.linkHash), second);
      assert.equal(await storage.findBookingByLink(linkHashOf(newLinkToken("vendor"))), null);
      const listed = await storage.listBookings(acme, event.id, BookingListQuery.parse({}));
      assert.deepEqual([listed.total, listed.items.map((b) => b.id)], [2, [first.id, second.id]]);
      const confirmedOnly = await storage.listBookings(acme, event.id, BookingListQuery.parse({ status: "confirmed" }));
      assert.deepEqual(
        confirmedOnly.items.map((b) => b.id),
        [second.id],
      );
      assert.equal((await storage.listBookings(globex, event.id, BookingListQuery.parse({}))).total, 0);

      await storage.transaction(async (tx) => {
        assert.deepEqual(await tx.bookings.get(acme, event.id, first.id), first);
        assert.deepEqual(await tx.bookings.getByLink(first.linkHash), first);
        assert.equal(await tx.bookings.findByVendor(event.id, near.id, ACTIVE_BOOKING_STATUSES), first.id);
        assert.equal(await tx.bookings.findByVendor(event.id, near.id, ["cancelled"]), null);
        assert.deepEqual(
          (await tx.bookings.listByStatus(event.id, ["requested"])).map((b) => b.id),
          [first.id],
        );
        assert.equal(await tx.vendors.hasBooking(near.id, ACTIVE_BOOKING_STATUSES), true);
        assert.deepEqual(await tx.bookings.confirmedVendors(event.id), [{ coordinates: null, certifications: [] }]);
        await tx.bookings.update({
          ...first,
          status: "confirmed",
          respondedAt: at(7),
          message: "Yes",
          updatedAt: at(7),
        });
      });
      const confirmed = await storage.transaction((tx) => tx.bookings.confirmedVendors(event.id));
      assert.deepEqual(
        confirmed.sort((a, b) => a.certifications.length - b.certifications.length),
        [
          { coordinates: null, certifications: [] },
          {
            coordinates: { lat: 52.39, lng: 13.06 },
            certifications: [{ scheme: "B Corp", reference: null, validUntil: null }],
          },
        ],
      );
      // A deleted vendor's booking counts no more.
      await storage.transaction(async (tx) => {
        await tx.bookings.update({ ...second, status: "cancelled", updatedAt: at(8) });
        await tx.vendors.delete(far.id);
      });
      assert.equal((await storage.transaction((tx) => tx.bookings.confirmedVendors(event.id))).length, 1);

      // The records made through a booking's link are listed by the booking.
      const record = (bookingId: string | null, seconds: number) => {
        const input = ActivityInput.parse({ kind: "catering", quantity: 10, unit: "meals", mealType: "vegan" });
        const made = newActivityRecord(input, {
          id: createId("activity"),
          accountId: acme,
          eventId: event.id,
          eventCountry: "DE",
          now: at(seconds),
        });
        const attributed = { ...made, vendorId: near.id, bookingId };
        return { ...attributed, ...priceActivity(DEFAULT_EMISSION_FACTORS, attributed) };
      };
      const mine = [record(first.id, 10), record(first.id, 11)];
      await storage.transaction(async (tx) => {
        for (const activity of [...mine, record(null, 12)]) await tx.activities.insert(activity);
      });
      const page = await storage.listBookingActivities(first.id, { page: 1, limit: 1 });
      assert.deepEqual([page.total, page.items], [2, [mine[0]]]);
      assert.deepEqual((await storage.listBookingActivities(first.id, { page: 2, limit: 1 })).items, [mine[1]]);

      // The event's deletion takes its bookings along.
      await deleteEvent(storage, acme, event.id);
      assert.equal(await storage.findBookingByLink(first.linkHash), null);
    });

    test("one active booking per vendor and event: the unique index refuses a second, a closed one makes room", async (t) => {
      const { storage, acme, event } = await fresh(t);
      const vendor = vendorAt(acme, at(2));
      await addVendor(storage, vendor);
      const first = bookingOf(vendor, event.id);
      await storage.transaction((tx) => tx.bookings.insert(first));
      await assert.rejects(
        storage.transaction((tx) => tx.bookings.insert(bookingOf(vendor, event.id, { status: "confirmed" }))),
        (error: unknown) => StorageConflict.is(error, "active-booking"),
      );
      await storage.transaction((tx) => tx.bookings.update({ ...first, status: "declined", updatedAt: at(6) }));
      await storage.transaction((tx) => tx.bookings.insert(bookingOf(vendor, event.id)));
      assert.equal((await storage.listBookings(acme, event.id, BookingListQuery.parse({}))).total, 2);
    });

    test("races: 8 bookings of one vendor at once make one; a vendor's deletion and its booking never both succeed", async (t) => {
      const { storage, acme, event } = await fresh(t);
      const vendor = vendorAt(acme, at(2));
      await addVendor(storage, vendor);
      const book = (vendorId: string) =>
        insertBooking(
          storage,
          acme,
          event.id,
          { vendorId, services: "Stage", dataRequested: [] },
          {
            id: createId("booking"),
            now: at(5),
            linkHash: linkHashOf(newLinkToken("vendor")),
          },
        );
      const outcomes = await Promise.all(Array.from({ length: 8 }, () => codeOf(book(vendor.id))));
      assert.deepEqual(outcomes.sort(), [...Array(7).fill("DUPLICATE_BOOKING"), "ok"]);
      const [booking] = (await storage.listBookings(acme, event.id, BookingListQuery.parse({}))).items;
      assert.ok(booking);
      assert.equal((await storage.listBookings(acme, event.id, BookingListQuery.parse({}))).total, 1);

      // The vendor's answer and the organiser's cancellation race: the booking ends in one state, notified once each way it moved.
      const [answered, cancelled] = await Promise.all([
        codeOf(
          answerBooking(storage, booking.linkHash, { accountId: acme, eventId: event.id }, "confirmed", null, at(6)),
        ),
        codeOf(updateBooking(storage, acme, event.id, booking.id, { status: "cancelled" }, at(6))),
      ]);
      const final = await storage.getBooking(acme, event.id, booking.id);
      assert.equal(final?.status, "cancelled");
      assert.equal(cancelled, "ok");
      // Confirmed first then cancelled, or cancelled first and the answer found no open request.
      assert.ok(answered === "ok" || answered === "NOT_FOUND", answered);

      for (let round = 0; round < 4; round++) {
        const next = vendorAt(acme, at(10 + round), { name: `Round ${round}` });
        await addVendor(storage, next);
        const [deleted, booked] = await Promise.all([
          codeOf(deleteVendor(storage, acme, next.id, at(20))),
          codeOf(book(next.id)),
        ]);
        // Either the deletion went first (the booking finds no vendor) or the booking did (the deletion finds it in use).
        assert.ok(
          (deleted === "ok" && booked === "NOT_FOUND") || (deleted === "VENDOR_IN_USE" && booked === "ok"),
          `${deleted} / ${booked}`,
        );
      }
    });
  });
}
