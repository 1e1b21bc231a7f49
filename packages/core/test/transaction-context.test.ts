import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { DEFAULT_CARBON_SETTINGS } from "../src/carbon/carbon-settings.ts";
import { DEFAULT_EMISSION_FACTORS } from "../src/carbon/emission-factors.ts";
import type { EventRecord } from "../src/resources/event.ts";
import { TicketTypesInput } from "../src/resources/ticket-type.ts";
import { insertEvent } from "../src/service/event-changes.ts";
import { registerAttendee, updateAttendee } from "../src/service/registrations.ts";
import type { TransactionContext } from "../src/service/transaction-context.ts";
import { createChangeNotifier } from "../src/webhooks/change-notifications.ts";
import { sqliteStorage } from "./_sqlite.ts";
import { at, attendeeAt, eventAt, newAccount } from "./_service-transactions-outbox.ts";
import { transactionContext } from "./_transactions.ts";

describe("the business transactions' context", () => {
  test("a transaction pays by the context's terms; a context or call that leaves a dependency out does not compile", async () => {
    const storage = await sqliteStorage();
    const acme = await newAccount(storage, "Context");
    const byHand = transactionContext(storage, { notifier: createChangeNotifier() });
    const stripe = { ...byHand, payments: { provider: "stripe", holdMinutes: 1 } } satisfies TransactionContext;
    const event: EventRecord = {
      ...eventAt(acme, at(1), {
        ticketTypes: TicketTypesInput.parse([{ name: "VIP", price: { amount: 12_000, currency: "EUR" } }]),
      }),
      status: "published",
    };
    await insertEvent(byHand, event);

    const manual = await registerAttendee(byHand, attendeeAt(acme, event.id, at(2), { ticketType: "VIP" }));
    const held = await registerAttendee(stripe, attendeeAt(acme, event.id, at(3), { ticketType: "VIP" }));
    assert.deepEqual(
      [manual.status, manual.payment?.provider, manual.payment?.amount, manual.payment?.expiresAt],
      ["pending", "manual", 12_000, null],
    );
    assert.deepEqual(
      [held.status, held.payment?.provider, held.payment?.amount, held.payment?.expiresAt],
      ["pending", "stripe", 12_000, at(63)],
    );

    const noTerms = {
      storage,
      notifier: null,
      emissionFactors: DEFAULT_EMISSION_FACTORS,
      carbon: DEFAULT_CARBON_SETTINGS,
    };
    // @ts-expect-error: without payment terms a context is refused, never read as "by hand"
    const refused: TransactionContext = noTerms;
    assert.equal(refused.payments, undefined);
    // @ts-expect-error: the positional form that ended in an optional notifier and terms is gone
    const positional = () => updateAttendee(storage, acme, manual.id, { company: "Acme" }, at(4));
    assert.equal(typeof positional, "function");
  });
});
