/**
 * The attendee's ticket link in core: its tokens and their redaction, the rules of what the
 * attendee may change (the merge of their travel, the refusals after the start and once
 * cancelled, the QR code while admitted), the calendar writer against hostile text, and the
 * link's budget of requests in the handler (`linkLimitPerMinute`, and its former name).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { calendarOf, escapeText, foldLine, utcDateTime } from "../src/_internal/icalendar.ts";
import { ServiceError } from "../src/errors.ts";
import { createHandler, type HandlerOptions } from "../src/http/handler.ts";
import { isLinkToken, linkHashOf, newLinkToken, redactLinkTokens } from "../src/resources/link-token.ts";
import {
  assertTicketChangeable,
  showsQrCode,
  ticketAmountDue,
  ticketChangeRefusal,
  ticketUpdateOf,
} from "../src/rules/ticket-link.ts";
import { ATTENDEE_STATUSES } from "../src/resources/attendee.ts";
import type { PaymentRecord } from "../src/resources/payment.ts";
import { TicketUpdateInput } from "../src/resources/ticket-link.ts";
import { createEventService } from "../src/service.ts";
import { sqliteStorage } from "./_sqlite.ts";
import { EVENT } from "./_fixtures.ts";

/** RFC 5545 3.1 and 3.3.11 read back: lines unfolded, then a TEXT value unescaped. */
function unfold(calendar: string): string[] {
  return calendar.replace(/\r\n[ \t]/g, "").split("\r\n");
}
function unescapeText(value: string): string {
  return value.replace(/\\([\\;,nN])/g, (_match, c: string) => (c === "n" || c === "N" ? "\n" : c));
}
const octets = (line: string) => new TextEncoder().encode(line).length;

describe("ticket link tokens", () => {
  test("tkt_ and 43 URL-safe characters (256 bits); a vendor's token is not a ticket's; hashed as SHA-256", () => {
    const token = newLinkToken("ticket");
    assert.match(token, /^tkt_[A-Za-z0-9_-]{43}$/);
    assert.notEqual(newLinkToken("ticket"), token);
    assert.equal(Buffer.from(token.slice(4), "base64url").length, 32);
    assert.equal(isLinkToken(token, "ticket"), true);
    assert.equal(isLinkToken(token, "vendor"), false);
    assert.equal(isLinkToken(newLinkToken("vendor"), "ticket"), false);
    assert.equal(isLinkToken(`${token}x`, "ticket"), false);
    assert.match(linkHashOf(token), /^[0-9a-f]{64}$/);
  });

  test("redactLinkTokens cuts a ticket's token as it cuts a vendor's, wherever they are in the text", () => {
    const ticket = newLinkToken("ticket");
    const vendor = newLinkToken("vendor");
    assert.equal(redactLinkTokens(`/v1/tickets/${ticket}/calendar.ics`), "/v1/tickets/tkt_…/calendar.ics");
    assert.equal(redactLinkTokens(`/api/vendor-requests/${vendor}/confirm`), "/api/vendor-requests/vrq_…/confirm");
    assert.equal(redactLinkTokens(`${ticket} and ${vendor}`), "tkt_… and vrq_…");
    assert.equal(redactLinkTokens("/v1/events/evt_0123"), "/v1/events/evt_0123");
  });
});

