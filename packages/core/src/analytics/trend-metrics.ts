/**
 * The metrics `GET /analytics/trends` analyses, each a figure per calendar bucket of the
 * events starting in it (cancelled events excluded):
 * - `carbon_emissions`: kg CO2e of the travel of the events' active registrations.
 * - `attendance`: active registrations (confirmed, pending, checked-in).
 * - `waste_reduction`: where the bucket's events record waste, the measured diversion rate
 *   (percent of waste kg not landfilled or incinerated); else the mean `wasteReduction` goal
 *   (percent) of the events, none counting as 0.
 * - `energy_usage`: where the bucket's events record electricity, the renewable share of its
 *   kWh (percent); else the percent of the events with the `renewableEnergy` goal.
 * - `offset_participation`: percent of the active registrations that opted to offset.
 */
export const TREND_METRICS = [
  "carbon_emissions",
  "attendance",
  "waste_reduction",
  "energy_usage",
  "offset_participation",
] as const;
export type TrendMetric = (typeof TREND_METRICS)[number];

/** The unit of each metric's values. */
export const TREND_METRIC_UNITS: Record<TrendMetric, string> = {
  carbon_emissions: "kg CO2e",
  attendance: "registrations",
  waste_reduction: "percent (measured diversion rate where waste is recorded, else mean target)",
  energy_usage: "percent (renewable share of recorded kWh, else of events committed)",
  offset_participation: "percent of registrations",
};
