/**
 * @event-service/core/webhooks: what a webhook receiver needs, with no dependency beyond
 * `node:crypto`.
 */
export { SIGNATURE_HEADER, signPayload, verifySignature } from "./signature.ts";