describe("what the attendee may change", () => {
  const now = "2038-04-30T12:00:00.000Z";
  const event = { id: "evt_1", startDate: "2038-05-01T09:00:00.000Z", status: "published" as const };

  test("until the event starts, while the registration is not cancelled: 422 with the reason afterwards", () => {
    assert.equal(ticketChangeRefusal(event, { status: "confirmed" }, now), null);
    assert.equal(ticketChangeRefusal(event, { status: "waitlisted" }, now), null);
    assert.equal(ticketChangeRefusal(event, { status: "confirmed" }, event.startDate), "event_started");
    assert.equal(ticketChangeRefusal(event, { status: "cancelled" }, now), "registration_cancelled");
    assert.equal(ticketChangeRefusal(event, { status: "cancelled" }, "2038-05-02T00:00:00.000Z"), "event_started");
    assert.throws(
      () => assertTicketChangeable(event, { id: "att_1", status: "pending" }, "2038-05-01T09:00:00.001Z"),
      (error) =>
        ServiceError.is(error) &&
        error.code === "INVALID_STATE_TRANSITION" &&
        error.status === 422 &&
        (error.details as { reason: string }).reason === "event_started",
    );
    assert.doesNotThrow(() => assertTicketChangeable(event, { id: "att_1", status: "pending" }, now));
  });

  test("the QR code shows while admitted (confirmed, checked in), never for an event called off", () => {
    const shown = (status: "confirmed" | "checked-in" | "pending" | "waitlisted" | "cancelled") =>
      showsQrCode(event, { status });
    assert.deepEqual((["confirmed", "checked-in", "pending", "waitlisted", "cancelled"] as const).map(shown), [
      true,
      true,
      false,
      false,
      false,
    ]);
    assert.equal(showsQrCode({ status: "cancelled" }, { status: "confirmed" }), false);
  });

  test("the amount due: what is not kept of the price while pending; nothing admitted or cancelled, whatever was refunded", () => {
    const payment = (money: Partial<PaymentRecord>): PaymentRecord => ({
      status: "requires_payment",
      amount: 12_000,
      currency: "EUR",
      amountPaid: 0,
      amountRefunded: 0,
      provider: "stripe",
      expiresAt: null,
      paymentIntentId: null,
      clientSecret: null,
      stripeAccount: null,
      promoted: false,
      admittedAt: null,
      checkoutSessionId: null,
      ...money,
    });
    const partPaid = payment({ amountPaid: 5000, status: "requires_payment" });
    assert.deepEqual(
      ATTENDEE_STATUSES.map((status) => [status, ticketAmountDue({ status, payment: partPaid })]),
      [
        ["confirmed", 0],
        ["pending", 7000],
        ["cancelled", 0],
        ["checked-in", 0],
        ["waitlisted", 0],
      ],
    );
    // Paid, then cancelled and refunded: the cancellation cleared admittedAt, yet nothing is owed.
    const refunded = payment({ status: "refunded", amountPaid: 12_000, amountRefunded: 12_000 });
    assert.equal(ticketAmountDue({ status: "cancelled", payment: refunded }), 0);
    assert.equal(ticketAmountDue({ status: "pending", payment: payment({}) }), 12_000);
  });

  test("travel merges into carbonOffset (amount kept, null clears); the details replace; nothing left out is touched", () => {
    const before = { carbonOffset: { opted: false, amount: 5, travelMode: "car" as const, travelDistance: 200 } };
    const parse = (input: unknown) => TicketUpdateInput.parse(input);
    assert.deepEqual(ticketUpdateOf(before, parse({ carbonOffset: { travelMode: "train", opted: true } })), {
      carbonOffset: { opted: true, amount: 5, travelMode: "train", travelDistance: 200 },
    });
    assert.deepEqual(ticketUpdateOf(before, parse({ carbonOffset: { travelDistance: null } })), {
      carbonOffset: { opted: false, amount: 5, travelMode: "car" },
    });
    assert.deepEqual(ticketUpdateOf({ carbonOffset: null }, parse({ carbonOffset: { travelMode: "bus" } })), {
      carbonOffset: { travelMode: "bus" },
    });
    assert.deepEqual(
      ticketUpdateOf(before, parse({ dietaryPreferences: ["Vegan", "vegan"], emergencyContact: null })),
      { dietaryPreferences: ["vegan"], emergencyContact: null },
    );
    assert.deepEqual(ticketUpdateOf(before, parse({})), {});
    for (const input of [{ firstName: "X" }, { carbonOffset: { amount: 1 } }, { status: "cancelled" }])
      assert.equal(TicketUpdateInput.safeParse(input).success, false, JSON.stringify(input));
  });
});

