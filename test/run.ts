/**
 * `npm test`'s runner (after the build and the type check): every unit and end-to-end test on
 * SQLite and, when `TEST_DATABASE_URL` names a PostgreSQL server (an admin connection that may
 * CREATE DATABASE), the end-to-end files that use a database once more with
 * `E2E_BACKEND=postgres`, each server on a fresh database of its own. Without it, says that
 * PostgreSQL was skipped. Exits non-zero when any run fails.
 *
 * Both runs share one pool of processes, five files at a time (TEST_CONCURRENCY): an end-to-end
 * file mostly waits on the servers, databases and browser it started, so five at once keep two
 * cores busy. Each file runs in a process of its own with node's test runner inside it (no
 * runner process beside each), compiled beforehand (compile.ts), the longest first by the last
 * run's durations here (kept in node_modules/.cache), so that no file is left running alone at
 * the end; where two runs had a pool each, the PostgreSQL run went on alone at two files at a time after the SQLite run ended.
 * Each file's report is printed whole when it ends.
 * `TEST_EXCLUDE=a.test.ts,b.test.ts` leaves those files out of both runs (e.g. `faults.test.ts`,
 * which needs root, on a machine where someone else may be running it), and says so.
 *
 * The packages' unit test files share two processes (see UNIT_TESTS below), and the keys of every
 * end-to-end file are made in this process (startKeyService, _setup.ts's KEY_SERVICE): both
 * spare each test process loading core's code again. Each file's wall and CPU time go to the
 * summary (_file-timing.mjs).
 *
 * `faults.test.ts` runs in both: its disk-full test in the SQLite run, its PostgreSQL faults in
 * the PostgreSQL run, on a cluster of their own (port 5433) that they restart and kill without
 * disturbing the files running beside them.
 */
import { spawn } from "node:child_process";
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { POSTGRES_SKIP, ROOT, startKeyService } from "./_setup.ts";
import { compileTests } from "./compile.ts";

/**
 * End-to-end files that touch no database of the server, left out of the PostgreSQL run: the
 * browser, package, client-package, dependency-telemetry, OpenAPI-types and examples tests check
 * builds, packages and documents (their servers' storage plays no part), the fuzz test feeds
 * the request parser, which answers before any storage is reached, and the Stripe stand-in's test
 * starts no server of ours. The pages' browser tests (the vendor, ticket and door pages, the
 * printable report) drive the same handler whatever the store: what those pages write runs on
 * PostgreSQL in vendors, ticket-link, stripe-checkout, email and check-in-links (the door's scans,
 * concurrent and replayed by Idempotency-Key), so Chromium starts once per run, not twice.
 */
const NOT_DATABASE_BACKED = new Set([
  "browser.test.ts",
  "pages-browser.test.ts",
  "door-browser.test.ts",
  "report-browser.test.ts",
  "packages.test.ts",
  "client-package.test.ts",
  "dependency-telemetry.test.ts",
  "openapi-types.test.ts",
  "examples.test.ts",
  "fuzz.test.ts",
  "stripe-stand-in.test.ts",
]);

/**
 * The files that take longest, longest first, for the order of a run with no durations recorded
 * on this machine yet (a fresh clone's); the rest follow in alphabetical order. Each database has
 * its own, as measured in full runs on the 2-core machine: on
 * SQLite the storage unit tests, waiting on PostgreSQL, run longest (cli.test.ts and the
 * festival's footprint, once first, run their commands in process and register fewer attendees);
 * on PostgreSQL the files that write a lot (export, events, attendees, erasure, vendors) take two
 * to five times as long as on SQLite, and vendors.test.ts, last in alphabetical order, ended
 * alone.
 */
