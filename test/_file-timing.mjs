/**
 * Loaded (`--import`) into each test file's process by `test/run.ts`: when the process exits, it
 * appends the file's name, how long its process ran and the CPU time it used to
 * `TEST_TIMINGS_FILE`, so the runner can name the slowest files (node's reporters see a file's
 * events late, when earlier files' reports are done, so their clocks cannot tell). The CPU time
 * counts the servers and CLI processes the file started and waited for: on a shared machine it
 * says what a file costs better than its wall time, which other processes' load stretches.
 * Plain JavaScript: it loads beside tsx.
 */
import { appendFileSync, readFileSync } from "node:fs";
import { relative } from "node:path";

const out = process.env.TEST_TIMINGS_FILE;
const file = process.argv[1];

/** User and system time of this process and its waited-for children, in seconds (Linux; else this process only). */
function cpuSeconds() {
  try {
    // Fields after the command name: utime, stime, cutime, cstime are the 12th to 15th, in clock ticks (100 a second).
    const stat = readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields.slice(11, 15).reduce((sum, ticks) => sum + Number(ticks), 0) / 100;
  } catch {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1e6;
  }
}

// Only a test file's own process: the runner's process has no test file as its script.
if (out && /\.test\.m?[jt]s$/.test(file ?? "") && process.env.NODE_TEST_CONTEXT) {
  process.on("exit", () =>
    appendFileSync(
      out,
      `${relative(process.cwd(), file)}\t${process.uptime().toFixed(1)}\t${cpuSeconds().toFixed(1)}\n`,
    ),
  );
}
