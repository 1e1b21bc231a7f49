import { createHash } from "node:crypto";
import { renderToString } from "preact-render-to-string";
import { ERROR_CODES } from "../errors.ts";

/**
 * The page's one inline script: it renders the document named by the container's `data-spec`
 * (so the script, and with it its hash in the CSP, is the same under any base path), then
 * scrolls to the error code the URL's fragment names, which rendering has pushed down.
 */
const INIT_SCRIPT = `var root = document.getElementById("reference");
Redoc.init(root.dataset.spec, { expandResponses: "200,201", jsonSampleExpandLevel: 3, nativeScrollbars: true }, root, function () {
  var target = location.hash && document.getElementById(location.hash.slice(1));
  if (target) target.scrollIntoView();
});`;

/**
 * The Content-Security-Policy of the page: it loads and sends nothing beyond its own origin.
 * Redoc's bundle would otherwise fetch its vendor's logo from a CDN on every view (a request
 * that tells a third party who reads the docs); `img-src 'self' data:` stops it and Redoc hides
 * the broken image. Redoc's styles are inline (styled-components) and its search index runs in a
 * worker made from a `blob:` URL.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  `script-src 'self' 'sha256-${createHash("sha256").update(INIT_SCRIPT).digest("base64")}'`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
].join("; ");

/** The page's own stylesheet (the error table; Redoc styles the rest). */
const DOCS_STYLE =
  "body{margin:0;font-family:system-ui,sans-serif}#errors{margin:0 auto;padding:20px 40px 40px;border-top:1px solid #ddd}#errors table{border-collapse:collapse}#errors td,#errors th{border-bottom:1px solid #ddd;padding:4px 12px;text-align:left}#errors tr:target{background:#fff3c4}";

/**
 * The API reference page: Redoc rendering `/openapi.json`, then the error codes (each with an
 * anchor, which the `documentation` links of error bodies point to), all served from the package
 * (no CDN). `basePath` is where the handler is mounted. Rendered by Preact, which escapes every
 * value; the stylesheet and the inline script are this module's constants.
 */
export function docsPage(basePath = ""): string {
  const page = (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>Event Service API reference</title>
        <link rel="icon" href="data:," />
        <style dangerouslySetInnerHTML={{ __html: DOCS_STYLE }} />
      </head>
      <body>
        <div id="reference" data-spec={`${basePath}/openapi.json`} />
        <section id="errors">
          <h2 id="error-codes">Error codes</h2>
          <p>
            Every failure answers <code>{`{"error": {"code", "message", "field"?, "details"?, "documentation"}}`}</code>{" "}
            with one of these codes.
          </p>
          <table>
            <thead>
              <tr>
                <th>code</th>
                <th>status</th>
                <th>meaning</th>
              </tr>
            </thead>
            <tbody>
              {Object.entries(ERROR_CODES).map(([code, { status, message }]) => (
                <tr key={code} id={code}>
                  <td>
                    <code>{code}</code>
                  </td>
                  <td>{status}</td>
                  <td>{message}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
        <script src={`${basePath}/docs/redoc.standalone.js`} />
        <script dangerouslySetInnerHTML={{ __html: INIT_SCRIPT }} />
      </body>
    </html>
  );
  return `<!doctype html>${renderToString(page)}`;
}
