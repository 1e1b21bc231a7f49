/**
 * The pages behind links, in process through the handler: the headers every page carries, text
 * from the organiser shown as text, forms posted to the page's own URL (a success redirects back,
 * a refusal draws the page again with the request's status), and the HTML answer to a dead link.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, test } from "node:test";
import { localDateTime } from "../src/_internal/local-time.ts";
import { createHandler } from "../src/http/handler.ts";
import { openApiDocument } from "../src/http/openapi.ts";
import type { StripeCheckoutSessionParams, StripeClient } from "../src/payments/stripe-client.ts";
import { createEventService } from "../src/service.ts";
import { sqliteStorage } from "./_sqlite.ts";
import { apiRequest, EVENT } from "./_fixtures.ts";

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
    assert.doesNotMatch(csp, /unsafe-inline|https?:/);
    assert.match(csp, /; form-action 'self';/);
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

  test("names of Object.prototype's are no form action (400 page, never 500) and no note (?done=constructor draws none)", async (t) => {
    const { storage, account, event, booking, link, page, post } = await setUp();
    t.after(() => storage.close());
    for (const action of ["constructor", "toString", "hasOwnProperty", "__proto__", "valueOf", "isPrototypeOf"]) {
      const refused = await post({ action });
      assert.equal(refused.status, 400, action);
      assert.match(await refused.text(), /role="alert">The form asked for nothing this page does\.</, action);
    }
    assert.equal((await account.bookings.get(event.id, booking.id)).status, "requested");
    // A kind of Object.prototype's is the schema's to refuse (400 naming kind), once the booking takes records.
    assert.equal((await post({ action: "confirm" })).status, 303);
    for (const kind of ["constructor", "__proto__", "toString"])
      for (const action of ["record", "update"]) {
        const refused = await post({ action, kind, quantity: "1", activityId: "act_x" });
        assert.equal(refused.status, 400, `${action} ${kind}`);
      }
    for (const done of ["constructor", "toString", "__proto__"]) {
      const html = await (await page(`${link}?done=${done}`)).text();
      assert.ok(!html.includes('role="status"'), `no note for ?done=${done}`);
    }
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

/** Names a form or a query may carry that are Object.prototype's, never the page's own. */
const PROTOTYPE_NAMES = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf", "isPrototypeOf"];

