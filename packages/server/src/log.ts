import { pino, type Logger } from "pino";
import type { ServerConfig } from "./config.ts";

/**
 * The server's logger: pino, one JSON object a line on stdout, ISO timestamps. Nothing that
 * reaches it carries an API key, a webhook secret or a request body.
 *
 * Lines are written asynchronously: a line joins a buffer that is written to stdout while the
 * server goes on, so a burst of requests costs a few writes rather than one system call each.
 * pino writes what is buffered at any exit of the process (a clean shutdown, process.exit, an
 * uncaught error); only a process killed outright (SIGKILL, the OOM killer) loses its last lines.
 */
export function createLogger(level: ServerConfig["LOG_LEVEL"]): Logger {
  // Each write is whole lines of at most PIPE_BUF (4096 bytes on Linux), which a pipe takes
  // whole: the workers of `serve --workers` share one stdout without tearing each other's lines.
  return pino({ level, base: undefined, timestamp: isoTimestamp }, pino.destination({ dest: 1, sync: false, maxWrite: 4096 }));
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
