/**
 * @event-service/client/webhooks: what a webhook receiver needs, `verifySignature` and
 * `signPayload` (core's, `node:crypto` only, bundled into this entry at build time). A subpath of
 * its own, so the client's main entry stays free of Node-only imports for browsers.
 *
 * @example
 * import { SIGNATURE_HEADER, verifySignature } from "@event-service/client/webhooks";
 * if (!verifySignature(process.env.WEBHOOK_SECRET!, rawBody, request.headers[SIGNATURE_HEADER])) return reply(401);
 */
export { SIGNATURE_HEADER, signPayload, verifySignature } from "@event-service/core/webhooks";
