import { forwardedHeader, type RequestContext } from "./request-context.ts";

/**
 * Where a request that reached a TLS-terminating proxy over plain HTTP is sent: the same path
 * and query on `https://` (answered `308`, which keeps the method and body). `undefined` for any
 * other request: one that did not come through a trusted proxy, or came over HTTPS.
 */
export function httpsRedirect(ctx: RequestContext): string | undefined {
  if (!ctx.proxied || forwardedHeader(ctx.request, "x-forwarded-proto") !== "http") return undefined;
  const { url } = ctx;
  return `https://${forwardedHeader(ctx.request, "x-forwarded-host") ?? url.host}${url.pathname}${url.search}`;
}
