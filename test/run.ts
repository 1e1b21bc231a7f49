/**
 * `npm test`'s runner (after the build and the type check): every unit and end-to-end test on
 * SQLite, then, when `TEST_DATABASE_URL` names a PostgreSQL server (an admin connection that may
 * CREATE DATABASE), the end-to-end files that use a database once more with
 * `E2E_BACKEND=postgres`, each server on a fresh database of its own. Without it, says that
 * PostgreSQL was skipped. Exits non-zero when any run fails.
 *
 * `faults.test.ts` runs in both: its disk-full test in the SQLite run, its PostgreSQL faults in
 * the PostgreSQL run, on a cluster of their own (port 5433) that they restart and kill without
 * disturbing the files running beside them.
 */
import { spawnSync } from "node:child_process";
import { appendFileSync, mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { POSTGRES_SKIP, ROOT } from "./_setup.ts";

/**
 * End-to-end files that touch no database of the server, left out of the PostgreSQL run: the
 * browser, package, client-package, dependency-telemetry, OpenAPI-types and examples tests check
 * builds, packages and documents (their servers' storage plays no part), and the fuzz test feeds
 * the request parser, which answers before any storage is reached.
 */
const NOT_DATABASE_BACKED = new Set([
  "browser.test.ts",
  "packages.test.ts",
  "client-package.test.ts",
  "dependency-telemetry.test.ts",
  "openapi-types.test.ts",
  "examples.test.ts",
  "fuzz.test.ts",
]);

const testFiles = (dir: string) =>
  readdirSync(join(ROOT, dir))
    .filter((name) => name.endsWith(".test.ts"))
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
const reports = mkdtempSync(join(tmpdir(), "event-service-tests-"));

/** Runs node's test runner over `files` with `env` added; returns whether it passed. */
function run(label: string, files: string[], env: Record<string, string> = {}): boolean {
  console.log(`\n=== ${label}: ${files.length} files`);
  const started = Date.now();
  const report = join(reports, `${failed.length}-${Date.now()}.txt`);
  const reporters = ["--test-reporter=spec", "--test-reporter-destination=stdout"];
  reporters.push(
    `--test-reporter=${join(ROOT, "test/_failures-reporter.mjs")}`,
    `--test-reporter-destination=${report}`,
  );
  // --test-force-exit: a file whose tests are done exits even if a failed teardown left a handle
  // open (a receiver still listening), so the failure is reported instead of hanging the run.
  const result = spawnSync(
    process.execPath,
    ["--import", "tsx", "--test", "--test-concurrency=2", "--test-force-exit", ...reporters, ...files],
    {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: "inherit",
    },
  );
  const passed = result.status === 0;
  try {
    for (const line of readFileSync(report, "utf8").split("\n"))
      if (line) failed.push(`${label.split(":")[0]}: ${line}`);
  } catch {
    // No report: the runner died before writing one; its status says so below.
  }
  console.log(
    `=== ${label}: ${passed ? "passed" : `FAILED (${result.status ?? result.signal})`} in ${Math.round((Date.now() - started) / 1000)} s`,
  );
  return passed;
}

const results: Array<[string, boolean | string]> = [];
results.push([
  "SQLite (unit and end-to-end)",
  run("SQLite: unit and end-to-end tests", [...packageTests, ...e2e], { E2E_BACKEND: "sqlite" }),
]);
if (POSTGRES_SKIP) {
  results.push(["PostgreSQL", POSTGRES_SKIP]);
} else {
  const onPostgres = e2e.filter((file) => !NOT_DATABASE_BACKED.has(file.slice("test/".length)));
  results.push([
    "PostgreSQL (end-to-end)",
    run("PostgreSQL: end-to-end tests with E2E_BACKEND=postgres", onPostgres, { E2E_BACKEND: "postgres" }),
  ]);
}

console.log("\n=== summary");
for (const [label, outcome] of results)
  console.log(typeof outcome === "string" ? outcome : `${label}: ${outcome ? "passed" : "FAILED"}`);
if (failed.length > 0) {
  console.log(`\n=== failed tests (${failed.length})`);
  for (const line of failed) console.log(line);
  // `.ci/run` names the failures after its own summary, at the end of a long log.
  if (process.env.TEST_FAILURES_FILE)
    appendFileSync(process.env.TEST_FAILURES_FILE, failed.map((line) => `${line}\n`).join(""));
}
process.exitCode = results.some(([, outcome]) => outcome === false) ? 1 : 0;
