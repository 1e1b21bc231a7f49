/**
 * Vendors and their bookings on SQL: the reads (`VendorStore`) and the operations of a write
 * transaction (`tx.vendors`, `tx.bookings`). Queries only; which booking may change how is
 * `rules/booking-status.ts`'s, and the business transactions of `service/` decide.
 */
import { type Kysely, type Selectable, sql } from "kysely";
import type { ActivityKind } from "../carbon/activity-kinds.ts";
import type {
  BookingRecord,
  BookingStatus,
  Certification,
  VendorCategory,
  VendorContact,
  VendorLocation,
  VendorRecord,
} from "../resources/vendor.ts";
import { type ConfirmedVendor, SOURCING_BOOKING_STATUS } from "../rules/local-sourcing.ts";
import type { BookingWrites, VendorStore, VendorWrites } from "../storage/vendor-store.ts";
import { rowToActivity } from "./activity-sql.ts";
import type { Database, VendorBookingsTable, VendorsTable } from "./database.ts";
import type { SqlDialect, UniqueIndex } from "./dialect.ts";
import { likePattern, readPage, type SqlContext } from "./sql-context.ts";

/**
 * A violation of this partial unique index is the backstop of the duplicate-booking check made
 * under the event's lock: `transaction` reports it as a StorageConflict (`active-booking`).
 */
export const ACTIVE_BOOKING_INDEX: UniqueIndex = {
  name: "vendor_bookings_active",
  table: "vendor_bookings",
  columns: ["event_id", "vendor_id"],
};

function vendorToRow(vendor: VendorRecord): VendorsTable {
  return {
    id: vendor.id,
    account_id: vendor.accountId,
    name: vendor.name,
    search_key: vendor.name.toLowerCase(),
    category: vendor.category,
    contact: vendor.contact === null ? null : JSON.stringify(vendor.contact),
    location: vendor.location === null ? null : JSON.stringify(vendor.location),
    certifications: JSON.stringify(vendor.certifications),
    notes: vendor.notes,
    metadata: JSON.stringify(vendor.metadata),
    created_at: vendor.createdAt,
    updated_at: vendor.updatedAt,
  };
}

function rowToVendor(row: Selectable<VendorsTable>): VendorRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    category: row.category as VendorCategory,
    contact: row.contact === null ? null : (JSON.parse(row.contact) as VendorContact),
    location: row.location === null ? null : (JSON.parse(row.location) as VendorLocation),
    certifications: JSON.parse(row.certifications) as Certification[],
    notes: row.notes,
    metadata: JSON.parse(row.metadata) as VendorRecord["metadata"],
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function bookingToRow(booking: BookingRecord): VendorBookingsTable {
  return {
    id: booking.id,
    account_id: booking.accountId,
    event_id: booking.eventId,
    vendor_id: booking.vendorId,
    status: booking.status,
    services: booking.services,
    data_requested: JSON.stringify(booking.dataRequested),
    responded_at: booking.respondedAt,
    message: booking.message,
    created_at: booking.createdAt,
    updated_at: booking.updatedAt,
  };
}

function rowToBooking(row: Selectable<VendorBookingsTable>): BookingRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    eventId: row.event_id,
    vendorId: row.vendor_id,
    status: row.status as BookingStatus,
    services: row.services,
    dataRequested: JSON.parse(row.data_requested) as ActivityKind[],
    respondedAt: row.responded_at,
    message: row.message,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

async function readBooking(conn: Kysely<Database>, accountId: string, eventId: string, id: string) {
  const row = await conn
    .selectFrom("vendor_bookings")
    .selectAll()
    .where("id", "=", id)
    .where("account_id", "=", accountId)
    .where("event_id", "=", eventId)
    .executeTakeFirst();
  return row ? rowToBooking(row) : null;
}

async function readBookingByLink(conn: Kysely<Database>, linkHash: string) {
  const row = await conn
    .selectFrom("vendor_booking_links as l")
    .innerJoin("vendor_bookings", "vendor_bookings.id", "l.booking_id")
    .selectAll("vendor_bookings")
    .where("l.link_hash", "=", linkHash)
    .executeTakeFirst();
  return row ? rowToBooking(row) : null;
}

/** The select of the account's vendor. */
const vendorQuery = (conn: Kysely<Database>, accountId: string, id: string) =>
  conn.selectFrom("vendors").selectAll().where("id", "=", id).where("account_id", "=", accountId);

