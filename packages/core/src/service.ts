import { createConfirmationCode, createId } from "./_internal/ids.ts";
import { assertDateOrder, type Bucket, enumerateBuckets } from "./analytics/date-buckets.ts";
import { buildEventAnalytics, type EventAnalytics } from "./analytics/event-analytics.ts";
import { buildSustainabilityReport, type SustainabilityReport, SustainabilityQuery } from "./analytics/sustainability-report.ts";
import { buildTrendReport, type TrendReport, TrendQuery } from "./analytics/trend-report.ts";
import { parseInput } from "./_internal/parse-input.ts";
import { ERASED_ANSWER } from "./storage/erasure.ts";
import { type CarbonSettings, DEFAULT_CARBON_SETTINGS } from "./carbon/carbon-settings.ts";
import { eventStatsOf, NO_FIGURES } from "./carbon/kept-figures.ts";
import { ServiceError } from "./errors.ts";
import { createQrCodeRenderer, type QrCodeImage } from "./qr-code.ts";
import {
  type Attendee, AttendeeCreateInput, AttendeeListQuery, type AttendeeRecord, AttendeeUpdateInput, CheckInInput,
  newAttendeeRecord, toApiAttendee,
} from "./resources/attendee.ts";
import {
  type ApiKeyInfo, ApiKeyCreateInput, apiKeyPrefix, type AuthContext, type CreatedApiKey, generateApiKey, hashApiKey, type Scope, SCOPES,
  type Tier,
} from "./resources/api-key.ts";
import { type DeleteResult, paginate, type Pagination } from "./resources/common.ts";
import { type Event, EventCreateInput, EventListQuery, EventUpdateInput, newEventRecord, toApiEvent } from "./resources/event.ts";
import {
  assertEventTypes, assertHttpsUrl, assertSubscribable, canReadNotification, type CreatedWebhook, generateWebhookSecret, missingReadScopes, PING_EVENT_TYPE,
  type RotatedWebhook, SECRET_ROTATION_OVERLAP_MS, type Webhook, WebhookCreateInput, WEBHOOK_LIMITS, WebhookListQuery, type WebhookRecord,
  WebhookUpdateInput,
} from "./resources/webhook.ts";
import { DeliveryListQuery, type DeliveryRecord, type WebhookDelivery } from "./resources/webhook-delivery.ts";
import type { Storage } from "./storage.ts";
import { createChangeNotifier, DEFAULT_PUBLIC_URL } from "./webhooks/change-notifications.ts";
import { DEFAULT_WEBHOOK_TIMEOUT_MS } from "./webhooks/delivery-worker.ts";

import { sendDelivery } from "./webhooks/send-delivery.ts";
import { assertPublicHost, type HostResolver } from "./webhooks/ssrf.ts";

/** Options of {@link createEventService}. */
export interface EventServiceOptions {
  /** Where everything is kept; `createSqlStorage` makes one. */
  storage: Storage;
  /**
   * The service's public base URL (`https://events.example.com`), used in the links it hands
   * out (`qrCode`). Over HTTP it defaults to the request's origin; elsewhere to
   * `http://localhost:3000`.
   */
  publicUrl?: string;
  /** Carbon accounting settings; see `DEFAULT_CARBON_SETTINGS`. */
  carbon?: Partial<CarbonSettings>;
  /** The clock; tests may pin it. */
  now?: () => Date;
  /** Webhook settings. */
  webhooks?: {
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
  };
}

/** A list response: the items under `key` and the pagination object. */
export type ListResult<K extends string, T> = { [P in K]: T[] } & { pagination: Pagination };

/** Operations on one account's events. */
export interface EventOperations {
  /** Creates an event in `draft`. Throws `INVALID_REQUEST`. */
  create(input: EventCreateInput): Promise<Event>;
  /** Throws `NOT_FOUND`. */
  get(id: string): Promise<Event>;
  /** Partial update; throws `NOT_FOUND`, `INVALID_REQUEST`, `INVALID_STATE_TRANSITION`. */
  update(id: string, input: EventUpdateInput): Promise<Event>;
  /** Deletes the event and its registrations; throws `NOT_FOUND`. */
  delete(id: string): Promise<DeleteResult>;
  /** One page of events; `query` holds query-string values (strings) or their parsed forms. */
  list(query?: Record<string, unknown>): Promise<ListResult<"events", Event>>;
  /** Checks in the registration with this confirmation code; throws `NOT_FOUND`, `ALREADY_CHECKED_IN`, `INVALID_STATE_TRANSITION`. */
  checkIn(eventId: string, input: CheckInInput): Promise<Attendee>;
}

