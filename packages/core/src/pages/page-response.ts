import { documentHeaders, styleSource } from "../_internal/document-headers.ts";
import { PAGE_STYLE } from "./page-style.ts";

/** What a page's policy allows beyond the default: the service's own script, other origins its forms may lead to. */
export interface PagePolicy {
  script?: boolean;
  formTargets?: readonly string[];
}

/** Each policy made once: the style's hash is the same for every page. */
const policies = new Map<string, string>();

/**
 * The Content-Security-Policy of a page behind a link: nothing from another origin, its one
 * inline stylesheet by hash, images (the QR code) from the service itself, a script only where
 * the page has one of the service's own, and forms sent to the service only, unless the page's
 * form answers with a redirect elsewhere (the ticket page's Pay, to Stripe's payment page).
 */
export function pageCsp(options: PagePolicy = {}): string {
  const formAction = ["'self'", ...(options.formTargets ?? [])].join(" ");
  const key = `${options.script === true} ${formAction}`;
  let csp = policies.get(key);
  if (csp === undefined) {
    // WebAssembly (the door's QR decoder) is compiled from the service's own file: 'wasm-unsafe-eval' allows that and no eval of text.
    const script = options.script
      ? "script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'; worker-src 'self'; "
      : "";
    csp = `default-src 'none'; ${script}style-src ${styleSource(PAGE_STYLE)}; img-src 'self' data:; form-action ${formAction}; base-uri 'none'; frame-ancestors 'none'`;
    policies.set(key, csp);
  }
  return csp;
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
