import { type Kysely, type SelectQueryBuilder, sql } from "kysely";
import type { RevenueFigures, TicketMoneyFigures } from "../analytics/analytics-figures.ts";
import { PAYABLE_PAYMENT_STATUSES, type PaymentEntry } from "../resources/payment.ts";
import { activeSql } from "./carbon-sql.ts";
import { FAILED_REFUND_STATUS } from "../rules/payments.ts";
import type { PaymentStore, PaymentWrites } from "../storage/payment-store.ts";
import type { SqlContext } from "./sql-context.ts";
import type { Database, EventsTable, PaymentsTable } from "./database.ts";

/** The payment statuses that still take money, as SQL literals. */
const PAYABLE = PAYABLE_PAYMENT_STATUSES.map((status) => sql.lit(status));
/** The status of a refund that returned nothing, as an SQL literal: every other refund counts. */
const FAILED = sql.lit(FAILED_REFUND_STATUS);

/** A registration's money in the ledger: received (`paid`), and returned or being returned (`refunded`). */
const sumColumns = [
  sql<number>`coalesce(sum(case when kind = 'payment' then amount else 0 end), 0)`.as("paid"),
  sql<number>`coalesce(sum(case when kind = 'refund' and status <> ${FAILED} then amount else 0 end), 0)`.as(
    "refunded",
  ),
] as const;

/** Ledger entries a multi-row insert takes (16 columns each, within every database's bound on parameters). */
const INSERT_BATCH = 200;

/** The row of a ledger entry. */
function entryToRow(entry: PaymentEntry): PaymentsTable {
  return {
    id: entry.id,
    account_id: entry.accountId,
    event_id: entry.eventId,
    attendee_id: entry.attendeeId,
    kind: entry.kind,
    amount: entry.amount,
    currency: entry.currency,
    ticket_type: entry.ticketType,
    provider: entry.provider,
    method: entry.method,
    reference: entry.reference,
    provider_reference: entry.providerReference,
    payment_intent_id: entry.paymentIntentId,
    stripe_account: entry.stripeAccount,
    status: entry.status,
    created_at: entry.createdAt,
  };
}

