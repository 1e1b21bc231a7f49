import { createServer, type Server } from "node:http";

/**
 * A plain-HTTP listener that answers every request with `308 Permanent Redirect` to the same
 * path and query on `https://` at `httpsPort` (method and body are kept by 308).
 */
export function createRedirectServer(httpsPort: number, fallbackHost: string): Server {
  return createServer((request, response) => {
    const host = (request.headers.host ?? fallbackHost)
      .replace(/:\d+$/, "")
      .replace(/^\[?([^\]]*)\]?$/, (_, h: string) => (h.includes(":") ? `[${h}]` : h));
    const port = httpsPort === 443 ? "" : `:${httpsPort}`;
    response.writeHead(308, {
      location: `https://${host}${port}${request.url ?? "/"}`,
      "content-length": "0",
      connection: "close",
      "x-content-type-options": "nosniff",
    });
    response.end();
  });
}
