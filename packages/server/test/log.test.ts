import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { pino } from "pino";
import type { RequestLogEntry } from "@event-service/core";
import { createLogger, LOG_FLUSH_MS, requestLine, requestLogger } from "../src/log.ts";

test("the logger gathers lines into writes of whole lines below PIPE_BUF, flushed at least every 100 ms", () => {
  const logger = createLogger("info");
  const destination = (logger as unknown as Record<symbol, { minLength: number; maxWrite: number }>)[
    pino.symbols.streamSym
  ]!;
  assert.equal(destination.maxWrite, 4096);
  assert.equal(destination.minLength, 3584);
  assert.equal(LOG_FLUSH_MS, 100);
});

test("a quiet server's one line is written without waiting for others", async () => {
  const log = fileURLToPath(new URL("../src/log.ts", import.meta.url));
  // One line, then the process stays up (a server with nothing more to say) until killed.
  const script = `import { createLogger } from ${JSON.stringify(log)};
createLogger("info").info({ port: 1 }, "listening");
setInterval(() => {}, 60_000);`;
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    let out = "";
    while (!out.includes("\n")) {
      const [chunk] = (await once(child.stdout!, "data")) as [Buffer];
      out += chunk;
    }
    const line = JSON.parse(out.split("\n")[0]!) as Record<string, unknown>;
    assert.equal(line.msg, "listening");
    assert.equal(line.port, 1);
  } finally {
    child.kill();
  }
});

test("a request's line is what pino writes for it, character for character", () => {
  const time = `,"time":"2038-05-01T09:00:00.123Z"`;
  // Every field of the entry (Required: a field added to RequestLogEntry must be added here too).
  const full: Required<RequestLogEntry> = {
    requestId: "9b2f0c4e-3a1d-4a7e-8f5b-1c2d3e4f5a6b",
    method: "GET",
    path: "/v1/events/evt_01J",
    status: 200,
    durationMs: 1.23,
    route: "/v1/events/:id",
    accountId: "acc_01J",
    clientAddress: "::ffff:127.0.0.1",
  };
  const entries: RequestLogEntry[] = [
    full,
    { requestId: "r-1", method: "POST", path: "/v1/attendees", status: 201, durationMs: 12 },
    { ...full, status: 503, durationMs: 0, route: "/health" },
    // What a client may put in a path: quotes, backslashes, control and non-ASCII characters, a lone surrogate.
    { ...full, path: '/v1/"quoted"\\back\u0001slash/ünï/😀/\ud800/x' },
  ];
  for (const bindings of [undefined, { pid: 4242 }]) {
    const lines: string[] = [];
    const reference = pino(
      { level: "info", base: bindings, timestamp: () => time },
      { write: (line: string) => void lines.push(line) },
    );
    for (const entry of entries) {
      const level = entry.status === 503 ? "warn" : "info";
      reference[level](entry, "request");
      assert.equal(requestLine(entry, level, time, bindings ? `,"pid":4242` : ""), lines.at(-1));
    }
  }
});

test("requestLogger writes to createLogger's loggers above their level only, and calls any other logger", () => {
  const lines: Array<Record<string, unknown>> = [];
  const other = pino(
    { level: "warn", base: undefined },
    { write: (line: string) => void lines.push(JSON.parse(line)) },
  );
  const log = requestLogger(other);
  const entry = { requestId: "r", method: "GET", path: "/health", status: 200, durationMs: 1 };
  log(entry);
  log({ ...entry, status: 503 });
  assert.deepEqual(
    lines.map(({ level, status, msg }) => ({ level, status, msg })),
    [{ level: 40, status: 503, msg: "request" }],
  );
});

test("createLogger's request lines carry its bindings and honour its level", async () => {
  const log = fileURLToPath(new URL("../src/log.ts", import.meta.url));
  const script = `import { createLogger, requestLogger } from ${JSON.stringify(log)};
const logRequest = requestLogger(createLogger("warn", { pid: 7 }));
const entry = { requestId: "r", method: "GET", path: "/health", status: 200, durationMs: 1 };
logRequest(entry);
logRequest({ ...entry, status: 503 });`;
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout!.on("data", (chunk: Buffer) => (out += chunk));
  await once(child, "close");
  const lines = out
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  assert.deepEqual(
    lines.map(({ level, pid, status, msg }) => ({ level, pid, status, msg })),
    [{ level: 40, pid: 7, status: 503, msg: "request" }],
  );
});