/** The ledger's writes, bound to a write transaction. */
export function createPaymentWrites(trx: Kysely<Database>): PaymentWrites {
  return {
    async insert(entry) {
      await trx.insertInto("payments").values(entryToRow(entry)).execute();
    },
    async insertMany(entries) {
      // In chunks: a statement takes a bounded number of parameters.
      for (let start = 0; start < entries.length; start += INSERT_BATCH)
        await trx
          .insertInto("payments")
          .values(entries.slice(start, start + INSERT_BATCH).map(entryToRow))
          .execute();
    },
    async sumsOfEvent(eventId) {
      const rows = await trx
        .selectFrom("payments")
        .select(["attendee_id", "provider", ...sumColumns])
        .where("event_id", "=", eventId)
        .groupBy(["attendee_id", "provider"])
        .orderBy("attendee_id")
        .orderBy("provider")
        .execute();
      return rows.map((row) => ({
        attendeeId: row.attendee_id,
        provider: row.provider as PaymentEntry["provider"],
        paid: Number(row.paid),
        refunded: Number(row.refunded),
      }));
    },
    async sums(attendeeId) {
      const rows = await trx
        .selectFrom("payments")
        .select(["provider", ...sumColumns])
        .where("attendee_id", "=", attendeeId)
        .groupBy("provider")
        .orderBy("provider")
        .execute();
      return rows.map((row) => ({
        provider: row.provider as PaymentEntry["provider"],
        paid: Number(row.paid),
        refunded: Number(row.refunded),
      }));
    },
    async receivedOn(attendeeId, paymentIntentId) {
      const row = await trx
        .selectFrom("payments")
        .select(sql<number>`coalesce(sum(amount), 0)`.as("received"))
        .where("attendee_id", "=", attendeeId)
        .where("kind", "=", "payment")
        .where("provider_reference", "=", paymentIntentId)
        .executeTakeFirstOrThrow();
      return Number(row.received);
    },
    async scrubReferences(of) {
      const [column, value] =
        "attendeeId" in of ? (["attendee_id", of.attendeeId] as const) : (["event_id", of.eventId] as const);
      await trx.updateTable("payments").set({ reference: null }).where(column, "=", value).execute();
    },
    async settle(entryId, status, providerReference) {
      const result = await trx
        .updateTable("payments")
        .set({ status, provider_reference: providerReference })
        .where("id", "=", entryId)
        .where("status", "=", "pending")
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async recordStripeEvent(id, type, at) {
      const result = await trx
        .insertInto("stripe_events")
        .values({ id, type, received_at: at })
        .onConflict((oc) => oc.column("id").doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    },
    async findByIntent(paymentIntentId) {
      const row = await trx
        .selectFrom("attendees")
        .select(["account_id", "event_id", "id"])
        .where("payment_intent_id", "=", paymentIntentId)
        .executeTakeFirst();
      return row ? { accountId: row.account_id, eventId: row.event_id, attendeeId: row.id } : null;
    },
    async putSettings(accountId, stripeAccountId, at) {
      await trx
        .insertInto("payment_settings")
        .values({ account_id: accountId, stripe_account_id: stripeAccountId, updated_at: at })
        .onConflict((oc) => oc.column("account_id").doUpdateSet({ stripe_account_id: stripeAccountId, updated_at: at }))
        .execute();
    },
  };
}

/** The money kept of a registration row: paid less refunded. */
const keptSql = sql<number>`(payment_paid - payment_refunded)`;

/** The ids of the events a figure covers (`events as e`). */
export type EventIdQuery = SelectQueryBuilder<Database & { e: EventsTable }, "e", { id: string }>;

/**
 * Money of the events `events` selects, per currency: received (`gross`) and returned or being
 * returned (`refunded`) from the ledger, and what their active registrations not admitted yet
 * still owe, their price less the money kept (`outstanding`, the SQL twin of `outstanding` in
 * `rules/payments.ts`). Summed in SQL; currencies in code order.
 */
export async function revenueFigures(db: Kysely<Database>, events: EventIdQuery): Promise<RevenueFigures[]> {
  const [ledger, owed] = await Promise.all([
    db
      .selectFrom("payments")
      .select([
        "currency",
        sql<number>`sum(case when kind = 'payment' then amount else 0 end)`.as("gross"),
        sql<number>`sum(case when kind = 'refund' and status <> ${FAILED} then amount else 0 end)`.as("refunded"),
      ])
      .where("event_id", "in", events)
      .groupBy("currency")
      .execute(),
    db
      .selectFrom("attendees")
      .select([
        "payment_currency",
        sql<number>`sum(case when payment_amount > ${keptSql} then payment_amount - ${keptSql} else 0 end)`.as("owed"),
      ])
      .where("event_id", "in", events)
      .where(activeSql)
      .where("payment_admitted_at", "is", null)
      .where("payment_status", "in", PAYABLE)
      .groupBy("payment_currency")
      .execute(),
  ]);
  const byCurrency = new Map<string, RevenueFigures>();
  const of = (currency: string) => {
    let figures = byCurrency.get(currency);
    if (!figures) byCurrency.set(currency, (figures = { currency, gross: 0, refunded: 0, outstanding: 0 }));
    return figures;
  };
  for (const row of ledger) {
    const figures = of(row.currency);
    figures.gross = Number(row.gross);
    figures.refunded = Number(row.refunded);
  }
  for (const row of owed) if (row.payment_currency !== null) of(row.payment_currency).outstanding = Number(row.owed);
  return [...byCurrency.values()].sort((a, b) => (a.currency < b.currency ? -1 : 1));
}

/**
 * Per ticket type of one event: money received from the ledger (per currency), and the active
 * registrations that are admitted or free (`sold`), per type and the currency they pay in (null:
 * free). Admitted is the SQL twin of `isAdmitted` in `rules/payments.ts`.
 */
export async function ticketTypeFigures(db: Kysely<Database>, eventId: string): Promise<TicketMoneyFigures> {
  const [gross, sold] = await Promise.all([
    db
      .selectFrom("payments")
      .select(["ticket_type", "currency", sql<number>`sum(amount)`.as("gross")])
      .where("event_id", "=", eventId)
      .where("kind", "=", "payment")
      .groupBy(["ticket_type", "currency"])
      .execute(),
    db
      .selectFrom("attendees")
      .select(["ticket_type", "payment_currency", sql<number>`count(*)`.as("sold")])
      .where("event_id", "=", eventId)
      .where(activeSql)
      .where((eb) => eb.or([eb("payment_status", "is", null), eb("payment_admitted_at", "is not", null)]))
      .groupBy(["ticket_type", "payment_currency"])
      .execute(),
  ]);
  return {
    gross: gross.map((row) => ({ ticketType: row.ticket_type, currency: row.currency, gross: Number(row.gross) })),
    sold: sold.map((row) => ({ ticketType: row.ticket_type, currency: row.payment_currency, sold: Number(row.sold) })),
  };
}

/** The row of a ledger entry as an entry. */
function rowToEntry(row: PaymentsTable): PaymentEntry {
  return {
    id: row.id,
    accountId: row.account_id,
    eventId: row.event_id,
    attendeeId: row.attendee_id,
    kind: row.kind as PaymentEntry["kind"],
    amount: Number(row.amount),
    currency: row.currency,
    ticketType: row.ticket_type,
    provider: row.provider as PaymentEntry["provider"],
    method: row.method as PaymentEntry["method"],
    reference: row.reference,
    providerReference: row.provider_reference,
    paymentIntentId: row.payment_intent_id,
    stripeAccount: row.stripe_account,
    status: row.status as PaymentEntry["status"],
    createdAt: row.created_at,
  };
}

/** The payment reads outside a transaction (`PaymentStore`). */
export function createPaymentStore(ctx: SqlContext): PaymentStore {
  const { db } = ctx;
  const refs = (rows: Array<{ account_id: string; event_id: string; id: string }>) =>
    rows.map((row) => ({ accountId: row.account_id, eventId: row.event_id, attendeeId: row.id }));
  return {
    async getPaymentSettings(accountId) {
      const row = await db
        .selectFrom("payment_settings")
        .select(["stripe_account_id", "updated_at"])
        .where("account_id", "=", accountId)
        .executeTakeFirst();
      return row ? { stripeAccountId: row.stripe_account_id, updatedAt: row.updated_at } : null;
    },
    async intentsToMake(limit) {
      const rows = await db
        .selectFrom("attendees")
        .select(["account_id", "event_id", "id"])
        .where("payment_status", "in", PAYABLE)
        .where("payment_provider", "=", "stripe")
        .where("payment_intent_id", "is", null)
        .where(activeSql)
        .orderBy("payment_expires_at")
        .limit(limit)
        .execute();
      return refs(rows);
    },
    async holdsDue(now, limit) {
      const rows = await db
        .selectFrom("attendees")
        .select(["account_id", "event_id", "id"])
        .where("payment_status", "in", PAYABLE)
        .where("payment_expires_at", "<=", now)
        .where(activeSql)
        .orderBy("payment_expires_at")
        .limit(limit)
        .execute();
      return refs(rows);
    },
    async refundsDue(limit) {
      const rows = await db
        .selectFrom("payments")
        .selectAll()
        .where("status", "=", "pending")
        .orderBy("created_at")
        .limit(limit)
        .execute();
      return rows.map(rowToEntry);
    },
  };
}
