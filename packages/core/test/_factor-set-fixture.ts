/**
 * A synthetic factor set for the tests of sets by year (the unit tests' and the end-to-end
 * tests', which write it to a file): round factors to compute by hand, car `car` kg per km,
 * one activity factor (diesel, 10 kg per litre).
 */
import type { EmissionFactorSetInput } from "../src/carbon/emission-factors.ts";

export function syntheticSet(year: number, car: number, source = "The test suite"): EmissionFactorSetInput {
  return {
    name: `Synthetic ${year}`,
    year,
    source,
    factors: [
      { mode: "car", factor: car },
      { mode: "flight", factor: 2 },
      { mode: "train", factor: 0.5 },
      { mode: "bus", factor: 0.25 },
      { mode: "bike", factor: 0 },
      { mode: "walk", factor: 0 },
    ],
    activities: [{ kind: "fuel", fuel: "diesel", unit: "litres", factor: 10, name: `Synthetic diesel ${year}` }],
  };
}
