/**
 * The counts an event keeps of its registrations' values, for its analytics report: the one
 * definition of what a registration adds to them. Like the kept figures (`kept-figures.ts`), the
 * storage adds a change's difference in the change's transaction under the event's lock, so the
 * report reads a few rows per event however many registrations it has. `sql/tally-sql.ts` holds
 * the SQL twins that a recount sums over registration rows (a test keeps each pair in agreement).
 */
import type { AttendeeRecord } from "../resources/attendee.ts";
import { isActiveAttendeeStatus } from "./attendee-status.ts";
import { contributionOf } from "./kept-figures.ts";
import {
  DEFAULT_EMISSION_FACTORS,
  type EmissionFactorSet,
  type TravelMode,
  travelBand,
} from "../carbon/emission-factors.ts";

/**
 * What the tallies count, each of one registration's values: `status` of every registration,
 * the others of the active ones (`company` only when given, `diet` each preference listed,
 * `need` each accessibility need, and `any` when it has one).
 */
export const TALLY_FACETS = ["status", "ticket", "company", "diet", "need"] as const;
export type TallyFacet = (typeof TALLY_FACETS)[number];

/** The values of the `need` facet: the accessibility needs a registration may state, and `any` of them. */
export const NEED_VALUES = ["wheelchairAccess", "signLanguage", "visualAid", "other", "any"] as const;
/** The needs stated by a flag (`other` is a text). */
export const FLAG_NEEDS = [
  "wheelchairAccess",
  "signLanguage",
  "visualAid",
] as const satisfies readonly (typeof NEED_VALUES)[number][];

/**
 * The version of what {@link talliesOf} and {@link travelTallyOf} count. A store whose tallies
 * were counted under another recounts them all from the registrations when it starts: change it
 * with any change of what they count.
 */
export const TALLY_DEFINITION = 1;

/** The registrations of an event with one value of a facet, or what one registration adds to them. */
export interface Tally {
  facet: TallyFacet;
  value: string;
  registrations: number;
  /** The sum of their registration times, in days since 1970-01-01 UTC (their mean lead time is the event's start less the mean of these). */
  registeredDays: number;
}

/** The active registrations of an event with one travel mode (`null`: none given) priced by one band of its factors, or one registration's share. */
export interface TravelTally {
  mode: TravelMode | null;
  /** The band of the mode's factors that prices their distance (0 for a mode of one factor, and without a mode). */
  band: number;
  registrations: number;
  distanceKm: number;
  emissionsKg: number;
  /** Those that opted into an offset. */
  offsetOpted: number;
  offsetUsd: number;
}

/** A registration time (ISO 8601) in days since 1970-01-01 UTC. */
export function epochDays(timestamp: string): number {
  return Date.parse(timestamp) / 86_400_000;
}

/** What one registration adds to its event's tallies (`null`: nothing). */
export function talliesOf(attendee: AttendeeRecord | null): Tally[] {
  if (!attendee) return [];
  const registeredDays = epochDays(attendee.registrationDate);
  const tally = (facet: TallyFacet, value: string): Tally => ({ facet, value, registrations: 1, registeredDays });
  const tallies = [tally("status", attendee.status)];
  if (!isActiveAttendeeStatus(attendee.status)) return tallies;
  tallies.push(tally("ticket", attendee.ticketType));
  if (attendee.company !== null) tallies.push(tally("company", attendee.company));
  for (const diet of attendee.dietaryPreferences) tallies.push(tally("diet", diet));
  const needs = attendee.accessibilityNeeds;
  const stated = [
    ...FLAG_NEEDS.filter((need) => needs?.[need] === true),
    ...((needs?.other ?? "") !== "" ? (["other"] as const) : []),
  ];
  for (const need of stated) tallies.push(tally("need", need));
  if (stated.length > 0) tallies.push(tally("need", "any"));
  return tallies;
}

