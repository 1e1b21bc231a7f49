import type * as z from "zod";
import { createId } from "../_internal/ids.ts";
import { paginate } from "../resources/common.ts";
import {
  applyVendorUpdate,
  type BookingCreateInput,
  type BookingListQuery,
  type BookingRecord,
  type BookingUpdateInput,
  type BookingWithLink,
  newVendorRecord,
  toApiBooking,
  toApiVendor,
  type VendorCreateInput,
  type VendorListQuery,
  type VendorUpdateInput,
  vendorLinkOf,
} from "../resources/vendor.ts";
import { linkHashOf, newLinkToken } from "../resources/link-token.ts";
import type { EventStore } from "../storage/event-store.ts";
import type { VendorStore } from "../storage/vendor-store.ts";
import { deleteVendor, insertBooking, rotateBookingLink, updateBooking } from "./booking-changes.ts";
import type { OperationContext } from "./operation-context.ts";
import { notFound } from "./not-found.ts";
import type { TransactionStore } from "../storage/transaction.ts";

/** The vendor and booking operations of one account. */
export function createVendorOperations(
  storage: VendorStore & Pick<EventStore, "getEvent"> & TransactionStore,
  context: OperationContext,
) {
  const { accountId, clock, queued, baseUrl } = context;
  const withLink = (booking: BookingRecord, token: string): BookingWithLink => ({
    ...toApiBooking(booking),
    vendorLink: vendorLinkOf(baseUrl, token),
  });

  const vendors = {
    async create(parsed: z.output<typeof VendorCreateInput>) {
      const vendor = newVendorRecord(parsed, { id: createId("vendor"), accountId, now: clock().toISOString() });
      await storage.transaction((tx) => tx.vendors.insert(vendor));
      return toApiVendor(vendor);
    },
    async list(parsed: z.output<typeof VendorListQuery>) {
      const page = await storage.listVendors(accountId, parsed);
      return { vendors: page.items.map(toApiVendor), pagination: paginate(parsed.page, parsed.limit, page.total) };
    },
    async get(id: string) {
      const vendor = await storage.getVendor(accountId, id);
      if (!vendor) throw notFound("Vendor", id);
      return toApiVendor(vendor);
    },
    async update(id: string, parsed: z.output<typeof VendorUpdateInput>) {
      const vendor = await storage.transaction(async (tx) => {
        const current = await tx.vendors.lock(accountId, id);
        if (!current) throw notFound("Vendor", id);
        const next = applyVendorUpdate(current, parsed, clock().toISOString());
        await tx.vendors.update(next);
        return next;
      });
      return toApiVendor(vendor);
    },
    async delete(id: string) {
      await deleteVendor(context, { accountId, id, now: clock().toISOString() });
      return { success: true as const, message: `Vendor ${id} was deleted.`, deletedId: id };
    },
  };

  const bookings = {
    async create(eventId: string, parsed: z.output<typeof BookingCreateInput>) {
      const token = newLinkToken("vendor");
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
    async list(eventId: string, parsed: z.output<typeof BookingListQuery>) {
      const page = await storage.listBookings(accountId, eventId, parsed);
      // An empty page may be an event of another account: that is a 404, as for its other sub-resources.
      if (page.total === 0 && !(await storage.getEvent(accountId, eventId, context.carbon)))
        throw notFound("Event", eventId);
      return { bookings: page.items.map(toApiBooking), pagination: paginate(parsed.page, parsed.limit, page.total) };
    },
    async get(eventId: string, id: string) {
      const booking = await storage.getBooking(accountId, eventId, id);
      if (!booking) throw notFound("Booking", id);
      return toApiBooking(booking);
    },
    async update(eventId: string, id: string, parsed: z.output<typeof BookingUpdateInput>) {
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
    async rotateLink(eventId: string, id: string) {
      const token = newLinkToken("vendor");
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
