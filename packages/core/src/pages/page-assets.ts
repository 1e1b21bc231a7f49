import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

/**
 * The files the pages load besides themselves, served from the service's own origin under
 * `/pages/<name>` (a fixed list: nothing else is read from disk): the door page's script and its
 * service worker, built for the browser, and the QR decoder's WebAssembly the script compiles.
 */
export const PAGE_ASSETS = {
  "door.js": "text/javascript; charset=utf-8",
  "sw.js": "text/javascript; charset=utf-8",
  "zxing_reader.wasm": "application/wasm",
} as const;
export type PageAsset = keyof typeof PAGE_ASSETS;

export function isPageAsset(name: string): name is PageAsset {
  return Object.hasOwn(PAGE_ASSETS, name);
}

const cache = new Map<PageAsset, Uint8Array>();

/**
 * Where an asset is: the built package carries both in `dist/pages/` (written at build); a
 * source checkout (tests run from `src/`) reads the script from the last build and the decoder
 * from the `zxing-wasm` package.
 */
async function readAsset(name: PageAsset): Promise<Buffer> {
  try {
    return await readFile(fileURLToPath(new URL(`./pages/${name}`, import.meta.url)));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    if (name === "zxing_reader.wasm")
      return readFile(createRequire(import.meta.url).resolve("zxing-wasm/reader/zxing_reader.wasm"));
    return readFile(fileURLToPath(new URL(`../../dist/pages/${name}`, import.meta.url)));
  }
}

/** A page asset's bytes, read once. */
export async function pageAsset(name: PageAsset): Promise<Uint8Array> {
  let bytes = cache.get(name);
  if (!bytes) {
    bytes = new Uint8Array(await readAsset(name));
    cache.set(name, bytes);
  }
  return bytes;
}

const versions = new Map<PageAsset, string>();

/**
 * A short hash of an asset's bytes, which the page puts in its file's address (`door.js?v=…`):
 * browsers keep the file for a day, so after an upgrade a phone takes the new one at once
 * instead of running yesterday's script against today's page.
 */
export async function pageAssetVersion(name: PageAsset): Promise<string> {
  let version = versions.get(name);
  if (version === undefined) {
    version = createHash("sha256")
      .update(await pageAsset(name))
      .digest("hex")
      .slice(0, 12);
    versions.set(name, version);
  }
  return version;
}
