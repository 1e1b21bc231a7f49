/**
 * Loaded (`--import`) into each test file's process by `test/run.ts`: when the process exits, it
 * appends the file's name and how long its process ran to `TEST_TIMINGS_FILE`, so the runner
 * can name the slowest files (node's reporters see a file's events late, when earlier files'
 * reports are done, so their clocks cannot tell). Plain JavaScript: it loads beside tsx.
 */
import { appendFileSync } from "node:fs";
import { relative } from "node:path";

const out = process.env.TEST_TIMINGS_FILE;
const file = process.argv[1];
// Only a test file's own process: the runner's process has no test file as its script.
if (out && file?.endsWith(".test.ts") && process.env.NODE_TEST_CONTEXT) {
  process.on("exit", () => appendFileSync(out, `${relative(process.cwd(), file)}\t${process.uptime().toFixed(1)}\n`));
}
