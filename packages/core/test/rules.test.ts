import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ServiceError } from "../src/errors.ts";
import {
  assertAttendeeTransition,
  isActiveAttendeeStatus,
  isAttendeeTransitionAllowed,
  RELEASED_ATTENDEE_STATUS,
} from "../src/rules/attendee-status.ts";
import {
  assertEventTransition,
  CANCELLED_WITH_EVENT,
  cancelsEvent,
  isEventTransitionAllowed,
  REFUNDED_WITH_EVENT,
} from "../src/rules/event-status.ts";
import { assertDoorOpen } from "../src/rules/check-in.ts";
import { typedConfirmationCode } from "../src/rules/confirmation-code.ts";
import { FINAL_DELIVERY_STATUSES } from "../src/rules/delivery-status.ts";
import { isClaimLive } from "../src/rules/idempotency-claim.ts";
import { SOURCING_BOOKING_STATUS } from "../src/rules/local-sourcing.ts";
import { PAYABLE_PAYMENT_STATUSES } from "../src/resources/payment.ts";
import {
  FAILED_REFUND_STATUS,
  MANUAL_PAYMENT_TERMS,
  paymentFor,
  refundOnCancel,
  refundOnEventCancel,
} from "../src/rules/payments.ts";
import { reserveInWindows } from "../src/rules/rate-limit.ts";
import { hasWebhookRoom, WEBHOOK_LIMITS } from "../src/rules/webhook-quota.ts";
import { ATTENDEE_STATUSES, type AttendeeStatus, newAttendeeRecord } from "../src/resources/attendee.ts";
import { EVENT_STATUSES, type EventStatus } from "../src/resources/event.ts";
import { undoCheckIn } from "../src/rules/attendee-update.ts";

// The expected tables, written out from docs/api.md's status tables rather than derived from the code's tables.
const EVENT_ALLOWED = new Set([
  "draft>draft",
  "draft>published",
  "draft>cancelled",
  "published>published",
  "published>completed",
  "published>cancelled",
  "cancelled>cancelled",
  "completed>completed",
]);

const ATTENDEE_ALLOWED = new Set([
  "confirmed>confirmed",
  "confirmed>pending",
  "confirmed>checked-in",
  "confirmed>cancelled",
  "pending>pending",
  "pending>confirmed",
  "pending>checked-in",
  "pending>cancelled",
  "cancelled>cancelled",
  "cancelled>confirmed",
  "checked-in>checked-in",
  "waitlisted>waitlisted",
  "waitlisted>confirmed",
  "waitlisted>pending",
  "waitlisted>cancelled",
]);

describe("event status transitions", () => {
  for (const from of EVENT_STATUSES) {
    for (const to of EVENT_STATUSES) {
      const allowed = EVENT_ALLOWED.has(`${from}>${to}`);
      test(`${from} -> ${to} is ${allowed ? "allowed" : "refused"}`, () => {
        assert.equal(isEventTransitionAllowed(from as EventStatus, to as EventStatus), allowed);
        if (allowed) {
          assert.doesNotThrow(() => assertEventTransition(from, to));
        } else {
          assert.throws(
            () => assertEventTransition(from, to),
            (error: unknown) =>
              ServiceError.is(error) &&
              error.code === "INVALID_STATE_TRANSITION" &&
              error.status === 422 &&
              error.field === "status" &&
              (error.details as { from: string; to: string }).from === from &&
              (error.details as { to: string }).to === to,
          );
        }
      });
    }
  }
  test("the table covers 16 pairs", () => assert.equal(EVENT_STATUSES.length ** 2, 16));

  test("a cancellation cancels the registrations holding an unused place or waiting, and refunds those and the checked-in in full", () => {
    assert.deepEqual(
      EVENT_STATUSES.flatMap((from) => EVENT_STATUSES.map((to) => [from, to, cancelsEvent(from, to)] as const))
        .filter(([, , cancels]) => cancels)
        .map(([from, to]) => `${from}>${to}`),
      ["draft>cancelled", "published>cancelled", "completed>cancelled"],
    );
    assert.deepEqual([...CANCELLED_WITH_EVENT], ["confirmed", "pending", "waitlisted"]);
    assert.deepEqual(
      ATTENDEE_STATUSES.filter((status) => !(REFUNDED_WITH_EVENT as readonly string[]).includes(status)),
      ["cancelled"],
    );
    const paid = {
      ...paymentFor(
        { name: "VIP", price: { amount: 5000, currency: "EUR" }, capacity: null, salesEndAt: null },
        MANUAL_PAYMENT_TERMS,
        "2038-01-01T00:00:00.000Z",
      )!,
      amountPaid: 5000,
      amountRefunded: 1200,
    };
    const strict = { refundPolicy: "none" as const, startDate: "2038-05-01T09:00:00.000Z" };
    // Under `none`, or after the start, a registration's own cancellation keeps the money; the event's returns what is kept.
    assert.equal(refundOnCancel(strict, paid, "2038-04-01T00:00:00.000Z"), 0);
    assert.equal(refundOnCancel({ ...strict, refundPolicy: "full" }, paid, "2038-06-01T00:00:00.000Z"), 0);
    assert.equal(refundOnEventCancel(paid), 3800);
    assert.equal(refundOnEventCancel(null), 0);
    assert.equal(refundOnEventCancel({ ...paid, amountPaid: 0, amountRefunded: 0 }), 0);
  });
});

