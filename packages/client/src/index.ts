/**
 * @event-service/client: a typed client for the Event Service REST API.
 *
 * @example
 * import { createClient } from "@event-service/client";
 * const client = createClient({ baseUrl: "http://127.0.0.1:3000", apiKey: process.env.EVENT_SERVICE_KEY! });
 * const event = await client.events.create({ name: "Green Summit", ... });
 */
import type {
  Attendee, AttendeeCreateInput, AttendeeUpdateInput, CheckInInput, CreatedWebhook, DeleteResult, Envelope, ErrorCode, Event,
  EventCreateInput, EventUpdateInput, ListResult, Webhook, WebhookCreateInput, WebhookDelivery, WebhookUpdateInput,
} from "@event-service/core";
import { FetchError, ofetch } from "ofetch";

export type {
  Attendee, AttendeeCreateInput, AttendeeUpdateInput, CheckInInput, CreatedWebhook, DeleteResult, Envelope, ErrorCode, Event,
  EventCreateInput, EventUpdateInput, ListResult, Webhook, WebhookCreateInput, WebhookDelivery, WebhookUpdateInput,
};

/** Verifying (in a receiver) and producing `X-Service-Signature` values; node:crypto only. */
export { SIGNATURE_HEADER, signPayload, verifySignature } from "@event-service/core/webhooks";

/** Options of {@link createClient}. */
export interface ClientOptions {
  /** The service's address, e.g. `https://events.example.com` (the `/v1` prefix is added). */
  baseUrl: string;
  /** An API key (`esk_…`). */
  apiKey: string;
  /** A fetch implementation; defaults to the global one. */
  fetch?: typeof globalThis.fetch;
}

/** Query parameters of a list call; values are sent as strings. */
export type ListQuery = Record<string, string | number | boolean | undefined>;

/** The one error every failed call throws, carrying the service's error body. */
export class EventServiceError extends Error {
  override readonly name = "EventServiceError";
  constructor(
    readonly status: number,
    readonly code: ErrorCode | "NETWORK_ERROR",
    message: string,
    readonly field?: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }

  /** True for any `EventServiceError`, also from another copy of this package. */
  static is(value: unknown): value is EventServiceError {
    return value instanceof Error && value.name === "EventServiceError";
  }
}

/**
 * Creates a client bound to one service and key.
 */
export function createClient(options: ClientOptions) {
  const api = ofetch.create({
    baseURL: `${options.baseUrl.replace(/\/+$/, "")}/v1`,
    headers: { authorization: `Bearer ${options.apiKey}` },
    retry: 0,
    ...(options.fetch && { fetch: options.fetch }),
  });

  async function call<T>(method: "GET" | "POST" | "PUT" | "DELETE", path: string, body?: unknown, query?: ListQuery): Promise<T> {
    try {
      return await api<T>(path, { method, ...(body !== undefined && { body: body as Record<string, unknown> }), ...(query && { query }) });
    } catch (error) {
      if (error instanceof FetchError && error.data && typeof error.data === "object" && "error" in error.data) {
        const e = (error.data as { error: { code: ErrorCode; message: string; field?: string; details?: Record<string, unknown> } }).error;
        throw new EventServiceError(error.status ?? 0, e.code, e.message, e.field, e.details);
      }
      throw new EventServiceError((error as FetchError).status ?? 0, "NETWORK_ERROR", (error as Error).message);
    }
  }

  const id = (value: string) => encodeURIComponent(value);

  return {
    events: {
      create: (input: EventCreateInput) => call<Event>("POST", "/events", input),
      get: (eventId: string) => call<Event>("GET", `/events/${id(eventId)}`),
      update: (eventId: string, input: EventUpdateInput) => call<Event>("PUT", `/events/${id(eventId)}`, input),
      delete: (eventId: string) => call<DeleteResult>("DELETE", `/events/${id(eventId)}`),
      list: (query: ListQuery = {}) => call<ListResult<"events", Event>>("GET", "/events", undefined, query),
      checkIn: (eventId: string, input: CheckInInput) => call<Attendee>("POST", `/events/${id(eventId)}/check-in`, input),
    },
    attendees: {
      register: (input: AttendeeCreateInput) => call<Attendee>("POST", "/attendees", input),
      get: (attendeeId: string) => call<Attendee>("GET", `/attendees/${id(attendeeId)}`),
      update: (attendeeId: string, input: AttendeeUpdateInput) => call<Attendee>("PUT", `/attendees/${id(attendeeId)}`, input),
      list: (query: ListQuery = {}) => call<ListResult<"attendees", Attendee>>("GET", "/attendees", undefined, query),
    },
    webhooks: {
      /** The answer is the only one that shows the secret. */
      create: (input: WebhookCreateInput) => call<CreatedWebhook>("POST", "/webhooks", input),
      get: (webhookId: string) => call<Webhook>("GET", `/webhooks/${id(webhookId)}`),
      update: (webhookId: string, input: WebhookUpdateInput) => call<Webhook>("PUT", `/webhooks/${id(webhookId)}`, input),
      delete: (webhookId: string) => call<DeleteResult>("DELETE", `/webhooks/${id(webhookId)}`),
      list: (query: ListQuery = {}) => call<ListResult<"webhooks", Webhook>>("GET", "/webhooks", undefined, query),
      /** The delivery log, newest first. */
      deliveries: (webhookId: string, query: ListQuery = {}) =>
        call<ListResult<"deliveries", WebhookDelivery>>("GET", `/webhooks/${id(webhookId)}/deliveries`, undefined, query),
      /** Queues one more attempt of a delivery (same envelope), due now. */
      redeliver: (webhookId: string, deliveryId: string) => call<WebhookDelivery>("POST", `/webhooks/${id(webhookId)}/deliveries/${id(deliveryId)}/redeliver`),
      /** Sends a signed `webhook.ping` now; the answer holds the attempt's result. */
      ping: (webhookId: string) => call<WebhookDelivery>("POST", `/webhooks/${id(webhookId)}/ping`),
    },
  };
}

/** The client `createClient` returns. */
export type EventServiceClient = ReturnType<typeof createClient>;
