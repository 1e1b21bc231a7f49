import * as z from "zod";
import {
  ACTIVITY_KINDS,
  ACTIVITY_UNITS,
  type ActivityKind,
  type ActivityUnit,
  DATA_QUALITIES,
  type DataQuality,
  ELECTRICITY_SOURCES,
  type ElectricitySource,
  FREIGHT_MODES,
  type FreightMode,
  type Fuel,
  FUEL_UNITS,
  FUELS,
  MATERIALS,
  MAX_ACTIVITY_QUANTITY,
  MEAL_TYPES,
  type MealType,
  WASTE_MATERIALS,
  WASTE_STREAMS,
  type WasteMaterial,
  type WasteStream,
} from "../carbon/activity-kinds.ts";
import { TRAVEL_MODES } from "../carbon/emission-factors.ts";
import { isCountryCode } from "../_internal/country-codes.ts";
import { plainText, Timestamp } from "./common.ts";

const country = z.string().refine(isCountryCode, "must be an ISO 3166-1 alpha-2 country code in upper case, e.g. DE");

/** The fields every kind shares (input). */
const common = {
  quantity: z
    .number()
    .positive()
    .max(MAX_ACTIVITY_QUANTITY)
    .meta({ description: "How much, in `unit` (above 0, at most 1,000,000,000)." }),
  // Defaults are filled in when the record is made (newActivityRecord), not by the schema: a
  // body schema with a default would document the field as always present.
  dataQuality: z
    .enum(DATA_QUALITIES)
    .optional()
    .meta({ description: "`measured` (metered, weighed, invoiced) or `estimated`; default `measured`." }),
  note: plainText(1000).nullish(),
};

/** The organiser's attribution of a record to one of the account's vendors. */
const attribution = {
  vendorId: z
    .string()
    .min(1)
    .max(100)
    .nullish()
    .meta({ description: "The account's vendor the record is attributed to (a vendor's own link sets its own)." }),
};

/**
 * An activity body: one kind with its unit and qualifiers, and `fields`. A unit or a qualifier
 * that does not fit the kind is `400` naming the field; a qualifier of another kind is an
 * unrecognised key.
 */
function activityInput<F extends z.ZodRawShape>(fields: F) {
  return z.discriminatedUnion("kind", [
    z.strictObject({
      kind: z.literal("electricity"),
      ...common,
      ...fields,
      unit: z.literal("kWh"),
      source: z.enum(ELECTRICITY_SOURCES),
      country: country.optional().meta({ description: "Where the electricity was used; default the event's country." }),
    }),
    z.strictObject({ kind: z.literal("fuel"), ...common, ...fields, unit: z.enum(FUEL_UNITS), fuel: z.enum(FUELS) }),
    z.strictObject({
      kind: z.literal("catering"),
      ...common,
      ...fields,
      unit: z.literal("meals"),
      mealType: z.enum(MEAL_TYPES),
    }),
    z.strictObject({ kind: z.literal("accommodation"), ...common, ...fields, unit: z.literal("room_nights"), country }),
    z.strictObject({
      kind: z.literal("materials"),
      ...common,
      ...fields,
      unit: z.literal("kg"),
      material: z.enum(MATERIALS),
      recycledContent: z
        .boolean()
        .optional()
        .meta({ description: "Made from recycled material (closed loop); default false (virgin)." }),
    }),
    z.strictObject({
      kind: z.literal("freight"),
      ...common,
      ...fields,
      unit: z.literal("tonne_km"),
      mode: z.enum(FREIGHT_MODES),
    }),
    z.strictObject({
      kind: z.literal("waste"),
      ...common,
      ...fields,
      unit: z.literal("kg"),
      stream: z.enum(WASTE_STREAMS),
      material: z.enum(WASTE_MATERIALS).nullish(),
    }),
    z.strictObject({ kind: z.literal("water"), ...common, ...fields, unit: z.literal("m3") }),
    z.strictObject({
      kind: z.literal("staff_travel"),
      ...common,
      ...fields,
      unit: z.literal("passenger_km"),
      mode: z.enum(TRAVEL_MODES),
    }),
  ]);
}
/** Body of `POST /events/:id/activities`. */
export const ActivityInput = activityInput(attribution);
export type ActivityInput = z.input<typeof ActivityInput>;