describe("the calendar file", () => {
  test("UTC times, escaped text, one VEVENT, CRLF, lines of at most 75 octets: hostile names read back as they were", () => {
    const summary = `Grüne Konferenz; Berlin, 2038 \\ "quoted"\nsecond line\r\nthird ${"Ü€😀".repeat(30)}`;
    const location = "Unter den Linden 1, 10117 Berlin; DE";
    const calendar = calendarOf(
      {
        uid: "evt_1@event-service",
        stamp: "2038-04-01T10:00:00.123Z",
        start: "2038-05-01T09:00:00+02:00",
        end: "2038-05-01T17:30:00.000Z",
        summary,
        location,
        status: "CANCELLED",
      },
      "-//Event Service//Ticket//EN",
    );
    assert.ok(calendar.endsWith("\r\n"));
    const physical = calendar.slice(0, -2).split("\r\n");
    assert.ok(
      physical.every((line) => octets(line) <= 75 && !line.includes("\n") && !line.includes("\r")),
      physical.join("\n"),
    );
    // Folding never splits a UTF-8 character: each physical line is valid text on its own.
    assert.ok(physical.every((line) => !line.includes("\ufffd")));
    assert.ok(physical.length > 12, "the long summary is folded");
    const lines = unfold(calendar);
    const field = (name: string) => lines.find((line) => line.startsWith(`${name}:`))?.slice(name.length + 1);
    assert.deepEqual(
      lines.filter((line) => /^(BEGIN|END):/.test(line)),
      ["BEGIN:VCALENDAR", "BEGIN:VEVENT", "END:VEVENT", "END:VCALENDAR"],
    );
    assert.equal(field("VERSION"), "2.0");
    assert.equal(field("UID"), "evt_1@event-service");
    assert.equal(field("DTSTAMP"), "20380401T100000Z");
    assert.equal(field("DTSTART"), "20380501T070000Z");
    assert.equal(field("DTEND"), "20380501T173000Z");
    assert.equal(field("STATUS"), "CANCELLED");
    assert.equal(unescapeText(field("SUMMARY")!), summary.replace(/\r\n/g, "\n"));
    assert.equal(unescapeText(field("LOCATION")!), location);
    // Escaped, no separator is left bare.
    assert.doesNotMatch(field("SUMMARY")!, /(^|[^\\]);|(^|[^\\]),/);
  });

  test("the writer's parts: escapes, UTC DATE-TIME, a short line untouched", () => {
    assert.equal(escapeText("a\\b;c,d\ne\r\nf"), "a\\\\b\\;c\\,d\\ne\\nf");
    assert.equal(utcDateTime("2038-12-31T23:59:59-01:00"), "20390101T005959Z");
    assert.equal(foldLine("SUMMARY:short"), "SUMMARY:short");
    const long = `SUMMARY:${"x".repeat(100)}`;
    assert.deepEqual(
      foldLine(long)
        .split("\r\n")
        .map((line) => octets(line)),
      [75, 34],
    );
  });
});

describe("the ticket link in the handler", () => {
  async function setUp(options: HandlerOptions) {
    const storage = await sqliteStorage();
    // A clock that stands still: the budget's minute never turns during the test.
    const service = createEventService({ storage, now: () => new Date("2037-01-01T12:00:30.000Z") });
    const handler = createHandler(service, { clientAddress: () => "198.51.100.9", ...options });
    const { accountId } = await service.keys.create({ account: "Acme" });
    const account = service.forAccount(accountId);
    const event = await account.events.create({ ...EVENT, name: "Budget Summit" });
    const paths: string[] = [];
    for (const name of ["one", "two"]) {
      const attendee = await account.attendees.register({
        eventId: event.id,
        firstName: "Ada",
        lastName: name,
        email: `${name}@example.com`,
        ticketType: "Standard",
      });
      paths.push(new URL(attendee.ticketUrl!).pathname);
    }
    const status = async (path: string) => {
      const response = await handler(new Request(`http://localhost${path}`));
      return { status: response.status, body: await response.json() };
    };
    return { storage, paths, status };
  }

  for (const option of ["linkLimitPerMinute", "vendorLinkLimitPerMinute"] as const)
    test(`each ticket link has a budget of its own (${option}: 5): past it 429 naming ticketLink, another link unaffected`, async (t) => {
      const { storage, paths, status } = await setUp({ [option]: 5 });
      t.after(() => storage.close());
      const answers = [];
      for (let i = 0; i < 6; i++) answers.push((await status(paths[0]!)).status);
      assert.deepEqual(answers, [200, 200, 200, 200, 200, 429]);
      const refused = await status(`${paths[0]}/calendar.ics`);
      assert.equal(refused.body.error.code, "RATE_LIMIT_EXCEEDED");
      assert.equal(refused.body.error.details.scope, "ticketLink");
      assert.match(refused.body.error.message, /through this ticket link \(limit 5 per minute\)/);
      assert.equal((await status(paths[1]!)).status, 200);
    });
});
