/**
 * @event-service/server: the bundled Event Service server. Most users run its CLI
 * (`npx event-service serve`); this module lets a script start the same server.
 */
export { createApp } from "./app.ts";
export { loadConfig, ServerConfig } from "./config.ts";
export { createLog, startServer } from "./server.ts";
export type { RunningServer } from "./server.ts";
export { openSqlite, sqlitePath } from "./sqlite.ts";
