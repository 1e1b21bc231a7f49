/**
 * @event-service/core/webhooks: what a webhook receiver needs, with no dependency beyond
 * `node:crypto`.
 */
export {
  DEFAULT_TOLERANCE_SECONDS,
  SIGNATURE_HEADER,
  signPayload,
  signWebhook,
  verifySignature,
  type VerifiedWebhook,
  verifyWebhook,
  type VerifyWebhookOptions,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  WEBHOOK_VERIFICATION_FAILURES,
  type WebhookHeaders,
  WebhookVerificationError,
  type WebhookVerificationFailure,
  webhookSigningKey,
} from "./signature.ts";
