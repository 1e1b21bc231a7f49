/**
 * "Carbon neutral", the one definition: an event is carbon neutral when it has a footprint to
 * offset (its whole footprint, attendee travel and activity records, above 0 kg CO2e) and its
 * offsets cover it (offset kg >= emissions kg). An event with no emissions (nothing recorded,
 * everyone walked or cycled) is not carbon neutral: there is nothing it offset. The `sustainability.goal_achieved` notification, the
 * completion report's `carbonNeutralAchieved` and the `carbonNeutral` certification of the
 * analytics all use it; `carbonNeutralSql` (`sql/carbon-sql.ts`) is its SQL twin, which a test
 * keeps equal to it.
 */

/** What the definition reads: an event's whole footprint and its offsets, both in kg CO2e. */
export interface CarbonBalance {
  emissionsKg: number;
  offsetKg: number;
}

/** True when there are emissions and the offsets cover them. */
export function isCarbonNeutral(balance: CarbonBalance): boolean {
  return balance.emissionsKg > 0 && balance.offsetKg >= balance.emissionsKg;
}
