import { randomBytes } from "node:crypto";
import type { ClaimedDelivery } from "../resources/webhook-delivery.ts";
import type { DeliveryStore } from "../storage/delivery-store.ts";
import { type AttemptOutcome, sendDelivery, type SendDeliveryOptions } from "./send-delivery.ts";
import { recordInBatches } from "./record-batches.ts";
import { Slots } from "./slots.ts";
import type { HostResolver } from "./ssrf.ts";

/** The waits before each retry: immediately, then after 1 min, 10 min and 1 h (DECISIONS). */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [0, 60_000, 600_000, 3_600_000];
/** The receiver must answer within 5 s (spec 6.4). */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 5_000;
/**
 * How much longer than the schedule a receiver's `Retry-After` may make a retry wait: 1 hour.
 * A receiver cannot push its retries into the far future (or past the year 9999, where the
 * date becomes invalid) and so wedge its deliveries.
 */
export const MAX_RETRY_AFTER_EXTRA_MS = 3_600_000;
/** Consecutive failed attempts after which a webhook is disabled (spec 3.3). */
export const DISABLE_AFTER_FAILURES = 10;
/**
 * How much longer than an attempt's timeout a lease on a delivery lasts: it outlives the attempt
 * (timeout plus recording) with a wide margin, so only a crashed worker's lease runs out.
 */
export const LEASE_MARGIN_MS = 30_000;

/** Options of {@link createDeliveryWorker}. */
export interface DeliveryWorkerOptions {
  storage: Pick<DeliveryStore, "claimDueDeliveries" | "recordDeliveryAttempts">;
  /** Waits before the 1st, 2nd, ... retry of a failed delivery; its length is the number of retries. */
  retryDelaysMs?: readonly number[];
  /** Per attempt. Default 5,000. */
  timeoutMs?: number;
  /** Skip the SSRF guard before each attempt (tests, private networks). Default false. */
  allowPrivateNetworks?: boolean;
  resolveHost?: HostResolver;
  /** How often to look for work written by other processes. Default 500 ms. */
  pollIntervalMs?: number;
  /** Attempts in flight at once, over all webhooks. Default 64. */
  concurrency?: number;
  /** Attempts in flight at once to one webhook, so one slow receiver cannot hold every slot. Default 16. */
  perWebhookConcurrency?: number;
  /**
   * Attempts in flight at once to one account's webhooks, so one account's slow receivers cannot
   * hold every slot: the others always find free slots. Default half of `concurrency` (rounded
   * up), 32 of the default 64.
   */
  perAccountConcurrency?: number;
  /** This worker's name in the leases; random by default. */
  workerId?: string;
  fetch?: typeof globalThis.fetch;
  now?: () => Date;
  /** Called after each recorded attempt (ids, type and result only: never the secret or the payload). */
  onAttempt?: (info: { deliveryId: string; webhookId: string; type: string; attempt: AttemptOutcome["attempt"]; final: boolean; webhookDisabled: boolean }) => void;
  /** Called with errors of the store (the worker keeps polling). */
  onError?: (error: unknown) => void;
}

/** A running delivery worker. */
export interface DeliveryWorker {
  readonly workerId: string;
  /** Starts polling; idempotent. */
  start(): void;
  /**
   * Looks for due work now (after a commit in this process); cheap and coalesced. While a webhook
   * or an account is at its bound of attempts in flight, until a quarter of its slots are free,
   * the look waits for an attempt to end (at most the poll interval).
   */
  wake(): void;
  /** Stops claiming and resolves once the attempts in flight are sent and recorded. */
  stop(): Promise<void>;
}

/**
 * When the attempt after `attempt` is due, or `null` when the delivery is final: after a
 * success, a `410`, the last attempt of a redelivery or ping, or the last retry of the
 * schedule. A `Retry-After` of a 429/503 is honoured when it asks for more than the schedule,
 * up to the schedule's delay plus {@link MAX_RETRY_AFTER_EXTRA_MS}.
 */
export function nextAttemptAt(delivery: Pick<ClaimedDelivery, "finalAttempt">, outcome: AttemptOutcome, retryDelaysMs: readonly number[], now: Date): Date | null {
  const { number, succeeded } = outcome.attempt;
  if (succeeded || outcome.gone) return null;
  if (delivery.finalAttempt !== null && number >= delivery.finalAttempt) return null;
  const delay = retryDelaysMs[number - 1];
  if (delay === undefined) return null;
  const asked = Math.min(outcome.retryAfterMs ?? 0, delay + MAX_RETRY_AFTER_EXTRA_MS);
  return new Date(now.getTime() + Math.max(delay, asked));
}

/** Options of {@link attemptDelivery}. */
export interface AttemptDeliveryOptions extends Omit<SendDeliveryOptions, "now"> {
  storage: Pick<DeliveryStore, "recordDeliveryAttempt">;
  /** Who holds the delivery's lease. */
  workerId: string;
  /** The retry schedule ({@link nextAttemptAt}); empty: the attempt is final. */
  retryDelaysMs: readonly number[];
  /** Consecutive failures that disable the webhook. */
  disableAfter: number;
  now: () => Date;
}

/** What {@link attemptDelivery} did: the attempt, when the next is due (`null`: final), and what recording it changed. */
export interface AttemptResult {
  outcome: AttemptOutcome;
  next: Date | null;
  recorded: boolean;
  webhookDisabled: boolean;
}

/**
 * Sends one attempt of a delivery that `workerId` holds and records it, releasing the lease: the
 * next attempt is scheduled by `retryDelaysMs`, and a `410 Gone` disables the webhook. The one
 * send-and-record of the worker and of pings (whose failures the storage never counts).
 */
