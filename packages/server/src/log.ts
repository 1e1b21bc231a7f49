import { pino, type Logger } from "pino";
import type { ServerConfig } from "./config.ts";

/**
 * The server's logger: pino, one JSON object a line on stdout, ISO timestamps. Nothing that
 * reaches it carries an API key, a webhook secret or a request body.
 */
export function createLogger(level: ServerConfig["LOG_LEVEL"]): Logger {
  return pino({ level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime });
}

export type { Logger };
