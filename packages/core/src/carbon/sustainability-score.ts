/**
 * The sustainability score of an event, 0..100, and its inputs.
 *
 * - Goals, up to 60 points: carbonNeutral 15, renewableEnergy 15, localSourcing 15, and
 *   wasteReduction 15 x percentage / 100.
 * - Low-carbon travel, up to 20 points: 20 x the share of active registrations that reported a
 *   travel mode and chose train, bus, bike or walk (0 when none reported a mode).
 * - Offset coverage, up to 20 points: 20 x min(1, offset kg / travel emissions kg); with no
 *   emissions, full points when at least one active registration reported its travel, else 0.
 *
 * The SQL storage computes the same formula in SQL (so lists filter and sort on it); the
 * storage test suite checks the two agree.
 */
export interface ScoreInputs {
  goals: {
    carbonNeutral?: boolean | null;
    renewableEnergy?: boolean | null;
    localSourcing?: boolean | null;
    wasteReduction?: number | null;
  };
  /** Active registrations that reported a travel mode. */
  travelReported: number;
  /** Of those, the ones on a low-carbon mode. */
  lowCarbonTravel: number;
  emissionsKg: number;
  offsetKg: number;
}

/** Points of each part of the score. */
export const SCORE_WEIGHTS = { goal: 15, lowCarbonTravel: 20, offsetCoverage: 20 } as const;

/** The score, rounded to one decimal. */
export function sustainabilityScore(inputs: ScoreInputs): number {
  const { goals } = inputs;
  let score = 0;
  if (goals.carbonNeutral) score += SCORE_WEIGHTS.goal;
  if (goals.renewableEnergy) score += SCORE_WEIGHTS.goal;
  if (goals.localSourcing) score += SCORE_WEIGHTS.goal;
  score += (SCORE_WEIGHTS.goal * (goals.wasteReduction ?? 0)) / 100;
  if (inputs.travelReported > 0)
    score += (SCORE_WEIGHTS.lowCarbonTravel * inputs.lowCarbonTravel) / inputs.travelReported;
  if (inputs.emissionsKg > 0) score += SCORE_WEIGHTS.offsetCoverage * Math.min(1, inputs.offsetKg / inputs.emissionsKg);
  else if (inputs.travelReported > 0) score += SCORE_WEIGHTS.offsetCoverage;
  return Math.round(score * 10) / 10;
}
