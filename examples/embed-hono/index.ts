/**
 * Event Service inside an existing Hono app, under /events. Hono hands core the web-standard
 * Request as it is; core's `basePath` strips the prefix and keeps it in the links it hands out.
 * Run: `npx tsx index.ts` (PORT, DATABASE_FILE optional).
 */
import { createEventService, createHandler, createSqlStorage } from "@event-service/core";
import { SQLITE_PRAGMAS } from "@event-service/core/sqlite";
import { serve } from "@hono/node-server";
import Database from "better-sqlite3";
import { Hono } from "hono";
import { Kysely, SqliteDialect } from "kysely";

const sqlite = new Database(process.env.DATABASE_FILE ?? ":memory:");
for (const pragma of SQLITE_PRAGMAS) sqlite.pragma(pragma);
const storage = createSqlStorage({ db: new Kysely({ dialect: new SqliteDialect({ database: sqlite }) }) });
await storage.migrate();
const service = createEventService({ storage });
// Links (qrCode, documentation) point at where this app listens, known once it does: never at a
// request's Host header. Behind a public address, give the service `publicUrl` instead.
let origin = "http://127.0.0.1:3000";
const events = createHandler(service, { basePath: "/events", linkOrigin: () => origin });

const app = new Hono();
app.get("/", (c) => c.text("Hello from the Hono app\n"));
app.all("/events/*", (c) => events(c.req.raw));

const server = serve(
  { fetch: app.fetch, port: Number(process.env.PORT ?? 3000), hostname: "127.0.0.1" },
  async (info) => {
    origin = `http://127.0.0.1:${info.port}`;
    const { key } = await service.keys.create({ account: "Hono app", tier: "professional" });
    console.log(
      JSON.stringify({ url: `http://127.0.0.1:${info.port}`, api: `http://127.0.0.1:${info.port}/events/v1`, key }),
    );
  },
);

// Requests done: give back the unspent rate-limit counts, then close the store.
process.once("SIGTERM", () => server.close(() => void events.close().finally(() => storage.close())));
