import type { StripeClient } from "@event-service/core";
import Stripe from "stripe";

/**
 * Stripe's official client for the service: no telemetry (the SDK would send each request's
 * latency with the next one), two retries of a request that failed on the network or with a
 * 5xx (the SDK keeps the Idempotency-Key across them), and `apiUrl` (`STRIPE_API_URL`) instead of
 * Stripe's own host when given, e.g. a local stand-in such as stripe-mock.
 */
export function stripeClient(secretKey: string, apiUrl?: URL): StripeClient {
  const protocol = apiUrl?.protocol === "http:" ? "http" : "https";
  return new Stripe(secretKey, {
    telemetry: false,
    maxNetworkRetries: 2,
    appInfo: { name: "event-service" },
    ...(apiUrl && {
      host: apiUrl.hostname,
      port: Number(apiUrl.port || (protocol === "https" ? 443 : 80)),
      protocol,
    }),
  });
}
