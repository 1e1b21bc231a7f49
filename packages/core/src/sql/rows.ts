import { ACTIVITY_FIGURE_COLUMNS, type KEPT_FIGURE_COLUMNS } from "./carbon-sql.ts";
import type { ActivityFigures } from "../resources/activity-figures.ts";
import type { Insertable, Selectable } from "kysely";
import type { KeptFigures } from "../rules/kept-figures.ts";
import type { AttendeeRecord } from "../resources/attendee.ts";
import { type ApiKeyInfo, scopesOf, type Tier } from "../resources/api-key.ts";
import type { EventRecord } from "../resources/event.ts";
import type { PaymentRecord } from "../resources/payment.ts";
import type { WebhookRecord } from "../resources/webhook.ts";
import type { AccountsTable, ApiKeysTable, AttendeesTable, EventsTable, WebhooksTable } from "./database.ts";

/** Separates the fields of a search key, so a search cannot match across two of them. */
const FIELD_SEPARATOR = "\u001f";

/** The lower-cased text that `search` matches (JavaScript folds every script, SQL's lower() only ASCII). */
export function searchKey(...fields: Array<string | null>): string {
  return fields
    .map((field) => field ?? "")
    .join(FIELD_SEPARATOR)
    .toLowerCase();
}

/**
 * The LIKE pattern (escape `\\`) that finds `text` in the first field of a registration's
 * search key, its name (`first last`): two separators must follow it, and only the name has two
 * fields after it (the email and the company), so an email or a company never matches.
 */
export function nameSearchPattern(text: string): string {
  const bare = text
    .toLowerCase()
    .replaceAll(FIELD_SEPARATOR, "")
    .replace(/[\\%_]/g, (c) => `\\${c}`);
  return `%${bare}%${FIELD_SEPARATOR}%${FIELD_SEPARATOR}%`;
}

const bool = (value: boolean | null | undefined): number | null =>
  value === undefined || value === null ? null : value ? 1 : 0;
const json = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

/** The row of an event record. */
export function eventToRow(event: EventRecord): Insertable<EventsTable> {
  const goals = event.sustainabilityGoals;
  return {
    id: event.id,
    account_id: event.accountId,
    name: event.name,
    description: event.description,
    address: event.location.address,
    city: event.location.city,
    state: event.location.state,
    country: event.location.country,
    zip_code: event.location.zipCode,
    lat: event.location.coordinates?.lat ?? null,
    lng: event.location.coordinates?.lng ?? null,
    start_date: event.startDate,
    end_date: event.endDate,
    capacity: event.capacity,
    category: event.category,
    goal_carbon_neutral: bool(goals.carbonNeutral),
    goal_waste_reduction: goals.wasteReduction ?? null,
    goal_local_sourcing: bool(goals.localSourcing),
    goal_renewable_energy: bool(goals.renewableEnergy),
    tags: JSON.stringify(event.tags),
    search_key: searchKey(event.name, event.description),
    status: event.status,
    waitlist_enabled: event.waitlistEnabled ? 1 : 0,
    ticket_types: JSON.stringify(event.ticketTypes),
    refund_policy: event.refundPolicy,
    time_zone: event.timeZone,
    created_at: event.createdAt,
    updated_at: event.updatedAt,
  };
}

/** The kept figures of an event row. */
export function rowToKeptFigures(
  row: Pick<Selectable<EventsTable>, (typeof KEPT_FIGURE_COLUMNS)[number]>,
): KeptFigures {
  return {
    activeRegistrations: Number(row.active_count),
    emissionsKg: Number(row.emissions_kg),
    offsetUsd: Number(row.offset_usd),
    travelReported: Number(row.travel_reported),
    lowCarbonTravel: Number(row.low_carbon),
    waitlisted: Number(row.waitlist_count),
  };
}

/** The kept activity figures of an event row (columns as `ACTIVITY_FIGURE_COLUMNS` names them). */
export function rowToActivityFigures(row: Partial<Record<string, unknown>>): ActivityFigures {
  return Object.fromEntries(
    Object.entries(ACTIVITY_FIGURE_COLUMNS).map(([figure, column]) => [figure, Number(row[column] ?? 0)]),
  ) as unknown as ActivityFigures;
}

