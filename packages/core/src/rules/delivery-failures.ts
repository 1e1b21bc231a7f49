/** Consecutive failed attempts after which a webhook is disabled (docs/api.md, Webhook delivery). */
export const DISABLE_AFTER_FAILURES = 10;

/** A webhook's failure count: its consecutive failures, and when its latest counted success began. */
export interface FailureCount {
  consecutiveFailures: number;
  /** UTC ISO text (fixed width, so text order is time order); null before the first success. */
  lastSuccessStartedAt: string | null;
}

/** An attempt of a delivery that counts towards its webhook's failures (pings never do). */
export interface CountedAttempt {
  startedAt: string;
  succeeded: boolean;
  /** The receiver answered `410 Gone`: the webhook is disabled at once. */
  gone: boolean;
}

/** What {@link countAttempts} decided. */
export interface FailureCountResult {
  count: FailureCount;
  /** The index (in the attempts given) of the attempt that disables the webhook, or `null` when it stays as it is. */
  disabledBy: number | null;
}

/**
 * Counts attempts towards a webhook's consecutive failures in the order they began, not the
 * order they are recorded (migration 0014): the latest success that began after the counted one
 * resets the count to 0 and becomes the latest; a failure adds one only if it began after the
 * latest success. So a burst's stragglers, failures that began before a success recorded
 * earlier, do not count. (A success resets the count even when failures that began after it were
 * recorded first: the count may come out lower than a strict count in start order, never higher.)
 *
 * An active webhook is disabled by a `410` answer, whenever it began, or when a failure just
 * counted brings the count to `disableAfter`; it is reported on the 410, else on the latest failure.
 */
export function countAttempts(
  current: FailureCount & { active: boolean },
  attempts: readonly CountedAttempt[],
  disableAfter: number = DISABLE_AFTER_FAILURES,
): FailureCountResult {
  const order = attempts
    .map((attempt, index) => ({ attempt, index }))
    .sort((a, b) => (a.attempt.startedAt < b.attempt.startedAt ? -1 : 1));
  let { consecutiveFailures, lastSuccessStartedAt } = current;
  const began = (startedAt: string) => lastSuccessStartedAt === null || lastSuccessStartedAt < startedAt;
  const latestSuccess = order.filter(({ attempt }) => attempt.succeeded).at(-1);
  if (latestSuccess && began(latestSuccess.attempt.startedAt)) {
    consecutiveFailures = 0;
    lastSuccessStartedAt = latestSuccess.attempt.startedAt;
  }
  const failures = order.filter(({ attempt }) => !attempt.succeeded);
  let countedAny = false;
  for (const { attempt } of failures) {
    if (!began(attempt.startedAt)) continue;
    consecutiveFailures += 1;
    countedAny = true;
  }
  const gone = failures.find(({ attempt }) => attempt.gone);
  const disable = current.active && (gone !== undefined || (countedAny && consecutiveFailures >= disableAfter));
  return {
    count: { consecutiveFailures, lastSuccessStartedAt },
    disabledBy: disable ? (gone ?? failures.at(-1)!).index : null,
  };
}
