import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ServiceError } from "../src/errors.ts";
import { MAX_PAYMENT_AMOUNT, type TicketType, TicketTypesInput, toTicketTypes } from "../src/resources/ticket-type.ts";
import { assertTicketTypesCover, promotionOrder, ticketTypeOf } from "../src/rules/ticket-types.ts";
import {
  assertCheckoutPayable,
  assertPaidForStatus,
  assertPayable,
  checkoutExpiresAt,
  assertWithinMaximum,
  inMajorUnits,
  MANUAL_PAYMENT_TERMS,
  outstanding,
  paymentFor,
  refundAmount,
  refundOnCancel,
  withAdmission,
  withPaid,
  withRefunded,
} from "../src/rules/payments.ts";
import { admission } from "../src/rules/waitlist.ts";

const vip: TicketType = { name: "VIP", price: { amount: 9_900, currency: "EUR" }, capacity: 2, salesEndAt: null };
const general: TicketType = {
  name: "General",
  price: { amount: 0, currency: "EUR" },
  capacity: null,
  salesEndAt: "2041-03-01T00:00:00.000Z",
};
const event = { id: "evt_1", ticketTypes: [vip, general], capacity: 10, status: "published" as const };

function failure(fn: () => unknown): Pick<ServiceError, "code" | "field" | "details"> {
  try {
    fn();
  } catch (error) {
    assert.ok(ServiceError.is(error));
    return { code: error.code, field: error.field, details: error.details };
  }
  assert.fail("did not throw");
}

