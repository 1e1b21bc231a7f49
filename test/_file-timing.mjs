/**
 * Loaded (`--import`) into each test file's process by `test/run.ts`: when the process exits, it
 * appends the file's path (its source's, TEST_SOURCE_FILE, when it runs compiled), how long its
 * process ran and the CPU time it used to `TEST_TIMINGS_FILE`, with the database it ran on, so the
 * runner can tell each file's CPU time. The CPU time counts the servers and CLI processes the file
 * started and waited for: on a shared machine it says what a file costs better than its wall
 * time, which other processes' load stretches. Plain JavaScript: it loads with or without tsx.
 */
import { appendFileSync, readFileSync } from "node:fs";

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

// Only the test file's own process: its servers and the processes it spawns inherit the
// environment, but not its script.
if (out && file !== undefined && file === process.env.TEST_TIMED_FILE) {
  process.on("exit", () =>
    appendFileSync(
      out,
      `${process.env.TEST_SOURCE_FILE ?? file}\t${process.uptime().toFixed(1)}\t${cpuSeconds().toFixed(1)}\t${process.env.E2E_BACKEND ?? "sqlite"}\n`,
    ),
  );
}
