import { ServiceError } from "../errors.ts";

/** Granularities of `GET /analytics/sustainability` (`total` means one figure for the whole range, no series). */
export const SUSTAINABILITY_GRANULARITIES = ["total", "daily", "weekly", "monthly"] as const;
export type SustainabilityGranularity = (typeof SUSTAINABILITY_GRANULARITIES)[number];

/** Granularities of `GET /analytics/trends`. */
export const TREND_GRANULARITIES = ["daily", "weekly", "monthly", "quarterly"] as const;

/** Every calendar period a series can be bucketed by. */
export const BUCKET_GRANULARITIES = ["daily", "weekly", "monthly", "quarterly"] as const;
export type BucketGranularity = (typeof BUCKET_GRANULARITIES)[number];

/** The longest series an analytics answer holds (more buckets is `INVALID_DATE_RANGE`). */
export const MAX_BUCKETS = 366;

/** One calendar period of a series, in UTC. */
export interface Bucket {
  /** The period's first day, `YYYY-MM-DD` (a Monday for weeks, the 1st for months, Jan/Apr/Jul/Oct 1st for quarters). */
  period: string;
  /** The period's first instant. */
  startDate: string;
  /** The period's last millisecond. */
  endDate: string;
}

/** Midnight UTC of a calendar day; `setUTCFullYear` because `Date.UTC` maps years 0..99 to 1900..1999. */
function utcDay(year: number, monthIndex: number, day: number): Date {
  const date = new Date(0);
  date.setUTCFullYear(year, monthIndex, day);
  return date;
}

/*
 * Timestamps stay within the years 0000 to 9999, but the week holding 0000-01-01 began in the
 * year -1 and the last periods of 9999 end in 10000: periods are clamped to these bounds, so
 * every label and date is a plain `YYYY-MM-DD…` (the SQL twin clamps the same way).
 */
const FIRST_MS = Date.parse("0000-01-01T00:00:00.000Z");
const LAST_MS = Date.parse("9999-12-31T23:59:59.999Z");
const clamp = (ms: number) => Math.min(LAST_MS, Math.max(FIRST_MS, ms));
const dayText = (ms: number) => new Date(clamp(ms)).toISOString().slice(0, 10);

/** The first instant of the period holding `ms`, unclamped. */
function periodStartMs(ms: number, granularity: BucketGranularity): number {
  const date = new Date(ms);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  switch (granularity) {
    case "daily":
      return utcDay(year, month, date.getUTCDate()).getTime();
    case "weekly":
      return utcDay(year, month, date.getUTCDate() - ((date.getUTCDay() + 6) % 7)).getTime();
    case "monthly":
      return utcDay(year, month, 1).getTime();
    case "quarterly":
      return utcDay(year, month - (month % 3), 1).getTime();
  }
}

/** The first instant of the period after the one starting at `startMs`, unclamped. */
function nextPeriodMs(startMs: number, granularity: BucketGranularity): number {
  const date = new Date(startMs);
  const [year, month, day] = [date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()];
  switch (granularity) {
    case "daily":
      return utcDay(year, month, day + 1).getTime();
    case "weekly":
      return utcDay(year, month, day + 7).getTime();
    case "monthly":
      return utcDay(year, month + 1, 1).getTime();
    case "quarterly":
      return utcDay(year, month + 3, 1).getTime();
  }
}

/**
 * The first day (`YYYY-MM-DD`) of the period holding the UTC instant `iso`: the day itself, the
 * Monday of its ISO week, the first of its month, or the first of its quarter (never before
 * 0000-01-01). The SQL twin is `bucketStartSql` in `sql/dialect.ts`; tests check they agree.
 */
export function bucketStart(iso: string, granularity: BucketGranularity): string {
  return dayText(periodStartMs(Date.parse(iso), granularity));
}

/**
 * Every period from the one holding `startDate` to the one holding `endDate` (UTC instants),
 * oldest first. Throws `INVALID_DATE_RANGE` when `startDate` is after `endDate` or when the
 * series would hold more than {@link MAX_BUCKETS} periods.
 */
export function enumerateBuckets(startDate: string, endDate: string, granularity: BucketGranularity): Bucket[] {
  assertDateOrder(startDate, endDate);
  const last = periodStartMs(Date.parse(endDate), granularity);
  const buckets: Bucket[] = [];
  for (let start = periodStartMs(Date.parse(startDate), granularity); start <= last; ) {
    if (buckets.length === MAX_BUCKETS) {
      throw new ServiceError("INVALID_DATE_RANGE", {
        message: `The range ${startDate} to ${endDate} holds more than ${MAX_BUCKETS} ${granularity} periods; narrow it or choose a coarser granularity.`,
        details: { startDate, endDate, granularity, maxBuckets: MAX_BUCKETS },
      });
    }
    const next = nextPeriodMs(start, granularity);
    buckets.push({
      period: dayText(start),
      startDate: new Date(clamp(start)).toISOString(),
      endDate: new Date(clamp(next - 1)).toISOString(),
    });
    start = next;
  }
  return buckets;
}

/** Throws `INVALID_DATE_RANGE` when both dates are given and `startDate` is after `endDate`. */
export function assertDateOrder(startDate: string | undefined, endDate: string | undefined): void {
  if (startDate !== undefined && endDate !== undefined && startDate > endDate) {
    throw new ServiceError("INVALID_DATE_RANGE", {
      message: `startDate (${startDate}) is after endDate (${endDate}).`,
      field: "startDate",
      details: { startDate, endDate },
    });
  }
}
