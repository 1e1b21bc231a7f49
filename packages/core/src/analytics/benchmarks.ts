/**
 * Industry reference values the trends endpoint compares against (`includeBenchmark=true`).
 * Each names its source; they are indicative figures for orientation, not targets the
 * service certifies against. `null`: no published reference value fits the metric.
 */
import type { TrendMetric } from "./trend-metrics.ts";

/** One reference value and how to read a comparison with it. */
export interface BenchmarkReference {
  /** The reference figure, in `unit`. */
  value: number;
  unit: string;
  /** What the account's figure compared with it is (computed over the whole range). */
  comparedFigure: string;
  /** Whether a figure below the reference is the better side. */
  lowerIsBetter: boolean;
  /** Where the value comes from. */
  source: string;
}

/** The reference value of each trend metric. */
export const BENCHMARKS: Record<TrendMetric, BenchmarkReference | null> = {
  // Klöwer, Hopkins, Allen and Higham (2020), "An analysis of ways to decarbonize conference
  // travel after COVID-19", Nature 583, 356-359: the AGU Fall Meeting 2019 (about 28,000
  // attendees) caused about 80,000 t CO2e of travel, about 2,857 kg per attendee. A large
  // international conference: events with regional audiences should sit far below it.
  carbon_emissions: {
    value: 2857,
    unit: "kg CO2e per attendee",
    comparedFigure: "travel emissions per active registration over the range",
    lowerIsBetter: true,
    source:
      "Klöwer et al. (2020), Nature 583:356-359: AGU Fall Meeting 2019, about 80,000 t CO2e of travel for about 28,000 attendees",
  },
  // Attendance depends on each event's size and market; no general reference value exists.
  attendance: null,
  // Directive (EU) 2018/851 amending the Waste Framework Directive 2008/98/EC, article 11(2)(c):
  // 55 % of municipal waste prepared for re-use or recycled by 2025.
  waste_reduction: {
    value: 55,
    unit: "percent",
    comparedFigure: "mean wasteReduction target of the events in the range (events without one count as 0)",
    lowerIsBetter: false,
    source:
      "Directive (EU) 2018/851 (Waste Framework Directive 2008/98/EC, art. 11(2)(c)): 55 % of municipal waste re-used or recycled by 2025",
  },
  // Eurostat, "Renewables account for 41.2 % of EU electricity" (share of energy from renewable
  // sources in gross electricity consumption, EU, 2022).
  energy_usage: {
    value: 41.2,
    unit: "percent",
    comparedFigure: "share of the events in the range with the renewableEnergy goal",
    lowerIsBetter: false,
    source:
      "Eurostat (SHARES 2022): renewable sources supplied 41.2 % of gross electricity consumption in the EU in 2022",
  },
  // IATA and airlines report that 1-3 % of passengers take up voluntary carbon offsets when
  // offered at booking; the upper end is used.
  offset_participation: {
    value: 3,
    unit: "percent",
    comparedFigure: "share of the active registrations in the range that opted to offset",
    lowerIsBetter: false,
    source:
      "IATA and airline reports: 1-3 % of air passengers take up voluntary carbon offsets offered at booking (upper end used)",
  },
};
