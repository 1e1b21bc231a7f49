import type { PaymentEntry, PaymentProvider } from "../resources/payment.ts";

/** What the ledger holds of one registration's money, by provider (pending refunds counted). */
export interface LedgerSums {
  provider: PaymentProvider;
  paid: number;
  refunded: number;
}

/**
 * The payment ledger in a write transaction, under the registration's event's lock: every
 * movement of a registration's money, which the financial analytics sum. The registration's own
 * totals (`AttendeeRecord.payment`) are written with it by the same business transaction.
 */
export interface PaymentWrites {
  /** Appends an entry. Throws the driver's error if its id exists. */
  insert(entry: PaymentEntry): Promise<void>;
  /** The registration's money by provider: received, and returned or being returned. */
  sums(attendeeId: string): Promise<LedgerSums[]>;
  /** Clears the references (a bank transfer's may name the payer) of the registration's entries, for its erasure; the amounts stay. */
  scrubReferences(attendeeId: string): Promise<void>;
}
