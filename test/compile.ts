/**
 * The test files `test/run.ts` runs, compiled once per run to JavaScript with esbuild, so that
 * each file's process runs plain JavaScript: under `--import tsx`, every process boots tsx's
 * loader thread and asks it for each module it loads, some 0.5 to 1 s of CPU a process, where
 * esbuild compiles all of them in one go in under a second (figures in docs/performance.md,
 * "Issue 36: the tests compiled once").
 *
 * Each file is bundled with the test code it imports by a relative path (`_setup.ts`, the
 * fixtures, the packages' sources some tests read), the code they share split into chunks; a
 * package (`@event-service/client`, `pg`, ...) is imported at run time, as under tsx (see
 * packagesAsTheirImporterFindsThem). The output lives in node_modules/.cache, inside the
 * checkout, so that those imports resolve the same packages. Each module's `import.meta.url` is
 * written as its source's own URL, so paths found from it (the checkout's root, a fixture beside
 * it) are the same as under tsx; and each output carries its source map (`--enable-source-maps`),
 * so a failure names the `.ts` line. Running one file by hand stays `node --import tsx --test FILE`.
 */
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build, type Plugin } from "esbuild";
import { ROOT } from "./_setup.ts";

const OUT_DIR = join(ROOT, "node_modules/.cache/compiled-tests");

/** Writes each TypeScript module's `import.meta.url` as its source file's URL (see above). */
const sourceUrls: Plugin = {
  name: "source-import-meta-url",
  setup(build) {
    build.onLoad({ filter: /\.(ts|tsx|mts)$/ }, async ({ path }) => ({
      contents: (await readFile(path, "utf8")).replaceAll("import.meta.url", JSON.stringify(pathToFileURL(path).href)),
      loader: path.endsWith("x") ? "tsx" : "ts",
    }));
  },
};

/**
 * Leaves every package to be imported at run time, as under tsx, but from where its importer
 * would find it: a package that a workspace package keeps a copy of its own of (core's
 * ipaddr.js 2, where the root's is 1.9) is imported by its path, since from
 * node_modules/.cache the bare name would find the root's copy.
 */
const RESOLVING = Symbol("resolving");
const packagesAsTheirImporterFindsThem: Plugin = {
  name: "packages-as-their-importer-finds-them",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async ({ path, kind, resolveDir, importer, pluginData }) => {
      if (pluginData === RESOLVING) return undefined;
      if (path.startsWith("node:")) return { path, external: true };
      const found = await build.resolve(path, { kind, resolveDir, importer, pluginData: RESOLVING });
      const nested = found.errors.length === 0 && /\/packages\/[^/]+\/node_modules\//.test(found.path);
      return { path: nested ? found.path : path, external: true };
    });
  },
};

/**
 * Compiles `files` (paths relative to the checkout) into node_modules/.cache/compiled-tests;
 * resolves to each file's compiled path, by its path. Throws, naming the file, if one does not
 * compile.
 */
export async function compileTests(files: string[]): Promise<Map<string, string>> {
  await rm(OUT_DIR, { recursive: true, force: true });
  await build({
    absWorkingDir: ROOT,
    entryPoints: files,
    outdir: OUT_DIR,
    outbase: ROOT,
    outExtension: { ".js": ".mjs" },
    chunkNames: "chunks/[name]-[hash]",
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    sourcemap: "inline",
    plugins: [sourceUrls, packagesAsTheirImporterFindsThem],
    logLevel: "error",
    // Every module kept whole, as under tsx: a package's `sideEffects: false` (core's) would let
    // esbuild drop an import made for what a module does when loaded.
    ignoreAnnotations: true,
  });
  return new Map(files.map((file) => [file, join(OUT_DIR, file.replace(/\.ts$/, ".mjs"))]));
}
