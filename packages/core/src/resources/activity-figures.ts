/**
 * The figures an event keeps from its activity records, beside those it keeps from its
 * registrations (`kept-figures.ts`): the one definition of what the records add up to.
 * The storage recounts them from the records in the transaction of every activity change
 * (`activityFiguresSql` in `sql/carbon-sql.ts` is the SQL twin; a test keeps the two equal),
 * so goals, thresholds and analytics read one event row, however many records the event has.
 */
import {
  type ActivityKind,
  type DataQuality,
  DISPOSAL_WASTE_STREAMS,
  type ElectricitySource,
  RENEWABLE_ELECTRICITY_SOURCES,
  type WasteStream,
} from "../carbon/activity-kinds.ts";

/** An event's sums over its activity records. */
export interface ActivityFigures {
  /** kg CO2e of the priced records (an unpriced record adds nothing). */
  emissionsKg: number;
  /** Of those, the records whose `dataQuality` is `measured`. */
  measuredEmissionsKg: number;
  /** kWh of every electricity record, whatever its source. */
  electricityKwh: number;
  /** Of those, from a renewable tariff or generated on site. */
  renewableKwh: number;
  /** kg of every waste record. */
  wasteKg: number;
  /** Of those, not landfilled or incinerated (recycled, composted, digested, reused). */
  divertedKg: number;
  /** Of those, recycled. */
  recyclingKg: number;
}

/** The figures of an event without activity records. */
export const NO_ACTIVITY_FIGURES: Readonly<ActivityFigures> = Object.freeze({
  emissionsKg: 0,
  measuredEmissionsKg: 0,
  electricityKwh: 0,
  renewableKwh: 0,
  wasteKg: 0,
  divertedKg: 0,
  recyclingKg: 0,
});

/** What a record needs for its event's figures. */
export interface FigureSource {
  kind: ActivityKind;
  quantity: number;
  dataQuality: DataQuality;
  source: ElectricitySource | null;
  stream: WasteStream | null;
  /** As priced (null: unpriced). */
  emissionsKg: number | null;
}

/** The sums over `records`. */
export function activityFiguresOf(records: readonly FigureSource[]): ActivityFigures {
  const figures = { ...NO_ACTIVITY_FIGURES };
  for (const record of records) {
    const emissions = record.emissionsKg ?? 0;
    figures.emissionsKg += emissions;
    if (record.dataQuality === "measured") figures.measuredEmissionsKg += emissions;
    if (record.kind === "electricity") {
      figures.electricityKwh += record.quantity;
      if ((RENEWABLE_ELECTRICITY_SOURCES as readonly string[]).includes(record.source ?? "")) {
        figures.renewableKwh += record.quantity;
      }
    }
    if (record.kind === "waste") {
      figures.wasteKg += record.quantity;
      if (!(DISPOSAL_WASTE_STREAMS as readonly string[]).includes(record.stream ?? ""))
        figures.divertedKg += record.quantity;
      if (record.stream === "recycling") figures.recyclingKg += record.quantity;
    }
  }
  return figures;
}