describe("attendee status transitions", () => {
  for (const from of ATTENDEE_STATUSES) {
    for (const to of ATTENDEE_STATUSES) {
      const allowed = ATTENDEE_ALLOWED.has(`${from}>${to}`);
      test(`${from} -> ${to} is ${allowed ? "allowed" : "refused"}`, () => {
        assert.equal(isAttendeeTransitionAllowed(from as AttendeeStatus, to as AttendeeStatus), allowed);
        if (allowed) assert.doesNotThrow(() => assertAttendeeTransition(from, to));
        else {
          assert.throws(
            () => assertAttendeeTransition(from, to),
            (error: unknown) => ServiceError.is(error) && error.code === "INVALID_STATE_TRANSITION",
          );
        }
      });
    }
  }

  test("active statuses are the ones that hold a place", () => {
    assert.deepEqual(
      ATTENDEE_STATUSES.filter((status) => isActiveAttendeeStatus(status)),
      ["confirmed", "pending", "checked-in"],
    );
  });
});

describe("the door", () => {
  for (const status of EVENT_STATUSES) {
    test(`check-in ${status === "published" ? "is open" : "is closed"} while the event is ${status}`, () => {
      if (status === "published") return assert.doesNotThrow(() => assertDoorOpen({ id: "evt_1", status }));
      assert.throws(
        () => assertDoorOpen({ id: "evt_1", status }),
        (error: unknown) => {
          assert.ok(ServiceError.is(error));
          assert.equal(error.code, "INVALID_STATE_TRANSITION");
          assert.deepEqual(error.details, { reason: "event_not_published", eventStatus: status });
          return true;
        },
      );
    });
  }

  for (const status of ATTENDEE_STATUSES) {
    test(`undoing the check-in of a ${status} registration ${status === "checked-in" ? "gives it back confirmed" : "is refused"}`, () => {
      const record = {
        ...newAttendeeRecord(
          { firstName: "Ada", lastName: "L", email: "ada@example.com", ticketType: "general" } as never,
          { id: "att_1", accountId: "acc_1", confirmationCode: "EVT-2222-3333", now: "2026-01-01T00:00:00.000Z" },
        ),
        eventId: "evt_1",
        status,
        checkedInAt: status === "checked-in" ? "2026-01-02T00:00:00.000Z" : null,
      };
      if (status === "checked-in") {
        assert.deepEqual(undoCheckIn(record, "2026-01-03T00:00:00.000Z"), {
          ...record,
          status: "confirmed",
          checkedInAt: null,
          updatedAt: "2026-01-03T00:00:00.000Z",
        });
        return;
      }
      assert.throws(
        () => undoCheckIn(record, "2026-01-03T00:00:00.000Z"),
        (error: unknown) => {
          assert.ok(ServiceError.is(error));
          assert.equal(error.code, "INVALID_STATE_TRANSITION");
          assert.deepEqual(error.details, { reason: "not_checked_in", status });
          return true;
        },
      );
    });
  }
});

