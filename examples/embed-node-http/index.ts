/**
 * Event Service inside an existing node:http app, under /events-api. The app keeps its own
 * routes; everything below the prefix goes to core's web-standard handler through srvx's Node
 * adapter. Run: `npx tsx index.ts` (PORT, DATABASE_FILE optional).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createEventService, createHandler, createSqlStorage } from "@event-service/core";
import { SQLITE_PRAGMAS } from "@event-service/core/sqlite";
import Database from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import type { NodeHttp1Handler } from "srvx";
import { toNodeHandler } from "srvx/node";

const sqlite = new Database(process.env.DATABASE_FILE ?? ":memory:");
for (const pragma of SQLITE_PRAGMAS) sqlite.pragma(pragma);
const storage = createSqlStorage({ db: new Kysely({ dialect: new SqliteDialect({ database: sqlite }) }) });
await storage.migrate();

const service = createEventService({ storage });
// Links (qrCode, documentation) point at where this app listens, known once it does: never at a
// request's Host header. Behind a public address, give the service `publicUrl` instead.
let origin = "http://127.0.0.1:3000";
// An HTTP/1 server here, so the adapter is used as the HTTP/1 handler it also is.
const handler = createHandler(service, { basePath: "/events-api", linkOrigin: () => origin });
const events = toNodeHandler(handler) as NodeHttp1Handler;

const server = createServer((req, res) => {
  if (req.url === "/events-api" || req.url?.startsWith("/events-api/")) return events(req, res);
  // The app's own routes.
  res.writeHead(200, { "content-type": "text/plain" }).end("Hello from the host app\n");
});

server.listen(Number(process.env.PORT ?? 3000), "127.0.0.1", async () => {
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  const { key } = await service.keys.create({ account: "Host app", tier: "professional" });
  console.log(JSON.stringify({ url: `http://127.0.0.1:${port}`, api: `http://127.0.0.1:${port}/events-api/v1`, key }));
});

// Stop accepting, let requests in flight finish, give back the unspent rate-limit counts, then close the store.
process.once("SIGTERM", () => server.close(() => void handler.close().finally(() => storage.close())));
