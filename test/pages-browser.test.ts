/**
 * The pages behind links in a real browser (headless Chromium, test/fixtures/browser.ts),
 * against the real server. The vendor's page, tried as a caterer would: the link an organiser
 * forwards opens a page, Confirm works, the Catering form records 120 vegan meals, and they are
 * in the event's footprint (read back through the API: the vegan factor of the set in use x
 * 120). With JavaScript off and on, 360 px wide, the organiser's text shown as text, every
 * control labelled, nothing loaded from another origin. The attendee's ticket page likewise:
 * Pay through Stripe Checkout, the details form, the cancellation step. The screenshots of
 * docs/api.md are made here (`SCREENSHOTS=docs`), of an event under plain names.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createClient, createTicketLinkClient } from "@event-service/client";
import type { Browser, Page } from "playwright-core";
import Stripe from "stripe";
import { startServer, type TestServer } from "./_setup.ts";
import {
  assertFitsWidth,
  browserSkip,
  launchBrowser,
  phoneContext,
  screenshot,
  unlabelledControls,
  watchedPage,
} from "./fixtures/browser.ts";
import { attendeeInput, eventInput, vendorInput } from "./fixtures/builders.ts";
import { startStripeStandIn, type StripeStandIn } from "./fixtures/stripe-stand-in.ts";

const SKIP = browserSkip("pages browser tests");

/** The organiser's text: markup, quotes and a script that must reach the page as text. */
const EVENT_NAME = `Harvest "Forum" <script>alert("event")</script> & <b>Friends</b>`;
const VENDOR_NAME = `Green Fork <img src=x onerror=alert("vendor")> & Co`;
const SERVICES = `Lunch for 120 </textarea><script>alert("services")</script>`;

/**
 * The screenshots' names: docs/api.md shows an event as organisers name one. The hostile names
 * above have their own tests; a screenshot of them would tell a reader nothing.
 */
const PLAIN = {
  event: "Harvest Forum 2038",
  vendor: "Green Fork Catering",
  services: "Vegan lunch for 120 guests",
  ticketType: "Standard",
  attendee: { firstName: "Ann", lastName: "Lee" },
};