export async function attemptDelivery(delivery: ClaimedDelivery, options: AttemptDeliveryOptions): Promise<AttemptResult> {
  const outcome = await sendDelivery(delivery, {
    timeoutMs: options.timeoutMs,
    allowPrivateNetworks: options.allowPrivateNetworks,
    resolveHost: options.resolveHost,
    fetch: options.fetch,
    now: options.now,
  });
  const now = options.now();
  const next = nextAttemptAt(delivery, outcome, options.retryDelaysMs, now);
  const result = await options.storage.recordDeliveryAttempt({
    deliveryId: delivery.id,
    workerId: options.workerId,
    attempt: outcome.attempt,
    nextAttemptAt: next?.toISOString() ?? null,
    disable: outcome.gone,
    disableAfter: options.disableAfter,
    now: now.toISOString(),
  });
  return { outcome, next, ...result };
}

/**
 * Creates the worker that sends the outbox's due deliveries. Several workers (in one or in
 * several processes on one database) share the work: each claims deliveries under a lease, so
 * no attempt is sent twice, and a crashed worker's deliveries are taken up after its lease.
 *
 * @example
 * const worker = createDeliveryWorker({ storage });
 * worker.start();
 * const service = createEventService({ storage, webhooks: { onQueued: worker.wake } });
 * // on shutdown, before closing the store:
 * await worker.stop();
 */
export function createDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { storage } = options;
  const retryDelaysMs = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
  const timeoutMs = options.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
  const concurrency = options.concurrency ?? 64;
  const perWebhook = options.perWebhookConcurrency ?? 16;
  const perAccount = options.perAccountConcurrency ?? Math.ceil(concurrency / 2);
  const pollIntervalMs = options.pollIntervalMs ?? 500;
  const clock = options.now ?? (() => new Date());
  const workerId = options.workerId ?? `worker_${randomBytes(8).toString("hex")}`;
  const leaseMs = timeoutMs + LEASE_MARGIN_MS;
  const onError = options.onError ?? (() => {});

  const byWebhook = new Slots(perWebhook);
  const byAccount = new Slots(perAccount);
  // The worker's own bound, under one key.
  const all = new Slots(concurrency);
  const attempts = new Set<Promise<void>>();
  // The attempts that end together are recorded with one commit.
  const recorder = { recordDeliveryAttempt: recordInBatches(storage) };
  let timer: ReturnType<typeof setInterval> | undefined;
  let started = false;
  let stopping = false;
  let polling: Promise<void> | undefined;
  let again = false;

  async function attempt(delivery: ClaimedDelivery): Promise<void> {
    const { outcome, next, ...result } = await attemptDelivery(delivery, {
      storage: recorder,
      workerId,
      retryDelaysMs,
      disableAfter: DISABLE_AFTER_FAILURES,
      timeoutMs,
      allowPrivateNetworks: options.allowPrivateNetworks ?? false,
      resolveHost: options.resolveHost,
      fetch: options.fetch,
      now: clock,
    });
    if (result.recorded) {
      options.onAttempt?.({
        deliveryId: delivery.id, webhookId: delivery.webhookId, type: delivery.type, attempt: outcome.attempt, final: next === null, webhookDisabled: result.webhookDisabled,
      });
    }
  }

  function launch(delivery: ClaimedDelivery) {
    all.take("");
    byWebhook.take(delivery.webhookId);
    byAccount.take(delivery.accountId);
    const running: Promise<void> = attempt(delivery)
      .catch(onError)
      .finally(() => {
        all.give("");
        byWebhook.give(delivery.webhookId);
        byAccount.give(delivery.accountId);
        attempts.delete(running);
        // A freed slot: look (this is what a deferred wake-up waits for), unless the slot's
        // webhook, account or worker is still full: its refill waits for a quarter of its slots.
        const refilling = byWebhook.isFull(delivery.webhookId) || byAccount.isFull(delivery.accountId) || all.isFull("");
        if (started && !stopping && !refilling) poll();
      });
    attempts.add(running);
  }

  async function pollLoop(): Promise<void> {
    do {
      again = false;
      const free = all.room("");
      if (stopping || free <= 0) return;
      const now = clock();
      const claimed = await storage.claimDueDeliveries({
        workerId,
        now: now.toISOString(),
        leaseUntil: new Date(now.getTime() + leaseMs).toISOString(),
        limit: free,
        perWebhook,
        inFlight: byWebhook.counts(),
        perAccount,
        inFlightByAccount: byAccount.counts(),
      });
      // Claimed deliveries are sent even when stopping began meanwhile: they are leased to us.
      for (const delivery of claimed) launch(delivery);
      if (claimed.length === free) again = true;
    } while (again);
  }

  function poll() {
    if (polling) {
      again = true;
      return;
    }
    polling = pollLoop()
      .catch(onError)
      .finally(() => {
        polling = undefined;
        if (again && !stopping) poll();
      });
  }

  function wake() {
    // While a receiver is full, the due backlog is mostly its own, and a look would scan it for
    // nothing once per queued change (every registration wakes the worker). The look is left to
    // an attempt that ends, or at the latest to the poll interval.
    if (started && !stopping && !byWebhook.anyFull && !byAccount.anyFull) poll();
  }

  return {
    workerId,
    start() {
      if (started) return;
      started = true;
      timer = setInterval(poll, pollIntervalMs);
      poll();
    },
    wake,
    async stop() {
      stopping = true;
      if (timer) clearInterval(timer);
      await polling;
      while (attempts.size > 0) await Promise.all([...attempts]);
    },
  };
}
