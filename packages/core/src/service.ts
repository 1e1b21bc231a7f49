import type { StripeClient } from "./payments/stripe-client.ts";
import { createPaymentOperations } from "./service/payment-operations.ts";
import { createStripePayments, type StripePayments } from "./service/stripe-payments.ts";
import { MANUAL_PAYMENT_TERMS, type PaymentTerms } from "./rules/payments.ts";
import { type CarbonSettings, DEFAULT_CARBON_SETTINGS } from "./carbon/carbon-settings.ts";
import type { EmissionFactorSet, EmissionFactorSetInput } from "./carbon/emission-factors.ts";
import { createFactorSets, type FactorSets, factorSetsIdentity } from "./carbon/factor-sets.ts";
import { createQrCodeRenderer, type QrCodeImage } from "./qr-code.ts";
import { type Scope, SCOPES, type Tier } from "./resources/api-key.ts";
import { createActivityOperations } from "./service/activity-operations.ts";
import { createAnalyticsOperations } from "./service/analytics-operations.ts";
import { createAttendeeOperations } from "./service/attendee-operations.ts";
import { createEventOperations } from "./service/event-operations.ts";
import { createKeyOperations, type KeyOperations } from "./service/key-operations.ts";
import type { OperationContext } from "./service/operation-context.ts";
import { createThresholdOperations } from "./service/threshold-operations.ts";
import { createTicketLinkOperations, findLinkedRegistration } from "./service/ticket-link-operations.ts";
import { createCheckInLinkOperations, createDoorLinkOperations, findDoorLink } from "./service/door-link-operations.ts";
import { createVendorLinkOperations, findLinkedBooking } from "./service/vendor-link-operations.ts";
import { createVendorOperations } from "./service/vendor-operations.ts";
import { createWebhookOperations, type WebhookSettings } from "./service/webhook-operations.ts";
import {
  ACCOUNT_OPERATIONS,
  type ActivityOperations,
  type AnalyticsOperations,
  type AttendeeOperations,
  type BookingOperations,
  DOOR_LINK_OPERATIONS,
  type DoorLinkOperations,
  type EventOperations,
  type PaymentOperations,
  type ThresholdOperations,
  TICKET_LINK_OPERATIONS,
  type TicketLinkOperations,
  VENDOR_LINK_OPERATIONS,
  type VendorLinkOperations,
  type VendorOperations,
  type WebhookOperations,
} from "./operations/all.ts";
import type { AccountContext, DoorContext, LinkContext, TicketContext } from "./operations/context.ts";
import { methodsOf } from "./operations/define.ts";
import type { Storage } from "./storage.ts";
import { createChangeNotifier, DEFAULT_PUBLIC_URL } from "./webhooks/change-notifications.ts";

export type {
  ActivityOperations,
  AnalyticsOperations,
  AttendeeOperations,
  BookingOperations,
  DoorLinkOperations,
  EventOperations,
  PaymentOperations,
  ThresholdOperations,
  TicketLinkOperations,
  VendorLinkOperations,
  VendorOperations,
  WebhookOperations,
} from "./operations/all.ts";
export type { AttendeeExport } from "./service/attendee-operations.ts";
export type { KeyOperations } from "./service/key-operations.ts";
export type { ListResult } from "./service/operation-context.ts";
export type { WebhookSettings } from "./service/webhook-operations.ts";

/** What the operations of each account's (and vendor link's) methods run with, for the handler. */
const contexts = new WeakMap<object, AccountContext | LinkContext>();

/** The context an account's operations run with, for the handler, which validates and runs them itself. */
export function accountContextOf(account: AccountOperations): AccountContext {
  const context = contexts.get(account);
  if (!context || !("accountId" in context)) throw new Error("accountContextOf: not an account's operations");
  return context;
}

/** The context a vendor link's operations run with. */
export function linkContextOf(link: VendorLinkOperations): LinkContext {
  const context = contexts.get(link);
  if (!context || "accountId" in context) throw new Error("linkContextOf: not a vendor link's operations");
  return context;
}

