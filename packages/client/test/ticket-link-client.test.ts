/**
 * The attendee's ticket link client against a scripted fetch: the routes below the link, the
 * calendar read as text, the links it refuses, and the idempotent cancel it shares with the main
 * client. The end-to-end test in the root test/ runs it against the real server.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createTicketLinkClient, EventServiceError } from "../src/index.ts";
import { failure, json, scripted } from "./scripted-fetch.ts";

const LINK = "http://svc.test/v1/tickets/tkt_abc";
const ticket = { attendee: { status: "confirmed" } };
const ICS = "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n";

describe("the ticket link client", () => {
  test("every call goes below the link: get, update, cancel (with an Idempotency-Key), the calendar as text", async () => {
    const { fetch, sent } = scripted([
      json(200, ticket),
      json(200, ticket),
      json(200, ticket),
      () => new Response(ICS, { status: 200, headers: { "content-type": "text/calendar; charset=utf-8" } }),
    ]);
    const client = createTicketLinkClient({ link: `${LINK}/?utm_source=mail#top`, fetch });
    assert.deepEqual(await client.get(), ticket);
    await client.update({ carbonOffset: { travelMode: "train" } });
    await client.cancel();
    assert.equal(await client.calendar(), ICS);
    assert.deepEqual(
      sent.map((s) => `${s.method} ${s.url}`),
      [`GET ${LINK}`, `PUT ${LINK}`, `POST ${LINK}/cancel`, `GET ${LINK}/calendar.ics`],
    );
    assert.deepEqual(
      sent.map((s) => s.body),
      [null, JSON.stringify({ carbonOffset: { travelMode: "train" } }), null, null],
    );
    assert.match(sent[2]!.headers.get("idempotency-key") ?? "", /^[0-9a-f-]{36}$/);
    assert.equal(sent[3]!.headers.get("accept"), "text/calendar");
  });

  test("checkout posts below the link (with an Idempotency-Key) and answers the session's url; a refusal is an EventServiceError", async () => {
    const url = "https://checkout.stripe.com/c/pay/cs_test_1";
    const { fetch, sent } = scripted([json(200, { url }), failure(422, "INVALID_STATE_TRANSITION")]);
    const client = createTicketLinkClient({ link: LINK, fetch, retry: false });
    assert.deepEqual(await client.checkout(), { url });
    assert.equal(`${sent[0]!.method} ${sent[0]!.url}`, `POST ${LINK}/checkout`);
    assert.equal(sent[0]!.body, null);
    assert.match(sent[0]!.headers.get("idempotency-key") ?? "", /^[0-9a-f-]{36}$/);
    await assert.rejects(
      client.checkout(),
      (error) => error instanceof EventServiceError && error.code === "INVALID_STATE_TRANSITION",
    );
  });

  test("takes the ticketUrl itself; a 404 is an EventServiceError; null or another URL is a TypeError", async () => {
    const { fetch } = scripted([failure(404, "NOT_FOUND")]);
    const client = createTicketLinkClient({ link: LINK, fetch, retry: false });
    await assert.rejects(client.get(), (error) => error instanceof EventServiceError && error.code === "NOT_FOUND");
    assert.equal(typeof createTicketLinkClient(LINK).get, "function");
    assert.throws(() => createTicketLinkClient(null), /ticketUrl is shown in the create answer only/);
    assert.throws(() => createTicketLinkClient("not a url"), TypeError);
    assert.throws(() => createTicketLinkClient("http://svc.test/v1/vendor-requests/vrq_abc"), TypeError);
    assert.throws(() => createTicketLinkClient("ftp://svc.test/v1/tickets/tkt_abc"), TypeError);
  });
});
