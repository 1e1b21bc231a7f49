import { ServiceError } from "../errors.ts";
import * as z from "zod";
import { ACTIVITY_KINDS } from "../carbon/activity-kinds.ts";
import { Email } from "./attendee.ts";
import { KeyValueMap, lowerCaseText, pagingParams, plainText, resolvePaging, text, Timestamp } from "./common.ts";
import { Location, LocationInput } from "./event.ts";

/** What a vendor supplies (docs/api.md, Vendors). */
export const VENDOR_CATEGORIES = [
  "venue",
  "catering",
  "production",
  "audio_visual",
  "logistics",
  "waste",
  "accommodation",
  "transport",
  "energy",
  "other",
] as const;
export type VendorCategory = (typeof VENDOR_CATEGORIES)[number];

const VendorContactInput = z.strictObject({
  name: text(200).nullish(),
  email: Email.nullish(),
  phone: text(50).nullish(),
});

/** A vendor's location: an event's, but only `city` and `country` are required. */
const VendorLocationInput = LocationInput.extend({
  address: LocationInput.shape.address.nullish(),
  coordinates: LocationInput.shape.coordinates.meta({
    description: "Where the vendor operates from: what local sourcing is measured by (LOCAL_SOURCING_RADIUS_KM).",
  }),
});

/** A certification a vendor holds. */
export const CertificationInput = z.strictObject({
  scheme: text(100).meta({ description: "e.g. ISO 14001, ISO 20121, B Corp, EU Ecolabel, Green Key; free text." }),
  reference: text(200).nullish(),
  validUntil: z.iso
    .date()
    .nullish()
    .meta({ description: "YYYY-MM-DD, the last day it is valid; null or absent: no end." }),
});

const vendorFields = {
  name: text(200),
  category: z.enum(VENDOR_CATEGORIES),
  contact: VendorContactInput.nullish(),
  location: VendorLocationInput.nullish(),
  certifications: z.array(CertificationInput).max(20).nullish(),
  notes: plainText(5000).nullish(),
  metadata: KeyValueMap.nullish(),
};

/** Body of `POST /vendors`. */
export const VendorCreateInput = z.strictObject(vendorFields);
export type VendorCreateInput = z.input<typeof VendorCreateInput>;
export type VendorCreate = z.output<typeof VendorCreateInput>;

/** Body of `PUT /vendors/:id`: a partial update; a given object (`contact`, `location`) replaces the stored one whole, `null` clears it. */
export const VendorUpdateInput = z.strictObject({
  ...vendorFields,
  name: vendorFields.name.optional(),
  category: vendorFields.category.optional(),
});
export type VendorUpdateInput = z.input<typeof VendorUpdateInput>;
export type VendorUpdate = z.output<typeof VendorUpdateInput>;

