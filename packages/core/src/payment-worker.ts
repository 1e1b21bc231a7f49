import type { EventService } from "./service.ts";
import type { PaymentPass } from "./service/stripe-payments.ts";

/** How often the payment worker runs by default. */
export const DEFAULT_PAYMENT_INTERVAL_MS = 5_000;

/** Options of {@link createPaymentWorker}. */
export interface PaymentWorkerOptions {
  /** Time between passes. Default 5 s: a hold runs out, a refund is made at Stripe, within about that. */
  intervalMs?: number;
  /** Called after each pass that did anything, with what it did. */
  onPass?: (pass: PaymentPass) => void;
  /** Called with each error of a pass (its item is tried again at the next one). */
  onError?: (error: unknown) => void;
}

/** The payment worker: runs on a timer of the host. */
export interface PaymentWorker {
  /** Runs a pass now and then every interval; idempotent. The timer does not keep the process alive. */
  start(): void;
  /** Runs one pass now (the timer's passes are not overlapped) and returns what it did. */
  run(): Promise<PaymentPass>;
  /** Stops the timer and waits for a pass in progress. */
  stop(): Promise<void>;
}

const NOTHING: PaymentPass = { intentsMade: 0, holdsExpired: 0, refundsMade: 0, errors: [] };

/**
 * Creates the worker of Stripe payments (a no-op without Stripe): each pass makes the
 * PaymentIntents still missing (a promotion's, or one whose request failed), cancels the
 * registrations whose hold ran out unpaid (freeing their places) and makes the refunds decided
 * at Stripe. Several processes on one database may each run one: every item is decided again
 * under its event's lock, and Stripe's idempotency keys make a call made twice one call.
 *
 * @example
 * const payments = createPaymentWorker(service);
 * payments.start();
 * // on shutdown, before closing the store:
 * await payments.stop();
 */
export function createPaymentWorker(
  service: Pick<EventService, "stripe">,
  options: PaymentWorkerOptions = {},
): PaymentWorker {
  const intervalMs = options.intervalMs ?? DEFAULT_PAYMENT_INTERVAL_MS;
  if (!(Number.isFinite(intervalMs) && intervalMs > 0)) throw new RangeError("intervalMs must be a positive number");
  let timer: ReturnType<typeof setInterval> | undefined;
  let running: Promise<PaymentPass> | undefined;

  function run(): Promise<PaymentPass> {
    const stripe = service.stripe;
    if (!stripe) return Promise.resolve(NOTHING);
    running ??= (async () => {
      try {
        const pass = await stripe.runPass();
        for (const error of pass.errors) options.onError?.(error);
        if (pass.intentsMade + pass.holdsExpired + pass.refundsMade > 0) options.onPass?.(pass);
        return pass;
      } catch (error) {
        options.onError?.(error);
        return NOTHING;
      } finally {
        running = undefined;
      }
    })();
    return running;
  }

  return {
    start() {
      if (timer || !service.stripe) return;
      void run();
      timer = setInterval(() => void run(), intervalMs);
      timer.unref();
    },
    run,
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
