import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ServiceError } from "../src/errors.ts";
import {
  assertAttendeeTransition, ATTENDEE_STATUSES, type AttendeeStatus, isActiveAttendeeStatus, isAttendeeTransitionAllowed,
} from "../src/rules/attendee-status.ts";
import { assertEventTransition, EVENT_STATUSES, type EventStatus, isEventTransitionAllowed } from "../src/rules/event-status.ts";

// The expected tables, written out from DECISIONS.md rather than derived from the code's tables.
const EVENT_ALLOWED = new Set([
  "draft>draft", "draft>published", "draft>cancelled",
  "published>published", "published>completed", "published>cancelled",
  "cancelled>cancelled", "completed>completed",
]);

const ATTENDEE_ALLOWED = new Set([
  "confirmed>confirmed", "confirmed>pending", "confirmed>checked-in", "confirmed>cancelled",
  "pending>pending", "pending>confirmed", "pending>checked-in", "pending>cancelled",
  "cancelled>cancelled", "cancelled>confirmed",
  "checked-in>checked-in",
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
              ServiceError.is(error) && error.code === "INVALID_STATE_TRANSITION" && error.status === 422 && error.field === "status" &&
              (error.details as { from: string; to: string }).from === from && (error.details as { to: string }).to === to,
          );
        }
      });
    }
  }
  test("the table covers 16 pairs", () => assert.equal(EVENT_STATUSES.length ** 2, 16));
});

describe("attendee status transitions", () => {
  for (const from of ATTENDEE_STATUSES) {
    for (const to of ATTENDEE_STATUSES) {
      const allowed = ATTENDEE_ALLOWED.has(`${from}>${to}`);
      test(`${from} -> ${to} is ${allowed ? "allowed" : "refused"}`, () => {
        assert.equal(isAttendeeTransitionAllowed(from as AttendeeStatus, to as AttendeeStatus), allowed);
        if (allowed) assert.doesNotThrow(() => assertAttendeeTransition(from, to));
        else {
          assert.throws(() => assertAttendeeTransition(from, to), (error: unknown) => ServiceError.is(error) && error.code === "INVALID_STATE_TRANSITION");
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
