import { createId } from "../_internal/ids.ts";
import { parseInput } from "../_internal/parse-input.ts";
import { type DeleteResult, paginate } from "../resources/common.ts";
import {
  applyVendorUpdate,
  type Booking,
  BookingCreateInput,
  BookingListQuery,
  type BookingRecord,
  BookingUpdateInput,
  type BookingWithLink,
  linkHashOf,
  newLinkToken,
  newVendorRecord,
  toApiBooking,
  toApiVendor,
  type Vendor,
  VendorCreateInput,
  VendorListQuery,
  VendorUpdateInput,
  vendorLinkOf,
} from "../resources/vendor.ts";
import type { EventStore } from "../storage/event-store.ts";
import type { VendorStore } from "../storage/vendor-store.ts";
import { deleteVendor, insertBooking, rotateBookingLink, updateBooking } from "./booking-changes.ts";
import type { ListResult, OperationContext } from "./operation-context.ts";
import { notFound } from "./not-found.ts";
import type { TransactionStore } from "../storage/transaction.ts";

/** Operations on one account's vendors (docs/api.md, Vendors). */
export interface VendorOperations {
  /** Throws `INVALID_REQUEST` (naming the field). */
  create(input: VendorCreateInput): Promise<Vendor>;
  /** One page of the account's vendors, newest first, by `category` and `search` (part of the name). Throws `INVALID_REQUEST`. */
  list(query?: Record<string, unknown>): Promise<ListResult<"vendors", Vendor>>;
  /** Throws `NOT_FOUND`. */
  get(id: string): Promise<Vendor>;
  /** Partial update (a given `contact` or `location` replaces the stored one whole). Throws `INVALID_REQUEST`, `NOT_FOUND`. */
  update(id: string, input: VendorUpdateInput): Promise<Vendor>;
  /**
   * Deletes the vendor and its contact data, stored Idempotency-Key answers included; its past
   * bookings and activity records keep its id. Throws `NOT_FOUND`, `VENDOR_IN_USE` (a booking of
   * it is requested or confirmed).
   */
  delete(id: string): Promise<DeleteResult>;
}

/** Operations on the vendor bookings of one account's events. */
export interface BookingOperations {
  /**
   * Books the account's vendor for the event, `requested`; the answer is one of the two that show
   * the vendor's link. Throws `INVALID_REQUEST`, `NOT_FOUND` (event; vendor, field `vendorId`),
   * `DUPLICATE_BOOKING`.
   */
  create(eventId: string, input: BookingCreateInput): Promise<BookingWithLink>;
  /** One page of the event's bookings, oldest first, by `status`. Throws `INVALID_REQUEST`, `NOT_FOUND` (event). */
  list(eventId: string, query?: Record<string, unknown>): Promise<ListResult<"bookings", Booking>>;
  /** Throws `NOT_FOUND`. */
  get(eventId: string, id: string): Promise<Booking>;
  /** Partial update of `services`, `dataRequested`, `status`. Throws `INVALID_REQUEST`, `NOT_FOUND`, `INVALID_STATE_TRANSITION`. */
  update(eventId: string, id: string, input: BookingUpdateInput): Promise<Booking>;
  /** A new link for the booking; the old one answers `404` from now on. Throws `NOT_FOUND`, `INVALID_STATE_TRANSITION` (cancelled). */
  rotateLink(eventId: string, id: string): Promise<BookingWithLink>;
}

/** The vendor and booking operations of one account. */
export function createVendorOperations(
  storage: VendorStore & Pick<EventStore, "getEvent"> & TransactionStore,
  context: OperationContext,
): { vendors: VendorOperations; bookings: BookingOperations } {
  const { accountId, clock, queued, baseUrl } = context;
  const withLink = (booking: BookingRecord, token: string): BookingWithLink => ({
    ...toApiBooking(booking),
    vendorLink: vendorLinkOf(baseUrl, token),
  });

  const vendors: VendorOperations = {
    async create(input) {
      const parsed = parseInput(VendorCreateInput, input);
      const vendor = newVendorRecord(parsed, { id: createId("vendor"), accountId, now: clock().toISOString() });
      await storage.transaction((tx) => tx.vendors.insert(vendor));
      return toApiVendor(vendor);
    },
    async list(query = {}) {
      const parsed = parseInput(VendorListQuery, query, "query");
      const page = await storage.listVendors(accountId, parsed);
      return { vendors: page.items.map(toApiVendor), pagination: paginate(parsed.page, parsed.limit, page.total) };
    },
    async get(id) {
      const vendor = await storage.getVendor(accountId, id);
      if (!vendor) throw notFound("Vendor", id);
      return toApiVendor(vendor);
    },
    async update(id, input) {
      const parsed = parseInput(VendorUpdateInput, input);
      const vendor = await storage.transaction(async (tx) => {
        const current = await tx.vendors.lock(accountId, id);
        if (!current) throw notFound("Vendor", id);
        const next = applyVendorUpdate(current, parsed, clock().toISOString());
        await tx.vendors.update(next);
        return next;
      });
      return toApiVendor(vendor);
    },
    async delete(id) {
      await deleteVendor(context, { accountId, id, now: clock().toISOString() });
      return { success: true, message: `Vendor ${id} was deleted.`, deletedId: id };
    },
  };

  const bookings: BookingOperations = {
    async create(eventId, input) {
      const parsed = parseInput(BookingCreateInput, input);
      const token = newLinkToken();
      const booking = await insertBooking(context, {
        accountId,
        eventId,
        booking: parsed,
        id: createId("booking"),
        now: clock().toISOString(),
        linkHash: linkHashOf(token),
      });
      queued();
      return withLink(booking, token);
    },
    async list(eventId, query = {}) {
      const parsed = parseInput(BookingListQuery, query, "query");
      const page = await storage.listBookings(accountId, eventId, parsed);
      // An empty page may be an event of another account: that is a 404, as for its other sub-resources.
      if (page.total === 0 && !(await storage.getEvent(accountId, eventId, context.carbon)))
        throw notFound("Event", eventId);
      return { bookings: page.items.map(toApiBooking), pagination: paginate(parsed.page, parsed.limit, page.total) };
    },
    async get(eventId, id) {
      const booking = await storage.getBooking(accountId, eventId, id);
      if (!booking) throw notFound("Booking", id);
      return toApiBooking(booking);
    },
    async update(eventId, id, input) {
      const parsed = parseInput(BookingUpdateInput, input);
      const booking = await updateBooking(context, {
        accountId,
        eventId,
        id,
        patch: parsed,
        now: clock().toISOString(),
      });
      queued();
      return toApiBooking(booking);
    },
    async rotateLink(eventId, id) {
      const token = newLinkToken();
      const booking = await rotateBookingLink(context, {
        accountId,
        eventId,
        id,
        linkHash: linkHashOf(token),
        now: clock().toISOString(),
      });
      return withLink(booking, token);
    },
  };

  return { vendors, bookings };
}
