import type { CarbonSettings } from "../carbon/carbon-settings.ts";
import type { FactorSets } from "../carbon/factor-sets.ts";
import type { PaymentTerms } from "../rules/payments.ts";
import type { ChangeNotifier } from "../storage/change-notifier.ts";
import type { TransactionStore } from "../storage/transaction.ts";

/**
 * What every business transaction runs with, the same for all the calls of the operations that
 * make them: built once where those are created (an account's operations, a vendor's link, the
 * payment worker), never per call. Every field is required, so a caller that forgets the
 * notifier or the payment terms does not compile instead of silently notifying nothing or
 * taking money by hand.
 */
export interface TransactionContext<S extends TransactionStore = TransactionStore> {
  storage: S;
  /** What the changes notify; `null`: they notify nothing. */
  notifier: ChangeNotifier | null;
  /** The factor sets of the kept figures, one per year (each event priced by its start's): the storage's, which keeps them. */
  factorSets: FactorSets;
  /** The carbon settings of the figures the transactions judge (thresholds, goals). */
  carbon: CarbonSettings;
  /** How the registrations the transactions admit or promote pay (provider, hold). */
  payments: PaymentTerms;
  /** Whether the service sends emails: the changes that email someone then queue them in the email outbox. */
  emails: boolean;
}

/** What the transactions that only write rows (webhooks, deliveries) run with: the storage alone. */
export type StorageContext<S extends TransactionStore = TransactionStore> = Pick<TransactionContext<S>, "storage">;
