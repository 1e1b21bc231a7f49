/**
 * The report's stylesheet: A4 pages with margins when printed, a column of readable width on a
 * screen, no sideways scrolling on a phone (a wide table scrolls in its own box), and the charts'
 * colours. Inlined in the page and allowed by its hash, so the page loads nothing else.
 */
export const REPORT_STYLE = `
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
