/**
 * A small iCalendar (RFC 5545) writer for one event: text values escaped (3.3.11), lines folded
 * at 75 octets without splitting a UTF-8 character (3.1), CRLF line endings, times in UTC.
 */

/** One `VEVENT`: its text values as they are (they are escaped here), its times as ISO 8601. */
export interface CalendarEvent {
  uid: string;
  /** When the file was made. */
  stamp: string;
  start: string;
  end: string;
  summary: string;
  location?: string;
  /** `CANCELLED` for an event called off; left out otherwise. */
  status?: "CONFIRMED" | "CANCELLED";
}

/** A TEXT value escaped: backslash, semicolon, comma, and line breaks as `\n`. */
export function escapeText(value: string): string {
  return value.replace(/[\\;,]/g, (c) => `\\${c}`).replace(/\r\n|\r|\n/g, "\\n");
}

/** An ISO 8601 time as a UTC DATE-TIME: `20380501T070000Z`. */
export function utcDateTime(iso: string): string {
  return new Date(iso)
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");
}

const encoder = new TextEncoder();

/** A content line folded into lines of at most 75 octets, each continuation starting with a space. */
export function foldLine(line: string): string {
  if (encoder.encode(line).length <= 75) return line;
  const parts: string[] = [];
  let part = "";
  let octets = 0;
  for (const char of line) {
    const size = encoder.encode(char).length;
    // The first line holds 75 octets; a continuation's leading space takes one of its 75.
    const room = parts.length === 0 ? 75 : 74;
    if (octets + size > room) {
      parts.push(part);
      part = "";
      octets = 0;
    }
    part += char;
    octets += size;
  }
  parts.push(part);
  return parts.join("\r\n ");
}

/** A calendar holding `event` alone, as the text of a `.ics` file. */
export function calendarOf(event: CalendarEvent, productId: string): string {
  const lines = [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    `PRODID:${productId}`,
    "CALSCALE:GREGORIAN",
    "METHOD:PUBLISH",
    "BEGIN:VEVENT",
    `UID:${escapeText(event.uid)}`,
    `DTSTAMP:${utcDateTime(event.stamp)}`,
    `DTSTART:${utcDateTime(event.start)}`,
    `DTEND:${utcDateTime(event.end)}`,
    `SUMMARY:${escapeText(event.summary)}`,
    ...(event.location ? [`LOCATION:${escapeText(event.location)}`] : []),
    ...(event.status ? [`STATUS:${event.status}`] : []),
    "END:VEVENT",
    "END:VCALENDAR",
  ];
  return `${lines.map(foldLine).join("\r\n")}\r\n`;
}