/** Body of a vendor's `POST /vendor-requests/:token/activities`: the organiser's, but its link sets `vendorId`. */
export const VendorActivityInput = activityInput({});
export type VendorActivityInput = z.input<typeof VendorActivityInput>;
/** A parsed activity input; its defaults (`dataQuality`, electricity's `country`, materials' `recycledContent`) are filled in when the record is made. */
export type ActivityCreate = z.output<typeof ActivityInput>;

/**
 * An activity's kind-specific fields as stored: one column each, null where the kind has none.
 * What the storage keeps and the factor lookup reads.
 */
export interface ActivityQualifiers {
  source: ElectricitySource | null;
  country: string | null;
  fuel: Fuel | null;
  mealType: MealType | null;
  material: WasteMaterial | null;
  recycledContent: boolean | null;
  mode: FreightMode | (typeof TRAVEL_MODES)[number] | null;
  stream: WasteStream | null;
}

/** An activity as stored (without the figures computed from the factor set). */
export interface ActivityRecord extends ActivityQualifiers {
  id: string;
  accountId: string;
  eventId: string;
  kind: ActivityKind;
  quantity: number;
  unit: ActivityUnit;
  dataQuality: DataQuality;
  vendorId: string | null;
  /** The booking whose vendor's link recorded it (the vendor may change it there); null for the organiser's. */
  bookingId: string | null;
  note: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The factor an activity's emissions were computed with: kg CO2e per the activity's own unit. */
export const ActivityFactor = z.object({
  name: z.string(),
  value: z.number().meta({ description: "kg CO2e per the activity's `unit`: emissionsKg = quantity x value." }),
  unit: z.string().meta({ description: 'e.g. "kg CO2e per kWh"' }),
  source: z.string(),
  year: z.number().int(),
});
export type ActivityFactor = z.infer<typeof ActivityFactor>;

/**
 * An activity as the API answers it: the kind's own qualifiers only (an electricity record has
 * `source` and `country`, a fuel record `fuel`), and the figures computed from the factor set.
 */
export const Activity = z.object({
  id: z.string(),
  eventId: z.string(),
  kind: z.enum(ACTIVITY_KINDS),
  quantity: z.number(),
  unit: z.enum(ACTIVITY_UNITS),
  source: z.enum(ELECTRICITY_SOURCES).optional(),
  country: z.string().optional(),
  fuel: z.enum(FUELS).optional(),
  mealType: z.enum(MEAL_TYPES).optional(),
  material: z.enum(WASTE_MATERIALS).nullable().optional(),
  recycledContent: z.boolean().optional(),
  mode: z.union([z.enum(FREIGHT_MODES), z.enum(TRAVEL_MODES)]).optional(),
  stream: z.enum(WASTE_STREAMS).optional(),
  dataQuality: z.enum(DATA_QUALITIES),
  vendorId: z.string().nullable(),
  note: z.string().nullable(),
  emissionsKg: z
    .number()
    .nullable()
    .meta({ description: "quantity x factor.value; null when the factor set prices no factor for this record." }),
  scope: z.union([z.literal(1), z.literal(2), z.literal(3)]).meta({
    description: "GHG Protocol scope: 1 fuels burned on site, 2 purchased electricity (location-based), 3 the rest.",
  }),
  factor: ActivityFactor.nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Activity = z.infer<typeof Activity>;

/** The qualifier fields each kind has, in the order the API lists them. */
export const KIND_QUALIFIERS = {
  electricity: ["source", "country"],
  fuel: ["fuel"],
  catering: ["mealType"],
  accommodation: ["country"],
  materials: ["material", "recycledContent"],
  freight: ["mode"],
  waste: ["stream", "material"],
  water: [],
  staff_travel: ["mode"],
} as const satisfies Record<ActivityKind, ReadonlyArray<keyof ActivityQualifiers>>;
