/**
 * The whole footprint (docs/api.md, The whole footprint): attendees' travel and every activity
 * record, by kind and by GHG Protocol scope, with the waste and energy they record. Pure
 * functions of aggregated rows (the storage sums in SQL); the per-event analytics, the
 * sustainability analytics and the printable report all build from here.
 */
import * as z from "zod";
import {
  ACTIVITY_KINDS,
  type ActivityKind,
  activityScope,
  DISPOSAL_WASTE_STREAMS,
  ELECTRICITY_SOURCES,
  FUEL_UNITS,
  type FuelUnit,
  FUELS,
  WASTE_STREAMS,
} from "../carbon/activity-kinds.ts";
import { TRAVEL_MODES } from "../carbon/emission-factors.ts";
import type { ActivityFigures } from "../resources/activity-figures.ts";
import { percent, round3 } from "./statistics.ts";

/** A kind of the footprint: the activity kinds, and attendees' own travel. */
export const FOOTPRINT_KINDS = ["attendee_travel", ...ACTIVITY_KINDS] as const;
export type FootprintKind = (typeof FOOTPRINT_KINDS)[number];

/** Sums over the activity records of one kind. */
export interface KindFigures {
  kind: ActivityKind;
  records: number;
  /** kg CO2e of the priced records. */
  emissionsKg: number;
  measuredEmissionsKg: number;
  /** Records the factor set does not price. */
  unpriced: number;
}

/** What a footprint is built from. */
export interface FootprintInput {
  /** kg CO2e of the active registrations' travel. */
  travelEmissionsKg: number;
  /** Active registrations that report travel. */
  travelReported: number;
  /** Active registrations (the divisor of `perAttendeeKg`). */
  active: number;
  kinds: readonly KindFigures[];
}

export const Footprint = z.object({
  totalEmissionsKg: z.number().meta({ description: "Attendee travel plus every priced activity record, kg CO2e." }),
  byKind: z.array(z.object({ kind: z.enum(FOOTPRINT_KINDS), emissionsKg: z.number(), records: z.int() })).meta({
    description:
      "attendee_travel first (records: registrations reporting travel), then each activity kind with records.",
  }),
  byScope: z.object({ scope1Kg: z.number(), scope2Kg: z.number(), scope3Kg: z.number() }).meta({
    description: "GHG Protocol: 1 fuels burned on site, 2 purchased electricity (location-based), 3 the rest.",
  }),
  perAttendeeKg: z.number().nullable().meta({ description: "totalEmissionsKg / active registrations." }),
  measuredSharePercent: z
    .number()
    .nullable()
    .meta({ description: "Of activity emissions, the share from records marked measured; null with none." }),
  unpricedKinds: z
    .array(z.enum(ACTIVITY_KINDS))
    .meta({ description: "Kinds with records the factor set does not price (they add 0 kg)." }),
});
export type Footprint = z.infer<typeof Footprint>;

/** The footprint from travel and per-kind sums; figures rounded to 3 decimals. */
export function buildFootprint(input: FootprintInput): Footprint {
  const kinds = ACTIVITY_KINDS.map((kind) => input.kinds.find((k) => k.kind === kind)).filter(
    (k): k is KindFigures => k !== undefined && k.records > 0,
  );
  const activityKg = kinds.reduce((sum, k) => sum + k.emissionsKg, 0);
  const measuredKg = kinds.reduce((sum, k) => sum + k.measuredEmissionsKg, 0);
  const total = input.travelEmissionsKg + activityKg;
  const scope = (n: 1 | 2 | 3) =>
    kinds.filter((k) => activityScope(k.kind) === n).reduce((sum, k) => sum + k.emissionsKg, 0);
  return {
    totalEmissionsKg: round3(total),
    byKind: [
      { kind: "attendee_travel", emissionsKg: round3(input.travelEmissionsKg), records: input.travelReported },
      ...kinds.map((k) => ({ kind: k.kind, emissionsKg: round3(k.emissionsKg), records: k.records })),
    ],
    byScope: {
      scope1Kg: round3(scope(1)),
      scope2Kg: round3(scope(2)),
      // Attendees' travel is scope 3.
      scope3Kg: round3(scope(3) + input.travelEmissionsKg),
    },
    perAttendeeKg: input.active > 0 ? round3(total / input.active) : null,
    measuredSharePercent: percent(measuredKg, activityKg),
    unpricedKinds: kinds.filter((k) => k.unpriced > 0).map((k) => k.kind),
  };
}

/** The waste and energy the records measure; `null` where no record of the kind exists. */
export const MeasuredResources = z.object({
  measuredWasteKg: z.number().nullable(),
  diversionRatePercent: z.number().nullable(),
  recyclingRatePercent: z.number().nullable(),
  measuredEnergyKwh: z.number().nullable(),
  renewableSharePercent: z.number().nullable(),
});
export type MeasuredResources = z.infer<typeof MeasuredResources>;

