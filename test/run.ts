/**
 * `npm test`'s runner (after the build and the type check): every unit and end-to-end test on
 * SQLite and, when `TEST_DATABASE_URL` names a PostgreSQL server (an admin connection that may
 * CREATE DATABASE), the end-to-end files that use a database once more with
 * `E2E_BACKEND=postgres`, each server on a fresh database of its own. Without it, says that
 * PostgreSQL was skipped. Exits non-zero when any run fails.
 *
 * The two runs go side by side, three files at a time on SQLite and two on PostgreSQL: an
 * end-to-end file mostly waits on the servers it started, so five at once keep two cores busy
 * where two did not. The SQLite
 * run prints as it goes; the PostgreSQL run's report is kept and printed when it ends.
 * `TEST_SEQUENTIAL=1` runs them one after the other, both printing as they go.
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
import { appendFileSync, createWriteStream, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";
import { POSTGRES_SKIP, ROOT, startKeyService } from "./_setup.ts";

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
 * The files that take longest, started first so that none of them is left running alone at the
 * end of a run (node's runner starts files in the order given), longest first; the rest follow
 * in alphabetical order. Each run has its own, as measured in full runs on the 2-core machine: on
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
const slowFirst = (files: string[], order: string[]) => {
  const key = (file: string) =>
    file === UNIT_TESTS.path ? "unit tests" : file === STORAGE_TESTS.path ? "storage unit tests" : file;
  return [
    ...order.flatMap((name) => files.filter((file) => key(file) === name)),
    ...files.filter((file) => !order.includes(key(file))),
  ];
};

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

/** Each run's slowest files, printed with the summary. */
const slowest: string[] = [];

/**
 * The eight files whose processes ran longest, from `_file-timing.mjs`'s lines, each with the CPU
 * time it used (its servers' included), and the run's CPU time in all.
 */
function slowestFiles(timings: string): string {
  const seconds = new Map<string, [number, number]>();
  try {
    for (const line of readFileSync(timings, "utf8").split("\n")) {
      const [file, time, cpu] = line.split("\t");
      if (file && time) seconds.set(shownAs(file), [Number(time), Number(cpu ?? 0)]);
    }
  } catch {
    return "no timings";
  }
  const cpu = [...seconds.values()].reduce((sum, [, used]) => sum + used, 0);
  const slow = [...seconds]
    .sort((a, b) => b[1][0] - a[1][0])
    .slice(0, 8)
    .map(([file, [time, used]]) => `${file} ${Math.round(time)} s (CPU ${Math.round(used)} s)`)
    .join(", ");
  return `${slow}; CPU of all its files ${Math.round(cpu)} s`;
}

/**
 * Runs node's test runner over `files` with `env` added; resolves to whether it passed. With
 * `quiet`, its report goes to a file that is printed when the run ends, instead of to stdout.
 */
async function run(
  label: string,
  files: string[],
  env: Record<string, string>,
  { quiet = false, concurrency = 2, order = SLOW_FIRST } = {},
): Promise<boolean> {
  const started = Date.now();
  const report = join(reportsDir, `${label.split(":")[0]}.failures.txt`);
  const log = join(reportsDir, `${label.split(":")[0]}.log`);
  const announce = `\n=== ${label}: ${files.length} files`;
  console.log(quiet ? `${announce} (its report follows when it ends)` : announce);
  const timings = join(reportsDir, `${label.split(":")[0]}.timings.txt`);
  const reporters = ["--test-reporter=spec", "--test-reporter-destination=stdout"];
  reporters.push(
    `--test-reporter=${join(ROOT, "test/_failures-reporter.mjs")}`,
    `--test-reporter-destination=${report}`,
  );
  // --test-force-exit: a file whose tests are done exits even if a failed teardown left a handle
  // open (a receiver still listening), so the failure is reported instead of hanging the run.
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "--import",
      pathToFileURL(join(ROOT, "test/_file-timing.mjs")).href,
      "--test",
      `--test-concurrency=${concurrency}`,
      "--test-force-exit",
      ...reporters,
      ...slowFirst(files, order),
    ],
    {
      cwd: ROOT,
      env: { ...process.env, ...env, TEST_TIMINGS_FILE: timings, TEST_KEY_SERVICE: keyService.url },
      stdio: quiet ? ["ignore", "pipe", "pipe"] : "inherit",
    },
  );
  if (quiet) {
    const out = createWriteStream(log);
    child.stdout!.pipe(out);
    child.stderr!.pipe(out);
  }
  const status = await new Promise<number | string | null>((resolvePromise) =>
    child.on("close", (code, signal) => resolvePromise(code ?? signal)),
  );
  const passed = status === 0;
  if (quiet) {
    console.log(`\n=== ${label}: report`);
    process.stdout.write(readFileSync(log));
  }
  try {
    for (const line of readFileSync(report, "utf8").split("\n"))
      if (line) failed.push(`${label.split(":")[0]}: ${line}`);
  } catch {
    // No report: the runner died before writing one; its status says so below.
  }
  console.log(
    `=== ${label}: ${passed ? "passed" : `FAILED (${status})`} in ${Math.round((Date.now() - started) / 1000)} s`,
  );
  slowest.push(`${label.split(":")[0]}: ${slowestFiles(timings)}`);
  return passed;
}

const started = Date.now();
// Keys for every file of both runs are made here, in one process (see _setup.ts's KEY_SERVICE).
const keyService = await startKeyService();
const sqlite = (concurrency = 2) =>
  run("SQLite: unit and end-to-end tests", sqliteFiles, { E2E_BACKEND: "sqlite" }, { concurrency });
const onPostgres = e2e.filter((file) => !NOT_DATABASE_BACKED.has(file.slice("test/".length)));
const postgres = (quiet: boolean, concurrency = 2) =>
  run(
    "PostgreSQL: end-to-end tests with E2E_BACKEND=postgres",
    onPostgres,
    { E2E_BACKEND: "postgres" },
    { quiet, concurrency, order: SLOW_FIRST_ON_POSTGRES },
  );

const results: Array<[string, boolean | string]> = [];
if (POSTGRES_SKIP) {
  results.push(["SQLite (unit and end-to-end)", await sqlite()]);
  results.push(["PostgreSQL", POSTGRES_SKIP]);
} else if (process.env.TEST_SEQUENTIAL) {
  results.push(["SQLite (unit and end-to-end)", await sqlite()]);
  results.push(["PostgreSQL (end-to-end)", await postgres(false)]);
} else {
  // Three files at a time on SQLite: it has more than twice the files of the PostgreSQL run.
  const [onSqlite, onPg] = await Promise.all([sqlite(3), postgres(true)]);
  results.push(["SQLite (unit and end-to-end)", onSqlite], ["PostgreSQL (end-to-end)", onPg]);
}

await keyService.close();
console.log(`\n=== summary (${Math.round((Date.now() - started) / 1000)} s)`);
for (const [label, outcome] of results)
  console.log(typeof outcome === "string" ? outcome : `${label}: ${outcome ? "passed" : "FAILED"}`);
for (const line of slowest) console.log(`slowest files, ${line}`);
if (failed.length > 0) {
  console.log(`\n=== failed tests (${failed.length})`);
  for (const line of failed) console.log(line);
  // `.ci/run` names the failures after its own summary, at the end of a long log.
  if (process.env.TEST_FAILURES_FILE)
    appendFileSync(process.env.TEST_FAILURES_FILE, failed.map((line) => `${line}\n`).join(""));
}
process.exitCode = results.some(([, outcome]) => outcome === false) ? 1 : 0;
