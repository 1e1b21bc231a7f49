/**
 * Every example under examples/ runs as a user would run it (tsx, importing the built packages
 * by name). Their type check against the built packages is `npm run typecheck`'s: the root
 * tsconfig.json includes examples/ (whose own tsconfig only extends it), and `npm test` runs it
 * after the build, so a second tsc over them here would repeat it.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { ROOT, startServer } from "./_setup.ts";
import { runToEnd } from "./fixtures/conventions.ts";

const TSX = ["--import", "tsx"];

/** Runs a script to its end; its stdout and exit code. */
const run = (script: string, env: Record<string, string> = {}) =>
  runToEnd(process.execPath, [...TSX, script], { cwd: ROOT, env, timeoutMs: 120_000 });

/** Starts an example server and waits for the JSON line with its address and key. */
function serve(script: string): Promise<{ child: ChildProcess; url: string; api: string; key: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...TSX, script], {
      cwd: ROOT,
      env: { ...process.env, PORT: "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    const timer = setTimeout(() => reject(new Error(`${script} did not start:\n${out}\n${err}`)), 20_000);
    child.stderr!.on("data", (chunk) => (err += chunk));
    child.stdout!.on("data", (chunk) => {
      out += chunk;
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line) {
        clearTimeout(timer);
        resolve({ child, ...(JSON.parse(line) as { url: string; api: string; key: string }) });
      }
    });
    child.on("exit", (code) => reject(new Error(`${script} exited with ${code}:\n${err}`)));
  });
}

const eventBody = {
  name: "Embedded",
  location: { address: "Main St 1", city: "Berlin", country: "DE" },
  startDate: "2038-01-01T10:00:00Z",
  endDate: "2038-01-01T12:00:00Z",
  capacity: 5,
  category: "meetup",
};

for (const [name, prefix] of [
  ["embed-node-http", "/events-api"],
  ["embed-hono", "/events"],
] as const) {
  describe(`examples/${name}`, () => {
    const running: ChildProcess[] = [];
    after(() => running.forEach((child) => child.kill("SIGTERM")));

    test(`serves Event Service under ${prefix} beside the app's own routes`, async () => {
      const app = await serve(join("examples", name, "index.ts"));
      running.push(app.child);
      assert.equal(app.api, `${app.url}${prefix}/v1`);
      assert.match(await (await fetch(`${app.url}/`)).text(), /^Hello from the/);
      assert.deepEqual(await (await fetch(`${app.url}${prefix}/health`)).json(), { status: "ok" });
      const auth = { authorization: `Bearer ${app.key}`, "content-type": "application/json" };
      const created = await fetch(`${app.api}/events`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify(eventBody),
      });
      assert.equal(created.status, 201);
      const event = await created.json();
      const registered = await fetch(`${app.api}/attendees`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({
          eventId: event.id,
          firstName: "Ada",
          lastName: "Lovelace",
          email: "ada@example.com",
          ticketType: "general",
        }),
      });
      assert.equal(registered.status, 201);
      const attendee = await registered.json();
      assert.equal(attendee.qrCode, `${app.api}/qr/${attendee.id}.png`);
      const qr = await fetch(attendee.qrCode);
      assert.equal(qr.headers.get("content-type"), "image/png");
      const list = await (
        await fetch(`${app.url}${prefix}/api/attendees?eventId=${event.id}`, { headers: auth })
      ).json();
      assert.deepEqual(
        list.attendees.map((a: { id: string }) => a.id),
        [attendee.id],
      );
      const unauthorised = await fetch(`${app.api}/events`);
      assert.equal(unauthorised.status, 401);
      assert.equal((await unauthorised.json()).error.code, "UNAUTHORIZED");
    });
  });
}

