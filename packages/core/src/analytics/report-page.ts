import { localDateTime } from "../_internal/local-time.ts";
import {
  ACTIVITY_KIND_WORDS,
  ELECTRICITY_SOURCE_WORDS,
  FUEL_WORDS,
  TRAVEL_MODE_WORDS,
  WASTE_STREAM_WORDS,
} from "../carbon/activity-words.ts";
import type { GoalType } from "../rules/goals.ts";
import type { FootprintKind } from "./footprint.ts";
import type { SustainabilityReportDocument } from "./report-document.ts";

/**
 * The printable sustainability report: one self-contained HTML5 page drawn from a
 * `SustainabilityReportDocument`. Charts are inline SVG drawn here, each with a table of the
 * same figures beside it; the page has no script and loads nothing (no font, image or
 * stylesheet), so it opens and prints the same offline, and `REPORT_PAGE_CSP` can forbid
 * everything but its own inline style.
 *
 * Every figure shown carries `data-figure` (its path in the document, array entries named by
 * their key: `footprint.byKind.fuel.emissionsKg`, `factors.0.value`) and `data-value` (the
 * document's number as JSON writes it, or `null`), so a test can compare the page with the JSON.
 */

/**
 * The Content-Security-Policy of the page: nothing may load, no script may run, only the page's
 * own `<style>` applies. The page carries it as a `<meta>`; a server should also send it as a
 * header, where `frame-ancestors` (ignored in a `<meta>`) takes effect too.
 */
export const REPORT_PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

const KIND_LABELS: Record<FootprintKind, string> = { ...ACTIVITY_KIND_WORDS, attendee_travel: "Attendee travel" };
const STREAM_LABELS: Record<string, string> = WASTE_STREAM_WORDS;
const SOURCE_LABELS: Record<string, string> = ELECTRICITY_SOURCE_WORDS;
const FUEL_LABELS: Record<string, string> = FUEL_WORDS;
const MODE_LABELS: Record<string, string> = TRAVEL_MODE_WORDS;

const GOALS: Record<GoalType, { label: string; rule: string }> = {
  carbon_neutral: { label: "Carbon neutral", rule: "Offsets cover the whole footprint" },
  renewable_energy: { label: "Renewable energy", rule: "Electricity is recorded and all of it is renewable" },
  waste_reduction: { label: "Waste reduction", rule: "The measured diversion rate reaches the target" },
  local_sourcing: { label: "Local sourcing", rule: "Confirmed vendors are local to the event" },
};

