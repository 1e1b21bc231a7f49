import type { Generated } from "kysely";

/**
 * The tables, as kysely sees them. Portable column types only: text, integer and real;
 * booleans are 0/1 integers, timestamps ISO 8601 UTC text (sortable as text), nested
 * objects JSON text. Columns that queries filter, sort or aggregate on are kept flat.
 */
export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  events: EventsTable;
  event_tags: EventTagsTable;
  payments: PaymentsTable;
  stripe_events: StripeEventsTable;
  payment_settings: PaymentSettingsTable;
  attendees: AttendeesTable;
  rate_limit_counters: RateLimitCountersTable;
  key_revision: KeyRevisionTable;
  factor_sets: FactorSetsTable;
  idempotency_keys: IdempotencyKeysTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  notification_marks: NotificationMarksTable;
  activities: ActivitiesTable;
  thresholds: ThresholdsTable;
  threshold_states: ThresholdStatesTable;
  event_tallies: EventTalliesTable;
  kept_tallies: KeptTalliesTable;
  vendors: VendorsTable;
  vendor_bookings: VendorBookingsTable;
  vendor_booking_links: VendorBookingLinksTable;
  email_outbox: EmailOutboxTable;
  ticket_links: TicketLinksTable;
  check_in_links: CheckInLinksTable;
}

/** An event's check-in link (revoking deletes it). Its token is kept as a SHA-256 hash only. */
export interface CheckInLinksTable {
  id: string;
  account_id: string;
  event_id: string;
  link_hash: string;
  label: string | null;
  expires_at: string | null;
  created_at: string;
}

/** A live link of an attendee's registration (several may be live at once). Its token is kept as a SHA-256 hash only. */
export interface TicketLinksTable {
  id: string;
  account_id: string;
  attendee_id: string;
  link_hash: string;
  created_at: string;
}

/** A supplier of an account's events. Deleting one deletes the row; its activity records keep its id. */
export interface VendorsTable {
  id: string;
  account_id: string;
  name: string;
  /** The name lower-cased by the service (SQL's lower() folds ASCII only): what `search` matches. */
  search_key: string;
  category: string;
  /** JSON of `VendorContact`, or null. */
  contact: string | null;
  /** JSON of `VendorLocation`, or null. */
  location: string | null;
  /** JSON array of `Certification`. */
  certifications: string;
  notes: string | null;
  metadata: string;
  created_at: string;
  updated_at: string;
}

/** A vendor booked for an event. Its links are in `vendor_booking_links`. */
export interface VendorBookingsTable {
  id: string;
  account_id: string;
  event_id: string;
  vendor_id: string;
  status: string;
  services: string;
  /** JSON array of activity kinds. */
  data_requested: string;
  responded_at: string | null;
  message: string | null;
  created_at: string;
  updated_at: string;
}

/** A live link of a booking, kept as its token's SHA-256 hash only; a rotation deletes them all. */
export interface VendorBookingLinksTable {
  link_hash: string;
  booking_id: string;
  created_at: string;
}

/**
 * An email to send (`resources/email.ts`): its kind and reason, and whom it is about
 * (`subject_id`: an attendee's or a booking's id); claimed by a worker under a lease as the
 * webhook deliveries are. No address and no token: both are read or made when it is sent.
 */