/** Reads of vendors and bookings (`VendorStore`) on SQL. */
export function createVendorStore(ctx: SqlContext): VendorStore {
  const { db } = ctx;
  return {
    async getVendor(accountId, id) {
      const row = await vendorQuery(db, accountId, id).executeTakeFirst();
      return row ? rowToVendor(row) : null;
    },
    async listVendors(accountId, query) {
      let base = db.selectFrom("vendors").where("account_id", "=", accountId);
      if (query.category) base = base.where("category", "=", query.category);
      if (query.search) base = base.where(sql`search_key`, "like", likePattern(query.search));
      const page = await readPage(base, query, (q) =>
        q.selectAll().orderBy("created_at", "desc").orderBy("id", "desc"),
      );
      return { items: page.items.map(rowToVendor), total: page.total };
    },
    getBooking: (accountId, eventId, id) => readBooking(db, accountId, eventId, id),
    async listBookings(accountId, eventId, query) {
      let base = db.selectFrom("vendor_bookings").where("event_id", "=", eventId).where("account_id", "=", accountId);
      if (query.status) base = base.where("status", "=", query.status);
      const page = await readPage(base, query, (q) => q.selectAll().orderBy("created_at").orderBy("id"));
      return { items: page.items.map(rowToBooking), total: page.total };
    },
    findBookingByLink: (linkHash) => readBookingByLink(db, linkHash),
    async addBookingLink({ bookingId, linkHash, at, statuses }) {
      const added = await db
        .insertInto("vendor_booking_links")
        .columns(["link_hash", "booking_id", "created_at"])
        .expression((eb) =>
          eb
            .selectFrom("vendor_bookings")
            .select([sql.val(linkHash).as("link_hash"), "id", sql.val(at).as("created_at")])
            .where("id", "=", bookingId)
            .where("status", "in", statuses),
        )
        .returning("link_hash")
        .execute();
      return added.length > 0;
    },
    async listBookingActivities(bookingId, query) {
      const base = db.selectFrom("activities").where("booking_id", "=", bookingId);
      const page = await readPage(base, query, (q) => q.selectAll().orderBy("created_at").orderBy("id"));
      return { items: page.items.map(rowToActivity), total: page.total };
    },
  };
}

/** The vendor operations of `storage.transaction` (`tx.vendors`) on SQL, bound to one transaction's connection. */
export function createVendorWrites(trx: Kysely<Database>, dialect: SqlDialect): VendorWrites {
  return {
    async insert(vendor) {
      await trx.insertInto("vendors").values(vendorToRow(vendor)).execute();
    },
    async lock(accountId, id) {
      const row = await dialect.lockRows(vendorQuery(trx, accountId, id)).executeTakeFirst();
      return row ? rowToVendor(row) : null;
    },
    async get(accountId, id) {
      const row = await vendorQuery(trx, accountId, id).executeTakeFirst();
      return row ? rowToVendor(row) : null;
    },
    async update(vendor) {
      const { id, account_id: accountId, created_at: _created, ...changes } = vendorToRow(vendor);
      await trx.updateTable("vendors").set(changes).where("id", "=", id).where("account_id", "=", accountId).execute();
    },
    async delete(id) {
      await trx.deleteFrom("vendors").where("id", "=", id).execute();
    },
    async hasBooking(vendorId, statuses) {
      const row = await trx
        .selectFrom("vendor_bookings")
        .select("id")
        .where("vendor_id", "=", vendorId)
        .where("status", "in", statuses)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}

/** The booking operations of `storage.transaction` (`tx.bookings`) on SQL, bound to one transaction's connection. */
export function createBookingWrites(trx: Kysely<Database>): BookingWrites {
  return {
    async insert(booking, linkHash) {
      await trx.insertInto("vendor_bookings").values(bookingToRow(booking)).execute();
      await trx
        .insertInto("vendor_booking_links")
        .values({ link_hash: linkHash, booking_id: booking.id, created_at: booking.createdAt })
        .execute();
    },
    async replaceLinks(bookingId, linkHash, at) {
      await trx.deleteFrom("vendor_booking_links").where("booking_id", "=", bookingId).execute();
      await trx
        .insertInto("vendor_booking_links")
        .values({ link_hash: linkHash, booking_id: bookingId, created_at: at })
        .execute();
    },
    get: (accountId, eventId, id) => readBooking(trx, accountId, eventId, id),
    getByLink: (linkHash) => readBookingByLink(trx, linkHash),
    async findByVendor(eventId, vendorId, statuses) {
      const row = await trx
        .selectFrom("vendor_bookings")
        .select("id")
        .where("event_id", "=", eventId)
        .where("vendor_id", "=", vendorId)
        .where("status", "in", statuses)
        .executeTakeFirst();
      return row?.id ?? null;
    },
    async listByStatus(eventId, statuses) {
      const rows = await trx
        .selectFrom("vendor_bookings")
        .selectAll()
        .where("event_id", "=", eventId)
        .where("status", "in", statuses)
        .orderBy("created_at")
        .orderBy("id")
        .execute();
      return rows.map(rowToBooking);
    },
    async update(booking) {
      const {
        id,
        account_id: _account,
        event_id: _event,
        vendor_id: _vendor,
        created_at: _created,
        ...changes
      } = bookingToRow(booking);
      await trx.updateTable("vendor_bookings").set(changes).where("id", "=", id).execute();
    },
    confirmedVendors: (eventId) => confirmedVendors(trx, eventId),
  };
}

/** The confirmed vendors of the event, read on `conn`: the location and certifications local sourcing is judged on. */
export async function confirmedVendors(conn: Kysely<Database>, eventId: string): Promise<ConfirmedVendor[]> {
  const rows = await conn
    .selectFrom("vendor_bookings as b")
    .innerJoin("vendors as v", "v.id", "b.vendor_id")
    .select(["v.location", "v.certifications"])
    .where("b.event_id", "=", eventId)
    .where("b.status", "=", SOURCING_BOOKING_STATUS)
    .execute();
  return rows.map((row) => ({
    coordinates: row.location === null ? null : ((JSON.parse(row.location) as VendorLocation).coordinates ?? null),
    certifications: JSON.parse(row.certifications) as Certification[],
  }));
}
