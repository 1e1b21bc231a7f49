import { copyFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { build } from "esbuild";
import { defineConfig } from "tsup";

/** The API reference page's renderer (Redoc's standalone bundle) and its licences, as copied into `dist/docs/`. */
const REDOC_FILES = [
  ["bundles/redoc.standalone.js", "redoc.standalone.js"],
  ["bundles/redoc.standalone.js.LICENSE.txt", "redoc.standalone.js.LICENSE.txt"],
  ["LICENSE", "redoc.LICENSE"],
] as const;

export default defineConfig({
  entry: {
    index: "src/index.ts",
    webhooks: "src/webhooks/index.ts",
    sqlite: "src/sqlite.ts",
    internal: "src/internal.ts",
  },
  format: ["esm"],
  target: "node20",
  dts: true,
  clean: true,
  sourcemap: true,
  // Shared modules go to chunks: one copy of each whatever entries a program imports (the server
  // imports three), and a module that one route loads on first use (`import()`) stays out of
  // the startup graph.
  splitting: true,
  // The pages are JSX rendered by Preact (an auto-escaping renderer), as the root tsconfig says for tsc and tsx.
  esbuildOptions(options) {
    options.jsx = "automatic";
    options.jsxImportSource = "preact";
  },
  // The renderer ships inside the package (no CDN, and none of redoc's own dependencies, React
  // and the rest, in the trees of the package's users): redoc is a devDependency.
  async onSuccess() {
    // The door page's script runs in a browser: one file of its own (the QR decoder inside), next to
    // the decoder's WebAssembly, which the script loads from the service rather than a CDN.
    await build({
      entryPoints: ["src/pages/door-script/door.ts", "src/pages/door-script/sw.ts"],
      bundle: true,
      format: "iife",
      platform: "browser",
      target: "es2022",
      minify: true,
      outdir: "dist/pages",
    });
    // The library's default place for its WebAssembly is a CDN; the script points it at the service
    // instead (locateFile), and the unused default is taken out so the file names no other origin.
    const script = await readFile("dist/pages/door.js", "utf8");
    await writeFile(
      "dist/pages/door.js",
      script.replace(/https:\/\/fastly\.jsdelivr\.net\/npm\/zxing-wasm@[\d.]+\/dist\//, "./"),
    );
    const wasm = createRequire(import.meta.url).resolve("zxing-wasm/reader/zxing_reader.wasm");
    await copyFile(wasm, "dist/pages/zxing_reader.wasm");
    // The script bundles zxing-wasm (MIT): its licence travels with it.
    await copyFile(join(dirname(wasm), "../../LICENSE"), "dist/pages/zxing-wasm.LICENSE");
    const redoc = dirname(createRequire(import.meta.url).resolve("redoc/package.json"));
    await mkdir("dist/docs", { recursive: true });
    for (const [from, to] of REDOC_FILES) await copyFile(join(redoc, from), join("dist/docs", to));
  },
});
