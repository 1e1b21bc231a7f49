import type { ComponentChildren } from "preact";
import { renderToString } from "preact-render-to-string";

/** What {@link renderDocument} draws: the page's title, its own stylesheet and its body. */
export interface HtmlDocumentProps {
  title: string;
  /** The page's stylesheet, inlined: the service's own text, never anyone's input. */
  style: string;
  /** A script of the service's own, loaded from the same origin (`<script src defer>`); most pages have none. */
  script?: string;
  /**
   * A Content-Security-Policy carried in the page itself (`<meta http-equiv>`), for a page that
   * may be saved and opened as a file; a server sends it as a header too.
   */
  csp?: string;
  children: ComponentChildren;
}

/**
 * A whole HTML page as text: `<!doctype html>`, `lang="en"`, a viewport for phones, and the body
 * rendered by Preact, which escapes every value it is given, so text from an organiser or an
 * attendee shows as text whatever it holds.
 */
export function renderDocument({ title, style, script, csp, children }: HtmlDocumentProps): string {
  const page = (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        {csp !== undefined && <meta http-equiv="Content-Security-Policy" content={csp} />}
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <meta name="referrer" content="no-referrer" />
        <title>{title}</title>
        {/* No icon: else the browser asks the server for /favicon.ico, a 404 on every page. */}
        <link rel="icon" href="data:," />
        {/* The stylesheet is a constant of the page's module; escaping would break its selectors. */}
        <style dangerouslySetInnerHTML={{ __html: style }} />
        {script !== undefined && <script src={script} defer />}
      </head>
      <body>{children}</body>
    </html>
  );
  return `<!doctype html>${renderToString(page)}`;
}
