/**
 * The storage's unit of work on SQL (`TransactionStore`): `transaction(fn)` runs `fn` in the
 * dialect's write transaction with the small operations of `StorageTransaction` bound to it.
 * Queries only: which of them run, in what order and what their results mean is the business
 * transactions' (`service/`). The statements of a registration, the busiest write, are compiled once.
 * The operations of the webhook side (`deliveries`, `webhooks`) are made in their concerns'
 * modules (`delivery-sql.ts`, `webhook-sql.ts`) and bound here.
 */
import { type Compilable, type Expression, type Kysely, sql } from "kysely";
import type { EventAnalyticsFigures } from "../analytics/analytics-figures.ts";
import { ACTIVITY_FIGURE_COLUMNS, activityFiguresSql, KEPT_FIGURE_COLUMNS } from "./carbon-sql.ts";
import type { ActivityFigures } from "../resources/activity-figures.ts";
import type { KeptFigures } from "../rules/kept-figures.ts";
import type { AttendeeRecord } from "../resources/attendee.ts";
import type { Envelope } from "../storage/envelope.ts";
import {
  type AttendeeWrites,
  type ErasureWrites,
  type EventWrites,
  type FigureWrites,
  type OutboxWrites,
  StorageConflict,
  type StorageTransaction,
  type TransactionStore,
  type WaitlistWrites,
} from "../storage/transaction.ts";
import type { AttendeesTable, Database, WebhookDeliveriesTable } from "./database.ts";
import { createActivityWrites } from "./activity-sql.ts";
import { createPaymentWrites } from "./payment-sql.ts";
import { createTallyWrites } from "./tally-sql.ts";
import { readAttendee } from "./attendee-sql.ts";
import { createDeliveryWrites } from "./delivery-sql.ts";
import type { UniqueIndex } from "./dialect.ts";
import { redactDeliveries, replaceStoredAnswers } from "./erasure-sql.ts";
import { pendingDeliveryRow, type DeliveryColumn, DELIVERY_COLUMNS } from "./outbox-sql.ts";
import { type Param, type Precompiled, params, precompile } from "./precompiled.ts";
import { RELEASED_ATTENDEE_STATUS } from "../rules/attendee-status.ts";
import {
  ATTENDEE_COLUMNS,
  attendeeToRow,
  eventToRow,
  paymentToRow,
  rowToActivityFigures,
  rowToAttendee,
  rowToEvent,
  rowToKeptFigures,
} from "./rows.ts";
import { createEmailWrites } from "./email-sql.ts";
import { repriceEvents } from "./factor-set-sql.ts";
import type { SqlContext } from "./sql-context.ts";
import { createThresholdWrites } from "./threshold-sql.ts";
import { ACTIVE_BOOKING_INDEX, createBookingWrites, createVendorWrites } from "./vendor-sql.ts";
import { createTicketLinkWrites, deleteTicketLinks } from "./ticket-link-sql.ts";
import { createWebhookWrites, WEBHOOK_URL_INDEX } from "./webhook-sql.ts";

/** Registrations one `setStatuses` statement changes, and emails or codes one lookup of many takes. */
const STATUS_BATCH = 500;
/**
 * Registrations one multi-row insert writes: each takes one parameter per column (some 40), well
 * within both databases' bound on a statement's parameters (SQLite's 32,766; PostgreSQL's 65,535).
 */
const INSERT_BATCH = 100;
/** From this many deliveries on, `outbox.append` writes them in multi-row statements of {@link DELIVERY_BATCH} rows. */
const MANY_DELIVERIES = 8;
const DELIVERY_BATCH = 100;

/*
 * A violation of this unique index is the backstop of the duplicate check (a race the event's
 * lock did not cover): `transaction` reports it as a StorageConflict, which the service answers
 * with DUPLICATE_REGISTRATION instead of a 500 (as it answers one of WEBHOOK_URL_INDEX with
 * DUPLICATE_WEBHOOK).
 */
const ACTIVE_EMAIL_INDEX: UniqueIndex = {
  name: "attendees_event_email_active",
  table: "attendees",
  columns: ["event_id", "email_key"],
};

