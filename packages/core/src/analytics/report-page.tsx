import type { ComponentChildren } from "preact";
import {
  ACTIVITY_KIND_WORDS,
  ELECTRICITY_SOURCE_WORDS,
  FUEL_WORDS,
  TRAVEL_MODE_WORDS,
  WASTE_STREAM_WORDS,
} from "../carbon/activity-words.ts";
import { styleSource } from "../_internal/document-headers.ts";
import { renderDocument } from "../_internal/html-document.tsx";
import { localDateTime } from "../_internal/local-time.ts";
import type { GoalType } from "../rules/goals.ts";
import type { FootprintKind } from "./footprint.ts";
import { BarChart } from "./report-chart.tsx";
import type { SustainabilityReportDocument } from "./report-document.ts";
import {
  count,
  factorValue,
  kg,
  km,
  kwh,
  metricText,
  metricWords,
  oneDecimal,
  pct,
  upToOne,
  usd,
} from "./report-format.ts";
import { REPORT_STYLE } from "./report-style.ts";

/**
 * The printable sustainability report: one self-contained HTML5 page drawn from a
 * `SustainabilityReportDocument`, rendered by Preact (every text escaped by construction). Charts
 * are inline SVG, each with a table of the same figures beside it; the page has no script and
 * loads nothing (no font, image or stylesheet), so it opens and prints the same offline, and
 * `REPORT_PAGE_CSP` forbids everything but its own stylesheet, allowed by its hash.
 *
 * Every figure shown carries `data-figure` (its path in the document, array entries named by
 * their key: `footprint.byKind.fuel.emissionsKg`, `factors.0.value`) and `data-value` (the
 * document's number as JSON writes it, or `null`), so a test can compare the page with the JSON.
 */

/**
 * The Content-Security-Policy of the page: nothing may load, no script may run, only the page's
 * own `<style>` applies (by its hash). The page carries it as a `<meta>`; a server should also
 * send it as a header, where `frame-ancestors` (ignored in a `<meta>`) takes effect too.
 */
export const REPORT_PAGE_CSP = `default-src 'none'; style-src ${styleSource(REPORT_STYLE)}; img-src data:; base-uri 'none'; form-action 'none'`;

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

const GOAL_STATUS_TEXT = {
  "not-set": "Not set",
  "not-measurable": "Not measurable",
  met: "Met",
  "not-met": "Not met",
} as const;

type GoalStatus = keyof typeof GOAL_STATUS_TEXT;

const SCOPES = [
  ["scope1Kg", "Scope 1: fuels burned on site"],
  ["scope2Kg", "Scope 2: purchased electricity"],
  ["scope3Kg", "Scope 3: everything else"],
] as const;

/** A figure: its formatted text, marked with its document path and raw value. */
function Figure({ name, value, text, block }: { name: string; value: number | null; text: string; block?: boolean }) {
  const data = { "data-figure": name, "data-value": value === null ? "null" : String(value) };
  return block ? <p {...data}>{text}</p> : <span {...data}>{text}</span>;
}

/** A figure that may be null: its text, or what the page says instead of a number. */
function Maybe({
  name,
  value,
  text,
  none,
}: {
  name: string;
  value: number | null;
  text: (value: number) => string;
  none: string;
}) {
  return <Figure name={name} value={value} text={value === null ? none : text(value)} />;
}

/**
 * A table: a caption, a header row, and rows whose first cell names the row (a row header).
 * A table wider than a phone scrolls inside its own box (focusable, so a keyboard can scroll it),
 * never the page.
 */
