import type { PricedActivity } from "../resources/priced-activity.ts";
import type {
  BookingListQuery,
  BookingRecord,
  BookingStatus,
  VendorListQuery,
  VendorRecord,
} from "../resources/vendor.ts";
import type { ConfirmedVendor } from "../rules/local-sourcing.ts";
import type { Page } from "./common.ts";

/**
 * Reads of vendors and their bookings, outside a transaction. Both are written in transactions
 * (`tx.vendors`, `tx.bookings`) by the business transactions of `service/`: a booking under its
 * event's lock, a vendor under its own row's.
 */
export interface VendorStore {
  /** The account's vendor, or `null`. */
  getVendor(accountId: string, id: string): Promise<VendorRecord | null>;
  /** One page of the account's vendors, newest first, filtered by `category` and `search` (part of the lower-cased name). */
  listVendors(accountId: string, query: VendorListQuery): Promise<Page<VendorRecord>>;
  /** The account's booking of the event, or `null`. */
  getBooking(accountId: string, eventId: string, id: string): Promise<BookingRecord | null>;
  /** One page of the account's bookings of the event, oldest first, filtered by `status`. */
  listBookings(accountId: string, eventId: string, query: BookingListQuery): Promise<Page<BookingRecord>>;
  /** The booking of which `linkHash` is a live link's hash, whatever its account, or `null`. */
  findBookingByLink(linkHash: string): Promise<BookingRecord | null>;
  /**
   * Adds a live link (its token's hash) to the booking while it is in one of `statuses`, beside
   * those it has: `false`, adding nothing, when it is not (or is gone). One guarded insert, so a
   * cancellation that commits first is never given a link after it.
   */
  addBookingLink(link: {
    bookingId: string;
    linkHash: string;
    at: string;
    statuses: readonly BookingStatus[];
  }): Promise<boolean>;
  /** One page of the activity records made through the booking's link, oldest first. */
  listBookingActivities(bookingId: string, query: { page: number; limit: number }): Promise<Page<PricedActivity>>;
}

/** Vendors in a write transaction. */
export interface VendorWrites {
  /** Inserts a new vendor. */
  insert(vendor: VendorRecord): Promise<void>;
  /**
   * Locks the account's vendor until the transaction ends and reads it; `null` (no lock taken)
   * when the account has none. A booking's creation locks it too, so a deletion that found no
   * active booking stays right until it commits.
   */
  lock(accountId: string, id: string): Promise<VendorRecord | null>;
  /** The account's vendor as of this point of the transaction, or `null`. Takes no lock. */
  get(accountId: string, id: string): Promise<VendorRecord | null>;
  /** Writes every field of `vendor` (found by its id and account) but its id, account and creation time. */
  update(vendor: VendorRecord): Promise<void>;
  /** Deletes the vendor's row (its bookings and activity records keep its id). */
  delete(id: string): Promise<void>;
  /** Whether the vendor has a booking in one of `statuses`. Exact under {@link lock}. */
  hasBooking(vendorId: string, statuses: readonly BookingStatus[]): Promise<boolean>;
}

/** Bookings in a write transaction. Call them under their event's lock (`events.lock`). */
export interface BookingWrites {
  /**
   * Inserts a new booking with its first live link (`linkHash`, its token's hash). Throws
   * {@link StorageConflict} (`active-booking`) when the vendor has an active one for the event.
   */
  insert(booking: BookingRecord, linkHash: string): Promise<void>;
  /** Replaces every live link of the booking by the one of `linkHash` (a rotation): the others stop working at commit. */
  replaceLinks(bookingId: string, linkHash: string, at: string): Promise<void>;
  /** The account's booking of the event as of this point of the transaction, or `null`. */
  get(accountId: string, eventId: string, id: string): Promise<BookingRecord | null>;
  /** The booking of which `linkHash` is a live link's hash, as of this point of the transaction, or `null`. */
  getByLink(linkHash: string): Promise<BookingRecord | null>;
  /** The id of the event's booking of the vendor in one of `statuses`, or `null`. */
  findByVendor(eventId: string, vendorId: string, statuses: readonly BookingStatus[]): Promise<string | null>;
  /** The event's bookings in one of `statuses`, oldest first. */
  listByStatus(eventId: string, statuses: readonly BookingStatus[]): Promise<BookingRecord[]>;
  /** Writes every field of `booking` (found by its id) but its id, account, event, vendor and creation time. */
  update(booking: BookingRecord): Promise<void>;
  /** The confirmed vendors of the event with their locations and certifications (a deleted vendor's bookings are not). */
  confirmedVendors(eventId: string): Promise<ConfirmedVendor[]>;
}
