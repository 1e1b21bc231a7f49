/**
 * The emails the business transactions queue over a real storage (part of
 * `describeServiceTransactions`): a registration, a promotion, a payment and a booking each
 * queue one email in their own transaction when the service sends emails, none when it does
 * not; and what an email is made of when its turn comes (`composeEmail`): a fresh link stored as
 * a hash only beside the booking's others, nothing for a booking no longer open. Every test
 * opens a database of its own.
 */
import assert from "node:assert/strict";
import { describe, test, type TestContext } from "node:test";
import { createId } from "../src/_internal/ids.ts";
import type { ClaimedEmail } from "../src/resources/email.ts";
import { TicketTypesInput } from "../src/resources/ticket-type.ts";
import { linkHashOf, newLinkToken } from "../src/resources/link-token.ts";
import { newVendorRecord } from "../src/resources/vendor.ts";
import * as bookingChanges from "../src/service/booking-changes.ts";
import { composeEmail } from "../src/service/email-sending.ts";
import * as paymentChanges from "../src/service/payment-changes.ts";
import * as registrations from "../src/service/registrations.ts";
import type { Storage } from "../src/storage.ts";
import { at, attendeeAt, eventAt, newAccount } from "./_service-transactions-outbox.ts";
import { insertEvent, transactionContext } from "./_transactions.ts";