const SLOW_FIRST = [
  "storage unit tests",
  "unit tests",
  "test/fuzz.test.ts",
  "packages/server/test/cli.test.ts",
  "test/examples.test.ts",
  "test/festival-footprint.test.ts",
  "test/webhook-signing.test.ts",
  "test/abuse-limits.test.ts",
  "test/auth.test.ts",
  "test/vendors.test.ts",
  "test/stripe-payments.test.ts",
  "test/workers.test.ts",
  "test/attendees.test.ts",
  "test/client-package.test.ts",
  "test/webhook-retries.test.ts",
  "test/https.test.ts",
  "test/export.test.ts",
  "test/openapi-types.test.ts",
  "test/emission-factors.test.ts",
  "test/links.test.ts",
  "test/shutdown.test.ts",
  "test/faults.test.ts",
  "test/browser.test.ts",
  "test/multi-process.test.ts",
];
const SLOW_FIRST_ON_POSTGRES = [
  "test/faults.test.ts",
  "test/festival-footprint.test.ts",
  "test/stripe-payments.test.ts",
  "test/export.test.ts",
  "test/auth.test.ts",
  "test/abuse-limits.test.ts",
  "test/vendors.test.ts",
  "test/events.test.ts",
  "test/attendees.test.ts",
  "test/erasure.test.ts",
  "test/webhook-signing.test.ts",
  "test/multi-process.test.ts",
  "test/client.test.ts",
  "test/shutdown.test.ts",
  "test/client-vendors.test.ts",
  "test/activities.test.ts",
  "test/analytics.test.ts",
  "test/errors.test.ts",
  "test/thresholds.test.ts",
  "test/https.test.ts",
  "test/concurrency.test.ts",
  "test/crash.test.ts",
  "test/check-in.test.ts",
  "test/links.test.ts",
  "test/webhook-retries.test.ts",
  "test/workers.test.ts",
];
/** How SLOW_FIRST names a file: the unit tests' modules by what they run. */
const orderKey = (file: string) =>
  file === UNIT_TESTS.path ? "unit tests" : file === STORAGE_TESTS.path ? "storage unit tests" : file;

const excluded = new Set(
  (process.env.TEST_EXCLUDE ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean),
);
if (excluded.size > 0) console.log(`=== TEST_EXCLUDE: leaving out ${[...excluded].join(", ")}`);

const testFiles = (dir: string) =>
  readdirSync(join(ROOT, dir))
    .filter((name) => name.endsWith(".test.ts") && !excluded.has(name))
    .sort()
    .map((name) => join(dir, name));

const packageTests = readdirSync(join(ROOT, "packages")).flatMap((name) => {
  try {
    return testFiles(join("packages", name, "test"));
  } catch {
    return [];
  }
});
const e2e = testFiles("test");

/** One line per failed test, from every run (see `_failures-reporter.mjs`). */
const failed: string[] = [];
const reportsDir = mkdtempSync(join(tmpdir(), "event-service-tests-"));

/**
 * The packages' unit test files run in two processes (STORAGE_UNIT_TESTS in the second), all
 * but those that spend their time in processes of their own (cli.test.ts): in a process each,
 * every file loaded core's sources again through tsx's loader, a second or more of CPU per file
 * (the 47 files: some 70 s of CPU apart, 19 s in one process). Each process runs a module
 * written here that imports its files, statically: node's runner takes the tests a module
 * registers while it loads, not those registered after the last one ended. Sharing a process, a
 * unit test file must leave no global state behind (environment, globals, process listeners),
 * and none does. Failures still name their own file, and each file still runs alone with
 * `node --test`.
 */
const OWN_PROCESS = new Set(["packages/server/test/cli.test.ts"]);
/**
 * The unit test files that spend their time waiting on the databases they open (the storage
 * contract and the other files run on every backend, PostgreSQL's errors) share a second
 * process. In one process, the unit tests ran one after another for some 55 s alone and 145 to
 * 175 s in a full run, the longest chain of the SQLite run, while they used under 30 s of CPU;
 * two chains of about half that run side by side, for some 1.5 s more CPU (core's sources loaded
 * twice).
 */
const STORAGE_UNIT_TESTS = new Set(
  [
    "storage.test.ts",
    "service-transactions.test.ts",
    "storage-races.test.ts",
    "storage-concurrency.test.ts",
    "dialect.test.ts",
    "kept-tallies.test.ts",
    "analytics.test.ts",
    "carbon.test.ts",
  ].map((name) => join("packages/core/test", name)),
);
/** A module that imports `files`, written to the reports' folder as `name`. */
function unitModule(name: string, files: string[]) {
  const path = join(reportsDir, name);
  writeFileSync(
    path,
    files.map((file) => `import ${JSON.stringify(pathToFileURL(join(ROOT, file)).href)};\n`).join(""),
  );
  return { path, files };
}
const UNIT_TESTS = unitModule(
  "unit-tests.test.mjs",
  packageTests.filter((file) => !OWN_PROCESS.has(file) && !STORAGE_UNIT_TESTS.has(file)),
);
const STORAGE_TESTS = unitModule(
  "unit-tests-storage.test.mjs",
  packageTests.filter((file) => STORAGE_UNIT_TESTS.has(file)),
);
/** How the summary names a file: the generated modules by what they run. */
const shownAs = (file: string) => {
  for (const [module, what] of [
    [UNIT_TESTS, "unit tests"],
    [STORAGE_TESTS, "storage unit tests"],
  ] as const)
    if (file.endsWith(basename(module.path))) return `${what} (${module.files.length} files in one process)`;
  return file;
};
/** The files of the SQLite run: the unit tests' modules stand for them in SLOW_FIRST as "unit tests" and "storage unit tests". */
const sqliteFiles = [
  UNIT_TESTS.path,
  STORAGE_TESTS.path,
  ...packageTests.filter((file) => OWN_PROCESS.has(file)),
  ...e2e,
];

