/**
 * The printable sustainability report in a real browser (headless Chromium, Debian's `chromium`
 * driven by playwright-core, as in browser.test.ts): the real server's
 * `GET /v1/events/:id/sustainability-report` for a festival recorded through the typed client
 * (test/fixtures/festival.ts: diesel, grid and solar electricity, 3,000 meals, 12 t of waste in
 * four streams, 400 room-nights, 20 tonne-km of freight, 200 attendees' travel). Every figure
 * the page shows is the JSON's, the festival's totals are the ones worked out by hand from the
 * factor listing, the page requests nothing from another origin and runs no script, and it
 * prints to a PDF. The PDF and the screenshots are written to a temporary folder the test prints;
 * with `SCREENSHOTS=docs` the one docs/api.md shows is written to docs/images/report.png too.
 *
 * Without Chromium (a developer machine) the suite is skipped, saying why; under `CI=true` a
 * missing Chromium fails it.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { createClient } from "@event-service/client";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import {
  SustainabilityReportDocument,
  type SustainabilityReportDocument as ReportDocument,
} from "../packages/core/src/analytics/report-document.ts";
import { REPORT_PAGE_CSP } from "../packages/core/src/analytics/report-page.tsx";
import { reportFigures } from "../packages/core/test/_report-fixture.ts";
import { startServer } from "./_setup.ts";
import { type FestivalFigures, festivalByHand, recordFestival, round3 } from "./fixtures/festival.ts";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const CI = process.env.CI === "true";
const FOUND = existsSync(CHROMIUM);
const SKIP =
  !FOUND && !CI
    ? `no Chromium at ${CHROMIUM}: install Debian's chromium package (apt-get install -y chromium) to run the browser tests`
    : false;
if (SKIP) console.log(`# report browser tests skipped: ${SKIP}`);

/** No background traffic of the browser's own (updates, sync, safe browsing): only the page's requests. */
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-background-networking",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-component-update",
  "--disable-sync",
];

/** The event's name: user input, with markup and quotes that must reach the page as text. */
const EVENT_NAME = `Green Fields "Festival" <script>window.__injected = true</script> & 'Friends'`;

/** Attendees registered: two rounds of the fixture's pattern of 100 (every travel mode and flight band). */
const ATTENDEES = 200;

/**
 * The festival's figures worked out by hand from its records and the factor listing: the numbers
 * the page and the JSON must both show (3 decimals, as the service answers).
 */
function byHand(hand: FestivalFigures): Record<string, number> {
  const figures: Record<string, number> = {
    "footprint.totalEmissionsKg": hand.totalEmissionsKg,
    "footprint.perAttendeeKg": hand.perAttendeeKg,
    "footprint.byScope.scope1Kg": hand.scope1Kg,
    "footprint.byScope.scope2Kg": hand.scope2Kg,
    "footprint.byScope.scope3Kg": hand.scope3Kg,
    "waste.totalKg": hand.wasteKg,
    "waste.diversionRatePercent": hand.diversionRatePercent,
    "waste.recyclingRatePercent": hand.recyclingRatePercent,
    "energy.electricityKwh": hand.electricityKwh,
    "energy.renewableSharePercent": hand.renewableSharePercent,
    "energy.fuels.diesel.litres.quantity": hand.dieselLitres,
    "energy.fuels.diesel.litres.emissionsKg": hand.dieselKg,
    "offsets.offsetKg": hand.offsetKg,
  };
  for (const [kind, { emissionsKg, records }] of Object.entries(hand.byKind)) {
    figures[`footprint.byKind.${kind}.emissionsKg`] = emissionsKg;
    figures[`footprint.byKind.${kind}.records`] = records;
  }
  for (const [stream, kg] of Object.entries(hand.wasteByStream)) figures[`waste.byStream.${stream}.kg`] = kg;
  for (const [source, kWh] of Object.entries(hand.electricityBySource)) figures[`energy.bySource.${source}.kWh`] = kWh;
  return Object.fromEntries(Object.entries(figures).map(([name, value]) => [name, round3(value)]));
}

