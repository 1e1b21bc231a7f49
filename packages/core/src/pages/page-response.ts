import { documentHeaders, styleSource } from "../_internal/document-headers.ts";
import { PAGE_STYLE } from "./page-style.ts";

/** Where a page's forms may send the browser: its own origin, and Stripe's payment page after "Pay" redirects there. */
const FORM_TARGETS = "'self' https://checkout.stripe.com";

/**
 * The Content-Security-Policy of a page behind a link: nothing from another origin, its one
 * inline stylesheet by hash, images (the QR code) from the service itself, and a script only
 * where the page has one of the service's own.
 */
export function pageCsp(options: { script?: boolean } = {}): string {
  // WebAssembly (the door's QR decoder) is compiled from the service's own file: 'wasm-unsafe-eval' allows that and no eval of text.
  const script = options.script ? "script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'; worker-src 'self'; " : "";
  return `default-src 'none'; ${script}style-src ${styleSource(PAGE_STYLE)}; img-src 'self' data:; form-action ${FORM_TARGETS}; base-uri 'none'; frame-ancestors 'none'`;
}

const DEFAULT_CSP = pageCsp();

/**
 * The headers of every page behind a link: the page is personal (a ticket, a booking), so
 * nothing keeps it (`no-store`), no search engine lists it, and no link on it tells the next
 * site the address it was opened at, which holds the token.
 */
export function pageHeaders(csp = DEFAULT_CSP): Record<string, string> {
  return documentHeaders(csp);
}
