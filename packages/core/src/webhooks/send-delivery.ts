import type { IncomingMessage } from "node:http";
import { Agent, request } from "node:https";
import { isIP } from "node:net";
import { ServiceError } from "../errors.ts";
import { assertHttpsUrl } from "../resources/webhook.ts";
import type { ClaimedDelivery, DeliveryAttempt } from "../resources/webhook-delivery.ts";
import { signPayload, signWebhook } from "./signature.ts";
import { checkedAddresses, type HostResolver, pinnedLookup, systemResolver } from "./ssrf.ts";

/** The `User-Agent` of every delivery (docs/api.md, Webhook delivery). */
export const WEBHOOK_USER_AGENT = "Service-Webhooks/1.0";

/** How much of a receiver's answer the delivery log keeps. */
const EXCERPT_CHARS = 1024;

/** Options of {@link sendDelivery}. */
export interface SendDeliveryOptions {
  /** An attempt without a complete answer after this long fails (5 s by default). */
  timeoutMs: number;
  /** Skip the SSRF guard (tests, private networks). */
  allowPrivateNetworks: boolean;
  resolveHost?: HostResolver | undefined;
  /**
   * Tests only: a fetch to send with instead of the pinned connection. The host is still
   * resolved and checked once, but the injected fetch connects as it likes.
   */
  fetch?: typeof globalThis.fetch | undefined;
  now?: (() => Date) | undefined;
}

/** The outcome of one attempt. */
export interface AttemptOutcome {
  attempt: DeliveryAttempt;
  /** What a 429 or 503 answer's `Retry-After` asked for, in ms; null otherwise. */
  retryAfterMs: number | null;
  /** The receiver answered `410 Gone`: the webhook is to be disabled at once. */
  gone: boolean;
}

/** `Retry-After` (seconds or an HTTP date) in ms, or null when absent or unreadable. May be huge: the schedule caps it. */
export function parseRetryAfterMs(value: string | null, now: Date): number | null {
  if (value === null || value.trim() === "") return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime());
}

/** At most this many bytes of a chunk are decoded: enough for {@link EXCERPT_CHARS} (UTF-8 takes at most 4 bytes for 2 UTF-16 units). */
const EXCERPT_BYTES = EXCERPT_CHARS * 4;

/**
 * The start of an answer's body, as text: at most {@link EXCERPT_CHARS} characters, and only
 * what the excerpt can use of a chunk is decoded. Leaving the loop early cancels the rest (a
 * web stream's iterator cancels it, a Node stream's destroys it, closing the connection): the
 * rest of a long or endless answer is dropped, never waited for or held in memory. The status
 * has come before the body: a body that fails or stalls (the attempt's timeout) leaves the
 * excerpt as far as it came, and the status decides the attempt.
 */
async function readExcerpt(body: AsyncIterable<Uint8Array> | null): Promise<string> {
  if (!body) return "";
  const decoder = new TextDecoder();
  let text = "";
  try {
    for await (const chunk of body) {
      text += decoder.decode(chunk.subarray(0, EXCERPT_BYTES), { stream: true });
      if (text.length >= EXCERPT_CHARS) break;
    }
  } catch {
    // Timed out or cut off after the status: what came is the excerpt.
  }
  return text.slice(0, EXCERPT_CHARS);
}

/** What an attempt keeps of the receiver's answer. */
interface Answer {
  status: number;
  retryAfter: string | null;
  excerpt: string;
}

/**
 * POSTs through the shared pool with `node:https`: the attempt needs the status, one header and
 * the start of the body, and fetch's Request, Response and web streams would cost each delivery
 * several times the CPU and garbage. Like fetch with `redirect: "manual"`, it follows no
 * redirect (`node:https` never does). The signal (the attempt's timeout) destroys the request,
 * and with it the answer's body if it is still coming.
 */
async function post(
  url: URL,
  init: { headers: Record<string, string>; body: string; signal: AbortSignal },
  options: SendDeliveryOptions,
): Promise<Answer> {
  if (options.fetch) {
    const response = await options.fetch(url.href, { method: "POST", redirect: "manual", ...init });
    // Node's web streams are async iterable; the DOM typings do not say so.
    const body = response.body as unknown as AsyncIterable<Uint8Array> | null;
    return {
      status: response.status,
      retryAfter: response.headers.get("retry-after"),
      excerpt: await readExcerpt(body),
    };
  }
  const headers = { ...init.headers, "content-length": String(Buffer.byteLength(init.body)) };
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    const sent = request(url, { method: "POST", headers, signal: init.signal, agent: agentFor(options) }, resolve);
    sent.on("error", reject);
    sent.end(init.body);
  });
  const retryAfter = response.headers["retry-after"];
  return { status: response.statusCode ?? 0, retryAfter: retryAfter ?? null, excerpt: await readExcerpt(response) };
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    // The pinned lookup refused the host (non-public, unresolvable, DNS timeout): the request
    // fails with that error, a fetch wraps it as its cause.
    if (ServiceError.is(error)) return `refused before sending: ${error.message}`;
    if (ServiceError.is(error.cause)) return `refused before sending: ${error.cause.message}`;
    if (error.name === "TimeoutError" || error.name === "AbortError") return "timeout: no complete answer in time";
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const detail = cause?.code ?? cause?.message;
    return detail ? `${error.message}: ${detail}` : error.message;
  }
  return String(error);
}

