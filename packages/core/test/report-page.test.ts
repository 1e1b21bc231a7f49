import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, test } from "node:test";
import { SustainabilityReportDocument } from "../src/analytics/report-document.ts";
import { REPORT_PAGE_CSP, renderReportPage } from "../src/analytics/report-page.tsx";
import { canonicalTimeZone, localDateTime } from "../src/_internal/local-time.ts";
import { createHandler } from "../src/http/handler.ts";
import { createEventService } from "../src/service.ts";
import { apiRequest } from "./_fixtures.ts";
import { FESTIVAL_REPORT, reportFigures } from "./_report-fixture.ts";
import { sqliteStorage } from "./_sqlite.ts";

/** Every `data-figure` of a page: name, raw value and the text shown, in page order. */
function figuresOf(html: string): Array<{ name: string; value: string; text: string }> {
  return [...html.matchAll(/data-figure="([^"]*)" data-value="([^"]*)">([^<]*)</g)].map(([, name, value, text]) => ({
    name: name!,
    value: value!,
    text: text!,
  }));
}

/** The text shown for figure `name` (every occurrence must agree). */
function shown(html: string, name: string): string {
  const texts = new Set(
    figuresOf(html)
      .filter((figure) => figure.name === name)
      .map((figure) => figure.text),
  );
  assert.equal(texts.size, 1, `${name} is shown once or always alike: ${[...texts].join(" | ")}`);
  return [...texts][0]!;
}

/** The text of some HTML, tags removed. */
function textOf(html: string): string {
  return html.replace(/<[^>]*>/g, "");
}

/** The HTML of section `id`. */
function section(html: string, id: string): string {
  const match = html.match(new RegExp(`<section id="${id}"[\\s\\S]*?</section>`));
  assert.ok(match, `section ${id}`);
  return match[0];
}

/** A report of an event with nothing recorded: no activities, no travel, no registrations. */
const EMPTY_REPORT: SustainabilityReportDocument = {
  ...FESTIVAL_REPORT,
  footprint: {
    totalEmissionsKg: 0,
    byKind: [],
    byScope: { scope1Kg: 0, scope2Kg: 0, scope3Kg: 0 },
    perAttendeeKg: null,
    measuredSharePercent: null,
    unpricedKinds: [],
  },
  offsets: { offsetKg: 0, coveragePercent: null },
  waste: { totalKg: null, byStream: [], diversionRatePercent: null, recyclingRatePercent: null },
  energy: { electricityKwh: null, bySource: [], renewableSharePercent: null, fuels: [] },
  travel: { byMode: [], staffByMode: [] },
  goals: [
    { type: "carbon_neutral", set: true, met: null, target: null, metrics: {} },
    { type: "renewable_energy", set: true, met: null, target: null, metrics: {} },
    { type: "waste_reduction", set: true, met: null, target: 60, metrics: {} },
    { type: "local_sourcing", set: false, met: null, target: null, metrics: {} },
  ],
  factors: [],
};

describe("the sustainability report document", () => {
  test("the festival fixture is a valid document; negative or non-integer counts are not", () => {
    assert.deepEqual(SustainabilityReportDocument.parse(FESTIVAL_REPORT), FESTIVAL_REPORT);
    assert.deepEqual(SustainabilityReportDocument.parse(EMPTY_REPORT), EMPTY_REPORT);
    const bad = structuredClone(FESTIVAL_REPORT) as unknown as { waste: { byStream: Array<{ kg: number }> } };
    bad.waste.byStream[0]!.kg = -1;
    assert.equal(SustainabilityReportDocument.safeParse(bad).success, false);
    const fractional = structuredClone(FESTIVAL_REPORT) as unknown as {
      footprint: { byKind: Array<{ records: number }> };
    };
    fractional.footprint.byKind[0]!.records = 1.5;
    assert.equal(SustainabilityReportDocument.safeParse(fractional).success, false);
  });
});

