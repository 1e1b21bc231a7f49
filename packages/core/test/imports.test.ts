/**
 * The import structure of core's sources: no file imports itself through others (type-only
 * imports included), and every import between folders points down the layers below.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import ts from "typescript";

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "../src");

/**
 * The layers, lowest first: a file may import its own folder and the layers below it, never
 * one above. A folder is named with its slash; a file at the root of src/ by its name.
 */
export const LAYERS: readonly (readonly string[])[] = [
  ["errors.ts"],
  ["_internal/", "qr-code.ts"],
  ["carbon/"],
  ["resources/"],
  ["rules/"],
  ["analytics/"],
  ["export/"],
  ["payments/"],
  ["storage/", "storage.ts"],
  ["sql/", "sqlite.ts"],
  ["webhooks/"],
  ["service/"],
  ["operations/"],
  ["pages/"],
  ["service.ts"],
  ["http/"],
  ["background-purge.ts", "delivery-worker.ts", "email-worker.ts", "payment-worker.ts", "internal.ts", "index.ts"],
];

const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(join(dir, entry.name)) : /\.tsx?$/.test(entry.name) ? [join(dir, entry.name)] : [],
  );

/** Every relative import and re-export of every source file, type-only ones too, as paths under src/. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files(SRC)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    const targets = importedFiles
      .map((imported) => imported.fileName)
      .filter((name) => name.startsWith("."))
      .map((name) => relative(SRC, resolve(dirname(file), name)).replace(/\.js$/, ".ts"));
    graph.set(relative(SRC, file), [...new Set(targets)]);
  }
  return graph;
}

/** The layer of a file under src/: of its folder, or of the file itself at the root. */
function layerOf(file: string): { name: string; index: number } {
  const name = file.includes("/") ? `${file.split("/")[0]}/` : file;
  const index = LAYERS.findIndex((layer) => layer.includes(name));
  assert.notEqual(index, -1, `${name} belongs to no layer: add it to LAYERS in test/imports.test.ts`);
  return { name, index };
}

/** The strongly connected groups of more than one file (Tarjan): each is a circle of imports. */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1) found.push(group.sort());
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return found;
}

test("every import resolves to a source file", () => {
  const graph = importGraph();
  const missing = [...graph].flatMap(([file, targets]) =>
    targets.filter((target) => !graph.has(target)).map((target) => `${file} -> ${target}`),
  );
  assert.deepEqual(missing, []);
});

test("no circle of imports between files, type-only imports included", () => {
  const found = circles(importGraph()).map((group) => `circle: ${group.join(", ")}`);
  assert.deepEqual(found, []);
});

test("every import between folders points down the layers", () => {
  const up: string[] = [];
  for (const [file, targets] of importGraph()) {
    const from = layerOf(file);
    for (const target of targets) {
      const to = layerOf(target);
      if (to.index > from.index) up.push(`${file} -> ${target}`);
    }
  }
  assert.deepEqual(up.sort(), []);
});
