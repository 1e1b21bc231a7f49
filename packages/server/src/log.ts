import type { RequestLogEntry } from "@event-service/core";
import { pino, type Logger } from "pino";
import type { ServerConfig } from "./config.ts";

/** Bytes of lines gathered before a write, below the 4096 a write may carry: about 16 request lines. */
const LOG_BATCH_BYTES = 3584;
/** The longest a line waits for others before it is written anyway (a quiet server's lines). */
export const LOG_FLUSH_MS = 100;

/**
 * The server's logger: pino, one JSON object a line on stdout, ISO timestamps. Nothing that
 * reaches it carries an API key, a webhook secret or a request body.
 *
 * Lines are written asynchronously and in batches: a line joins a buffer that is written to
 * stdout once it holds a few kilobytes, or {@link LOG_FLUSH_MS} after it was written to, while
 * the server goes on. Under load each line would otherwise cost a write of its own (a system
 * call, on Node's thread pool) for about as much CPU as the request it tells of. pino writes what
 * is buffered at any exit of the process (a clean shutdown, process.exit, an uncaught error); only
 * a process killed outright (SIGKILL, the OOM killer) loses its last lines.
 */
export function createLogger(level: ServerConfig["LOG_LEVEL"], bindings?: Record<string, unknown>): Logger {
  // Each write is whole lines of at most PIPE_BUF (4096 bytes on Linux), which a pipe takes
  // whole: the workers of `serve --workers` share one stdout without tearing each other's lines.
  const destination = pino.destination({
    dest: 1,
    sync: false,
    maxWrite: 4096,
    minLength: LOG_BATCH_BYTES,
    periodicFlush: LOG_FLUSH_MS,
  });
  const logger = pino({ level, base: bindings, timestamp: isoTimestamp }, destination);
  const bound = bindings ? boundFields(bindings) : "";
  requestLines.set(logger, (entry, level) => {
    if (logger.levelVal <= LEVELS[level]) destination.write(requestLine(entry, level, isoTimestamp(), bound));
  });
  return logger;
}

/** pino's numbers of the levels a request's line is written at. */
const LEVELS = { info: 30, warn: 40 } as const;

/** The writers of the request lines of the loggers {@link createLogger} made. */
const requestLines = new WeakMap<Logger, (entry: RequestLogEntry, level: keyof typeof LEVELS) => void>();

/**
 * Logs a request's line (`msg: "request"`; a `503` at warn, the rest at info). To a logger
 * {@link createLogger} made, the line is written by {@link requestLine}, character for character
 * what pino writes for it: pino's own serialization of this one line, the same on every request,
 * was about a tenth of a read's CPU in the server (docs/performance.md). Any other logger is
 * called as usual.
 */
export function requestLogger(logger: Logger): (entry: RequestLogEntry) => void {
  const write = requestLines.get(logger) ?? ((entry, level) => logger[level](entry, "request"));
  return (entry) => write(entry, entry.status === 503 ? "warn" : "info");
}

/** `bindings` as pino writes them after the time: `,"pid":42`. */
function boundFields(bindings: Record<string, unknown>): string {
  const json = JSON.stringify(bindings);
  return json === "{}" ? "" : `,${json.slice(1, -1)}`;
}

/**
 * A request's line as pino writes `logger[level](entry, "request")` for a logger with `bound`
 * bindings and the time field `time` (`,"time":"…"`): the level, the time, the bindings, the
 * entry's fields in their order (an absent one left out), the message.
 */
export function requestLine(entry: RequestLogEntry, level: keyof typeof LEVELS, time: string, bound = ""): string {
  let line = `{"level":${LEVELS[level]}${time}${bound},"requestId":${JSON.stringify(entry.requestId)},"method":${JSON.stringify(entry.method)},"path":${JSON.stringify(entry.path)},"status":${entry.status},"durationMs":${entry.durationMs}`;
  if (entry.route !== undefined) line += `,"route":${JSON.stringify(entry.route)}`;
  if (entry.accountId !== undefined) line += `,"accountId":${JSON.stringify(entry.accountId)}`;
  if (entry.clientAddress !== undefined) line += `,"clientAddress":${JSON.stringify(entry.clientAddress)}`;
  return `${line},"msg":"request"}\n`;
}

/** How often an error that keeps repeating is logged: once a minute, with its count. */
export const REPEAT_LOG_INTERVAL_MS = 60_000;

/**
 * A log call for an error that may repeat on every attempt of a background loop (the delivery
 * worker's polls, the purge, lost database connections): the first error of a kind (its code and
 * message) is logged at once, with its stack; the same kind again within
 * `intervalMs` is only counted, and the count logged (`repeated`, without the stack) once the
 * interval is over. A kind that stopped is forgotten after a quiet interval, so its next
 * occurrence is logged at once again.
 *
 * @example
 * const onError = logRepeated(logger, "warn", "webhook delivery worker error");
 * onError(error); // logged; the same error within the minute is counted
 */
export function logRepeated(
  logger: Logger,
  level: "error" | "warn",
  message: string,
  intervalMs = REPEAT_LOG_INTERVAL_MS,
): (error: unknown) => void {
  const kinds = new Map<string, { count: number; last: unknown }>();
  function flush(kind: string): void {
    const entry = kinds.get(kind)!;
    if (entry.count === 0) {
      kinds.delete(kind);
      return;
    }
    const { last, count } = entry;
    logger[level]({ error: errorSummary(last), repeated: count, intervalMs }, `${message} (repeated)`);
    entry.count = 0;
    setTimeout(flush, intervalMs, kind).unref();
  }
  return (error) => {
    const kind = errorKind(error);
    const entry = kinds.get(kind);
    if (entry) {
      entry.count++;
      entry.last = error;
      return;
    }
    kinds.set(kind, { count: 0, last: error });
    logger[level]({ err: error }, message);
    setTimeout(flush, intervalMs, kind).unref();
  };
}

/** What makes two errors "the same" for {@link logRepeated}: their code (the driver's, or the service's) and message. */
function errorKind(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return `${String((error as { code?: unknown }).code ?? "")} ${error.message}`;
}

/** An error's type, code and message, without its stack: what a repeat's line shows. */
function errorSummary(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { message: String(error) };
  const code = (error as { code?: unknown }).code;
  return { type: error.name, message: error.message, ...(code !== undefined && { code }) };
}

/**
 * pino's `isoTime` formats a new Date per line; under load many lines share a millisecond, so
 * the text of the last one is reused.
 */
let lastMs = -1;
let lastTime = "";
function isoTimestamp(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastTime = `,"time":"${new Date(now).toISOString()}"`;
  }
  return lastTime;
}

export type { Logger };
