import type * as z from "zod";
import { ServiceError } from "../errors.ts";
import type { StripeClient } from "../payments/stripe-client.ts";
import type { AccountPaymentSettings, PaymentSettingsInput } from "../resources/payment.ts";
import type { PaymentStore } from "../storage/payment-store.ts";
import type { OperationContext } from "./operation-context.ts";
import type { TransactionStore } from "../storage/transaction.ts";
import { runTransaction } from "./transaction-steps.ts";

/** The payment settings operations of one account. */
export function createPaymentOperations(
  storage: PaymentStore & TransactionStore,
  context: OperationContext,
  stripe: StripeClient | undefined,
) {
  const { accountId, clock, payments } = context;
  const shown = async (): Promise<AccountPaymentSettings> => {
    const stored = await storage.getPaymentSettings(accountId);
    return {
      provider: payments.provider,
      stripeAccountId: stored?.stripeAccountId ?? null,
      holdMinutes: payments.holdMinutes,
      updatedAt: stored?.updatedAt ?? null,
    };
  };
  return {
    settings: shown,
    async updateSettings({ stripeAccountId }: z.output<typeof PaymentSettingsInput>) {
      if (stripeAccountId !== null) {
        if (!stripe) {
          throw new ServiceError("INVALID_REQUEST", {
            message: "stripeAccountId: this deployment takes no Stripe payments (no STRIPE_SECRET_KEY)",
            field: "stripeAccountId",
            details: { reason: "stripe_not_configured" },
          });
        }
        try {
          await stripe.accounts.retrieve(stripeAccountId);
        } catch {
          throw new ServiceError("INVALID_REQUEST", {
            message: `stripeAccountId: Stripe does not know ${stripeAccountId} as an account connected to this platform`,
            field: "stripeAccountId",
            details: { reason: "stripe_account_unknown" },
          });
        }
      }
      const at = clock().toISOString();
      await runTransaction(context, (steps) => steps.tx.payments.putSettings(accountId, stripeAccountId, at));
      return shown();
    },
  };
}
