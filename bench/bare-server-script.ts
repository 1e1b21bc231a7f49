/**
 * The bare server as a plain JavaScript module, for `node` without tsx: tsx's loader (a thread of
 * its own on Node 20, and esbuild's) would add about 30 MB to the bare process's resident memory,
 * which the comparison of the two servers' memory must not count. `bench/bare-server.ts` stays the
 * one source; its types are stripped here with TypeScript's own `transpileModule`.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { ROOT } from "./start-process.ts";

/**
 * Writes the bare server as `node_modules/.cache/event-service-bench/bare-server.mjs` (under the
 * repository's `node_modules`, so that it finds h3 and better-sqlite3 as the source does) and
 * returns its path, to run as `node <path> <sqlite file> <account id>`.
 */
export function bareServerScript(): string {
  const source = readFileSync(join(ROOT, "bench/bare-server.ts"), "utf8");
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
    fileName: "bare-server.ts",
  });
  const dir = join(ROOT, "node_modules/.cache/event-service-bench");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "bare-server.mjs");
  writeFileSync(path, outputText);
  return path;
}