/** Operations on one account's registrations. */
export interface AttendeeOperations {
  /** Throws `INVALID_REQUEST`, `NOT_FOUND`, `EVENT_FULL`, `DUPLICATE_REGISTRATION`. */
  register(input: AttendeeCreateInput): Promise<Attendee>;
  /** Throws `NOT_FOUND`. */
  get(id: string): Promise<Attendee>;
  /** Partial update; throws `NOT_FOUND`, `INVALID_REQUEST`, `INVALID_STATE_TRANSITION`, `EVENT_FULL`, `DUPLICATE_REGISTRATION`. */
  update(id: string, input: AttendeeUpdateInput): Promise<Attendee>;
  list(query?: Record<string, unknown>): Promise<ListResult<"attendees", Attendee>>;
  /**
   * Erases the registration: its personal data leaves every table and stored payload, an
   * active one frees its place, `attendee.deleted` is sent. Throws `NOT_FOUND`.
   */
  delete(id: string): Promise<DeleteResult>;
}

/**
 * Operations on one account's webhooks. A caller reaches through them only what its scopes let
 * it read directly (`AccountOptions.scopes`): it subscribes only to types it may read, and the
 * delivery log shows the data of other types as `null` (`redacted: true`).
 */
export interface WebhookOperations {
  /**
   * Throws `INVALID_REQUEST` (also past the tier's number of webhooks, `WEBHOOK_LIMITS`), `INVALID_URL`,
   * `INVALID_EVENT_TYPE`, `FORBIDDEN` (a type the caller may not read), `DUPLICATE_WEBHOOK`. The only answer that shows the secret.
   */
  create(input: WebhookCreateInput): Promise<CreatedWebhook>;
  /** Throws `NOT_FOUND`. */
  get(id: string): Promise<Webhook>;
  /**
   * Partial update; `active: true` re-enables and resets the failure count. Throws as create,
   * and `NOT_FOUND`; `FORBIDDEN` when the update sets `url` or `events`, or `active: true`, and
   * the caller may not read every type the webhook is subscribed to after it (so a key cannot
   * re-point a subscription it could not make).
   */
  update(id: string, input: WebhookUpdateInput): Promise<Webhook>;
  /** Throws `NOT_FOUND`. */
  delete(id: string): Promise<DeleteResult>;
  list(query?: Record<string, unknown>): Promise<ListResult<"webhooks", Webhook>>;
  /** One page of the webhook's delivery log, newest first. Throws `NOT_FOUND`, `INVALID_REQUEST`. */
  deliveries(id: string, query?: Record<string, unknown>): Promise<ListResult<"deliveries", WebhookDelivery>>;
  /** Queues one more attempt of a delivery (same envelope), due now. Throws `NOT_FOUND`; `FORBIDDEN` for a type the caller may not read. */
  redeliver(id: string, deliveryId: string): Promise<WebhookDelivery>;
  /** Sends a signed `webhook.ping` at once (active or not) and returns the delivery with its attempt. Throws `NOT_FOUND`. */
  ping(id: string): Promise<WebhookDelivery>;
  /**
   * Gives the webhook a new generated secret, returned this once. The previous one keeps
   * signing beside it for 24 hours (`secretOverlapMs`); a secret rotated out earlier stops at
   * once. Throws `NOT_FOUND`.
   */
  rotateSecret(id: string): Promise<RotatedWebhook>;
}

/** One account's analytics (read-only). */
export interface AnalyticsOperations {
  /** Sustainability metrics over the account's events; `query` holds query-string values. Throws `INVALID_REQUEST`, `INVALID_DATE_RANGE`, `NOT_FOUND` (eventIds). */
  sustainability(query?: Record<string, unknown>): Promise<SustainabilityReport>;
  /**
   * The analytics report of one event (attendance, demographics, sustainability, engagement,
   * finance, feedback). Throws `NOT_FOUND`. Also what an `analytics.report_ready` payload carries.
   */
  event(eventId: string): Promise<EventAnalytics>;
  /** Trend analysis of one metric. Throws `INVALID_REQUEST`, `INVALID_DATE_RANGE`, `INSUFFICIENT_DATA`. */
  trends(query?: Record<string, unknown>): Promise<TrendReport>;
}

