import { randomBytes } from "node:crypto";
import { coalesced } from "./_internal/coalesced.ts";
import {
  type ClaimedEmail,
  type EmailKind,
  type EmailStatus,
  type EmailTransport,
  redactAddresses,
} from "./resources/email.ts";
import { EMAIL_LEASE_MS, EMAIL_RETRY_DELAYS_MS, emailAfterAttempt } from "./rules/emails.ts";
import { composeEmail, type EmailSource } from "./service/email-sending.ts";
import type { EmailStore } from "./storage/email-store.ts";

/** Options of {@link createEmailWorker}. */
export interface EmailWorkerOptions {
  storage: EmailStore & EmailSource;
  transport: EmailTransport;
  /** The sender (`EMAIL_FROM`): an address, or `"Name <address>"`. */
  from: string;
  /** The base of the links in the emails (`<base>/v1/...`): the service's public URL. Read when each email is composed. */
  baseUrl: () => string;
  /** Waits before the 2nd, 3rd, ... attempt of an email that failed; its length is the number of retries. Default `EMAIL_RETRY_DELAYS_MS`. */
  retryDelaysMs?: readonly number[];
  /** How often to look for work written by other processes. Default 1,000 ms. */
  pollIntervalMs?: number;
  /** Emails in flight at once. Default 4. */
  concurrency?: number;
  /** How long a claimed email is this worker's: longer than the transport's own timeouts. Default `EMAIL_LEASE_MS`. */
  leaseMs?: number;
  /** This worker's name in the leases; random by default. */
  workerId?: string;
  now?: () => Date;
  /**
   * Called after each recorded attempt: ids, kind, reason and outcome, and the recipient's domain
   * at most (never the address, the link or the body).
   */
  onAttempt?: (info: EmailAttemptInfo) => void;
  /** Called with errors of the store (the worker keeps polling). */
  onError?: (error: unknown) => void;
}

/** What {@link EmailWorkerOptions.onAttempt} is told of an attempt. */
export interface EmailAttemptInfo {
  emailId: string;
  kind: EmailKind;
  reason: ClaimedEmail["reason"];
  /** 1 for the first. */
  attempt: number;
  status: EmailStatus;
  /** The recipient's domain (`example.com`), or `null` when the email was skipped. */
  recipientDomain: string | null;
  /** Why the attempt failed (the SMTP server's answer, every address in it cut to its domain), or `null`. */
  error: string | null;
  durationMs: number;
}

/** A running email worker. */
export interface EmailWorker {
  readonly workerId: string;
  /** Starts polling; idempotent. */
  start(): void;
  /** Looks for due emails now (after a commit in this process); cheap and coalesced. */
  wake(): void;
  /** Stops claiming and resolves once the emails in flight are sent and recorded. */
  stop(): Promise<void>;
}

/** The longest error text kept of a failed attempt. */
const ERROR_LENGTH = 500;

/**
 * Creates the worker that sends the email outbox's due emails through `transport`. Several
 * workers (in one or in several processes on one database) share the work: each claims emails
 * under a lease, so no email is sent twice, and a crashed worker's emails are taken up after
 * its lease. An email is composed when it is sent (`composeEmail`): its link is made then, and
 * only the link's hash is stored. A failed attempt is retried after `retryDelaysMs`; after the
 * last, the email is `failed`.
 *
 * @example
 * const worker = createEmailWorker({ storage, transport, from: "events@example.com", baseUrl: () => "https://events.example.com" });
 * worker.start();
 * const service = createEventService({ storage, emails: { onQueued: worker.wake } });
 * // on shutdown, before closing the store:
 * await worker.stop();
 */
export function createEmailWorker(options: EmailWorkerOptions): EmailWorker {
  const { storage, transport } = options;
  const concurrency = options.concurrency ?? 4;
  const pollIntervalMs = options.pollIntervalMs ?? 1_000;
  const leaseMs = options.leaseMs ?? EMAIL_LEASE_MS;
  const retryDelaysMs = options.retryDelaysMs ?? EMAIL_RETRY_DELAYS_MS;
  const clock = options.now ?? (() => new Date());
  const workerId = options.workerId ?? `mailer_${randomBytes(8).toString("hex")}`;
  const onError = options.onError ?? (() => {});
  const kinds: EmailKind[] = ["vendor_link", "ticket_link"];
  const inFlight = new Set<Promise<void>>();
  const claims = coalesced(claimDue, onError);
  let timer: ReturnType<typeof setInterval> | undefined;
  let started = false;
  let stopping = false;

  async function claimDue(): Promise<boolean> {
    const room = concurrency - inFlight.size;
    if (stopping || room <= 0) return false;
    const now = clock();
    const claimed = await storage.claimDueEmails({
      workerId,
      now: now.toISOString(),
      leaseUntil: new Date(now.getTime() + leaseMs).toISOString(),
      limit: room,
      kinds,
    });
    for (const email of claimed) send(email);
    return claimed.length === room && concurrency - inFlight.size > 0;
  }

  async function attempt(email: ClaimedEmail): Promise<void> {
    const started = clock();
    const number = email.attempts + 1;
    let status: EmailStatus;
    let error: string | null = null;
    let recipientDomain: string | null = null;
    try {
      const message = await composeEmail(storage, email, started.toISOString(), {
        from: options.from,
        baseUrl: options.baseUrl(),
      });
      if (message === null) status = "skipped";
      else {
        recipientDomain = message.to.slice(message.to.lastIndexOf("@") + 1).toLowerCase();
        await transport.send(message);
        status = "sent";
      }
    } catch (failure) {
      error = redactAddresses(failure instanceof Error ? failure.message : String(failure)).slice(0, ERROR_LENGTH);
      status = "failed";
    }
    const now = clock();
    const next =
      status === "skipped"
        ? { status, nextAttemptAt: null }
        : emailAfterAttempt(number, status === "sent", retryDelaysMs, now);
    const recorded = await storage.recordEmailAttempt({
      id: email.id,
      workerId,
      attempt: number,
      status: next.status,
      nextAttemptAt: next.nextAttemptAt,
      error,
      now: now.toISOString(),
    });
    if (!recorded) return;
    options.onAttempt?.({
      emailId: email.id,
      kind: email.kind,
      reason: email.reason,
      attempt: number,
      status: next.status,
      recipientDomain,
      error,
      durationMs: now.getTime() - started.getTime(),
    });
  }

  function send(email: ClaimedEmail) {
    const running: Promise<void> = attempt(email)
      .catch(onError)
      .finally(() => {
        inFlight.delete(running);
        if (started && !stopping) claims.request();
      });
    inFlight.add(running);
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
      if (started && !stopping) claims.request();
    },
    async stop() {
      stopping = true;
      if (timer) clearInterval(timer);
      await claims.idle();
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
  };
}