export function describeEmails(open: () => Promise<Storage>) {
  const fresh = async (t: TestContext) => {
    const storage = await open();
    t.after(() => storage.close());
    const acme = await newAccount(storage, "Acme Events");
    return { storage, acme };
  };
  /** Every due email, claimed (and so leased) at once. */
  const claimAll = (storage: Storage): Promise<ClaimedEmail[]> =>
    storage.claimDueEmails({
      workerId: "test",
      now: at(100_000),
      leaseUntil: at(100_060),
      limit: 100,
      kinds: ["ticket_link", "vendor_link"],
    });

  describe("emails", () => {
    for (const emails of [true, false]) {
      test(`registering, promoting, paying and booking ${emails ? "queue one email each" : "queue nothing without a transport"}`, async (t) => {
        const { storage, acme } = await fresh(t);
        const context = transactionContext(storage, { notifier: null, emails });
        const event = {
          ...eventAt(acme, at(1), {
            capacity: 1,
            waitlistEnabled: true,
            ticketTypes: TicketTypesInput.parse([{ name: "Day", price: { amount: 4500, currency: "EUR" } }]),
          }),
          status: "published" as const,
        };
        await insertEvent(storage, event);
        const ada = await registrations.registerAttendee(
          context,
          attendeeAt(acme, event.id, at(2), { ticketType: "Day" }),
        );
        const bob = await registrations.registerAttendee(
          context,
          attendeeAt(acme, event.id, at(3), { ticketType: "Day" }),
        );
        assert.deepEqual([ada.status, bob.status], ["pending", "waitlisted"]);
        await paymentChanges.recordPayment(context, {
          accountId: acme,
          id: ada.id,
          payment: { amount: 4500, method: "cash" },
          now: at(4),
        });
        // A change that emails nobody (a company) queues nothing; a cancellation promotes Bob.
        await registrations.updateAttendee(context, {
          accountId: acme,
          id: ada.id,
          update: { company: "Acme" },
          now: at(5),
        });
        await registrations.updateAttendee(context, {
          accountId: acme,
          id: ada.id,
          update: { status: "cancelled" },
          now: at(6),
        });
        const vendor = newVendorRecord(
          { name: "Green Plate", category: "catering", contact: { email: "orders@plate.example" } },
          { id: createId("vendor"), accountId: acme, now: at(7) },
        );
        const silent = newVendorRecord(
          { name: "No Mail Co", category: "venue" },
          { id: createId("vendor"), accountId: acme, now: at(7) },
        );
        await storage.transaction(async (tx) => {
          await tx.vendors.insert(vendor);
          await tx.vendors.insert(silent);
        });
        const book = (vendorId: string) =>
          bookingChanges.insertBooking(context, {
            accountId: acme,
            eventId: event.id,
            booking: { vendorId, services: "Lunch", dataRequested: ["catering"] },
            id: createId("booking"),
            now: at(8),
            linkHash: linkHashOf(newLinkToken("vendor")),
          });
        const booking = await book(vendor.id);
        await book(silent.id);

        const queued = (await claimAll(storage)).map((email) => [
          email.kind,
          email.reason,
          email.subjectId,
          email.createdAt,
        ]);
        assert.deepEqual(
          queued,
          emails
            ? [
                ["ticket_link", "registered", ada.id, at(2)],
                ["ticket_link", "registered", bob.id, at(3)],
                ["ticket_link", "paid", ada.id, at(4)],
                ["ticket_link", "promoted", bob.id, at(6)],
                ["vendor_link", "booked", booking.id, at(8)],
              ]
            : [],
        );
      });
    }

    test("a vendor email is composed with a link of its own beside the booking's; none for a cancelled booking", async (t) => {
      const { storage, acme } = await fresh(t);
      const context = transactionContext(storage, { notifier: null, emails: true });
      const event = {
        ...eventAt(acme, at(1), { name: "Green <Summit>", timeZone: "Europe/Berlin" }),
        status: "published" as const,
      };
      await insertEvent(storage, event);
      const vendor = newVendorRecord(
        { name: "Green Plate", category: "catering", contact: { email: "orders@plate.example" } },
        { id: createId("vendor"), accountId: acme, now: at(2) },
      );
      await storage.transaction((tx) => tx.vendors.insert(vendor));
      const answered = newLinkToken("vendor");
      const booking = await bookingChanges.insertBooking(context, {
        accountId: acme,
        eventId: event.id,
        booking: { vendorId: vendor.id, services: "Vegan lunch for 120", dataRequested: ["catering"] },
        id: createId("booking"),
        now: at(3),
        linkHash: linkHashOf(answered),
      });
      const [email] = await claimAll(storage);
      assert.ok(email);
      const options = { from: "Events <events@acme.example>", baseUrl: "https://events.example.com" };
      const message = await composeEmail(storage, email, at(4), options);
      assert.ok(message);
      assert.equal(message.to, "orders@plate.example");
      assert.equal(message.from, "Events <events@acme.example>");
      assert.equal(message.subject, "Acme Events asks you to confirm: Green <Summit>");
      const url = /https:\/\/events\.example\.com\/v1\/vendor-requests\/(vrq_[A-Za-z0-9_-]{43})/.exec(message.text);
      assert.ok(url, message.text);
      const token = url[1]!;
      assert.notEqual(token, answered);
      assert.match(message.text, /Services: Vegan lunch for 120/);
      assert.match(message.text, /1 May 2042, 11:00 CEST/);
      assert.ok(message.html.includes(`<a href="${url[0]}">Confirm or decline</a>`));
      assert.ok(message.html.includes("Green &lt;Summit>"));
      assert.ok(!message.html.includes("<Summit>"));
      // Both links open the booking; only their hashes are stored.
      assert.equal((await storage.findBookingByLink(linkHashOf(token)))?.id, booking.id);
      assert.equal((await storage.findBookingByLink(linkHashOf(answered)))?.id, booking.id);
      assert.equal(
        await storage.recordEmailAttempt({
          id: email.id,
          workerId: "test",
          attempt: 1,
          status: "sent",
          nextAttemptAt: null,
          error: null,
          now: at(5),
        }),
        true,
      );

      // Cancelled before its email's turn: nothing to send, and no link made.
      await bookingChanges.updateBooking(context, {
        accountId: acme,
        eventId: event.id,
        id: booking.id,
        patch: { status: "cancelled" },
        now: at(6),
      });
      assert.equal(await composeEmail(storage, email, at(7), options), null);
      // The ticket kind: a link of its own minted as it is composed, the registration's first link still live.
      const ada = await registrations.registerAttendee(context, attendeeAt(acme, event.id, at(8)));
      const [ticket] = await claimAll(storage);
      assert.equal(ticket?.subjectId, ada.id);
      const withTicket = await composeEmail(storage, ticket!, at(9), options);
      assert.equal(withTicket?.to, ada.email);
      assert.equal(withTicket?.subject, "Your ticket for Green <Summit>");
      const ticketToken = /\/v1\/tickets\/(tkt_[A-Za-z0-9_-]{43})/.exec(withTicket?.text ?? "")?.[1];
      assert.ok(ticketToken, withTicket?.text);
      assert.equal((await storage.findTicketLink(linkHashOf(ticketToken)))?.id, ada.id);
      assert.ok(withTicket?.html.includes(`/v1/tickets/${ticketToken}`));
    });
  });
}
