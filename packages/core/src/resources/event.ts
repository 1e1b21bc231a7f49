import * as z from "zod";
import { REFUND_POLICIES, TicketType, TicketTypesInput, toTicketTypes } from "./ticket-type.ts";
import { canonicalTimeZone } from "../_internal/local-time.ts";
import { isCountryCode } from "../_internal/country-codes.ts";
import {
  dateParam,
  DateTimeInput,
  isUtcTimestamp,
  lowerCaseText,
  numberParam,
  OrderParam,
  plainText,
  pagingParams,
  resolvePaging,
  text,
  Timestamp,
} from "./common.ts";

export const Coordinates = z.strictObject({
  lat: z.number().min(-90).max(90),
  lng: z.number().min(-180).max(180),
});
export type Coordinates = z.infer<typeof Coordinates>;

export const LocationInput = z.strictObject({
  address: text(500),
  city: text(200),
  state: text(200).nullish(),
  country: z
    .string()
    .refine(isCountryCode, "must be an ISO 3166-1 alpha-2 country code in upper case, e.g. DE")
    .meta({ description: "ISO 3166-1 alpha-2 code, upper case.", examples: ["DE"] }),
  zipCode: text(20).nullish(),
  coordinates: Coordinates.nullish(),
});
export type LocationInput = z.input<typeof LocationInput>;

export const Location = z.object({
  address: z.string(),
  city: z.string(),
  state: z.string().nullable(),
  country: z.string(),
  zipCode: z.string().nullable(),
  coordinates: Coordinates.nullable(),
});
export type Location = z.infer<typeof Location>;

export const SustainabilityGoals = z.strictObject({
  carbonNeutral: z.boolean().optional(),
  wasteReduction: z.number().min(0).max(100).optional(),
  localSourcing: z.boolean().optional(),
  renewableEnergy: z.boolean().optional(),
});
export type SustainabilityGoals = z.infer<typeof SustainabilityGoals>;

/** Every status an event can have. A new event is always `draft`. */
export const EVENT_STATUSES = ["draft", "published", "cancelled", "completed"] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];

/**
 * Tags: trimmed, lower-cased and de-duplicated; at most 20 of up to 50 characters, without a
 * comma (the `tags` filter of the event list separates tags with commas, so a tag holding one
 * could not be found).
 */
export const Tags = z
  .array(lowerCaseText(50).refine((tag) => !tag.includes(","), "must not contain a comma"))
  .max(20)
  .transform((tags) => [...new Set(tags)]);

const TIME_ZONE_MESSAGE = "must be an IANA time zone name such as Europe/Berlin, America/New_York or UTC";

const eventFields = {
  name: text(200),
  description: plainText(5000).nullish(),
  location: LocationInput,
  startDate: DateTimeInput,
  endDate: DateTimeInput,
  capacity: z.int().min(1).max(1_000_000),
  category: text(50),
  sustainabilityGoals: SustainabilityGoals.nullish(),
  tags: Tags.nullish(),
  waitlistEnabled: z
    .boolean()
    .optional()
    .meta({ description: "Take registrations on a waiting list once the event is full (default false)." }),
  ticketTypes: TicketTypesInput.nullish().meta({
    description:
      "The tickets sold, each with its price and optional capacity and sales end; one currency. Empty or null: any ticketType text is taken, free.",
  }),
  refundPolicy: z.enum(REFUND_POLICIES).optional().meta({
    description:
      "full (the default): a paid registration cancelled before startDate is refunded in full; none: never. Cancelling the event refunds every paid registration in full whatever this says.",
  }),
  timeZone: z
    .string()
    .transform((name, ctx) => {
      const zone = canonicalTimeZone(name);
      if (zone === null) ctx.addIssue({ code: "custom", message: TIME_ZONE_MESSAGE });
      return zone ?? name;
    })
    .nullish()
    .meta({
      description:
        "IANA time zone name (Europe/Berlin, America/New_York, UTC) in which pages and the printable report show the event's times; null: UTC. The API's date-times stay UTC.",
    }),
};

function checkDateOrder(value: { startDate?: string | undefined; endDate?: string | undefined }, ctx: z.RefinementCtx) {
  // Only two dates that parsed are compared; an invalid one already has its own issue.
  if (isUtcTimestamp(value.startDate) && isUtcTimestamp(value.endDate) && value.endDate < value.startDate) {
    ctx.addIssue({ code: "custom", path: ["endDate"], message: "must not be before startDate" });
  }
}

/** Body of `POST /events`. A new event is always `draft`: `status` is not accepted here. */
export const EventCreateInput = z.strictObject(eventFields).superRefine(checkDateOrder);
export type EventCreateInput = z.input<typeof EventCreateInput>;
export type EventCreate = z.output<typeof EventCreateInput>;

