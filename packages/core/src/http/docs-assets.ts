import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

/** Files served under `/docs/`: Redoc's standalone bundle, shipped inside this package. */
export const DOCS_ASSETS = { "redoc.standalone.js": "text/javascript; charset=utf-8" } as const;
export type DocsAsset = keyof typeof DOCS_ASSETS;

/**
 * What Redoc's bundle would load from its vendor on every view of the page: the logo of its
 * "API docs by Redocly" footer. It is served as an empty `data:` image instead, which Redoc's
 * own error handler hides, so viewing the docs tells no third party anything (the page's CSP
 * would block it anyway; this spares the attempt).
 */
const VENDOR_LOADS = ["https://cdn.redoc.ly/redoc/logo-mini.svg"] as const;

const cache = new Map<DocsAsset, Uint8Array>();

/**
 * Where an asset is: the built package carries it in `dist/docs/` (copied there at build); a
 * source checkout (tests run from `src/`) reads it from the `redoc` devDependency.
 */
async function readAsset(name: DocsAsset): Promise<Buffer> {
  try {
    return await readFile(fileURLToPath(new URL(`./docs/${name}`, import.meta.url)));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    return readFile(createRequire(import.meta.url).resolve(`redoc/bundles/${name}`));
  }
}

/** A docs asset, read once. */
export async function docsAsset(name: DocsAsset): Promise<Uint8Array> {
  let bytes = cache.get(name);
  if (!bytes) {
    let source = (await readAsset(name)).toString("utf8");
    for (const url of VENDOR_LOADS) source = source.replaceAll(url, "data:,");
    bytes = new TextEncoder().encode(source);
    cache.set(name, bytes);
  }
  return bytes;
}
