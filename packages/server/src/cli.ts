import { parseArgs } from "node:util";
import { createEventService, createSqlStorage, ServiceError, type Storage } from "@event-service/core";
import { isClusterWorker, MAX_WORKERS, reportListening, runPrimary } from "./cluster.ts";
import { loadConfig, type ServerConfig } from "./config.ts";
import { createLogger } from "./log.ts";
import { startServer } from "./server.ts";
import { openDatabase, redactDatabaseUrl } from "./database.ts";

const USAGE = `Usage: event-service <command> [options]

Commands:
  serve                      Start the server (default command)
  migrate                    Create or update the database schema
  keys create --account NAME [--tier free|starter|professional|enterprise]
              [--scopes a,b] [--per-minute N] [--per-day N] [--json]
                             Create an API key (and the account when new); the key is shown once
  keys list [--account NAME] [--json]
                             List keys (never their secrets)
  keys revoke <key id>       Revoke a key at once

Options (each mirrors an environment variable):
  --port N        PORT, default 3000
  --host ADDR     HOST, default 127.0.0.1
  --database URL  DATABASE_URL, default ./data/event-service.sqlite (or :memory:,
                  or postgres://user:password@host:5432/database)
  --workers N     WORKERS, default 1: serve with N processes on one port (1 to 64)
  -h, --help      Show this help
`;

class UsageError extends Error {}

/**
 * What a command reads and writes: the process's environment and streams (the bin), or a
 * caller's, which then gets the command's output and exit code without a process of its own.
 */
