/**
 * The client's built bundle (run `npm run build` first; `npm test` does): its only runtime
 * import is ofetch. Core reaches it by `import type` alone, so zod, kysely and better-sqlite3
 * stay out, and it imports nothing of Node's, so it runs in browsers as in Node.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

const bundle = readFileSync(new URL("../dist/index.js", import.meta.url), "utf8");

test("the built client imports ofetch and nothing else", () => {
  const specifiers = [...bundle.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s*["']([^"']+)["']/g)].map(
    (m) => m[1],
  );
  const dynamic = [...bundle.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]);
  assert.deepEqual([...new Set([...specifiers, ...dynamic])], ["ofetch"]);
  assert.doesNotMatch(bundle, /\brequire\(/);
  for (const name of ["zod", "kysely", "better-sqlite3", "node:", "@event-service/core"])
    assert.ok(!bundle.includes(`"${name}`), `bundle mentions ${name}`);
});
