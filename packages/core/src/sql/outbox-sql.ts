/**
 * The rows of the transactional outbox (`webhook_deliveries`): what a queued delivery looks like
 * before its first attempt. The envelopes come finished from `webhooks/outbox.ts`; which change
 * notifies what is the `ChangeNotifier`'s to say.
 */
import type { ExpressionBuilder } from "kysely";
import type { DeliveryStatus } from "../resources/webhook-delivery.ts";
import type { Envelope } from "../storage/envelope.ts";
import type { Database, WebhookDeliveriesTable } from "./database.ts";

/** The status of a delivery that still has an attempt to make. */
export const PENDING = "pending" satisfies DeliveryStatus;

/** A delivery no worker holds at `now`: never leased, or its lease ran out (a crashed worker's). */
export const leaseFree = (now: string) => (eb: ExpressionBuilder<Database, "webhook_deliveries">) =>
  eb.or([eb("webhook_deliveries.lease_until", "is", null), eb("webhook_deliveries.lease_until", "<", now)]);

/** Every column of a delivery row, each written by {@link pendingDeliveryRow}. */
export const DELIVERY_COLUMNS = [
  "id",
  "webhook_id",
  "account_id",
  "type",
  "payload",
  "status",
  "attempt_count",
  "final_attempt",
  "counts_failures",
  "next_attempt_at",
  "lease_owner",
  "lease_until",
  "created_at",
  "updated_at",
] as const satisfies ReadonlyArray<keyof WebhookDeliveriesTable>;
export type DeliveryColumn = (typeof DELIVERY_COLUMNS)[number];

/** The row of a new pending delivery of `envelope` to the webhook, due at its `createdAt`; the envelope serialised once: the bytes every attempt sends. */
export function pendingDeliveryRow(webhookId: string, envelope: Envelope) {
  const at = envelope.createdAt;
  return {
    id: envelope.id,
    webhook_id: webhookId,
    account_id: envelope.account.id,
    type: envelope.type,
    payload: JSON.stringify(envelope),
    status: PENDING,
    attempt_count: 0,
    final_attempt: null,
    counts_failures: 1,
    next_attempt_at: at,
    lease_owner: null,
    lease_until: null,
    created_at: at,
    updated_at: at,
  } satisfies Record<DeliveryColumn, unknown>;
}