/** A test file's run: the file and the database its servers use. */
interface Job {
  file: string;
  backend: "sqlite" | "postgres";
}
const BACKEND_NAMES = { sqlite: "SQLite", postgres: "PostgreSQL" } as const;
/** How a job is named in the log and the failures, stable from run to run (the unit modules by what they run). */
const jobName = (job: Job) => `${BACKEND_NAMES[job.backend]}: ${shownAs(job.file)}`;
const durationKey = (job: Job) => `${job.backend} ${orderKey(job.file)}`;

/**
 * How long each file took in the last run on this machine, kept in node_modules/.cache: the
 * longest start first, so that none is left running alone at the end. Without a record (a fresh
 * clone), SLOW_FIRST and SLOW_FIRST_ON_POSTGRES rank them.
 */
const DURATIONS = join(ROOT, "node_modules/.cache/test-durations.json");
function expectedSeconds(): (job: Job) => number {
  let measured: Record<string, number> = {};
  try {
    measured = JSON.parse(readFileSync(DURATIONS, "utf8")) as Record<string, number>;
  } catch {
    // No record yet.
  }
  return (job) => {
    const known = measured[durationKey(job)];
    if (known !== undefined) return known;
    const rank = (job.backend === "postgres" ? SLOW_FIRST_ON_POSTGRES : SLOW_FIRST).indexOf(orderKey(job.file));
    return rank === -1 ? 5 : 60 - rank;
  };
}

/** What a job's run came to. */
interface Outcome {
  job: Job;
  passed: boolean;
  seconds: number;
}

/**
 * Runs one file in a process of its own (node's test runner in the file's process: no runner
 * process beside it), its report gathered and printed whole when it ends; its failures, one line
 * each, go to `failed`. Resolves when the process has exited.
 */
function runJob(job: Job, index: number): Promise<Outcome> {
  const started = Date.now();
  const report = join(reportsDir, `${index}.failures.txt`);
  const path = resolve(ROOT, job.file);
  // A compiled file runs as it is (see compile.ts); the unit tests' modules, under tsx.
  const script = compiled.get(job.file);
  const chunks: Buffer[] = [];
  // --test-force-exit: a file whose tests are done exits even if a failed teardown left a handle
  // open (a receiver still listening), so the failure is reported instead of hanging the run.
  const child = spawn(
    process.execPath,
    [
      ...(script === undefined ? ["--import", "tsx"] : ["--enable-source-maps"]),
      "--import",
      pathToFileURL(join(ROOT, "test/_file-timing.mjs")).href,
      "--test-force-exit",
      "--test-reporter=spec",
      "--test-reporter-destination=stdout",
      `--test-reporter=${join(ROOT, "test/_failures-reporter.mjs")}`,
      `--test-reporter-destination=${report}`,
      script ?? path,
    ],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        E2E_BACKEND: job.backend,
        TEST_TIMINGS_FILE: timings,
        TEST_TIMED_FILE: script ?? path,
        TEST_SOURCE_FILE: path,
        TEST_KEY_SERVICE: keyService.url,
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  child.stdout!.on("data", (chunk: Buffer) => chunks.push(chunk));
  child.stderr!.on("data", (chunk: Buffer) => chunks.push(chunk));
  return new Promise((resolvePromise) =>
    child.on("close", (code, signal) => {
      const seconds = (Date.now() - started) / 1000;
      const passed = code === 0;
      let lines: string[] = [];
      try {
        lines = readFileSync(report, "utf8").split("\n").filter(Boolean);
      } catch {
        // No report: the process died before writing one; its status says so below.
      }
      for (const line of lines) failed.push(`${BACKEND_NAMES[job.backend]}: ${line}`);
      if (!passed && lines.length === 0)
        failed.push(`${jobName(job)}: the process exited with ${code ?? signal} (its output above says why)`);
      console.log(
        `\n=== ${jobName(job)}: ${passed ? "passed" : `FAILED (${code ?? signal})`} in ${Math.round(seconds)} s`,
      );
      process.stdout.write(Buffer.concat(chunks));
      resolvePromise({ job, passed, seconds });
    }),
  );
}

/**
 * The eight files whose processes ran longest on `backend`, from `_file-timing.mjs`'s lines, each
 * with the CPU time it used (its servers' included), and the CPU time of all that backend's files.
 */
function slowestFiles(outcomes: Outcome[], backend: Job["backend"]): string {
  const cpuOf = new Map<string, number>();
  try {
    for (const line of readFileSync(timings, "utf8").split("\n")) {
      const [file, , cpu, ran] = line.split("\t");
      if (file && ran === backend) cpuOf.set(file, Number(cpu ?? 0));
    }
  } catch {
    // No timings: the CPU times are left out.
  }
  const mine = outcomes.filter((outcome) => outcome.job.backend === backend);
  const cpu = (outcome: Outcome) => cpuOf.get(resolve(ROOT, outcome.job.file)) ?? 0;
  const slow = [...mine]
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, 8)
    .map(
      (outcome) => `${shownAs(outcome.job.file)} ${Math.round(outcome.seconds)} s (CPU ${Math.round(cpu(outcome))} s)`,
    )
    .join(", ");
  return `${slow}; CPU of all its files ${Math.round(mine.reduce((sum, outcome) => sum + cpu(outcome), 0))} s`;
}

