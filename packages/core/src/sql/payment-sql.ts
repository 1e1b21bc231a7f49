import { type Kysely, type SelectQueryBuilder, sql } from "kysely";
import type { RevenueFigures, TicketMoneyFigures } from "../analytics/analytics-figures.ts";
import type { PaymentEntry } from "../resources/payment.ts";
import { activeSql } from "../carbon/carbon-sql.ts";
import type { PaymentWrites } from "../storage/payment-store.ts";
import type { Database, EventsTable, PaymentsTable } from "./database.ts";

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
    async sums(attendeeId) {
      const rows = await trx
        .selectFrom("payments")
        .select([
          "provider",
          sql<number>`coalesce(sum(case when kind = 'payment' then amount else 0 end), 0)`.as("paid"),
          sql<number>`coalesce(sum(case when kind = 'refund' and status <> 'failed' then amount else 0 end), 0)`.as(
            "refunded",
          ),
        ])
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
    async scrubReferences(attendeeId) {
      await trx.updateTable("payments").set({ reference: null }).where("attendee_id", "=", attendeeId).execute();
    },
  };
}

/** The ids of the events a figure covers (`events as e`). */
export type EventIdQuery = SelectQueryBuilder<Database & { e: EventsTable }, "e", { id: string }>;

/**
 * Money of the events `events` selects, per currency: received (`gross`) and returned or being
 * returned (`refunded`) from the ledger, and what their active unpaid registrations still owe
 * (`outstanding`). Summed in SQL; currencies in code order.
 */
export async function revenueFigures(db: Kysely<Database>, events: EventIdQuery): Promise<RevenueFigures[]> {
  const [ledger, owed] = await Promise.all([
    db
      .selectFrom("payments")
      .select([
        "currency",
        sql<number>`sum(case when kind = 'payment' then amount else 0 end)`.as("gross"),
        sql<number>`sum(case when kind = 'refund' and status <> 'failed' then amount else 0 end)`.as("refunded"),
      ])
      .where("event_id", "in", events)
      .groupBy("currency")
      .execute(),
    db
      .selectFrom("attendees")
      .select(["payment_currency", sql<number>`sum(payment_amount - payment_paid)`.as("owed")])
      .where("event_id", "in", events)
      .where(activeSql)
      .where("payment_status", "in", ["requires_payment", "failed"])
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
 * registrations that are paid in full or free (`sold`).
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
      .select(["ticket_type", sql<number>`count(*)`.as("sold")])
      .where("event_id", "=", eventId)
      .where(activeSql)
      .where((eb) => eb.or([eb("payment_status", "is", null), eb("payment_paid", ">=", eb.ref("payment_amount"))]))
      .groupBy("ticket_type")
      .execute(),
  ]);
  return {
    gross: gross.map((row) => ({ ticketType: row.ticket_type, currency: row.currency, gross: Number(row.gross) })),
    sold: sold.map((row) => ({ ticketType: row.ticket_type, sold: Number(row.sold) })),
  };
}
