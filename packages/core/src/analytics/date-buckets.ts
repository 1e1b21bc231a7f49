import { ServiceError } from "../errors.ts";

/** Granularities of `GET /analytics/sustainability` (`total` means one figure for the whole range, no series). */
export const SUSTAINABILITY_GRANULARITIES = ["total", "daily", "weekly", "monthly"] as const;
export type SustainabilityGranularity = (typeof SUSTAINABILITY_GRANULARITIES)[number];

/** Granularities of `GET /analytics/trends`. */
export const TREND_GRANULARITIES = ["daily", "weekly", "monthly", "quarterly"] as const;

/** Every calendar period a series can be bucketed by. */
export const BUCKET_GRANULARITIES = ["daily", "weekly", "monthly", "quarterly"] as const;
export type BucketGranularity = (typeof BUCKET_GRANULARITIES)[number];

/** The longest series an analytics answer holds (DECISIONS: more buckets is `INVALID_DATE_RANGE`). */
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

const dayText = (date: Date) => date.toISOString().slice(0, 10);

/**
 * The first day (`YYYY-MM-DD`) of the period holding the UTC instant `iso`: the day itself, the
 * Monday of its ISO week, the first of its month, or the first of its quarter. The SQL twin is
 * `bucketStartSql` in `sql/dialect.ts`; tests check they agree.
 */
export function bucketStart(iso: string, granularity: BucketGranularity): string {
  const date = new Date(iso);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  switch (granularity) {
    case "daily":
      return iso.slice(0, 10);
    case "weekly": {
      const sinceMonday = (date.getUTCDay() + 6) % 7;
      return dayText(utcDay(year, month, date.getUTCDate() - sinceMonday));
    }
    case "monthly":
      return dayText(utcDay(year, month, 1));
    case "quarterly":
      return dayText(utcDay(year, month - (month % 3), 1));
  }
}

/** The first day of the period after the one starting on `period`. */
function nextPeriod(period: string, granularity: BucketGranularity): string {
  const [year, month, day] = period.split("-").map(Number) as [number, number, number];
  switch (granularity) {
    case "daily":
      return dayText(utcDay(year, month - 1, day + 1));
    case "weekly":
      return dayText(utcDay(year, month - 1, day + 7));
    case "monthly":
      return dayText(utcDay(year, month, 1));
    case "quarterly":
      return dayText(utcDay(year, month + 2, 1));
  }
}

/**
 * Every period from the one holding `startDate` to the one holding `endDate` (UTC instants),
 * oldest first. Throws `INVALID_DATE_RANGE` when `startDate` is after `endDate` or when the
 * series would hold more than {@link MAX_BUCKETS} periods.
 */
export function enumerateBuckets(startDate: string, endDate: string, granularity: BucketGranularity): Bucket[] {
  assertDateOrder(startDate, endDate);
  const last = bucketStart(endDate, granularity);
  const buckets: Bucket[] = [];
  let period = bucketStart(startDate, granularity);
  while (period <= last) {
    if (buckets.length === MAX_BUCKETS) {
      throw new ServiceError("INVALID_DATE_RANGE", {
        message: `The range ${startDate} to ${endDate} holds more than ${MAX_BUCKETS} ${granularity} periods; narrow it or choose a coarser granularity.`,
        details: { startDate, endDate, granularity, maxBuckets: MAX_BUCKETS },
      });
    }
    const next = nextPeriod(period, granularity);
    buckets.push({ period, startDate: `${period}T00:00:00.000Z`, endDate: new Date(Date.parse(`${next}T00:00:00.000Z`) - 1).toISOString() });
    period = next;
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