/** The event record of a row. */
export function rowToEvent(row: Selectable<EventsTable>): EventRecord {
  const goals: EventRecord["sustainabilityGoals"] = {};
  if (row.goal_carbon_neutral !== null) goals.carbonNeutral = row.goal_carbon_neutral === 1;
  if (row.goal_waste_reduction !== null) goals.wasteReduction = Number(row.goal_waste_reduction);
  if (row.goal_local_sourcing !== null) goals.localSourcing = row.goal_local_sourcing === 1;
  if (row.goal_renewable_energy !== null) goals.renewableEnergy = row.goal_renewable_energy === 1;
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    description: row.description,
    location: {
      address: row.address,
      city: row.city,
      state: row.state,
      country: row.country,
      zipCode: row.zip_code,
      coordinates: row.lat === null || row.lng === null ? null : { lat: Number(row.lat), lng: Number(row.lng) },
    },
    startDate: row.start_date,
    endDate: row.end_date,
    capacity: Number(row.capacity),
    category: row.category,
    sustainabilityGoals: goals,
    tags: JSON.parse(row.tags) as string[],
    status: row.status as EventRecord["status"],
    waitlistEnabled: Number(row.waitlist_enabled) === 1,
    ticketTypes: JSON.parse(row.ticket_types) as EventRecord["ticketTypes"],
    refundPolicy: row.refund_policy as EventRecord["refundPolicy"],
    timeZone: row.time_zone,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Every column of a registration row, as {@link attendeeToRow} writes them (the type keeps the list whole). */
const ATTENDEE_COLUMN_SET: Record<keyof AttendeesTable, true> = {
  id: true,
  account_id: true,
  event_id: true,
  first_name: true,
  last_name: true,
  email: true,
  email_key: true,
  phone: true,
  company: true,
  title: true,
  ticket_type: true,
  dietary_preferences: true,
  accessibility_needs: true,
  carbon_offset: true,
  offset_opted: true,
  offset_amount: true,
  travel_distance: true,
  travel_mode: true,
  emergency_contact: true,
  custom_fields: true,
  search_key: true,
  status: true,
  confirmation_code: true,
  registration_date: true,
  updated_at: true,
  checked_in_at: true,
  cancelled_at: true,
  waitlist_position: true,
  payment_status: true,
  payment_amount: true,
  payment_currency: true,
  payment_paid: true,
  payment_refunded: true,
  payment_provider: true,
  payment_expires_at: true,
  payment_intent_id: true,
  payment_client_secret: true,
  payment_account: true,
  payment_promoted: true,
  payment_admitted_at: true,
  payment_checkout_session_id: true,
};
export const ATTENDEE_COLUMNS = Object.keys(ATTENDEE_COLUMN_SET) as Array<keyof AttendeesTable>;

/** The row of a registration record. */
export function attendeeToRow(attendee: AttendeeRecord): AttendeesTable {
  const offset = attendee.carbonOffset;
  return {
    id: attendee.id,
    account_id: attendee.accountId,
    event_id: attendee.eventId,
    first_name: attendee.firstName,
    last_name: attendee.lastName,
    email: attendee.email,
    email_key: attendee.email.toLowerCase(),
    phone: attendee.phone,
    company: attendee.company,
    title: attendee.title,
    ticket_type: attendee.ticketType,
    dietary_preferences: JSON.stringify(attendee.dietaryPreferences),
    accessibility_needs: attendee.accessibilityNeeds ? JSON.stringify(attendee.accessibilityNeeds) : null,
    carbon_offset: offset ? JSON.stringify(offset) : null,
    offset_opted: offset?.opted ? 1 : 0,
    offset_amount: offset?.amount ?? 0,
    travel_distance: offset?.travelDistance ?? null,
    travel_mode: offset?.travelMode ?? null,
    emergency_contact: attendee.emergencyContact ? JSON.stringify(attendee.emergencyContact) : null,
    custom_fields: JSON.stringify(attendee.customFields),
    search_key: searchKey(`${attendee.firstName} ${attendee.lastName}`, attendee.email, attendee.company),
    status: attendee.status,
    confirmation_code: attendee.confirmationCode,
    registration_date: attendee.registrationDate,
    updated_at: attendee.updatedAt,
    checked_in_at: attendee.checkedInAt,
    cancelled_at: attendee.cancelledAt,
    waitlist_position: attendee.waitlistPosition,
    ...paymentToRow(attendee.payment),
  };
}

/** The payment columns of a registration row (all null for a free registration). */
export function paymentToRow(payment: PaymentRecord | null) {
  return {
    payment_status: payment?.status ?? null,
    payment_amount: payment?.amount ?? null,
    payment_currency: payment?.currency ?? null,
    payment_paid: payment?.amountPaid ?? null,
    payment_refunded: payment?.amountRefunded ?? null,
    payment_provider: payment?.provider ?? null,
    payment_expires_at: payment?.expiresAt ?? null,
    payment_intent_id: payment?.paymentIntentId ?? null,
    payment_client_secret: payment?.clientSecret ?? null,
    payment_account: payment?.stripeAccount ?? null,
    payment_promoted: payment ? (payment.promoted ? 1 : 0) : null,
    payment_admitted_at: payment?.admittedAt ?? null,
    payment_checkout_session_id: payment?.checkoutSessionId ?? null,
  } satisfies Partial<AttendeesTable>;
}

function rowToPayment(row: Selectable<AttendeesTable>): PaymentRecord | null {
  if (row.payment_status === null) return null;
  return {
    status: row.payment_status as PaymentRecord["status"],
    amount: Number(row.payment_amount),
    currency: row.payment_currency ?? "",
    amountPaid: Number(row.payment_paid),
    amountRefunded: Number(row.payment_refunded),
    provider: row.payment_provider as PaymentRecord["provider"],
    expiresAt: row.payment_expires_at,
    paymentIntentId: row.payment_intent_id,
    clientSecret: row.payment_client_secret,
    stripeAccount: row.payment_account,
    promoted: Number(row.payment_promoted) === 1,
    admittedAt: row.payment_admitted_at,
    checkoutSessionId: row.payment_checkout_session_id,
  };
}

/** The registration record of a row. */
export function rowToAttendee(row: Selectable<AttendeesTable>): AttendeeRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    eventId: row.event_id,
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    phone: row.phone,
    company: row.company,
    title: row.title,
    ticketType: row.ticket_type,
    dietaryPreferences: JSON.parse(row.dietary_preferences) as string[],
    accessibilityNeeds: json(row.accessibility_needs),
    carbonOffset: json(row.carbon_offset),
    emergencyContact: json(row.emergency_contact),
    customFields: JSON.parse(row.custom_fields) as AttendeeRecord["customFields"],
    status: row.status as AttendeeRecord["status"],
    waitlistPosition: row.waitlist_position === null ? null : Number(row.waitlist_position),
    confirmationCode: row.confirmation_code,
    registrationDate: row.registration_date,
    updatedAt: row.updated_at,
    checkedInAt: row.checked_in_at,
    cancelledAt: row.cancelled_at,
    payment: rowToPayment(row),
  };
}

