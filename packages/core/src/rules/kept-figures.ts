/**
 * The figures an event keeps on its own record, summed from its registrations: the one
 * definition of what a registration contributes. The storage adds a change's difference under
 * the event's lock (`contributionOf(after) - contributionOf(before)`), so reading them costs one
 * row however many registrations the event has; `contributionSql` in `sql/carbon-sql.ts` is the
 * SQL twin that analytics and the migration's backfill sum over registration rows (a test keeps
 * the two in agreement). Event payloads, lists, scores and webhook notifications all read these.
 */
import type { AttendeeRecord } from "../resources/attendee.ts";
import type { EventRecord, EventStats } from "../resources/event.ts";
import { isActiveAttendeeStatus } from "./attendee-status.ts";
import { type CarbonSettings, offsetKg } from "../carbon/carbon-settings.ts";
import {
  DEFAULT_EMISSION_FACTORS,
  type EmissionFactorSet,
  LOW_CARBON_TRAVEL_MODES,
  travelEmissionsKg,
} from "../carbon/emission-factors.ts";
import { sustainabilityScore } from "../carbon/sustainability-score.ts";

/** An event's kept figures, or what one registration adds to them. */
export interface KeptFigures {
  /** Active registrations (confirmed, pending, checked-in). */
  activeRegistrations: number;
  /** kg CO2e of the active registrations' reported travel. */
  emissionsKg: number;
  /** USD of offsets the active registrations opted into. */
  offsetUsd: number;
  /** Active registrations that reported a travel mode. */
  travelReported: number;
  /** Of those, the ones on a low-carbon mode. */
  lowCarbonTravel: number;
  /** Registrations on the waiting list (they add to nothing else: they hold no place). */
  waitlisted: number;
}

/** The figures of an event without active registrations (a new one). */
export const NO_FIGURES: Readonly<KeptFigures> = Object.freeze({
  activeRegistrations: 0,
  emissionsKg: 0,
  offsetUsd: 0,
  travelReported: 0,
  lowCarbonTravel: 0,
  waitlisted: 0,
});

/** What one registration adds to its event's kept figures under the factor set `factors`: nothing unless it is active (`null`: none). */
export function contributionOf(
  attendee: AttendeeRecord | null,
  factors: EmissionFactorSet = DEFAULT_EMISSION_FACTORS,
): KeptFigures {
  if (!attendee || !isActiveAttendeeStatus(attendee.status))
    return { ...NO_FIGURES, waitlisted: attendee?.status === "waitlisted" ? 1 : 0 };
  const offset = attendee.carbonOffset;
  const mode = offset?.travelMode ?? null;
  return {
    activeRegistrations: 1,
    emissionsKg: mode === null ? 0 : travelEmissionsKg(mode, offset?.travelDistance ?? 0, factors),
    offsetUsd: offset?.opted ? (offset.amount ?? 0) : 0,
    travelReported: mode === null ? 0 : 1,
    lowCarbonTravel: mode !== null && (LOW_CARBON_TRAVEL_MODES as readonly string[]).includes(mode) ? 1 : 0,
    waitlisted: 0,
  };
}

/** How a change of one registration from `before` to `after` moves its event's figures (either may be `null`). */
export function contributionChange(
  before: AttendeeRecord | null,
  after: AttendeeRecord | null,
  factors: EmissionFactorSet = DEFAULT_EMISSION_FACTORS,
): KeptFigures {
  const [was, is] = [contributionOf(before, factors), contributionOf(after, factors)];
  return {
    activeRegistrations: is.activeRegistrations - was.activeRegistrations,
    emissionsKg: is.emissionsKg - was.emissionsKg,
    offsetUsd: is.offsetUsd - was.offsetUsd,
    travelReported: is.travelReported - was.travelReported,
    lowCarbonTravel: is.lowCarbonTravel - was.lowCarbonTravel,
    waitlisted: is.waitlisted - was.waitlisted,
  };
}

/** The sum of figures (several registrations' changes, written to their event at once). */
export function sumFigures(all: readonly KeptFigures[]): KeptFigures {
  const sum = { ...NO_FIGURES };
  for (const figures of all) for (const key of Object.keys(sum) as Array<keyof KeptFigures>) sum[key] += figures[key];
  return sum;
}

/** The event's kept figures in kg of offsets and its score, the inputs of its stats and reports. */
export function scoreOf(
  event: Pick<EventRecord, "sustainabilityGoals">,
  figures: KeptFigures,
  carbon: CarbonSettings,
): number {
  return sustainabilityScore({
    goals: event.sustainabilityGoals,
    travelReported: figures.travelReported,
    lowCarbonTravel: figures.lowCarbonTravel,
    emissionsKg: figures.emissionsKg,
    offsetKg: offsetKg(figures.offsetUsd, carbon),
  });
}

/** The figures an event shows in the API (`attendeeCount`, `carbonFootprint`, `sustainabilityScore`), from its kept figures. */
export function eventStatsOf(
  event: Pick<EventRecord, "sustainabilityGoals">,
  figures: KeptFigures,
  carbon: CarbonSettings,
): EventStats {
  return {
    attendeeCount: figures.activeRegistrations,
    carbonFootprint: Math.round(figures.emissionsKg * 1000) / 1000,
    sustainabilityScore: scoreOf(event, figures, carbon),
    waitlistCount: figures.waitlisted,
  };
}
