import type { FetchHandler } from "@event-service/core";
import { H3 } from "h3";

/**
 * The h3 app that hosts the core handler: one catch-all route, core does the rest. A request
 * h3 refuses before routing (a malformed percent-encoding in the path) is handed to core too,
 * so it still gets the service's error body and headers.
 */
export function createApp(handler: FetchHandler): H3 {
  const app = new H3({ onError: (_error, event) => handler(event.req) });
  app.all("/**", (event) => handler(event.req));
  return app;
}