type KeptFigureColumn = (typeof KEPT_FIGURE_COLUMNS)[number];

/** The unit of work of the SQL storage over `ctx`, with `eventAnalytics` reading a report's figures inside a transaction. */
export function createTransactionStore(
  ctx: SqlContext,
  eventAnalytics: (conn: Kysely<Database>, accountId: string, eventId: string) => Promise<EventAnalyticsFigures | null>,
): TransactionStore {
  const { db, dialect } = ctx;
  const deliveries = createDeliveryWrites(db, dialect);
  const webhooks = createWebhookWrites(db, dialect);
  const thresholds = createThresholdWrites(dialect);
  const tallies = createTallyWrites(db);
  const ticketLinks = createTicketLinkWrites(db);

  const lockQuery = precompile(db, (conn, param: Param<{ id: string; account: string }>) =>
    dialect.lockRows(
      conn.selectFrom("events").selectAll().where("id", "=", param("id")).where("account_id", "=", param("account")),
    ),
  );
  const duplicateQuery = precompile(db, (conn, param: Param<{ event: string; email: string; id: string }>) =>
    conn
      .selectFrom("attendees")
      .select("id")
      .where("event_id", "=", param("event"))
      .where("email_key", "=", param("email"))
      // Not released, written as a literal as in the partial unique index
      // attendees_event_email_active, so the planner uses it instead of reading every
      // registration of the event.
      .where("status", "<>", sql.lit(RELEASED_ATTENDEE_STATUS))
      .where("id", "<>", param("id")),
  );
  const codeQuery = precompile(db, (conn, param: Param<{ code: string }>) =>
    conn.selectFrom("attendees").select("id").where("confirmation_code", "=", param("code")),
  );
  const insertAttendeeQuery = precompile(db, (conn, param: Param<AttendeesTable>) =>
    conn.insertInto("attendees").values(params(param, ATTENDEE_COLUMNS)),
  );
  // The statements of many (a group of registrations), compiled once for each number of rows or keys.
  const manyQueries = new Map<string, Precompiled<Record<string, unknown>, unknown>>();
  const compiledFor = <R>(
    kind: string,
    count: number,
    build: (conn: Kysely<Database>, param: Param<Record<string, unknown>>) => Compilable<R>,
  ): Precompiled<Record<string, unknown>, R> => {
    const key = `${kind} ${count}`;
    let query = manyQueries.get(key);
    if (!query) manyQueries.set(key, (query = precompile(db, build)));
    return query as Precompiled<Record<string, unknown>, R>;
  };
  /** `values` as the parameters `${name}_${i}` of a statement compiled for their number. */
  const numbered = (name: string, values: readonly unknown[], into: Record<string, unknown> = {}) => {
    for (const [i, value] of values.entries()) into[`${name}_${i}`] = value;
    return into;
  };
  const figuresQuery = precompile(db, (conn, param: Param<{ id: string }>) =>
    conn.selectFrom("events").select(KEPT_FIGURE_COLUMNS).where("id", "=", param("id")),
  );
  // One statement per set of columns that change, compiled when first needed: an UPDATE rewrites
  // the index entries of every column it sets, even to the same value (emissions_kg is indexed).
  const adjustQueries = new Map<string, ReturnType<typeof compileAdjust>>();
  const compileAdjust = (columns: readonly KeptFigureColumn[]) =>
    precompile(db, (conn, param: Param<Record<KeptFigureColumn, number> & { id: string }>) =>
      conn
        .updateTable("events")
        .set((eb) => Object.fromEntries(columns.map((column) => [column, eb(column, "+", param(column))])))
        .where("id", "=", param("id")),
    );
  const webhooksQuery = precompile(db, (conn, param: Param<{ account: string }>) =>
    conn
      .selectFrom("webhooks")
      .select(["id", "events"])
      .where("account_id", "=", param("account"))
      .where("active", "=", 1),
  );
  const accountQuery = precompile(db, (conn, param: Param<{ id: string }>) =>
    conn.selectFrom("accounts").select(["id", "name"]).where("id", "=", param("id")),
  );
  const insertDeliveryQuery = precompile(db, (conn, param: Param<Pick<WebhookDeliveriesTable, DeliveryColumn>>) =>
    conn.insertInto("webhook_deliveries").values(params(param, DELIVERY_COLUMNS)),
  );

  const events = (trx: Kysely<Database>): EventWrites => ({
    async lock(accountId, id) {
      const row = (await lockQuery({ id, account: accountId }, trx)).rows[0];
      return row ? rowToEvent(row) : null;
    },
    async lockWithFigures(accountId, id) {
      const row = (await lockQuery({ id, account: accountId }, trx)).rows[0];
      return row ? { event: rowToEvent(row), figures: rowToKeptFigures(row) } : null;
    },
    async insert(event, factorYear) {
      await trx
        .insertInto("events")
        .values({ ...eventToRow(event), factor_year: factorYear })
        .execute();
      if (event.tags.length)
        await trx
          .insertInto("event_tags")
          .values(event.tags.map((tag) => ({ event_id: event.id, tag })))
          .execute();
    },
    async update(event, { replaceTags }) {
      const { id, account_id: _account, created_at: _created, ...changes } = eventToRow(event);
      await trx.updateTable("events").set(changes).where("id", "=", id).execute();
      if (!replaceTags) return;
      await trx.deleteFrom("event_tags").where("event_id", "=", id).execute();
      if (event.tags.length)
        await trx
          .insertInto("event_tags")
          .values(event.tags.map((tag) => ({ event_id: id, tag })))
          .execute();
    },
    async delete(id) {
      // Its activities and tallies too (they name its attendees' companies), whether or not the
      // store enforces the foreign keys' cascade.
      await trx.deleteFrom("activities").where("event_id", "=", id).execute();
      await trx.deleteFrom("event_tallies").where("event_id", "=", id).execute();
      await trx
        .deleteFrom("vendor_booking_links")
        .where("booking_id", "in", (eb) => eb.selectFrom("vendor_bookings").select("id").where("event_id", "=", id))
        .execute();
      await trx.deleteFrom("vendor_bookings").where("event_id", "=", id).execute();
      await trx.deleteFrom("email_outbox").where("event_id", "=", id).execute();
      await trx.deleteFrom("check_in_links").where("event_id", "=", id).execute();
      await trx
        .deleteFrom("ticket_links")
        .where("attendee_id", "in", (eb) => eb.selectFrom("attendees").select("id").where("event_id", "=", id))
        .execute();
      await trx.deleteFrom("attendees").where("event_id", "=", id).execute();
      await trx.deleteFrom("event_tags").where("event_id", "=", id).execute();
      await trx.deleteFrom("events").where("id", "=", id).execute();
    },
  });

  const attendees = (trx: Kysely<Database>): AttendeeWrites => ({
    async eventIdOf(accountId, id) {
      const row = await trx
        .selectFrom("attendees")
        .select("event_id")
        .where("id", "=", id)
        .where("account_id", "=", accountId)
        .executeTakeFirst();
      return row?.event_id ?? null;
    },
    get(accountId, id) {
      return readAttendee(trx, accountId, id);
    },
    async getByCode(eventId, confirmationCode) {
      const row = await trx
        .selectFrom("attendees")
        .selectAll()
        .where("event_id", "=", eventId)
        .where("confirmation_code", "=", confirmationCode)
        .executeTakeFirst();
      return row ? rowToAttendee(row) : null;
    },
    async idsOf(eventId) {
      const rows = await trx.selectFrom("attendees").select("id").where("event_id", "=", eventId).execute();
      return rows.map((row) => row.id);
    },
    async withRefundable(eventId) {
      const rows = await trx
        .selectFrom("attendees")
        .selectAll()
        .where("event_id", "=", eventId)
        .where("payment_paid", ">", (eb) => eb.ref("payment_refunded"))
        .execute();
      return rows.map(rowToAttendee);
    },
    async inStatuses(eventId, statuses) {
      if (statuses.length === 0) return [];
      const rows = await trx
        .selectFrom("attendees")
        .selectAll()
        .where("event_id", "=", eventId)
        .where("status", "in", statuses)
        .orderBy("registration_date")
        .orderBy("id")
        .execute();
      return rows.map(rowToAttendee);
    },
    async ticketHolders(eventId) {
      const rows = await trx
        .selectFrom("attendees")
        .select(["ticket_type", "status", (eb) => eb.fn.countAll<number>().as("registrations")])
        .where("event_id", "=", eventId)
        .where("status", "<>", sql.lit(RELEASED_ATTENDEE_STATUS))
        .groupBy(["ticket_type", "status"])
        .execute();
      return rows.map((row) => ({
        ticketType: row.ticket_type,
        status: row.status as AttendeeRecord["status"],
        registrations: Number(row.registrations),
      }));
    },
    async findActiveDuplicate(eventId, email, exceptId) {
      const row = (await duplicateQuery({ event: eventId, email: email.toLowerCase(), id: exceptId }, trx)).rows[0];
      return row?.id ?? null;
    },
    async activeDuplicates(eventId, emails) {
      const found = new Map<string, string>();
      const keys = [...new Set(emails.map((email) => email.toLowerCase()))];
      if (keys.length === 1) {
        // No registration has an empty id: the prepared statement of one, excepting none.
        const row = (await duplicateQuery({ event: eventId, email: keys[0]!, id: "" }, trx)).rows[0];
        if (row) found.set(keys[0]!, row.id);
        return found;
      }
      for (let start = 0; start < keys.length; start += STATUS_BATCH) {
        const chunk = keys.slice(start, start + STATUS_BATCH);
        const query = compiledFor("duplicates", chunk.length, (conn, param) =>
          conn
            .selectFrom("attendees")
            .select(["id", "email_key"])
            .where("event_id", "=", param("event") as Expression<string>)
            .where(
              "email_key",
              "in",
              chunk.map((_, i) => param(`email_${i}`) as Expression<string>),
            )
            // As in duplicateQuery: the literal lets the planner use the partial unique index.
            .where("status", "<>", sql.lit(RELEASED_ATTENDEE_STATUS)),
        );
        const { rows } = await query(numbered("email", chunk, { event: eventId }), trx);
        for (const row of rows) found.set(row.email_key, row.id);
      }
      return found;
    },
    async codeTaken(confirmationCode) {
      return (await codeQuery({ code: confirmationCode }, trx)).rows.length > 0;
    },
    async codesTaken(confirmationCodes) {
      const codes = [...new Set(confirmationCodes)];
      if (codes.length === 1) return new Set((await codeQuery({ code: codes[0]! }, trx)).rows.length > 0 ? codes : []);
      const taken = new Set<string>();
      for (let start = 0; start < codes.length; start += STATUS_BATCH) {
        const chunk = codes.slice(start, start + STATUS_BATCH);
        const query = compiledFor("codes", chunk.length, (conn, param) =>
          conn
            .selectFrom("attendees")
            .select("confirmation_code")
            .where(
              "confirmation_code",
              "in",
              chunk.map((_, i) => param(`code_${i}`) as Expression<string>),
            ),
        );
        const { rows } = await query(numbered("code", chunk), trx);
        for (const row of rows) taken.add(row.confirmation_code);
      }
      return taken;
    },
    async insert(attendee) {
      // A column left undefined binds as null (better-sqlite3 and pg both), as kysely leaves it out of an insert.
      await insertAttendeeQuery(attendeeToRow(attendee), trx);
    },
    async insertMany(records) {
      if (records.length === 1) {
        await insertAttendeeQuery(attendeeToRow(records[0]!), trx);
        return;
      }
      for (let start = 0; start < records.length; start += INSERT_BATCH) {
        const rows = records.slice(start, start + INSERT_BATCH).map(attendeeToRow);
        const query = compiledFor("insert attendees", rows.length, (conn, param) =>
          conn
            .insertInto("attendees")
            .values(
              rows.map((_, i) => Object.fromEntries(ATTENDEE_COLUMNS.map((c) => [c, param(`${c}_${i}`)]))) as never,
            ),
        );
        const values: Record<string, unknown> = {};
        // A column left undefined binds as null, as in the insert of one.
        for (const [i, row] of rows.entries())
          for (const column of ATTENDEE_COLUMNS) values[`${column}_${i}`] = row[column] ?? null;
        await query(values, trx);
      }
    },
    async update(attendee) {
      const {
        id,
        account_id: _account,
        event_id: _event,
        confirmation_code: _code,
        registration_date: _date,
        ...changes
      } = attendeeToRow(attendee);
      await trx.updateTable("attendees").set(changes).where("id", "=", id).execute();
    },
    async updateStatus(attendee) {
      await trx
        .updateTable("attendees")
        .set({
          status: attendee.status,
          waitlist_position: attendee.waitlistPosition,
          checked_in_at: attendee.checkedInAt,
          cancelled_at: attendee.cancelledAt,
          updated_at: attendee.updatedAt,
          ...paymentToRow(attendee.payment),
        })
        .where("id", "=", attendee.id)
        .execute();
    },
    async setStatuses(ids, change) {
      // In chunks: a statement takes a bounded number of parameters.
      for (let start = 0; start < ids.length; start += STATUS_BATCH)
        await trx
          .updateTable("attendees")
          .set({
            status: change.status,
            waitlist_position: change.waitlistPosition,
            cancelled_at: change.cancelledAt,
            updated_at: change.updatedAt,
          })
          .where("id", "in", ids.slice(start, start + STATUS_BATCH))
          .execute();
    },
    async remove(id) {
      await deleteTicketLinks(trx, id);
      await trx.deleteFrom("attendees").where("id", "=", id).execute();
    },
  });

  const waitlist = (trx: Kysely<Database>): WaitlistWrites => ({
    async firstInLine(eventId, limit) {
      const rows = await trx
        .selectFrom("attendees")
        .selectAll()
        .where("event_id", "=", eventId)
        .where("status", "=", "waitlisted")
        .orderBy("waitlist_position")
        .limit(limit)
        .execute();
      return rows.map(rowToAttendee);
    },
    async moveUp(eventId, behind, places) {
      await trx
        .updateTable("attendees")
        .set((eb) => ({ waitlist_position: eb("waitlist_position", "-", places) }))
        .where("event_id", "=", eventId)
        .where("status", "=", "waitlisted")
        .where("waitlist_position", ">", behind)
        .execute();
    },
  });

  const figures = (trx: Kysely<Database>): FigureWrites => ({
    async read(eventId) {
      const row = (await figuresQuery({ id: eventId }, trx)).rows[0];
      if (!row) throw new Error(`Event ${eventId} has no row to read its kept figures from.`);
      return rowToKeptFigures(row);
    },
    async adjust(eventId, change: KeptFigures) {
      const delta = {
        active_count: change.activeRegistrations,
        emissions_kg: change.emissionsKg,
        offset_usd: change.offsetUsd,
        travel_reported: change.travelReported,
        low_carbon: change.lowCarbonTravel,
        waitlist_count: change.waitlisted,
      } satisfies Record<KeptFigureColumn, number>;
      const changed = KEPT_FIGURE_COLUMNS.filter((column) => delta[column] !== 0);
      if (changed.length === 0) return;
      const key = changed.join();
      let query = adjustQueries.get(key);
      if (!query) adjustQueries.set(key, (query = compileAdjust(changed)));
      await query({ ...delta, id: eventId }, trx);
    },
    async readActivities(eventId) {
      const row = await trx
        .selectFrom("events")
        .select(Object.values(ACTIVITY_FIGURE_COLUMNS))
        .where("id", "=", eventId)
        .executeTakeFirst();
      if (!row) throw new Error(`Event ${eventId} has no row to read its activity figures from.`);
      return rowToActivityFigures(row);
    },
    async reprice(eventId, set) {
      await repriceEvents(trx, ctx.dialect, [eventId], set);
    },
    async recountActivities(eventId) {
      const sums = activityFiguresSql();
      const row = await trx
        .selectFrom("activities")
        .select(Object.entries(sums).map(([figure, sum]) => sum.as(figure)))
        .where("event_id", "=", eventId)
        .executeTakeFirstOrThrow();
      const figures = Object.fromEntries(
        Object.keys(ACTIVITY_FIGURE_COLUMNS).map((figure) => [
          figure,
          Number((row as Record<string, unknown>)[figure] ?? 0),
        ]),
      ) as unknown as ActivityFigures;
      await trx
        .updateTable("events")
        .set(
          Object.fromEntries(
            Object.entries(ACTIVITY_FIGURE_COLUMNS).map(([figure, column]) => [
              column,
              figures[figure as keyof ActivityFigures],
            ]),
          ),
        )
        .where("id", "=", eventId)
        .execute();
      return figures;
    },
    eventAnalytics: (accountId, eventId) => eventAnalytics(trx, accountId, eventId),
  });

  const outbox = (trx: Kysely<Database>): OutboxWrites => ({
    async subscriptions(accountId) {
      const { rows } = await webhooksQuery({ account: accountId }, trx);
      return rows.map((row) => ({ webhookId: row.id, types: JSON.parse(row.events) as string[] }));
    },
    async account(accountId) {
      return (await accountQuery({ id: accountId }, trx)).rows[0] ?? null;
    },
    async recordOneTime(eventId, kind, at) {
      const result = await trx
        .insertInto("notification_marks")
        .values({ event_id: eventId, kind, created_at: at })
        .onConflict((oc) => oc.columns(["event_id", "kind"]).doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
    },
    async append(deliveries) {
      // A change's few deliveries go through the prepared statement; many (a change of many
      // registrations) in multi-row statements, a bounded number of rows each.
      if (deliveries.length < MANY_DELIVERIES) {
        for (const delivery of deliveries)
          await insertDeliveryQuery(pendingDeliveryRow(delivery.webhookId, delivery.envelope), trx);
        return;
      }
      for (let start = 0; start < deliveries.length; start += DELIVERY_BATCH)
        await trx
          .insertInto("webhook_deliveries")
          .values(
            deliveries
              .slice(start, start + DELIVERY_BATCH)
              .map((delivery) => pendingDeliveryRow(delivery.webhookId, delivery.envelope)),
          )
          .execute();
    },
  });

  const erasure = (trx: Kysely<Database>): ErasureWrites => ({
    redactPayloads: (accountId, subject, redact: (envelope: Envelope) => Envelope | null, at) =>
      redactDeliveries(trx, accountId, subject, redact, at),
    replaceAnswers: (accountId, mentioning, attendeeIds, replay) =>
      replaceStoredAnswers(trx, accountId, mentioning, attendeeIds, replay),
  });

  return {
    async transaction(fn) {
      try {
        return await ctx.write((trx) => {
          const tx: StorageTransaction = {
            events: events(trx),
            attendees: attendees(trx),
            waitlist: waitlist(trx),
            figures: figures(trx),
            tallies: tallies(trx),
            outbox: outbox(trx),
            erasure: erasure(trx),
            deliveries: deliveries(trx),
            webhooks: webhooks(trx),
            activities: createActivityWrites(trx),
            thresholds: thresholds(trx),
            vendors: createVendorWrites(trx, dialect),
            bookings: createBookingWrites(trx),
            payments: createPaymentWrites(trx),
            emails: createEmailWrites(trx),
            ticketLinks: ticketLinks(trx),
          };
          return fn(tx);
        });
      } catch (error) {
        if (dialect.isUniqueViolation(error, ACTIVE_EMAIL_INDEX))
          throw new StorageConflict("active-email", { cause: error });
        if (dialect.isUniqueViolation(error, ACTIVE_BOOKING_INDEX))
          throw new StorageConflict("active-booking", { cause: error });
        if (dialect.isUniqueViolation(error, WEBHOOK_URL_INDEX))
          throw new StorageConflict("webhook-url", { cause: error });
        throw error;
      }
    },
  };
}
