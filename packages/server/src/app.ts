import type { FetchHandler } from "@event-service/core";
import { H3 } from "h3";

/** The h3 app that hosts the core handler: one catch-all route, core does the rest. */
export function createApp(handler: FetchHandler): H3 {
  const app = new H3();
  app.all("/**", (event) => handler(event.req));
  return app;
}
