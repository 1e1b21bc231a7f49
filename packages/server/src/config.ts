import * as z from "zod";

const flag = z
  .enum(["true", "false", "1", "0", "yes", "no", ""])
  .transform((value) => value === "true" || value === "1" || value === "yes");

/** The server's configuration, read from the environment (see the README's table). */
const port = z.coerce.number().int().min(0).max(65535);

export const ServerConfig = z
  .object({
    PORT: port.default(3000),
    HOST: z.string().min(1).default("127.0.0.1"),
    DATABASE_URL: z.string().min(1).default("./data/event-service.sqlite"),
    PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
    TLS_CERT: z.string().min(1).optional(),
    TLS_KEY: z.string().min(1).optional(),
    HTTP_REDIRECT_PORT: port.optional(),
    TRUST_PROXY: flag.default(false),
    LOG_LEVEL: z.enum(["silent", "fatal", "error", "warn", "info", "debug", "trace"]).default("info"),
    SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: flag.default(false),
    CARBON_OFFSET_PRICE_USD_PER_TONNE: z.coerce.number().positive().max(1_000_000).optional(),
    WEBHOOK_RETRY_DELAYS_MS: z
      .string()
      .regex(/^\s*\d+(\s*,\s*\d+)*\s*$/, "a comma-separated list of milliseconds, e.g. 0,60000,600000,3600000")
      .transform((list) => list.split(",").map((ms) => Number(ms.trim())))
      .optional(),
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(1).max(60_000).default(5_000),
    WEBHOOK_SECRET_OVERLAP_MS: z.coerce.number().int().min(0).max(30 * 24 * 3_600_000).default(24 * 3_600_000),
  })
  .superRefine((config, ctx) => {
    if ((config.TLS_CERT === undefined) !== (config.TLS_KEY === undefined)) {
      ctx.addIssue({ code: "custom", path: [config.TLS_CERT ? "TLS_KEY" : "TLS_CERT"], message: "TLS_CERT and TLS_KEY go together" });
    }
    if (config.HTTP_REDIRECT_PORT !== undefined && config.TLS_CERT === undefined) {
      ctx.addIssue({ code: "custom", path: ["HTTP_REDIRECT_PORT"], message: "redirects to HTTPS need TLS_CERT and TLS_KEY" });
    }
  });
export type ServerConfig = z.output<typeof ServerConfig>;

/** The environment variables the server reads. */
export const CONFIG_VARIABLES = [
  "PORT", "HOST", "DATABASE_URL", "PUBLIC_URL", "TLS_CERT", "TLS_KEY", "HTTP_REDIRECT_PORT", "TRUST_PROXY", "LOG_LEVEL", "SHUTDOWN_TIMEOUT_MS",
  "WEBHOOK_ALLOW_PRIVATE_NETWORKS", "WEBHOOK_RETRY_DELAYS_MS", "WEBHOOK_TIMEOUT_MS", "WEBHOOK_SECRET_OVERLAP_MS",
  "CARBON_OFFSET_PRICE_USD_PER_TONNE",
] as const;

/** Reads the configuration from `env`; throws an error naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): ServerConfig {
  const relevant = Object.fromEntries(CONFIG_VARIABLES.map((name) => [name, env[name] === "" ? undefined : env[name]]));
  const result = ServerConfig.safeParse(relevant);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ");
  throw new Error(`Invalid configuration: ${problems}`);
}