describe("local times", () => {
  test("an instant in its zone with the abbreviation, or the offset where none is in common use", () => {
    assert.equal(localDateTime("2038-05-01T07:00:00.000Z", "Europe/Berlin"), "1 May 2038, 09:00 CEST");
    assert.equal(localDateTime("2038-01-15T07:00:00.000Z", "Europe/Berlin"), "15 Jan 2038, 08:00 CET");
    assert.equal(localDateTime("2038-07-01T16:05:00.000Z", "America/New_York"), "1 Jul 2038, 12:05 GMT-4");
    assert.equal(localDateTime("2038-12-01T17:05:00.000Z", "America/New_York"), "1 Dec 2038, 12:05 GMT-5");
    assert.equal(localDateTime("2038-03-31T23:30:00.000Z", "Asia/Kolkata"), "1 Apr 2038, 05:00 GMT+5:30");
    // The night DST ends in Berlin: the same wall time twice, told apart by the abbreviation.
    assert.equal(localDateTime("2038-10-31T00:30:00.000Z", "Europe/Berlin"), "31 Oct 2038, 02:30 CEST");
    assert.equal(localDateTime("2038-10-31T01:30:00.000Z", "Europe/Berlin"), "31 Oct 2038, 02:30 CET");
  });

  test("without a zone: UTC, labelled; a text that is no date-time as given", () => {
    assert.equal(localDateTime("2038-05-01T07:00:00.000Z", null), "1 May 2038, 07:00 UTC");
    assert.equal(localDateTime("2038-05-01T07:00:00.000Z", "UTC"), "1 May 2038, 07:00 UTC");
    assert.equal(localDateTime("soon", "Europe/Berlin"), "soon");
  });

  test("time zone names: IANA names the runtime knows, in their own spelling; nothing else", () => {
    assert.equal(canonicalTimeZone("Europe/Berlin"), "Europe/Berlin");
    assert.equal(canonicalTimeZone("europe/berlin"), "Europe/Berlin");
    assert.equal(canonicalTimeZone("America/Argentina/Buenos_Aires"), "America/Argentina/Buenos_Aires");
    assert.equal(canonicalTimeZone("utc"), "UTC");
    assert.equal(canonicalTimeZone("Etc/GMT-2"), "Etc/GMT-2");
    assert.equal(canonicalTimeZone("US/Eastern"), "US/Eastern");
    for (const bad of [
      "",
      "Berlin",
      "Europe/Atlantis",
      "+02:00",
      "-05:00",
      "CEST",
      "Z",
      "Europe/Berlin ",
      "x".repeat(100),
    ]) {
      assert.equal(canonicalTimeZone(bad), null, JSON.stringify(bad));
    }
  });
});

