import { Attendee } from "../resources/attendee.ts";
import { AccountPaymentSettings, PaymentInput, PaymentSettingsInput, RefundInput } from "../resources/payment.ts";
import { accountOperation } from "./context.ts";

/** The payments of registrations taken by hand, and the account's payment settings. */
export const PAYMENT_OPERATIONS = [
  accountOperation({
    id: "attendees.pay",
    method: "POST",
    path: "/attendees/:id/payments",
    scope: "payments:write",
    tag: "Payments",
    operationId: "recordPayment",
    summary: "Record money taken by hand for a priced registration (at the door, by bank transfer)",
    body: PaymentInput,
    response: { status: 200, schema: Attendee, name: "Attendee", description: "The registration with its payment" },
    errors: ["INVALID_REQUEST", "NOT_FOUND", "INVALID_STATE_TRANSITION"],
    run: (account, { params, body }) => account.attendees.pay(params.id, body),
  }),
  accountOperation({
    id: "attendees.refund",
    method: "POST",
    path: "/attendees/:id/refunds",
    scope: "payments:write",
    tag: "Payments",
    operationId: "refundAttendee",
    summary: "Refund part or all of what a registration paid (default: all), through the provider it was paid with",
    body: RefundInput,
    bodyOptional: true,
    response: { status: 200, schema: Attendee, name: "Attendee", description: "The registration with its payment" },
    errors: ["INVALID_REQUEST", "NOT_FOUND"],
    run: (account, { params, body }) => account.attendees.refund(params.id, body),
  }),
  accountOperation({
    id: "payments.settings",
    method: "GET",
    path: "/payment-settings",
    scope: "payments:read",
    tag: "Payments",
    operationId: "getPaymentSettings",
    summary: "The account's payment settings: the deployment's provider and hold, the account's own Stripe account",
    response: { status: 200, schema: AccountPaymentSettings, name: "PaymentSettings", description: "The settings" },
    errors: [],
    run: (account) => account.payments.settings(),
  }),
  accountOperation({
    id: "payments.updateSettings",
    method: "PUT",
    path: "/payment-settings",
    scope: "payments:write",
    tag: "Payments",
    operationId: "updatePaymentSettings",
    summary: "Link (or unlink, with null) the account's own Stripe account, for Connect direct charges",
    body: PaymentSettingsInput,
    response: { status: 200, schema: AccountPaymentSettings, name: "PaymentSettings", description: "The settings" },
    errors: ["INVALID_REQUEST"],
    run: (account, { body }) => account.payments.updateSettings(body),
  }),
];
