import type { ErrorBody, ListResult } from "@event-service/core";
import { FetchError, ofetch } from "ofetch";
import { EventServiceError } from "./errors.ts";
import { parseRetryAfterSeconds, RETRYABLE_STATUSES, type RetryOptions, retryDelayMs } from "./retry.ts";

/** Per-call options. */
export interface CallOptions {
  /** This call's `Idempotency-Key` (a `POST` only): retries of the call, and your own, reuse it. */
  idempotencyKey?: string;
  /** Aborts the call and any wait for a retry. */
  signal?: AbortSignal;
}

/** What both clients ({@link createClient}, {@link createVendorLinkClient}) configure of their calls. */
export interface TransportOptions {
  /** The URL every call's path is appended to, without a trailing slash. */
  baseUrl: string;
  /** Headers sent with every call (an API key's `authorization`; `accept`). */
  headers: Record<string, string>;
  retry?: RetryOptions | false | undefined;
  /** Generate an `Idempotency-Key` for every `POST` that has none. Default true. */
  idempotencyKeys?: boolean | undefined;
  /** Time-out of one attempt in ms. Default 30 s. */
  timeoutMs?: number | undefined;
  fetch?: typeof globalThis.fetch | undefined;
}

export type Method = "GET" | "POST" | "PUT" | "DELETE";
export type Query = Record<string, unknown>;

/** One call's body, query and answer format, beside its {@link CallOptions}. */
export interface RequestInit extends CallOptions {
  body?: unknown;
  query?: Query;
  /** Resolve with the answer's body as a stream of bytes. */
  stream?: boolean;
  /** Ask for and resolve with HTML text. */
  html?: boolean;
  /** Ask for this media type (`text/calendar`) and resolve with the answer's text. */
  textOf?: string;
}

/**
 * The calls both clients are made of: one JSON request with the retry, `Idempotency-Key` and
 * error rules of {@link createClient}, and the walk through every page of a list.
 */
export interface Transport {
  /** Resolves with the answer's JSON, or throws an {@link EventServiceError}; retries what the service asks to retry. */
  request<T>(method: Method, path: string, init?: RequestInit): Promise<T>;
  /** Every item of a list under `key`, page by page (100 a page unless the query says), while the service says there is a next one. */
  walk<K extends string, T>(key: K, path: string, query: Query, call?: CallOptions): AsyncGenerator<T, void, undefined>;
}

const DEFAULT_RETRY: Required<RetryOptions> = { retries: 2, baseDelayMs: 500, maxDelayMs: 30_000 };
/** Lists are walked with the largest page the service gives. */
const PAGE_SIZE = 100;

/** The query string the service reads: each parameter once, lists comma-separated, nothing undefined. */
function toQuery(query: Query): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    out[name] = Array.isArray(value) ? value.join(",") : String(value);
  }
  return out;
}

/**
 * A random UUID (version 4) for an `Idempotency-Key`: `crypto.randomUUID` where there is one;
 * browsers give it to secure pages (https, localhost) only, and `getRandomValues` to every page,
 * so a vendor's page on plain http still gets its keys.
 */