export interface CliIo {
  env: Record<string, string | undefined>;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

const OPTIONS = {
  port: { type: "string" },
  host: { type: "string" },
  database: { type: "string" },
  workers: { type: "string" },
  account: { type: "string" },
  tier: { type: "string" },
  scopes: { type: "string" },
  "per-minute": { type: "string" },
  "per-day": { type: "string" },
  json: { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false },
} as const;

function integer(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number`);
  return Number(value);
}

/**
 * Runs `fn` on a migrated storage. `figures`: the command is one that sets up the database for
 * serving (`migrate`, the cluster's primary), so the kept figures are brought to the configured
 * factor set; the `keys` commands leave them alone.
 */
async function withStorage<T>(config: ServerConfig, fn: (storage: Storage) => Promise<T>, figures = false): Promise<T> {
  const storage = createSqlStorage({
    db: await openDatabase(config),
    ...(figures && { emissionFactors: config.EMISSION_FACTORS_FILE ?? [] }),
  });
  try {
    await storage.migrate();
    return await fn(storage);
  } finally {
    await storage.close();
  }
}

/**
 * Runs the command `argv` (the arguments after `event-service`) and resolves to its exit code:
 * 0, 1 (it failed), 2 (a usage error; the usage follows the message on stderr), or -1 when it
 * started a server that keeps running. Never rejects. `serve` belongs to the process whatever
 * `io` says: it catches SIGTERM and SIGINT and exits once the server has stopped.
 */
export async function main(argv: string[], io: CliIo = process): Promise<number> {
  try {
    return await run(argv, io);
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      io.stderr.write(`event-service: ${(error as Error).message}\n\n${USAGE}`);
      return 2;
    }
    io.stderr.write(
      `event-service: ${ServiceError.is(error) || error instanceof Error ? error.message : String(error)}\n`,
    );
    return 1;
  }
}

async function run(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  if (values.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  if (
    values.workers !== undefined &&
    !(/^\d+$/.test(values.workers) && Number(values.workers) >= 1 && Number(values.workers) <= MAX_WORKERS)
  ) {
    throw new UsageError(`--workers must be a whole number from 1 to ${MAX_WORKERS}`);
  }
  const config = loadConfig({
    ...io.env,
    ...(values.port !== undefined && { PORT: values.port }),
    ...(values.host !== undefined && { HOST: values.host }),
    ...(values.database !== undefined && { DATABASE_URL: values.database }),
    ...(values.workers !== undefined && { WORKERS: values.workers }),
  });
  const [command = "serve", sub, ...rest] = positionals;
  const print = (value: unknown, text: string) =>
    io.stdout.write(values.json ? `${JSON.stringify(value, null, 2)}\n` : `${text}\n`);

  switch (command) {
    case "serve": {
      if (sub !== undefined) throw new UsageError(`serve takes no argument (got ${sub})`);
      // A cluster worker's lines carry its pid: the operator (and the tests) can tell the processes apart.
      const logger = createLogger(config.LOG_LEVEL, isClusterWorker() ? { pid: process.pid } : undefined);
      if (config.WORKERS > 1 && !isClusterWorker()) {
        // The primary migrates once, then only forks and supervises (see cluster.ts).
        return runPrimary({
          workers: config.WORKERS,
          logger,
          migrate: () => withStorage(config, async () => {}, true),
          host: config.HOST,
          ports: { PORT: config.PORT, HTTP_REDIRECT_PORT: config.HTTP_REDIRECT_PORT },
        });
      }
      // Signals are caught before the server starts: one that arrives while it starts (its port
      // may already answer) shuts it down gracefully as soon as it is up, instead of killing it.
      let server: Awaited<ReturnType<typeof startServer>> | undefined;
      let pending: string | undefined;
      const stop = (signal: string) => {
        if (!server) {
          pending = signal;
          return;
        }
        logger.info({ signal }, "shutting down");
        server.close().then(
          () => {
            logger.info("stopped");
            process.exit(0);
          },
          (error: unknown) => {
            logger.error({ err: error }, "shutdown failed");
            process.exit(1);
          },
        );
      };
      process.once("SIGTERM", () => stop("SIGTERM"));
      process.once("SIGINT", () => stop("SIGINT"));
      server = await startServer(config, logger);
      reportListening(server.url);
      if (pending) stop(pending);
      return -1;
    }
    case "migrate": {
      await withStorage(config, async () => {}, true);
      print(
        { migrated: true, database: redactDatabaseUrl(config.DATABASE_URL) },
        `Database ${redactDatabaseUrl(config.DATABASE_URL)} is up to date.`,
      );
      return 0;
    }
    case "keys": {
      return withStorage(config, async (storage) => {
        const service = createEventService({ storage });
        if (sub === "create") {
          if (!values.account) throw new UsageError("keys create needs --account NAME");
          const scopes = values.scopes
            ?.split(",")
            .map((s) => s.trim())
            .filter(Boolean);
          // Leaving --scopes out gives every scope; naming none is a mistake, not "all".
          if (scopes?.length === 0)
            throw new UsageError(
              "--scopes names no scope; leave it out for every scope, or name them: --scopes events:read,analytics:read",
            );
          const created = await service.keys.create({
            account: values.account,
            ...(values.tier !== undefined && { tier: values.tier as never }),
            ...(scopes !== undefined && { scopes: scopes as never }),
            ...(values["per-minute"] !== undefined && { perMinute: integer("per-minute", values["per-minute"]) }),
            ...(values["per-day"] !== undefined && { perDay: integer("per-day", values["per-day"]) }),
          });
          print(
            created,
            `${created.accountCreated ? `Created account ${values.account} (${created.accountId}) and API key ${created.id}` : `Added API key ${created.id} to the existing account ${created.accountId}`}` +
              ` (tier ${created.tier}, scopes ${created.scopes.join(" ")}).\n` +
              `Key (shown only now, store it safely):\n${created.key}`,
          );
          return 0;
        }
        if (sub === "list") {
          const keys = await service.keys.list(values.account);
          print(
            keys,
            keys.length
              ? keys
                  .map(
                    (k) =>
                      `${k.id}  ${k.prefix}  ${k.accountName} (${k.accountId})  ${k.tier}  ${k.revokedAt ? `revoked ${k.revokedAt}` : "active"}  ${k.scopes.join(" ")}`,
                  )
                  .join("\n")
              : "No API keys.",
          );
          return 0;
        }
        if (sub === "revoke") {
          const [id] = rest;
          if (!id || rest.length > 1) throw new UsageError("keys revoke needs exactly one key id");
          await service.keys.revoke(id);
          print({ revoked: id }, `Revoked ${id}.`);
          return 0;
        }
        throw new UsageError(`unknown keys command: ${sub ?? "(none)"}`);
      });
    }
    default:
      throw new UsageError(`unknown command: ${command}`);
  }
}
