import type * as z from "zod";
import { createId } from "../_internal/ids.ts";
import { ServiceError } from "../errors.ts";
import { paginate } from "../resources/common.ts";
import {
  assertEventTypes,
  assertHttpsUrl,
  assertSubscribable,
  generateWebhookSecret,
  missingReadScopes,
  SECRET_ROTATION_OVERLAP_MS,
  toApiWebhook,
  type WebhookCreateInput,
  type WebhookListQuery,
  type WebhookRecord,
  type WebhookUpdateInput,
} from "../resources/webhook.ts";
import { WEBHOOK_LIMITS } from "../rules/webhook-quota.ts";
import { type DeliveryListQuery, type DeliveryRecord, toApiDelivery } from "../resources/webhook-delivery.ts";
import type { DeliveryStore } from "../storage/delivery-store.ts";
import type { TransactionStore } from "../storage/transaction.ts";
import type { WebhookStore } from "../storage/webhook-store.ts";
import { attemptDelivery, DEFAULT_WEBHOOK_TIMEOUT_MS, DELIVERY_LEASE_MARGIN_MS } from "../webhooks/attempt-delivery.ts";
import { assertPublicHost, type HostResolver } from "../webhooks/ssrf.ts";
import { createPingDelivery, recordDeliveryAttempts, redeliverDelivery } from "./delivery-operations.ts";
import type { OperationContext } from "./operation-context.ts";
import { notFound } from "./not-found.ts";
import { changeWebhook, insertWebhook } from "./webhook-changes.ts";

/** Webhook settings of the service (`EventServiceOptions.webhooks`). */
export interface WebhookSettings {
  /** Allow URLs on loopback, private and other non-public addresses (tests, private networks). Default false. */
  allowPrivateNetworks?: boolean;
  /** Resolves host names for the SSRF guard; the system resolver by default. */
  resolveHost?: HostResolver;
  /** Timeout of a ping's attempt. Default 5,000 ms. */
  timeoutMs?: number;
  /** Called after a change that may have queued deliveries (wake a delivery worker: `worker.wake`). */
  onQueued?: () => void;
  /** Tests only: the fetch pings are sent with instead of the pinned connection. */
  fetch?: typeof globalThis.fetch;
  /** How long a rotated-out secret keeps signing beside the new one. Default 24 h. */
  secretOverlapMs?: number;
}

