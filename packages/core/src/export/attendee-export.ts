import * as z from "zod";
import { Attendee, type AttendeeRecord } from "../resources/attendee.ts";
import { csvList, csvRecord } from "./csv.ts";

/** The formats of `GET /events/:id/attendees/export`. */
export const EXPORT_FORMATS = ["csv", "ndjson"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** Query of `GET /events/:id/attendees/export`. */
export const AttendeeExportQuery = z.strictObject({
  format: z.enum(EXPORT_FORMATS).default("csv").meta({
    description: "`csv` (default): a header row and one row a registration; `ndjson`: one attendee object a line.",
  }),
});
export type AttendeeExportQuery = z.output<typeof AttendeeExportQuery>;

/** Where a page of an export starts: after this registration, in registration order. */
export interface ExportCursor {
  registrationDate: string;
  id: string;
}

/** Reads the next page of the event's registrations after `cursor` (from the first when `null`), in registration order. */
export type ExportPageReader = (cursor: ExportCursor | null, limit: number) => Promise<AttendeeRecord[]>;

/** A CSV column: its header, a dotted path into the attendee, and how the value is written. */
interface Column {
  header: string;
  path: string[];
  /** `list`: an array joined with `;` ({@link csvList}); `json`: a free-form object as JSON; `value`: as text. */
  kind: "value" | "list" | "json";
}

/** The schema inside `optional`/`nullable` wrappers. */
function unwrap(schema: z.ZodType): z.ZodType {
  let inner = schema;
  while (inner instanceof z.ZodOptional || inner instanceof z.ZodNullable) inner = inner.unwrap() as z.ZodType;
  return inner;
}

/**
 * The columns of an API object's schema, in its order: nested objects flattened with dots
 * (`carbonOffset.opted`), so the export follows the API's shape without a list of its own.
 */
function columnsOf(schema: z.ZodObject, prefix: string[] = []): Column[] {
  return Object.entries(schema.shape).flatMap(([key, field]) => {
    const path = [...prefix, key];
    const inner = unwrap(field as z.ZodType);
    if (inner instanceof z.ZodObject) return columnsOf(inner, path);
    const kind = inner instanceof z.ZodArray ? "list" : inner instanceof z.ZodRecord ? "json" : "value";
    return [{ header: path.join("."), path, kind }];
  });
}

/**
 * The CSV columns of a registration: the fields of the API's `Attendee`, but the payment's client
 * secret, which only the buyer's own answers carry, and the ticket link, which only the answers
 * that make one carry.
 */
export const ATTENDEE_EXPORT_COLUMNS: readonly Column[] = columnsOf(Attendee).filter(
  (column) => column.header !== "payment.clientSecret" && column.header !== "ticketUrl",
);

function cell(attendee: Attendee, column: Column): string {
  let value: unknown = attendee;
  for (const key of column.path)
    value = value === null || value === undefined ? undefined : (value as Record<string, unknown>)[key];
  if (value === null || value === undefined) return "";
  if (column.kind === "list") return csvList(value as unknown[]);
  if (column.kind === "json") return JSON.stringify(value);
  return String(value);
}

/** The CSV header row. */
export const ATTENDEE_CSV_HEADER = csvRecord(ATTENDEE_EXPORT_COLUMNS.map((column) => column.header));

/** One registration as a CSV row. */
export function attendeeCsvRow(attendee: Attendee): string {
  return csvRecord(ATTENDEE_EXPORT_COLUMNS.map((column) => cell(attendee, column)));
}

/** Registrations read per page: one query's worth, held in memory while it is written out. */
export const EXPORT_PAGE_SIZE = 500;

/**
 * The export as a byte stream that reads a page from the store only when its reader asks for
 * more (`highWaterMark` 0): a slow client holds back the reads, so memory stays at about one
 * page whatever the size of the event. Pages follow the registration order by keyset, so a
 * registration made while the export runs is included when it sorts after the cursor; it is
 * not a snapshot.
 */
export function attendeeExportStream(
  readPage: ExportPageReader,
  format: ExportFormat,
  toApi: (record: AttendeeRecord) => Attendee,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let cursor: ExportCursor | null = null;
  let first = true;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const page = await readPage(cursor, EXPORT_PAGE_SIZE);
        let text = first && format === "csv" ? ATTENDEE_CSV_HEADER : "";
        first = false;
        for (const record of page) {
          const attendee = toApi(record);
          text += format === "csv" ? attendeeCsvRow(attendee) : `${JSON.stringify(attendee)}\n`;
        }
        if (text !== "") controller.enqueue(encoder.encode(text));
        const last = page.at(-1);
        if (page.length < EXPORT_PAGE_SIZE || !last) return controller.close();
        cursor = { registrationDate: last.registrationDate, id: last.id };
      },
    },
    { highWaterMark: 0 },
  );
}

/** The media type of each format. */
export const EXPORT_MEDIA_TYPES: Readonly<Record<ExportFormat, string>> = {
  csv: "text/csv; charset=utf-8",
  ndjson: "application/x-ndjson",
};
