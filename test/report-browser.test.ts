/**
 * The printable sustainability report in a real browser (headless Chromium, Debian's `chromium`
 * driven by playwright-core, as in browser.test.ts): every figure the page shows is the JSON's,
 * the festival's totals are the ones worked out by hand, the page requests nothing from another
 * origin and runs no script, and it prints to a PDF. The PDF and a screenshot are written to a
 * temporary folder the test prints.
 *
 * The report comes from `festivalReport()`: today a local server on 127.0.0.1 that answers the
 * report's route as the service does (the fixture document rendered for `Accept: text/html`, the
 * JSON otherwise); pointing it at the service's own `GET /v1/events/:id/sustainability-report`
 * changes that one function.
 *
 * Without Chromium (a developer machine) the suite is skipped, saying why; under `CI=true` a
 * missing Chromium fails it.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import {
  SustainabilityReportDocument,
  type SustainabilityReportDocument as ReportDocument,
} from "../packages/core/src/analytics/report-document.ts";
import { REPORT_PAGE_CSP, renderReportPage } from "../packages/core/src/analytics/report-page.ts";
import { FESTIVAL_REPORT, reportFigures } from "../packages/core/test/_report-fixture.ts";

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

/**
 * The festival's figures worked out by hand from its records and factors (see the fixture's
 * comments): the numbers the page and the JSON must both show.
 */
const BY_HAND: Record<string, number> = {
  "footprint.totalEmissionsKg": 2_000 * 2.5 + 8_000 * 0.2 + 7_750 + 1_660 + 400 * 10 + 20 * 0.1 + 850 + 90_500,
  "footprint.byScope.scope1Kg": 2_000 * 2.5,
  "footprint.byScope.scope2Kg": 8_000 * 0.2,
  "footprint.byScope.scope3Kg": 1_000 * 5 + 1_500 * 1.5 + 500 * 1 + 1_660 + 4_000 + 2 + 850 + 90_500,
  "footprint.byKind.catering.emissionsKg": 1_000 * 5 + 1_500 * 1.5 + 500 * 1,
  "footprint.byKind.catering.records": 3,
  "footprint.byKind.accommodation.emissionsKg": 400 * 10,
  "footprint.byKind.freight.emissionsKg": 20 * 0.1,
  "footprint.byKind.waste.emissionsKg": 3_000 * 0.5 + 2_000 * 0.02 + 5_000 * 0.02 + 2_000 * 0.01,
  "footprint.byKind.attendee_travel.emissionsKg": 50_000 * 0.17 + 300_000 * 0.25 + 200_000 * 0.035,
  "footprint.byKind.attendee_travel.records": 3_500,
  "waste.totalKg": 3_000 + 2_000 + 5_000 + 2_000,
  "energy.electricityKwh": 8_000 + 2_000,
  "energy.renewableSharePercent": 20,
  "energy.fuels.diesel.litres.quantity": 2_000,
  "offsets.offsetKg": 60_000,
};

/** The same figures as the page writes them (thousands separators, one decimal). */
const VISIBLE = [
  "111,362.0 kg CO2e",
  "22.3 kg CO2e",
  "5,000.0 kg",
  "1,600.0 kg",
  "104,762.0 kg",
  "7,750.0 kg",
  "90,500.0 kg",
  "12,000.0 kg",
  "58.3%",
  "41.7%",
  "10,000.0 kWh",
  "20.0%",
  "2,000.0 litres",
  "300,000.0 km",
  "53.9%",
  "USD 15.00",
];

/** Where the report comes from: the page's URL and headers, and the JSON of the same report. */
interface ReportSource {
  url: string;
  headers: Record<string, string>;
  json(): Promise<ReportDocument>;
  close(): Promise<void>;
}

/**
 * The festival's report. For now a server on 127.0.0.1 answers the report route as the service
 * will: the page (with its CSP header) for `Accept: text/html`, the JSON otherwise.
 */
async function festivalReport(): Promise<ReportSource> {
  const doc: ReportDocument = { ...FESTIVAL_REPORT, event: { ...FESTIVAL_REPORT.event, name: EVENT_NAME } };
  const path = `/v1/events/${doc.event.id}/sustainability-report`;
  const server = createServer((request, response) => {
    if (request.url !== path) return response.writeHead(404, { "content-type": "text/plain" }).end("not found");
    if (request.headers.accept?.includes("text/html")) {
      return response
        .writeHead(200, { "content-type": "text/html; charset=utf-8", "content-security-policy": REPORT_PAGE_CSP })
        .end(renderReportPage(doc));
    }
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(doc));
  });
  await new Promise<void>((resolvePromise) => server.listen(0, "127.0.0.1", resolvePromise));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  const headers = {};
  return {
    url,
    headers,
    async json() {
      const response = await fetch(url, { headers: { ...headers, accept: "application/json" } });
      assert.equal(response.status, 200);
      return SustainabilityReportDocument.parse(await response.json());
    },
    close: () =>
      new Promise<void>((resolvePromise) => {
        server.closeAllConnections();
        server.close(() => resolvePromise());
      }),
  };
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
  });
  after(async () => {
    await context?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    await source?.close();
  });

  test("the JSON has the festival's figures worked out by hand", () => {
    const figures = reportFigures(doc);
    for (const [name, value] of Object.entries(BY_HAND)) assert.equal(figures.get(name), value, name);
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
    for (const [name, value] of Object.entries(BY_HAND)) {
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
    for (const text of VISIBLE) assert.ok(visible.includes(text), `"${text}" is visible`);
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
});