function randomKey(): string {
  const { crypto } = globalThis;
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** The body of an error answer; a streamed call's arrives as a stream, read here so the error is the service's. */
async function errorBodyOf(thrown: unknown): Promise<unknown> {
  if (!(thrown instanceof FetchError)) return undefined;
  if (thrown.data instanceof ReadableStream) return new Response(thrown.data).json().catch(() => undefined);
  return thrown.data;
}

/** The client error of whatever a call threw. */
function toClientError(thrown: unknown, data: unknown): EventServiceError {
  if (!(thrown instanceof FetchError)) {
    return new EventServiceError({
      status: 0,
      code: "NETWORK_ERROR",
      message: (thrown as Error)?.message ?? String(thrown),
      cause: thrown,
    });
  }
  const status = thrown.status ?? thrown.response?.status ?? 0;
  const retryAfter = parseRetryAfterSeconds(thrown.response?.headers.get("retry-after") ?? null);
  const body = data as Partial<ErrorBody> | undefined;
  if (status === 0 || !thrown.response) {
    return new EventServiceError({ status: 0, code: "NETWORK_ERROR", message: thrown.message, cause: thrown });
  }
  if (body && typeof body === "object" && body.error && typeof body.error.code === "string") {
    const { code, message, field, details } = body.error;
    return new EventServiceError({
      status,
      code,
      message,
      field,
      details: details as Record<string, unknown> | undefined,
      retryAfter,
      cause: thrown,
    });
  }
  return new EventServiceError({
    status,
    code: "UNEXPECTED_RESPONSE",
    message: `Unexpected ${status} answer without the service's error body.`,
    retryAfter,
    cause: thrown,
  });
}

/**
 * Builds the calls of one client. `429` and `503` answers (and `409 IDEMPOTENCY_KEY_IN_USE`)
 * are retried after their `Retry-After`, or with exponential backoff: always for `GET`, `PUT`
 * and `DELETE`, and for a `POST` when it carries an `Idempotency-Key`.
 */
export function createTransport(options: TransportOptions): Transport {
  const retry = options.retry === false ? { ...DEFAULT_RETRY, retries: 0 } : { ...DEFAULT_RETRY, ...options.retry };
  const generateKeys = options.idempotencyKeys ?? true;
  const api = ofetch.create(
    { baseURL: options.baseUrl, headers: options.headers, retry: 0, timeout: options.timeoutMs ?? 30_000 },
    options.fetch && { fetch: options.fetch },
  );

  async function request<T>(method: Method, path: string, init: RequestInit = {}): Promise<T> {
    const key = method === "POST" ? (init.idempotencyKey ?? (generateKeys ? randomKey() : undefined)) : undefined;
    const retriable = method !== "POST" || key !== undefined;
    // An answer read as text (a page, a calendar file) asks for its own type.
    const textType = init.textOf ?? (init.html ? "text/html" : undefined);
    const headers: Record<string, string> = {};
    if (key !== undefined) headers["idempotency-key"] = key;
    if (textType !== undefined) headers.accept = textType;
    for (let attempt = 1; ; attempt++) {
      try {
        const options = {
          method,
          ...(init.body !== undefined && { body: init.body as Record<string, unknown> }),
          ...(init.query && { query: toQuery(init.query) }),
          headers,
          ...(init.signal && { signal: init.signal }),
        };
        // A stream resolves with the answer's headers; its body is the caller's to read.
        if (init.stream) return (await api<T, "stream">(path, { ...options, responseType: "stream" })) as T;
        if (textType !== undefined) return (await api<string, "text">(path, { ...options, responseType: "text" })) as T;
        return await api<T>(path, options);
      } catch (thrown) {
        const error = toClientError(thrown, await errorBodyOf(thrown));
        const later = RETRYABLE_STATUSES.has(error.status) || error.code === "IDEMPOTENCY_KEY_IN_USE";
        if (!retriable || !later || attempt > retry.retries) throw error;
        const delay = retryDelayMs(attempt, error.retryAfter, retry);
        if (delay === undefined) throw error;
        await sleep(delay, init.signal);
      }
    }
  }

  async function* walk<K extends string, T>(
    key: K,
    path: string,
    query: Query,
    call?: CallOptions,
  ): AsyncGenerator<T, void, undefined> {
    const { page: first, limit, perPage, ...rest } = query;
    const size = (limit ?? perPage ?? PAGE_SIZE) as number;
    for (let page = Number(first ?? 1); ; page++) {
      const result = await request<ListResult<K, T>>("GET", path, { query: { ...rest, page, limit: size }, ...call });
      yield* result[key];
      if (!result.pagination.hasNext) return;
    }
  }

  return { request, walk };
}
