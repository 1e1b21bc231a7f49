import type { ClaimedDelivery, DeliveryAttempt } from "../resources/webhook-delivery.ts";
import { signPayload } from "./signature.ts";
import { assertPublicHost, type HostResolver } from "./ssrf.ts";

/** The `User-Agent` of every delivery (spec 6.2). */
export const WEBHOOK_USER_AGENT = "Service-Webhooks/1.0";

/** How much of a receiver's answer the delivery log keeps. */
const EXCERPT_CHARS = 1024;

/** Options of {@link sendDelivery}. */
export interface SendDeliveryOptions {
  /** An attempt without a complete answer after this long fails (the spec's 5 s by default). */
  timeoutMs: number;
  /** Skip the SSRF guard (tests, private networks). */
  allowPrivateNetworks: boolean;
  resolveHost?: HostResolver | undefined;
  /** The fetch to send with; the global one by default (Node's trust store, so `NODE_EXTRA_CA_CERTS` applies). */
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

/** `Retry-After` (seconds or an HTTP date) in ms, or null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: Date): number | null {
  if (value === null || value.trim() === "") return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime());
}

async function readExcerpt(response: Response): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    while (text.length < EXCERPT_CHARS) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    // A receiver streaming a long answer does not hold the attempt open.
    await reader.cancel().catch(() => {});
  }
  return text.slice(0, EXCERPT_CHARS);
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    if (error.name === "TimeoutError" || error.name === "AbortError") return "timeout: no complete answer in time";
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const detail = cause?.code ?? cause?.message;
    return detail ? `${error.message}: ${detail}` : error.message;
  }
  return String(error);
}

/**
 * Makes one attempt of a delivery: re-checks the SSRF guard, POSTs the stored envelope bytes
 * with the spec 6.2 headers and their `sha256=` signature, follows no redirect, and gives up
 * after `timeoutMs`. Only a 2xx answer succeeds. Never throws.
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

  try {
    const url = new URL(delivery.url);
    if (!options.allowPrivateNetworks) await assertPublicHost(url, options.resolveHost);
  } catch (error) {
    return finish({ error: `refused before sending: ${error instanceof Error ? error.message : String(error)}` });
  }

  const signal = AbortSignal.timeout(options.timeoutMs);
  try {
    const response = await (options.fetch ?? globalThis.fetch)(delivery.url, {
      method: "POST",
      redirect: "manual",
      signal,
      headers: {
        "content-type": "application/json",
        "user-agent": WEBHOOK_USER_AGENT,
        "x-service-signature": signPayload(delivery.secret, delivery.payload),
        "x-service-event": delivery.type,
        "x-service-delivery": delivery.id,
      },
      body: delivery.payload,
    });
    const excerpt = await readExcerpt(response);
    const succeeded = response.status >= 200 && response.status < 300;
    const retryAfterMs = response.status === 429 || response.status === 503 ? parseRetryAfter(response.headers.get("retry-after"), clock()) : null;
    return finish({ statusCode: response.status, responseExcerpt: excerpt, succeeded }, { retryAfterMs, gone: response.status === 410 });
  } catch (error) {
    return finish({ error: describe(error) });
  }
}