/** The same figures as the page writes them (thousands separators, one decimal). */
function visibleTexts(hand: FestivalFigures): string[] {
  const one = (value: number) =>
    new Intl.NumberFormat("en-US", { minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(round3(value));
  return [
    `${one(hand.totalEmissionsKg)} kg CO2e`,
    `${one(hand.perAttendeeKg)} kg CO2e`,
    `${one(hand.scope1Kg)} kg`,
    `${one(hand.scope2Kg)} kg`,
    `${one(hand.scope3Kg)} kg`,
    `${one(hand.byKind.catering!.emissionsKg)} kg`,
    `${one(hand.travelKg)} kg`,
    `${one(hand.wasteKg)} kg`,
    `${one(hand.diversionRatePercent)}%`,
    `${one(hand.recyclingRatePercent)}%`,
    `${one(hand.electricityKwh)} kWh`,
    `${one(hand.renewableSharePercent)}%`,
    `${one(hand.dieselLitres)} litres`,
    `${one(hand.byTravelMode.flight.distanceKm)} km`,
    `${one(hand.measuredSharePercent)}%`,
    "USD 15.00",
  ];
}

/** Where the report comes from: the page's URL and headers, the JSON of the same report, the figures by hand. */
interface ReportSource {
  url: string;
  headers: Record<string, string>;
  hand: FestivalFigures;
  json(): Promise<ReportDocument>;
  close(): Promise<void>;
}

/**
 * The festival's report from the real service: a server started on the e2e backend, the
 * festival recorded through the typed client, and the report route with the key's
 * `Authorization` (the page for `Accept: text/html`, the JSON otherwise).
 */
async function festivalReport(): Promise<ReportSource> {
  const server = await startServer();
  try {
    const { key } = await server.createKey({ account: `Report ${Date.now()}` });
    const client = createClient({ baseUrl: server.url, apiKey: key });
    const hand = festivalByHand(await client.analytics.emissionFactors(), ATTENDEES);
    const { event } = await recordFestival(client, { attendees: ATTENDEES, name: EVENT_NAME });
    const url = `${server.url}/v1/events/${event.id}/sustainability-report`;
    const headers = { authorization: `Bearer ${key}` };
    return {
      url,
      headers,
      hand,
      async json() {
        const response = await fetch(url, { headers: { ...headers, accept: "application/json" } });
        assert.equal(response.status, 200);
        return SustainabilityReportDocument.parse(await response.json());
      },
      async close() {
        assert.equal(await server.stop(), 0);
      },
    };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

describe("the sustainability report page in a real browser (headless Chromium)", { skip: SKIP }, () => {
  let context: BrowserContext;
  let profile: string;
  let output: string;
  let source: ReportSource;
  let doc: ReportDocument;
  let page: Page;
  const requests: string[] = [];
  const problems: string[] = [];

  before(async () => {
    if (!FOUND)
      throw new Error(
        `CI=true and no Chromium at ${CHROMIUM}: .ci/run installs Debian's chromium package; the browser tests must run in CI`,
      );
    source = await festivalReport();
    doc = await source.json();
    profile = mkdtempSync(join(tmpdir(), "event-service-chromium-"));
    output = mkdtempSync(join(tmpdir(), "event-service-report-"));
    console.log(`# report PDF and screenshot: ${output}`);
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1000, height: 1400 },
    });
    page = await context.newPage();
    page.on("request", (request) => requests.push(request.url()));
    page.on("requestfailed", (request) =>
      problems.push(`request failed: ${request.url()} ${request.failure()?.errorText}`),
    );
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("console", (message) => problems.push(`console ${message.type()}: ${message.text()}`));
    await page.setExtraHTTPHeaders({ ...source.headers, accept: "text/html" });
    const response = await page.goto(source.url, { waitUntil: "load" });
    assert.equal(response?.status(), 200);
    assert.match(response.headers()["content-type"] ?? "", /^text\/html/);
    // The page's own policy, and as a header frame-ancestors too (ignored in a <meta>).
    assert.equal(response.headers()["content-security-policy"], `${REPORT_PAGE_CSP}; frame-ancestors 'none'`);
  });
  after(async () => {
    await context?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    await source?.close();
  });

  test("the JSON has the festival's figures worked out by hand", () => {
    const figures = reportFigures(doc);
    for (const [name, value] of Object.entries(byHand(source.hand))) assert.equal(figures.get(name), value, name);
  });

  test("every figure on the page is the JSON's, and every figure of the JSON is on the page", async () => {
    const onPage: Array<{ name: string; value: string; text: string }> = await page.evaluate(() =>
      [...document.querySelectorAll("[data-figure]")].map((element) => ({
        name: element.getAttribute("data-figure")!,
        value: element.getAttribute("data-value")!,
        text: element.textContent!,
      })),
    );
    const expected = reportFigures(doc);
    const wrong = onPage
      .filter(({ name, value }) => !expected.has(name) || value !== String(expected.get(name)))
      .map(({ name, value }) => `${name}=${value} (JSON: ${expected.get(name)})`);
    assert.deepEqual(wrong, []);
    const names = new Set(onPage.map(({ name }) => name));
    assert.deepEqual(
      [...expected].filter(([name, value]) => value !== null && !names.has(name)).map(([name]) => name),
      [],
      "figures of the JSON missing from the page",
    );
    for (const [name, value] of Object.entries(byHand(source.hand))) {
      assert.ok(
        onPage.some((figure) => figure.name === name && Number(figure.value) === value),
        `${name} = ${value} on the page`,
      );
    }
    // What a reader sees: each figure's text is its value, formatted (kg, km, kWh and
    // percentages to one decimal, counts whole, years as written).
    const one = new Intl.NumberFormat("en-US", { minimumFractionDigits: 1, maximumFractionDigits: 1 });
    const misprinted = onPage.filter(({ name, value, text }) => {
      const number = Number(value);
      if (value === "null") return /\d/.test(text);
      if (/\.(year)$/.test(name)) return text !== value;
      if (/\.(records|registrations)$/.test(name)) return text !== number.toLocaleString("en-US");
      if (/^factors\.\d+\.value$/.test(name)) return Number(text.replaceAll(",", "")) !== number;
      if (name === "methodology.offsetPriceUsdPerTonne") return text !== `USD ${number.toFixed(2)}`;
      // A goal's figure without a unit in its name (a count) is written as it is, to one decimal at most.
      if (/^goals\.(?!waste_reduction\.target)[^.]+\.(target|metrics\.(?!.*(Kg|Percent|Kwh)$).*)$/.test(name))
        return text !== number.toLocaleString("en-US", { maximumFractionDigits: 1 });
      return !text.startsWith(one.format(number));
    });
    assert.deepEqual(misprinted, []);
    const visible = await page.locator("body").innerText();
    for (const text of visibleTexts(source.hand)) assert.ok(visible.includes(text), `"${text}" is visible`);
  });

  test("the charts are drawn to scale, each with an accessible name and a table of its figures", async () => {
    const charts = await page.evaluate(() =>
      [...document.querySelectorAll("svg[role=img]")].map((svg) => ({
        name: svg
          .getAttribute("aria-labelledby")!
          .split(" ")
          .map((id) => document.getElementById(id)?.textContent)
          .join(" | "),
        bars: [...svg.querySelectorAll("rect")].map((rect) => ({
          width: rect.getBBox().width,
          value: Number(rect.nextElementSibling!.getAttribute("data-value")),
          figure: rect.nextElementSibling!.getAttribute("data-figure")!,
          inTable: document.querySelector(`td [data-figure="${rect.nextElementSibling!.getAttribute("data-figure")}"]`)
            ?.textContent,
        })),
      })),
    );
    assert.deepEqual(
      charts.map(({ name }) => name.split(" | ")[0]),
      [
        "Footprint by kind, kg CO2e",
        "Footprint by GHG Protocol scope, kg CO2e",
        "Waste by stream, kg",
        "Electricity by source, kWh",
        "Attendee travel by mode, kg CO2e",
      ],
    );
    for (const { name, bars } of charts) {
      assert.match(name, / \| .+: .+/, "a description of the figures");
      const longest = Math.max(...bars.map(({ width }) => width));
      const largest = Math.max(...bars.map(({ value }) => value));
      for (const bar of bars) {
        // To scale (drawn to a tenth of a unit), except that a positive value gets at least 1 unit.
        const scaled = (bar.value / largest) * longest;
        const drawn = bar.value > 0 ? Math.max(1, scaled) : 0;
        assert.ok(Math.abs(bar.width - drawn) <= 0.06, `${bar.figure}: ${bar.width} for ${drawn}`);
        assert.ok(bar.inTable, `${bar.figure} is in a table too`);
      }
    }
  });

  test("the event's name is text: no script ran, the title and heading show it as typed", async () => {
    assert.equal(await page.title(), `Sustainability report: ${EVENT_NAME}`);
    assert.equal(await page.locator("h1").innerText(), EVENT_NAME);
    assert.equal(await page.evaluate(() => (window as unknown as { __injected?: boolean }).__injected), undefined);
    assert.equal(await page.locator("script").count(), 0);
    assert.equal(await page.evaluate(() => document.documentElement.lang), "en");
  });

  test("goals are shown met, not met and not set", async () => {
    const statuses = await page.evaluate(() =>
      Object.fromEntries(
        [...document.querySelectorAll("[data-goal]")].map((element) => [
          element.getAttribute("data-goal"),
          (element as HTMLElement).innerText,
        ]),
      ),
    );
    assert.deepEqual(statuses, {
      carbon_neutral: "Not met",
      renewable_energy: "Not met",
      waste_reduction: "Met",
      local_sourcing: "Not set",
    });
  });

  test("on a phone, 360 and 390 px wide, the page itself never scrolls sideways", async () => {
    try {
      for (const width of [360, 390]) {
        await page.setViewportSize({ width, height: 800 });
        const { scrollWidth, clientWidth } = await page.evaluate(() => ({
          scrollWidth: document.documentElement.scrollWidth,
          clientWidth: document.documentElement.clientWidth,
        }));
        assert.equal(clientWidth, width);
        assert.ok(scrollWidth <= clientWidth, `${width} px: the page is ${scrollWidth} px wide`);
        await page.screenshot({ path: join(output, `report-${width}.png`), fullPage: true });
      }
    } finally {
      await page.setViewportSize({ width: 1000, height: 1400 });
    }
  });

  test("the page requested nothing but itself and reported no error or CSP violation", () => {
    const origin = new URL(source.url).origin;
    assert.deepEqual(
      requests.filter((url) => !url.startsWith(`${origin}/`)),
      [],
    );
    assert.equal(requests[0], source.url);
    assert.deepEqual(problems, []);
  });

  test("prints to an A4 PDF", async () => {
    await page.screenshot({ path: join(output, "report.png"), fullPage: true });
    const pdf = await page.pdf({ format: "A4", printBackground: true, preferCSSPageSize: true });
    writeFileSync(join(output, "report.pdf"), pdf);
    assert.equal(pdf.subarray(0, 5).toString("latin1"), "%PDF-");
    const pages = pdf.toString("latin1").match(/\/Type\s*\/Page(?![a-z])/g) ?? [];
    assert.ok(pages.length >= 1 && pages.length <= 8, `${pages.length} pages`);
    assert.ok(pdf.length > 10_000, `${pdf.length} bytes`);
    assert.deepEqual(problems, []);
  });

  test("a screenshot for docs/api.md: the top of the report on a 390 px phone", async () => {
    // The documentation shows the event under a plain name; the hostile one has had its tests above.
    const renamed = await fetch(source.url.replace(/\/sustainability-report$/, ""), {
      method: "PUT",
      headers: { ...source.headers, "content-type": "application/json" },
      body: JSON.stringify({ name: "Green Fields Festival" }),
    });
    assert.equal(renamed.status, 200);
    try {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(source.url, { waitUntil: "load" });
      assert.equal(await page.locator("h1").innerText(), "Green Fields Festival");
      const image = await page.screenshot();
      writeFileSync(join(output, "report-top-390.png"), image);
      if (process.env.SCREENSHOTS === "docs")
        writeFileSync(new URL("../docs/images/report.png", import.meta.url), image);
      assert.deepEqual(problems, []);
    } finally {
      await page.setViewportSize({ width: 1000, height: 1400 });
    }
  });
});