describe("ticket types", () => {
  test("the input: names unique in any case, one currency, ISO 4217 codes in upper case, integer minor units", () => {
    const issues = (value: unknown) =>
      TicketTypesInput.safeParse(value).error?.issues.map((issue) => [issue.path.join("."), issue.message]) ?? [];
    const eur = (amount: number, currency = "EUR") => ({ amount, currency });
    assert.deepEqual(issues([{ name: "VIP", price: eur(100) }]), []);
    assert.deepEqual(
      issues([
        { name: "VIP", price: eur(100) },
        { name: "vip", price: eur(5) },
      ]),
      [["1.name", "must be unique in the event"]],
    );
    assert.deepEqual(
      issues([
        { name: "A", price: eur(1) },
        { name: "B", price: eur(1, "USD") },
      ]),
      [["1.price.currency", "must be the currency of the event's other ticket types (EUR)"]],
    );
    assert.equal(issues([{ name: "A", price: eur(1, "eur") }])[0]?.[0], "0.price.currency");
    assert.equal(issues([{ name: "A", price: eur(1, "XYZ") }])[0]?.[0], "0.price.currency");
    assert.equal(issues([{ name: "A", price: eur(1.5) }])[0]?.[0], "0.price.amount");
    assert.equal(issues([{ name: "A", price: eur(-1) }])[0]?.[0], "0.price.amount");
    assert.equal(issues([{ name: "A", price: eur(100_000_000) }])[0]?.[0], "0.price.amount");
    assert.equal(issues([{ name: "A", price: eur(1), capacity: 0 }])[0]?.[0], "0.capacity");
    assert.deepEqual(
      toTicketTypes(
        TicketTypesInput.parse([{ name: " A ", price: eur(0, "JPY"), salesEndAt: "2041-01-01T01:00:00+01:00" }]),
      ),
      [{ name: "A", price: eur(0, "JPY"), capacity: null, salesEndAt: "2041-01-01T00:00:00.000Z" }],
    );
  });

  test("a registration's type: one of the event's (any case), on sale until salesEndAt; any text without types", () => {
    assert.equal(ticketTypeOf(event, "vip", "2041-01-01T00:00:00.000Z"), vip);
    assert.equal(ticketTypeOf({ id: "evt_2", ticketTypes: [] }, "anything"), null);
    assert.deepEqual(
      failure(() => ticketTypeOf(event, "Student")),
      {
        code: "INVALID_REQUEST",
        field: "ticketType",
        details: { ticketTypes: ["VIP", "General"] },
      },
    );
    assert.equal(ticketTypeOf(event, "General", "2041-02-28T23:59:59.999Z"), general);
    assert.deepEqual(failure(() => ticketTypeOf(event, "General", "2041-03-01T00:00:00.000Z")).details, {
      reason: "sales_ended",
      salesEndAt: "2041-03-01T00:00:00.000Z",
    });
    // Without a time (a place taken back by the organiser), the sale's end does not apply.
    assert.equal(ticketTypeOf(event, "General"), general);
  });

  test("admission: a place in the event and in the type; else the waiting list, else EVENT_FULL naming what is full", () => {
    const open = { ...event, waitlistEnabled: false };
    assert.equal(admission(open, { active: 3, waitlisted: 0 }, { type: vip, active: 1 }).status, "confirmed");
    assert.deepEqual(
      failure(() => admission(open, { active: 3, waitlisted: 0 }, { type: vip, active: 2 })),
      {
        code: "EVENT_FULL",
        field: undefined,
        details: { ticketType: "VIP", capacity: 2, activeRegistrations: 2 },
      },
    );
    assert.equal(
      failure(() => admission(open, { active: 10, waitlisted: 0 }, { type: general, active: 8 })).details?.ticketType,
      undefined,
    );
    assert.deepEqual(
      admission({ ...open, waitlistEnabled: true }, { active: 3, waitlisted: 4 }, { type: vip, active: 2 }),
      {
        status: "waitlisted",
        waitlistPosition: 5,
      },
    );
  });

  test("promotion order: in line, passing over those whose type has no room, as many as there are places", () => {
    const line = ["VIP", "General", "vip", "Speaker", "General"].map((ticketType) => ({ ticketType }));
    assert.deepEqual(promotionOrder(line, 2, new Map([["vip", 0]])), [1, 3]);
    assert.deepEqual(promotionOrder(line, 5, new Map([["vip", 1]])), [0, 1, 3, 4]);
    assert.deepEqual(promotionOrder(line, 1, new Map()), [0]);
    assert.deepEqual(promotionOrder(line, 0, new Map()), []);
  });

  test("a change of the types keeps every holder's type and every type's active registrations", () => {
    const held = new Map([["vip", { name: "VIP", active: 2, waitlisted: 1 }]]);
    assert.doesNotThrow(() => assertTicketTypesCover([vip], held));
    assert.doesNotThrow(() => assertTicketTypesCover([], held));
    assert.deepEqual(
      failure(() => assertTicketTypesCover([general], held)),
      {
        code: "INVALID_REQUEST",
        field: "ticketTypes",
        details: { ticketType: "VIP", activeRegistrations: 2, waitlisted: 1 },
      },
    );
    assert.equal(failure(() => assertTicketTypesCover([{ ...vip, capacity: 1 }], held)).field, "ticketTypes");
  });

  test("payments: what a ticket owes (with a USD ticket's offset), holds, parts, refunds and the policy", () => {
    const usd: TicketType = { ...vip, price: { amount: 5_000, currency: "USD" } };
    const stripe = { provider: "stripe" as const, holdMinutes: 0.5 };
    assert.equal(paymentFor(general, MANUAL_PAYMENT_TERMS, "2041-01-01T00:00:00.000Z"), null);
    assert.equal(paymentFor(null, stripe, "2041-01-01T00:00:00.000Z"), null);
    const held = paymentFor(usd, stripe, "2041-01-01T00:00:00.000Z", { opted: true, amount: 12.5 })!;
    assert.deepEqual([held.amount, held.currency, held.expiresAt], [6_250, "USD", "2041-01-01T00:00:30.000Z"]);
    // Offsets are in USD: a EUR ticket takes none, nor one not opted.
    assert.equal(paymentFor(vip, stripe, "2041-01-01T00:00:00.000Z", { opted: true, amount: 12.5 })!.amount, 9_900);
    assert.equal(
      paymentFor(usd, MANUAL_PAYMENT_TERMS, "2041-01-01T00:00:00.000Z", { opted: false, amount: 9 })!.expiresAt,
      null,
    );

    const attendee = {
      id: "att_1",
      status: "pending" as const,
      payment: paymentFor(vip, MANUAL_PAYMENT_TERMS, "2041-01-01T00:00:00.000Z"),
    };
    assert.deepEqual(
      failure(() => assertPayable(attendee, 9_901)),
      {
        code: "INVALID_REQUEST",
        field: "amount",
        details: { outstanding: 9_900, currency: "EUR" },
      },
    );
    const part = withPaid(attendee.payment!, 4_000, "2041-01-02T00:00:00.000Z");
    assert.deepEqual([part.status, part.amountPaid], ["requires_payment", 4_000]);
    assert.deepEqual(
      failure(() => assertPaidForStatus({ status: "pending" }, { ...attendee, status: "confirmed", payment: part }))
        .details,
      {
        reason: "payment_required",
        outstanding: 5_900,
        currency: "EUR",
      },
    );
    const paid = withPaid(part, 5_900, "2041-01-03T00:00:00.000Z");
    assert.deepEqual([paid.status, paid.admittedAt], ["paid", "2041-01-03T00:00:00.000Z"]);
    assert.doesNotThrow(() =>
      assertPaidForStatus({ status: "pending" }, { ...attendee, status: "confirmed", payment: paid }),
    );
    assert.equal(refundAmount({ id: "att_1", payment: paid }), 9_900);
    assert.equal(failure(() => refundAmount({ id: "att_1", payment: paid }, 9_901)).field, "amount");
    assert.equal(withRefunded(paid, 100, true).status, "partially_refunded");
    assert.equal(withRefunded(paid, 9_900, true).status, "refunded");
    const event = { refundPolicy: "full" as const, startDate: "2041-06-01T09:00:00.000Z" };
    assert.equal(refundOnCancel(event, paid, "2041-06-01T08:59:59.999Z"), 9_900);
    assert.equal(refundOnCancel(event, paid, "2041-06-01T09:00:00.000Z"), 0);
    assert.equal(refundOnCancel({ ...event, refundPolicy: "none" }, paid, "2041-01-01T00:00:00.000Z"), 0);
  });

  test("admission: what is owed is the price less the money kept; once admitted a refund by hand never takes the ticket away, a cancellation does", () => {
    const at = (day: number) => `2041-01-0${day}T00:00:00.000Z`;
    const fresh = paymentFor({ ...vip, price: { amount: 5_000, currency: "EUR" } }, MANUAL_PAYMENT_TERMS, at(1))!;
    const pending = { id: "att_1", status: "pending" as const };
    // 2000 paid, 1000 of it refunded, 3000 paid: 4000 kept of 5000, still owing 1000.
    const partly = withRefunded(withPaid(fresh, 2_000, at(2)), 1_000, true);
    assert.deepEqual([partly.status, partly.amountRefunded, outstanding(partly)], ["requires_payment", 1_000, 4_000]);
    const short = withPaid(partly, 3_000, at(3));
    assert.deepEqual([short.status, short.admittedAt, outstanding(short)], ["requires_payment", null, 1_000]);
    assert.deepEqual(
      failure(() => withAdmission(pending, { ...pending, status: "checked-in", payment: short }, at(3))).details,
      { reason: "payment_required", outstanding: 1_000, currency: "EUR" },
    );
    assert.deepEqual(failure(() => assertPayable({ ...pending, payment: short }, 1_001)).details, {
      outstanding: 1_000,
      currency: "EUR",
    });
    assert.doesNotThrow(() => assertPayable({ ...pending, payment: short }, 1_000));
    const admitted = withPaid(short, 1_000, at(4));
    assert.deepEqual(
      [admitted.status, admitted.admittedAt, admitted.amountPaid, outstanding(admitted)],
      ["paid", at(4), 6_000, 0],
    );
    // A goodwill refund keeps the ticket: nothing is owed, check-in works.
    const goodwill = withRefunded(admitted, 500, true);
    assert.deepEqual([goodwill.status, goodwill.admittedAt, outstanding(goodwill)], ["partially_refunded", at(4), 0]);
    const confirmed = { id: "att_1", status: "confirmed" as const };
    const checkedIn = withAdmission(
      confirmed,
      { ...confirmed, status: "checked-in" as const, payment: goodwill },
      at(5),
    );
    assert.equal(checkedIn.payment.admittedAt, at(4));
    assert.equal(withRefunded(goodwill, 4_500, true).status, "refunded");
    assert.equal(failure(() => assertPayable({ ...pending, payment: goodwill }, 1)).details?.reason, "not_payable");
    // A cancellation takes admission away: taken back, it must be paid for again.
    const cancelled = withAdmission(
      confirmed,
      { ...confirmed, status: "cancelled" as const, payment: goodwill },
      at(6),
    );
    assert.equal(cancelled.payment.admittedAt, null);
    assert.equal(withRefunded(cancelled.payment, 4_500, false).status, "refunded");
    assert.deepEqual(
      failure(() =>
        withAdmission(
          { status: "cancelled" },
          { ...confirmed, payment: withRefunded(cancelled.payment, 4_500, false) },
          at(7),
        ),
      ).details,
      { reason: "payment_required", outstanding: 5_000, currency: "EUR" },
    );
    // Taken back with the money still kept in full (no refund under `none`), it is admitted again.
    const kept = withAdmission(
      { status: "cancelled" },
      { ...confirmed, payment: { ...admitted, admittedAt: null } },
      at(8),
    );
    assert.deepEqual([kept.payment.status, kept.payment.admittedAt], ["paid", at(8)]);
    // After a full refund of what a pending registration paid, it owes the whole price again.
    const back = withRefunded(withPaid(fresh, 2_000, at(2)), 2_000, true);
    assert.deepEqual([back.status, outstanding(back)], ["requires_payment", 5_000]);
  });

  test("money messages name the minor unit with the amount in the currency's major unit", () => {
    assert.equal(inMajorUnits(4_455, "EUR"), "44.55 EUR");
    assert.equal(inMajorUnits(4_455, "JPY"), "4455 JPY");
    assert.equal(inMajorUnits(4_455, "BHD"), "4.455 BHD");
    assert.equal(inMajorUnits(5, "EUR"), "0.05 EUR");
    const owing = {
      id: "att_1",
      status: "pending" as const,
      payment: { ...paymentFor(vip, MANUAL_PAYMENT_TERMS, "2041-01-01T00:00:00.000Z")!, amount: 4_455 },
    };
    assert.equal(
      (() => {
        try {
          assertPayable(owing, 9_000);
        } catch (error) {
          return (error as Error).message;
        }
      })(),
      "amount: 9000 is more than the 4455 still owed (amounts are in the currency's minor units: 4455 is 44.55 EUR)",
    );
    const paid = withPaid(owing.payment, 4_455, "2041-01-02T00:00:00.000Z");
    assert.equal(
      (() => {
        try {
          refundAmount({ id: "att_1", payment: paid }, 9_000);
        } catch (error) {
          return (error as Error).message;
        }
      })(),
      "amount: 9000 is more than the 4455 paid and not refunded (amounts are in the currency's minor units: 4455 is 44.55 EUR)",
    );
  });

  test("a price with its offset contribution stays within the maximum a payment can take", () => {
    const usd: TicketType = { ...vip, price: { amount: 7_000, currency: "USD" } };
    assert.equal(MAX_PAYMENT_AMOUNT, 99_999_999);
    assert.doesNotThrow(() => assertWithinMaximum(usd, { opted: true, amount: 999_929.99 }));
    assert.deepEqual(
      failure(() => assertWithinMaximum(usd, { opted: true, amount: 1_000_000 })),
      {
        code: "INVALID_REQUEST",
        field: "carbonOffset.amount",
        details: { maximum: 99_999_999, amount: 100_007_000, currency: "USD" },
      },
    );
    // Not opted, or a ticket in another currency: no contribution is taken.
    assert.doesNotThrow(() => assertWithinMaximum(usd, { opted: false, amount: 1_000_000 }));
    assert.doesNotThrow(() => assertWithinMaximum(vip, { opted: true, amount: 1_000_000 }));
    assert.doesNotThrow(() => assertWithinMaximum(null, { opted: true, amount: 1_000_000 }));
  });

  test("a Checkout payment: only a pending Stripe registration that owes something, before its hold ends; refusals by reason", () => {
    const now = "2038-05-01T10:00:00.000Z";
    const owing = paymentFor(vip, { provider: "stripe", holdMinutes: 30 }, now)!;
    const pending = { id: "att_1", status: "pending" as const, payment: owing };
    assert.doesNotThrow(() => assertCheckoutPayable(pending, now));
    assert.doesNotThrow(() => assertCheckoutPayable({ ...pending, payment: { ...owing, status: "failed" } }, now));
    const reason = (attendee: Parameters<typeof assertCheckoutPayable>[0], at = now) =>
      failure(() => assertCheckoutPayable(attendee, at));
    assert.deepEqual(reason({ ...pending, status: "confirmed", payment: null }), {
      code: "INVALID_STATE_TRANSITION",
      field: undefined,
      details: { reason: "not_priced", status: "confirmed", paymentStatus: null },
    });
    const manual = paymentFor(vip, MANUAL_PAYMENT_TERMS, now)!;
    assert.equal(reason({ ...pending, payment: manual }).details?.reason, "manual_payment");
    assert.equal(reason({ ...pending, status: "cancelled" }).details?.reason, "not_payable");
    assert.equal(reason({ ...pending, payment: { ...owing, status: "expired" } }).details?.reason, "not_payable");
    const paid = withPaid(owing, 9_900, now);
    assert.equal(reason({ ...pending, payment: paid }).details?.reason, "not_payable");
    assert.equal(reason(pending, "2038-05-01T10:30:00.000Z").details?.reason, "payment_expired");
  });

  test("a Checkout Session ends with the hold, within Stripe's 30 minutes to 24 hours, the shortest rounded up to the minute", () => {
    const now = "2038-05-01T10:00:20.000Z";
    const seconds = (iso: string) => Date.parse(iso) / 1000;
    // A hold of 30 minutes ends sooner than Stripe allows: 31 minutes, rounded up to the minute.
    assert.equal(checkoutExpiresAt("2038-05-01T10:30:20.000Z", now), seconds("2038-05-01T10:32:00.000Z"));
    assert.equal(checkoutExpiresAt("2038-05-01T10:00:30.000Z", now), seconds("2038-05-01T10:32:00.000Z"));
    // A longer hold: the session ends with it.
    assert.equal(checkoutExpiresAt("2038-05-01T12:00:00.000Z", now), seconds("2038-05-01T12:00:00.000Z"));
    // A hold beyond 24 hours, or none: a minute short of Stripe's longest.
    assert.equal(checkoutExpiresAt("2038-05-03T00:00:00.000Z", now), seconds("2038-05-02T09:59:20.000Z"));
    assert.equal(checkoutExpiresAt(null, now), seconds("2038-05-02T09:59:20.000Z"));
    // Within the same minute, the same expiry (so the same session is asked for).
    assert.equal(
      checkoutExpiresAt("2038-05-01T10:30:00.000Z", "2038-05-01T10:00:01.000Z"),
      checkoutExpiresAt("2038-05-01T10:30:00.000Z", "2038-05-01T10:00:59.000Z"),
    );
  });
});