/** The secrets that sign an attempt at `at`: the current one, and the previous one while its overlap lasts. */
export function signingSecrets(
  delivery: Pick<ClaimedDelivery, "secret" | "previousSecret" | "previousSecretExpiresAt">,
  at: Date,
): string[] {
  const { secret, previousSecret, previousSecretExpiresAt } = delivery;
  const overlapping =
    previousSecret !== null && previousSecretExpiresAt !== null && Date.parse(previousSecretExpiresAt) > at.getTime();
  return overlapping ? [secret, previousSecret] : [secret];
}

/** How long a kept connection may stay idle before it is closed (a receiver's `Keep-Alive: timeout` may shorten it). */
const IDLE_CONNECTION_MS = 4_000;

/**
 * One connection pool per resolver and guard setting, shared by every attempt (keep-alive
 * connections to a busy receiver are reused; a kept connection goes on to the address that
 * was checked when it was opened). Its connections look their host up through
 * {@link pinnedLookup}, so they reach only addresses the guard has judged. TLS is Node's
 * default context: the standard trust store plus `NODE_EXTRA_CA_CERTS`, the certificate
 * checked against the URL's host.
 */
// Weakly keyed: a resolver a test made and dropped takes its pool with it.
const agents = new WeakMap<HostResolver, Map<boolean, Agent>>();
function agentFor(options: SendDeliveryOptions): Agent {
  const resolve = options.resolveHost ?? systemResolver;
  let byGuard = agents.get(resolve);
  if (!byGuard) agents.set(resolve, (byGuard = new Map()));
  let agent = byGuard.get(options.allowPrivateNetworks);
  if (!agent) {
    agent = new Agent({
      keepAlive: true,
      timeout: IDLE_CONNECTION_MS,
      lookup: pinnedLookup({ resolve, allowPrivateNetworks: options.allowPrivateNetworks }),
    });
    byGuard.set(options.allowPrivateNetworks, agent);
  }
  return agent;
}

/**
 * Makes one attempt of a delivery: POSTs the stored envelope bytes with the `X-Service-*` headers
 * and their `sha256=` signature and the Standard Webhooks headers (`webhook-id`,
 * `webhook-timestamp` of this attempt, `webhook-signature` under the current secret and,
 * during a rotation, the previous one), follows no redirect, and gives up after `timeoutMs`.
 * The connection goes only to an address the SSRF guard judged, resolved once. A 2xx status
 * within `timeoutMs` succeeds; of the body only the excerpt is read (within the same time),
 * the rest dropped. Never throws.
 */
export async function sendDelivery(delivery: ClaimedDelivery, options: SendDeliveryOptions): Promise<AttemptOutcome> {
  const clock = options.now ?? (() => new Date());
  const started = clock();
  const startedMs = performance.now();
  const number = delivery.attemptCount + 1;
  const finish = (fields: Partial<DeliveryAttempt>, extra: Partial<AttemptOutcome> = {}): AttemptOutcome => ({
    attempt: {
      number,
      startedAt: started.toISOString(),
      durationMs: Math.round(performance.now() - startedMs),
      statusCode: null,
      error: null,
      responseExcerpt: null,
      succeeded: false,
      ...fields,
    },
    retryAfterMs: null,
    gone: false,
    ...extra,
  });

  let url: URL;
  try {
    // The URL rules of create and update, again: a webhook stored before a rule existed (a port
    // below 1024, credentials) is refused here rather than connected to.
    url = assertHttpsUrl(delivery.url);
    // An IP literal is connected to without a look-up: judged here. A name is resolved and
    // judged once, in the connection's own lookup (pinnedLookup), or here for an injected fetch.
    if (!options.allowPrivateNetworks && (options.fetch || isIP(url.hostname.replace(/^\[(.*)\]$/, "$1")) !== 0)) {
      await checkedAddresses(url.hostname, { resolve: options.resolveHost });
    }
  } catch (error) {
    return finish({ error: `refused before sending: ${error instanceof Error ? error.message : String(error)}` });
  }

  const signal = AbortSignal.timeout(options.timeoutMs);
  try {
    const headers = {
      "content-type": "application/json",
      "user-agent": WEBHOOK_USER_AGENT,
      "x-service-signature": signPayload(delivery.secret, delivery.payload),
      "x-service-event": delivery.type,
      "x-service-delivery": delivery.id,
      ...signWebhook(
        signingSecrets(delivery, started),
        delivery.id,
        Math.floor(started.getTime() / 1000),
        delivery.payload,
      ),
    };
    const answer = await post(url, { headers, body: delivery.payload, signal }, options);
    const succeeded = answer.status >= 200 && answer.status < 300;
    const retryAfterMs =
      answer.status === 429 || answer.status === 503 ? parseRetryAfterMs(answer.retryAfter, clock()) : null;
    return finish(
      { statusCode: answer.status, responseExcerpt: answer.excerpt, succeeded },
      { retryAfterMs, gone: answer.status === 410 },
    );
  } catch (error) {
    return finish({ error: describe(error) });
  }
}
