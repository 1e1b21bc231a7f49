import type { PurgeResult, StorageLifecycle } from "./storage/lifecycle-store.ts";
import { EMAIL_RETENTION_DAYS } from "./rules/emails.ts";

/** How long deliveries and their attempts are kept after their last activity (docs/api.md, Webhook delivery). */
export const DEFAULT_WEBHOOK_RETENTION_DAYS = 30;
/** How often the background purge runs by default. */
export const DEFAULT_PURGE_INTERVAL_MS = 10 * 60_000;

const DAY_MS = 86_400_000;

/** Options of {@link createBackgroundPurge}. */
export interface BackgroundPurgeOptions {
  storage: Pick<StorageLifecycle, "purgeExpired">;
  /**
   * Days a delivery (with its attempts) is kept after its last activity: its creation, its
   * latest attempt or redelivery. Default 30. 0 purges every final delivery at the next run.
   */
  webhookRetentionDays?: number;
  /** Time between runs. Default 10 minutes. */
  intervalMs?: number;
  /** The clock; tests may pin it. */
  now?: () => Date;
  /** Called after each run that removed anything, with what it removed. */
  onPurged?: (result: PurgeResult) => void;
  /** Called with errors of the store (the purge runs again at the next interval). */
  onError?: (error: unknown) => void;
}

/** A purge that runs on a timer of the host. */
export interface BackgroundPurge {
  /** Runs once now and then every interval; idempotent. The timer does not keep the process alive. */
  start(): void;
  /** Runs one purge now (the timer's runs are not overlapped) and returns what it removed. */
  run(): Promise<PurgeResult>;
  /** Stops the timer and waits for a run in progress. */
  stop(): Promise<void>;
}

/**
 * The moment before which a delivery's last activity makes it expired: `retentionDays` whole
 * days (of 24 hours) before `now`.
 */
export function retentionCutoff(now: Date, retentionDays: number): Date {
  return new Date(now.getTime() - retentionDays * DAY_MS);
}

/**
 * Creates the background purge of what is kept no longer: idempotency records past their
 * expiry, and webhook deliveries with their attempts whose last activity is older than the
 * retention and that will never be sent again (`Storage.purgeExpired`). A host starts it beside
 * the delivery worker and stops it before closing the store; several processes on one database
 * may each run one.
 *
 * @example
 * const purge = createBackgroundPurge({ storage, webhookRetentionDays: 30 });
 * purge.start();
 * // on shutdown, before closing the store:
 * await purge.stop();
 */
export function createBackgroundPurge(options: BackgroundPurgeOptions): BackgroundPurge {
  const { storage } = options;
  const retentionDays = options.webhookRetentionDays ?? DEFAULT_WEBHOOK_RETENTION_DAYS;
  if (!(Number.isFinite(retentionDays) && retentionDays >= 0))
    throw new RangeError("webhookRetentionDays must be a number of days, 0 or more");
  const intervalMs = options.intervalMs ?? DEFAULT_PURGE_INTERVAL_MS;
  const clock = options.now ?? (() => new Date());
  let timer: ReturnType<typeof setInterval> | undefined;
  let running: Promise<PurgeResult> | undefined;

  function run(): Promise<PurgeResult> {
    running ??= (async () => {
      try {
        const now = clock();
        const result = await storage.purgeExpired({
          now: now.toISOString(),
          deliveriesBefore: retentionCutoff(now, retentionDays).toISOString(),
          emailsBefore: retentionCutoff(now, EMAIL_RETENTION_DAYS).toISOString(),
        });
        if (result.idempotencyKeys + result.deliveries + result.emails > 0) options.onPurged?.(result);
        return result;
      } finally {
        running = undefined;
      }
    })();
    return running;
  }

  const runQuietly = () => {
    run().catch((error) => options.onError?.(error));
  };

  return {
    start() {
      if (timer) return;
      timer = setInterval(runQuietly, intervalMs);
      timer.unref?.();
      runQuietly();
    },
    run,
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running?.catch(() => {});
    },
  };
}
