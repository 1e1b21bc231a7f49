/**
 * @event-service/server: the bundled Event Service server. Most users run its CLI
 * (`npx event-service serve`); this module lets a script start the same server.
 */
export { createApp } from "./app.ts";
export { CONFIG_VARIABLES, loadConfig, ServerConfig } from "./config.ts";
export { createLogger } from "./log.ts";
export {
  ATTEMPT_OUTCOMES,
  BACKLOG_STATES,
  createMetrics,
  DISABLE_REASONS,
  RATE_LIMIT_KINDS,
  UNMATCHED_ROUTE,
} from "./metrics.ts";
export type { AttemptInfo, Metrics, MetricsOptions } from "./metrics.ts";
export type { Logger } from "./log.ts";
export { createRedirectServer } from "./redirect.ts";
export { startServer } from "./server.ts";
export type { RunningServer } from "./server.ts";
export { openSqlite, type OpenSqliteOptions, sqlitePath } from "./sqlite.ts";
export { isPostgresUrl, openDatabase, redactDatabaseUrl } from "./database.ts";
export type { DatabaseOptions } from "./database.ts";