const started = Date.now();
const timings = join(reportsDir, "timings.txt");
// Keys for every file of both runs are made here, in one process (see _setup.ts's KEY_SERVICE).
const keyService = await startKeyService();
const onPostgres = e2e.filter((file) => !NOT_DATABASE_BACKED.has(file.slice("test/".length)));
const jobs: Job[] = [
  ...sqliteFiles.map((file) => ({ file, backend: "sqlite" as const })),
  ...(POSTGRES_SKIP ? [] : onPostgres.map((file) => ({ file, backend: "postgres" as const }))),
];
// Every file but the unit tests' modules (which import the packages' sources by the hundred,
// once a process) compiled in one go: see compile.ts.
const compiled = await compileTests(
  [...new Set(jobs.map((job) => job.file))].filter((file) => file !== UNIT_TESTS.path && file !== STORAGE_TESTS.path),
);
const expected = expectedSeconds();
// Longest first; a stable order among equals (the files' own).
const queue = jobs
  .map((job, index) => ({ job, index, seconds: expected(job) }))
  .sort((a, b) => b.seconds - a.seconds || a.index - b.index)
  .map(({ job }) => job);
/**
 * Files at once: an end-to-end file mostly waits on the servers, the databases and the browser
 * it started, so five keep two cores busy; TEST_CONCURRENCY sets it.
 */
const concurrency = Number(process.env.TEST_CONCURRENCY) || 5;
console.log(
  `=== ${jobs.length} test files, ${concurrency} at a time: ${sqliteFiles.length} on SQLite${POSTGRES_SKIP ? "" : `, ${onPostgres.length} on PostgreSQL (E2E_BACKEND=postgres)`}; each file's report follows when it ends`,
);
const outcomes: Outcome[] = [];
let next = 0;
await Promise.all(
  Array.from({ length: Math.min(concurrency, queue.length) }, async () => {
    while (next < queue.length) {
      const index = next++;
      outcomes.push(await runJob(queue[index]!, index));
    }
  }),
);
await keyService.close();

// This machine's durations, for the next run's order.
const durations: Record<string, number> = {};
for (const { job, seconds } of outcomes) durations[durationKey(job)] = Math.round(seconds * 10) / 10;
try {
  mkdirSync(dirname(DURATIONS), { recursive: true });
  writeFileSync(DURATIONS, `${JSON.stringify(durations, null, 1)}\n`);
} catch {
  // A read-only checkout runs in the default order next time.
}

console.log(`\n=== summary (${Math.round((Date.now() - started) / 1000)} s)`);
for (const backend of ["sqlite", "postgres"] as const) {
  const mine = outcomes.filter((outcome) => outcome.job.backend === backend);
  if (mine.length === 0) continue;
  const failedFiles = mine.filter((outcome) => !outcome.passed).length;
  console.log(
    `${BACKEND_NAMES[backend]} (${backend === "sqlite" ? "unit and end-to-end" : "end-to-end"}): ${failedFiles === 0 ? "passed" : `FAILED (${failedFiles} of ${mine.length} files)`}`,
  );
}
if (POSTGRES_SKIP) console.log(POSTGRES_SKIP);
for (const backend of ["sqlite", "postgres"] as const)
  if (outcomes.some((outcome) => outcome.job.backend === backend))
    console.log(`slowest files, ${BACKEND_NAMES[backend]}: ${slowestFiles(outcomes, backend)}`);
if (failed.length > 0) {
  console.log(`\n=== failed tests (${failed.length})`);
  for (const line of failed) console.log(line);
  // `.ci/run` names the failures after its own summary, at the end of a long log.
  if (process.env.TEST_FAILURES_FILE)
    appendFileSync(process.env.TEST_FAILURES_FILE, failed.map((line) => `${line}\n`).join(""));
}
process.exitCode = outcomes.every((outcome) => outcome.passed) ? 0 : 1;
