import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { pino } from "pino";
import { createLogger, LOG_FLUSH_MS } from "../src/log.ts";

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
