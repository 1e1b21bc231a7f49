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
  /** What the ledger received on one Stripe PaymentIntent for the registration (its payments whose provider reference is `paymentIntentId`). */
  receivedOn(attendeeId: string, paymentIntentId: string): Promise<number>;
  /** {@link insert} of each entry, a bounded number of entries a statement. */
  insertMany(entries: readonly PaymentEntry[]): Promise<void>;
  /** {@link sums} of every registration of the event that has an entry, in one query. */
  sumsOfEvent(eventId: string): Promise<Array<LedgerSums & { attendeeId: string }>>;
  /** Clears the references (a bank transfer's may name the payer) of a registration's entries, or an event's, for their erasure; the amounts stay. */
  scrubReferences(of: { attendeeId: string } | { eventId: string }): Promise<void>;
  /** Gives a `pending` entry its outcome and Stripe's id of it; `false`, changing nothing, when it is not pending (another process settled it). */
  settle(entryId: string, status: "succeeded" | "failed", providerReference: string | null): Promise<boolean>;
  /** Records that Stripe's event `id` is being handled; `false`, writing nothing, when it was before (it rolls back with the transaction). */
  recordStripeEvent(id: string, type: string, at: string): Promise<boolean>;
  /** The registration (its ids) whose payment has this PaymentIntent, or `null`; takes no lock. */
  findByIntent(paymentIntentId: string): Promise<{ accountId: string; eventId: string; attendeeId: string } | null>;
  /** Sets the account's own Stripe account (`null` unlinks it). */
  putSettings(accountId: string, stripeAccountId: string | null, at: string): Promise<void>;
}

/** An account's payment settings. */
export interface PaymentSettingsRecord {
  stripeAccountId: string | null;
  updatedAt: string;
}

/** A registration by its ids: what the payment worker picks up, then locks through its event. */
export interface RegistrationRef {
  accountId: string;
  eventId: string;
  attendeeId: string;
}

/**
 * Reads of payments outside a transaction: an account's settings, and the payment worker's
 * work. The worker takes each item up again in a transaction under the event's lock, so what
 * these return is a hint, never a decision.
 */
export interface PaymentStore {
  /** The account's payment settings, or `null` when it never set any. */
  getPaymentSettings(accountId: string): Promise<PaymentSettingsRecord | null>;
  /** Up to `limit` registrations with a payable Stripe payment that has no PaymentIntent yet, oldest first. */
  intentsToMake(limit: number): Promise<RegistrationRef[]>;
  /** Up to `limit` registrations with a payable Stripe payment whose hold ended at or before `now`, earliest first. */
  holdsDue(now: string, limit: number): Promise<RegistrationRef[]>;
  /** Up to `limit` ledger entries still `pending` (refunds to make at Stripe), oldest first. */
  refundsDue(limit: number): Promise<PaymentEntry[]>;
}
