/**
 * The emails' words (service/email-messages.tsx): each ticket email's subject by its reason, the
 * event's date in its own time zone and its city, what the registration's status and payment
 * say, the link in both bodies, every value escaped in the HTML and the subject on one line; the
 * vendor email's subject. (Sending, links and retries: test/email.test.ts.)
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createId } from "../src/_internal/ids.ts";
import type { AttendeeRecord } from "../src/resources/attendee.ts";
import { newAttendeeRecord } from "../src/resources/attendee.ts";
import { type EmailEvent, ticketEmail, vendorEmail } from "../src/service/email-messages.tsx";

const event: EmailEvent = {
  name: 'Harvest <Fair>\r\nBcc: x@evil.example & "friends"',
  startDate: "2038-05-01T07:00:00.000Z",
  endDate: "2038-05-02T15:00:00.000Z",
  timeZone: "Europe/Berlin",
  location: { city: "Köln <Deutz>", country: "DE" },
};
const URL_ = "https://events.example.com/v1/tickets/tkt_abc?x=1&y=2";

function attendee(overrides: Partial<AttendeeRecord> = {}): AttendeeRecord {
  return {
    ...newAttendeeRecord(
      {
        eventId: createId("event"),
        firstName: "<b>Ada</b>",
        lastName: "Lovelace",
        email: "ada@example.com",
        ticketType: "general",
      },
      {
        id: createId("attendee"),
        accountId: createId("account"),
        confirmationCode: "EVT-ABCD-EFGH",
        now: "2038-01-01T00:00:00.000Z",
      },
    ),
    ...overrides,
  };
}

describe("ticket emails", () => {
  test("subjects by reason, on one line", () => {
    const subjects = (["registered", "promoted", "paid"] as const).map(
      (reason) => ticketEmail(reason, { event, attendee: attendee(), url: URL_ }).subject,
    );
    const name = 'Harvest <Fair> Bcc: x@evil.example & "friends"';
    assert.deepEqual(subjects, [
      `Your ticket for ${name}`,
      `You're off the waiting list: ${name}`,
      `Payment received: ${name}`,
    ]);
  });

  test("a confirmed registration: its code, when and where in the event's time zone, the link; all escaped in HTML", () => {
    const { text, html } = ticketEmail("registered", { event, attendee: attendee(), url: URL_ });
    assert.equal(
      text,
      `${[
        `Hello <b>Ada</b>, you are registered for ${event.name}.`,
        "1 May 2038, 09:00 CEST – 2 May 2038, 17:00 CEST, Köln <Deutz>",
        "Your confirmation code is EVT-ABCD-EFGH.",
        `Open your ticket:\n${URL_}`,
        "The link is your own: anyone who has it can see and change your registration, so do not forward this email.",
      ].join("\n\n")}\n`,
    );
    assert.ok(html.startsWith('<!doctype html><html lang="en">'));
    assert.ok(
      html.includes('<a href="https://events.example.com/v1/tickets/tkt_abc?x=1&amp;y=2">Open your ticket</a>'),
    );
    assert.ok(html.includes("Hello &lt;b>Ada&lt;/b>, you are registered for Harvest &lt;Fair>"));
    assert.ok(html.includes("&amp; &quot;friends&quot;"));
    assert.ok(html.includes("Köln &lt;Deutz>"));
    // Nothing of the organiser's or another attendee's: no <b>, no raw quote, no raw angle bracket from data.
    assert.ok(!html.includes("<b>") && !html.includes("<Fair>") && !html.includes('"friends"'));
  });

  test("waitlisted: its place and no amount; pending: the amount due; paid: nothing due", () => {
    const waiting = ticketEmail("registered", {
      event,
      attendee: attendee({ status: "waitlisted", waitlistPosition: 3 }),
      url: URL_,
    });
    assert.match(waiting.text, /You are on the waiting list \(place 3\)/);
    assert.doesNotMatch(waiting.text, /Amount due|confirmation code/);
    const payment = {
      status: "requires_payment" as const,
      amount: 4500,
      currency: "EUR",
      amountPaid: 1000,
      amountRefunded: 0,
      provider: "manual" as const,
      expiresAt: null,
      clientSecret: null,
      paymentIntentId: null,
      stripeAccount: null,
      promoted: false,
      admittedAt: null,
    };
    const pending = ticketEmail("promoted", {
      event,
      attendee: attendee({ status: "pending", payment } as Partial<AttendeeRecord>),
      url: URL_,
    });
    assert.match(pending.text, /a place freed up at/);
    assert.match(pending.text, /Your place is held until your payment is complete\.\n\nAmount due: 35\.00 EUR\./);
    const paid = ticketEmail("paid", {
      event,
      attendee: attendee({
        status: "confirmed",
        payment: { ...payment, status: "paid", amountPaid: 4500, admittedAt: "2038-01-02T00:00:00.000Z" },
      } as Partial<AttendeeRecord>),
      url: URL_,
    });
    assert.match(paid.text, /we received your payment for/);
    assert.doesNotMatch(paid.text, /Amount due/);
  });
});

test("the vendor email: the account asks, the services, the link", () => {
  const email = vendorEmail({
    event,
    accountName: "Acme\nEvents",
    vendorName: "Green <Plate>",
    services: "Lunch & dinner",
    url: "https://events.example.com/v1/vendor-requests/vrq_x",
  });
  assert.equal(email.subject, 'Acme Events asks you to confirm: Harvest <Fair> Bcc: x@evil.example & "friends"');
  assert.match(email.text, /Services: Lunch & dinner/);
  assert.match(email.text, /Confirm or decline:\nhttps:\/\/events\.example\.com\/v1\/vendor-requests\/vrq_x/);
  assert.ok(email.html.includes("Green &lt;Plate>") && email.html.includes("Lunch &amp; dinner"));
});
