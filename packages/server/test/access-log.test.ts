import assert from "node:assert/strict";
import { test } from "node:test";
import { pino } from "pino";
import { loadConfig } from "../src/config.ts";
import { startServer } from "../src/server.ts";

test("the access log: one line per request with the client address; a 503 at warn", async () => {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino(
    { level: "info", base: undefined },
    { write: (line: string) => void lines.push(JSON.parse(line)) },
  );
  const server = await startServer(loadConfig({ PORT: "0", DATABASE_URL: ":memory:" }), logger);
  try {
    assert.equal((await fetch(`${server.url}health`)).status, 200);
    assert.equal((await fetch(`${server.url}v1/events`)).status, 401);
    // The store goes away: health answers 503 once its last ping (remembered for a second) is
    // stale, which an operator should see.
    await server.service.storage.close();
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    assert.equal((await fetch(`${server.url}health`)).status, 503);
  } finally {
    await server.close().catch(() => {});
  }
  const requests = lines.filter((line) => line.msg === "request");
  assert.deepEqual(
    requests.map(({ level, path, status, clientAddress }) => ({ level, path, status, clientAddress })),
    [
      { level: 30, path: "/health", status: 200, clientAddress: "127.0.0.1" },
      { level: 30, path: "/v1/events", status: 401, clientAddress: "127.0.0.1" },
      { level: 40, path: "/health", status: 503, clientAddress: "127.0.0.1" },
    ],
  );
});