/** The listed form of a key row joined with its account. */
export function rowToApiKeyInfo(row: Selectable<ApiKeysTable> & Pick<AccountsTable, "name">): ApiKeyInfo {
  return {
    id: row.id,
    accountId: row.account_id,
    accountName: row.name,
    prefix: row.prefix,
    tier: row.tier as Tier,
    scopes: scopesOf(row.scopes),
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

/** The row of a webhook record. */
export function webhookToRow(webhook: WebhookRecord): Insertable<WebhooksTable> {
  return {
    id: webhook.id,
    account_id: webhook.accountId,
    url: webhook.url,
    events: JSON.stringify(webhook.events),
    description: webhook.description,
    secret: webhook.secret,
    previous_secret: webhook.previousSecret,
    previous_secret_expires_at: webhook.previousSecretExpiresAt,
    active: webhook.active ? 1 : 0,
    metadata: JSON.stringify(webhook.metadata),
    consecutive_failures: webhook.consecutiveFailures,
    disabled_at: webhook.disabledAt,
    created_at: webhook.createdAt,
    updated_at: webhook.updatedAt,
  };
}

/** The webhook record of a row. */
export function rowToWebhook(row: Selectable<WebhooksTable>): WebhookRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    url: row.url,
    events: JSON.parse(row.events) as string[],
    description: row.description,
    secret: row.secret,
    previousSecret: row.previous_secret ?? null,
    previousSecretExpiresAt: row.previous_secret_expires_at ?? null,
    active: Number(row.active) === 1,
    metadata: JSON.parse(row.metadata) as WebhookRecord["metadata"],
    consecutiveFailures: Number(row.consecutive_failures),
    disabledAt: row.disabled_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
