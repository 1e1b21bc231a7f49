import * as z from "zod";
import { isCountryCode } from "../_internal/country-codes.ts";
import {
  ACTIVITY_KINDS,
  type ActivityKind,
  FREIGHT_MODES,
  FUELS,
  MEAL_TYPES,
  WASTE_MATERIALS,
  WASTE_STREAMS,
} from "./activity-kinds.ts";

/**
 * Activity factors: the factor set's entries for the kinds of activity records (docs/api.md,
 * Activity factors), in the same file as the travel factors (`activities` of a set). An entry
 * prices the records of its `kind` whose qualifiers equal every qualifier the entry names; of
 * several that match, the one naming most qualifiers wins, then the first listed. Staff travel
 * is priced by the set's travel factors, electricity from a renewable source at 0 (market-based):
 * neither has entries here (`activityFactor` in `resources/activity-factor.ts` prices a record).
 */
export const PRICED_ACTIVITY_KINDS = ACTIVITY_KINDS.filter(
  (kind): kind is Exclude<ActivityKind, "staff_travel"> => kind !== "staff_travel",
);

/** Units an entry may be given in: the records' units, and tonnes (the published factors for materials and waste). */
export const FACTOR_UNITS = ["kWh", "litres", "kg", "tonnes", "meals", "room_nights", "tonne_km", "m3"] as const;
export type FactorUnit = (typeof FACTOR_UNITS)[number];

/** One entry of a set's `activities`. */
export const ActivityFactorEntry = z.strictObject({
  kind: z.enum(PRICED_ACTIVITY_KINDS),
  country: z
    .string()
    .refine(isCountryCode, "must be an ISO 3166-1 alpha-2 country code in upper case, e.g. GB")
    .optional(),
  fuel: z.enum(FUELS).optional(),
  mealType: z.enum(MEAL_TYPES).optional(),
  material: z.enum(WASTE_MATERIALS).optional(),
  recycledContent: z.boolean().optional(),
  mode: z.enum(FREIGHT_MODES).optional(),
  stream: z.enum(WASTE_STREAMS).optional(),
  unit: z.enum(FACTOR_UNITS),
  factor: z.number().min(0).max(100_000).meta({ description: "kg CO2e per `unit`" }),
  name: z.string().min(1).max(300).meta({ description: "What the source calls the factor" }),
  source: z.string().min(1).max(500).optional().meta({ description: "Default: the set's source" }),
  year: z.number().int().min(1990).max(2100).optional().meta({ description: "Default: the set's year" }),
  url: z.url().optional(),
});
export type ActivityFactorEntry = z.output<typeof ActivityFactorEntry>;
