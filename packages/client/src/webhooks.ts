/**
 * @event-service/client/webhooks: what a webhook receiver needs, `verifyWebhook` (the
 * Standard Webhooks headers, with replay protection), `verifySignature` and `signPayload`
 * (core's, `node:crypto` only, bundled into this entry at build time): every name of
 * `@event-service/core/webhooks`, which chooses them. A subpath of its own, so the client's main
 * entry stays free of Node-only imports for browsers.
 *
 * @example
 * import { verifyWebhook, WebhookVerificationError } from "@event-service/client/webhooks";
 * try {
 *   const { id, payload } = verifyWebhook(process.env.WEBHOOK_SECRET!, request.headers, rawBody);
 *   // skip `id` if it was handled already, else handle `payload`
 * } catch (error) {
 *   if (error instanceof WebhookVerificationError) return reply(400);
 *   throw error;
 * }
 */
export * from "@event-service/core/webhooks";