/** What one registration adds to its event's travel tallies under the factor set `factors`: nothing unless it is active. */
export function travelTallyOf(
  attendee: AttendeeRecord | null,
  factors: EmissionFactorSet = DEFAULT_EMISSION_FACTORS,
): TravelTally | null {
  if (!attendee || !isActiveAttendeeStatus(attendee.status)) return null;
  const offset = attendee.carbonOffset;
  const mode = offset?.travelMode ?? null;
  const distanceKm = offset?.travelDistance ?? 0;
  // Emissions and offsets as the kept figures count them.
  const { emissionsKg, offsetUsd } = contributionOf(attendee, factors);
  return {
    mode,
    band: mode === null ? 0 : travelBand(factors, mode, distanceKm),
    registrations: 1,
    distanceKm,
    emissionsKg,
    offsetOpted: offset?.opted ? 1 : 0,
    offsetUsd,
  };
}

/** How a change of one registration from `before` to `after` moves its event's tallies: one entry per value that moves, none for a change that moves nothing. */
export function tallyChange(before: AttendeeRecord | null, after: AttendeeRecord | null): Tally[] {
  // A new registration (the busiest change) only adds.
  if (before === null) return talliesOf(after);
  const moved = new Map<string, Tally>();
  const add = (tally: Tally, sign: 1 | -1) => {
    const key = `${tally.facet}\u0000${tally.value}`;
    const entry = moved.get(key) ?? { facet: tally.facet, value: tally.value, registrations: 0, registeredDays: 0 };
    entry.registrations += sign * tally.registrations;
    entry.registeredDays += sign * tally.registeredDays;
    moved.set(key, entry);
  };
  for (const tally of talliesOf(before)) add(tally, -1);
  for (const tally of talliesOf(after)) add(tally, 1);
  // A value both had: its count and days are unchanged (the registration time never changes).
  return [...moved.values()].filter((tally) => tally.registrations !== 0);
}

/** The summed fields of a travel tally. */
const TRAVEL_SUMS = ["registrations", "distanceKm", "emissionsKg", "offsetOpted", "offsetUsd"] as const;

/** How a change of one registration moves its event's travel tallies under `factors` (an entry per mode and band that moves). */
export function travelTallyChange(
  before: AttendeeRecord | null,
  after: AttendeeRecord | null,
  factors: EmissionFactorSet = DEFAULT_EMISSION_FACTORS,
): TravelTally[] {
  const [was, is] = [travelTallyOf(before, factors), travelTallyOf(after, factors)];
  /** `a`'s sums less `b`'s, under `a`'s mode and band. */
  const less = (a: TravelTally, b: TravelTally): TravelTally => {
    const result = { ...a };
    for (const sum of TRAVEL_SUMS) result[sum] = a[sum] - b[sum];
    return result;
  };
  if (was && is && was.mode === is.mode && was.band === is.band) {
    const delta = less(is, was);
    return TRAVEL_SUMS.every((sum) => delta[sum] === 0) ? [] : [delta];
  }
  // Out of the one mode and band (nothing less it), into the other.
  return [...(was ? [less(less(was, was), was)] : []), ...(is ? [is] : [])];
}

/**
 * Several registrations' tally changes as one: one entry per value (facet and value; mode and
 * band for travel), summed, those that sum to nothing left out, so the event's tallies take them
 * in one write.
 */
export function mergeTallyChanges(
  tallies: readonly Tally[],
  travel: readonly TravelTally[],
): { tallies: Tally[]; travel: TravelTally[] } {
  const byValue = new Map<string, Tally>();
  for (const tally of tallies) {
    const key = `${tally.facet}\u0000${tally.value}`;
    const entry = byValue.get(key) ?? { ...tally, registrations: 0, registeredDays: 0 };
    entry.registrations += tally.registrations;
    entry.registeredDays += tally.registeredDays;
    byValue.set(key, entry);
  }
  const byMode = new Map<string, TravelTally>();
  for (const tally of travel) {
    const key = `${tally.mode}\u0000${tally.band}`;
    const entry = byMode.get(key) ?? { ...tally };
    if (byMode.has(key)) for (const sum of TRAVEL_SUMS) entry[sum] += tally[sum];
    byMode.set(key, entry);
  }
  return {
    tallies: [...byValue.values()].filter((tally) => tally.registrations !== 0),
    travel: [...byMode.values()].filter((tally) => TRAVEL_SUMS.some((sum) => tally[sum] !== 0)),
  };
}