/** The webhook operations of one account: its subscriptions and their delivery log. */
export function createWebhookOperations(
  storage: WebhookStore & DeliveryStore & TransactionStore,
  context: OperationContext,
  settings: WebhookSettings = {},
) {
  const { accountId, scopes, tier, clock, queued } = context;
  // The webhooks' and deliveries' transactions write rows and notify nothing: they take the storage alone.
  const writes = { storage };
  const webhookLimit = WEBHOOK_LIMITS[tier];
  const deliveryOut = (delivery: DeliveryRecord) => toApiDelivery(delivery, scopes);

  /** The webhook as `decide` changes it (`changeWebhook`); throws `NOT_FOUND` when the account has none. */
  async function change(id: string, decide: (current: WebhookRecord) => WebhookRecord): Promise<WebhookRecord> {
    const changed = await changeWebhook(writes, { accountId, id }, decide);
    if (!changed) throw notFound("Webhook", id);
    return changed.after;
  }

  async function checkUrl(value: string): Promise<string> {
    const url = assertHttpsUrl(value);
    if (!settings.allowPrivateNetworks) await assertPublicHost(url, settings.resolveHost);
    return url.href;
  }

  const webhooks = {
    async create(parsed: z.output<typeof WebhookCreateInput>) {
      assertEventTypes(parsed.events);
      assertSubscribable(parsed.events, scopes);
      const url = await checkUrl(parsed.url);
      const at = clock().toISOString();
      const record: WebhookRecord = {
        id: createId("webhook"),
        accountId,
        url,
        events: parsed.events,
        description: parsed.description ?? null,
        secret: parsed.secret ?? generateWebhookSecret(),
        active: parsed.active ?? true,
        metadata: parsed.metadata ?? {},
        previousSecret: null,
        previousSecretExpiresAt: null,
        consecutiveFailures: 0,
        disabledAt: null,
        createdAt: at,
        updatedAt: at,
      };
      if (!(await insertWebhook(writes, { webhook: record, maxPerAccount: webhookLimit }))) {
        throw new ServiceError("INVALID_REQUEST", {
          message: `This account already has ${webhookLimit} webhooks, the limit of its ${tier} tier; delete one first.`,
          details: { limit: webhookLimit, tier },
        });
      }
      return { ...toApiWebhook(record), secret: record.secret };
    },
    async get(id: string) {
      const webhook = await storage.getWebhook(accountId, id);
      if (!webhook) throw notFound("Webhook", id);
      return toApiWebhook(webhook);
    },
    async update(id: string, parsed: z.output<typeof WebhookUpdateInput>) {
      if (parsed.events) assertEventTypes(parsed.events);
      const url = parsed.url === undefined ? undefined : await checkUrl(parsed.url);
      const at = clock().toISOString();
      const after = await change(id, (current) => {
        // What decides where data goes (the URL, the types, re-enabling) is checked on the
        // subscription after the change: a key may not re-point a subscription it could not make.
        // Describing or pausing a webhook reaches nothing.
        if (url !== undefined || parsed.events || parsed.active === true)
          assertSubscribable(parsed.events ?? current.events, scopes);
        const reEnabled = parsed.active === true;
        return {
          ...current,
          ...(url !== undefined && { url }),
          ...(parsed.events && { events: parsed.events }),
          ...(parsed.description !== undefined && { description: parsed.description }),
          ...(parsed.metadata !== undefined && { metadata: parsed.metadata ?? {} }),
          ...(parsed.active !== undefined && { active: parsed.active }),
          ...(reEnabled && { consecutiveFailures: 0, disabledAt: null }),
          updatedAt: at,
        };
      });
      return toApiWebhook(after);
    },
    async delete(id: string) {
      if (!(await storage.deleteWebhook(accountId, id))) throw notFound("Webhook", id);
      return { success: true as const, message: `Webhook ${id} was deleted.`, deletedId: id };
    },
    async list(parsed: z.output<typeof WebhookListQuery>) {
      const page = await storage.listWebhooks(accountId, parsed);
      return { webhooks: page.items.map(toApiWebhook), pagination: paginate(parsed.page, parsed.limit, page.total) };
    },
    async deliveries(id: string, parsed: z.output<typeof DeliveryListQuery>) {
      const page = await storage.listDeliveries(accountId, id, parsed);
      if (!page) throw notFound("Webhook", id);
      return { deliveries: page.items.map(deliveryOut), pagination: paginate(parsed.page, parsed.limit, page.total) };
    },
    async redeliver(id: string, deliveryId: string) {
      // A delivery's type never changes, so this read guards the redelivery below.
      const existing = await storage.getDelivery(accountId, id, deliveryId);
      if (!existing) throw notFound("Delivery", deliveryId);
      const missing = missingReadScopes([existing.type], scopes);
      if (missing.length > 0) {
        throw new ServiceError("FORBIDDEN", {
          message: `This API key lacks the ${missing.join(" and ")} scope needed to read ${existing.type} notifications, so it may not redeliver one.`,
          details: { requiredScopes: missing },
        });
      }
      const delivery = await redeliverDelivery(writes, {
        accountId,
        webhookId: id,
        deliveryId,
        now: clock().toISOString(),
      });
      if (!delivery) throw notFound("Delivery", deliveryId);
      queued();
      return deliveryOut(delivery);
    },
    async ping(id: string) {
      const timeoutMs = settings.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
      const at = clock();
      const workerId = `ping_${createId("delivery")}`;
      const held = await createPingDelivery(writes, {
        accountId,
        webhookId: id,
        workerId,
        now: at.toISOString(),
        leaseUntil: new Date(at.getTime() + timeoutMs + DELIVERY_LEASE_MARGIN_MS).toISOString(),
      });
      if (!held) throw notFound("Webhook", id);
      await attemptDelivery(held, {
        record: async (record) => (await recordDeliveryAttempts(writes, { records: [record] }))[0]!,
        workerId,
        retryDelaysMs: [],
        timeoutMs,
        allowPrivateNetworks: settings.allowPrivateNetworks ?? false,
        resolveHost: settings.resolveHost,
        fetch: settings.fetch,
        now: clock,
      });
      const delivery = await storage.getDelivery(accountId, id, held.id);
      if (!delivery) throw notFound("Delivery", held.id);
      return deliveryOut(delivery);
    },
    async rotateSecret(id: string) {
      const at = clock();
      const expiresAt = new Date(at.getTime() + (settings.secretOverlapMs ?? SECRET_ROTATION_OVERLAP_MS)).toISOString();
      const secret = generateWebhookSecret();
      const after = await change(id, (current) => ({
        ...current,
        secret,
        previousSecret: current.secret,
        previousSecretExpiresAt: expiresAt,
        updatedAt: at.toISOString(),
      }));
      return { ...toApiWebhook(after), secret, previousSecretExpiresAt: expiresAt };
    },
  };

  return webhooks;
}