describe("the link pages' forms and queries, generated (no 5xx)", () => {
  /** A form of fields named from the pages' own and Object.prototype's, each value one a person might type or a hostile one. */
  const form = (names: readonly string[]) =>
    fc.dictionary(
      fc.constantFrom(...names, ...PROTOTYPE_NAMES),
      fc.oneof(
        fc.constantFrom(...PROTOTYPE_NAMES, "", " ", "1", "-1", "0", "1e400", "NaN", "2,5", "true", "on"),
        fc.constantFrom("catering", "fuel", "electricity", "waste", "meals", "litres", "vegan", "grid", "DE", "train"),
        fc.string({ maxLength: 40 }),
      ),
      { maxKeys: 8 },
    );
  const query = fc.tuple(
    fc.constantFrom("done", "edit", "confirm", "x"),
    fc.constantFrom(...PROTOTYPE_NAMES, "cancel", "saved", "recorded", "act_x", "%ZZ", ""),
  );

  test("the vendor's page and the ticket page answer every form with 200, 303, 400 or 422, and every query with 200", async (t) => {
    const storage = await sqliteStorage();
    t.after(() => storage.close());
    const service = createEventService({ storage });
    const handler = createHandler(service, { clientAddress: () => "198.51.100.9", linkLimitPerMinute: 1_000_000 });
    const { accountId } = await service.keys.create({ account: "Acme" });
    const account = service.forAccount(accountId);
    const event = await account.events.create({ ...EVENT, timeZone: "Europe/Berlin", capacity: 5 });
    await account.events.update(event.id, { status: "published" });
    const vendor = await account.vendors.create({ name: "Green Fork", category: "catering" });
    const booking = await account.bookings.create(event.id, {
      vendorId: vendor.id,
      services: "Lunch",
      dataRequested: ["catering", "fuel", "electricity", "materials", "waste"],
    });
    const ticket = await account.attendees.register({
      eventId: event.id,
      firstName: "Ann",
      lastName: "Lee",
      email: "ann@example.com",
      ticketType: "general",
    });
    const send = (url: string, fields: Record<string, string>) =>
      handler(
        new Request(url, {
          method: "POST",
          headers: { accept: HTML, "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams(fields).toString(),
        }),
      );
    const vendorLink = booking.vendorLink!;
    assert.equal((await send(vendorLink, { action: "confirm" })).status, 303);
    const pages = [
      {
        link: vendorLink,
        names: ["action", "kind", "quantity", "unit", "mealType", "source", "country", "fuel", "material"].concat([
          "recycledContent",
          "stream",
          "dataQuality",
          "note",
          "activityId",
          "message",
        ]),
        actions: ["record", "update", "delete", "confirm", "decline"],
      },
      {
        link: ticket.ticketUrl!,
        names: ["action", "dietaryPreferences", "wheelchairAccess", "accessibilityOther", "emergencyName"].concat([
          "emergencyPhone",
          "emergencyRelationship",
          "travelMode",
          "travelDistance",
          "opted",
        ]),
        // "cancel" is left out, so that the registration keeps taking changes.
        actions: ["save", "pay"],
      },
    ];
    for (const { link, names, actions } of pages) {
      await fc.assert(
        fc.asyncProperty(form(names), fc.constantFrom(...actions, ...PROTOTYPE_NAMES), async (fields, action) => {
          const response = await send(link, { ...fields, action });
          await response.arrayBuffer();
          assert.ok([200, 303, 400, 422].includes(response.status), `${response.status} ${JSON.stringify(fields)}`);
        }),
        { numRuns: 150 },
      );
      await fc.assert(
        fc.asyncProperty(query, async ([name, value]) => {
          const response = await handler(new Request(`${link}?${name}=${value}`, { headers: { accept: HTML } }));
          const html = await response.text();
          assert.equal(response.status, 200, `?${name}=${value}`);
          assert.ok(!html.includes('role="status"></p>'), `an empty note for ?${name}=${value}`);
        }),
        { numRuns: 60 },
      );
    }
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
    // When they closed in the event's time zone, as the page says it, never in UTC.
    const closedWords = `id="page-error" role="alert">The event's records closed on 31 May 2038, 19:00 CEST: no record can be made, changed or deleted here any more.</p>`;
    assert.ok((await late.text()).includes(closedWords), closedWords);
  });
});

/** A Stripe client in process, of the shape the service calls (`StripeClient`): it keeps the sessions it made. */
function fakeStripe() {
  const sessions = new Map<string, { params: StripeCheckoutSessionParams; status: string }>();
  let next = 0;
  const session = (id: string) => {
    const made = sessions.get(id)!;
    const items = made.params.line_items;
    return {
      id,
      status: made.status,
      amount_total: items[0]!.price_data.unit_amount,
      currency: items[0]!.price_data.currency,
      url: made.status === "open" ? `https://checkout.stripe.com/c/pay/${id}` : null,
    };
  };
  const intent = (id: string, amount: number, currency: string) => ({
    id,
    amount,
    amount_received: 0,
    currency,
    status: "requires_payment_method",
    client_secret: `${id}_secret_x`,
    metadata: {},
  });
  const client: StripeClient = {
    paymentIntents: {
      create: async (params: { amount: number; currency: string }) =>
        intent(`pi_${++next}`, params.amount, params.currency),
      cancel: async (id: string) => ({ ...intent(id, 0, "eur"), status: "canceled" }),
    },
    checkout: {
      sessions: {
        create: async (params: StripeCheckoutSessionParams) => {
          const id = `cs_test_${++next}`;
          sessions.set(id, { params, status: "open" });
          return session(id);
        },
        retrieve: async (id: string) => session(id),
        expire: async (id: string) => {
          sessions.get(id)!.status = "expired";
          return session(id);
        },
      },
    },
    refunds: { create: async () => ({ id: `re_${++next}`, status: "succeeded" }) },
    accounts: { retrieve: async (id: string) => ({ id }) },
    webhooks: {
      constructEventAsync: async () => {
        throw new Error("not used");
      },
    },
  };
  return { client, sessions };
}

/** Every visible control of the HTML whose id no `<label for>` names. */
function unlabelled(html: string): string[] {
  return [...html.matchAll(/<(input|select|textarea)\b([^>]*)>/g)]
    .filter(([, , attributes]) => !/type="hidden"/.test(attributes!))
    .map(([, , attributes]) => /\bid="([^"]+)"/.exec(attributes!)?.[1] ?? "(no id)")
    .filter((id) => !html.includes(`for="${id}"`));
}

const HOSTILE = '<img src=x onerror="alert(1)">';

/**
 * An attendee's ticket page: an event in Berlin's time zone with hostile text from the organiser
 * (its name, address and ticket type), a priced type (120.00 EUR) and a free one, one place and a
 * waiting list; paid through Stripe (a client in process) when `stripe`, else by hand.
 */