describe("the vendor's page in a real browser (headless Chromium)", { skip: SKIP }, () => {
  let server: TestServer;
  let browser: Browser;
  let client: ReturnType<typeof createClient>;
  let veganFactor: number;

  before(async () => {
    browser = await launchBrowser();
    server = await startServer();
    const { key } = await server.createKey({ account: `Vendor page ${Date.now()}` });
    client = createClient({ baseUrl: server.url, apiKey: key });
    const factors = await client.analytics.emissionFactors();
    const vegan = (factors.activities ?? []).filter(
      (entry) => entry.kind === "catering" && entry.mealType === "vegan" && entry.unit === "meals",
    );
    assert.equal(vegan.length, 1, "one vegan meal factor in the set in use");
    veganFactor = vegan[0]!.factor;
  });
  after(async () => {
    await browser?.close();
    if (server) assert.equal(await server.stop(), 0);
  });

  /** A caterer booked for a new event (a time zone, the names given), asked for catering data: its link. */
  async function booking(names: { event: string; vendor: string; services: string }) {
    const event = await client.events.create(
      eventInput({ name: names.event, timeZone: "Europe/Berlin", capacity: 200 }) as never,
    );
    const vendor = await client.vendors.create(vendorInput({ name: names.vendor, category: "catering" }) as never);
    const booked = await client.bookings.create(event.id, {
      vendorId: vendor.id,
      services: names.services,
      dataRequested: ["catering"],
    });
    return { event, link: booked.vendorLink! };
  }

  for (const javaScript of [false, true]) {
    test(`the caterer confirms and records 120 vegan meals, in the footprint (JavaScript ${javaScript ? "on" : "off"}, 360 px)`, async () => {
      const { event, link } = await booking({
        event: EVENT_NAME,
        vendor: VENDOR_NAME,
        services: `${SERVICES} (${javaScript ? "js" : "no-js"})`,
      });
      const context = await phoneContext(browser, { javaScript });
      try {
        const watch = await watchedPage(context);
        const { page } = watch;
        const opened = await page.goto(link, { waitUntil: "load" });
        assert.equal(opened?.status(), 200);
        assert.match(opened.headers()["content-type"] ?? "", /^text\/html/);

        // The organiser's text is text: shown verbatim, no script ran, no dialog opened.
        assert.equal(await page.getByRole("heading", { level: 1 }).innerText(), EVENT_NAME);
        assert.equal(await page.title(), `${EVENT_NAME}: booking for ${VENDOR_NAME}`);
        assert.equal(await page.getByRole("heading", { name: `Booking for ${VENDOR_NAME}` }).count(), 1);
        const text = await page.locator("body").innerText();
        assert.ok(text.includes(SERVICES), "the services as typed");
        assert.ok(text.includes("1 May 2038, 11:00 CEST"), "the start in the event's time zone");
        assert.ok(text.includes("Waiting for your answer"));
        await assertFitsWidth(page);
        assert.deepEqual(await unlabelledControls(page), []);

        // Confirm, with a message.
        await page.getByLabel("Message").fill("We deliver at 11:30 <b>sharp</b>");
        await page.getByRole("button", { name: "Confirm" }).click();
        await page.waitForURL(/\?done=confirmed$/);
        assert.equal(await page.getByRole("status").innerText(), "You confirmed the booking. Thank you!");
        assert.equal(await page.locator(".status").innerText(), "Confirmed");

        // The Catering form, found by its name, every control by its label.
        const form = page.getByRole("form", { name: "Catering" });
        assert.equal(await form.count(), 1);
        await form.getByLabel("Quantity").fill("120");
        await form.getByLabel("Meal type").selectOption("vegan");
        assert.equal(await form.getByLabel("Data quality").inputValue(), "measured");
        await form.getByLabel("Note").fill("Lunch, day 1");
        assert.ok((await form.innerText()).includes("meals"), "the unit beside the quantity");
        assert.deepEqual(await unlabelledControls(page), []);
        await form.getByRole("button", { name: "Record" }).click();
        await page.waitForURL(/\?done=recorded$/);
        assert.equal(await page.getByRole("status").innerText(), "Recorded. It is in the event's footprint now.");

        // The record is listed, with Edit and Delete naming it.
        const records = page.getByRole("region", { name: "Your records" });
        assert.ok((await records.innerText()).includes("120 meals, Meal type: Vegan"));
        assert.equal(await records.getByRole("link", { name: /^Edit Catering record of / }).count(), 1);
        assert.equal(await records.getByRole("button", { name: /^Delete Catering record of / }).count(), 1);
        await assertFitsWidth(page);

        // In the event's footprint: 120 x the vegan factor, and the record the vendor's.
        const analytics = await client.analytics.event(event.id);
        const catering = analytics.footprint.byKind.find((entry) => entry.kind === "catering");
        assert.deepEqual(catering, {
          kind: "catering",
          emissionsKg: Math.round(120 * veganFactor * 1000) / 1000,
          records: 1,
        });
        const { activities } = await client.activities.list(event.id);
        assert.deepEqual(
          activities.map(({ quantity, unit, mealType, dataQuality, note }) => ({
            quantity,
            unit,
            mealType,
            dataQuality,
            note,
          })),
          [{ quantity: 120, unit: "meals", mealType: "vegan", dataQuality: "measured", note: "Lunch, day 1" }],
        );

        // Edit opens the record's form filled in; Save changes it.
        await records.getByRole("link", { name: /^Edit Catering record of / }).click();
        const edit = page.getByRole("form", { name: /^Change the Catering record of / });
        assert.equal(await edit.getByLabel("Quantity").inputValue(), "120");
        assert.equal(await edit.getByLabel("Meal type").inputValue(), "vegan");
        await edit.getByLabel("Quantity").fill("150");
        await edit.getByRole("button", { name: "Save" }).click();
        await page.waitForURL(/\?done=updated$/);
        assert.ok((await records.innerText()).includes("150 meals, Meal type: Vegan"));

        // Delete empties the list, and the footprint with it.
        await records.getByRole("button", { name: /^Delete Catering record of / }).click();
        await page.waitForURL(/\?done=deleted$/);
        assert.ok((await records.innerText()).includes("No records yet."));
        const emptied = await client.analytics.event(event.id);
        assert.equal(emptied.footprint.byKind.find((entry) => entry.kind === "catering")?.emissionsKg ?? 0, 0);

        watch.assertClean(new URL(link).origin);
      } finally {
        await context.close();
      }
    });
  }

  test("the screenshots of docs/api.md: a caterer's booking under plain names, waiting, then confirmed with a record (JavaScript off, 360 px)", async () => {
    const { link } = await booking(PLAIN);
    const context = await phoneContext(browser, { javaScript: false });
    try {
      const watch = await watchedPage(context);
      const { page } = watch;
      assert.equal((await page.goto(link, { waitUntil: "load" }))?.status(), 200);
      assert.equal(await page.getByRole("heading", { level: 1 }).innerText(), PLAIN.event);
      assert.equal(await page.title(), `${PLAIN.event}: booking for ${PLAIN.vendor}`);
      assert.equal(await page.locator(".status").innerText(), "Waiting for your answer");
      await screenshot(page, "vendor-page.png");

      await page.getByLabel("Message").fill("We deliver at 11:30.");
      await page.getByRole("button", { name: "Confirm" }).click();
      await page.waitForURL(/\?done=confirmed$/);
      const form = page.getByRole("form", { name: "Catering" });
      await form.getByLabel("Quantity").fill("120");
      await form.getByLabel("Meal type").selectOption("vegan");
      await form.getByLabel("Note").fill("Lunch, day 1");
      await form.getByRole("button", { name: "Record" }).click();
      await page.waitForURL(/\?done=recorded$/);
      assert.equal(await page.locator(".status").innerText(), "Confirmed");
      const records = await page.getByRole("region", { name: "Your records" }).innerText();
      assert.ok(records.includes("120 meals, Meal type: Vegan"), records);
      await assertFitsWidth(page);
      await screenshot(page, "vendor-page-confirmed.png");
      watch.assertClean(new URL(link).origin);
    } finally {
      await context.close();
    }
  });
});

