/**
 * The certifications the analytics count, per event. They are the service's own labels,
 * computed from what the event's active registrations achieved and its score; no third party
 * certifies them.
 */

/** Share of the reported trips on low-carbon modes an event needs for `lowCarbonTravel`. */
export const LOW_CARBON_CERTIFICATION_SHARE = 0.75;

/** Floors of the score tiers, on the rounded `sustainabilityScore`; tiers do not overlap. */
export const SCORE_TIERS = { gold: 80, silver: 60, bronze: 40 } as const;

/** What each certification means. */
export const CERTIFICATIONS = {
  carbonNeutral:
    "offsets of the active registrations cover the whole footprint (their travel and the event's activity records), which must be above 0",
  lowCarbonTravel: "at least 75 % of the active registrations that reported travel came by train, bus, bike or on foot",
  gold: "sustainabilityScore 80 or more",
  silver: "sustainabilityScore 60 to under 80",
  bronze: "sustainabilityScore 40 to under 60",
} as const;

/** The score tier of a rounded score, or `null` below bronze. */
export function scoreTier(score: number): "gold" | "silver" | "bronze" | null {
  if (score >= SCORE_TIERS.gold) return "gold";
  if (score >= SCORE_TIERS.silver) return "silver";
  if (score >= SCORE_TIERS.bronze) return "bronze";
  return null;
}