function Table({
  caption,
  headers,
  rows,
  numeric = [],
}: {
  caption: string;
  headers: string[];
  rows: ComponentChildren[][];
  /** The columns of numbers, aligned right. */
  numeric?: number[];
}) {
  const num = (column: number) => (numeric.includes(column) ? "num" : undefined);
  return (
    // biome-ignore lint/a11y/useSemanticElements: a scroll box named by its table's caption, not a part of the report's outline
    <div class="table-box" role="region" tabindex={0} aria-label={caption}>
      <table class={headers.length >= 5 ? "wide" : undefined}>
        <caption>{caption}</caption>
        <thead>
          <tr>
            {headers.map((header, column) => (
              <th key={header} scope="col" class={num(column)}>
                {header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, index) => (
            <tr key={index}>
              {row.map((cell, column) =>
                column === 0 ? (
                  <th key={column} scope="row" class={num(column)}>
                    {cell}
                  </th>
                ) : (
                  <td key={column} class={num(column)}>
                    {cell}
                  </td>
                ),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Empty({ children }: { children: string }) {
  return <p class="empty">{children}</p>;
}

/** A labelled key figure of the summary and section heads. */
function Stat({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div class="stat">
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/** A section of the report with its heading, labelled by it. */
function Section({ id, title, children }: { id: string; title: string; children: ComponentChildren }) {
  return (
    <section id={id} aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>{title}</h2>
      {children}
    </section>
  );
}

function Header({ doc }: { doc: SustainabilityReportDocument }) {
  const { event } = doc;
  const when = (timestamp: string) => localDateTime(timestamp, event.timeZone);
  return (
    <header>
      <p class="kicker">Sustainability report</p>
      <h1>{event.name}</h1>
      <dl class="facts">
        <Stat label="Dates">{`${when(event.startDate)} to ${when(event.endDate)}`}</Stat>
        <Stat label="Location">{`${event.location.city}, ${event.location.country}`}</Stat>
        <Stat label="Category">{event.category}</Stat>
        <Stat label="Status">{event.status}</Stat>
        <Stat label="Event">
          <code>{event.id}</code>
        </Stat>
        <Stat label="Generated">{when(doc.generatedAt)}</Stat>
      </dl>
    </header>
  );
}

function Summary({ doc }: { doc: SustainabilityReportDocument }) {
  const { footprint, offsets } = doc;
  return (
    <Section id="summary" title="Summary">
      <dl class="stats">
        <Stat label="Total footprint">
          <Figure
            name="footprint.totalEmissionsKg"
            value={footprint.totalEmissionsKg}
            text={`${kg(footprint.totalEmissionsKg)} CO2e`}
          />
        </Stat>
        <Stat label="Per attendee">
          <Maybe
            name="footprint.perAttendeeKg"
            value={footprint.perAttendeeKg}
            text={(value) => `${kg(value)} CO2e`}
            none="No active registrations"
          />
        </Stat>
        <Stat label="Measured data">
          <Maybe
            name="footprint.measuredSharePercent"
            value={footprint.measuredSharePercent}
            text={pct}
            none="No activity emissions"
          />
          {footprint.measuredSharePercent !== null && " of activity emissions"}
        </Stat>
        <Stat label="Offsets">
          <Figure name="offsets.offsetKg" value={offsets.offsetKg} text={`${kg(offsets.offsetKg)} CO2e`} />
        </Stat>
        <Stat label="Offset coverage">
          <Maybe
            name="offsets.coveragePercent"
            value={offsets.coveragePercent}
            text={pct}
            none="No emissions to cover"
          />
          {offsets.coveragePercent !== null && " of the footprint"}
        </Stat>
      </dl>
    </Section>
  );
}

function FootprintSection({ doc }: { doc: SustainabilityReportDocument }) {
  const { footprint } = doc;
  return (
    <Section id="footprint" title="Footprint">
      <h3>By kind</h3>
      {footprint.byKind.length === 0 ? (
        <Empty>No emissions recorded</Empty>
      ) : (
        <>
          <BarChart
            id="chart-kind"
            title="Footprint by kind, kg CO2e"
            palette="kind"
            bars={footprint.byKind.map(({ kind, emissionsKg }) => ({
              label: KIND_LABELS[kind],
              value: emissionsKg,
              figure: `footprint.byKind.${kind}.emissionsKg`,
              text: kg(emissionsKg),
            }))}
          />
          <Table
            caption="Footprint by kind"
            headers={["Kind", "Emissions (CO2e)", "Records"]}
            numeric={[1, 2]}
            rows={footprint.byKind.map(({ kind, emissionsKg, records }) => [
              KIND_LABELS[kind],
              <Figure name={`footprint.byKind.${kind}.emissionsKg`} value={emissionsKg} text={kg(emissionsKg)} />,
              <Figure name={`footprint.byKind.${kind}.records`} value={records} text={count(records)} />,
            ])}
          />
        </>
      )}
      {footprint.unpricedKinds.length > 0 && (
        <p class="note">
          {`Recorded but not priced by the factor set, so not in these totals: ${footprint.unpricedKinds
            .map((kind) => KIND_LABELS[kind])
            .join(", ")}.`}
        </p>
      )}
      <h3>By scope</h3>
      <BarChart
        id="chart-scope"
        title="Footprint by GHG Protocol scope, kg CO2e"
        palette="scope"
        bars={SCOPES.map(([key, label]) => ({
          label,
          value: footprint.byScope[key],
          figure: `footprint.byScope.${key}`,
          text: kg(footprint.byScope[key]),
        }))}
      />
      <Table
        caption="Footprint by scope"
        headers={["Scope", "Emissions (CO2e)"]}
        numeric={[1]}
        rows={SCOPES.map(([key, label]) => [
          label,
          <Figure name={`footprint.byScope.${key}`} value={footprint.byScope[key]} text={kg(footprint.byScope[key])} />,
        ])}
      />
      <p class="note">
        Scope 2 is location-based: electricity from a renewable tariff or on-site generation counts 0 kg.
      </p>
    </Section>
  );
}

function WasteSection({ doc }: { doc: SustainabilityReportDocument }) {
  const { waste } = doc;
  if (waste.totalKg === null) {
    return (
      <Section id="waste" title="Waste">
        <Figure name="waste.totalKg" value={null} text="No waste recorded" block />
      </Section>
    );
  }
  return (
    <Section id="waste" title="Waste">
      <dl class="stats">
        <Stat label="Total waste">
          <Figure name="waste.totalKg" value={waste.totalKg} text={kg(waste.totalKg)} />
        </Stat>
        <Stat label="Diversion rate">
          <Maybe
            name="waste.diversionRatePercent"
            value={waste.diversionRatePercent}
            text={pct}
            none="Not measurable"
          />
        </Stat>
        <Stat label="Recycling rate">
          <Maybe
            name="waste.recyclingRatePercent"
            value={waste.recyclingRatePercent}
            text={pct}
            none="Not measurable"
          />
        </Stat>
      </dl>
      {waste.byStream.length === 0 ? (
        <Empty>No waste stream recorded</Empty>
      ) : (
        <>
          <BarChart
            id="chart-waste"
            title="Waste by stream, kg"
            palette="waste"
            bars={waste.byStream.map(({ stream, kg: value }) => ({
              label: STREAM_LABELS[stream] ?? stream,
              value,
              figure: `waste.byStream.${stream}.kg`,
              text: kg(value),
            }))}
          />
          <Table
            caption="Waste by stream"
            headers={["Stream", "Weight"]}
            numeric={[1]}
            rows={waste.byStream.map(({ stream, kg: value }) => [
              STREAM_LABELS[stream] ?? stream,
              <Figure name={`waste.byStream.${stream}.kg`} value={value} text={kg(value)} />,
            ])}
          />
        </>
      )}
      <p class="note">Diversion rate: waste neither landfilled nor incinerated, as a share of all waste recorded.</p>
    </Section>
  );
}

function Electricity({ doc }: { doc: SustainabilityReportDocument }) {
  const { energy } = doc;
  if (energy.electricityKwh === null) {
    return <Figure name="energy.electricityKwh" value={null} text="No electricity recorded" block />;
  }
  return (
    <>
      <dl class="stats">
        <Stat label="Electricity">
          <Figure name="energy.electricityKwh" value={energy.electricityKwh} text={kwh(energy.electricityKwh)} />
        </Stat>
        <Stat label="Renewable share">
          <Maybe
            name="energy.renewableSharePercent"
            value={energy.renewableSharePercent}
            text={pct}
            none="Not measurable"
          />
        </Stat>
      </dl>
      {energy.bySource.length > 0 && (
        <>
          <BarChart
            id="chart-energy"
            title="Electricity by source, kWh"
            palette="energy"
            bars={energy.bySource.map(({ source, kWh }) => ({
              label: SOURCE_LABELS[source] ?? source,
              value: kWh,
              figure: `energy.bySource.${source}.kWh`,
              text: kwh(kWh),
            }))}
          />
          <Table
            caption="Electricity by source"
            headers={["Source", "Electricity"]}
            numeric={[1]}
            rows={energy.bySource.map(({ source, kWh }) => [
              SOURCE_LABELS[source] ?? source,
              <Figure name={`energy.bySource.${source}.kWh`} value={kWh} text={kwh(kWh)} />,
            ])}
          />
        </>
      )}
    </>
  );
}

function EnergySection({ doc }: { doc: SustainabilityReportDocument }) {
  const { fuels } = doc.energy;
  return (
    <Section id="energy" title="Energy">
      <h3>Electricity</h3>
      <Electricity doc={doc} />
      <h3>Fuel</h3>
      {fuels.length === 0 ? (
        <Empty>No fuel recorded</Empty>
      ) : (
        <Table
          caption="Fuels burned on site"
          headers={["Fuel", "Quantity", "Emissions (CO2e)"]}
          numeric={[1, 2]}
          rows={fuels.map(({ fuel, unit, quantity, emissionsKg }) => [
            FUEL_LABELS[fuel] ?? fuel,
            <Figure
              name={`energy.fuels.${fuel}.${unit}.quantity`}
              value={quantity}
              text={`${oneDecimal(quantity)} ${unit}`}
            />,
            <Maybe name={`energy.fuels.${fuel}.${unit}.emissionsKg`} value={emissionsKg} text={kg} none="Not priced" />,
          ])}
        />
      )}
    </Section>
  );
}

function TravelSection({ doc }: { doc: SustainabilityReportDocument }) {
  const { travel } = doc;
  return (
    <Section id="travel" title="Travel">
      <h3>Attendees</h3>
      {travel.byMode.length === 0 ? (
        <Empty>No attendee travel reported</Empty>
      ) : (
        <>
          <BarChart
            id="chart-travel"
            title="Attendee travel by mode, kg CO2e"
            palette="travel"
            bars={travel.byMode.map(({ mode, emissionsKg }) => ({
              label: MODE_LABELS[mode] ?? mode,
              value: emissionsKg,
              figure: `travel.byMode.${mode}.emissionsKg`,
              text: kg(emissionsKg),
            }))}
          />
          <Table
            caption="Attendee travel by mode"
            headers={["Mode", "Registrations", "Distance", "Emissions (CO2e)"]}
            numeric={[1, 2, 3]}
            rows={travel.byMode.map(({ mode, registrations, distanceKm, emissionsKg }) => [
              MODE_LABELS[mode] ?? mode,
              <Figure name={`travel.byMode.${mode}.registrations`} value={registrations} text={count(registrations)} />,
              <Figure name={`travel.byMode.${mode}.distanceKm`} value={distanceKm} text={km(distanceKm)} />,
              <Figure name={`travel.byMode.${mode}.emissionsKg`} value={emissionsKg} text={kg(emissionsKg)} />,
            ])}
          />
        </>
      )}
      <h3>Staff</h3>
      {travel.staffByMode.length === 0 ? (
        <Empty>No staff travel recorded</Empty>
      ) : (
        <Table
          caption="Staff travel by mode"
          headers={["Mode", "Passenger-km", "Emissions (CO2e)"]}
          numeric={[1, 2]}
          rows={travel.staffByMode.map(({ mode, passengerKm, emissionsKg }) => [
            MODE_LABELS[mode] ?? mode,
            <Figure
              name={`travel.staffByMode.${mode}.passengerKm`}
              value={passengerKm}
              text={oneDecimal(passengerKm)}
            />,
            <Figure name={`travel.staffByMode.${mode}.emissionsKg`} value={emissionsKg} text={kg(emissionsKg)} />,
          ])}
        />
      )}
    </Section>
  );
}

function goalStatus(goal: SustainabilityReportDocument["goals"][number]): GoalStatus {
  if (!goal.set) return "not-set";
  if (goal.met === null) return "not-measurable";
  return goal.met ? "met" : "not-met";
}

function GoalsSection({ doc }: { doc: SustainabilityReportDocument }) {
  if (doc.goals.length === 0) {
    return (
      <Section id="goals" title="Goals">
        <Empty>No goals</Empty>
      </Section>
    );
  }
  const rows = doc.goals.map((goal) => {
    const status = goalStatus(goal);
    const metrics = Object.entries(goal.metrics);
    const { label, rule } = GOALS[goal.type];
    return [
      label,
      // The status beside the goal's name, where a phone shows it without scrolling the table.
      <span class={`goal ${status}`} data-goal={goal.type} data-status={status}>
        {GOAL_STATUS_TEXT[status]}
      </span>,
      rule,
      goal.target === null ? (
        "—"
      ) : (
        <Figure
          name={`goals.${goal.type}.target`}
          value={goal.target}
          text={goal.type === "waste_reduction" ? pct(goal.target) : upToOne(goal.target)}
        />
      ),
      metrics.length === 0 ? (
        "—"
      ) : (
        <ul class="metrics">
          {metrics.map(([key, value]) => (
            <li key={key}>
              {`${metricWords(key)}: `}
              <Figure name={`goals.${goal.type}.metrics.${key}`} value={value} text={metricText(key, value)} />
            </li>
          ))}
        </ul>
      ),
    ];
  });
  return (
    <Section id="goals" title="Goals">
      <Table
        caption="Sustainability goals"
        headers={["Goal", "Status", "Met when", "Target", "Figures"]}
        numeric={[3]}
        rows={rows}
      />
      <p class="note">Not measurable: the goal is set, but nothing is recorded to judge it by.</p>
    </Section>
  );
}

function MethodologySection({ doc }: { doc: SustainabilityReportDocument }) {
  const { methodology, factors } = doc;
  const set = methodology.emissionFactors;
  return (
    <Section id="methodology" title="Methodology">
      <p>
        Emission factor set: <strong>{set.name}</strong>,{" "}
        <Figure name="methodology.emissionFactors.year" value={set.year} text={String(set.year)} />
        {`; source: ${set.source}. Offsets are priced at `}
        <Figure
          name="methodology.offsetPriceUsdPerTonne"
          value={methodology.offsetPriceUsdPerTonne}
          text={usd(methodology.offsetPriceUsdPerTonne)}
        />{" "}
        per tonne CO2e.
      </p>
      <ul>
        <li>
          Each record's emissions are its quantity times its factor (kg CO2e per the record's unit); attendee travel is
          each registration's distance times its mode's factor.
        </li>
        <li>
          Scopes follow the GHG Protocol: 1 for fuels burned on site, 2 for purchased electricity (location-based), 3
          for everything else, attendee and staff travel included.
        </li>
        <li>
          Per attendee: the total divided by the active registrations. Measured data: the share of activity emissions
          from records measured rather than estimated.
        </li>
        <li>
          Waste diversion rate: waste not landfilled or incinerated over all waste; recycling rate: recycling over all
          waste. Renewable share: kWh from a renewable tariff or on-site generation over all electricity.
        </li>
      </ul>
      {factors.length === 0 ? (
        <Empty>No factor was used</Empty>
      ) : (
        <Table
          caption="Emission factors used"
          headers={["Kind", "Factor", "Value", "Unit", "Source", "Year", "Records"]}
          numeric={[2, 5, 6]}
          rows={factors.map((factor, index) => [
            KIND_LABELS[factor.kind],
            factor.name,
            <Figure name={`factors.${index}.value`} value={factor.value} text={factorValue(factor.value)} />,
            factor.unit,
            <span class="any">{factor.source}</span>,
            <Figure name={`factors.${index}.year`} value={factor.year} text={String(factor.year)} />,
            <Figure name={`factors.${index}.records`} value={factor.records} text={count(factor.records)} />,
          ])}
        />
      )}
    </Section>
  );
}

/**
 * The printable HTML page of a sustainability report: a complete HTML5 document (A4 print
 * styles, inline SVG charts with a table of their figures each, the goals and the methodology
 * with every factor used), rendered by Preact, which escapes every text of the document.
 *
 * @example
 * const html = renderReportPage(report);
 * return new Response(html, {
 *   headers: { "content-type": "text/html; charset=utf-8", "content-security-policy": REPORT_PAGE_CSP },
 * });
 */
export function renderReportPage(doc: SustainabilityReportDocument): string {
  return renderDocument({
    title: `Sustainability report: ${doc.event.name}`,
    style: REPORT_STYLE,
    csp: REPORT_PAGE_CSP,
    children: (
      <>
        <Header doc={doc} />
        <main>
          <Summary doc={doc} />
          <FootprintSection doc={doc} />
          <WasteSection doc={doc} />
          <EnergySection doc={doc} />
          <TravelSection doc={doc} />
          <GoalsSection doc={doc} />
          <MethodologySection doc={doc} />
        </main>
        <footer>
          Event Service sustainability report for event <code>{doc.event.id}</code>
          {`, generated ${localDateTime(doc.generatedAt, doc.event.timeZone)}. All emissions in kg CO2e.`}
        </footer>
      </>
    ),
  });
}
