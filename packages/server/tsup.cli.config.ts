import { cp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { defineConfig } from "tsup";

const require = createRequire(import.meta.url);

/**
 * The CLI (`dist/cli.js`), built after the library into the same folder (`npm run build` runs
 * `tsup` first, which cleans it). Core, kysely and zod are bundled into it: loaded as packages,
 * they are about 360 ES modules, which hold far more memory than the same code as one module
 * (figures in docs/performance.md, "Resident memory"); `dist/index.js`, what embedders
 * import, keeps them as ordinary imports. The rest (better-sqlite3, h3, srvx, pino, pg,
 * prom-client) stays external: the server's own dependencies.
 */
export default defineConfig({
  entry: { cli: "src/cli-bin.ts" },
  format: ["esm"],
  target: "node20",
  clean: false,
  sourcemap: true,
  // A module that one route loads on first use (`import()`, QR images) stays a chunk of its own.
  splitting: true,
  noExternal: ["@event-service/core", "kysely", "zod"],
  // Core's CommonJS dependencies (qrcode and its PNG encoder) require Node's modules; an ES module
  // has no `require` of its own, so each output file gets one.
  banner: {
    js: 'import { createRequire as __cliCreateRequire } from "node:module"; const require = __cliCreateRequire(import.meta.url);',
  },
  metafile: true,
  esbuildOptions(options) {
    options.chunkNames = "cli-[name]-[hash]";
    // Characters past ASCII in code written as escapes: see oneByteSource.
    options.charset = "ascii";
  },
  async onSuccess() {
    // Core's API reference page reads its renderer beside the module that serves it: in the
    // bundle, that is this folder.
    const core = dirname(require.resolve("@event-service/core/package.json"));
    await cp(join(core, "dist/docs"), "dist/docs", { recursive: true });
    // And the door page's script and QR decoder likewise.
    await cp(join(core, "dist/pages"), "dist/pages", { recursive: true });
    await writeFile("dist/cli.js.LICENSE.txt", await bundledLicences());
    for (const file of await readdir("dist"))
      if (/^cli.*\.js$/.test(file))
        await writeFile(join("dist", file), oneByteSource(await readFile(join("dist", file), "utf8")));
  },
});

/**
 * A module's source as V8 keeps it in one byte a character: V8 holds each module's source text
 * for as long as the process runs, in two bytes a character if a single character is past
 * U+00FF. esbuild writes such characters in code as escapes (`charset: "ascii"`) but copies the
 * comments it keeps as they are (a dash in one of zod's, an ellipsis in one of core's): those
 * are written as `\uXXXX` too, which in a comment changes nothing.
 */
function oneByteSource(source: string): string {
  // Each UTF-16 unit on its own (no `u` flag): a surrogate pair becomes two escapes.
  return source.replace(/[\u0100-\uffff]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * The licence texts of the packages bundled into the CLI, found from esbuild's list of its
 * inputs (core is this project's own, under the same licence as this package).
 */
async function bundledLicences(): Promise<string> {
  const metafile = "dist/metafile-esm.json";
  const { inputs } = JSON.parse(await readFile(metafile, "utf8")) as { inputs: Record<string, unknown> };
  await rm(metafile);
  const dirs = new Set<string>();
  for (const input of Object.keys(inputs)) {
    const match = /^(.*\/node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match) dirs.add(match[1]!);
  }
  const sections: string[] = [];
  for (const dir of dirs) {
    const { name, version } = JSON.parse(await readFile(join(dir, "package.json"), "utf8")) as Record<string, string>;
    const licence = (await readdir(dir)).find((file) => /^licen[cs]e/i.test(file));
    if (!licence) throw new Error(`${name} has no licence file to ship with the CLI bundle`);
    sections.push(`${name}@${version}\n\n${(await readFile(join(dir, licence), "utf8")).trim()}\n`);
  }
  sections.sort();
  return `The CLI bundle (cli.js and its cli-*.js chunks) contains these packages:\n\n${sections.join("\n---\n\n")}`;
}
