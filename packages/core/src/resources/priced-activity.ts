import * as z from "zod";
import {
  ACTIVITY_KINDS,
  ACTIVITY_UNITS,
  activityScope,
  DATA_QUALITIES,
  ELECTRICITY_SOURCES,
  FREIGHT_MODES,
  FUELS,
  MAX_ACTIVITY_QUANTITY,
  MEAL_TYPES,
  WASTE_MATERIALS,
  WASTE_STREAMS,
} from "../carbon/activity-kinds.ts";
import { type EmissionFactorSet, TRAVEL_MODES } from "../carbon/emission-factors.ts";
import {
  type Activity,
  type ActivityCreate,
  type ActivityFactor,
  type ActivityInput,
  type ActivityQualifiers,
  type ActivityRecord,
  KIND_QUALIFIERS,
} from "./activity.ts";
import { pagingParams, plainText, resolvePaging } from "./common.ts";
import { isCountryCode } from "../_internal/country-codes.ts";
import { activityFactor } from "./activity-factor.ts";

/**
 * An activity record as stored: the record and the figures the factor set in use priced it
 * with (recomputed at start when the set changes), so that sums over an event run in SQL.
 */
export interface PricedActivity extends ActivityRecord {
  /** quantity x factor.value; null when the set prices no such record. */
  emissionsKg: number | null;
  factor: ActivityFactor | null;
}

/** The figures `set` gives `record`: its factor (per the record's own unit) and emissions, or nulls when unpriced. */
export function priceActivity(
  set: EmissionFactorSet,
  record: ActivityRecord,
): Pick<PricedActivity, "emissionsKg" | "factor"> {
  const factor = activityFactor(set, record);
  return { factor, emissionsKg: factor === null ? null : record.quantity * factor.value };
}

/** A record's qualifiers when its input names none. */
export const NO_QUALIFIERS: Readonly<ActivityQualifiers> = {
  source: null,
  country: null,
  fuel: null,
  mealType: null,
  material: null,
  recycledContent: null,
  mode: null,
  stream: null,
};

/**
 * A new activity record of `input` (parsed by `ActivityInput`) for the event, with the defaults
 * filled in (docs/api.md, Activities): `dataQuality` measured, an electricity record's `country` the event's,
 * a materials record's `recycledContent` false. Kinds' other qualifiers are null.
 */
export function newActivityRecord(
  input: ActivityCreate,
  ids: { id: string; accountId: string; eventId: string; eventCountry: string; now: string },
): ActivityRecord {
  const { kind, quantity, unit, dataQuality, note, vendorId, ...qualifiers } = input;
  const record: ActivityRecord = {
    id: ids.id,
    accountId: ids.accountId,
    eventId: ids.eventId,
    kind,
    quantity,
    unit,
    dataQuality: dataQuality ?? "measured",
    vendorId: vendorId ?? null,
    bookingId: null,
    note: note ?? null,
    ...NO_QUALIFIERS,
    createdAt: ids.now,
    updatedAt: ids.now,
  };
  const given = record as unknown as Record<string, unknown>;
  for (const [qualifier, value] of Object.entries(qualifiers)) if (value !== undefined) given[qualifier] = value;
  if (record.kind === "electricity") record.country ??= ids.eventCountry;
  if (record.kind === "materials") record.recycledContent ??= false;
  return record;
}

const country = z.string().refine(isCountryCode, "must be an ISO 3166-1 alpha-2 country code in upper case, e.g. DE");

/**
 * Body of `PUT /events/:id/activities/:activityId`: a partial update. The given fields are
 * merged into the stored record and the whole is checked again as a new record would be
 * (`ActivityInput`), so a unit or qualifier that does not fit the record's kind is `400`
 * naming the field; `kind` cannot change.
 */
export const ActivityUpdateInput = z.strictObject({
  kind: z
    .enum(ACTIVITY_KINDS)
    .optional()
    .meta({ description: "Cannot change: when given, it must be the record's own kind." }),
  quantity: z.number().positive().max(MAX_ACTIVITY_QUANTITY).optional(),
  unit: z.enum(ACTIVITY_UNITS).optional(),
  dataQuality: z.enum(DATA_QUALITIES).optional(),
  note: plainText(1000).nullish(),
  vendorId: z.string().min(1).max(100).nullish(),
  source: z.enum(ELECTRICITY_SOURCES).optional(),
  country: country.optional(),
  fuel: z.enum(FUELS).optional(),
  mealType: z.enum(MEAL_TYPES).optional(),
  material: z.enum(WASTE_MATERIALS).nullish(),
  recycledContent: z.boolean().optional(),
  mode: z.union([z.enum(FREIGHT_MODES), z.enum(TRAVEL_MODES)]).optional(),
  stream: z.enum(WASTE_STREAMS).optional(),
});
export type ActivityUpdateInput = z.input<typeof ActivityUpdateInput>;

/** Body of a vendor's `PUT /vendor-requests/:token/activities/:activityId`: the organiser's, but its link sets `vendorId`. */
export const VendorActivityUpdateInput = ActivityUpdateInput.omit({ vendorId: true });
export type VendorActivityUpdateInput = z.input<typeof VendorActivityUpdateInput>;

/** The stored record as a create body: what a partial update is merged into before the whole is checked again. */
export function activityInputOf(record: ActivityRecord): ActivityInput {
  const input: Record<string, unknown> = {
    kind: record.kind,
    quantity: record.quantity,
    unit: record.unit,
    dataQuality: record.dataQuality,
    note: record.note,
    vendorId: record.vendorId,
  };
  for (const qualifier of KIND_QUALIFIERS[record.kind])
    if (record[qualifier] !== null) input[qualifier] = record[qualifier];
  return input as ActivityInput;
}

/** Query of `GET /events/:id/activities`: paging only, oldest first. */
export const ActivityListQuery = z.strictObject({ ...pagingParams }).transform(resolvePaging);
export type ActivityListQuery = z.output<typeof ActivityListQuery>;

/** The API form of a stored activity: the kind's own qualifiers only, its scope, and the stored figures. */
export function toApiActivity(activity: PricedActivity): Activity {
  const answer: Record<string, unknown> = {
    id: activity.id,
    eventId: activity.eventId,
    kind: activity.kind,
    quantity: activity.quantity,
    unit: activity.unit,
  };
  for (const qualifier of KIND_QUALIFIERS[activity.kind]) answer[qualifier] = activity[qualifier];
  return {
    ...(answer as Pick<Activity, "id" | "eventId" | "kind" | "quantity" | "unit">),
    dataQuality: activity.dataQuality,
    vendorId: activity.vendorId,
    note: activity.note,
    emissionsKg: activity.emissionsKg,
    scope: activityScope(activity.kind),
    factor: activity.factor,
    createdAt: activity.createdAt,
    updatedAt: activity.updatedAt,
  };
}
