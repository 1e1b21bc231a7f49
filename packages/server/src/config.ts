import { readFileSync } from "node:fs";
import { DEFAULT_EMISSION_FACTORS, EmissionFactorSet, type TrustProxy } from "@event-service/core";
import {
  compileTrustProxy,
  DEFAULT_AUTH_FAILURE_LIMIT_PER_MINUTE,
  DEFAULT_DOOR_LINK_LIMIT_PER_MINUTE,
  parseCorsOrigins,
  createFactorSets,
} from "@event-service/core/internal";
import * as z from "zod";

const flag = z
  .enum(["true", "false", "1", "0", "yes", "no", ""])
  .transform((value) => value === "true" || value === "1" || value === "yes");

/**
 * `TRUST_PROXY`: a flag (`true` trusts one hop, the connection's peer) or a comma-separated list
 * of trusted proxy addresses and CIDR ranges (`10.0.0.0/8,::1`, also `loopback`, `linklocal`,
 * `uniquelocal`), each checked here so a typo fails at start rather than trusting nothing.
 */
const trustProxy = z.string().transform((value, ctx): TrustProxy => {
  const text = value.trim().toLowerCase();
  if (["true", "1", "yes"].includes(text)) return true;
  if (["false", "0", "no", ""].includes(text)) return false;
  const list = value.split(",").map((entry) => entry.trim());
  try {
    compileTrustProxy(list);
  } catch (error) {
    ctx.addIssue({
      code: "custom",
      message: `true, false, or a comma-separated list of proxy addresses and CIDR ranges; ${(error as Error).message}`,
    });
    return z.NEVER;
  }
  return list;
});

/** The name that stands for the bundled DESNZ 2023 set in `EMISSION_FACTORS_FILE`'s list. */
export const BUNDLED_FACTOR_SET = "default";

/**
 * `EMISSION_FACTORS_FILE`: JSON files, comma-separated, each holding an emission factor set of
 * one year (the format of `GET /v1/analytics/emission-factors`), and {@link BUNDLED_FACTOR_SET}
 * for the bundled set; read and validated at start: a bad file names its bad field
 * (`EMISSION_FACTORS_FILE.factors.2.factor: ...`, with the file when there are several), two
 * sets of one year name both, like every other configuration error. Unset: the bundled set alone.
 */
