import { documentHeaders } from "../_internal/document-headers.ts";
import { onFirstUse } from "../_internal/on-first-use.ts";
import { EventAnalytics } from "../analytics/event-analytics.ts";
import { SustainabilityReportDocument } from "../analytics/report-document.ts";
import { SustainabilityQuery, SustainabilityReport } from "../analytics/sustainability-report.ts";
import { TrendQuery, TrendReport } from "../analytics/trend-report.ts";
import { EmissionFactorSetResponse } from "../carbon/emission-factors.ts";
import { EmissionFactorsQuery } from "../analytics/emission-factors-query.ts";
import { accountOperation } from "./context.ts";

/** The printable report's renderer (Preact and the page's charts), loaded by the first report a browser asks for. */
const loadReportPage = onFirstUse(() => import("../analytics/report-page.tsx"));

/**
 * Whether an `Accept` header asks for HTML before JSON: `text/html` listed with a quality above 0
 * and at least that of `application/json` (a browser's header does; `*\/*` alone does not).
 */
export function prefersHtml(accept: string | null): boolean {
  if (!accept) return false;
  const quality = (type: string) => {
    for (const part of accept.split(",")) {
      const [name, ...params] = part.trim().toLowerCase().split(";");
      if (name?.trim() !== type) continue;
      const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
      const value = q === undefined ? 1 : Number(q.slice(2));
      return Number.isFinite(value) ? value : 0;
    }
    return null;
  };
  const html = quality("text/html");
  const json = quality("application/json");
  return html !== null && html > 0 && (json === null || html >= json);
}

/** The account's analytics, an event's sustainability report and the factor set in use. */
export const ANALYTICS_OPERATIONS = [
  accountOperation({
    id: "analytics.sustainability",
    method: "GET",
    path: "/analytics/sustainability",
    scope: "analytics:read",
    tag: "Analytics",
    operationId: "getSustainabilityAnalytics",
    summary:
      "Sustainability metrics across the account's events: footprint, waste, energy, adoption, certifications, trend, summary",
    query: SustainabilityQuery,
    response: {
      status: 200,
      schema: SustainabilityReport,
      name: "SustainabilityReport",
      description: "The sustainability report",
    },
    errors: ["INVALID_REQUEST", "INVALID_DATE_RANGE", "NOT_FOUND"],
    run: (account, { query }) => account.analytics.sustainability(query),
  }),
  accountOperation({
    id: "analytics.event",
    method: "GET",
    path: "/analytics/events/:id",
    scope: "analytics:read",
    tag: "Analytics",
    operationId: "getEventAnalytics",
    summary: "Analytics of one event: attendance, demographics, sustainability, engagement, financial, feedback",
    response: { status: 200, schema: EventAnalytics, name: "EventAnalytics", description: "The event's analytics" },
    errors: ["NOT_FOUND"],
    run: (account, { params }) => account.analytics.event(params.id),
  }),
  accountOperation({
    id: "analytics.report",
    client: "events.sustainabilityReport",
    method: "GET",
    path: "/events/:id/sustainability-report",
    scope: "events:read",
    tag: "Events",
    operationId: "getSustainabilityReport",
    summary:
      "The event's sustainability report: JSON, or with Accept: text/html a printable page (inline SVG charts, the methodology and every factor)",
    response: {
      status: 200,
      schema: SustainabilityReportDocument,
      name: "SustainabilityReportDocument",
      description: "The report (JSON unless the request's Accept prefers text/html)",
      jsonToo: true,
      media: {
        "text/html":
          "A printable HTML page of the same figures, loading nothing from another origin (Content-Security-Policy default-src 'none').",
      },
    },
    errors: ["NOT_FOUND"],
    run: (account, { params }) => account.analytics.report(params.id),
    respond: async (report, _input, request) => {
      if (!prefersHtml(request.headers.get("accept")))
        return { status: 200, body: report, headers: { vary: "accept" } };
      const { REPORT_PAGE_CSP, renderReportPage } = await loadReportPage();
      const page = new TextEncoder().encode(renderReportPage(report));
      // frame-ancestors holds in a header only (a meta tag cannot carry it).
      const headers = documentHeaders(`${REPORT_PAGE_CSP}; frame-ancestors 'none'`);
      return { status: 200, body: new Blob([page]).stream(), headers };
    },
  }),
  accountOperation({
    id: "analytics.trends",
    method: "GET",
    path: "/analytics/trends",
    scope: "analytics:read",
    tag: "Analytics",
    operationId: "getTrendAnalytics",
    summary:
      "Trend of one metric over time: data points, statistics, benchmark comparison, insights and recommendations",
    query: TrendQuery,
    response: { status: 200, schema: TrendReport, name: "TrendReport", description: "The trend analysis" },
    errors: ["INVALID_REQUEST", "INVALID_DATE_RANGE", "INSUFFICIENT_DATA"],
    run: (account, { query }) => account.analytics.trends(query),
  }),
  accountOperation({
    id: "analytics.emissionFactors",
    method: "GET",
    path: "/analytics/emission-factors",
    scope: "analytics:read",
    tag: "Analytics",
    operationId: "getEmissionFactors",
    summary:
      "The emission factor set of a year (default: the latest set): name, year, source, each travel mode's factor (by distance band) and unit, the activity factors",
    query: EmissionFactorsQuery,
    response: {
      status: 200,
      schema: EmissionFactorSetResponse,
      name: "EmissionFactorSet",
      description: "The factor set that prices the events of the year asked (each event is priced by its start's year)",
    },
    errors: ["INVALID_REQUEST"],
    run: (account, { query }) => account.analytics.emissionFactors(query),
  }),
];
