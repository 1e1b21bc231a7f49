/**
 * The rate limit's counting: an account's requests are counted in a minute window and a day
 * window, each named by its first second (epoch seconds). Pure: the storage reads the stored
 * counts under the account's lock, asks here, and writes back what this returns.
 */

/** An account's stored counts: the windows they belong to and the requests counted in each. */
export interface WindowCounts {
  minuteStart: number;
  minute: number;
  dayStart: number;
  day: number;
}

/** Windows named by their first second (epoch seconds). */
interface Windows {
  minute: number;
  day: number;
}

/**
 * The counts after a reservation of `want` requests in `windows`: unspent requests of an earlier
 * reservation (`giveBack`) go back first, to the windows they were taken from (a window since
 * replaced gets nothing back); a newer window starts again at 0, while a reservation for an older
 * one counts in the stored ones; then as many requests as neither limit is passed by are granted.
 */
export function reserveInWindows(
  stored: WindowCounts,
  reservation: {
    windows: Windows;
    want: number;
    limits: { perMinute: number; perDay: number };
    giveBack?: { windows: Windows; count: number } | undefined;
  },
): WindowCounts & { granted: number } {
  const { windows, want, limits, giveBack } = reservation;
  let { minuteStart, minute, dayStart, day } = stored;
  if (giveBack && giveBack.count > 0) {
    if (giveBack.windows.minute === minuteStart) minute = Math.max(0, minute - giveBack.count);
    if (giveBack.windows.day === dayStart) day = Math.max(0, day - giveBack.count);
  }
  if (windows.minute > minuteStart) [minuteStart, minute] = [windows.minute, 0];
  if (windows.day > dayStart) [dayStart, day] = [windows.day, 0];
  const granted = Math.max(0, Math.min(want, limits.perMinute - minute, limits.perDay - day));
  return { minuteStart, minute: minute + granted, dayStart, day: day + granted, granted };
}