async function ticketPage(options: { stripe?: boolean; refundPolicy?: "full" | "none" } = {}) {
  const storage = await sqliteStorage();
  let clock = new Date("2038-04-01T10:00:00.000Z");
  const stripe = options.stripe ? fakeStripe() : undefined;
  const service = createEventService({
    storage,
    now: () => clock,
    ...(stripe && { payments: { stripe: stripe.client, webhookSecrets: ["whsec_x"] } }),
  });
  const handler = createHandler(service, { clientAddress: () => "198.51.100.9" });
  const { accountId } = await service.keys.create({ account: "Acme" });
  const account = service.forAccount(accountId);
  const event = await account.events.create({
    ...EVENT,
    name: `Summit ${HOSTILE}`,
    location: { address: `Hall </dd>${HOSTILE}`, city: "Berlin", country: "DE" },
    timeZone: "Europe/Berlin",
    capacity: 1,
    waitlistEnabled: true,
    refundPolicy: options.refundPolicy ?? "full",
    ticketTypes: [
      { name: "VIP <b>x</b>", price: { amount: 12_000, currency: "EUR" } },
      { name: "Free", price: { amount: 0, currency: "EUR" } },
    ],
  });
  const register = async (ticketType: string, firstName = "Ann") => {
    const attendee = await account.attendees.register({
      eventId: event.id,
      firstName,
      lastName: "Lee",
      email: `${firstName.replace(/\W/g, "").toLowerCase() || "x"}@example.com`,
      ticketType,
    });
    return { attendee, url: attendee.ticketUrl! };
  };
  const page = async (url: string, query = "") => {
    const response = await handler(new Request(`${url}${query}`, { headers: { accept: HTML } }));
    return { status: response.status, html: await response.text(), headers: response.headers };
  };
  const post = (url: string, form: Record<string, string>) =>
    handler(
      new Request(url, {
        method: "POST",
        headers: { accept: HTML, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(form).toString(),
      }),
    );
  const json = async (method: string, url: string) => {
    const response = await handler(new Request(url, { method, headers: { accept: "application/json" } }));
    return { status: response.status, body: await response.json() };
  };
  const at = (iso: string) => {
    clock = new Date(iso);
  };
  return { storage, service, account, event, register, page, post, json, at, stripe };
}

const SAVE_FORM = {
  action: "save",
  dietaryPreferences: "Vegan, nut allergy",
  wheelchairAccess: "on",
  accessibilityOther: "Step-free seat",
  emergencyName: "Bo Lee",
  emergencyPhone: "+49 30 1234567",
  emergencyRelationship: "Brother",
  travelMode: "train",
  travelDistance: "420",
  opted: "on",
};

describe("the attendee's ticket page", () => {
  test("shows the event in its time zone, the attendee, status in words, code, amount due; hostile text as text; every control labelled", async (t) => {
    const { storage, register, page, event } = await ticketPage();
    t.after(() => storage.close());
    const { attendee, url } = await register("VIP <b>x</b>", "<i>Ann</i>");
    const { status, html, headers } = await page(url);
    assert.equal(status, 200);
    // Pay's answer redirects to Stripe's payment page: the one other origin its forms may lead to.
    assert.match(headers.get("content-security-policy") ?? "", /; form-action 'self' https:\/\/checkout\.stripe\.com;/);
    assert.match(html, /^<!doctype html><html lang="en">/);
    assert.ok(html.includes("<h1>Summit &lt;img src=x onerror=&quot;alert(1)&quot;></h1>"));
    assert.ok(html.includes("Hall &lt;/dd>&lt;img src=x"), "the address escaped");
    assert.ok(html.includes("<dd>VIP &lt;b>x&lt;/b></dd>"), "the ticket type escaped");
    assert.ok(html.includes("&lt;i>Ann&lt;/i> Lee"), "the attendee's own name escaped");
    assert.ok(!html.includes("<img src=x") && !html.includes("<i>Ann"));
    assert.ok(html.includes(`<dd>${localDateTime(event.startDate, "Europe/Berlin")}</dd>`));
    assert.ok(html.includes("1 May 2038, 11:00 CEST"));
    assert.ok(html.includes('<span class="status">Waiting for payment</span>'));
    assert.ok(html.includes(`<dd class="code">${attendee.confirmationCode}</dd>`));
    assert.ok(html.includes("<dt>Amount due</dt><dd>120.00 EUR</dd>"));
    assert.ok(!html.includes("QR code for check-in"), "no QR code while unpaid");
    assert.ok(!html.includes('value="pay"'), "no Pay without Stripe");
    assert.ok(html.includes("The organiser takes this payment in person or by bank transfer; once it is recorded"));
    const token = new URL(url).pathname.split("/").at(-1)!;
    assert.ok(html.includes(`<a class="button secondary" href="${token}/calendar.ics">Add to calendar</a>`));
    assert.deepEqual(unlabelled(html), []);
    for (const label of [
      "Dietary preferences",
      "Wheelchair access",
      "Travel mode",
      "Travel distance (km)",
      "Offset my travel",
      "Emergency contact phone",
    ])
      assert.ok(html.includes(`>${label}</label>`) || html.includes(`/>${label}</label>`), label);
    assert.deepEqual(
      [...html.slice(html.indexOf('<select id="travelMode"')).matchAll(/<option value(?:="([^"]*)")?/g)]
        .map((match) => match[1] ?? "")
        .slice(0, 7),
      ["", "car", "flight", "train", "bus", "bike", "walk"],
    );
    assert.ok(html.includes('<button type="submit" class="secondary">Cancel registration</button>'));
    // The calendar link, relative to the page, is the JSON twin's file.
    const calendar = await fetchRelative(url, `${token}/calendar.ics`);
    assert.equal(calendar, `${url}/calendar.ics`);
  });

  test("the QR image only while the registration can check in: after payment, never waitlisted or cancelled", async (t) => {
    const { storage, register, page, account, post } = await ticketPage();
    t.after(() => storage.close());
    const first = await register("VIP <b>x</b>");
    const second = await register("Free", "Cy");
    assert.ok(!(await page(first.url)).html.includes("QR code for check-in"));
    const waiting = await page(second.url);
    assert.ok(waiting.html.includes('<span class="status">On the waiting list, place 1</span>'));
    assert.ok(!waiting.html.includes("QR code for check-in"));
    await account.attendees.pay(first.attendee.id, { amount: 12_000, method: "cash" });
    const paid = await page(first.url);
    assert.ok(paid.html.includes('<span class="status">Confirmed</span>'));
    assert.ok(paid.html.includes(`<img class="qr" alt="QR code for check-in" src="../qr/${first.attendee.id}.png"/>`));
    assert.equal(new URL(`../qr/${first.attendee.id}.png`, first.url).pathname, `/v1/qr/${first.attendee.id}.png`);
    assert.equal((await post(first.url, { action: "cancel" })).status, 303);
    const cancelled = await page(first.url);
    assert.ok(cancelled.html.includes('<span class="status">Cancelled</span>'));
    assert.ok(cancelled.html.includes("This registration is cancelled. 120.00 EUR was refunded."));
    assert.ok(cancelled.html.includes("<dt>Amount due</dt><dd>0.00 EUR</dd>"), "nothing owed once cancelled");
    assert.ok(!cancelled.html.includes("QR code for check-in"));
    assert.ok(!cancelled.html.includes('value="save"') && !cancelled.html.includes("Cancel registration"));
  });

  test("Save changes the attendee's details as the JSON twin's PUT; a refusal is drawn again with the field marked and what was typed kept", async (t) => {
    const { storage, register, page, post, json } = await ticketPage();
    t.after(() => storage.close());
    const { url } = await register("Free");
    const saved = await post(url, SAVE_FORM);
    assert.equal(saved.status, 303);
    assert.equal(saved.headers.get("location"), `${new URL(url).pathname}?done=saved`);
    const { body } = await json("GET", url);
    assert.deepEqual(body.attendee.dietaryPreferences, ["vegan", "nut allergy"]);
    assert.deepEqual(body.attendee.accessibilityNeeds, {
      wheelchairAccess: true,
      signLanguage: false,
      visualAid: false,
      other: "Step-free seat",
    });
    assert.deepEqual(body.attendee.emergencyContact, {
      name: "Bo Lee",
      phone: "+49 30 1234567",
      relationship: "Brother",
    });
    assert.deepEqual(body.attendee.carbonOffset, { opted: true, travelMode: "train", travelDistance: 420 });
    const after = (await page(url, "?done=saved")).html;
    assert.ok(after.includes('<p class="notice" role="status">Your details were saved.</p>'));
    assert.ok(after.includes('<option value="train" selected>Train</option>'));
    assert.ok(after.includes('id="travelDistance" name="travelDistance" value="420"'));

    const refused = await post(url, { ...SAVE_FORM, emergencyPhone: "call <b>me</b>", travelMode: "", opted: "" });
    assert.equal(refused.status, 400);
    const html = await refused.text();
    assert.match(html, /<p class="error" id="details-error" role="alert">Emergency contact phone: /);
    assert.ok(
      html.includes('id="emergencyPhone" name="emergencyPhone" value="call &lt;b>me&lt;/b>" aria-invalid="true"'),
    );
    assert.deepEqual((await json("GET", url)).body.attendee.carbonOffset, {
      opted: true,
      travelMode: "train",
      travelDistance: 420,
    });
    // Cleared on the form (a blank field, an unticked box), cleared in the registration.
    await post(url, { action: "save", travelMode: "", travelDistance: "" });
    const cleared = (await json("GET", url)).body.attendee;
    assert.deepEqual(cleared.carbonOffset, { opted: false, travelMode: null, travelDistance: null });
    assert.equal(cleared.emergencyContact, null);
    assert.deepEqual(cleared.dietaryPreferences, []);
  });

  test("Cancel registration leads to a confirmation step saying the refund; Confirm cancellation refunds by the policy and promotes the next in line", async (t) => {
    const { storage, register, page, post, json, account } = await ticketPage();
    t.after(() => storage.close());
    const first = await register("VIP <b>x</b>");
    const second = await register("Free", "Cy");
    await account.attendees.pay(first.attendee.id, { amount: 12_000, method: "bank_transfer" });
    const step = (await page(first.url, "?confirm=cancel")).html;
    assert.ok(step.includes('<h2 id="confirm-title">Cancel your registration?</h2>'));
    assert.ok(
      step.includes(
        "<p>120.00 EUR will be refunded to you, as the event's refund policy gives a full refund until it starts.</p>",
      ),
    );
    assert.ok(step.includes('<button type="submit" class="danger">Confirm cancellation</button>'));
    assert.ok(step.includes('<a class="button secondary" href="?">Keep my registration</a>'));
    assert.ok(!step.includes('value="save"'), "the step shows only the cancellation");
    assert.equal((await json("GET", first.url)).body.attendee.status, "confirmed", "the step alone changes nothing");
    const done = await post(first.url, { action: "cancel" });
    assert.equal(done.status, 303);
    assert.equal(done.headers.get("location"), `${new URL(first.url).pathname}?done=cancelled`);
    const { body } = await json("GET", first.url);
    assert.equal(body.attendee.status, "cancelled");
    assert.equal(body.payment.amountRefunded, 12_000);
    assert.equal((await account.attendees.get(second.attendee.id)).status, "confirmed");
    assert.ok((await page(first.url, "?done=cancelled")).html.includes("Your registration was cancelled."));
  });

  test("under refundPolicy none the step says nothing is refunded", async (t) => {
    const { storage, register, page, account } = await ticketPage({ refundPolicy: "none" });
    t.after(() => storage.close());
    const { attendee, url } = await register("VIP <b>x</b>");
    await account.attendees.pay(attendee.id, { amount: 12_000, method: "cash" });
    assert.ok(
      (await page(url, "?confirm=cancel")).html.includes(
        "<p>Nothing will be refunded: the event's refund policy gives no refunds.</p>",
      ),
    );
  });

  test("after the event starts: the ticket without forms, and a form sent anyway is refused 422 with the reason", async (t) => {
    const { storage, register, page, post, json, at, account } = await ticketPage();
    t.after(() => storage.close());
    const { attendee, url } = await register("Free");
    at("2038-05-01T09:30:00.000Z");
    const { html } = await page(url);
    assert.ok(html.includes("The event has started: your details can no longer be changed here."));
    assert.ok(html.includes("QR code for check-in"));
    assert.ok(!html.includes('value="save"') && !html.includes("Cancel registration"));
    for (const form of [SAVE_FORM, { action: "cancel" }]) {
      const refused = await post(url, form);
      assert.equal(refused.status, 422);
      // In the attendee's words, the start in the event's time zone: no id, no UTC time.
      const startedWords =
        '<p class="error" id="page-error" role="alert">The event started on 1 May 2038, 11:00 CEST: your registration can no longer be changed or cancelled here.</p>';
      assert.ok((await refused.text()).includes(startedWords), startedWords);
    }
    assert.equal((await account.attendees.get(attendee.id)).status, "confirmed");
    assert.equal((await json("GET", url)).body.attendee.carbonOffset.travelMode, null);
  });

  test("an event cancelled by its organiser: the page says so, with the refund", async (t) => {
    const { storage, register, page, account, event } = await ticketPage();
    t.after(() => storage.close());
    const { attendee, url } = await register("VIP <b>x</b>");
    await account.attendees.pay(attendee.id, { amount: 12_000, method: "cash" });
    await account.events.update(event.id, { status: "cancelled" });
    const { html } = await page(url);
    assert.ok(
      html.includes('<p class="notice">This event was cancelled by its organiser. 120.00 EUR was refunded.</p>'),
    );
    assert.ok(!html.includes("QR code for check-in") && !html.includes("Add to calendar"));
    assert.ok(!html.includes('value="save"'));
    assert.ok(html.includes("<dt>Amount due</dt><dd>0.00 EUR</dd>"), "nothing owed once the event is called off");
  });

  test("Pay makes a Checkout Session for what is owed and redirects to it (303); back with ?done=paid the page shows the real status", async (t) => {
    const { storage, register, page, post, json, stripe } = await ticketPage({ stripe: true });
    t.after(() => storage.close());
    const { attendee, url } = await register("VIP <b>x</b>");
    const before = (await page(url)).html;
    assert.ok(before.includes('<button type="submit">Pay 120.00 EUR</button>'));
    assert.ok(before.includes('<form method="post" aria-label="Pay">'));
    assert.ok(before.includes("<dt>Pay by</dt>"));
    const response = await post(url, { action: "pay" });
    assert.equal(response.status, 303);
    assert.equal(stripe!.sessions.size, 1);
    const [id, made] = [...stripe!.sessions][0]!;
    assert.equal(response.headers.get("location"), `https://checkout.stripe.com/c/pay/${id}`);
    assert.deepEqual(made!.params.line_items, [
      { price_data: { currency: "eur", unit_amount: 12_000, product_data: { name: "VIP <b>x</b>" } }, quantity: 1 },
    ]);
    assert.equal(made!.params.client_reference_id, attendee.id);
    assert.equal(made!.params.success_url, `${url}?done=paid`);
    assert.equal(made!.params.cancel_url, `${url}?done=payment_cancelled`);
    // The JSON twin answers the same open session.
    assert.deepEqual(await json("POST", `${url}/checkout`), {
      status: 200,
      body: { url: `https://checkout.stripe.com/c/pay/${id}` },
    });
    const back = (await page(url, "?done=paid")).html;
    assert.ok(back.includes("Thank you — your payment is being confirmed."));
    assert.ok(back.includes('<span class="status">Waiting for payment</span>'));
    assert.ok((await page(url, "?done=payment_cancelled")).html.includes("The payment was not made."));
    for (const done of ["constructor", "toString", "__proto__"])
      assert.ok(!(await page(url, `?done=${done}`)).html.includes('role="status"'), `no note for ?done=${done}`);
    for (const action of ["constructor", "hasOwnProperty", "valueOf"])
      assert.equal((await post(url, { action })).status, 400, action);
  });

  test("forms sent at once: Pay twice gives one open session, Confirm cancellation twice cancels once (the other refused 422)", async (t) => {
    const { storage, register, post, json, account, stripe } = await ticketPage({ stripe: true });
    t.after(() => storage.close());
    const payer = await register("VIP <b>x</b>");
    const paid = await Promise.all([post(payer.url, { action: "pay" }), post(payer.url, { action: "pay" })]);
    assert.deepEqual(
      paid.map((response) => response.status),
      [303, 303],
    );
    const open = [...stripe!.sessions].filter(([, made]) => made.status === "open").map(([id]) => id);
    assert.equal(open.length, 1);
    assert.deepEqual(
      paid.map((response) => response.headers.get("location")),
      [0, 1].map(() => `https://checkout.stripe.com/c/pay/${open[0]}`),
    );

    const free = await register("Free", "Cy");
    const cancels = await Promise.all([post(free.url, { action: "cancel" }), post(free.url, { action: "cancel" })]);
    assert.deepEqual(cancels.map((response) => response.status).sort(), [303, 422]);
    const refused = cancels.find((response) => response.status === 422)!;
    const cancelledWords =
      '<p class="error" id="page-error" role="alert">This registration is cancelled: it can no longer be changed here.</p>';
    assert.ok((await refused.text()).includes(cancelledWords), cancelledWords);
    assert.equal((await json("GET", free.url)).body.attendee.status, "cancelled");
    assert.equal((await account.attendees.get(free.attendee.id)).status, "cancelled");
  });

  test("checkout refused with its reason: 422 on the JSON twin, the page drawn again; a free ticket shows no Pay", async (t) => {
    const manual = await ticketPage();
    t.after(() => manual.storage.close());
    const priced = await manual.register("VIP <b>x</b>");
    const refused = await manual.json("POST", `${priced.url}/checkout`);
    assert.equal(refused.status, 422);
    assert.equal(refused.body.error.code, "INVALID_STATE_TRANSITION");
    assert.equal(refused.body.error.details.reason, "manual_payment");
    const form = await manual.post(priced.url, { action: "pay" });
    assert.equal(form.status, 422);
    assert.match(
      await form.text(),
      /<p class="error" id="page-error" role="alert">This ticket is paid to the organiser, in person or by bank transfer, not online: /,
    );

    const stripe = await ticketPage({ stripe: true });
    t.after(() => stripe.storage.close());
    const free = await stripe.register("Free");
    assert.ok(!(await stripe.page(free.url)).html.includes('value="pay"'));
    assert.equal((await stripe.json("POST", `${free.url}/checkout`)).body.error.details.reason, "not_priced");
    const freeForm = await stripe.post(free.url, { action: "pay" });
    assert.equal(freeForm.status, 422);
    const freeWords = 'role="alert">This ticket is free: there is nothing to pay.</p>';
    assert.ok((await freeForm.text()).includes(freeWords), freeWords);

    // A page opened before the hold ran out, its Pay sent after: the hold's end in the event's time zone.
    const late = await ticketPage({ stripe: true });
    t.after(() => late.storage.close());
    const held = await late.register("VIP <b>x</b>");
    assert.equal(held.attendee.payment?.expiresAt, "2038-04-01T10:30:00.000Z");
    late.at("2038-04-01T10:31:00.000Z");
    assert.equal((await late.json("POST", `${held.url}/checkout`)).body.error.details.reason, "payment_expired");
    const expired = await late.post(held.url, { action: "pay" });
    assert.equal(expired.status, 422);
    const html = await expired.text();
    const expiredWords =
      'role="alert">Your place was held for payment until 1 Apr 2038, 12:30 CEST, and that time has passed.</p>';
    assert.ok(html.includes(expiredWords), expiredWords);
    assert.ok(!/role="alert">[^<]*(att_|evt_|\d{4}-\d\d-\d\dT)/.test(html), "no id, no UTC time");
  });
});

/** Where a link relative to the page leads, as a browser resolves it. */
async function fetchRelative(page: string, href: string): Promise<string> {
  return new URL(href, page).href;
}

/**
 * A door's page: a published event in Berlin's time zone with hostile text from the organiser
 * and the attendees, a free ticket type and a priced one (paid by hand), and a check-in link.
 */
async function doorPage() {
  const storage = await sqliteStorage();
  let clock = new Date("2038-05-01T08:00:00.000Z");
  const service = createEventService({ storage, now: () => clock });
  const handler = createHandler(service, { clientAddress: () => "198.51.100.9" });
  const { accountId, key } = await service.keys.create({ account: "Acme" });
  const account = service.forAccount(accountId);
  const event = await account.events.create({
    ...EVENT,
    name: `Summit ${HOSTILE}`,
    timeZone: "Europe/Berlin",
    capacity: 2,
    waitlistEnabled: true,
    ticketTypes: [
      { name: `Free ${HOSTILE}`, price: { amount: 0, currency: "EUR" } },
      { name: "Paid", price: { amount: 5000, currency: "EUR" } },
    ],
  });
  await account.events.update(event.id, { status: "published" });
  const other = await account.events.create({ ...EVENT, name: "Other Fest" });
  await account.events.update(other.id, { status: "published" });
  const register = (firstName: string, ticketType = `Free ${HOSTILE}`, eventId = event.id) =>
    account.attendees.register({
      eventId,
      firstName,
      lastName: "Lee",
      email: `${firstName.toLowerCase()}@example.com`,
      ticketType,
    });
  const api = async (method: string, path: string, body?: unknown) =>
    (await handler(apiRequest(method, `http://localhost/v1${path}`, key, body))).json() as Promise<{
      id: string;
      url: string;
    }>;
  const made = await api("POST", `/events/${event.id}/check-in-links`, { label: "North <gate>" });
  const link = made.url;
  const revoke = () => api("DELETE", `/events/${event.id}/check-in-links/${made.id}`);
  const page = async (query = "", url = link) => {
    const response = await handler(new Request(`${url}${query}`, { headers: { accept: HTML } }));
    return { status: response.status, html: await response.text(), headers: response.headers };
  };
  const post = async (form: Record<string, string>) => {
    const response = await handler(
      new Request(link, {
        method: "POST",
        headers: { accept: HTML, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(form).toString(),
      }),
    );
    return { status: response.status, html: await response.text(), location: response.headers.get("location") };
  };
  const at = (iso: string) => {
    clock = new Date(iso);
  };
  return { storage, service, account, event, other, register, link, page, post, at, handler, revoke };
}

/** The text of the page's status element, its tags dropped. */
function statusText(html: string): string {
  const element = /<div id="door-result" class="([^"]*)" role="status">(.*?)<\/div>/.exec(html);
  assert.ok(element, "the result element");
  return `${element[1]}: ${element[2]!
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ")
    .trim()}`;
}

describe("the door's page", () => {
  test("shows the event in its time zone, the label and the count; every control labelled; its script from the service and nothing else", async (t) => {
    const { storage, page, register, link, handler } = await doorPage();
    t.after(() => storage.close());
    await register("Ann");
    const { status, html, headers } = await page();
    assert.equal(status, 200);
    const csp = headers.get("content-security-policy") ?? "";
    assert.match(csp, /script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'; worker-src 'self';/);
    assert.doesNotMatch(csp, /unsafe-inline|(?<!wasm-)unsafe-eval|https?:|\*/);
    assert.match(csp, /; form-action 'self';/);
    assert.equal(headers.get("cache-control"), "no-store");
    // The script's address carries its bytes' hash: a phone that kept yesterday's (cached a day) takes the new one.
    const script = /<script src="(\.\.\/\.\.\/pages\/door\.js\?v=([0-9a-f]{12}))" defer><\/script>/.exec(html);
    assert.ok(script, "the page loads the service's own door.js with its version");
    const served = await handler(new Request(new URL(script[1]!, link)));
    assert.equal(served.status, 200);
    const bytes = new Uint8Array(await served.arrayBuffer());
    assert.equal(script[2], createHash("sha256").update(bytes).digest("hex").slice(0, 12));
    assert.equal([...html.matchAll(/<script/g)].length, 1, "one script, the service's own file");
    assert.ok(html.includes("<h1>Summit &lt;img src=x onerror=&quot;alert(1)&quot;></h1>"));
    assert.ok(html.includes("<strong>North &lt;gate></strong>"));
    assert.ok(html.includes(localDateTime(EVENT.startDate, "Europe/Berlin")));
    assert.match(html, /<span id="checked-in">0<\/span> of <span id="expected">1<\/span> checked in/);
    assert.match(html, /<label for="code">Code<\/label><input type="text" id="code" name="code"[^>]*autofocus/);
    assert.match(html, /<label for="search">Name<\/label>/);
    assert.match(html, /<form method="get" aria-labelledby="search-title">/);
    assert.match(html, /<button type="button" id="camera-button" class="secondary" hidden>Scan with camera<\/button>/);
    assert.deepEqual(unlabelled(html), []);
    assert.match(html, /<div id="door-result" class="result" role="status"><\/div>/);
    // The document says the link's GET answers the page too.
    const document = JSON.parse(openApiDocument() as string);
    assert.deepEqual(Object.keys(document.paths["/v1/check-in/{token}"].get.responses["200"].content), [
      "application/json",
      "text/html",
    ]);
  });

  test("the Code form shows each result's words with the name and ticket type (200, no redirect); Undo undoes the last check-in", async (t) => {
    const { storage, account, event, other, register, post, page, at } = await doorPage();
    t.after(() => storage.close());
    const ann = await register("Ann");
    const bo = await register("Bo", "Paid");
    const cy = await register("Cy");
    const elsewhere = await register("Di", "General", other.id);
    await account.attendees.update(cy.id, { status: "cancelled" });
    at("2038-05-01T08:15:00.000Z");
    const scan = async (code: string) => {
      const answer = await post({ action: "scan", code });
      assert.equal(answer.status, 200);
      return answer;
    };
    const first = await scan(ann.confirmationCode.toLowerCase().replaceAll("-", " "));
    assert.equal(
      statusText(first.html),
      "result result-ok: Checked in Ann Lee Free &lt;img src=x onerror=&quot;alert(1)&quot;>",
    );
    assert.match(
      first.html,
      new RegExp(
        `name="action" value="undo"/><input type="hidden" name="attendeeId" value="${ann.id}"/><button type="submit" class="secondary">Undo</button>`,
      ),
    );
    assert.match(first.html, /<span id="checked-in">1<\/span> of <span id="expected">1<\/span>/);
    at("2038-05-01T08:20:00.000Z");
    const again = await scan(ann.confirmationCode);
    assert.equal(
      statusText(again.html),
      `result result-warn: Already checked in at ${localDateTime("2038-05-01T08:15:00.000Z", "Europe/Berlin")} Ann Lee Free &lt;img src=x onerror=&quot;alert(1)&quot;>`,
    );
    assert.doesNotMatch(again.html, /value="undo"/);
    assert.equal(statusText((await scan("EVT-0000-0000")).html), "result result-stop: Not found");
    assert.equal(
      statusText((await scan(bo.confirmationCode)).html),
      "result result-stop: Payment required Bo Lee Paid",
    );
    assert.equal(
      statusText((await scan(cy.confirmationCode)).html),
      `result result-stop: Cancelled Cy Lee Free &lt;img src=x onerror=&quot;alert(1)&quot;>`,
    );
    assert.equal(
      statusText((await scan(elsewhere.confirmationCode)).html),
      "result result-stop: For another event: Other Fest Di Lee General",
    );
    const undone = await post({ action: "undo", attendeeId: ann.id });
    assert.equal(undone.status, 303);
    assert.match(undone.location ?? "", /\?done=undone$/);
    assert.equal((await account.attendees.get(ann.id)).status, "confirmed");
    assert.ok((await page("?done=undone")).html.includes("The check-in was undone."));
    for (const done of ["constructor", "toString", "__proto__"])
      assert.ok(!(await page(`?done=${done}`)).html.includes(`<p class="notice">`), `no note for ?done=${done}`);
    await account.events.update(event.id, { status: "cancelled" });
    assert.equal(
      statusText((await scan(ann.confirmationCode)).html),
      "result result-stop: Event not open Ann Lee Free &lt;img src=x onerror=&quot;alert(1)&quot;>",
    );
  });

  test("a waitlisted ticket is Not admitted; the search lists nobody before 2 characters, never an email, and checks in by its button", async (t) => {
    const { storage, register, post, page } = await doorPage();
    t.after(() => storage.close());
    await register("Ann");
    await register("Anton");
    const eve = await register("Eve");
    assert.equal(eve.status, "waitlisted");
    assert.equal(
      statusText((await post({ action: "scan", code: eve.confirmationCode })).html),
      "result result-stop: Not admitted Eve Lee Free &lt;img src=x onerror=&quot;alert(1)&quot;>",
    );
    const one = await page("?search=A");
    assert.doesNotMatch(one.html, /search-results|Nobody/);
    const two = await page("?search=an");
    assert.doesNotMatch(two.html, /@example\.com/);
    const rows = [...two.html.matchAll(/aria-label="Check in ([^"]+)"/g)].map((match) => match[1]);
    assert.deepEqual(rows, ["Ann Lee", "Anton Lee"]);
    assert.deepEqual(unlabelled(two.html), []);
    const id =
      /aria-label="Check in Anton Lee"><input type="hidden" name="action" value="checkin"\/><input type="hidden" name="attendeeId" value="([^"]+)"/.exec(
        two.html,
      )?.[1];
    assert.ok(id);
    const checked = await post({ action: "checkin", attendeeId: id });
    assert.equal(
      statusText(checked.html),
      "result result-ok: Checked in Anton Lee Free &lt;img src=x onerror=&quot;alert(1)&quot;>",
    );
    assert.equal(
      statusText((await post({ action: "checkin", attendeeId: "att_nope" })).html),
      "result result-stop: Not found",
    );
    assert.equal((await page("?search=nobody")).html.includes("Nobody of that name."), true);
  });

  test("the JSON scan takes an attendeeId instead of a code, and refuses both or neither (400 naming code)", async (t) => {
    const { storage, register, link, handler } = await doorPage();
    t.after(() => storage.close());
    const ann = await register("Ann");
    const scan = async (body: unknown) => {
      const response = await handler(
        new Request(`${link}/scan`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        }),
      );
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const byId = await scan({ attendeeId: ann.id });
    assert.equal(byId.status, 200);
    assert.equal(byId.body.result, "checked_in");
    assert.equal((await scan({ attendeeId: ann.id })).body.result, "already_checked_in");
    for (const body of [{}, { code: ann.confirmationCode, attendeeId: ann.id }]) {
      const refused = await scan(body);
      assert.equal(refused.status, 400);
      assert.equal((refused.body.error as { field?: string }).field, "code");
    }
  });

  test("serves its script and the decoder from its own origin, a fixed list; a revoked link's page is a 404 page", async (t) => {
    const { storage, handler, link, page, post, revoke } = await doorPage();
    t.after(() => storage.close());
    const origin = new URL(link).origin;
    const wasm = await handler(new Request(`${origin}/pages/zxing_reader.wasm`));
    assert.equal(wasm.status, 200);
    assert.equal(wasm.headers.get("content-type"), "application/wasm");
    assert.deepEqual([...new Uint8Array(await wasm.arrayBuffer()).slice(0, 4)], [0, 0x61, 0x73, 0x6d]);
    const script = await handler(new Request(`${origin}/pages/door.js`));
    assert.equal(script.headers.get("content-type"), "text/javascript; charset=utf-8");
    assert.doesNotMatch(await script.text(), /https?:\/\//, "the script names no other origin (no CDN)");
    const worker = await handler(new Request(`${origin}/pages/sw.js`));
    assert.equal(worker.status, 200);
    assert.equal(worker.headers.get("service-worker-allowed"), "/");
    assert.equal(worker.headers.get("cache-control"), "public, max-age=86400");
    assert.equal((await handler(new Request(`${origin}/pages/door.js`))).headers.get("service-worker-allowed"), null);
    assert.equal((await handler(new Request(`${origin}/pages/..%2Fpackage.json`))).status, 404);
    assert.equal((await handler(new Request(`${origin}/pages/other.js`))).status, 404);
    await revoke();
    const gone = await page();
    assert.equal(gone.status, 404);
    assert.match(gone.html, /^<!doctype html>/);
    assert.equal((await post({ action: "scan", code: "EVT-0000-0000" })).status, 404);
  });
});