const ONE_DECIMAL = new Intl.NumberFormat("en-US", { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const WHOLE = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
const UP_TO_ONE = new Intl.NumberFormat("en-US", { maximumFractionDigits: 1 });
const MONEY = new Intl.NumberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
// A factor is printed whole (up to the 12 significant digits a per-tonne factor keeps as per kg:
// 0.02128081, not 0.021281), so that a reader can multiply the quantities by it.
const FACTOR = new Intl.NumberFormat("en-US", { maximumSignificantDigits: 12 });

const kg = (value: number) => `${ONE_DECIMAL.format(value)} kg`;
const kwh = (value: number) => `${ONE_DECIMAL.format(value)} kWh`;
const km = (value: number) => `${ONE_DECIMAL.format(value)} km`;
const pct = (value: number) => `${ONE_DECIMAL.format(value)}%`;
const count = (value: number) => WHOLE.format(value);

/** Text made safe for HTML content and for a double- or single-quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A figure: its formatted text, marked with its document path and raw value. */
function figure(name: string, value: number | null, text: string, tag = "span"): string {
  return `<${tag} data-figure="${escapeHtml(name)}" data-value="${value === null ? "null" : String(value)}">${escapeHtml(text)}</${tag}>`;
}

/** "total emissions" for "totalEmissionsKg": a metric's name without its unit, in words. */
function metricWords(key: string): string {
  return key
    .replace(/(Kg|Kwh|Percent)$/, "")
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase();
}

function metricText(key: string, value: number | null): string {
  if (value === null) return "not measured";
  if (key.endsWith("Kg")) return kg(value);
  if (key.endsWith("Percent")) return pct(value);
  if (key.endsWith("Kwh")) return kwh(value);
  return UP_TO_ONE.format(value);
}

interface Bar {
  label: string;
  value: number;
  figure: string;
  text: string;
}

/**
 * A horizontal bar chart: one labelled bar per row, its length in proportion to the largest
 * value, the figure written after it. `role="img"` with a title and a description of every
 * figure, for readers that cannot see it (the table next to it has the same figures).
 */
function barChart(id: string, title: string, bars: Bar[], palette: string): string {
  const width = 720;
  const labelWidth = 200;
  const valueWidth = 150;
  const barArea = width - labelWidth - valueWidth - 16;
  const rowHeight = 28;
  const padding = 6;
  const height = padding * 2 + bars.length * rowHeight;
  const max = Math.max(0, ...bars.map((bar) => bar.value));
  const rows = bars.map((bar, index) => {
    const y = padding + index * rowHeight;
    // A bar of a positive value is at least 1 unit long, so that it shows next to much larger ones.
    const length = max > 0 && bar.value > 0 ? Math.max(1, (bar.value / max) * barArea) : 0;
    const rounded = Math.round(length * 10) / 10;
    return [
      `<text x="${labelWidth - 8}" y="${y + 18}" text-anchor="end" class="chart-label">${escapeHtml(bar.label)}</text>`,
      `<rect x="${labelWidth}" y="${y + 5}" width="${rounded}" height="${rowHeight - 10}" rx="2" class="bar ${palette}-${index % 6}"/>`,
      `<text x="${labelWidth + rounded + 6}" y="${y + 18}" class="chart-value" data-figure="${escapeHtml(bar.figure)}" data-value="${String(bar.value)}">${escapeHtml(bar.text)}</text>`,
    ].join("");
  });
  const description = bars.map((bar) => `${bar.label}: ${bar.text}`).join("; ");
  return `<svg class="chart" viewBox="0 0 ${width} ${height}" width="100%" role="img" aria-labelledby="${id}-title ${id}-desc"><title id="${id}-title">${escapeHtml(title)}</title><desc id="${id}-desc">${escapeHtml(description)}</desc>${rows.join("")}</svg>`;
}

/** A table: a caption, a header row, and rows of cells already rendered as HTML. */
function table(caption: string, headers: string[], rows: string[][], numeric: number[] = []): string {
  const cell = (tag: "th" | "td", html: string, column: number, scope = "") =>
    `<${tag}${scope}${numeric.includes(column) ? ' class="num"' : ""}>${html}</${tag}>`;
  const head = headers.map((header, column) => cell("th", escapeHtml(header), column, ' scope="col"')).join("");
  // The first cell of a row names it (a kind, a stream, a goal): a row header.
  const body = rows
    .map(
      (row) =>
        `<tr>${row.map((html, column) => (column === 0 ? cell("th", html, column, ' scope="row"') : cell("td", html, column))).join("")}</tr>`,
    )
    .join("\n");
  // A table wider than a phone scrolls inside its own box (focusable, so a keyboard can scroll it), never the page.
  const wide = headers.length >= 5 ? ' class="wide"' : "";
  return `<div class="table-box" role="region" tabindex="0" aria-label="${escapeHtml(caption)}"><table${wide}><caption>${escapeHtml(caption)}</caption><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table></div>`;
}

function empty(text: string): string {
  return `<p class="empty">${escapeHtml(text)}</p>`;
}

/** A labelled key figure of the summary and section heads. */
function stat(label: string, html: string): string {
  return `<div class="stat"><dt>${escapeHtml(label)}</dt><dd>${html}</dd></div>`;
}

function headerSection(doc: SustainabilityReportDocument): string {
  const { event } = doc;
  const when = (timestamp: string) => localDateTime(timestamp, event.timeZone);
  return `<header>
<p class="kicker">Sustainability report</p>
<h1>${escapeHtml(event.name)}</h1>
<dl class="facts">
${stat("Dates", `${escapeHtml(when(event.startDate))} to ${escapeHtml(when(event.endDate))}`)}
${stat("Location", `${escapeHtml(event.location.city)}, ${escapeHtml(event.location.country)}`)}
${stat("Category", escapeHtml(event.category))}
${stat("Status", escapeHtml(event.status))}
${stat("Event", `<code>${escapeHtml(event.id)}</code>`)}
${stat("Generated", escapeHtml(when(doc.generatedAt)))}
</dl>
</header>`;
}

function summarySection(doc: SustainabilityReportDocument): string {
  const { footprint, offsets } = doc;
  return `<section id="summary" aria-labelledby="summary-h">
<h2 id="summary-h">Summary</h2>
<dl class="stats">
${stat("Total footprint", figure("footprint.totalEmissionsKg", footprint.totalEmissionsKg, `${kg(footprint.totalEmissionsKg)} CO2e`))}
${stat(
  "Per attendee",
  footprint.perAttendeeKg === null
    ? figure("footprint.perAttendeeKg", null, "No active registrations")
    : figure("footprint.perAttendeeKg", footprint.perAttendeeKg, `${kg(footprint.perAttendeeKg)} CO2e`),
)}
${stat(
  "Measured data",
  footprint.measuredSharePercent === null
    ? figure("footprint.measuredSharePercent", null, "No activity emissions")
    : `${figure("footprint.measuredSharePercent", footprint.measuredSharePercent, pct(footprint.measuredSharePercent))} of activity emissions`,
)}
${stat("Offsets", figure("offsets.offsetKg", offsets.offsetKg, `${kg(offsets.offsetKg)} CO2e`))}
${stat(
  "Offset coverage",
  offsets.coveragePercent === null
    ? figure("offsets.coveragePercent", null, "No emissions to cover")
    : `${figure("offsets.coveragePercent", offsets.coveragePercent, pct(offsets.coveragePercent))} of the footprint`,
)}
</dl>
</section>`;
}

function footprintSection(doc: SustainabilityReportDocument): string {
  const { footprint } = doc;
  const unpriced =
    footprint.unpricedKinds.length === 0
      ? ""
      : `<p class="note">Recorded but not priced by the factor set, so not in these totals: ${escapeHtml(
          footprint.unpricedKinds.map((kind) => KIND_LABELS[kind]).join(", "),
        )}.</p>`;
  const byKind =
    footprint.byKind.length === 0
      ? empty("No emissions recorded")
      : `${barChart(
          "chart-kind",
          "Footprint by kind, kg CO2e",
          footprint.byKind.map(({ kind, emissionsKg }) => ({
            label: KIND_LABELS[kind],
            value: emissionsKg,
            figure: `footprint.byKind.${kind}.emissionsKg`,
            text: kg(emissionsKg),
          })),
          "kind",
        )}
${table(
  "Footprint by kind",
  ["Kind", "Emissions (CO2e)", "Records"],
  footprint.byKind.map(({ kind, emissionsKg, records }) => [
    escapeHtml(KIND_LABELS[kind]),
    figure(`footprint.byKind.${kind}.emissionsKg`, emissionsKg, kg(emissionsKg)),
    figure(`footprint.byKind.${kind}.records`, records, count(records)),
  ]),
  [1, 2],
)}`;
  const scopes = [
    ["scope1Kg", "Scope 1: fuels burned on site"],
    ["scope2Kg", "Scope 2: purchased electricity"],
    ["scope3Kg", "Scope 3: everything else"],
  ] as const;
  const byScope = `${barChart(
    "chart-scope",
    "Footprint by GHG Protocol scope, kg CO2e",
    scopes.map(([key, label]) => ({
      label,
      value: footprint.byScope[key],
      figure: `footprint.byScope.${key}`,
      text: kg(footprint.byScope[key]),
    })),
    "scope",
  )}
${table(
  "Footprint by scope",
  ["Scope", "Emissions (CO2e)"],
  scopes.map(([key, label]) => [
    escapeHtml(label),
    figure(`footprint.byScope.${key}`, footprint.byScope[key], kg(footprint.byScope[key])),
  ]),
  [1],
)}`;
  return `<section id="footprint" aria-labelledby="footprint-h">
<h2 id="footprint-h">Footprint</h2>
<h3>By kind</h3>
${byKind}
${unpriced}
<h3>By scope</h3>
${byScope}
<p class="note">Scope 2 is location-based: electricity from a renewable tariff or on-site generation counts 0 kg.</p>
</section>`;
}

function wasteSection(doc: SustainabilityReportDocument): string {
  const { waste } = doc;
  if (waste.totalKg === null) {
    return `<section id="waste" aria-labelledby="waste-h">
<h2 id="waste-h">Waste</h2>
${figure("waste.totalKg", null, "No waste recorded", "p")}
</section>`;
  }
  const rates = `<dl class="stats">
${stat("Total waste", figure("waste.totalKg", waste.totalKg, kg(waste.totalKg)))}
${stat(
  "Diversion rate",
  waste.diversionRatePercent === null
    ? figure("waste.diversionRatePercent", null, "Not measurable")
    : figure("waste.diversionRatePercent", waste.diversionRatePercent, pct(waste.diversionRatePercent)),
)}
${stat(
  "Recycling rate",
  waste.recyclingRatePercent === null
    ? figure("waste.recyclingRatePercent", null, "Not measurable")
    : figure("waste.recyclingRatePercent", waste.recyclingRatePercent, pct(waste.recyclingRatePercent)),
)}
</dl>`;
  const streams =
    waste.byStream.length === 0
      ? empty("No waste stream recorded")
      : `${barChart(
          "chart-waste",
          "Waste by stream, kg",
          waste.byStream.map(({ stream, kg: value }) => ({
            label: STREAM_LABELS[stream] ?? stream,
            value,
            figure: `waste.byStream.${stream}.kg`,
            text: kg(value),
          })),
          "waste",
        )}
${table(
  "Waste by stream",
  ["Stream", "Weight"],
  waste.byStream.map(({ stream, kg: value }) => [
    escapeHtml(STREAM_LABELS[stream] ?? stream),
    figure(`waste.byStream.${stream}.kg`, value, kg(value)),
  ]),
  [1],
)}`;
  return `<section id="waste" aria-labelledby="waste-h">
<h2 id="waste-h">Waste</h2>
${rates}
${streams}
<p class="note">Diversion rate: waste neither landfilled nor incinerated, as a share of all waste recorded.</p>
</section>`;
}

function energySection(doc: SustainabilityReportDocument): string {
  const { energy } = doc;
  const electricity =
    energy.electricityKwh === null
      ? figure("energy.electricityKwh", null, "No electricity recorded", "p")
      : `<dl class="stats">
${stat("Electricity", figure("energy.electricityKwh", energy.electricityKwh, kwh(energy.electricityKwh)))}
${stat(
  "Renewable share",
  energy.renewableSharePercent === null
    ? figure("energy.renewableSharePercent", null, "Not measurable")
    : figure("energy.renewableSharePercent", energy.renewableSharePercent, pct(energy.renewableSharePercent)),
)}
</dl>
${
  energy.bySource.length === 0
    ? ""
    : `${barChart(
        "chart-energy",
        "Electricity by source, kWh",
        energy.bySource.map(({ source, kWh }) => ({
          label: SOURCE_LABELS[source] ?? source,
          value: kWh,
          figure: `energy.bySource.${source}.kWh`,
          text: kwh(kWh),
        })),
        "energy",
      )}
${table(
  "Electricity by source",
  ["Source", "Electricity"],
  energy.bySource.map(({ source, kWh }) => [
    escapeHtml(SOURCE_LABELS[source] ?? source),
    figure(`energy.bySource.${source}.kWh`, kWh, kwh(kWh)),
  ]),
  [1],
)}`
}`;
  const fuels =
    energy.fuels.length === 0
      ? empty("No fuel recorded")
      : table(
          "Fuels burned on site",
          ["Fuel", "Quantity", "Emissions (CO2e)"],
          energy.fuels.map(({ fuel, unit, quantity, emissionsKg }) => [
            escapeHtml(FUEL_LABELS[fuel] ?? fuel),
            figure(`energy.fuels.${fuel}.${unit}.quantity`, quantity, `${ONE_DECIMAL.format(quantity)} ${unit}`),
            emissionsKg === null
              ? figure(`energy.fuels.${fuel}.${unit}.emissionsKg`, null, "Not priced")
              : figure(`energy.fuels.${fuel}.${unit}.emissionsKg`, emissionsKg, kg(emissionsKg)),
          ]),
          [1, 2],
        );
  return `<section id="energy" aria-labelledby="energy-h">
<h2 id="energy-h">Energy</h2>
<h3>Electricity</h3>
${electricity}
<h3>Fuel</h3>
${fuels}
</section>`;
}

function travelSection(doc: SustainabilityReportDocument): string {
  const { travel } = doc;
  const attendees =
    travel.byMode.length === 0
      ? empty("No attendee travel reported")
      : `${barChart(
          "chart-travel",
          "Attendee travel by mode, kg CO2e",
          travel.byMode.map(({ mode, emissionsKg }) => ({
            label: MODE_LABELS[mode] ?? mode,
            value: emissionsKg,
            figure: `travel.byMode.${mode}.emissionsKg`,
            text: kg(emissionsKg),
          })),
          "travel",
        )}
${table(
  "Attendee travel by mode",
  ["Mode", "Registrations", "Distance", "Emissions (CO2e)"],
  travel.byMode.map(({ mode, registrations, distanceKm, emissionsKg }) => [
    escapeHtml(MODE_LABELS[mode] ?? mode),
    figure(`travel.byMode.${mode}.registrations`, registrations, count(registrations)),
    figure(`travel.byMode.${mode}.distanceKm`, distanceKm, km(distanceKm)),
    figure(`travel.byMode.${mode}.emissionsKg`, emissionsKg, kg(emissionsKg)),
  ]),
  [1, 2, 3],
)}`;
  const staff =
    travel.staffByMode.length === 0
      ? empty("No staff travel recorded")
      : table(
          "Staff travel by mode",
          ["Mode", "Passenger-km", "Emissions (CO2e)"],
          travel.staffByMode.map(({ mode, passengerKm, emissionsKg }) => [
            escapeHtml(MODE_LABELS[mode] ?? mode),
            figure(`travel.staffByMode.${mode}.passengerKm`, passengerKm, ONE_DECIMAL.format(passengerKm)),
            figure(`travel.staffByMode.${mode}.emissionsKg`, emissionsKg, kg(emissionsKg)),
          ]),
          [1, 2],
        );
  return `<section id="travel" aria-labelledby="travel-h">
<h2 id="travel-h">Travel</h2>
<h3>Attendees</h3>
${attendees}
<h3>Staff</h3>
${staff}
</section>`;
}

function goalsSection(doc: SustainabilityReportDocument): string {
  if (doc.goals.length === 0) {
    return `<section id="goals" aria-labelledby="goals-h"><h2 id="goals-h">Goals</h2>${empty("No goals")}</section>`;
  }
  const rows = doc.goals.map((goal) => {
    const status = !goal.set ? "not-set" : goal.met === null ? "not-measurable" : goal.met ? "met" : "not-met";
    const statusText = { "not-set": "Not set", "not-measurable": "Not measurable", met: "Met", "not-met": "Not met" }[
      status
    ];
    const target =
      goal.target === null
        ? "—"
        : figure(
            `goals.${goal.type}.target`,
            goal.target,
            goal.type === "waste_reduction" ? pct(goal.target) : UP_TO_ONE.format(goal.target),
          );
    const metrics = Object.entries(goal.metrics);
    const figures =
      metrics.length === 0
        ? "—"
        : `<ul class="metrics">${metrics
            .map(
              ([key, value]) =>
                `<li>${escapeHtml(metricWords(key))}: ${figure(`goals.${goal.type}.metrics.${key}`, value, metricText(key, value))}</li>`,
            )
            .join("")}</ul>`;
    const { label, rule } = GOALS[goal.type];
    // The status beside the goal's name, where a phone shows it without scrolling the table.
    return [
      escapeHtml(label),
      `<span class="goal ${status}" data-goal="${goal.type}" data-status="${status}">${statusText}</span>`,
      escapeHtml(rule),
      target,
      figures,
    ];
  });
  return `<section id="goals" aria-labelledby="goals-h">
<h2 id="goals-h">Goals</h2>
${table("Sustainability goals", ["Goal", "Status", "Met when", "Target", "Figures"], rows, [3])}
<p class="note">Not measurable: the goal is set, but nothing is recorded to judge it by.</p>
</section>`;
}

function methodologySection(doc: SustainabilityReportDocument): string {
  const { methodology, factors } = doc;
  const set = methodology.emissionFactors;
  const factorTable =
    factors.length === 0
      ? empty("No factor was used")
      : table(
          "Emission factors used",
          ["Kind", "Factor", "Value", "Unit", "Source", "Year", "Records"],
          factors.map((factor, index) => [
            escapeHtml(KIND_LABELS[factor.kind]),
            escapeHtml(factor.name),
            figure(`factors.${index}.value`, factor.value, FACTOR.format(factor.value)),
            escapeHtml(factor.unit),
            `<span class="any">${escapeHtml(factor.source)}</span>`,
            figure(`factors.${index}.year`, factor.year, String(factor.year)),
            figure(`factors.${index}.records`, factor.records, count(factor.records)),
          ]),
          [2, 5, 6],
        );
  return `<section id="methodology" aria-labelledby="methodology-h">
<h2 id="methodology-h">Methodology</h2>
<p>Emission factor set: <strong>${escapeHtml(set.name)}</strong>, ${figure(
    "methodology.emissionFactors.year",
    set.year,
    String(set.year),
  )}; source: ${escapeHtml(set.source)}. Offsets are priced at ${figure(
    "methodology.offsetPriceUsdPerTonne",
    methodology.offsetPriceUsdPerTonne,
    `USD ${MONEY.format(methodology.offsetPriceUsdPerTonne)}`,
  )} per tonne CO2e.</p>
<ul>
<li>Each record's emissions are its quantity times its factor (kg CO2e per the record's unit); attendee travel is each registration's distance times its mode's factor.</li>
<li>Scopes follow the GHG Protocol: 1 for fuels burned on site, 2 for purchased electricity (location-based), 3 for everything else, attendee and staff travel included.</li>
<li>Per attendee: the total divided by the active registrations. Measured data: the share of activity emissions from records measured rather than estimated.</li>
<li>Waste diversion rate: waste not landfilled or incinerated over all waste; recycling rate: recycling over all waste. Renewable share: kWh from a renewable tariff or on-site generation over all electricity.</li>
</ul>
${factorTable}
</section>`;
}

const STYLE = `
@page { size: A4; margin: 14mm 14mm 16mm; }
:root { color-scheme: light; --ink: #1d2a22; --muted: #5b6b61; --rule: #d5ddd8; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 190mm; padding: 24px; font: 10.5pt/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--ink); background: #fff; }
header { border-bottom: 3px solid #2f7d4f; margin-bottom: 12px; }
.kicker { margin: 0; color: #2f7d4f; font-weight: 600; text-transform: uppercase; letter-spacing: .06em; font-size: 9pt; }
h1 { margin: 2px 0 8px; font-size: 20pt; line-height: 1.2; overflow-wrap: anywhere; }
h2 { font-size: 14pt; margin: 18px 0 6px; border-bottom: 1px solid var(--rule); padding-bottom: 2px; }
h3 { font-size: 11pt; margin: 12px 0 4px; color: var(--muted); }
dl { margin: 0; }
.facts, .stats { display: flex; flex-wrap: wrap; gap: 6px 20px; margin: 6px 0 10px; }
.stat dt { font-size: 8.5pt; color: var(--muted); }
.stat dd { margin: 0; font-weight: 600; }
.stats .stat dd { font-size: 12pt; }
table { border-collapse: collapse; width: 100%; margin: 6px 0 10px; font-size: 9.5pt; }
caption { text-align: left; font-size: 8.5pt; color: var(--muted); padding-bottom: 2px; }
th, td { text-align: left; vertical-align: top; padding: 3px 6px; border-bottom: 1px solid var(--rule); overflow-wrap: break-word; }
thead th { border-bottom: 1.5px solid var(--ink); font-size: 8.5pt; }
tbody th { font-weight: 500; }
.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.any { overflow-wrap: anywhere; }
.chart { display: block; max-width: 100%; height: auto; margin: 4px 0; }
.chart-label { font-size: 12px; fill: var(--ink); }
.chart-value { font-size: 12px; fill: var(--ink); font-weight: 600; }
.kind-0, .kind-3 { fill: #2f7d4f; } .kind-1, .kind-4 { fill: #5aa36f; } .kind-2, .kind-5 { fill: #8cc49a; }
.scope-0 { fill: #7a4e2d; } .scope-1 { fill: #c9893f; } .scope-2 { fill: #e6c07b; }
.waste-0, .waste-3 { fill: #3b6e8f; } .waste-1, .waste-4 { fill: #6a9bbd; } .waste-2, .waste-5 { fill: #a2c4db; }
.energy-0, .energy-3 { fill: #b8860b; } .energy-1, .energy-4 { fill: #d9ad3c; } .energy-2, .energy-5 { fill: #edd28a; }
.travel-0, .travel-3 { fill: #6b4c9a; } .travel-1, .travel-4 { fill: #9477c2; } .travel-2, .travel-5 { fill: #bfaee0; }
.empty { font-style: italic; color: var(--muted); }
.note { font-size: 8.5pt; color: var(--muted); }
.goal { font-weight: 600; padding: 0 6px; border-radius: 3px; white-space: nowrap; }
.goal.met { background: #d8efdf; color: #1d5e35; }
.goal.not-met { background: #f6dcd6; color: #8a2c17; }
.goal.not-set, .goal.not-measurable { background: #eceeed; color: var(--muted); }
.metrics { margin: 0; padding-left: 1.1em; }
code { font-size: 9pt; overflow-wrap: anywhere; }
.table-box { overflow-x: auto; max-width: 100%; margin: 6px 0 10px; }
.table-box > table { margin: 0; }
.table-box > table.wide { min-width: 48em; }
.stat { min-width: 0; max-width: 100%; overflow-wrap: anywhere; }
p, li, dd { overflow-wrap: break-word; }
@media screen and (max-width: 600px) {
  body { padding: 12px; font-size: 10pt; }
  h1 { font-size: 16pt; }
  .facts, .stats { gap: 6px 14px; }
}
footer { margin-top: 18px; font-size: 8.5pt; color: var(--muted); border-top: 1px solid var(--rule); padding-top: 4px; }
@media print {
  body { padding: 0; max-width: none; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  h2, h3 { break-after: avoid; }
  .chart, table, .stats { break-inside: avoid; }
  .table-box { overflow: visible; }
  section { break-inside: auto; }
  #methodology { break-before: page; }
}
`;

/**
 * The printable HTML page of a sustainability report: a complete HTML5 document (A4 print
 * styles, inline SVG charts with a table of their figures each, the goals and the methodology
 * with every factor used). Every text of the document is escaped.
 *
 * @example
 * const html = renderReportPage(report);
 * return new Response(html, {
 *   headers: { "content-type": "text/html; charset=utf-8", "content-security-policy": REPORT_PAGE_CSP },
 * });
 */
export function renderReportPage(doc: SustainabilityReportDocument): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${REPORT_PAGE_CSP}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sustainability report: ${escapeHtml(doc.event.name)}</title>
<style>${STYLE}</style>
</head>
<body>
${headerSection(doc)}
<main>
${summarySection(doc)}
${footprintSection(doc)}
${wasteSection(doc)}
${energySection(doc)}
${travelSection(doc)}
${goalsSection(doc)}
${methodologySection(doc)}
</main>
<footer>Event Service sustainability report for event <code>${escapeHtml(doc.event.id)}</code>, generated ${escapeHtml(localDateTime(doc.generatedAt, doc.event.timeZone))}. All emissions in kg CO2e.</footer>
</body>
</html>
`;
}