/**
 * Who acts for an account: what {@link EventService.forAccount} is given. Over HTTP the handler
 * passes the API key's scopes and tier; a programmatic caller without a key may leave them out.
 */
export interface AccountOptions {
  /** Overrides `publicUrl` for the links handed out (the request's origin over HTTP). */
  baseUrl?: string;
  /**
   * The caller's scopes: which notification types its webhooks may subscribe to and whose data
   * the delivery log shows it (the routes check the rest). Default: every scope.
   */
  scopes?: readonly Scope[];
  /** The caller's tier, which caps the account's webhooks (`WEBHOOK_LIMITS`), as it picks the rate limits. Default `enterprise`. */
  tier?: Tier;
}

/** Everything one account may do. */
export interface AccountScope {
  accountId: string;
  events: EventOperations;
  attendees: AttendeeOperations;
  webhooks: WebhookOperations;
  analytics: AnalyticsOperations;
}

/** Issuing and checking API keys. */
export interface KeyOperations {
  /** Creates a key (and its account when new); the only time the secret is returned. */
  create(input: ApiKeyCreateInput): Promise<CreatedApiKey>;
  /** Every key, without secrets, optionally of one account (id or name). */
  list(account?: string): Promise<ApiKeyInfo[]>;
  /** Throws `NOT_FOUND` for an unknown or already revoked key. */
  revoke(id: string): Promise<void>;
  /** The context of a valid key, or `null`. */
  authenticate(key: string): Promise<AuthContext | null>;
}

/** The service: framework-free, usable directly or through `createHandler`. */
export interface EventService {
  readonly storage: Storage;
  readonly carbon: CarbonSettings;
  readonly keys: KeyOperations;
  /** The operations of one account, for a caller with the given scopes and tier (default: all scopes, enterprise). */
  forAccount(accountId: string, options?: AccountOptions): AccountScope;
  /**
   * A public QR code image of a registration's confirmation code, or `null` for an unknown id.
   * Rendered once per code and format (a bounded cache), with a strong `etag`.
   */
  qrCode(attendeeId: string, format: "png" | "svg"): Promise<QrCodeImage | null>;
  /** The current time as an ISO string. */
  now(): string;
  /** The service's clock (`options.now`, else the system clock). */
  clock(): Date;
}

/** The API form of a webhook: never its secret. */
export function toApiWebhook(webhook: WebhookRecord): Webhook {
  const { accountId: _accountId, secret: _secret, previousSecret: _previous, previousSecretExpiresAt: _expires, ...rest } = webhook;
  return rest;
}

/**
 * The API form of a delivery as a reader with `scopes` sees it: a payload of a type those
 * scopes cannot read directly shows `data: null` and `redacted: true`.
 */
export function toApiDelivery(delivery: Omit<DeliveryRecord, "accountId"> & { accountId?: string }, scopes: readonly Scope[] = SCOPES): WebhookDelivery {
  const { accountId: _accountId, ...rest } = delivery;
  if (canReadNotification(rest.type, scopes)) return { ...rest, redacted: false };
  return { ...rest, payload: { ...rest.payload, data: null }, redacted: true };
}

/**
 * Creates the service over a storage.
 *
 * @example
 * const service = createEventService({ storage });
 * const { key, accountId } = await service.keys.create({ account: "Acme" });
 * const event = await service.forAccount(accountId).events.create({ name: "Green Summit", ... });
 */