/**
 * Body of `PUT /events/:id`: a partial update. `location` and `sustainabilityGoals` replace the
 * whole sub-object; `null` clears an optional field.
 */
export const EventUpdateInput = z
  .strictObject({
    ...eventFields,
    name: eventFields.name.optional(),
    location: eventFields.location.optional(),
    startDate: eventFields.startDate.optional(),
    endDate: eventFields.endDate.optional(),
    capacity: eventFields.capacity.optional(),
    category: eventFields.category.optional(),
    status: z.enum(EVENT_STATUSES).optional(),
  })
  .superRefine(checkDateOrder);
export type EventUpdateInput = z.input<typeof EventUpdateInput>;
export type EventUpdate = z.output<typeof EventUpdateInput>;

/** An event as stored, without the figures computed from its registrations. */
export const EventRecord = z.object({
  id: z.string(),
  accountId: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  location: Location,
  startDate: Timestamp,
  endDate: Timestamp,
  capacity: z.int(),
  category: z.string(),
  sustainabilityGoals: SustainabilityGoals,
  tags: z.array(z.string()),
  status: z.enum(EVENT_STATUSES),
  waitlistEnabled: z.boolean(),
  ticketTypes: z.array(TicketType),
  refundPolicy: z.enum(REFUND_POLICIES),
  timeZone: z
    .string()
    .nullable()
    .meta({ description: "IANA time zone name in which pages and the report show the event's times; null: UTC." }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type EventRecord = z.infer<typeof EventRecord>;

/** Figures computed from an event's active registrations. */
export const EventStats = z.object({
  attendeeCount: z.int().meta({ description: "Active registrations (confirmed, pending, checked-in)." }),
  carbonFootprint: z.number().meta({ description: "kg CO2e of the active registrations' reported travel." }),
  sustainabilityScore: z.number().min(0).max(100).meta({ description: "0..100, see the README's carbon model." }),
  waitlistCount: z.int().meta({ description: "Registrations waiting for a place (status waitlisted)." }),
});
export type EventStats = z.infer<typeof EventStats>;

/** An event as the API returns it. */
export const Event = EventRecord.omit({ accountId: true }).extend(EventStats.shape);
export type Event = z.infer<typeof Event>;

/** An event with the figures computed from its registrations. */
export type EventWithStats = EventRecord & EventStats;

/** The API form of an event. */
export function toApiEvent(event: EventWithStats): Event {
  const { accountId: _accountId, ...rest } = event;
  return rest;
}

/** Builds the stored record of a new event. */
export function newEventRecord(input: EventCreate, ids: { id: string; accountId: string; now: string }): EventRecord {
  return {
    id: ids.id,
    accountId: ids.accountId,
    name: input.name,
    description: input.description ?? null,
    location: normaliseLocation(input.location),
    startDate: input.startDate,
    endDate: input.endDate,
    capacity: input.capacity,
    category: input.category,
    sustainabilityGoals: input.sustainabilityGoals ?? {},
    tags: input.tags ?? [],
    status: "draft",
    waitlistEnabled: input.waitlistEnabled ?? false,
    ticketTypes: toTicketTypes(input.ticketTypes ?? []),
    refundPolicy: input.refundPolicy ?? "full",
    timeZone: input.timeZone ?? null,
    createdAt: ids.now,
    updatedAt: ids.now,
  };
}

export function normaliseLocation(location: z.output<typeof LocationInput>): Location {
  return {
    address: location.address,
    city: location.city,
    state: location.state ?? null,
    country: location.country,
    zipCode: location.zipCode ?? null,
    coordinates: location.coordinates ?? null,
  };
}

export const EVENT_SORT_FIELDS = ["createdAt", "startDate", "name", "capacity", "carbonFootprint"] as const;

/** Query of `GET /events`. */
export const EventListQuery = z
  .strictObject({
    ...pagingParams,
    status: z.enum(EVENT_STATUSES).optional(),
    category: text(50).optional(),
    startDate: dateParam(false).optional(),
    endDate: dateParam(true).optional(),
    search: text(200).optional(),
    tags: z
      .string()
      .transform((value) => [
        ...new Set(
          value
            .split(",")
            .map((tag) => tag.trim().toLowerCase())
            .filter(Boolean),
        ),
      ])
      .pipe(z.array(z.string().max(50)).min(1, "give at least one tag").max(20))
      .optional(),
    minScore: numberParam("decimal", 0, 100).optional(),
    sortBy: z.enum(EVENT_SORT_FIELDS).default("createdAt"),
    order: OrderParam,
  })
  .transform(resolvePaging);
export type EventListQuery = z.output<typeof EventListQuery>;
