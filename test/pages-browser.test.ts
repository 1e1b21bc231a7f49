/**
 * The pages behind links in a real browser (headless Chromium, test/fixtures/browser.ts),
 * against the real server. The vendor's page, tried as a caterer would: the link an organiser
 * forwards opens a page, Confirm works, the Catering form records 120 vegan meals, and they are
 * in the event's footprint (read back through the API: the vegan factor of the set in use x
 * 120). With JavaScript off and on, 360 px wide, the organiser's text shown as text, every
 * control labelled, nothing loaded from another origin. The screenshots of docs/api.md are made
 * here (`SCREENSHOTS=docs`).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createClient } from "@event-service/client";
import type { Browser } from "playwright-core";
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
import { eventInput, vendorInput } from "./fixtures/builders.ts";

const SKIP = browserSkip("pages browser tests");

/** The organiser's text: markup, quotes and a script that must reach the page as text. */
const EVENT_NAME = `Harvest "Forum" <script>alert("event")</script> & <b>Friends</b>`;
const VENDOR_NAME = `Green Fork <img src=x onerror=alert("vendor")> & Co`;
const SERVICES = `Lunch for 120 </textarea><script>alert("services")</script>`;

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

  /** A caterer booked for a new event (a time zone, hostile names), asked for catering data: its link. */
  async function booking(run: string) {
    const event = await client.events.create(
      eventInput({ name: EVENT_NAME, timeZone: "Europe/Berlin", capacity: 200 }) as never,
    );
    const vendor = await client.vendors.create(vendorInput({ name: VENDOR_NAME, category: "catering" }) as never);
    const booked = await client.bookings.create(event.id, {
      vendorId: vendor.id,
      services: `${SERVICES} (${run})`,
      dataRequested: ["catering"],
    });
    return { event, link: booked.vendorLink! };
  }

  for (const javaScript of [false, true]) {
    test(`the caterer confirms and records 120 vegan meals, in the footprint (JavaScript ${javaScript ? "on" : "off"}, 360 px)`, async () => {
      const { event, link } = await booking(javaScript ? "js" : "no-js");
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
        if (!javaScript) await screenshot(page, "vendor-page.png");

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
        if (!javaScript) await screenshot(page, "vendor-page-confirmed.png");

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
});