/** What the operations of each ticket link's methods run with, for the handler. */
const ticketContexts = new WeakMap<object, TicketContext>();

/** The context a ticket link's operations run with. */
export function ticketContextOf(link: TicketLinkOperations): TicketContext {
  const context = ticketContexts.get(link);
  if (!context) throw new Error("ticketContextOf: not a ticket link's operations");
  return context;
}

/** What the operations of each door link's methods run with, for the handler. */
const doorContexts = new WeakMap<object, DoorContext>();

/** The context a door link's operations run with. */
export function doorContextOf(link: DoorLinkOperations): DoorContext {
  const context = doorContexts.get(link);
  if (!context) throw new Error("doorContextOf: not a door link's operations");
  return context;
}

/** How many accounts' operations {@link EventService.forAccount} keeps built. */
const ACCOUNT_SCOPE_CACHE_SIZE = 1_000;

/** Whether two scope lists hold the same scopes in the same order (they come from the same key). */
function sameScopes(a: readonly Scope[], b: readonly Scope[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Options of {@link createEventService}. */
export interface EventServiceOptions {
  /** Where everything is kept; `createSqlStorage` makes one. */
  storage: Storage;
  /**
   * The service's public base URL (`https://events.example.com`, with the path the handler is
   * mounted under if any), used in every link it hands out: `qrCode`, report URLs, the
   * `documentation` of error bodies. Without it, the handler builds them from a trusted proxy's
   * forwarded headers or its `linkOrigin` (see `HandlerOptions`), never from a request's `Host`;
   * outside a request they use `http://localhost:3000`.
   */
  publicUrl?: string;
  /** Carbon accounting settings; see `DEFAULT_CARBON_SETTINGS`. */
  carbon?: Partial<CarbonSettings>;
  /**
   * The emission factor sets, one per year (see `EmissionFactorSet`, `createFactorSets`);
   * default: the storage's (`createSqlStorage({ emissionFactors })`), else the bundled
   * `DEFAULT_EMISSION_FACTORS`. The storage keeps the figures, so the sets given here must be
   * the storage's: other ones throw at creation.
   */
  emissionFactors?: EmissionFactorSetInput | readonly EmissionFactorSetInput[];
  /** The clock; tests may pin it. */
  now?: () => Date;
  /** Webhook settings. */
  webhooks?: WebhookSettings;
  /** How priced registrations pay; without Stripe, payments are recorded by hand. */
  payments?: PaymentSettings;
  /**
   * Emails (docs/api.md, Email): given, registrations, promotions, payments and bookings queue
   * the emails they send in the email outbox, which `createEmailWorker` sends; without it nothing
   * is queued. `onQueued` is called after a write that may have queued some.
   */
  emails?: EmailSettings;
}

/** Options of emails. */
export interface EmailSettings {
  /** Called after a write that may have queued emails (`EmailWorker.wake`). */
  onQueued?: () => void;
}

/** Options of payments. */
export interface PaymentSettings {
  /**
   * Stripe's client (`new Stripe(secretKey, { telemetry: false })` from the official `stripe`
   * package): with it, priced registrations pay through Stripe; without it, by hand.
   */
  stripe?: StripeClient;
  /** The webhook endpoint's signing secrets (`whsec_...`; the platform's and the Connect endpoint's): a notification verifies against any. */
  webhookSecrets?: readonly string[];
  /** Minutes an unpaid Stripe payment holds its place (`PAYMENT_HOLD_MINUTES`, default 30, fractions allowed). */
  holdMinutes?: number;
}

/**
 * Who acts for an account: what {@link EventService.forAccount} is given. Over HTTP the handler
 * passes the API key's scopes and tier; a programmatic caller without a key may leave them out.
 */
export interface AccountOptions {
  /** The base of the links handed out when the service has no `publicUrl` (the handler passes the one it resolved). */
  baseUrl?: string;
  /**
   * The caller's scopes: which notification types its webhooks may subscribe to and whose data
   * the delivery log shows it (the routes check the rest), as given: a `:write` grants its
   * family's `:read` (`holdsScope`). Default: every scope.
   */
  scopes?: readonly Scope[];
  /** The caller's tier, which caps the account's webhooks (`WEBHOOK_LIMITS`), as it picks the rate limits. Default `enterprise`. */
  tier?: Tier;
}

/** Everything one account may do. */
export interface AccountOperations {
  accountId: string;
  events: EventOperations;
  attendees: AttendeeOperations;
  webhooks: WebhookOperations;
  analytics: AnalyticsOperations;
  activities: ActivityOperations;
  thresholds: ThresholdOperations;
  vendors: VendorOperations;
  /** The vendor bookings of the account's events. */
  bookings: BookingOperations;
  /** The account's payment settings. */
  payments: PaymentOperations;
}

/** The service: framework-free, usable directly or through `createHandler`. */
export interface EventService {
  readonly storage: Storage;
  readonly carbon: CarbonSettings;
  /** The latest of {@link factorSets}. */
  readonly emissionFactors: EmissionFactorSet;
  /** The emission factor sets, one per year: each event's figures are priced by the set of its start's year. */
  readonly factorSets: FactorSets;
  readonly keys: KeyOperations;
  /** `options.publicUrl` without its trailing slash; `undefined` when none was given. */
  readonly publicUrl: string | undefined;
  /** The operations of one account, for a caller with the given scopes and tier (default: all scopes, enterprise). */
  forAccount(accountId: string, options?: AccountOptions): AccountOperations;
  /**
   * A public QR code image of a registration's confirmation code, or `null` for an unknown id.
   * Rendered once per code and format (a bounded cache), with a strong `etag`.
   */
  qrCode(attendeeId: string, format: "png" | "svg"): Promise<QrCodeImage | null>;
  /** The service's clock (`options.now`, else the system clock). */
  clock(): Date;
  /**
   * What a vendor may do through its booking's link (no API key), or `null` when `token` opens
   * no booking (unknown, rotated, cancelled). `baseUrl`: the base of the links its notifications
   * hand out when the service has no `publicUrl`.
   */
  vendorLink(token: string, options?: { baseUrl?: string }): Promise<VendorLinkOperations | null>;
  /**
   * What an attendee may do through their ticket link (no API key), or `null` when `token` opens
   * no registration (unknown, rotated, erased). `baseUrl`: the base of the links it hands out
   * (the QR image, the calendar) when the service has no `publicUrl`.
   */
  ticketLink(token: string, options?: { baseUrl?: string }): Promise<TicketLinkOperations | null>;
  /**
   * What a door may do through its event's check-in link (no API key), or `null` when `token`
   * opens no door (unknown, revoked, expired, its event deleted). Looked up afresh on every call:
   * a revoked link opens nothing from the next call on, on every process.
   */
  doorLink(token: string, options?: { baseUrl?: string }): Promise<DoorLinkOperations | null>;
  /**
   * Stripe's side of the payments, when the service has a Stripe client: `receive` takes what
   * Stripe sends to the webhook endpoint (throws `INVALID_SIGNATURE`), `runPass` is one pass of
   * the payment worker (`createPaymentWorker` runs it on a timer), `checkout` makes the Stripe
   * Checkout Session a registration pays through from its ticket page and answers its URL.
   */
  readonly stripe: Pick<StripePayments, "receive" | "runPass" | "checkout"> | undefined;
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
  const factorSets = resolveFactorSets(storage, options.emissionFactors);
  const clock = options.now ?? (() => new Date());
  const publicUrl = options.publicUrl?.replace(/\/+$/, "") || undefined;
  const defaultBaseUrl = publicUrl ?? DEFAULT_PUBLIC_URL;
  const emails = options.emails !== undefined;
  const queued = () => {
    options.webhooks?.onQueued?.();
    options.emails?.onQueued?.();
  };
  const stripe = options.payments?.stripe;
  const payments: PaymentTerms = {
    provider: stripe ? "stripe" : "manual",
    holdMinutes: options.payments?.holdMinutes ?? MANUAL_PAYMENT_TERMS.holdMinutes,
  };
  const stripePayments =
    stripe &&
    createStripePayments({
      context: {
        storage,
        notifier: createChangeNotifier({ baseUrl: defaultBaseUrl, carbon, factorSets }),
        factorSets,
        carbon,
        payments,
        emails,
      },
      stripe,
      webhookSecrets: options.payments?.webhookSecrets ?? [],
      clock,
      queued,
    });

  function buildOperations(
    accountId: string,
    baseUrl: string,
    scopes: readonly Scope[],
    tier: Tier,
  ): AccountOperations {
    const context: OperationContext = {
      storage,
      accountId,
      baseUrl,
      scopes,
      tier,
      carbon,
      factorSets,
      clock,
      notifier: createChangeNotifier({ baseUrl, carbon, factorSets }),
      queued,
      payments,
      emails,
      stripe: stripePayments,
    };
    const { vendors, bookings } = createVendorOperations(storage, context);
    const runs: AccountContext = {
      accountId,
      vendors,
      bookings,
      events: createEventOperations(storage, context),
      attendees: createAttendeeOperations(storage, context),
      webhooks: createWebhookOperations(storage, context, options.webhooks),
      analytics: createAnalyticsOperations(storage, context),
      activities: createActivityOperations(storage, context),
      thresholds: createThresholdOperations(storage, context),
      payments: createPaymentOperations(storage, context, stripe),
      checkInLinks: createCheckInLinkOperations(storage, context),
    };
    // What an embedder calls: each method validates its arguments by its operation's schemas, then runs it.
    const account: AccountOperations = {
      accountId,
      events: methodsOf(ACCOUNT_OPERATIONS, runs, "events"),
      attendees: methodsOf(ACCOUNT_OPERATIONS, runs, "attendees"),
      webhooks: methodsOf(ACCOUNT_OPERATIONS, runs, "webhooks"),
      analytics: methodsOf(ACCOUNT_OPERATIONS, runs, "analytics"),
      activities: methodsOf(ACCOUNT_OPERATIONS, runs, "activities"),
      thresholds: methodsOf(ACCOUNT_OPERATIONS, runs, "thresholds"),
      vendors: methodsOf(ACCOUNT_OPERATIONS, runs, "vendors"),
      bookings: methodsOf(ACCOUNT_OPERATIONS, runs, "bookings"),
      payments: methodsOf(ACCOUNT_OPERATIONS, runs, "payments"),
    };
    contexts.set(account, runs);
    return account;
  }

  // The operations hold no state of their own, so one set serves every request of the same
  // account, origin, scopes and tier: the handler asks for them on every request, and building
  // every group of operations and a notifier each time is garbage on the hot path. Remembered per
  // account (the last set asked for), compared field by field: cheaper than building a key.
  const accountScopes = new Map<
    string,
    { baseUrl: string; scopes: readonly Scope[]; tier: Tier; scope: AccountOperations }
  >();
  function forAccount(accountId: string, scopeOptions: AccountOptions = {}): AccountOperations {
    const baseUrl = publicUrl ?? scopeOptions.baseUrl ?? defaultBaseUrl;
    const scopes = scopeOptions.scopes ?? SCOPES;
    const tier = scopeOptions.tier ?? "enterprise";
    const kept = accountScopes.get(accountId);
    if (kept && kept.baseUrl === baseUrl && kept.tier === tier && sameScopes(kept.scopes, scopes)) return kept.scope;
    const scope = buildOperations(accountId, baseUrl, scopes, tier);
    // Bounded: the oldest account goes first (a Map iterates in insertion order).
    if (!kept && accountScopes.size >= ACCOUNT_SCOPE_CACHE_SIZE)
      accountScopes.delete(accountScopes.keys().next().value!);
    accountScopes.set(accountId, { baseUrl, scopes, tier, scope });
    return scope;
  }

  const qrImages = createQrCodeRenderer();
  return {
    storage,
    carbon,
    emissionFactors: factorSets.latest,
    factorSets,
    keys: createKeyOperations(storage, clock),
    publicUrl,
    forAccount,
    clock,
    stripe: stripePayments,
    async vendorLink(token, linkOptions = {}) {
      const booking = await findLinkedBooking(storage, token);
      if (!booking) return null;
      const baseUrl = publicUrl ?? linkOptions.baseUrl ?? defaultBaseUrl;
      const notifier = createChangeNotifier({ baseUrl, carbon, factorSets });
      const runs = createVendorLinkOperations(storage, booking, {
        storage,
        notifier,
        factorSets,
        carbon,
        payments,
        emails,
        clock,
        queued,
      });
      const link: VendorLinkOperations = {
        ...methodsOf(VENDOR_LINK_OPERATIONS, runs, "link"),
        activities: methodsOf(VENDOR_LINK_OPERATIONS, runs, "link.activities"),
        booking: runs.booking,
      };
      contexts.set(link, runs);
      return link;
    },
    async ticketLink(token, linkOptions = {}) {
      const attendee = await findLinkedRegistration(storage, token);
      if (!attendee) return null;
      const baseUrl = publicUrl ?? linkOptions.baseUrl ?? defaultBaseUrl;
      const runs = createTicketLinkOperations(storage, token, attendee, {
        storage,
        notifier: createChangeNotifier({ baseUrl, carbon, factorSets }),
        factorSets,
        carbon,
        payments,
        emails,
        accountId: attendee.accountId,
        baseUrl,
        clock,
        queued,
        stripe: stripePayments,
      });
      const link: TicketLinkOperations = {
        ...methodsOf(TICKET_LINK_OPERATIONS, runs, "ticket"),
        attendee: runs.attendee,
      };
      ticketContexts.set(link, runs);
      return link;
    },
    async doorLink(token, linkOptions = {}) {
      const link = await findDoorLink(storage, token, clock().toISOString());
      if (!link) return null;
      const baseUrl = publicUrl ?? linkOptions.baseUrl ?? defaultBaseUrl;
      const runs = createDoorLinkOperations(storage, link, {
        storage,
        notifier: createChangeNotifier({ baseUrl, carbon, factorSets }),
        factorSets,
        carbon,
        payments,
        emails,
        accountId: link.accountId,
        clock,
        queued,
      });
      const door: DoorLinkOperations = { ...methodsOf(DOOR_LINK_OPERATIONS, runs, "door"), link: runs.link };
      doorContexts.set(door, runs);
      return door;
    },
    async qrCode(attendeeId, format) {
      const attendee = await storage.findAttendeeById(attendeeId);
      if (!attendee) return null;
      return qrImages(attendee.confirmationCode, format);
    },
  };
}

/** The service's factor sets: the ones given, which must be the storage's (it computes the kept figures), else the storage's. */
function resolveFactorSets(
  storage: Storage,
  given: EmissionFactorSetInput | readonly EmissionFactorSetInput[] | undefined,
): FactorSets {
  const stored = storage.factorSets ?? createFactorSets(storage.emissionFactors ? [storage.emissionFactors] : []);
  if (given === undefined) return stored;
  const sets = createFactorSets(Array.isArray(given) ? given : [given]);
  if (factorSetsIdentity(sets) !== factorSetsIdentity(stored)) {
    throw new Error(
      "createEventService: emissionFactors differ from the storage's; pass the same sets to createSqlStorage({ emissionFactors }), which keeps the figures",
    );
  }
  return sets;
}
