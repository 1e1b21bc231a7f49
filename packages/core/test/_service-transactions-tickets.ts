/**
 * The service's transactions on ticket types over a real storage (part of `describeServiceTransactions`): an event's types stored and
 * read back, the reads a ticket-type decision makes under the event's lock (the `ticket`
 * tallies, the holders of each type), a type's capacity held by registrations racing for it, and
 * the waiting list promoting by type. The tests share one database, each on events of its own.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { DEFAULT_CARBON_SETTINGS } from "../src/carbon/carbon-settings.ts";
import { ServiceError } from "../src/errors.ts";
import type { AttendeeCreate, AttendeeRecord } from "../src/resources/attendee.ts";
import { type EventRecord, EventUpdateInput } from "../src/resources/event.ts";
import { type TicketTypeInput, TicketTypesInput } from "../src/resources/ticket-type.ts";
import { at, attendeeAt, eventAt, newAccount, webhookRecord } from "./_service-transactions-outbox.ts";
import { DeliveryListQuery } from "../src/resources/webhook-delivery.ts";
import type { PaymentEntry, PaymentMethod } from "../src/resources/payment.ts";
import {
  checkIn,
  deleteEvent,
  eraseAttendee,
  insertEvent,
  insertWebhook,
  recordPayment,
  refundByHand,
  registerAttendee,
  updateAttendee,
  updateEvent,
} from "./_transactions.ts";
import type { Storage } from "../src/storage.ts";

const TYPES: TicketTypeInput[] = [
  { name: "General", price: { amount: 0, currency: "EUR" } },
  { name: "VIP", price: { amount: 12_000, currency: "EUR" }, capacity: 2 },
  { name: "Workshop", price: { amount: 0, currency: "EUR" }, capacity: 2 },
  { name: "Early bird", price: { amount: 4_500, currency: "EUR" }, salesEndAt: "2041-01-01T00:10:00Z" },
];

async function code(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => "ok",
    (error: unknown) => (ServiceError.is(error) ? error.code : String(error)),
  );
}

export function describeTicketTypes(open: () => Promise<Storage>) {
  describe("ticket types", () => {
    let storage: Storage;
    let acme: string;
    before(async () => {
      storage = await open();
      acme = await newAccount(storage, "Acme");
    });
    after(() => storage.close());

    let second = 100;
    const now = () => at((second += 1));
    async function newEvent(overrides: Parameters<typeof eventAt>[2] = {}): Promise<EventRecord> {
      const event: EventRecord = {
        ...eventAt(acme, at(1), { ticketTypes: TicketTypesInput.parse(TYPES), ...overrides }),
        status: "published",
      };
      await insertEvent(storage, event);
      return event;
    }
    const register = (event: EventRecord, fields: Partial<AttendeeCreate>) =>
      registerAttendee(storage, attendeeAt(acme, event.id, now(), fields));
    const line = async (event: EventRecord) =>
      (await storage.eventAttendeesAfter(acme, event.id, null, 100))
        .filter((a) => a.status === "waitlisted")
        .sort((a, b) => a.waitlistPosition! - b.waitlistPosition!)
        .map((a) => [a.email, a.waitlistPosition]);

    test("stored with the event and read back; the ticket tallies and holders as of the transaction", async () => {
      const event = await newEvent({ refundPolicy: "none" });
      const read = await storage.getEvent(acme, event.id, DEFAULT_CARBON_SETTINGS);
      assert.deepEqual(read?.ticketTypes, [
        { name: "General", price: { amount: 0, currency: "EUR" }, capacity: null, salesEndAt: null },
        { name: "VIP", price: { amount: 12_000, currency: "EUR" }, capacity: 2, salesEndAt: null },
        { name: "Workshop", price: { amount: 0, currency: "EUR" }, capacity: 2, salesEndAt: null },
        {
          name: "Early bird",
          price: { amount: 4_500, currency: "EUR" },
          capacity: null,
          salesEndAt: "2041-01-01T00:10:00.000Z",
        },
      ]);
      assert.equal(read?.refundPolicy, "none");

      // Names match case-insensitively and are stored as the event spells them.
      const vip = await register(event, { ticketType: "vip", email: "v1@example.com" });
      assert.equal(vip.ticketType, "VIP");
      await register(event, { ticketType: "General", email: "g1@example.com" });
      await register(event, { ticketType: "general", email: "g2@example.com" });
      const gone = await register(event, { ticketType: "General", email: "g3@example.com" });
      await updateAttendee(storage, acme, gone.id, { status: "cancelled" }, now());
      await storage.transaction(async (tx) => {
        const tallies = await tx.tallies.read(event.id, "ticket");
        assert.deepEqual(
          tallies.sort((a, b) => a.value.localeCompare(b.value)),
          [
            { value: "General", registrations: 2 },
            { value: "VIP", registrations: 1 },
          ],
        );
        const holders = await tx.attendees.ticketHolders(event.id);
        assert.deepEqual(
          holders.sort((a, b) => a.ticketType.localeCompare(b.ticketType)),
          [
            { ticketType: "General", status: "confirmed", registrations: 2 },
            // A priced ticket waits for its payment, holding its place.
            { ticketType: "VIP", status: "pending", registrations: 1 },
          ],
        );
        assert.deepEqual(await tx.tallies.read("evt_unknown", "ticket"), []);
      });

      assert.equal(await code(register(event, { ticketType: "Student" })), "INVALID_REQUEST");
      // Early-bird sales end at 00:10 on the event's clock: registrations at or after it are refused.
      const late = attendeeAt(acme, event.id, "2041-01-01T00:10:00.000Z", { ticketType: "Early bird" });
      await assert.rejects(registerAttendee(storage, late), (error: unknown) => {
        assert.ok(ServiceError.is(error));
        assert.deepEqual(
          [error.code, error.field, error.details?.reason],
          ["INVALID_REQUEST", "ticketType", "sales_ended"],
        );
        return true;
      });
    });

    test("a type's capacity is never overfilled by registrations racing for it, nor by a change of type", async () => {
      const event = await newEvent();
      const results = await Promise.allSettled(
        Array.from({ length: 12 }, (_, i) =>
          register(event, { ticketType: "Workshop", email: `race${i}@example.com` }),
        ),
      );
      const made = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
      assert.equal(made.length, 2);
      for (const r of results) {
        if (r.status === "rejected") {
          assert.ok(ServiceError.is(r.reason));
          assert.equal(r.reason.code, "EVENT_FULL");
          assert.equal(r.reason.details?.ticketType, "Workshop");
        }
      }
      // The event itself has places: another type still gets in; moving into the full type does not.
      const general = await register(event, { ticketType: "General" });
      assert.equal(general.status, "confirmed");
      assert.equal(
        await code(updateAttendee(storage, acme, general.id, { ticketType: "Workshop" }, now())),
        "EVENT_FULL",
      );
      // One leaving the workshop frees its place for a change of type.
      await updateAttendee(storage, acme, made[0]!.id, { ticketType: "General" }, now());
      assert.equal(
        (await updateAttendee(storage, acme, general.id, { ticketType: "workshop" }, now())).after.ticketType,
        "Workshop",
      );
    });

    test("the waiting list promotes by type: a sold-out type's waiters keep their turn, the next in line go first", async () => {
      const event = await newEvent({ capacity: 3, waitlistEnabled: true });
      const ws1 = await register(event, { ticketType: "Workshop", email: "ws1@example.com" });
      await register(event, { ticketType: "Workshop", email: "ws2@example.com" });
      // Workshop is sold out while the event has a place: a workshop buyer waits, a general one is confirmed.
      const ws3 = await register(event, { ticketType: "Workshop", email: "ws3@example.com" });
      assert.deepEqual([ws3.status, ws3.waitlistPosition], ["waitlisted", 1]);
      const gen1 = await register(event, { ticketType: "General", email: "gen1@example.com" });
      assert.equal(gen1.status, "confirmed");
      await register(event, { ticketType: "General", email: "gen2@example.com" });
      await register(event, { ticketType: "Workshop", email: "ws4@example.com" });
      await register(event, { ticketType: "General", email: "gen3@example.com" });
      assert.deepEqual(await line(event), [
        ["ws3@example.com", 1],
        ["gen2@example.com", 2],
        ["ws4@example.com", 3],
        ["gen3@example.com", 4],
      ]);

      // A general place frees: the workshop is still sold out, so the first general one in line gets it.
      await updateAttendee(storage, acme, gen1.id, { status: "cancelled" }, now());
      assert.deepEqual(await line(event), [
        ["ws3@example.com", 1],
        ["ws4@example.com", 2],
        ["gen3@example.com", 3],
      ]);
      // A workshop place frees: the first workshop one in line gets it.
      await updateAttendee(storage, acme, ws1.id, { status: "cancelled" }, now());
      assert.deepEqual(await line(event), [
        ["ws4@example.com", 1],
        ["gen3@example.com", 2],
      ]);
      // The types' capacity raised with the event's: promotion in line order.
      const raised = EventUpdateInput.parse({
        capacity: 5,
        ticketTypes: TYPES.map((type) => (type.name === "Workshop" ? { ...type, capacity: 3 } : type)),
      });
      await updateEvent(storage, acme, event.id, raised, now());
      assert.deepEqual(await line(event), []);
      const stats = await storage.transaction((tx) => tx.figures.read(event.id));
      assert.deepEqual([stats.activeRegistrations, stats.waitlisted], [5, 0]);
    });

    test("the event's types change only as its registrations allow", async () => {
      const event = await newEvent();
      await register(event, { ticketType: "VIP" });
      await register(event, { ticketType: "VIP" });
      const without = (name: string) => TYPES.filter((type) => type.name !== name);
      const update = (ticketTypes: unknown) =>
        updateEvent(storage, acme, event.id, EventUpdateInput.parse({ ticketTypes }), now());
      await assert.rejects(update(without("VIP")), (error: unknown) => {
        assert.ok(ServiceError.is(error));
        assert.deepEqual(
          [error.code, error.field, error.details?.ticketType],
          ["INVALID_REQUEST", "ticketTypes", "VIP"],
        );
        return true;
      });
      assert.equal(
        await code(update(TYPES.map((type) => (type.name === "VIP" ? { ...type, capacity: 1 } : type)))),
        "INVALID_REQUEST",
      );
      // A type no registration holds may go; no types at all takes any ticketType text again.
      const { after: fewer } = await update(without("Early bird"));
      assert.deepEqual(
        fewer.ticketTypes.map((type) => type.name),
        ["General", "VIP", "Workshop"],
      );
      const { after: none } = await update(null);
      assert.deepEqual(none.ticketTypes, []);
      const free: AttendeeRecord = await register(event, { ticketType: "anything" });
      assert.equal(free.ticketType, "anything");
    });

    const pay = (id: string, amount: number, method: PaymentMethod = "cash") =>
      recordPayment(storage, acme, id, { amount, method, reference: "R-1" }, now());
    const refund = (id: string, amount?: number) => refundByHand(storage, acme, id, { amount }, now());
    const ledger = (attendeeId: string) => storage.transaction((tx) => tx.payments.sums(attendeeId));

    test("a priced registration waits for its payment; paid in full by hand it is confirmed; overpaying is refused", async () => {
      const event = await newEvent();
      const vip = await register(event, { ticketType: "VIP" });
      assert.deepEqual(
        [vip.status, vip.payment],
        [
          "pending",
          {
            status: "requires_payment",
            amount: 12_000,
            currency: "EUR",
            amountPaid: 0,
            amountRefunded: 0,
            provider: "manual",
            expiresAt: null,
            paymentIntentId: null,
            clientSecret: null,
            stripeAccount: null,
            promoted: false,
            admittedAt: null,
            checkoutSessionId: null,
          },
        ],
      );
      // Unpaid, it can be neither confirmed nor checked in.
      await assert.rejects(updateAttendee(storage, acme, vip.id, { status: "confirmed" }, now()), (error: unknown) => {
        assert.ok(ServiceError.is(error));
        assert.deepEqual([error.code, error.details?.reason], ["INVALID_STATE_TRANSITION", "payment_required"]);
        return true;
      });
      assert.equal(
        await code(checkIn(storage, acme, event.id, vip.confirmationCode, now())),
        "INVALID_STATE_TRANSITION",
      );
      assert.equal(await code(pay(vip.id, 12_001)), "INVALID_REQUEST");
      const part = (await pay(vip.id, 2_000, "bank_transfer")).after;
      assert.deepEqual(
        [part.status, part.payment?.status, part.payment?.amountPaid],
        ["pending", "requires_payment", 2_000],
      );
      const full = (await pay(vip.id, 10_000)).after;
      assert.deepEqual([full.status, full.payment?.status, full.payment?.amountPaid], ["confirmed", "paid", 12_000]);
      assert.equal(await code(pay(vip.id, 1)), "INVALID_STATE_TRANSITION");
      // A priced ticket's type stays; a free one cannot pay.
      assert.equal(
        await code(updateAttendee(storage, acme, vip.id, { ticketType: "General" }, now())),
        "INVALID_STATE_TRANSITION",
      );
      const free = await register(event, { ticketType: "General" });
      assert.equal(free.payment, null);
      assert.equal(await code(pay(free.id, 100)), "INVALID_STATE_TRANSITION");
      assert.deepEqual(await ledger(vip.id), [{ provider: "manual", paid: 12_000, refunded: 0 }]);
    });

    test("refunds never return more than was paid, even at once; a cancellation refunds by the policy; the ledger outlives an erasure", async () => {
      const event = await newEvent();
      const vip = await register(event, { ticketType: "VIP" });
      await pay(vip.id, 12_000);
      const results = await Promise.allSettled(Array.from({ length: 10 }, () => refund(vip.id, 5_000)));
      assert.equal(results.filter((r) => r.status === "fulfilled").length, 2);
      for (const r of results)
        if (r.status === "rejected") assert.deepEqual([r.reason.code, r.reason.field], ["INVALID_REQUEST", "amount"]);
      const partly = (await storage.getAttendee(acme, vip.id))!;
      assert.deepEqual(
        [partly.status, partly.payment?.status, partly.payment?.amountRefunded],
        ["confirmed", "partially_refunded", 10_000],
      );
      // Cancelled before the event under `full`: what is left goes back.
      const cancelled = (await updateAttendee(storage, acme, vip.id, { status: "cancelled" }, now())).after;
      assert.deepEqual([cancelled.payment?.status, cancelled.payment?.amountRefunded], ["refunded", 12_000]);
      assert.equal(await code(refund(vip.id)), "INVALID_REQUEST");
      // Refunded, it cannot be taken back without paying again.
      assert.equal(
        await code(updateAttendee(storage, acme, vip.id, { status: "confirmed" }, now())),
        "INVALID_STATE_TRANSITION",
      );

      // Under `none`, a cancellation keeps the money; an erasure too, and the ledger keeps its amounts.
      const strict = await newEvent({ refundPolicy: "none" });
      const kept = await register(strict, { ticketType: "VIP" });
      await pay(kept.id, 12_000);
      await eraseAttendee(storage, acme, kept.id, { now: now(), replay: { status: 404, body: "{}" } });
      assert.equal(await storage.getAttendee(acme, kept.id), null);
      assert.deepEqual(await ledger(kept.id), [{ provider: "manual", paid: 12_000, refunded: 0 }]);
      // Erased under `full` before the event: refunded first.
      const erased = await register(event, { ticketType: "VIP" });
      await pay(erased.id, 12_000);
      await eraseAttendee(storage, acme, erased.id, { now: now(), replay: { status: 404, body: "{}" } });
      assert.deepEqual(await ledger(erased.id), [{ provider: "manual", paid: 12_000, refunded: 12_000 }]);
    });

    test("deleting an event refunds its paid registrations by the policy; the ledger outlives it, without references", async () => {
      const event = await newEvent();
      const paid = await register(event, { ticketType: "VIP" });
      await pay(paid.id, 12_000);
      const unpaid = await register(event, { ticketType: "VIP" });
      assert.deepEqual(
        (await storage.transaction((tx) => tx.attendees.withRefundable(event.id))).map((a) => a.id),
        [paid.id],
      );
      await deleteEvent(storage, acme, event.id);
      assert.deepEqual(await ledger(paid.id), [{ provider: "manual", paid: 12_000, refunded: 12_000 }]);
      assert.deepEqual(await ledger(unpaid.id), []);
    });

    test("cancelling an event cancels its registrations and refunds every paid one in full, under `none` after the start too; nobody is promoted", async () => {
      const org = await newAccount(storage, `Called off ${now()}`);
      const hook = webhookRecord(org, { events: ["*"] });
      await insertWebhook(storage, hook);
      const event: EventRecord = {
        ...eventAt(org, at(1), {
          capacity: 5,
          waitlistEnabled: true,
          refundPolicy: "none",
          ticketTypes: TicketTypesInput.parse([
            { name: "General", price: { amount: 0, currency: "EUR" } },
            { name: "VIP", price: { amount: 12_000, currency: "EUR" } },
          ]),
        }),
        status: "published",
      };
      await insertEvent(storage, event);
      const reg = (ticketType: string) => registerAttendee(storage, attendeeAt(org, event.id, now(), { ticketType }));
      const payOf = (id: string, amount: number) => recordPayment(storage, org, id, { amount, method: "cash" }, now());
      const paid = await reg("VIP");
      await payOf(paid.id, 12_000);
      const partly = await reg("VIP");
      await payOf(partly.id, 2_000);
      const free = await reg("General");
      // Refunded in full by hand and still admitted (a goodwill refund): nothing left to refund.
      const goodwill = await reg("VIP");
      await payOf(goodwill.id, 12_000);
      await refundByHand(storage, org, goodwill.id, {}, now());
      const door = await reg("VIP");
      await payOf(door.id, 12_000);
      await checkIn(storage, org, event.id, door.confirmationCode, now());
      const waiting = [await reg("General"), await reg("VIP")];
      assert.deepEqual(
        waiting.map((a) => [a.status, a.waitlistPosition]),
        [
          ["waitlisted", 1],
          ["waitlisted", 2],
        ],
      );

      // After the start, under `none`: the organiser called it off, so everything goes back.
      const cancelledAt = "2042-05-01T12:00:00.000Z";
      const { registrations } = await updateEvent(storage, org, event.id, { status: "cancelled" }, cancelledAt);
      assert.equal(registrations.length, 7);
      const read = async (id: string) => (await storage.getAttendee(org, id))!;
      const state = async (id: string) => {
        const a = await read(id);
        return [
          a.status,
          a.cancelledAt,
          a.waitlistPosition,
          a.payment?.status ?? null,
          a.payment?.amountRefunded ?? null,
        ];
      };
      assert.deepEqual(await state(paid.id), ["cancelled", cancelledAt, null, "refunded", 12_000]);
      assert.deepEqual(await state(partly.id), ["cancelled", cancelledAt, null, "refunded", 2_000]);
      assert.deepEqual(await state(free.id), ["cancelled", cancelledAt, null, null, null]);
      assert.deepEqual(await state(goodwill.id), ["cancelled", cancelledAt, null, "refunded", 12_000]);
      assert.equal((await read(goodwill.id)).payment?.admittedAt, null);
      for (const a of waiting) assert.deepEqual(await state(a.id), ["cancelled", cancelledAt, null, null, null]);
      // Checked in, it attended and stays so; its money goes back all the same.
      assert.deepEqual(await state(door.id), ["checked-in", null, null, "refunded", 12_000]);
      assert.equal((await read(paid.id)).payment?.admittedAt, null);
      const ledgerOf = (id: string) => storage.transaction((tx) => tx.payments.sums(id));
      assert.deepEqual(await ledgerOf(paid.id), [{ provider: "manual", paid: 12_000, refunded: 12_000 }]);
      assert.deepEqual(await ledgerOf(partly.id), [{ provider: "manual", paid: 2_000, refunded: 2_000 }]);
      assert.deepEqual(await ledgerOf(door.id), [{ provider: "manual", paid: 12_000, refunded: 12_000 }]);
      const figures = await storage.transaction((tx) => tx.figures.read(event.id));
      assert.deepEqual([figures.activeRegistrations, figures.waitlisted], [1, 0]);
      assert.deepEqual(
        await storage.transaction(async (tx) =>
          (await tx.tallies.read(event.id, "ticket")).map((t) => [t.value, t.registrations]),
        ),
        [["VIP", 1]],
      );

      const deliveries = (await storage.listDeliveries(org, hook.id, DeliveryListQuery.parse({ limit: "100" })))!.items;
      const sent = (type: string) => deliveries.filter((d) => d.type === type && d.createdAt === cancelledAt);
      assert.deepEqual(
        sent("attendee.cancelled")
          .map((d) => {
            const data = d.payload.data as { attendee: { id: string }; reason: string; previousStatus: string };
            return [data.attendee.id, data.previousStatus, data.reason];
          })
          .sort(),
        [
          [paid.id, "confirmed", "event_cancelled"],
          [partly.id, "pending", "event_cancelled"],
          [free.id, "confirmed", "event_cancelled"],
          [goodwill.id, "confirmed", "event_cancelled"],
          [waiting[0]!.id, "waitlisted", "event_cancelled"],
          [waiting[1]!.id, "waitlisted", "event_cancelled"],
        ].sort(),
      );
      assert.deepEqual(
        sent("payment.refunded")
          .map((d) => {
            const data = d.payload.data as { attendee: { id: string }; payment: { amountRefunded: number } };
            return [data.attendee.id, data.payment.amountRefunded];
          })
          .sort(),
        [
          [paid.id, 12_000],
          [partly.id, 2_000],
          [door.id, 12_000],
        ].sort(),
      );
      assert.equal(sent("event.cancelled").length, 1);
      assert.equal(sent("attendee.updated").length, 7);
      assert.deepEqual(sent("attendee.promoted"), []);

      // Off, it takes nobody in, nor back; cancelling again changes nothing.
      assert.equal(await code(reg("General")), "INVALID_REQUEST");
      assert.equal(
        await code(updateAttendee(storage, org, free.id, { status: "confirmed" }, now())),
        "INVALID_REQUEST",
      );
      assert.deepEqual((await updateEvent(storage, org, event.id, { status: "cancelled" }, now())).registrations, []);
      assert.deepEqual(await ledgerOf(paid.id), [{ provider: "manual", paid: 12_000, refunded: 12_000 }]);
    });

    test("registrations racing an event's cancellation are refused or cancelled by it, never left holding a place", async () => {
      const event = await newEvent({ capacity: 10, waitlistEnabled: true });
      const racers = Array.from({ length: 16 }, (_, i) =>
        registerAttendee(
          storage,
          attendeeAt(acme, event.id, now(), { ticketType: "General", email: `race${i}@example.com` }),
        ),
      );
      const cancelling = updateEvent(storage, acme, event.id, { status: "cancelled" }, now());
      const results = await Promise.allSettled(racers);
      await cancelling;
      for (const result of results)
        if (result.status === "rejected")
          assert.deepEqual([result.reason.code, result.reason.field], ["INVALID_REQUEST", "eventId"]);
      const registered = results.flatMap((r) => (r.status === "fulfilled" ? [r.value.id] : []));
      const stored = await storage.eventAttendeesAfter(acme, event.id, null, 100);
      assert.deepEqual(stored.map((a) => a.id).sort(), registered.sort());
      assert.deepEqual(
        stored.filter((a) => a.status !== "cancelled"),
        [],
      );
      const figures = await storage.transaction((tx) => tx.figures.read(event.id));
      assert.deepEqual([figures.activeRegistrations, figures.waitlisted], [0, 0]);
    });

    test("a priced registration promoted from the waiting list is pending with its payment due", async () => {
      const event = await newEvent({ capacity: 1, waitlistEnabled: true });
      const first = await register(event, { ticketType: "General" });
      const waiting = await register(event, { ticketType: "VIP" });
      assert.deepEqual([waiting.status, waiting.payment], ["waitlisted", null]);
      // By hand, a priced one is promoted into `pending`, never straight into `confirmed`.
      await updateAttendee(storage, acme, first.id, { status: "cancelled" }, now());
      const promoted = (await storage.getAttendee(acme, waiting.id))!;
      assert.deepEqual(
        [promoted.status, promoted.payment?.status, promoted.payment?.amount],
        ["pending", "requires_payment", 12_000],
      );
    });

    test("the payment worker's reads, the ledger's settling, Stripe's events once, an account's settings", async () => {
      const event = await newEvent();
      const stripe = { provider: "stripe", holdMinutes: 1 } as const;
      const hold = (email: string) =>
        registerAttendee(storage, attendeeAt(acme, event.id, now(), { ticketType: "VIP", email }), undefined, stripe);
      const [x, y] = [await hold("x@example.com"), await hold("y@example.com")];
      const mine = (refs: Array<{ attendeeId: string }>) =>
        refs.map((ref) => ref.attendeeId).filter((id) => id === x.id || id === y.id);
      assert.deepEqual(x.payment?.expiresAt, new Date(Date.parse(x.registrationDate) + 60_000).toISOString());
      assert.deepEqual(mine(await storage.intentsToMake(1000)), [x.id, y.id]);
      assert.deepEqual(mine(await storage.holdsDue(x.registrationDate, 1000)), []);
      assert.deepEqual(mine(await storage.holdsDue(x.payment!.expiresAt!, 1000)), [x.id]);
      // A cancelled hold is nobody's work; one with its PaymentIntent needs none made.
      await updateAttendee(storage, acme, y.id, { status: "cancelled" }, now());
      const withIntent = {
        ...x,
        payment: { ...x.payment!, paymentIntentId: "pi_contract", clientSecret: "pi_contract_secret_x" },
      };
      await storage.transaction((tx) => tx.attendees.updateStatus(withIntent));
      assert.deepEqual(mine(await storage.intentsToMake(1000)), []);
      assert.deepEqual(mine(await storage.holdsDue("2999-01-01T00:00:00.000Z", 1000)), [x.id]);
      assert.deepEqual(await storage.transaction((tx) => tx.payments.findByIntent("pi_contract")), {
        accountId: acme,
        eventId: event.id,
        attendeeId: x.id,
      });

      const refund: PaymentEntry = {
        id: `pay_contract${Date.now()}`,
        accountId: acme,
        eventId: event.id,
        attendeeId: x.id,
        kind: "refund",
        amount: 500,
        currency: "EUR",
        ticketType: "VIP",
        provider: "stripe",
        method: null,
        reference: null,
        providerReference: null,
        paymentIntentId: "pi_contract",
        stripeAccount: null,
        status: "pending",
        createdAt: now(),
      };
      await storage.transaction((tx) => tx.payments.insert(refund));
      const due = (await storage.refundsDue(1000)).filter((entry) => entry.id === refund.id);
      assert.deepEqual(due, [refund]);
      assert.equal(await storage.transaction((tx) => tx.payments.settle(refund.id, "succeeded", "re_1")), true);
      assert.equal(await storage.transaction((tx) => tx.payments.settle(refund.id, "failed", null)), false);
      assert.deepEqual(
        (await storage.refundsDue(1000)).filter((entry) => entry.id === refund.id),
        [],
      );

      const stripeEvent = `evt_contract${Date.now()}`;
      assert.equal(
        await storage.transaction((tx) =>
          tx.payments.recordStripeEvent(stripeEvent, "payment_intent.succeeded", now()),
        ),
        true,
      );
      assert.equal(
        await storage.transaction((tx) =>
          tx.payments.recordStripeEvent(stripeEvent, "payment_intent.succeeded", now()),
        ),
        false,
      );
      // Recorded in a transaction that rolls back, it was never recorded.
      const rolledBack = `${stripeEvent}_rb`;
      await assert.rejects(
        storage.transaction(async (tx) => {
          await tx.payments.recordStripeEvent(rolledBack, "payment_intent.succeeded", now());
          throw new Error("roll back");
        }),
      );
      assert.equal(await storage.transaction((tx) => tx.payments.recordStripeEvent(rolledBack, "x", now())), true);

      assert.equal(await storage.getPaymentSettings(acme), null);
      const at = now();
      await storage.transaction((tx) => tx.payments.putSettings(acme, "acct_contract", at));
      assert.deepEqual(await storage.getPaymentSettings(acme), { stripeAccountId: "acct_contract", updatedAt: at });
      await storage.transaction((tx) => tx.payments.putSettings(acme, null, at));
      assert.deepEqual(await storage.getPaymentSettings(acme), { stripeAccountId: null, updatedAt: at });
    });
  });
}
