import type { FetchHandler } from "@event-service/core";
import { H3 } from "h3";

/**
 * The h3 app that hosts the core handler: one catch-all route (`/**`, every method) hands each
 * request to core, which routes it itself. A request h3 refuses before any route (a malformed
 * percent-encoding in the path) is handed to core too, from `onError`, so it still gets the
 * service's error body and headers.
 *
 * @example
 * serve({ fetch: createApp(createHandler(service)).fetch });
 */
export function createApp(handler: FetchHandler): H3 {
  return new H3({ onError: (_error, event) => handler(event.req) }).all("/**", (event) => handler(event.req));
}