describe("renderReportPage", () => {
  const html = renderReportPage(FESTIVAL_REPORT);

  test("every figure of the document is on the page with its exact value, and nothing else is", () => {
    const expected = reportFigures(FESTIVAL_REPORT);
    const onPage = figuresOf(html);
    for (const figure of onPage) {
      assert.ok(expected.has(figure.name), `the page's ${figure.name} is not a figure of the document`);
      assert.equal(figure.value, String(expected.get(figure.name)), figure.name);
    }
    const names = new Set(onPage.map((figure) => figure.name));
    const missing = [...expected].filter(([name, value]) => value !== null && !names.has(name)).map(([name]) => name);
    assert.deepEqual(missing, []);
    // 3 + 3 scopes + 8 kinds x 2 + 2 offsets + 7 waste + 2 + 2 sources + 2 fuel + 4 modes x 3 + 2 staff
    // + 6 goal figures + 17 factors x 3 + 2 of the methodology.
    assert.equal(names.size, 110);
  });

  test("figures are formatted: thousands separators, one decimal for kg, km, kWh and percentages", () => {
    const cases: Array<[string, string, string]> = [
      ["footprint.totalEmissionsKg", "111362", "111,362.0 kg CO2e"],
      ["footprint.perAttendeeKg", "22.2724", "22.3 kg CO2e"],
      ["footprint.measuredSharePercent", String((12_262 / 20_862) * 100), "58.8%"],
      ["footprint.byKind.attendee_travel.emissionsKg", "90500", "90,500.0 kg"],
      ["footprint.byKind.attendee_travel.records", "3500", "3,500"],
      ["footprint.byKind.freight.emissionsKg", "2", "2.0 kg"],
      ["footprint.byScope.scope1Kg", "5000", "5,000.0 kg"],
      ["footprint.byScope.scope2Kg", "1600", "1,600.0 kg"],
      ["footprint.byScope.scope3Kg", "104762", "104,762.0 kg"],
      ["offsets.offsetKg", "60000", "60,000.0 kg CO2e"],
      ["offsets.coveragePercent", String((60_000 / 111_362) * 100), "53.9%"],
      ["waste.totalKg", "12000", "12,000.0 kg"],
      ["waste.diversionRatePercent", String((7_000 / 12_000) * 100), "58.3%"],
      ["waste.recyclingRatePercent", String((5_000 / 12_000) * 100), "41.7%"],
      ["waste.byStream.recycling.kg", "5000", "5,000.0 kg"],
      ["energy.electricityKwh", "10000", "10,000.0 kWh"],
      ["energy.renewableSharePercent", "20", "20.0%"],
      ["energy.bySource.grid.kWh", "8000", "8,000.0 kWh"],
      ["energy.fuels.diesel.litres.quantity", "2000", "2,000.0 litres"],
      ["energy.fuels.diesel.litres.emissionsKg", "5000", "5,000.0 kg"],
      ["travel.byMode.flight.distanceKm", "300000", "300,000.0 km"],
      ["travel.byMode.train.registrations", "2000", "2,000"],
      ["travel.staffByMode.car.passengerKm", "5000", "5,000.0"],
      ["goals.waste_reduction.target", "50", "50.0%"],
      ["goals.carbon_neutral.metrics.offsetKg", "60000", "60,000.0 kg"],
      ["factors.14.value", "0.035", "0.035"],
      ["factors.14.records", "2000", "2,000"],
      ["factors.0.year", "2024", "2024"],
      ["methodology.emissionFactors.year", "2024", "2024"],
      ["methodology.offsetPriceUsdPerTonne", "15", "USD 15.00"],
    ];
    for (const [name, value, text] of cases) {
      assert.ok(
        figuresOf(html).some((figure) => figure.name === name && figure.value === value),
        `${name} = ${value}`,
      );
      assert.equal(shown(html, name), text, name);
    }
  });

  test("charts are inline SVG, each with a title, a description and a table of the same figures", () => {
    const charts = [
      ...html.matchAll(/<svg [^>]*role="img" aria-labelledby="([^" ]+) ([^"]+)"[^>]*>([\s\S]*?)<\/svg>/g),
    ];
    assert.deepEqual(
      charts.map(([, title]) => title),
      ["chart-kind-title", "chart-scope-title", "chart-waste-title", "chart-energy-title", "chart-travel-title"],
    );
    for (const [, titleId, descId, body] of charts) {
      assert.match(body!, new RegExp(`^<title id="${titleId}">[^<]+</title><desc id="${descId}">[^<]+</desc>`));
      // Every bar's figure is in a table too.
      for (const { name } of figuresOf(body!)) {
        assert.ok(html.includes(`<td class="num"><span data-figure="${name}"`), name);
      }
    }
    assert.equal((html.match(/<svg /g) ?? []).length, 5);
    // Bars are drawn to scale: the longest is 354 units, the others in proportion.
    const waste = charts[2]![3]!;
    assert.deepEqual(
      [...waste.matchAll(/<rect [^>]*width="([^"]+)"/g)].map(([, width]) => Number(width)),
      [354, 212.4, 141.6, 141.6],
    );
    // A bar of a value far below the largest still shows.
    assert.match(charts[0]![3]!, /<rect [^>]*width="1" [^>]*><\/rect><text [^>]*data-figure="footprint.byKind.freight/);
  });

  test("goals: met, not met and not set, with their targets and figures; not measurable when set without records", () => {
    const statuses = (page: string) =>
      Object.fromEntries(
        [...page.matchAll(/data-goal="([^"]+)" data-status="([^"]+)">([^<]+)</g)].map(([, goal, status, text]) => [
          goal,
          `${status} ${text}`,
        ]),
      );
    assert.deepEqual(statuses(html), {
      carbon_neutral: "not-met Not met",
      renewable_energy: "not-met Not met",
      waste_reduction: "met Met",
      local_sourcing: "not-set Not set",
    });
    const goals = section(html, "goals");
    assert.match(
      goals,
      /diversion rate: <span data-figure="goals.waste_reduction.metrics.diversionRatePercent"[^>]*>58.3%</,
    );
    assert.match(
      goals,
      /total emissions: <span data-figure="goals.carbon_neutral.metrics.totalEmissionsKg"[^>]*>111,362.0 kg</,
    );
    const local = renderReportPage({
      ...FESTIVAL_REPORT,
      goals: [
        {
          type: "local_sourcing",
          set: true,
          met: true,
          target: null,
          metrics: { localVendors: 3, localSharePercent: 75 },
        },
      ],
    });
    assert.deepEqual(statuses(local), { local_sourcing: "met Met" });
    assert.equal(shown(local, "goals.local_sourcing.metrics.localVendors"), "3");
    assert.equal(shown(local, "goals.local_sourcing.metrics.localSharePercent"), "75.0%");
    assert.match(local, /local vendors: <span/);
    assert.deepEqual(statuses(renderReportPage(EMPTY_REPORT)), {
      carbon_neutral: "not-measurable Not measurable",
      renewable_energy: "not-measurable Not measurable",
      waste_reduction: "not-measurable Not measurable",
      local_sourcing: "not-set Not set",
    });
  });

  test("the methodology lists every factor used with its source and year; unpriced kinds are named", () => {
    const methodology = section(html, "methodology");
    assert.equal((methodology.match(/<tr>/g) ?? []).length, FESTIVAL_REPORT.factors.length + 1);
    for (const factor of FESTIVAL_REPORT.factors) {
      assert.ok(methodology.includes(`<td>${factor.name}</td>`), factor.name);
      assert.ok(
        methodology.includes(`<td>${factor.unit}</td><td><span class="any">${factor.source}</span></td>`),
        factor.name,
      );
    }
    assert.match(methodology, /Fixture factor set<\/strong>/);
    assert.match(section(html, "footprint"), /not in these totals: Water\./);
  });

  test("a factor is printed whole: a per-kg waste factor keeps its eight decimals", () => {
    const doc = structuredClone(FESTIVAL_REPORT);
    doc.factors[8]!.value = 0.52033474;
    doc.factors[9]!.value = 0.00891242;
    doc.factors[0]!.value = 3015.65462;
    const page = renderReportPage(doc);
    assert.equal(shown(page, "factors.8.value"), "0.52033474");
    assert.equal(shown(page, "factors.9.value"), "0.00891242");
    assert.equal(shown(page, "factors.0.value"), "3,015.65462");
  });

  test("every text of the document is escaped", () => {
    const hostile = structuredClone(FESTIVAL_REPORT);
    hostile.event.name = `<script>alert("x")</script> & 'Friends' "Fest"`;
    hostile.event.category = "<b>festival</b>";
    hostile.event.location.city = `Bath" onmouseover="alert(1)`;
    hostile.event.id = "</code><script>1</script>";
    hostile.generatedAt = "<i>soon</i>";
    hostile.methodology.emissionFactors.source = "<a href='https://evil.example'>source</a>";
    hostile.factors[0]!.name = "<img src=x onerror=alert(1)>";
    hostile.factors[0]!.unit = "kg</td><script>";
    hostile.goals[0]!.metrics = { '"><script>alert(1)</script>Kg': 1 };
    const page = renderReportPage(hostile);
    for (const tag of ["<script", "<b>", "<i>", "<img", "<a ", 'onmouseover="']) {
      assert.ok(!page.includes(tag), `${tag} must not appear unescaped`);
    }
    assert.ok(
      page.includes(
        "<title>Sustainability report: &lt;script>alert(&quot;x&quot;)&lt;/script> &amp; 'Friends' &quot;Fest&quot;</title>",
      ),
    );
    assert.ok(page.includes("<h1>&lt;script>alert(&quot;x&quot;)&lt;/script> &amp; 'Friends' &quot;Fest&quot;</h1>"));
    assert.ok(page.includes("Bath&quot; onmouseover=&quot;alert(1)"));
    assert.ok(page.includes('data-figure="goals.carbon_neutral.metrics.&quot;>&lt;script>alert(1)&lt;/script>Kg"'));
  });

  test("loads nothing: no src, href or url() anywhere, a strict CSP, no script", () => {
    const withUrls = structuredClone(FESTIVAL_REPORT);
    withUrls.methodology.emissionFactors.source =
      "https://www.gov.uk/government/collections/government-conversion-factors-for-company-reporting";
    withUrls.factors[1]!.source = "http://example.org/factors.csv";
    for (const page of [html, renderReportPage(withUrls), renderReportPage(EMPTY_REPORT)]) {
      // The one link is the empty icon (`data:,`), which keeps the browser from asking for /favicon.ico.
      assert.equal(page.match(/<link rel="icon" href="data:,"\/>/g)?.length, 1);
      const rest = page.replace('<link rel="icon" href="data:,"/>', "");
      assert.doesNotMatch(rest, /\s(?:src|href|srcset|action|poster|data|xlink:href)\s*=/i);
      assert.doesNotMatch(rest, /url\(|@import|<link|<script|<iframe|<object|<embed|<img/i);
      assert.ok(page.includes(`<meta http-equiv="Content-Security-Policy" content="${REPORT_PAGE_CSP}"/>`));
    }
    // The one stylesheet is allowed by its hash, no 'unsafe-inline': the hash of the page's own <style>.
    const style = html.match(/<style>([\s\S]*?)<\/style>/)![1]!;
    assert.equal((html.match(/<style/g) ?? []).length, 1);
    assert.equal(
      REPORT_PAGE_CSP,
      `default-src 'none'; style-src 'sha256-${createHash("sha256").update(style).digest("base64")}'; img-src data:; base-uri 'none'; form-action 'none'`,
    );
    assert.doesNotMatch(REPORT_PAGE_CSP, /unsafe-inline/);
    // The URLs of the document are text, not links.
    assert.ok(renderReportPage(withUrls).includes("source: https://www.gov.uk/government/collections/"));
  });

  test("an accessible, printable HTML5 page", () => {
    assert.ok(html.startsWith('<!doctype html><html lang="en"><head><meta charset="utf-8"/>'));
    assert.match(html, /<title>Sustainability report: Green Fields Festival<\/title>/);
    assert.match(html, /@page \{ size: A4;/);
    assert.match(html, /@media print \{/);
    assert.match(html, /<h1>Green Fields Festival<\/h1>/);
    assert.match(html, /Glastonbury, GB/);
  });

  test("times without a time zone: in UTC, labelled", () => {
    assert.match(html, /<dd>9 Jul 2038, 12:00 UTC to 11 Jul 2038, 23:00 UTC<\/dd>/);
    assert.match(html, /<dd>12 Jul 2038, 08:30 UTC<\/dd>/);
    assert.match(html, /generated 12 Jul 2038, 08:30 UTC\./);
  });

  test("times in the event's time zone, with its abbreviation (summer and winter time)", () => {
    const summer = renderReportPage({
      ...FESTIVAL_REPORT,
      event: { ...FESTIVAL_REPORT.event, timeZone: "Europe/London" },
    });
    assert.match(summer, /<dd>9 Jul 2038, 13:00 BST to 12 Jul 2038, 00:00 BST<\/dd>/);
    assert.match(summer, /generated 12 Jul 2038, 09:30 BST\./);
    const winter = renderReportPage({
      ...FESTIVAL_REPORT,
      event: {
        ...FESTIVAL_REPORT.event,
        startDate: "2038-01-15T08:00:00.000Z",
        endDate: "2038-05-01T07:00:00.000Z",
        timeZone: "Europe/Berlin",
      },
    });
    assert.match(winter, /<dd>15 Jan 2038, 09:00 CET to 1 May 2038, 09:00 CEST<\/dd>/);
    assert.doesNotMatch(winter, /\bUTC\b/);
  });

  test("empty sections say so instead of showing 0", () => {
    const page = renderReportPage(EMPTY_REPORT);
    const waste = section(page, "waste");
    assert.match(waste, /<p data-figure="waste.totalKg" data-value="null">No waste recorded<\/p>/);
    assert.doesNotMatch(textOf(waste), /\d/);
    const energy = section(page, "energy");
    assert.match(energy, /<p data-figure="energy.electricityKwh" data-value="null">No electricity recorded<\/p>/);
    assert.match(energy, /No fuel recorded/);
    assert.doesNotMatch(textOf(energy), /kWh|\d/);
    const travel = section(page, "travel");
    assert.match(travel, /No attendee travel reported/);
    assert.match(travel, /No staff travel recorded/);
    assert.match(section(page, "footprint"), /No emissions recorded/);
    assert.match(page, /data-figure="footprint.perAttendeeKg" data-value="null">No active registrations</);
    assert.match(page, /data-figure="footprint.measuredSharePercent" data-value="null">No activity emissions</);
    assert.match(page, /data-figure="offsets.coveragePercent" data-value="null">No emissions to cover</);
    assert.match(section(page, "methodology"), /No factor was used/);
    // Only the scope chart remains, showing the three zero scopes.
    assert.equal((page.match(/<svg /g) ?? []).length, 1);
    assert.equal(shown(page, "footprint.byScope.scope3Kg"), "0.0 kg");
    // A recorded total of 0 kg of waste is a figure, not "No waste recorded".
    const zero = renderReportPage({
      ...EMPTY_REPORT,
      waste: { totalKg: 0, byStream: [], diversionRatePercent: null, recyclingRatePercent: null },
    });
    assert.equal(shown(zero, "waste.totalKg"), "0.0 kg");
    assert.equal(shown(zero, "waste.diversionRatePercent"), "Not measurable");
  });
});

describe("the report page through the handler", () => {
  test("an organiser's hostile text is shown as text; the page's headers: a CSP by hash, no-store, noindex, no-referrer", async (t) => {
    const storage = await sqliteStorage();
    t.after(() => storage.close());
    const service = createEventService({ storage });
    const handler = createHandler(service);
    const { key } = await service.keys.create({ account: "Hostile" });
    const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      handler(apiRequest(method, `http://service.test/v1${path}`, key, body, headers));
    const created = await call("POST", "/events", {
      name: `Fest </title><script>alert("name")</script> & 'Co'`,
      description: `<img src=x onerror=alert("description")>`,
      location: { address: `<iframe src="https://evil.example">`, city: `Bath" onmouseover="alert(1)`, country: "GB" },
      startDate: "2038-05-01T09:00:00Z",
      endDate: "2038-05-01T17:00:00Z",
      capacity: 10,
      category: "<b>festival</b>",
    });
    assert.equal(created.status, 201);
    const event = await created.json();
    const activity = await call("POST", `/events/${event.id}/activities`, {
      kind: "fuel",
      quantity: 40,
      unit: "litres",
      fuel: "diesel",
      note: `</td><script>alert("note")</script>`,
    });
    assert.equal(activity.status, 201);

    const response = await call("GET", `/events/${event.id}/sustainability-report`, undefined, { accept: "text/html" });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "text/html; charset=utf-8");
    assert.equal(response.headers.get("content-security-policy"), `${REPORT_PAGE_CSP}; frame-ancestors 'none'`);
    assert.match(REPORT_PAGE_CSP, /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*'; /);
    assert.doesNotMatch(response.headers.get("content-security-policy")!, /unsafe-inline|unsafe-eval|https?:/);
    assert.equal(response.headers.get("cache-control"), "no-store");
    assert.equal(response.headers.get("x-robots-tag"), "noindex");
    assert.equal(response.headers.get("referrer-policy"), "no-referrer");
    assert.equal(response.headers.get("vary"), "accept");
    const page = await response.text();
    // The name, city and category as text, escaped where they show.
    const name = "Fest &lt;/title>&lt;script>alert(&quot;name&quot;)&lt;/script> &amp; 'Co'";
    assert.ok(page.includes(`<title>Sustainability report: ${name}</title>`));
    assert.ok(page.includes(`<h1>${name}</h1>`));
    assert.ok(page.includes("<dd>Bath&quot; onmouseover=&quot;alert(1), GB</dd>"));
    assert.ok(page.includes("<dd>&lt;b>festival&lt;/b></dd>"));
    // Nothing of it is markup: no element, attribute or closing tag the organiser typed.
    for (const tag of ["<script", "<img", "<iframe", "<b>", "</td><script", "onerror=", 'onmouseover="']) {
      assert.ok(!page.includes(tag), `${tag} must not appear unescaped`);
    }
    assert.equal((page.match(/<title>/g) ?? []).length, 1);
    // The fuel is in the report: the page was drawn from the event's records.
    assert.match(page, /data-figure="energy.fuels.diesel.litres.quantity" data-value="40">40.0 litres</);
  });
});
