/**
 * The pages behind links, in process through the handler: the headers every page carries, text
 * from the organiser shown as text, forms posted to the page's own URL (a success redirects back,
 * a refusal draws the page again with the request's status), and the HTML answer to a dead link.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createHandler } from "../src/http/handler.ts";
import { createEventService } from "../src/service.ts";
import { sqliteStorage } from "./_sqlite.ts";
import { EVENT } from "./_fixtures.ts";

const HTML = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

async function setUp() {
  const storage = await sqliteStorage();
  const service = createEventService({ storage });
  const handler = createHandler(service, { clientAddress: () => "198.51.100.9" });
  const { accountId } = await service.keys.create({ account: "Acme" });
  const account = service.forAccount(accountId);
  const event = await account.events.create({ ...EVENT, name: 'Summit <script>alert("x")</script>' });
  const vendor = await account.vendors.create({ name: "Plate & <b>Co</b>", category: "catering" });
  const booking = await account.bookings.create(event.id, {
    vendorId: vendor.id,
    services: "Lunch </textarea><img src=x>",
    dataRequested: ["catering"],
  });
  const link = booking.vendorLink!;
  const page = (url = link) => handler(new Request(url, { headers: { accept: HTML } }));
  const post = (form: Record<string, string>, url = link, type = "application/x-www-form-urlencoded") =>
    handler(
      new Request(url, {
        method: "POST",
        headers: { accept: HTML, "content-type": type },
        body: new URLSearchParams(form).toString(),
      }),
    );
  return { storage, account, event, booking, link, page, post, handler };
}

describe("a page behind a link", () => {
  test("carries the page headers, lang=en, and shows the organiser's text as text", async (t) => {
    const { storage, page } = await setUp();
    t.after(() => storage.close());
    const response = await page();
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "text/html; charset=utf-8");
    assert.equal(response.headers.get("cache-control"), "no-store");
    assert.equal(response.headers.get("x-robots-tag"), "noindex");
    assert.equal(response.headers.get("referrer-policy"), "no-referrer");
    const csp = response.headers.get("content-security-policy") ?? "";
    assert.match(csp, /^default-src 'none'; /);
    assert.match(csp, /style-src 'sha256-[A-Za-z0-9+/]+=*';/);
    assert.doesNotMatch(csp, /unsafe-inline|https?:\/\/(?!checkout\.stripe\.com)/);
    const html = await response.text();
    assert.match(html, /^<!doctype html><html lang="en">/);
    assert.ok(html.includes("Summit &lt;script>alert(&quot;x&quot;)&lt;/script>"), "the event's name escaped");
    assert.ok(html.includes("Plate &amp; &lt;b>Co&lt;/b>"), "the vendor's name escaped");
    assert.ok(html.includes("Lunch &lt;/textarea>&lt;img src=x>"), "the services escaped");
    assert.ok(!html.includes("<script>alert") && !html.includes("<img src=x>"));
  });

  test("the same URL answers JSON to an app", async (t) => {
    const { storage, handler, link } = await setUp();
    t.after(() => storage.close());
    const response = await handler(new Request(link, { headers: { accept: "application/json" } }));
    assert.equal(response.status, 200);
    assert.equal((await response.json()).status, "requested");
  });

  test("a form posts to the page's URL: a success redirects back (303) with its note, and the change is the API's", async (t) => {
    const { storage, account, event, booking, link, page, post } = await setUp();
    t.after(() => storage.close());
    const response = await post({ action: "confirm", message: "See you at 11:30" });
    assert.equal(response.status, 303);
    const location = response.headers.get("location")!;
    assert.equal(location, `${new URL(link).pathname}?done=confirmed`);
    const after = await (await page(new URL(location, link).href)).text();
    assert.ok(after.includes('role="status">You confirmed the booking.'));
    const stored = await account.bookings.get(event.id, booking.id);
    assert.equal(stored.status, "confirmed");
    assert.equal(stored.message, "See you at 11:30");
  });

  test("a refused form draws the page again with the request's status and the reason, keeping what was typed", async (t) => {
    const { storage, post } = await setUp();
    t.after(() => storage.close());
    assert.equal((await post({ action: "decline" })).status, 303);
    const refused = await post({ action: "confirm", message: "Changed my mind <b>" });
    assert.equal(refused.status, 422);
    assert.equal(refused.headers.get("content-type"), "text/html; charset=utf-8");
    const html = await refused.text();
    assert.match(html, /role="alert">[^<]+/);
    const unknown = await post({ action: "launch" });
    assert.equal(unknown.status, 400);
    assert.match(await unknown.text(), /The form asked for nothing this page does/);
  });

  test("a form sent as anything but form fields is 415; a dead link is a 404 page, never the JSON body", async (t) => {
    const { storage, link, page, post } = await setUp();
    t.after(() => storage.close());
    assert.equal((await post({ action: "confirm" }, link, "text/plain")).status, 415);
    const dead = await page(`${link.slice(0, -2)}xx`);
    assert.equal(dead.status, 404);
    assert.equal(dead.headers.get("content-type"), "text/html; charset=utf-8");
    assert.match(await dead.text(), /<h1>This link does not open anything<\/h1>/);
    const deadForm = await post({ action: "confirm" }, `${link.slice(0, -2)}xx`);
    assert.equal(deadForm.status, 404);
  });
});
