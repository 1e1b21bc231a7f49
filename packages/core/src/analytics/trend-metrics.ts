/**
 * The metrics `GET /analytics/trends` analyses, each a figure per calendar bucket of the
 * events starting in it (cancelled events excluded):
 * - `carbon_emissions`: kg CO2e of the travel of the events' active registrations.
 * - `attendance`: active registrations (confirmed, pending, checked-in).
 * - `waste_reduction`: mean `wasteReduction` goal (percent) of the events; none counts as 0.
 * - `energy_usage`: percent of the events with the `renewableEnergy` goal. The service meters
 *   no energy, so this is the share committed to renewable energy, not kWh.
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
  waste_reduction: "percent (mean target)",
  energy_usage: "percent of events",
  offset_participation: "percent of registrations",
};
