/**
 * What an event's figures mean for its sustainability goals and its configurable metrics
 * (docs/api.md, The whole footprint): the one place where "carbon neutral", "renewable energy"
 * and "waste reduction" are judged, and where the metrics thresholds watch are defined. Pure:
 * the notifier, the analytics and the report all ask here.
 */
import { isCarbonNeutral } from "../carbon/carbon-neutral.ts";
import { type CarbonSettings, offsetKg } from "../carbon/carbon-settings.ts";
import type { ActivityFigures } from "../resources/activity-figures.ts";
import type { SustainabilityGoals } from "../resources/event.ts";
import type { KeptFigures } from "./kept-figures.ts";
import type { ThresholdMetric } from "../resources/threshold.ts";
import type { VendorFigures } from "./local-sourcing.ts";

/** The goals an event may set, as notifications and reports name them. */
export const GOAL_TYPES = ["carbon_neutral", "renewable_energy", "waste_reduction", "local_sourcing"] as const;
export type GoalType = (typeof GOAL_TYPES)[number];

/** Each metric's value for one event; `null` where there is nothing to measure (no attendee, no waste, no electricity, no emissions). */
export type EventMetrics = Record<ThresholdMetric, number | null>;

/** Everything an event's goals and metrics are judged from: its own row. */
export interface EventFigures {
  capacity: number;
  kept: KeptFigures;
  activities: ActivityFigures;
  /** Its confirmed vendors (local sourcing); absent where a caller judges no goal of them (the thresholds). */
  vendors?: VendorFigures;
}

/**
 * An event's capacity utilisation in percent: `active * 100 / capacity`, so that a whole
 * percentage comes out exact (29 of 100 is 29, where `29 / 100 * 100` is 28.999...); `null`
 * without a capacity.
 */
export function capacityUtilizationOf(activeRegistrations: number, capacity: number): number | null {
  return capacity > 0 ? (activeRegistrations * 100) / capacity : null;
}
const share = (part: number, whole: number): number | null => (whole > 0 ? (100 * part) / whole : null);

/** The whole footprint: attendees' travel and every priced activity record, kg CO2e. */
export function footprintKg(figures: EventFigures): number {
  return figures.kept.emissionsKg + figures.activities.emissionsKg;
}

/** The metrics of an event, unrounded. */
export function eventMetrics(figures: EventFigures, carbon: CarbonSettings): EventMetrics {
  const total = footprintKg(figures);
  const active = figures.kept.activeRegistrations;
  const { wasteKg, divertedKg, electricityKwh, renewableKwh } = figures.activities;
  return {
    capacity_utilization: capacityUtilizationOf(active, figures.capacity),
    emissions_per_attendee_kg: active > 0 ? total / active : null,
    total_emissions_kg: total,
    waste_diversion_percent: share(divertedKg, wasteKg),
    renewable_share_percent: share(renewableKwh, electricityKwh),
    offset_coverage_percent: share(offsetKg(figures.kept.offsetUsd, carbon), total),
  };
}

/** One goal of an event and whether its figures meet it. */
export interface GoalStatus {
  type: GoalType;
  /** Whether the event set the goal (`wasteReduction`: a target above 0). */
  set: boolean;
  /** Met by the figures now; `null` for a goal not set, or when nothing recorded can tell (no waste, no electricity; `local_sourcing`: no confirmed vendor). */
  met: boolean | null;
  /** The target in percent (`waste_reduction`), else `null`. */
  target: number | null;
  /** The figures it was judged on: kg for emissions and offsets, percentages. */
  metrics: Record<string, number | null>;
}

const round = (value: number | null, digits = 3): number | null =>
  value === null ? null : Math.round(value * 10 ** digits) / 10 ** digits + 0;

/**
 * Every goal of an event, set or not, with the figures it is judged on; a set goal is judged:
 * `carbon_neutral` when offsets cover the whole footprint (above 0); `renewable_energy` when
 * electricity is recorded and all of it is renewable; `waste_reduction` when the measured
 * diversion rate reaches the target; `local_sourcing` when the local share of the confirmed
 * vendors reaches the configured target (`met: null` with no confirmed vendor). A goal not set
 * is neither met nor missed: `met: null`.
 */
export function goalStatuses(goals: SustainabilityGoals, figures: EventFigures, carbon: CarbonSettings): GoalStatus[] {
  return judgedGoals(goals, figures, carbon).map((goal) => (goal.set ? goal : { ...goal, met: null }));
}

function judgedGoals(goals: SustainabilityGoals, figures: EventFigures, carbon: CarbonSettings): GoalStatus[] {
  const total = footprintKg(figures);
  const offset = offsetKg(figures.kept.offsetUsd, carbon);
  const { electricityKwh, renewableKwh, wasteKg, divertedKg } = figures.activities;
  const diversion = share(divertedKg, wasteKg);
  const target = goals.wasteReduction ?? 0;
  return [
    {
      type: "carbon_neutral",
      set: goals.carbonNeutral === true,
      met: isCarbonNeutral({ emissionsKg: total, offsetKg: offset }),
      target: null,
      metrics: {
        totalEmissionsKg: round(total),
        offsetKg: round(offset),
        coveragePercent: round(share(offset, total), 1),
      },
    },
    {
      type: "renewable_energy",
      set: goals.renewableEnergy === true,
      // Sums of the same records: all renewable when the renewable sum is the whole, up to rounding.
      met: electricityKwh > 0 ? renewableKwh >= electricityKwh * (1 - 1e-12) : null,
      target: null,
      metrics: {
        electricityKwh: round(electricityKwh),
        renewableKwh: round(renewableKwh),
        renewableSharePercent: round(share(renewableKwh, electricityKwh), 1),
      },
    },
    {
      type: "waste_reduction",
      set: target > 0,
      met: diversion === null ? null : diversion >= target,
      target: target > 0 ? target : null,
      metrics: {
        wasteKg: round(wasteKg),
        divertedKg: round(divertedKg),
        diversionRatePercent: round(diversion, 1),
        targetPercent: target > 0 ? target : null,
      },
    },
    localSourcing(goals, figures.vendors, carbon.localSourcingTargetPercent),
  ];
}

/** The `local_sourcing` goal: met when the local share of the confirmed vendors reaches `targetPercent`. */
function localSourcing(
  goals: SustainabilityGoals,
  vendors: VendorFigures | undefined,
  targetPercent: number,
): GoalStatus {
  const confirmed = vendors?.confirmed ?? 0;
  const localShare = vendors ? share(vendors.local, confirmed) : null;
  return {
    type: "local_sourcing",
    set: goals.localSourcing === true,
    met: localShare === null ? null : localShare >= targetPercent,
    target: targetPercent,
    metrics: {
      confirmedVendors: confirmed,
      localVendors: vendors?.local ?? 0,
      localSharePercent: round(localShare, 1),
      targetPercent,
    },
  };
}
