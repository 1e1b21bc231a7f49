/**
 * The pages behind links, in process through the handler: the headers every page carries, text
 * from the organiser shown as text, forms posted to the page's own URL (a success redirects back,
 * a refusal draws the page again with the request's status), and the HTML answer to a dead link.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { localDateTime } from "../src/_internal/local-time.ts";
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

/** The kinds, units and qualifiers as docs/api.md's Activities table lists them: what the forms must offer. */
function documentedKinds(): Map<string, { units: string[]; qualifiers: Map<string, string[] | "country"> }> {
  const doc = readFileSync(new URL("../../../docs/api.md", import.meta.url), "utf8");
  const section = doc.slice(doc.indexOf("## Activities (the whole footprint)"));
  const rows = [...section.matchAll(/^\| `(\w+)` \| (.+?) \| (.+?) \| \d \|$/gm)];
  const ticks = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);
  const kinds = new Map<string, { units: string[]; qualifiers: Map<string, string[] | "country"> }>();
  for (const [, kind, units, cell] of rows) {
    const qualifiers = new Map<string, string[] | "country">();
    // A parenthesis explains its qualifier; outside them, ";" separates the qualifiers.
    const explained = [...cell!.matchAll(/`(\w+)` \(([^)]*)\)/g)];
    for (const segment of cell!.replace(/\([^)]*\)/g, "").split(";")) {
      const [name, ...values] = ticks(segment);
      if (!name) continue;
      const note = explained.find((match) => match[1] === name)?.[2] ?? "";
      if (name === "country") qualifiers.set(name, "country");
      else if (values.length > 0) qualifiers.set(name, values);
      // "`null` when not known" is the blank choice, not a value of the list.
      else if (/the materials'/.test(note))
        qualifiers.set(name, [
          ...(kinds.get("materials")!.qualifiers.get("material") as string[]),
          ...ticks(note).filter((value) => value !== "null"),
        ]);
      else if (/as attendees' travel/.test(note)) qualifiers.set(name, ticks(note));
    }
    kinds.set(kind!, { units: ticks(units!), qualifiers });
  }
  return kinds;
}

/** The optional qualifiers by kind, from docs/api.md's sentence "Every qualifier is required but ...". */
function documentedOptional(): Set<string> {
  const doc = readFileSync(new URL("../../../docs/api.md", import.meta.url), "utf8");
  const sentence = /Every qualifier is required but ([^.]+)\./.exec(doc)![1]!;
  return new Set([...sentence.matchAll(/(\w+)'s? `(\w+)`/g)].map(([, kind, name]) => `${kind}.${name}`));
}

/** A `<form>` of the page by its accessible name's element id, as HTML. */
function formOf(html: string, titleId: string): string {
  const start = html.indexOf(`<form method="post" class="card" aria-labelledby="${titleId}">`);
  assert.notEqual(start, -1, `a form labelled by #${titleId}`);
  return html.slice(start, html.indexOf("</form>", start) + "</form>".length);
}

/** The text of the element with `id`. */
function textOf(html: string, id: string): string | undefined {
  return new RegExp(`id="${id}"[^>]*>([^<]*)<`).exec(html)?.[1];
}

/** Every visible control of a piece of HTML with its label's text (`<label for>`), or undefined when unlabelled. */
function controls(html: string): Array<{ name: string; id: string; label: string | undefined }> {
  return [...html.matchAll(/<(input|select|textarea)\b([^>]*)>/g)]
    .filter(([, , attributes]) => !/type="hidden"/.test(attributes!))
    .map(([, , attributes]) => {
      const id = /\bid="([^"]+)"/.exec(attributes!)?.[1] ?? "";
      return {
        name: /\bname="([^"]+)"/.exec(attributes!)?.[1] ?? "",
        id,
        label: new RegExp(`<label for="${id}">([^<]*)</label>`).exec(html)?.[1],
      };
    });
}

