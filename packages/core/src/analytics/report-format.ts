/** How the report page writes its numbers: en-US grouping, kg, km, kWh and percentages to one decimal. */

/**
 * An en-US number format, made by its first number: making one reads ICU's locale data (several
 * MB of the process's memory), which a process that writes no report or insight never needs.
 */
export function numberFormat(options: Intl.NumberFormatOptions): (value: number) => string {
  let format: Intl.NumberFormat | undefined;
  return (value) => (format ??= new Intl.NumberFormat("en-US", options)).format(value);
}

const ONE_DECIMAL = numberFormat({ minimumFractionDigits: 1, maximumFractionDigits: 1 });
const WHOLE = numberFormat({ maximumFractionDigits: 0 });
const UP_TO_ONE = numberFormat({ maximumFractionDigits: 1 });
const MONEY = numberFormat({ minimumFractionDigits: 2, maximumFractionDigits: 2 });
// A factor is printed whole (up to the 12 significant digits a per-tonne factor keeps as per kg:
// 0.02128081, not 0.021281), so that a reader can multiply the quantities by it.
const FACTOR = numberFormat({ maximumSignificantDigits: 12 });

/** "5,000.0" */
export const oneDecimal = (value: number) => ONE_DECIMAL(value);
/** "5,000.0 kg" */
export const kg = (value: number) => `${ONE_DECIMAL(value)} kg`;
/** "5,000.0 kWh" */
export const kwh = (value: number) => `${ONE_DECIMAL(value)} kWh`;
/** "5,000.0 km" */
export const km = (value: number) => `${ONE_DECIMAL(value)} km`;
/** "58.3%" */
export const pct = (value: number) => `${ONE_DECIMAL(value)}%`;
/** "3,500": a count, whole. */
export const count = (value: number) => WHOLE(value);
/** "7.5", "3": a figure without a unit, to one decimal at most. */
export const upToOne = (value: number) => UP_TO_ONE(value);
/** "USD 15.00" */
export const usd = (value: number) => `USD ${MONEY(value)}`;
/** "0.52033474": an emission factor, whole. */
export const factorValue = (value: number) => FACTOR(value);

/** "total emissions" for "totalEmissionsKg": a metric's name without its unit, in words. */
export function metricWords(key: string): string {
  return key
    .replace(/(Kg|Kwh|Percent)$/, "")
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase();
}

/** A goal's metric as text, by the unit its name ends with; "not measured" for null. */
export function metricText(key: string, value: number | null): string {
  if (value === null) return "not measured";
  if (key.endsWith("Kg")) return kg(value);
  if (key.endsWith("Percent")) return pct(value);
  if (key.endsWith("Kwh")) return kwh(value);
  return UP_TO_ONE(value);
}
