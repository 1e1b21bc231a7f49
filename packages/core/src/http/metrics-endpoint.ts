import { createHash, timingSafeEqual } from "node:crypto";
import { ServiceError } from "../errors.ts";
import { bearerToken } from "./request.ts";

/** A scrape's answer: the exposition and its content type (Prometheus text format, OpenMetrics, ...). */
export interface MetricsExposition {
  body: string;
  contentType: string;
}

/**
 * What a host gives the handler to serve `GET /metrics`. Core holds no metrics library: the
 * host observes requests and deliveries through the handler's and the worker's hooks, keeps
 * its own registry and hands the handler its exposition here.
 */
export interface MetricsEndpointOptions {
  /** The bearer token a scraper must present. Compared in constant time; never logged. */
  token: string;
  /** Renders the current metrics; called once per authorised scrape. */
  collect(): Promise<MetricsExposition>;
}

/** The challenge of a `401` at `/metrics` (RFC 6750). */
const METRICS_CHALLENGE = { "www-authenticate": 'Bearer realm="metrics"' } as const;

/** A fixed-length digest, so that the comparison takes the same time whatever the lengths. */
const digest = (value: string) => createHash("sha256").update(value).digest();

/**
 * Checks a scrape's bearer token against the configured one in constant time (both are hashed
 * first, so not even their lengths leak) and returns the exposition; throws `401 UNAUTHORIZED`
 * with a `WWW-Authenticate` challenge when the token is missing or wrong.
 */
export async function serveMetrics(request: Request, options: MetricsEndpointOptions): Promise<MetricsExposition> {
  const given = bearerToken(request);
  if (given === null || !timingSafeEqual(digest(given), digest(options.token))) {
    throw new ServiceError("UNAUTHORIZED", {
      message:
        given === null
          ? "Missing metrics token: send Authorization: Bearer <METRICS_TOKEN>."
          : "Invalid metrics token.",
      headers: METRICS_CHALLENGE,
    });
  }
  return options.collect();
}
