/**
 * CSV as RFC 4180 writes it: fields separated by commas, records ended by CRLF, a field quoted
 * when it holds a comma, a quote, CR or LF, with its quotes doubled. Spreadsheets run a cell
 * that starts with `=`, `+`, `-`, `@`, a tab or a carriage return as a formula (CSV injection),
 * so such a cell is written with a leading `'`, as OWASP advises. A list is one cell, its items
 * joined with `;`, a `;` or `\` inside an item escaped with `\`, so `["a;b", "c"]` and
 * `["a", "b", "c"]` stay apart.
 */

/** Characters that make a spreadsheet read a cell as a formula. */
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** One field, guarded against formulas and quoted when it must be. */
export function csvField(value: string): string {
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/**
 * One list cell: the items joined with `;`, each `;` and `\` inside an item preceded by `\`.
 * The formula guard then applies to the cell as a whole (in {@link csvField}).
 */
export function csvList(items: readonly unknown[]): string {
  return items.map((item) => String(item).replace(/[\\;]/g, "\\$&")).join(";");
}

/** One record: its fields, comma-separated, ended by CRLF. */
export function csvRecord(fields: readonly string[]): string {
  return `${fields.map(csvField).join(",")}\r\n`;
}