const STRIPE_PAGE_HOST = "checkout.stripe.com";
const STRIPE_KEY = "sk_test_eventServiceTicketPage4242";
const STRIPE_WEBHOOK = "whsec_ticketPageSecret";
const TICKET_TYPE = `VIP <img src=x onerror=alert("type")>`;
const ATTENDEE_NAME = `Ann <b onclick=alert(1)>Lee</b>`;

describe("the attendee's ticket page in a real browser (headless Chromium)", { skip: SKIP }, () => {
  let server: TestServer;
  let browser: Browser;
  let standIn: StripeStandIn;
  let client: ReturnType<typeof createClient>;
  let trainFactor: number;
  const signer = new Stripe(STRIPE_KEY);

  before(async () => {
    // Stripe's payment page is never loaded: its name resolves nowhere, so "Pay" ends at its address.
    browser = await launchBrowser([`--host-resolver-rules=MAP ${STRIPE_PAGE_HOST} ~NOTFOUND`]);
    standIn = await startStripeStandIn({ secretKey: STRIPE_KEY });
    server = await startServer({
      env: {
        NODE_EXTRA_CA_CERTS: standIn.caFile,
        STRIPE_SECRET_KEY: STRIPE_KEY,
        STRIPE_WEBHOOK_SECRET: STRIPE_WEBHOOK,
        STRIPE_API_URL: standIn.url,
      },
    });
    const { key } = await server.createKey({ account: `Ticket page ${Date.now()}` });
    client = createClient({ baseUrl: server.url, apiKey: key });
    const factors = await client.analytics.emissionFactors();
    const train = factors.factors.filter((entry) => entry.mode === "train");
    assert.equal(train.length, 1, "one train factor in the set in use");
    trainFactor = train[0]!.factor;
  });
  after(async () => {
    await browser?.close();
    if (server) assert.equal(await server.stop(), 0);
    await standIn?.close();
  });

  /**
   * A published event (Berlin time, one place, a waiting list, 120.00 EUR tickets, the names
   * given) with a buyer and one waiting.
   */
  async function registrations(names: { event: string; ticketType: string; attendee: Record<string, string> }) {
    const event = await client.events.create(
      eventInput({
        name: names.event,
        timeZone: "Europe/Berlin",
        capacity: 1,
        waitlistEnabled: true,
        ticketTypes: [{ name: names.ticketType, price: { amount: 12_000, currency: "EUR" } }],
      }) as never,
    );
    await client.events.update(event.id, { status: "published" });
    const buyer = await client.attendees.register(
      attendeeInput(event.id, { ...names.attendee, ticketType: names.ticketType }) as never,
    );
    const waiting = await client.attendees.register(attendeeInput(event.id, { ticketType: names.ticketType }) as never);
    assert.equal(waiting.status, "waitlisted");
    return { event, buyer, waiting, link: buyer.ticketUrl! };
  }

  /** Sends Stripe's event to the server, signed as Stripe signs it. */
  async function deliver(event: unknown) {
    const payload = JSON.stringify(event);
    const header = signer.webhooks.generateTestHeaderString({ payload, secret: STRIPE_WEBHOOK });
    const response = await fetch(`${server.url}/v1/payments/stripe/webhook`, {
      method: "POST",
      headers: { "content-type": "application/json", "stripe-signature": header },
      body: payload,
    });
    assert.equal(response.status, 200);
  }

  /** The QR image's natural width: above 0 once it loaded. */
  const qrWidth = (page: Page) =>
    page.getByRole("img", { name: "QR code for check-in" }).evaluate((img) => (img as HTMLImageElement).naturalWidth);

  for (const javaScript of [false, true]) {
    test(`the attendee opens the ticket, pays through Checkout, changes travel, cancels after the confirmation step (JavaScript ${javaScript ? "on" : "off"}, 360 px)`, async () => {
      const { event, buyer, waiting, link } = await registrations({
        event: `${EVENT_NAME} (${javaScript ? "js" : "no-js"})`,
        ticketType: TICKET_TYPE,
        attendee: { firstName: ATTENDEE_NAME },
      });
      const context = await phoneContext(browser, { javaScript });
      try {
        const watch = await watchedPage(context);
        const { page } = watch;
        const opened = await page.goto(link, { waitUntil: "load" });
        assert.equal(opened?.status(), 200);
        assert.match(opened.headers()["content-type"] ?? "", /^text\/html/);

        // The ticket, the organiser's and the attendee's text as text.
        assert.equal(
          await page.getByRole("heading", { level: 1 }).innerText(),
          `${EVENT_NAME} (${javaScript ? "js" : "no-js"})`,
        );
        const text = await page.locator("body").innerText();
        for (const shown of [
          TICKET_TYPE,
          ATTENDEE_NAME,
          buyer.confirmationCode,
          "1 May 2038, 11:00 CEST",
          "120.00 EUR",
        ])
          assert.ok(text.includes(shown), shown);
        assert.equal(await page.locator(".status").innerText(), "Waiting for payment");
        assert.equal(await page.getByRole("img", { name: "QR code for check-in" }).count(), 0);
        assert.equal(
          await page.getByRole("link", { name: "Add to calendar" }).getAttribute("href"),
          `${new URL(link).pathname.split("/").at(-1)}/calendar.ics`,
        );
        await assertFitsWidth(page);
        assert.deepEqual(await unlabelledControls(page), []);

        // Pay: a Checkout Session for the ticket type, then back to the page.
        const [toStripe] = await Promise.all([
          page.waitForEvent("requestfailed", (request) => request.url().startsWith(`https://${STRIPE_PAGE_HOST}/`)),
          // The browser's own error page for the address that resolves nowhere: the navigation ended.
          page.waitForEvent("framenavigated", (frame) => frame === page.mainFrame() && !frame.url().startsWith("http")),
          page.getByRole("button", { name: "Pay 120.00 EUR" }).click(),
        ]);
        assert.equal(toStripe.isNavigationRequest(), true);
        const sessionId = toStripe.url().split("/").at(-1)!;
        const { session } = standIn.checkoutSessions.get(sessionId)!;
        assert.equal(session.client_reference_id, buyer.id);
        assert.equal(session.amount_total, 12_000);
        assert.equal(session.currency, "eur");
        assert.equal(session.success_url, `${link}?done=paid`);
        assert.equal(session.cancel_url, `${link}?done=payment_cancelled`);
        const item = standIn.requests.find(
          (request) => request.path === "/v1/checkout/sessions" && request.params.client_reference_id === buyer.id,
        )!.params.line_items as unknown as Array<{
          price_data: { product_data: { name: string }; unit_amount: string };
        }>;
        assert.equal(item[0]!.price_data.product_data.name, TICKET_TYPE);
        const { completed } = standIn.completeSession(sessionId);
        // Back before Stripe's notification: the page says so and shows the real status.
        await page.goto(session.success_url!, { waitUntil: "load" });
        assert.match(await page.getByRole("status").innerText(), /^Thank you — your payment is being confirmed\./);
        assert.equal(await page.locator(".status").innerText(), "Waiting for payment");
        await deliver(completed);
        await deliver(completed);
        await page.reload({ waitUntil: "load" });
        assert.equal(await page.getByRole("status").innerText(), "Thank you — your payment was received.");
        assert.equal(await page.locator(".status").innerText(), "Confirmed");
        assert.ok((await qrWidth(page)) > 0, "the QR image loaded");
        const paid = await client.attendees.get(buyer.id);
        assert.deepEqual([paid.payment?.amountPaid, paid.payment?.status], [12_000, "paid"]);
        await assertFitsWidth(page);

        // Travel changed on the page is in the footprint: the train factor x 420 km.
        const details = page.getByRole("form", { name: "Your details" });
        await details.getByLabel("Travel mode").selectOption("train");
        await details.getByLabel("Travel distance (km)").fill("420");
        await details.getByLabel("Offset my travel").check();
        await details.getByLabel("Dietary preferences").fill(`vegan, <script>alert("diet")</script>`);
        await details.getByRole("button", { name: "Save" }).click();
        await page.waitForURL(/\?done=saved$/);
        assert.equal(await page.getByRole("status").innerText(), "Your details were saved.");
        assert.equal(await details.getByLabel("Travel mode").inputValue(), "train");
        const analytics = await client.analytics.event(event.id);
        assert.deepEqual(
          analytics.footprint.byKind.find((entry) => entry.kind === "attendee_travel"),
          { kind: "attendee_travel", emissionsKg: Math.round(420 * trainFactor * 1000) / 1000, records: 1 },
        );

        // Cancel: the confirmation step says the refund; Keep goes back; Confirm cancels.
        await page.getByRole("button", { name: "Cancel registration" }).click();
        await page.waitForURL(/\?confirm=cancel$/);
        const step = page.getByRole("region", { name: "Cancel your registration?" });
        assert.ok(
          (await step.innerText()).includes(
            "120.00 EUR will be refunded to you, as the event's refund policy gives a full refund until it starts.",
          ),
        );
        await assertFitsWidth(page);
        await step.getByRole("link", { name: "Keep my registration" }).click();
        await page.waitForURL((url) => !url.search.includes("confirm"));
        assert.equal((await client.attendees.get(buyer.id)).status, "confirmed");
        await page.getByRole("button", { name: "Cancel registration" }).click();
        await page.getByRole("button", { name: "Confirm cancellation" }).click();
        await page.waitForURL(/\?done=cancelled$/);
        assert.equal(await page.getByRole("status").innerText(), "Your registration was cancelled.");
        assert.equal(await page.locator(".status").innerText(), "Cancelled");
        assert.equal(await page.getByRole("img", { name: "QR code for check-in" }).count(), 0);
        assert.equal(await page.getByRole("form", { name: "Your details" }).count(), 0);
        const cancelled = await client.attendees.get(buyer.id);
        assert.deepEqual(
          [cancelled.status, cancelled.payment?.amountRefunded, cancelled.payment?.status],
          ["cancelled", 12_000, "refunded"],
        );
        // The refund at Stripe, on the PaymentIntent the session paid with (made by the payment worker).
        const intentId = completed.data.object.payment_intent;
        const refundsAtStripe = () =>
          [...standIn.refunds.values()].filter((stored) => stored.refund.payment_intent === intentId);
        for (let tries = 0; refundsAtStripe().length === 0 && tries < 600; tries++)
          await new Promise((resolve) => setTimeout(resolve, 100));
        assert.deepEqual(
          refundsAtStripe().map((stored) => stored.refund.amount),
          [12_000],
        );
        assert.equal((await client.attendees.get(waiting.id)).status, "pending", "the next in line promoted");
        await assertFitsWidth(page);

        // Nothing from another origin but Stripe's page, which "Pay" sent the browser to (and
        // which resolves nowhere here); no other problem.
        const origin = new URL(link).origin;
        const stripePage = `https://${STRIPE_PAGE_HOST}/c/pay/${sessionId}`;
        assert.deepEqual([...new Set(watch.requests.filter((url) => !url.startsWith(`${origin}/`)))], [stripePage]);
        assert.deepEqual(watch.problems, [`request failed: ${stripePage} net::ERR_NAME_NOT_RESOLVED`]);
      } finally {
        await context.close();
      }
    });
  }

  test("the screenshots of docs/api.md: a ticket under plain names, paid with its QR, then the cancellation step (JavaScript off, 360 px)", async () => {
    const { buyer, link } = await registrations(PLAIN);
    // Paid as Pay would: a Checkout Session completed at Stripe, its notification, back to the page.
    const { url } = await createTicketLinkClient({ link }).checkout();
    const { completed } = standIn.completeSession(url.split("/").at(-1)!);
    await deliver(completed);
    const context = await phoneContext(browser, { javaScript: false });
    try {
      const watch = await watchedPage(context);
      const { page } = watch;
      assert.equal((await page.goto(`${link}?done=paid`, { waitUntil: "load" }))?.status(), 200);
      assert.equal(await page.getByRole("heading", { level: 1 }).innerText(), PLAIN.event);
      const text = await page.locator("body").innerText();
      for (const shown of [PLAIN.ticketType, "Ann Lee", buyer.confirmationCode, "120.00 EUR"])
        assert.ok(text.includes(shown), shown);
      assert.equal(await page.getByRole("status").innerText(), "Thank you — your payment was received.");
      assert.equal(await page.locator(".status").innerText(), "Confirmed");
      assert.ok((await qrWidth(page)) > 0, "the QR image loaded");
      await screenshot(page, "ticket-page.png");

      await page.getByRole("button", { name: "Cancel registration" }).click();
      await page.waitForURL(/\?confirm=cancel$/);
      assert.ok(
        (await page.getByRole("region", { name: "Cancel your registration?" }).innerText()).includes(
          "120.00 EUR will be refunded to you",
        ),
      );
      await assertFitsWidth(page);
      await screenshot(page, "ticket-page-cancel.png");
      watch.assertClean(new URL(link).origin);
    } finally {
      await context.close();
    }
  });
});
