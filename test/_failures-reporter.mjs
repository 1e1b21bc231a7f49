/**
 * A node:test reporter that writes one line per failed test (file, name, first lines of the
 * error), beside the spec reporter on stdout: `test/run.ts` prints these lines last, and
 * `.ci/run` repeats them after its summary, so a failure is named in the tail of a long log.
 * Suites that failed only because a test inside them failed are left out. Plain JavaScript:
 * node loads reporters itself, before `--import tsx` applies.
 */
import { relative } from "node:path";

/** @param {unknown} error @returns {string} */
function excerpt(error) {
  // node:test wraps the test's error in its own (ERR_TEST_FAILURE, the test's error as cause);
  // below that, a cause says why (fetch's "fetch failed" says nothing without its socket error).
  let cause = error instanceof Error && error.cause !== undefined ? error.cause : error;
  const parts = [];
  for (let depth = 0; depth < 4 && cause !== undefined; depth++) {
    const text = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
    const lines = text
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "");
    const code = cause instanceof Error && "code" in cause ? ` (${String(cause.code)})` : "";
    parts.push(`${lines.slice(0, depth === 0 ? 3 : 1).join(" / ")}${code}`);
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return parts.join(" <- ").slice(0, 500);
}

/** @param {AsyncIterable<{ type: string, data: any }>} source */
export default async function* failures(source) {
  for await (const event of source) {
    if (event.type !== "test:fail") continue;
    const { name, file, details } = event.data;
    if (details.error?.failureType === "subtestsFailed") continue;
    // A file compiled by test/run.ts is named by its source.
    const source = file === process.argv[1] ? (process.env.TEST_SOURCE_FILE ?? file) : file;
    const where = source ? relative(process.cwd(), source) : "?";
    yield `${where} › ${name}: ${excerpt(details.error)}\n`;
  }
}
