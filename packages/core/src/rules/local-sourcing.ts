/**
 * Local sourcing (docs/api.md, Local sourcing): which of an event's confirmed vendors are local and
 * certified, and the shares the analytics report and the `localSourcing` goal is judged on.
 * Pure: the storage hands over the confirmed vendors' locations and certifications.
 */
import type { CarbonSettings } from "../carbon/carbon-settings.ts";
import type { Coordinates } from "../resources/event.ts";
import type { BookingStatus, Certification } from "../resources/vendor.ts";

/** The status of the bookings local sourcing counts: only confirmed vendors supply the event. */
export const SOURCING_BOOKING_STATUS = "confirmed" as const satisfies BookingStatus;

/** A confirmed vendor of an event, as far as local sourcing asks. */
export interface ConfirmedVendor {
  coordinates: Coordinates | null;
  certifications: readonly Pick<Certification, "validUntil">[];
}

/** How many of an event's confirmed vendors are local and certified. */
export interface VendorFigures {
  confirmed: number;
  local: number;
  certified: number;
}

/** No confirmed vendor. */
export const NO_VENDOR_FIGURES: VendorFigures = { confirmed: 0, local: 0, certified: 0 };

const EARTH_RADIUS_KM = 6371.0088;
const radians = (degrees: number) => (degrees * Math.PI) / 180;

/** Great-circle distance between two points in km (haversine, mean Earth radius). */
export function distanceKm(a: Coordinates, b: Coordinates): number {
  const dLat = radians(b.lat - a.lat);
  const dLng = radians(b.lng - a.lng);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(radians(a.lat)) * Math.cos(radians(b.lat)) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/**
 * The vendor figures of an event: a vendor is local when it and the event both have
 * coordinates within `localSourcingRadiusKm` of each other (one without coordinates cannot be
 * shown local, and counts as not); certified when it holds a certification with no end or one
 * valid on the event's first day (`validUntil` not before the start's date).
 */
export function vendorFiguresOf(
  event: { startDate: string; location: { coordinates: Coordinates | null } },
  vendors: readonly ConfirmedVendor[],
  settings: Pick<CarbonSettings, "localSourcingRadiusKm">,
): VendorFigures {
  const startDay = event.startDate.slice(0, 10);
  const here = event.location.coordinates;
  let local = 0;
  let certified = 0;
  for (const vendor of vendors) {
    if (here && vendor.coordinates && distanceKm(here, vendor.coordinates) <= settings.localSourcingRadiusKm) local++;
    if (vendor.certifications.some((c) => c.validUntil === null || c.validUntil >= startDay)) certified++;
  }
  return { confirmed: vendors.length, local, certified };
}

/** `part` of `whole` in percent, 0.1 precision; `null` when `whole` is 0. */
function share(part: number, whole: number): number | null {
  return whole > 0 ? Math.round((1000 * part) / whole) / 10 : null;
}

/** The `vendors` section of the per-event analytics. */
export function vendorShares(figures: VendorFigures) {
  return {
    confirmed: figures.confirmed,
    local: figures.local,
    localSharePercent: share(figures.local, figures.confirmed),
    certified: figures.certified,
    certifiedSharePercent: share(figures.certified, figures.confirmed),
  };
}
