import { randomBytes } from "node:crypto";
import { coalesced } from "./_internal/coalesced.ts";
import { DISABLE_AFTER_FAILURES } from "./rules/delivery-failures.ts";
import { DEFAULT_RETRY_DELAYS_MS } from "./rules/delivery-status.ts";
import { createBatchRecorder } from "./service/record-batches.ts";
import type { DeliveryStore } from "./storage/delivery-store.ts";
import type { TransactionStore } from "./storage/transaction.ts";
import type { ClaimedDelivery } from "./resources/webhook-delivery.ts";
import {
  type AttemptDeliveryOptions,
  attemptDelivery,
  DEFAULT_WEBHOOK_TIMEOUT_MS,
  DELIVERY_LEASE_MARGIN_MS,
} from "./webhooks/attempt-delivery.ts";
import type { AttemptOutcome } from "./webhooks/send-delivery.ts";
import { DeliverySlots } from "./webhooks/slots.ts";
import type { HostResolver } from "./webhooks/ssrf.ts";

/** Options of {@link createDeliveryWorker}. */
export interface DeliveryWorkerOptions {
  storage: Pick<DeliveryStore, "claimDueDeliveries"> & Pick<TransactionStore, "transaction">;
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
  onAttempt?: (info: {
    deliveryId: string;
    webhookId: string;
    type: string;
    attempt: AttemptOutcome["attempt"];
    final: boolean;
    webhookDisabled: boolean;
  }) => void;
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
  const timeoutMs = options.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
  const concurrency = options.concurrency ?? 64;
  const pollIntervalMs = options.pollIntervalMs ?? 500;
  const clock = options.now ?? (() => new Date());
  const workerId = options.workerId ?? `worker_${randomBytes(8).toString("hex")}`;
  const onError = options.onError ?? (() => {});
  const attemptOptions: AttemptDeliveryOptions = {
    // The attempts that end together are recorded with one commit.
    record: createBatchRecorder(storage, DISABLE_AFTER_FAILURES),
    workerId,
    retryDelaysMs: options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS,
    timeoutMs,
    allowPrivateNetworks: options.allowPrivateNetworks ?? false,
    resolveHost: options.resolveHost,
    fetch: options.fetch,
    now: clock,
  };

  const slots = new DeliverySlots({
    total: concurrency,
    perWebhook: options.perWebhookConcurrency ?? 16,
    perAccount: options.perAccountConcurrency ?? Math.ceil(concurrency / 2),
  });
  const inFlight = new Set<Promise<void>>();
  const claims = coalesced(claimDue, onError);
  let timer: ReturnType<typeof setInterval> | undefined;
  let started = false;
  let stopping = false;

  /** One claim as large as the slots allow; true when it was full, so more may be due. */
  async function claimDue(): Promise<boolean> {
    if (stopping) return false;
    const room = slots.claimRoom();
    if (room.limit <= 0) return false;
    const now = clock();
    const claimed = await storage.claimDueDeliveries({
      workerId,
      now: now.toISOString(),
      leaseUntil: new Date(now.getTime() + timeoutMs + DELIVERY_LEASE_MARGIN_MS).toISOString(),
      ...room,
    });
    // Claimed deliveries are sent even when stopping began meanwhile: they are leased to us.
    for (const delivery of claimed) send(delivery);
    return claimed.length === room.limit;
  }

  function send(delivery: ClaimedDelivery) {
    slots.take(delivery);
    const attempt: Promise<void> = attemptDelivery(delivery, attemptOptions)
      .then(({ outcome, next, recorded, webhookDisabled }) => {
        if (!recorded) return;
        options.onAttempt?.({
          deliveryId: delivery.id,
          webhookId: delivery.webhookId,
          type: delivery.type,
          attempt: outcome.attempt,
          final: next === null,
          webhookDisabled,
        });
      })
      .catch(onError)
      .finally(() => {
        inFlight.delete(attempt);
        // A freed slot: look (this is what a deferred wake-up waits for), unless the slot's
        // webhook, account or worker is still closed: its refill waits for a quarter of its slots.
        if (slots.give(delivery) && started && !stopping) claims.request();
      });
    inFlight.add(attempt);
  }

  return {
    workerId,
    start() {
      if (started) return;
      started = true;
      timer = setInterval(claims.request, pollIntervalMs);
      claims.request();
    },
    wake() {
      // While a receiver is closed, the due backlog is mostly its own, and a look would scan it for
      // nothing once per queued change (every registration wakes the worker). The look is left to
      // an attempt that ends, or at the latest to the poll interval.
      if (started && !stopping && !slots.anyKeyClosed) claims.request();
    },
    async stop() {
      stopping = true;
      if (timer) clearInterval(timer);
      await claims.idle();
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
  };
}