/** Waste and electricity figures from kept activity sums (every record, whatever its quality). */
export function measuredResources(figures: ActivityFigures): MeasuredResources {
  const waste = figures.wasteKg > 0;
  const energy = figures.electricityKwh > 0;
  return {
    measuredWasteKg: waste ? round3(figures.wasteKg) : null,
    diversionRatePercent: waste ? percent(figures.divertedKg, figures.wasteKg) : null,
    recyclingRatePercent: waste ? percent(figures.recyclingKg, figures.wasteKg) : null,
    measuredEnergyKwh: energy ? round3(figures.electricityKwh) : null,
    renewableSharePercent: energy ? percent(figures.renewableKwh, figures.electricityKwh) : null,
  };
}

/** One group of an event's activity records: the same kind, qualifiers, quality and factor. */
export interface ActivityGroup {
  kind: ActivityKind;
  dataQuality: string;
  source: string | null;
  stream: string | null;
  fuel: string | null;
  mode: string | null;
  unit: string;
  records: number;
  quantity: number;
  emissionsKg: number;
  unpriced: number;
  /** The factor's JSON as stored (null: unpriced). */
  factor: string | null;
}

/** Per-kind sums of groups. */
export function kindFigures(groups: readonly ActivityGroup[]): KindFigures[] {
  return ACTIVITY_KINDS.map((kind) => {
    const of = groups.filter((g) => g.kind === kind);
    return {
      kind,
      records: of.reduce((sum, g) => sum + g.records, 0),
      emissionsKg: of.reduce((sum, g) => sum + g.emissionsKg, 0),
      measuredEmissionsKg: of.filter((g) => g.dataQuality === "measured").reduce((sum, g) => sum + g.emissionsKg, 0),
      unpriced: of.reduce((sum, g) => sum + g.unpriced, 0),
    };
  }).filter((k) => k.records > 0);
}

/** Waste by stream, energy by source, fuels, staff travel and the factors used: the report's detail. */
export function activityDetail(groups: readonly ActivityGroup[]) {
  const sum = (of: readonly ActivityGroup[], pick: (g: ActivityGroup) => number) =>
    of.reduce((total, g) => total + pick(g), 0);
  const waste = groups.filter((g) => g.kind === "waste");
  const electricity = groups.filter((g) => g.kind === "electricity");
  const fuels = groups.filter((g) => g.kind === "fuel");
  const staff = groups.filter((g) => g.kind === "staff_travel");
  const factors = new Map<string, { factor: string; kind: ActivityKind; records: number }>();
  for (const g of groups) {
    if (g.factor === null) continue;
    const key = `${g.kind}\u0000${g.factor}`;
    const entry = factors.get(key) ?? { factor: g.factor, kind: g.kind, records: 0 };
    entry.records += g.records;
    factors.set(key, entry);
  }
  return {
    wasteByStream: WASTE_STREAMS.map((stream) => ({
      stream,
      kg: round3(
        sum(
          waste.filter((g) => g.stream === stream),
          (g) => g.quantity,
        ),
      ),
      diverted: !(DISPOSAL_WASTE_STREAMS as readonly string[]).includes(stream),
    })).filter((s) => s.kg > 0),
    electricityBySource: ELECTRICITY_SOURCES.map((source) => ({
      source,
      kWh: round3(
        sum(
          electricity.filter((g) => g.source === source),
          (g) => g.quantity,
        ),
      ),
    })).filter((s) => s.kWh > 0),
    fuels: FUELS.flatMap((fuel) =>
      FUEL_UNITS.map((unit) => fuels.filter((g) => g.fuel === fuel && g.unit === unit))
        .filter((of) => of.length > 0)
        .map((of) => ({
          fuel,
          unit: of[0]!.unit as FuelUnit,
          quantity: round3(sum(of, (g) => g.quantity)),
          // null when no record of the fuel and unit is priced: 0 kg would read as a zero footprint.
          emissionsKg: sum(of, (g) => g.records - g.unpriced) > 0 ? round3(sum(of, (g) => g.emissionsKg)) : null,
        })),
    ),
    staffByMode: TRAVEL_MODES.map((mode) => {
      const of = staff.filter((g) => g.mode === mode);
      return {
        mode,
        passengerKm: round3(sum(of, (g) => g.quantity)),
        emissionsKg: round3(sum(of, (g) => g.emissionsKg)),
      };
    }).filter((m) => m.passengerKm > 0),
    factors: [...factors.values()].map(({ factor, kind, records }) => ({
      kind,
      ...(JSON.parse(factor) as { name: string; value: number; unit: string; source: string; year: number }),
      records,
    })),
  };
}
