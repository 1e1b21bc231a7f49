/**
 * Time zones and local times, for what people read: an event's `timeZone` checked against the
 * runtime's `Intl`, and its date-times written in it with the zone's abbreviation or offset
 * ("1 May 2027, 09:00 CEST"). The API's own date-times stay UTC.
 */

let known: Map<string, string> | undefined;

/** The runtime's IANA names by their lower-case form, built once. */
function knownZones(): Map<string, string> {
  known ??= new Map(["UTC", ...Intl.supportedValuesOf("timeZone")].map((name) => [name.toLowerCase(), name]));
  return known;
}

/**
 * The spelling to keep of an IANA time zone name the runtime knows (`Europe/Berlin`, `UTC`,
 * `Etc/GMT-2`, and older aliases such as `Asia/Calcutta`), matched whatever its case; `null` for
 * anything else, offsets such as `+02:00` included (they follow no daylight-saving rule).
 */
export function canonicalTimeZone(name: string): string | null {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name) || name.length > 64) return null;
  const listed = knownZones().get(name.toLowerCase());
  if (listed) return listed;
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat("en-GB", { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
  return resolved.toLowerCase() === name.toLowerCase() ? resolved : name;
}

const formats = new Map<string, Intl.DateTimeFormat>();

function formatIn(timeZone: string): Intl.DateTimeFormat {
  let format = formats.get(timeZone);
  if (!format) {
    // en-GB names a zone by its abbreviation where one is in common use (CEST, BST), else its offset (GMT-4).
    format = new Intl.DateTimeFormat("en-GB", {
      timeZone,
      day: "numeric",
      month: "short",
      year: "numeric",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
      timeZoneName: "short",
    });
    formats.set(timeZone, format);
  }
  return format;
}

/**
 * An instant as a person reads it in `timeZone` (an IANA name as {@link canonicalTimeZone}
 * keeps it), with the zone's abbreviation or offset; in UTC, labelled, when `timeZone` is null.
 * A text that is no date-time is given back as it is.
 *
 * @example
 * localDateTime("2027-05-01T07:00:00.000Z", "Europe/Berlin"); // "1 May 2027, 09:00 CEST"
 * localDateTime("2027-01-15T07:00:00.000Z", "Europe/Berlin"); // "15 Jan 2027, 08:00 CET"
 * localDateTime("2027-05-01T07:00:00.000Z", null); // "1 May 2027, 07:00 UTC"
 */
export function localDateTime(timestamp: string, timeZone: string | null): string {
  const time = Date.parse(timestamp);
  if (Number.isNaN(time)) return timestamp;
  const parts: Record<string, string> = {};
  for (const { type, value } of formatIn(timeZone ?? "UTC").formatToParts(time)) parts[type] = value;
  // Assembled from the parts, so the text is the same whatever punctuation the runtime's locale data uses.
  const zone = timeZone === null ? "UTC" : parts.timeZoneName;
  return `${parts.day} ${parts.month} ${parts.year}, ${parts.hour}:${parts.minute} ${zone}`;
}