export interface EmailOutboxTable {
  id: string;
  account_id: string;
  event_id: string;
  kind: string;
  reason: string;
  subject_id: string;
  status: string;
  attempts: number;
  next_attempt_at: string;
  lease_owner: string | null;
  lease_until: string | null;
  /** Why the last attempt failed (the SMTP server's answer), or null. */
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

/**
 * An event's registrations with one value of a facet (rules/kept-tallies.ts), or (facet
 * `travel`) its active ones with one travel mode (`value`, `''`: none given) and band of its
 * factors, with their travel sums (0 in the other facets). Rows at 0 registrations are deleted.
 */
export interface EventTalliesTable {
  event_id: string;
  facet: string;
  value: string;
  band: number;
  registrations: number;
  registered_days: number;
  distance_km: number;
  emissions_kg: number;
  offset_opted: number;
  offset_usd: number;
}

/**
 * One row (id 1): the version of the tally definition (`TALLY_DEFINITION`) the stored tallies
 * were counted under (0 before any count). Their travel sums are priced by their event's set
 * (`events.factor_year`).
 */
export interface KeptTalliesTable {
  id: number;
  definition: number;
  updated_at: string;
}

/** A configured threshold (resources/threshold.ts); `event_id` null: every event of the account. */
export interface ThresholdsTable {
  id: string;
  account_id: string;
  event_id: string | null;
  metric: string;
  comparison: string;
  value: number;
  created_at: string;
  updated_at: string;
}

/** Whether a threshold is reached for an event (1) or not (0), as of the last change that moved its metric; no row: not reached. */
export interface ThresholdStatesTable {
  threshold_id: string;
  event_id: string;
  reached: number;
  updated_at: string;
}

/** The outbox: one notification for one webhook, with its delivery state. */
export interface WebhookDeliveriesTable {
  /** Also the envelope id and `X-Service-Delivery`: the same on every attempt. */
  id: string;
  webhook_id: string;
  account_id: string;
  type: string;
  /** The envelope as JSON text: the exact bytes signed and sent. */
  payload: string;
  /** `pending`, `succeeded` or `failed`. */
  status: string;
  attempt_count: number;
  /** When set, the attempt number after which a failure is final (a redelivery or a ping: one attempt, no schedule). */
  final_attempt: number | null;
  /** 0 for pings: their failures do not count towards disabling the webhook. */
  counts_failures: number;
  /** When the next attempt is due; null once the delivery is final. */
  next_attempt_at: string | null;
  /** The worker holding the delivery while it sends it, and until when. */
  lease_owner: string | null;
  lease_until: string | null;
  created_at: string;
  updated_at: string;
}

/** One attempt of a delivery: the delivery log. */
export interface WebhookAttemptsTable {
  delivery_id: string;
  /** 1 for the first attempt. */
  number: number;
  started_at: string;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  response_excerpt: string | null;
  succeeded: number;
}

/** An activity record (resources/activity.ts); `emissions_kg` and `factor` (JSON) as the factor set priced it. */
export interface ActivitiesTable {
  id: string;
  account_id: string;
  event_id: string;
  kind: string;
  quantity: number;
  unit: string;
  source: string | null;
  country: string | null;
  fuel: string | null;
  meal_type: string | null;
  material: string | null;
  /** 1 or 0; null for kinds without it. */
  recycled_content: number | null;
  mode: string | null;
  stream: string | null;
  data_quality: string;
  vendor_id: string | null;
  /** The booking whose link recorded it; null for the organiser's records. */
  booking_id: Generated<string | null>;
  note: string | null;
  /** null: the kind is unpriced in the set. */
  emissions_kg: number | null;
  /** JSON of the factor used (`ActivityFactor`), null when unpriced. */
  factor: string | null;
  created_at: string;
  updated_at: string;
}

/** A factor set that priced events' figures (`events.factor_year`): its year and identity (`factorSetIdentity`) as it priced them. */
export interface FactorSetsTable {
  year: number;
  identity: string;
  updated_at: string;
}

/** A one-time notification (`goal_achieved:carbon_neutral`, `threshold:capacity_utilization`) already written for an event. */
export interface NotificationMarksTable {
  event_id: string;
  kind: string;
  created_at: string;
}

export interface WebhooksTable {
  id: string;
  account_id: string;
  url: string;
  /** JSON array of event types (or `*`). */
  events: string;
  description: string | null;
  /** Kept as given: it signs every delivery, so it must be readable (unlike API keys). */
  secret: string;
  /** The secret before the last rotation, signing beside `secret` until `previous_secret_expires_at`. */
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  active: number;
  metadata: string;
  consecutive_failures: number;
  /** When the latest success that reset `consecutive_failures` began: a failure counts only if it began later. */
  last_success_started_at: Generated<string | null>;
  disabled_at: string | null;
  created_at: string;
  updated_at: string;
}

/** An account's current rate-limit windows; a window's start is epoch seconds of its first second. */
export interface RateLimitCountersTable {
  account_id: string;
  minute_start: number;
  minute_count: number;
  day_start: number;
  day_count: number;
}

/** One row (`id` 1): raised by every revocation and change of an account's limits. */
export interface KeyRevisionTable {
  id: number;
  revision: number;
}

export interface IdempotencyKeysTable {
  account_id: string;
  key: string;
  request_hash: string;
  /** `running` until the first response is stored, then `done`. */
  state: string;
  response_status: number | null;
  response_body: string | null;
  created_at: string;
  expires_at: string;
}

export interface AccountsTable {
  id: string;
  name: string;
  per_minute: number | null;
  per_day: number | null;
  created_at: string;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  key_hash: string;
  prefix: string;
  tier: string;
  /** Space-separated scopes. */
  scopes: string;
  created_at: string;
  revoked_at: string | null;
}

export interface EventsTable {
  id: string;
  account_id: string;
  name: string;
  description: string | null;
  address: string;
  city: string;
  state: string | null;
  country: string;
  zip_code: string | null;
  lat: number | null;
  lng: number | null;
  start_date: string;
  end_date: string;
  capacity: number;
  category: string;
  goal_carbon_neutral: number | null;
  goal_waste_reduction: number | null;
  goal_local_sourcing: number | null;
  goal_renewable_energy: number | null;
  /** JSON array, in the order given; `event_tags` holds the same tags for filtering. */
  tags: string;
  /** Name and description, lower-cased by the service (SQL's lower() folds ASCII only): what `search` matches. */
  search_key: string;
  status: string;
  created_at: string;
  updated_at: string;
  /*
   * The event's kept figures over its active registrations (`rules/kept-figures.ts`): each
   * change of a registration adds its difference (`contributionOf(after) - contributionOf(before)`)
   * in its own transaction, under the event's lock, so reads and list sorts need no aggregate.
   */
  active_count: Generated<number>;
  /** kg CO2e of the travel reported. */
  emissions_kg: Generated<number>;
  /** USD of the offsets of those who opted in. */
  offset_usd: Generated<number>;
  travel_reported: Generated<number>;
  low_carbon: Generated<number>;
  /** Registrations with status `waitlisted`, kept like the figures above. */
  waitlist_count: Generated<number>;
  /** 1 when a full event takes registrations on its waiting list. */
  waitlist_enabled: Generated<number>;
  /** JSON array of its ticket types (`resources/ticket-type.ts`); `[]`: none. */
  ticket_types: Generated<string>;
  /** `full` or `none`. */
  refund_policy: Generated<string>;
  /** IANA time zone name the event's times are shown in; null: UTC. */
  time_zone: string | null;
  /**
   * The year of the factor set (`factor_sets`) that priced the event's kept emissions, its
   * travel tallies and its activity records; written with them, never by an event's update.
   */
  factor_year: Generated<number | null>;
  /** The kept activity figures (`resources/activity-figures.ts`, columns named in `ACTIVITY_FIGURE_COLUMNS`). */
  activity_emissions_kg: Generated<number>;
  activity_measured_kg: Generated<number>;
  electricity_kwh: Generated<number>;
  renewable_kwh: Generated<number>;
  waste_kg: Generated<number>;
  diverted_kg: Generated<number>;
  recycling_kg: Generated<number>;
}

export interface EventTagsTable {
  event_id: string;
  tag: string;
}

export interface AttendeesTable {
  id: string;
  account_id: string;
  event_id: string;
  first_name: string;
  last_name: string;
  email: string;
  /** Lower-cased email: duplicates are found case-insensitively. */
  email_key: string;
  phone: string | null;
  company: string | null;
  title: string | null;
  ticket_type: string;
  dietary_preferences: string;
  accessibility_needs: string | null;
  carbon_offset: string | null;
  offset_opted: number;
  offset_amount: number;
  travel_distance: number | null;
  travel_mode: string | null;
  emergency_contact: string | null;
  custom_fields: string;
  /** "first last", email and company, lower-cased by the service: what `search` matches. */
  search_key: string;
  status: string;
  confirmation_code: string;
  registration_date: string;
  updated_at: string;
  checked_in_at: string | null;
  cancelled_at: string | null;
  /** 1, 2, ... in the event's waiting list while `waitlisted`, else null; closed up under the event's lock. */
  waitlist_position: number | null;
  /** The payment of a priced registration (`resources/payment.ts`); all null for a free one. */
  payment_status: string | null;
  payment_amount: number | null;
  payment_currency: string | null;
  payment_paid: number | null;
  payment_refunded: number | null;
  payment_provider: string | null;
  payment_expires_at: string | null;
  payment_intent_id: string | null;
  payment_client_secret: string | null;
  payment_account: string | null;
  /** 1 when the payment became due by a promotion from the waiting list (its `attendee.promoted` waits for the PaymentIntent). */
  payment_promoted: number | null;
  /** When the money kept first reached the price (`rules/payments.ts`, admission); null until then and after a cancellation. */
  payment_admitted_at: string | null;
  /** The Stripe Checkout Session it pays through from the ticket page (the latest one made), or null. */
  payment_checkout_session_id: string | null;
}

/** Stripe's events handled (exactly once each). */
export interface StripeEventsTable {
  id: string;
  type: string;
  received_at: string;
}

/** An account's payment settings. */
export interface PaymentSettingsTable {
  account_id: string;
  stripe_account_id: string | null;
  updated_at: string;
}

/** The payment ledger: every movement of a registration's money (`PaymentEntry`). */
export interface PaymentsTable {
  id: string;
  account_id: string;
  event_id: string;
  attendee_id: string;
  kind: string;
  amount: number;
  currency: string;
  ticket_type: string;
  provider: string;
  method: string | null;
  reference: string | null;
  provider_reference: string | null;
  /** The PaymentIntent and connected account a Stripe entry is of (a refund is made there). */
  payment_intent_id: string | null;
  stripe_account: string | null;
  status: string;
  created_at: string;
}
