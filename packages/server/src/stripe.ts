import { ServiceError, type StripeClient } from "@event-service/core";
import { onFirstUse } from "@event-service/core/internal";
import type Stripe from "stripe";

/**
 * Stripe's official client for the service: no telemetry (the SDK would send each request's
 * latency with the next one), two retries of a request that failed on the network or with a
 * 5xx (the SDK keeps the Idempotency-Key across them), and `apiUrl` (`STRIPE_API_URL`) instead of
 * Stripe's own host when given, e.g. a local stand-in such as stripe-mock.
 *
 * The SDK (a few hundred modules) is loaded by the first call, not at start: a server whose
 * events take no payments never holds it. Calls at once share the one load; a load that fails
 * fails its calls with `INTERNAL_ERROR` (a notification from Stripe is then answered 500, and
 * Stripe sends it again) and is tried again by the next.
 */
export function stripeClient(secretKey: string, apiUrl?: URL): StripeClient {
  const sdk = onFirstUse(() =>
    import("stripe").then(
      ({ default: StripeSdk }) => createSdk(StripeSdk, secretKey, apiUrl),
      // A failure of this process, never of the notification or payment at hand: a 500 with its cause logged.
      (error: unknown) => {
        throw new ServiceError("INTERNAL_ERROR", { cause: error });
      },
    ),
  );
  return {
    paymentIntents: {
      create: async (params, options) => (await sdk()).paymentIntents.create(params, options),
      cancel: async (id, params, options) => (await sdk()).paymentIntents.cancel(id, params, options),
    },
    checkout: {
      sessions: {
        create: async (params, options) => (await sdk()).checkout.sessions.create(params, options),
        retrieve: async (id, params, options) => (await sdk()).checkout.sessions.retrieve(id, params, options),
        expire: async (id, params, options) => (await sdk()).checkout.sessions.expire(id, params, options),
      },
    },
    refunds: {
      create: async (params, options) => (await sdk()).refunds.create(params, options),
    },
    accounts: {
      retrieve: async (id, params, options) => (await sdk()).accounts.retrieve(id, params, options),
    },
    webhooks: {
      constructEventAsync: async (payload, header, secret, tolerance, cryptoProvider, receivedAt) =>
        (await sdk()).webhooks.constructEventAsync(payload, header, secret, tolerance, cryptoProvider, receivedAt),
    },
  };
}

function createSdk(StripeSdk: typeof Stripe, secretKey: string, apiUrl: URL | undefined): Stripe {
  const protocol = apiUrl?.protocol === "http:" ? "http" : "https";
  return new StripeSdk(secretKey, {
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
