import type { FetchHandler } from "@event-service/core";
import { H3Core } from "h3";

/**
 * The h3 app that hosts the core handler. Core routes every request itself, so the app is h3's
 * core without a router: a catch-all route would cost each request a path split and a wildcard
 * match that decide nothing. A request h3 refuses before the handler (a malformed
 * percent-encoding in the path) is handed to core too, so it still gets the service's error
 * body and headers.
 */
export function createApp(handler: FetchHandler): H3Core {
  const app = new H3Core({ onError: (_error, event) => handler(event.req) });
  app.handler = (event) => handler(event.req);
  return app;
}