test("examples/programmatic runs to the end without HTTP", async () => {
  const { code, stdout, stderr } = await run("examples/programmatic/index.ts");
  assert.equal(code, 0, stderr);
  const summary = JSON.parse(stdout);
  assert.equal(summary.refused, "EVENT_FULL");
  assert.equal(summary.checkedIn, "checked-in");
  assert.match(summary.qrCode, /^https:\/\/events\.example\.com\/v1\/qr\/att_[0-9a-f]{24}\.png$/);
  assert.equal(summary.attendance.active, 2);
  assert.equal(summary.attendance.checkedIn, 1);
  assert.equal(summary.attendance.capacityUtilizationPercent, 100);
  // train 120 km x 0.03546 kg/km; the bike rides free.
  assert.equal(summary.carbonFootprintKg, 4.255);
});

describe("examples/client-quickstart", () => {
  test("creates an event, registers three, checks one in and prints the event's analytics", async () => {
    const server = await startServer();
    try {
      const { key } = await server.createKey({ account: "Quickstart" });
      const { code, stdout, stderr } = await run("examples/client-quickstart/index.ts", {
        EVENT_SERVICE_URL: server.url,
        EVENT_SERVICE_KEY: key,
      });
      assert.equal(code, 0, stderr);
      const out = JSON.parse(stdout);
      assert.equal(out.event.name, "Green Summit");
      assert.equal(out.checkedIn.status, "checked-in");
      assert.equal(out.attendance.registered, 3);
      assert.equal(out.attendance.checkedIn, 1);
      // train 420 x 0.03546 = 14.893; flight 1,200 km (short haul) x 0.18592 = 223.104; bike 0.
      assert.equal(out.sustainability.carbonFootprintKg, 237.997);
      // 52 USD at 15 USD per tonne.
      assert.equal(out.sustainability.offsetKg, 3466.667);
      const failing = await run("examples/client-quickstart/index.ts", {
        EVENT_SERVICE_URL: server.url,
        EVENT_SERVICE_KEY: "esk_wrong",
      });
      assert.equal(failing.code, 1);
      assert.match(failing.stderr, /^401 UNAUTHORIZED: /);
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });
});

describe("examples/festival", () => {
  test("records generators, catering and waste, prints the footprint and the diversion rate, saves the report", async () => {
    const server = await startServer();
    const dir = mkdtempSync(join(tmpdir(), "event-service-festival-"));
    try {
      const { key } = await server.createKey({ account: "Festival example" });
      const reportFile = join(dir, "report.html");
      const { code, stdout, stderr } = await run("examples/festival/index.ts", {
        EVENT_SERVICE_URL: server.url,
        EVENT_SERVICE_KEY: key,
        REPORT_FILE: reportFile,
      });
      assert.equal(code, 0, stderr);
      const out = JSON.parse(stdout);
      assert.equal(out.event.name, "Meadow Sounds Festival");
      // The default factors (DESNZ 2023; meals Scarborough et al. 2014), by hand:
      // diesel 1,600 l x 2.51206 = 4,019.296 (scope 1);
      // meals 800 x 1.87667 + 200 x 1.30333 + 700 x 1.27 + 300 x 0.96333 = 2,940.001;
      // waste 1,500 kg x 0.52033474 (landfill) + 1,500 kg x 0.02128081 (recycling glass, plastic)
      //   + 1,000 kg x 0.00891242 (food composted) = 821.335745;
      // travel: train 300 km x 0.03546 + car 80 km x 0.16844 = 24.1132.
      assert.deepEqual(out.footprint, {
        totalEmissionsKg: 7804.746,
        byKind: [
          { kind: "attendee_travel", emissionsKg: 24.113, records: 2 },
          { kind: "fuel", emissionsKg: 4019.296, records: 2 },
          { kind: "catering", emissionsKg: 2940.001, records: 4 },
          { kind: "waste", emissionsKg: 821.336, records: 4 },
        ],
        byScope: { scope1Kg: 4019.296, scope2Kg: 0, scope3Kg: 3785.45 },
        // The catering is estimated: (4,019.296 + 821.335745) / 7,780.632745.
        measuredSharePercent: 62.214,
      });
      // 2,500 of 4,000 kg neither landfilled nor incinerated; 1,500 recycled.
      assert.equal(out.waste.measuredWasteKg, 4000);
      assert.equal(out.waste.diversionRatePercent, 62.5);
      assert.equal(out.waste.recyclingRatePercent, 37.5);
      assert.equal(out.waste.wasteReductionGoal.met, true);
      assert.equal(out.waste.wasteReductionGoal.target, 50);
      assert.equal(out.report, reportFile);
      const html = readFileSync(reportFile, "utf8");
      assert.match(html, /^<!doctype html>/);
      assert.match(html, /<title>Sustainability report: Meadow Sounds Festival<\/title>/);
      assert.ok(html.includes(`data-figure="footprint.totalEmissionsKg" data-value="7804.746">7,804.7 kg CO2e<`));
      assert.ok(html.includes(`data-figure="waste.diversionRatePercent" data-value="62.5">62.5%<`));
      assert.doesNotMatch(html, /<script/i);
      const failing = await run("examples/festival/index.ts", {
        EVENT_SERVICE_URL: server.url,
        EVENT_SERVICE_KEY: "esk_wrong",
        REPORT_FILE: reportFile,
      });
      assert.equal(failing.code, 1);
      assert.match(failing.stderr, /^401 UNAUTHORIZED: /);
    } finally {
      assert.equal(await server.stop(), 0);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("examples/vendor-caterer", () => {
  test("books a local certified caterer, which confirms and reports its covers through its link; prints the vendor shares", async () => {
    const server = await startServer();
    try {
      const { key } = await server.createKey({ account: "Caterer example" });
      const { code, stdout, stderr } = await run("examples/vendor-caterer/index.ts", {
        EVENT_SERVICE_URL: server.url,
        EVENT_SERVICE_KEY: key,
      });
      assert.equal(code, 0, stderr);
      const out = JSON.parse(stdout);
      assert.equal(out.event.name, "Circular Cities Forum");
      assert.deepEqual(out.caterer.request, {
        services: "Lunch and coffee breaks for 300, both days",
        dataRequested: ["catering"],
        event: "Circular Cities Forum",
        // 30 days after the event's end (2038-06-11T18:00:00+02:00).
        dataAcceptedUntil: "2038-07-11T16:00:00.000Z",
      });
      assert.equal(out.caterer.status, "confirmed");
      // Meals by type at the default factors (Scarborough et al. 2014), the vegan count corrected
      // to 120; a record's emissionsKg is its quantity x factor, unrounded.
      assert.deepEqual(out.caterer.records, [
        { mealType: "meat", quantity: 150, emissionsKg: 150 * 1.87667 },
        { mealType: "fish", quantity: 50, emissionsKg: 50 * 1.30333 },
        { mealType: "vegetarian", quantity: 200, emissionsKg: 200 * 1.27 },
        { mealType: "vegan", quantity: 120, emissionsKg: 120 * 0.96333 },
      ]);
      assert.deepEqual(out.booking, {
        status: "confirmed",
        message: "Happy to cater: seasonal menu from our Bernau kitchen.",
      });
      // Bernau is some 21 km from Alexanderplatz, within 160 km; its ISO 20121 runs to 2039.
      assert.deepEqual(out.vendors, {
        confirmed: 1,
        local: 1,
        localSharePercent: 100,
        certified: 1,
        certifiedSharePercent: 100,
      });
      // 100 % local against the default target of 50 %.
      assert.deepEqual(out.localSourcingGoal, {
        type: "local_sourcing",
        set: true,
        met: true,
        target: 50,
        metrics: { confirmedVendors: 1, localVendors: 1, localSharePercent: 100, targetPercent: 50 },
      });
      // 150 x 1.87667 + 50 x 1.30333 + 200 x 1.27 + 120 x 0.96333 = 716.2666.
      assert.deepEqual(out.catering, { kind: "catering", emissionsKg: 716.267, records: 4 });
      const failing = await run("examples/vendor-caterer/index.ts", {
        EVENT_SERVICE_URL: server.url,
        EVENT_SERVICE_KEY: "esk_wrong",
      });
      assert.equal(failing.code, 1);
      assert.match(failing.stderr, /^401 UNAUTHORIZED: /);
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });
});

describe("examples/attendee-ticket", () => {
  test("two register for one place; the first changes their travel, adds the event to a calendar and cancels through their link; the second is promoted; a replaced link is 404", async () => {
    const server = await startServer();
    try {
      const { key } = await server.createKey({ account: "Ticket example" });
      const { code, stdout, stderr } = await run("examples/attendee-ticket/index.ts", {
        EVENT_SERVICE_URL: server.url,
        EVENT_SERVICE_KEY: key,
      });
      assert.equal(code, 0, stderr);
      const out = JSON.parse(stdout);
      assert.deepEqual(out.event, { id: out.event.id, name: "Repair Café Evening", capacity: 1 });
      const codeShape = /^EVT-[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}$/;
      const adaCode = out.ada.registered.confirmationCode;
      assert.match(adaCode, codeShape);
      assert.deepEqual(out.ada.registered, {
        status: "confirmed",
        confirmationCode: adaCode,
        qrCode: `${server.url}/v1/qr/${out.ada.id}.png`,
        waitlistPosition: null,
      });
      assert.deepEqual(out.ada.changed, {
        dietaryPreferences: ["vegan"],
        carbonOffset: { opted: true, travelMode: "train", travelDistance: 240 },
      });
      // 18:00 in Berlin (summer time) is 16:00 UTC.
      assert.deepEqual(out.ada.calendar, ["DTSTART:20380915T160000Z", "SUMMARY:Repair Café Evening"]);
      // A cancelled ticket keeps its code and loses its QR.
      assert.deepEqual(out.ada.cancelled, {
        status: "cancelled",
        confirmationCode: adaCode,
        qrCode: null,
        waitlistPosition: null,
      });
      const graceCode = out.grace.waiting.confirmationCode;
      assert.match(graceCode, codeShape);
      assert.notEqual(graceCode, adaCode);
      assert.deepEqual(out.grace.waiting, {
        status: "waitlisted",
        confirmationCode: graceCode,
        qrCode: null,
        waitlistPosition: 1,
      });
      const admitted = {
        status: "confirmed",
        confirmationCode: graceCode,
        qrCode: `${server.url}/v1/qr/${out.grace.id}.png`,
        waitlistPosition: null,
      };
      assert.deepEqual(out.grace.promoted, admitted);
      assert.deepEqual(out.grace.oldLink, { status: 404, code: "NOT_FOUND" });
      assert.deepEqual(out.grace.newLink, admitted);
      // Only a registration holding a place counts: car 240 km x 0.16844 = 40.4256; train
      // 240 km x 0.03546 = 8.5104; then Grace's bus 60 km x 0.10231 = 6.1386.
      assert.deepEqual(out.travelFootprint, {
        registered: { kind: "attendee_travel", emissionsKg: 40.426, records: 1 },
        travelChanged: { kind: "attendee_travel", emissionsKg: 8.51, records: 1 },
        afterPromotion: { kind: "attendee_travel", emissionsKg: 6.139, records: 1 },
      });
      // No link is printed: each is its attendee's alone.
      assert.doesNotMatch(stdout, /tkt_/);
      const failing = await run("examples/attendee-ticket/index.ts", {
        EVENT_SERVICE_URL: server.url,
        EVENT_SERVICE_KEY: "esk_wrong",
      });
      assert.equal(failing.code, 1);
      assert.match(failing.stderr, /^401 UNAUTHORIZED: /);
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });
});
