import * as z from "zod";
import { type Scope, SCOPES } from "./api-key.ts";
import { pagingParams, resolvePaging, Timestamp } from "./common.ts";
import { canReadNotification } from "./webhook.ts";

/** A delivery is `pending` while an attempt is due or running, then `succeeded` or `failed` for good. */
export const DELIVERY_STATUSES = ["pending", "succeeded", "failed"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One attempt of a delivery, as the delivery log shows it. */
export const DeliveryAttempt = z.object({
  number: z.int().meta({ description: "1 for the first attempt." }),
  startedAt: Timestamp,
  durationMs: z.int(),
  statusCode: z
    .int()
    .nullable()
    .meta({ description: "The receiver's HTTP status; null when no answer came (timeout, refused, TLS error)." }),
  error: z
    .string()
    .nullable()
    .meta({ description: "Why the attempt failed without an answer, or was refused before sending." }),
  responseExcerpt: z.string().nullable().meta({
    description:
      "The first 1,024 characters of the receiver's answer; null when the delivery is `redacted` (a receiver may echo the body it got).",
  }),
  succeeded: z.boolean(),
});
export type DeliveryAttempt = z.infer<typeof DeliveryAttempt>;

/** One attempt's record, as the delivery worker hands it to be recorded (`recordDeliveryAttempts`). */
export interface DeliveryAttemptRecord {
  deliveryId: string;
  /** Who holds the delivery's lease: only its holder records the attempt. */
  workerId: string;
  attempt: DeliveryAttempt;
  /** When the next attempt is due (the retry schedule's `nextAttemptAt`); `null`: the delivery is final. */
  nextAttemptAt: string | null;
  /** The receiver answered `410 Gone`. */
  gone: boolean;
  now: string;
}

/** What recording an attempt did: nothing when the worker no longer held the delivery, and whether it disabled the webhook. */
export interface AttemptRecorded {
  recorded: boolean;
  webhookDisabled: boolean;
}

/** One notification to one webhook with its attempts: an entry of the delivery log. */
export const WebhookDelivery = z.object({
  id: z.string().meta({ description: "The envelope id and `X-Service-Delivery`: the same on every attempt." }),
  webhookId: z.string(),
  type: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  attemptCount: z.int(),
  nextAttemptAt: Timestamp.nullable().meta({
    description: "When the next attempt is due; null once the delivery is final.",
  }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  payload: z
    .record(z.string(), z.unknown())
    .meta({ description: "The envelope sent (docs/api.md, Webhooks); its `data` is null when `redacted`." }),
  redacted: z.boolean().meta({
    description:
      "True when the reading key may not read this type's data directly (attendees:read for attendee.*, events:read for event.* and sustainability.*, analytics:read for analytics.*; each :write grants its :read): `payload.data` and every attempt's `responseExcerpt` are then null.",
  }),
  attempts: z.array(DeliveryAttempt),
});
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

/** A delivery as stored, with the webhook's account (whether it is shown redacted depends on the reader). */
export type DeliveryRecord = Omit<WebhookDelivery, "redacted"> & { accountId: string };

/**
 * The API form of a delivery as a reader with `scopes` sees it: a payload of a type those
 * scopes cannot read directly shows `data: null` and `redacted: true`, and so does everything
 * that may echo it: each attempt's `responseExcerpt` is `null` (a careless receiver answers
 * with the body it got).
 */
export function toApiDelivery(
  delivery: Omit<DeliveryRecord, "accountId"> & { accountId?: string },
  scopes: readonly Scope[] = SCOPES,
): WebhookDelivery {
  const { accountId: _accountId, ...rest } = delivery;
  if (canReadNotification(rest.type, scopes)) return { ...rest, redacted: false };
  const attempts = rest.attempts.map((attempt) => ({ ...attempt, responseExcerpt: null }));
  return { ...rest, payload: { ...rest.payload, data: null }, attempts, redacted: true };
}

/** Query of `GET /webhooks/:id/deliveries`. */
export const DeliveryListQuery = z
  .strictObject({ ...pagingParams, status: z.enum(DELIVERY_STATUSES).optional() })
  .transform(resolvePaging);
export type DeliveryListQuery = z.output<typeof DeliveryListQuery>;

/** A delivery handed to a worker (or a ping) to send: everything one attempt needs. */
export interface ClaimedDelivery {
  id: string;
  webhookId: string;
  accountId: string;
  url: string;
  /** The webhook's signing secret: never logged. */
  secret: string;
  /** The secret before the last rotation (never logged): it signs too until `previousSecretExpiresAt`. */
  previousSecret: string | null;
  previousSecretExpiresAt: string | null;
  type: string;
  /** The envelope's exact bytes. */
  payload: string;
  /** Attempts made before this one. */
  attemptCount: number;
  /** When set, a failure of this attempt number is final (a redelivery or a ping). */
  finalAttempt: number | null;
}