describe("a confirmation code as a person types it", () => {
  for (const typed of [
    "EVT-7KQ2-M9XH",
    "evt-7kq2-m9xh",
    "evt 7kq2 m9xh",
    "EVT7KQ2M9XH",
    " evt-7kq2-m9xh ",
    "Evt 7KQ2-m9xh",
    "EVT\u20137KQ2\u2014M9XH",
    "evt\u00a07kq2\tm9xh",
  ]) {
    test(`${JSON.stringify(typed)} is EVT-7KQ2-M9XH`, () =>
      assert.equal(typedConfirmationCode(typed), "EVT-7KQ2-M9XH"));
  }
  test("what is not a code stays what it was, in upper case without spaces and dashes (it matches no code)", () => {
    assert.equal(typedConfirmationCode("EVT-7KQ2-M9XH-X"), "EVT7KQ2M9XHX");
    assert.equal(typedConfirmationCode("abc"), "ABC");
    assert.equal(typedConfirmationCode(" - "), "");
  });
});

describe("definitions the storage's queries ask for", () => {
  const limits = { perMinute: 3, perDay: 5 };
  const stored = { minuteStart: 60, minute: 2, dayStart: 0, day: 4 };

  test("a reservation is granted up to the tighter limit, in the stored windows", () => {
    assert.deepEqual(reserveInWindows(stored, { windows: { minute: 60, day: 0 }, want: 4, limits }), {
      minuteStart: 60,
      minute: 3,
      dayStart: 0,
      day: 5,
      granted: 1,
    });
  });

  test("a newer window starts at 0; unspent requests go back to the windows they were taken from", () => {
    assert.deepEqual(reserveInWindows(stored, { windows: { minute: 120, day: 0 }, want: 4, limits }), {
      minuteStart: 120,
      minute: 1,
      dayStart: 0,
      day: 5,
      granted: 1,
    });
    const giveBack = { windows: { minute: 60, day: 0 }, count: 2 };
    assert.deepEqual(reserveInWindows(stored, { windows: { minute: 120, day: 0 }, want: 4, limits, giveBack }), {
      minuteStart: 120,
      minute: 3,
      dayStart: 0,
      day: 5,
      granted: 3,
    });
    const older = { windows: { minute: 0, day: 0 }, count: 2 };
    assert.deepEqual(reserveInWindows(stored, { windows: { minute: 60, day: 0 }, want: 0, limits, giveBack: older }), {
      minuteStart: 60,
      minute: 2,
      dayStart: 0,
      day: 2,
      granted: 0,
    });
  });

  test("an Idempotency-Key claim holds its key until it expires, or while running until it goes stale", () => {
    const at = { now: "2026-06-01T12:00:00.000Z", staleBefore: "2026-06-01T11:59:00.000Z" };
    const claim = { state: "running", createdAt: "2026-06-01T11:59:30.000Z", expiresAt: "2026-06-02T11:59:30.000Z" };
    assert.equal(isClaimLive(claim, at), true);
    assert.equal(isClaimLive({ ...claim, createdAt: "2026-06-01T11:58:59.000Z" }, at), false);
    assert.equal(isClaimLive({ ...claim, state: "done", createdAt: "2026-06-01T11:00:00.000Z" }, at), true);
    assert.equal(isClaimLive({ ...claim, state: "done", expiresAt: at.now }, at), false);
  });

  test("every webhook an account holds counts against its tier's limit", () => {
    assert.deepEqual(WEBHOOK_LIMITS, { free: 5, starter: 20, professional: 50, enterprise: 200 });
    assert.equal(hasWebhookRoom(4, WEBHOOK_LIMITS.free), true);
    assert.equal(hasWebhookRoom(5, WEBHOOK_LIMITS.free), false);
  });

  test("named statuses: released, payable, a refund that failed, sourcing bookings, final deliveries", () => {
    assert.equal(RELEASED_ATTENDEE_STATUS, "cancelled");
    assert.deepEqual(PAYABLE_PAYMENT_STATUSES, ["requires_payment", "failed"]);
    assert.equal(FAILED_REFUND_STATUS, "failed");
    assert.equal(SOURCING_BOOKING_STATUS, "confirmed");
    assert.deepEqual(FINAL_DELIVERY_STATUSES, ["succeeded", "failed"]);
  });
});