const emissionFactorsFile = z.string().transform((value, ctx) => {
  const files = value
    .split(",")
    .map((file) => file.trim())
    .filter((file) => file !== "");
  const sets: EmissionFactorSet[] = [];
  for (const file of files) {
    if (file === BUNDLED_FACTOR_SET) {
      sets.push(DEFAULT_EMISSION_FACTORS);
      continue;
    }
    // With several files, each message names its file.
    const about = (message: string) => (files.length > 1 ? `${file}: ${message}` : message);
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      ctx.addIssue({
        code: "custom",
        message: `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      });
      return z.NEVER;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      ctx.addIssue({ code: "custom", message: `${file} is not JSON: ${(error as Error).message}` });
      return z.NEVER;
    }
    const set = EmissionFactorSet.safeParse(json);
    if (!set.success) {
      for (const issue of set.error.issues)
        ctx.addIssue({ code: "custom", path: issue.path, message: about(issue.message) });
      return z.NEVER;
    }
    sets.push(set.data);
  }
  if (files.length === 0) {
    ctx.addIssue({ code: "custom", message: "names no file (give one or more JSON files, comma-separated)" });
    return z.NEVER;
  }
  try {
    createFactorSets(
      sets,
      files.map((file) => (file === BUNDLED_FACTOR_SET ? `the bundled set (${BUNDLED_FACTOR_SET})` : file)),
    );
  } catch (error) {
    // The sets are valid one by one: what is left is two of one year.
    ctx.addIssue({ code: "custom", message: (error as Error).message });
    return z.NEVER;
  }
  return sets;
});

/** What `SMTP_URL` must look like; its value is never repeated in the error (it holds the password). */
const SMTP_URL_FORMAT = "an SMTP URL, smtp://user:password@host:587 or smtps://user:password@host:465";

/** A TCP port number (0: any free port). */
const port = z.coerce.number().int().min(0).max(65535);

/** The server's configuration, read from the environment (see the README's table). */
export const ServerConfig = z
  .object({
    PORT: port.default(3000),
    HOST: z.string().min(1).default("127.0.0.1"),
    DATABASE_URL: z.string().min(1).default("./data/event-service.sqlite"),
    // Connections of each process's PostgreSQL pool: keep processes × size under the server's max_connections.
    DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(1000).default(10),
    // PostgreSQL: a statement, a lock wait or the wait for a pooled connection past this is a 503.
    DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(10).max(600_000).default(5_000),
    PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
    TLS_CERT: z.string().min(1).optional(),
    TLS_KEY: z.string().min(1).optional(),
    HTTP_REDIRECT_PORT: port.optional(),
    TRUST_PROXY: trustProxy.default(false),
    AUTH_FAILURE_LIMIT_PER_MINUTE: z.coerce
      .number()
      .int()
      .min(1)
      .max(1_000_000_000)
      .default(DEFAULT_AUTH_FAILURE_LIMIT_PER_MINUTE),
    DOOR_LINK_LIMIT_PER_MINUTE: z.coerce
      .number()
      .int()
      .min(1)
      .max(1_000_000_000)
      .default(DEFAULT_DOOR_LINK_LIMIT_PER_MINUTE),
    LOG_LEVEL: z.enum(["silent", "fatal", "error", "warn", "info", "debug", "trace"]).default("info"),
    SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
    WORKERS: z.coerce.number().int().min(1).max(64).default(1),
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: flag.default(false),
    CARBON_OFFSET_PRICE_USD_PER_TONNE: z.coerce.number().positive().max(1_000_000).optional(),
    LOCAL_SOURCING_RADIUS_KM: z.coerce.number().positive().max(20_040).optional(),
    LOCAL_SOURCING_TARGET_PERCENT: z.coerce.number().min(0).max(100).optional(),
    EMISSION_FACTORS_FILE: emissionFactorsFile.optional(),
    WEBHOOK_RETRY_DELAYS_MS: z
      .string()
      .regex(/^\s*\d+(\s*,\s*\d+)*\s*$/, "a comma-separated list of milliseconds, e.g. 0,60000,600000,3600000")
      .transform((list) => list.split(",").map((ms) => Number(ms.trim())))
      .optional(),
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(1).max(60_000).default(5_000),
    WEBHOOK_RETENTION_DAYS: z.coerce.number().int().min(0).max(3650).default(30),
    // Unset: no /metrics. A short token could be guessed; 16 characters is the floor (`openssl rand -hex 32` makes one).
    METRICS_TOKEN: z
      .string()
      .min(16, "at least 16 characters")
      .max(1024)
      .regex(/^[\x21-\x7e]+$/, "printable ASCII without spaces")
      .optional(),
    CORS_ORIGINS: z
      .string()
      .transform((list, ctx) => {
        try {
          return parseCorsOrigins(list);
        } catch (error) {
          ctx.addIssue({ code: "custom", message: (error as Error).message });
          return z.NEVER;
        }
      })
      .optional(),
    WEBHOOK_SECRET_OVERLAP_MS: z.coerce
      .number()
      .int()
      .min(0)
      .max(30 * 24 * 3_600_000)
      .default(24 * 3_600_000),
    // Unset: payments are recorded by hand. Never logged.
    STRIPE_SECRET_KEY: z
      .string()
      .regex(/^(sk|rk)_(test|live)_[A-Za-z0-9]+$/, "a Stripe secret or restricted key, sk_live_... or sk_test_...")
      .optional(),
    STRIPE_WEBHOOK_SECRET: z
      .string()
      .transform((list) =>
        list
          .split(",")
          .map((secret) => secret.trim())
          .filter(Boolean),
      )
      .pipe(z.array(z.string().regex(/^whsec_\S+$/, "webhook signing secrets, whsec_..., comma-separated")).min(1))
      .optional(),
    // Where the SDK sends its requests: Stripe's own by default; a local stand-in (stripe-mock) for tests.
    STRIPE_API_URL: z
      .url({ protocol: /^https?$/ })
      .transform((url) => new URL(url))
      .optional(),
    PAYMENT_HOLD_MINUTES: z.coerce
      .number()
      .positive()
      .max(7 * 24 * 60)
      .default(30),
    PAYMENT_WORKER_INTERVAL_MS: z.coerce.number().int().min(50).max(3_600_000).default(5_000),
    // Unset: nothing is emailed. Holds the SMTP password: never logged whole (redactSmtpUrl).
    SMTP_URL: z
      .url({ protocol: /^smtps?$/, hostname: /./, error: SMTP_URL_FORMAT })
      .transform((url) => new URL(url))
      .optional(),
    EMAIL_FROM: z
      .string()
      .max(320)
      .regex(
        /^(?:[^\r\n<>]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/,
        'an address, events@example.com, or a name and an address, "Green Events <events@example.com>"',
      )
      .optional(),
    EMAIL_RETRY_DELAYS_MS: z
      .string()
      .regex(/^\s*\d+(\s*,\s*\d+)*\s*$/, "a comma-separated list of milliseconds, e.g. 60000,300000,1800000")
      .transform((list) => list.split(",").map((ms) => Number(ms.trim())))
      .optional(),
  })
  .superRefine((config, ctx) => {
    if ((config.TLS_CERT === undefined) !== (config.TLS_KEY === undefined)) {
      ctx.addIssue({
        code: "custom",
        path: [config.TLS_CERT ? "TLS_KEY" : "TLS_CERT"],
        message: "TLS_CERT and TLS_KEY go together",
      });
    }
    if (config.STRIPE_SECRET_KEY !== undefined && config.STRIPE_WEBHOOK_SECRET === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["STRIPE_WEBHOOK_SECRET"],
        message: "STRIPE_SECRET_KEY needs the webhook endpoint's signing secret, or payments would never be confirmed",
      });
    }
    if (config.SMTP_URL !== undefined && config.EMAIL_FROM === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["EMAIL_FROM"],
        message: "SMTP_URL needs EMAIL_FROM, the address the emails are sent from",
      });
    }
    if (config.HTTP_REDIRECT_PORT !== undefined && config.TLS_CERT === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["HTTP_REDIRECT_PORT"],
        message: "redirects to HTTPS need TLS_CERT and TLS_KEY",
      });
    }
  });
export type ServerConfig = z.output<typeof ServerConfig>;

/** The environment variables the server reads. */
export const CONFIG_VARIABLES = [
  "PORT",
  "HOST",
  "DATABASE_URL",
  "DATABASE_POOL_SIZE",
  "DATABASE_STATEMENT_TIMEOUT_MS",
  "PUBLIC_URL",
  "TLS_CERT",
  "TLS_KEY",
  "HTTP_REDIRECT_PORT",
  "TRUST_PROXY",
  "AUTH_FAILURE_LIMIT_PER_MINUTE",
  "DOOR_LINK_LIMIT_PER_MINUTE",
  "LOG_LEVEL",
  "SHUTDOWN_TIMEOUT_MS",
  "WEBHOOK_ALLOW_PRIVATE_NETWORKS",
  "WEBHOOK_RETRY_DELAYS_MS",
  "WEBHOOK_TIMEOUT_MS",
  "WEBHOOK_RETENTION_DAYS",
  "WEBHOOK_SECRET_OVERLAP_MS",
  "CARBON_OFFSET_PRICE_USD_PER_TONNE",
  "LOCAL_SOURCING_RADIUS_KM",
  "LOCAL_SOURCING_TARGET_PERCENT",
  "EMISSION_FACTORS_FILE",
  "METRICS_TOKEN",
  "CORS_ORIGINS",
  "WORKERS",
  "STRIPE_SECRET_KEY",
  "STRIPE_WEBHOOK_SECRET",
  "STRIPE_API_URL",
  "PAYMENT_HOLD_MINUTES",
  "PAYMENT_WORKER_INTERVAL_MS",
  "SMTP_URL",
  "EMAIL_FROM",
  "EMAIL_RETRY_DELAYS_MS",
] as const;

/** Reads the configuration from `env`; throws an error naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): ServerConfig {
  const relevant = Object.fromEntries(CONFIG_VARIABLES.map((name) => [name, env[name] === "" ? undefined : env[name]]));
  const result = ServerConfig.safeParse(relevant);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ");
  throw new Error(`Invalid configuration: ${problems}`);
}
