import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { ERROR_CODES } from "../errors.ts";

/** Files of swagger-ui-dist served under `/docs/`. */
export const DOCS_ASSETS = { "swagger-ui.css": "text/css; charset=utf-8", "swagger-ui-bundle.js": "text/javascript; charset=utf-8" } as const;
export type DocsAsset = keyof typeof DOCS_ASSETS;

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The API reference page: the error codes (each with an anchor, which the `documentation`
 * links of error bodies point to) and Swagger UI rendering `/openapi.json`, all served from
 * the package (no CDN). `basePath` is where the handler is mounted.
 */
export function docsPage(basePath = ""): string {
  const rows = Object.entries(ERROR_CODES)
    .map(([code, { status, message }]) => `<tr id="${code}"><td><code>${code}</code></td><td>${status}</td><td>${escape(message)}</td></tr>`)
    .join("\n");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Event Service API reference</title>
<link rel="stylesheet" href="${basePath}/docs/swagger-ui.css">
<style>body{margin:0;font-family:system-ui,sans-serif}#errors{max-width:1460px;margin:0 auto;padding:0 20px 40px}#errors table{border-collapse:collapse}#errors td,#errors th{border-bottom:1px solid #ddd;padding:4px 12px;text-align:left}#errors tr:target{background:#fff3c4}</style>
</head>
<body>
<div id="swagger-ui"></div>
<section id="errors">
<h2 id="error-codes">Error codes</h2>
<p>Every failure answers <code>{"error": {"code", "message", "field"?, "details"?, "documentation"}}</code> with one of these codes.</p>
<table><thead><tr><th>code</th><th>status</th><th>meaning</th></tr></thead>
<tbody>
${rows}
</tbody></table>
</section>
<script src="${basePath}/docs/swagger-ui-bundle.js"></script>
<script>
window.ui = SwaggerUIBundle({ url: "${basePath}/openapi.json", dom_id: "#swagger-ui", validatorUrl: null, deepLinking: true });
if (location.hash) setTimeout(function () { var t = document.getElementById(location.hash.slice(1)); if (t) t.scrollIntoView(); }, 500);
</script>
</body>
</html>`;
}

const cache = new Map<DocsAsset, Uint8Array>();

/** A Swagger UI asset, read once from the installed swagger-ui-dist package. */
export async function docsAsset(name: DocsAsset): Promise<Uint8Array> {
  let bytes = cache.get(name);
  if (!bytes) {
    const dir = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
    bytes = new Uint8Array(await readFile(join(dir, name)));
    cache.set(name, bytes);
  }
  return bytes;
}