export const VendorContact = z.object({
  name: z.string().nullable(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
});
export type VendorContact = z.infer<typeof VendorContact>;

export const VendorLocation = Location.extend({ address: z.string().nullable() });
export type VendorLocation = z.infer<typeof VendorLocation>;

export const Certification = z.object({
  scheme: z.string(),
  reference: z.string().nullable(),
  validUntil: z.string().nullable().meta({ description: "YYYY-MM-DD; null: no end." }),
});
export type Certification = z.infer<typeof Certification>;

/** A vendor as the API answers it. */
export const Vendor = z.object({
  id: z.string(),
  name: z.string(),
  category: z.enum(VENDOR_CATEGORIES),
  contact: VendorContact.nullable(),
  location: VendorLocation.nullable(),
  certifications: z.array(Certification),
  notes: z.string().nullable(),
  metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Vendor = z.infer<typeof Vendor>;

/** A vendor as stored: its account too. */
export interface VendorRecord extends Vendor {
  accountId: string;
}

/** The API form of a stored vendor. */
export function toApiVendor(record: VendorRecord): Vendor {
  const { accountId: _accountId, ...vendor } = record;
  return vendor;
}

/** Query of `GET /vendors`. */
export const VendorListQuery = z
  .strictObject({
    ...pagingParams,
    category: z.enum(VENDOR_CATEGORIES).optional(),
    search: lowerCaseText(200).optional().meta({ description: "Part of the name, any case." }),
  })
  .transform(resolvePaging);
export type VendorListQuery = z.output<typeof VendorListQuery>;

/** A stored vendor made of a parsed create input. */
export function newVendorRecord(
  input: VendorCreate,
  ids: { id: string; accountId: string; now: string },
): VendorRecord {
  return {
    id: ids.id,
    accountId: ids.accountId,
    name: input.name,
    category: input.category,
    contact: contactOf(input.contact),
    location: locationOf(input.location),
    certifications: (input.certifications ?? []).map((c) => ({
      scheme: c.scheme,
      reference: c.reference ?? null,
      validUntil: c.validUntil ?? null,
    })),
    notes: input.notes ?? null,
    metadata: input.metadata ?? {},
    createdAt: ids.now,
    updatedAt: ids.now,
  };
}

/** `current` with the fields `update` gives (a `null` clears an optional one). */
export function applyVendorUpdate(current: VendorRecord, update: VendorUpdate, now: string): VendorRecord {
  const merged: VendorCreate = {
    name: update.name ?? current.name,
    category: update.category ?? current.category,
    contact: update.contact === undefined ? current.contact : update.contact,
    location: update.location === undefined ? current.location : update.location,
    certifications: update.certifications === undefined ? current.certifications : update.certifications,
    notes: update.notes === undefined ? current.notes : update.notes,
    metadata: update.metadata === undefined ? current.metadata : update.metadata,
  };
  return {
    ...newVendorRecord(merged, { id: current.id, accountId: current.accountId, now }),
    createdAt: current.createdAt,
  };
}

function contactOf(contact: VendorCreate["contact"]): VendorContact | null {
  if (!contact) return null;
  const stored = { name: contact.name ?? null, email: contact.email ?? null, phone: contact.phone ?? null };
  return stored.name === null && stored.email === null && stored.phone === null ? null : stored;
}

function locationOf(location: VendorCreate["location"]): VendorLocation | null {
  if (!location) return null;
  return {
    address: location.address ?? null,
    city: location.city,
    state: location.state ?? null,
    country: location.country,
    zipCode: location.zipCode ?? null,
    coordinates: location.coordinates ?? null,
  };
}

/** A booking's status (`rules/booking-status.ts` says which changes are allowed). */
export const BOOKING_STATUSES = ["requested", "confirmed", "declined", "cancelled"] as const;
export type BookingStatus = (typeof BOOKING_STATUSES)[number];

/** Activity kinds a booking asks its vendor for: each once, in the order given. */
const DataRequested = z
  .array(z.enum(ACTIVITY_KINDS))
  .max(ACTIVITY_KINDS.length)
  .transform((kinds) => [...new Set(kinds)])
  .meta({ description: "The activity kinds the vendor is asked to report through its link; may be empty." });

/** Body of `POST /events/:id/vendors`. */
export const BookingCreateInput = z.strictObject({
  vendorId: z.string().min(1).max(100),
  services: text(2000).meta({ description: "What the vendor is booked for, in words." }),
  dataRequested: DataRequested.optional(),
});
export type BookingCreateInput = z.input<typeof BookingCreateInput>;
export type BookingCreate = z.output<typeof BookingCreateInput>;

/** Body of `PUT /events/:id/vendors/:bookingId`: a partial update; `status` follows the booking's rules. */
export const BookingUpdateInput = z.strictObject({
  services: BookingCreateInput.shape.services.optional(),
  dataRequested: DataRequested.optional(),
  status: z.enum(BOOKING_STATUSES).optional(),
});
export type BookingUpdateInput = z.input<typeof BookingUpdateInput>;
export type BookingUpdate = z.output<typeof BookingUpdateInput>;

/** A booking as the API answers it. */
export const Booking = z.object({
  id: z.string(),
  eventId: z.string(),
  vendorId: z.string(),
  status: z.enum(BOOKING_STATUSES),
  services: z.string(),
  dataRequested: z.array(z.enum(ACTIVITY_KINDS)),
  respondedAt: Timestamp.nullable().meta({ description: "When the booking was confirmed or declined; null before." }),
  message: z.string().nullable().meta({ description: "The vendor's message with its answer, if any." }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Booking = z.infer<typeof Booking>;

/** The answer of a booking's creation and of its link's rotation: the only ones that show the link. */
export const BookingWithLink = Booking.extend({
  vendorLink: z.url().nullable().meta({
    description:
      "The vendor's own link (no API key needed): shown in this answer only and stored nowhere but as a hash, so a replay of it (Idempotency-Key) shows null; rotate-link gives a new one.",
  }),
});
export type BookingWithLink = z.infer<typeof BookingWithLink>;

/** A booking as stored: its account, and the hash of its link's token. */
export interface BookingRecord extends Booking {
  accountId: string;
  linkHash: string;
}

/** The API form of a stored booking. */
export function toApiBooking(record: BookingRecord): Booking {
  const { accountId: _accountId, linkHash: _linkHash, ...booking } = record;
  return booking;
}

/** Query of `GET /events/:id/vendors`. */
export const BookingListQuery = z
  .strictObject({ ...pagingParams, status: z.enum(BOOKING_STATUSES).optional() })
  .transform(resolvePaging);
export type BookingListQuery = z.output<typeof BookingListQuery>;

/** Body of a vendor's `POST /vendor-requests/:token/confirm` and `.../decline`: optional. */
export const VendorAnswerInput = z.strictObject({ message: plainText(1000).nullish() });
export type VendorAnswerInput = z.input<typeof VendorAnswerInput>;

/** What a vendor's link shows: the booking, the vendor's name and the event's when and where; nothing else of the account. */
export const VendorRequest = z.object({
  id: z.string().meta({ description: "The booking's id." }),
  status: z.enum(BOOKING_STATUSES),
  services: z.string(),
  dataRequested: z.array(z.enum(ACTIVITY_KINDS)),
  vendor: z.object({ name: z.string() }),
  event: z.object({
    name: z.string(),
    startDate: Timestamp,
    endDate: Timestamp,
    timeZone: z.string().nullable().meta({
      description: "The event's IANA time zone (`Europe/Berlin`), for showing its times; null when it has none.",
    }),
    location: z.object({ city: z.string(), country: z.string() }),
  }),
  dataAcceptedUntil: Timestamp.meta({
    description: "The link takes activity records until then: 30 days after the event ends.",
  }),
});
export type VendorRequest = z.infer<typeof VendorRequest>;

/** The one answer to a vendor link that leads nowhere, whatever the reason. */
export function linkNotFound(): ServiceError {
  return new ServiceError("NOT_FOUND", { message: "No open vendor request at this link." });
}

/** The vendor's link of a booking: where its token is served, under the versioned base. */
export function vendorLinkOf(baseUrl: string, token: string): string {
  return `${baseUrl}/v1/vendor-requests/${token}`;
}
