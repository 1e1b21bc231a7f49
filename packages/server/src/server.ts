import { createEventService, createHandler, createSqlStorage, type EventService } from "@event-service/core";
import { serve } from "h3";
import { createApp } from "./app.ts";
import type { ServerConfig } from "./config.ts";
import { openSqlite } from "./sqlite.ts";

/** A running server. */
export interface RunningServer {
  /** The address it listens on, e.g. `http://127.0.0.1:3000/`. */
  url: string;
  service: EventService;
  /** Stops accepting connections, lets requests in flight finish, then closes the store. */
  close(): Promise<void>;
}

type Log = (level: "error" | "warn" | "info", message: string, extra?: Record<string, unknown>) => void;

const LEVELS = { silent: 0, error: 1, warn: 2, info: 3, debug: 4 } as const;

/** A one-line JSON logger on stderr/stdout honouring `LOG_LEVEL`. */
export function createLog(level: ServerConfig["LOG_LEVEL"]): Log {
  return (at, message, extra) => {
    if (LEVELS[at] > LEVELS[level]) return;
    const line = JSON.stringify({ level: at, time: new Date().toISOString(), msg: message, ...extra });
    (at === "info" ? process.stdout : process.stderr).write(`${line}\n`);
  };
}

/**
 * Starts the bundled server: opens (and migrates) the SQLite store, mounts core on h3 and
 * listens on `HOST:PORT`.
 */
export async function startServer(config: ServerConfig, log: Log = createLog(config.LOG_LEVEL)): Promise<RunningServer> {
  const storage = createSqlStorage({ db: openSqlite(config.DATABASE_URL) });
  await storage.migrate();
  const service = createEventService({ storage, ...(config.PUBLIC_URL && { publicUrl: config.PUBLIC_URL }) });
  const handler = createHandler(service, {
    trustProxy: config.TRUST_PROXY,
    onError: (error, request) =>
      log("error", "unexpected error", {
        method: request.method,
        path: new URL(request.url).pathname,
        error: error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : String(error),
      }),
  });
  const server = serve(createApp(handler), { port: config.PORT, hostname: config.HOST, silent: true, gracefulShutdown: false });
  await server.ready();
  const url = server.url ?? `http://${config.HOST}:${config.PORT}/`;
  log("info", "listening", { url, database: config.DATABASE_URL });
  log("warn", "serving plain HTTP: no TLS certificate configured; use it only for local development or behind a TLS-terminating proxy");
  return {
    url,
    service,
    async close() {
      await server.close();
      await storage.close();
    },
  };
}
