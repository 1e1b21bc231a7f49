import * as z from "zod";

const flag = z
  .enum(["true", "false", "1", "0", "yes", "no", ""])
  .transform((value) => value === "true" || value === "1" || value === "yes");

/** The server's configuration, read from the environment (see the README's table). */
export const ServerConfig = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default("127.0.0.1"),
  DATABASE_URL: z.string().min(1).default("./data/event-service.sqlite"),
  PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  TRUST_PROXY: flag.default(false),
  LOG_LEVEL: z.enum(["silent", "error", "warn", "info", "debug"]).default("info"),
});
export type ServerConfig = z.output<typeof ServerConfig>;

/** Reads the configuration from `env`; throws an error naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): ServerConfig {
  const relevant = Object.fromEntries(Object.keys(ServerConfig.shape).map((name) => [name, env[name] === "" ? undefined : env[name]]));
  const result = ServerConfig.safeParse(relevant);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ");
  throw new Error(`Invalid configuration: ${problems}`);
}