export function createEventService(options: EventServiceOptions): EventService {
  const { storage } = options;
  const carbon: CarbonSettings = { ...DEFAULT_CARBON_SETTINGS, ...options.carbon };
  const clock = options.now ?? (() => new Date());
  const now = () => clock().toISOString();
  const defaultBaseUrl = (options.publicUrl ?? DEFAULT_PUBLIC_URL).replace(/\/+$/, "");

  const notFound = (what: string, id: string) => new ServiceError("NOT_FOUND", { message: `${what} ${id} not found.` });

  function forAccount(accountId: string, scopeOptions: AccountOptions = {}): AccountScope {
    const baseUrl = options.publicUrl ? defaultBaseUrl : (scopeOptions.baseUrl ?? defaultBaseUrl);
    const scopes = scopeOptions.scopes ?? SCOPES;
    const tier = scopeOptions.tier ?? "enterprise";
    const webhookLimit = WEBHOOK_LIMITS[tier];
    const deliveryOut = (delivery: DeliveryRecord) => toApiDelivery(delivery, scopes);
    const attendeeOut = (record: AttendeeRecord) => toApiAttendee(record, baseUrl);
    const notify = createChangeNotifier({ baseUrl, carbon });
    const queued = () => options.webhooks?.onQueued?.();

    async function getEvent(id: string): Promise<Event> {
      const event = await storage.getEvent(accountId, id, carbon);
      if (!event) throw notFound("Event", id);
      return toApiEvent(event);
    }

    const events: EventOperations = {
      async create(input) {
        const parsed = parseInput(EventCreateInput, input);
        const record = newEventRecord(parsed, { id: createId("event"), accountId, now: now() });
        await storage.insertEvent(record, notify);
        queued();
        return toApiEvent({ ...record, ...eventStatsOf(record, NO_FIGURES, carbon) });
      },
      get: getEvent,
      async update(id, input) {
        const parsed = parseInput(EventUpdateInput, input);
        await storage.updateEvent(accountId, id, parsed, now(), notify);
        queued();
        return getEvent(id);
      },
      async delete(id) {
        const deleted = await storage.deleteEvent(accountId, id, notify, { now: now(), replay: ERASED_ANSWER });
        queued();
        if (!deleted) throw notFound("Event", id);
        return { success: true, message: `Event ${id} and its registrations were deleted.`, deletedId: id };
      },
      async list(query = {}) {
        const parsed = parseInput(EventListQuery, query, "query");
        const page = await storage.listEvents(accountId, parsed, carbon);
        return { events: page.items.map(toApiEvent), pagination: paginate(parsed.page, parsed.limit, page.total) };
      },
      async checkIn(eventId, input) {
        const { confirmationCode } = parseInput(CheckInInput, input);
        const { before, after } = await storage.checkIn(accountId, eventId, confirmationCode, now(), notify);
        queued();
        if (before.status === "checked-in") {
          throw new ServiceError("ALREADY_CHECKED_IN", {
            message: `Registration ${before.id} was already checked in at ${before.checkedInAt}.`,
            details: { attendee: attendeeOut(before) },
          });
        }
        return attendeeOut(after);
      },
    };

    const attendees: AttendeeOperations = {
      async register(input) {
        const parsed = parseInput(AttendeeCreateInput, input);
        const record = newAttendeeRecord(parsed, { id: createId("attendee"), accountId, confirmationCode: createConfirmationCode(), now: now() });
        const registered = await storage.registerAttendee(record, notify);
        queued();
        return attendeeOut(registered);
      },
      async get(id) {
        const attendee = await storage.getAttendee(accountId, id);
        if (!attendee) throw notFound("Attendee", id);
        return attendeeOut(attendee);
      },
      async update(id, input) {
        const parsed = parseInput(AttendeeUpdateInput, input);
        const { after } = await storage.updateAttendee(accountId, id, parsed, now(), notify);
        queued();
        return attendeeOut(after);
      },
      async list(query = {}) {
        const parsed = parseInput(AttendeeListQuery, query, "query");
        const page = await storage.listAttendees(accountId, parsed);
        return { attendees: page.items.map(attendeeOut), pagination: paginate(parsed.page, parsed.limit, page.total) };
      },
      async delete(id) {
        const erased = await storage.eraseAttendee(accountId, id, { now: now(), replay: ERASED_ANSWER }, notify);
        if (!erased) throw notFound("Attendee", id);
        queued();
        return { success: true, message: `Attendee ${id} was erased.`, deletedId: id };
      },
    };

    async function checkUrl(value: string): Promise<string> {
      const url = assertHttpsUrl(value);
      if (!options.webhooks?.allowPrivateNetworks) await assertPublicHost(url, options.webhooks?.resolveHost);
      return url.href;
    }

    const webhooks: WebhookOperations = {
      async create(input) {
        const parsed = parseInput(WebhookCreateInput, input);
        assertEventTypes(parsed.events);
        assertSubscribable(parsed.events, scopes);
        const url = await checkUrl(parsed.url);
        const at = now();
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
        if (!(await storage.insertWebhook(record, webhookLimit))) {
          throw new ServiceError("INVALID_REQUEST", {
            message: `This account already has ${webhookLimit} webhooks, the limit of its ${tier} tier; delete one first.`,
            details: { limit: webhookLimit, tier },
          });
        }
        return { ...toApiWebhook(record), secret: record.secret };
      },
      async get(id) {
        const webhook = await storage.getWebhook(accountId, id);
        if (!webhook) throw notFound("Webhook", id);
        return toApiWebhook(webhook);
      },
      async update(id, input) {
        const parsed = parseInput(WebhookUpdateInput, input);
        if (parsed.events) assertEventTypes(parsed.events);
        const url = parsed.url === undefined ? undefined : await checkUrl(parsed.url);
        const at = now();
        const { after } = await storage.updateWebhook(accountId, id, (current) => {
          // What decides where data goes (the URL, the types, re-enabling) is checked on the
          // subscription after the change: a key may not re-point a subscription it could not make.
          // Describing or pausing a webhook reaches nothing.
          if (url !== undefined || parsed.events || parsed.active === true) assertSubscribable(parsed.events ?? current.events, scopes);
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
      async delete(id) {
        if (!(await storage.deleteWebhook(accountId, id))) throw notFound("Webhook", id);
        return { success: true, message: `Webhook ${id} was deleted.`, deletedId: id };
      },
      async list(query = {}) {
        const parsed = parseInput(WebhookListQuery, query, "query");
        const page = await storage.listWebhooks(accountId, parsed);
        return { webhooks: page.items.map(toApiWebhook), pagination: paginate(parsed.page, parsed.limit, page.total) };
      },
      async deliveries(id, query = {}) {
        const parsed = parseInput(DeliveryListQuery, query, "query");
        const page = await storage.listDeliveries(accountId, id, parsed);
        if (!page) throw notFound("Webhook", id);
        return { deliveries: page.items.map(deliveryOut), pagination: paginate(parsed.page, parsed.limit, page.total) };
      },
      async redeliver(id, deliveryId) {
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
        const delivery = await storage.redeliver(accountId, id, deliveryId, now());
        if (!delivery) throw notFound("Delivery", deliveryId);
        queued();
        return deliveryOut(delivery);
      },
      async ping(id) {
        const webhook = await storage.getWebhook(accountId, id);
        if (!webhook) throw notFound("Webhook", id);
        const timeoutMs = options.webhooks?.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
        const at = clock();
        const workerId = `ping_${createId("delivery")}`;
        const held = await storage.createHeldDelivery(
          accountId,
          id,
          { type: PING_EVENT_TYPE, data: { webhook: { id: webhook.id, url: webhook.url, events: webhook.events } } },
          { workerId, now: at.toISOString(), leaseUntil: new Date(at.getTime() + timeoutMs + 30_000).toISOString() },
        );
        if (!held) throw notFound("Webhook", id);
        const outcome = await sendDelivery(held, {
          timeoutMs,
          allowPrivateNetworks: options.webhooks?.allowPrivateNetworks ?? false,
          resolveHost: options.webhooks?.resolveHost,
          fetch: options.webhooks?.fetch,
          now: clock,
        });
        await storage.recordDeliveryAttempt({ deliveryId: held.id, workerId, attempt: outcome.attempt, nextAttemptAt: null, disable: false, disableAfter: Infinity, now: now() });
        const delivery = await storage.getDelivery(accountId, id, held.id);
        if (!delivery) throw notFound("Delivery", held.id);
        return deliveryOut(delivery);
      },
      async rotateSecret(id) {
        const at = clock();
        const expiresAt = new Date(at.getTime() + (options.webhooks?.secretOverlapMs ?? SECRET_ROTATION_OVERLAP_MS)).toISOString();
        const secret = generateWebhookSecret();
        const { after } = await storage.updateWebhook(accountId, id, (current) => ({
          ...current,
          secret,
          previousSecret: current.secret,
          previousSecretExpiresAt: expiresAt,
          updatedAt: at.toISOString(),
        }));
        return { ...toApiWebhook(after), secret, previousSecretExpiresAt: expiresAt };
      },
    };

    const analytics: AnalyticsOperations = {
      async sustainability(query = {}) {
        const parsed = parseInput(SustainabilityQuery, query, "query");
        assertDateOrder(parsed.startDate, parsed.endDate);
        const granularity = parsed.granularity === "total" ? null : parsed.granularity;
        // A range given whole is checked before any query runs.
        if (granularity && parsed.startDate && parsed.endDate) enumerateBuckets(parsed.startDate, parsed.endDate, granularity);
        const figures = await storage.analyticsFigures(
          { accountId, startDate: parsed.startDate, endDate: parsed.endDate, eventIds: parsed.eventIds, granularity },
          carbon,
        );
        const range = { startDate: parsed.startDate ?? figures.span?.first ?? null, endDate: parsed.endDate ?? figures.span?.last ?? null };
        let buckets: Bucket[] = [];
        if (granularity && range.startDate !== null && range.endDate !== null) buckets = enumerateBuckets(range.startDate, range.endDate, granularity);
        return buildSustainabilityReport({ granularity: parsed.granularity, range, eventIds: parsed.eventIds ?? null, buckets, figures, carbon });
      },
      async event(eventId) {
        const figures = await storage.eventAnalyticsFigures(accountId, eventId);
        if (!figures) throw notFound("Event", eventId);
        return buildEventAnalytics(figures, carbon);
      },
      async trends(query = {}) {
        const parsed = parseInput(TrendQuery, query, "query");
        assertDateOrder(parsed.startDate, parsed.endDate);
        if (parsed.startDate && parsed.endDate) enumerateBuckets(parsed.startDate, parsed.endDate, parsed.granularity);
        const figures = await storage.analyticsFigures(
          { accountId, startDate: parsed.startDate, endDate: parsed.endDate, category: parsed.category, granularity: parsed.granularity },
          carbon,
        );
        const startDate = parsed.startDate ?? figures.span?.first;
        const endDate = parsed.endDate ?? figures.span?.last;
        if (startDate === undefined || endDate === undefined) {
          throw new ServiceError("INSUFFICIENT_DATA", {
            message: "A trend needs at least 2 periods with data; no event matches.",
            details: { dataPoints: 0, required: 2, granularity: parsed.granularity },
          });
        }
        const buckets = enumerateBuckets(startDate, endDate, parsed.granularity);
        return buildTrendReport({ query: parsed, range: { startDate, endDate }, buckets, figures, carbon });
      },
    };

    return { accountId, events, attendees, webhooks, analytics };
  }

  const qrImages = createQrCodeRenderer();
  const keys: KeyOperations = {
    async create(input) {
      const parsed = parseInput(ApiKeyCreateInput, input);
      if (parsed.tier !== "enterprise" && (parsed.perMinute !== undefined || parsed.perDay !== undefined)) {
        throw new ServiceError("INVALID_REQUEST", { message: "perMinute and perDay are set for enterprise keys only", field: "tier" });
      }
      const key = generateApiKey();
      const newAccountId = createId("account");
      const info = await storage.createApiKey({
        id: createId("apiKey"),
        account: parsed.account,
        newAccountId,
        hash: hashApiKey(key),
        prefix: apiKeyPrefix(key),
        tier: parsed.tier,
        scopes: parsed.scopes,
        limits: { perMinute: parsed.perMinute, perDay: parsed.perDay },
        now: now(),
      });
      // The store picks the account in the key's transaction: it took the new id only if it created it.
      return { id: info.id, key, accountId: info.accountId, tier: info.tier, scopes: info.scopes, accountCreated: info.accountId === newAccountId };
    },
    list: (account) => storage.listApiKeys(account),
    async revoke(id) {
      if (!(await storage.revokeApiKey(id, now()))) throw notFound("API key", id);
    },
    authenticate: (key) => storage.authenticate(hashApiKey(key)),
  };

  return {
    storage,
    carbon,
    keys,
    forAccount,
    now,
    clock,
    async qrCode(attendeeId, format) {
      const attendee = await storage.findAttendeeById(attendeeId);
      if (!attendee) return null;
      return qrImages(attendee.confirmationCode, format);
    },
  };
}