/** The option values of a `<select>` by id. */
function optionsOf(html: string, id: string): string[] {
  const start = html.indexOf(`<select id="${id}"`);
  assert.notEqual(start, -1, `a select #${id}`);
  const select = html.slice(start, html.indexOf("</select>", start));
  return [...select.matchAll(/<option value(?:="([^"]*)")?/g)].map((match) => match[1] ?? "");
}

const QUALIFIER_LABELS: Record<string, string> = {
  source: "Source",
  country: "Country",
  fuel: "Fuel",
  mealType: "Meal type",
  material: "Material",
  recycledContent: "Recycled content",
  mode: "Mode",
  stream: "Stream",
};

/** A booking that asks for `dataRequested`, in an event with a time zone, its link confirmed unless told. */
async function vendorPage(dataRequested: string[], options: { confirm?: boolean; now?: () => Date } = {}) {
  const storage = await sqliteStorage();
  const service = createEventService({ storage, webhooks: { allowPrivateNetworks: true }, now: options.now });
  const handler = createHandler(service, { clientAddress: () => "198.51.100.9" });
  const { accountId } = await service.keys.create({ account: "Acme" });
  const account = service.forAccount(accountId);
  const event = await account.events.create({ ...EVENT, timeZone: "Europe/Berlin" });
  const vendor = await account.vendors.create({ name: "Green Fork", category: "catering" });
  const booking = await account.bookings.create(event.id, {
    vendorId: vendor.id,
    services: "Lunch for 120",
    dataRequested: dataRequested as never,
  });
  const link = booking.vendorLink!;
  const page = async (query = "") => {
    const response = await handler(new Request(`${link}${query}`, { headers: { accept: HTML } }));
    return { status: response.status, html: await response.text() };
  };
  const post = (form: Record<string, string>) =>
    handler(
      new Request(link, {
        method: "POST",
        headers: { accept: HTML, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(form).toString(),
      }),
    );
  const json = (method: string, path: string, body?: unknown) =>
    handler(
      new Request(`${link}${path}`, {
        method,
        headers: { accept: "application/json", "content-type": "application/json" },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      }),
    );
  if (options.confirm !== false) assert.equal((await post({ action: "confirm" })).status, 303);
  return { storage, service, account, event, vendor, booking, link, page, post, json };
}

const VEGAN_FORM = {
  action: "record",
  kind: "catering",
  quantity: "120",
  unit: "meals",
  mealType: "vegan",
  dataQuality: "measured",
  note: "Lunch, day 1",
};

describe("the vendor's page", () => {
  test("says what is asked, for which event, in the event's time zone; the JSON view names the time zone", async (t) => {
    const { storage, page, json } = await vendorPage(["catering", "staff_travel"], { confirm: false });
    t.after(() => storage.close());
    const { status, html } = await page();
    assert.equal(status, 200);
    for (const [term, value] of [
      ["Starts", "1 May 2038, 11:00 CEST"],
      ["Ends", "1 May 2038, 19:00 CEST"],
      ["Where", "Berlin, DE"],
      ["Services", "Lunch for 120"],
      ["Status", '<span class="status">Waiting for your answer</span>'],
      ["Data asked for", "Catering, Staff travel"],
      ["Data accepted until", "31 May 2038, 19:00 CEST"],
    ])
      assert.ok(html.includes(`<dt>${term}</dt><dd>${value}</dd>`), `${term}: ${value}`);
    assert.ok(html.includes("<h1>Green Summit</h1>") && html.includes("Booking for Green Fork</h2>"));
    assert.ok(html.includes('<label for="message">Message</label>'));
    assert.ok(html.includes(">Confirm</button>") && html.includes(">Decline</button>"));
    // No data forms before the booking is confirmed.
    assert.ok(!html.includes('aria-labelledby="catering-title"'));
    assert.equal((await (await json("GET", "")).json()).event.timeZone, "Europe/Berlin");
  });

  test("once confirmed: a form per requested kind named by the kind, every control labelled, the choices the API's (docs/api.md)", async (t) => {
    const documented = documentedKinds();
    assert.equal(documented.size, 9, "docs/api.md's table of kinds");
    const optional = documentedOptional();
    assert.deepEqual([...optional].sort(), ["electricity.country", "materials.recycledContent", "waste.material"]);
    const { storage, page } = await vendorPage([...documented.keys()]);
    t.after(() => storage.close());
    const { html } = await page();
    const names: Record<string, string> = {
      electricity: "Electricity",
      fuel: "Fuel burned on site",
      catering: "Catering",
      accommodation: "Accommodation",
      materials: "Materials and printing",
      freight: "Freight",
      waste: "Waste",
      water: "Water",
      staff_travel: "Staff travel",
    };
    for (const [kind, { units, qualifiers }] of documented) {
      assert.equal(textOf(html, `${kind}-title`), names[kind], `${kind}'s form's name`);
      const form = formOf(html, `${kind}-title`);
      const expected = [
        ["quantity", "Quantity"],
        ...(units.length > 1 ? [["unit", "Unit"]] : []),
        ...[...qualifiers.keys()].map((name) => [name, QUALIFIER_LABELS[name]]),
        ["dataQuality", "Data quality"],
        ["note", "Note"],
      ];
      assert.deepEqual(
        controls(form).map(({ name, label }) => [name, label]),
        expected,
        `${kind}: every control, labelled`,
      );
      assert.match(form, /<button type="submit">Record<\/button>/);
      assert.match(form, new RegExp(`name="kind" value="${kind}"`));
      if (units.length > 1) assert.deepEqual(optionsOf(form, `${kind}-unit`), ["", ...units]);
      else {
        assert.match(form, new RegExp(`type="hidden" name="unit" value="${units[0]}"`));
        assert.match(form, new RegExp(`class="unit" id="${kind}-unit-text">`), `${kind}'s unit shown`);
      }
      for (const [name, values] of qualifiers) {
        const options = optionsOf(form, `${kind}-${name}`);
        // A blank first choice: "Choose…" where the API requires the qualifier, what leaving it out means where not.
        assert.equal(options[0], "", `${kind}.${name}: a blank first choice`);
        const select = form.slice(form.indexOf(`<select id="${kind}-${name}"`));
        assert.equal(
          /^<select[^>]*\brequired\b/.test(select),
          !optional.has(`${kind}.${name}`),
          `${kind}.${name} required`,
        );
        if (values === "country") {
          assert.equal(options.length - 1, 250, "every ISO 3166-1 alpha-2 code and XK");
          assert.ok(options.slice(1).every((code) => /^[A-Z]{2}$/.test(code)));
          assert.ok(options.includes("DE") && options.includes("XK"));
        } else assert.deepEqual(options.slice(1), values, `${kind}.${name}: the API's values`);
      }
      assert.deepEqual(optionsOf(form, `${kind}-dataQuality`), ["measured", "estimated"]);
    }
  });

  test("a record made on the page is the one the JSON link makes, with the same notification", async (t) => {
    const { storage, account, event, vendor, page, post, json } = await vendorPage(["catering"]);
    t.after(() => storage.close());
    const hook = await account.webhooks.create({ url: "https://93.184.216.34/v", events: ["vendor.data_submitted"] });
    const response = await post(VEGAN_FORM);
    assert.equal(response.status, 303);
    assert.match(response.headers.get("location")!, /\?done=recorded$/);
    const { html } = await page("?done=recorded");
    assert.ok(html.includes('role="status">Recorded. It is in the event'));
    const { action: _action, ...body } = VEGAN_FORM;
    assert.equal((await json("POST", "/activities", { ...body, quantity: 120 })).status, 201);
    const { activities } = await account.activities.list(event.id);
    assert.equal(activities.length, 2);
    const strip = ({ id: _id, createdAt: _c, updatedAt: _u, ...rest }: (typeof activities)[number]) => rest;
    assert.deepEqual(strip(activities[0]!), strip(activities[1]!));
    assert.equal(activities[0]!.vendorId, vendor.id);
    assert.equal(activities[0]!.quantity, 120);
    assert.equal(activities[0]!.mealType, "vegan");
    assert.equal(activities[0]!.note, "Lunch, day 1");
    const { deliveries } = await account.webhooks.deliveries(hook.id);
    assert.deepEqual(
      deliveries.map((delivery) => delivery.type),
      ["vendor.data_submitted", "vendor.data_submitted"],
    );
    // The record is listed with what it holds and its emissions.
    const listed = (await page()).html;
    assert.ok(listed.includes("<p>120 meals, Meal type: Vegan</p>"));
    assert.ok(
      listed.includes(
        `<dd>${activities[0]!.emissionsKg!.toLocaleString("en-GB", { maximumFractionDigits: 1 })} kg CO2e</dd>`,
      ),
    );
  });

  test("Edit opens the record's form filled in and Save changes it; Delete names the record and deletes it", async (t) => {
    const { storage, account, event, page, post } = await vendorPage(["catering"]);
    t.after(() => storage.close());
    assert.equal((await post(VEGAN_FORM)).status, 303);
    const [record] = (await account.activities.list(event.id)).activities;
    const name = `Catering record of ${localDateTime(record!.createdAt, "Europe/Berlin")}`;
    const { html } = await page();
    assert.ok(html.includes(`href="?edit=${record!.id}" aria-label="Edit ${name}">Edit</a>`));
    assert.ok(html.includes(`aria-label="Delete ${name}">Delete</button>`));

    const edit = (await page(`?edit=${record!.id}`)).html;
    assert.equal(textOf(edit, "edit-title"), `Change the ${name}`);
    const form = formOf(edit, "edit-title");
    assert.match(form, /name="action" value="update"/);
    assert.match(form, new RegExp(`name="activityId" value="${record!.id}"`));
    assert.match(form, /id="edit-quantity"[^>]*value="120"/);
    assert.match(form, /<option value="vegan" selected>/);
    assert.match(form, /<textarea id="edit-note"[^>]*>Lunch, day 1<\/textarea>/);
    assert.match(form, /<button type="submit">Save<\/button>/);

    const saved = await post({
      ...VEGAN_FORM,
      action: "update",
      activityId: record!.id,
      quantity: "130",
      mealType: "vegetarian",
      dataQuality: "estimated",
      note: "",
    });
    assert.equal(saved.status, 303);
    assert.match(saved.headers.get("location")!, /\?done=updated$/);
    const changed = await account.activities.get(event.id, record!.id);
    assert.deepEqual(
      [changed.quantity, changed.mealType, changed.dataQuality, changed.note],
      [130, "vegetarian", "estimated", null],
    );

    const deleted = await post({ action: "delete", activityId: record!.id });
    assert.equal(deleted.status, 303);
    assert.match(deleted.headers.get("location")!, /\?done=deleted$/);
    assert.deepEqual((await account.activities.list(event.id)).activities, []);
    // A second click finds it gone: what was asked is done.
    assert.equal((await post({ action: "delete", activityId: record!.id })).status, 303);
    const after = (await page("?done=deleted")).html;
    assert.ok(after.includes('role="status">The record was deleted.'));
    assert.ok(after.includes("No records yet."));
    // Changing a record that is gone says so beside the records, not as a dead link.
    const gone = await post({ ...VEGAN_FORM, action: "update", activityId: record!.id });
    assert.equal(gone.status, 400);
    assert.match(await gone.text(), /That record is not among yours any more/);
  });

  test("a record of a kind no longer requested can be deleted, not changed (400 naming kind)", async (t) => {
    const { storage, account, event, booking, page, post } = await vendorPage(["catering", "electricity"]);
    t.after(() => storage.close());
    assert.equal((await post(VEGAN_FORM)).status, 303);
    const [record] = (await account.activities.list(event.id)).activities;
    await account.bookings.update(event.id, booking.id, { dataRequested: ["electricity"] });
    const { html } = await page();
    assert.ok(!html.includes(`?edit=${record!.id}`));
    assert.ok(html.includes("No longer requested by the organiser: it can be deleted, not changed."));
    assert.ok(html.includes('aria-label="Delete Catering record of'));
    assert.ok(!html.includes('aria-labelledby="catering-title"'), "no new catering records");
    assert.match(
      (await page(`?edit=${record!.id}`)).html,
      /no longer asks for catering data: this record can be deleted, not\s+changed/,
    );
    const refused = await post({ ...VEGAN_FORM, action: "update", activityId: record!.id, quantity: "5" });
    assert.equal(refused.status, 400);
    assert.match(await refused.text(), /id="page-error" role="alert">Kind: the organiser no longer requests catering/);
    assert.equal((await post({ action: "delete", activityId: record!.id })).status, 303);
    assert.deepEqual((await account.activities.list(event.id)).activities, []);
  });

  test("a refused form is drawn again with the error beside it, the field named and marked, what was typed kept (as text)", async (t) => {
    const { storage, account, event, post } = await vendorPage(["catering", "fuel"]);
    t.after(() => storage.close());
    const note = 'Oops </textarea><script>alert("n")</script>';
    const refused = await post({ ...VEGAN_FORM, quantity: "0", note });
    assert.equal(refused.status, 400);
    const html = await refused.text();
    const form = formOf(html, "catering-title");
    assert.match(form, /<p class="error" id="catering-error" role="alert">Quantity: must be more than 0<\/p>/);
    assert.match(
      form,
      /id="catering-quantity"[^>]*value="0" aria-invalid="true" aria-describedby="catering-unit-text catering-error"/,
    );
    assert.match(form, /<option value="vegan" selected>/);
    assert.ok(form.includes("Oops &lt;/textarea>&lt;script>alert(&quot;n&quot;)&lt;/script></textarea>"));
    assert.ok(!html.includes("<script>alert"));
    // The other kind's form is untouched.
    assert.doesNotMatch(formOf(html, "fuel-title"), /role="alert"|selected>Diesel|value="0"/);
    // A word where a number belongs, and a unit the kind does not take, are the API's refusals naming the field.
    const word = await post({ ...VEGAN_FORM, quantity: "lots" });
    assert.equal(word.status, 400);
    assert.match(await word.text(), /id="catering-error" role="alert">Quantity: /);
    const unit = await post({ action: "record", kind: "fuel", quantity: "40", unit: "gallons", fuel: "diesel" });
    assert.equal(unit.status, 400);
    assert.match(formOf(await unit.text(), "fuel-title"), /id="fuel-error" role="alert">Unit: /);
    assert.deepEqual((await account.activities.list(event.id)).activities, []);
  });

  test("forms sent at once: each record is made once with its notification, and a record deleted twice at once is deleted once", async (t) => {
    const { storage, account, event, post } = await vendorPage(["catering"]);
    t.after(() => storage.close());
    const hook = await account.webhooks.create({ url: "https://93.184.216.34/v", events: ["vendor.data_submitted"] });
    const sent = await Promise.all(
      Array.from({ length: 8 }, (_, i) => post({ ...VEGAN_FORM, quantity: String(10 + i), note: `Batch ${i}` })),
    );
    assert.deepEqual(
      sent.map((response) => response.status),
      Array(8).fill(303),
    );
    const { activities } = await account.activities.list(event.id);
    assert.deepEqual(
      activities.map((activity) => activity.quantity).sort((a, b) => a - b),
      [10, 11, 12, 13, 14, 15, 16, 17],
    );
    assert.equal((await account.webhooks.deliveries(hook.id)).deliveries.length, 8);
    const twice = await Promise.all([
      post({ action: "delete", activityId: activities[0]!.id }),
      post({ action: "delete", activityId: activities[0]!.id }),
    ]);
    assert.deepEqual(
      twice.map((response) => response.status),
      [303, 303],
    );
    assert.equal((await account.activities.list(event.id)).activities.length, 7);
  });

  test("lists the first 100 records and says how many there are", async (t) => {
    const { storage, page, json } = await vendorPage(["catering"]);
    t.after(() => storage.close());
    for (let i = 1; i <= 101; i++)
      assert.equal(
        (await json("POST", "/activities", { kind: "catering", quantity: i, unit: "meals", mealType: "vegan" })).status,
        201,
      );
    const { html } = await page();
    assert.ok(html.includes("Showing the first 100 of 101 records."));
    assert.equal(html.match(/aria-label="Delete Catering record of /g)?.length, 100);
    assert.ok(html.includes("<p>100 meals, Meal type: Vegan</p>") && !html.includes("<p>101 meals"));
  });

  test("declined, or once the event's records closed, the page still shows the booking and says what is possible", async (t) => {
    const declined = await vendorPage(["catering"], { confirm: false });
    t.after(() => declined.storage.close());
    assert.equal((await declined.post({ action: "decline", message: "Fully booked" })).status, 303);
    const html = (await declined.page()).html;
    assert.ok(html.includes('<span class="status">Declined</span>'));
    assert.ok(html.includes("You declined this booking, so there is nothing more to do here."));
    assert.ok(!html.includes("<form"));

    let now = new Date("2038-04-01T00:00:00.000Z");
    const closed = await vendorPage(["catering"], { now: () => now });
    t.after(() => closed.storage.close());
    assert.equal((await closed.post(VEGAN_FORM)).status, 303);
    now = new Date("2038-06-01T00:00:00.000Z");
    const after = (await closed.page()).html;
    assert.ok(after.includes("The event's records closed on 31 May 2038, 19:00 CEST."));
    assert.ok(after.includes("<p>120 meals, Meal type: Vegan</p>"), "the records still shown");
    assert.ok(!after.includes("<form"), "no form to record, change or delete");
    const late = await closed.post(VEGAN_FORM);
    assert.equal(late.status, 422);
    assert.match(await late.text(), /id="page-error" role="alert">The event's records closed/);
  });
});
