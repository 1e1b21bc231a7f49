/**
 * The CLI bundle as built (`npm run build`): its modules' text is one byte a character, which V8
 * keeps in half the memory of text with a single character past U+00FF.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { test } from "node:test";

const DIST = fileURLToPath(new URL("../dist/", import.meta.url));

test("every module of the CLI bundle is Latin-1 text (characters past U+00FF written as escapes)", () => {
  const modules = readdirSync(DIST).filter((name) => /^cli.*\.js$/.test(name));
  assert.ok(modules.includes("cli.js"), "the CLI is built");
  assert.ok(
    modules.some((name) => name.startsWith("cli-docs-page-")),
    "the docs page is a chunk of its own",
  );
  for (const name of modules) {
    const text = readFileSync(`${DIST}${name}`, "utf8");
    const wide = /[\u0100-\uffff]/.exec(text);
    assert.equal(
      wide,
      null,
      `${name}: ${JSON.stringify(text.slice(Math.max(0, (wide?.index ?? 0) - 40), (wide?.index ?? 0) + 10))}`,
    );
  }
  // zod's comment with a dash (U+2014), kept by esbuild, is written as an escape.
  assert.ok(modules.some((name) => readFileSync(`${DIST}${name}`, "utf8").includes("multiple of zero \\u2014 the")));
});
