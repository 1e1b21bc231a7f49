/**
 * The service's transactions on configured thresholds over a real storage (part of `describeServiceTransactions`): their storage
 * operations (account isolation, an event of the account only, the crossing state going with
 * the threshold and with the event), and the crossing step of the registrations' transactions
 * (`service/threshold-checks.ts`): one notification per crossing, again after the value went
 * back, the built-in 90% rule given way to, and one notification however many registrations
 * cross at once. Every test opens a database of its own.
 */
import { MANUAL_PAYMENT_TERMS } from "../src/rules/payments.ts";
import { DEFAULT_CARBON_SETTINGS } from "../src/carbon/carbon-settings.ts";
import assert from "node:assert/strict";
import { describe, test, type TestContext } from "node:test";
import { createId } from "../src/_internal/ids.ts";
import { createFactorSets } from "../src/carbon/factor-sets.ts";
import { ThresholdListQuery, type ThresholdRecord } from "../src/resources/threshold.ts";
import { DeliveryListQuery } from "../src/resources/webhook-delivery.ts";
import { checkThresholds } from "../src/service/threshold-checks.ts";
import type { Storage } from "../src/storage.ts";
import { createChangeNotifier } from "../src/webhooks/change-notifications.ts";
import { at, attendeeAt, eventAt, newAccount, webhookRecord } from "./_service-transactions-outbox.ts";
import {
  deleteEvent,
  insertEvent,
  insertWebhook,
  registerAttendee,
  updateAttendee,
  updateEvent,
} from "./_transactions.ts";

function thresholdRecord(accountId: string, overrides: Partial<ThresholdRecord> = {}): ThresholdRecord {
  return {
    id: createId("threshold"),
    accountId,
    metric: "capacity_utilization",
    comparison: "above",
    value: 50,
    eventId: null,
    createdAt: at(1),
    updatedAt: at(1),
    ...overrides,
  };
}

/** The data of the account's `analytics.threshold_exceeded` deliveries to the webhook, oldest first. */
async function exceeded(storage: Storage, accountId: string, webhookId: string) {
  const page = await storage.listDeliveries(accountId, webhookId, DeliveryListQuery.parse({ limit: "100" }));
  assert.ok(page);
  return [...page.items]
    .filter((delivery) => delivery.type === "analytics.threshold_exceeded")
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))
    .map((delivery) => (delivery.payload as { data: Record<string, unknown> }).data);
}

/** The event's crossing states of `ids`, read in a transaction. */
function statesOf(storage: Storage, eventId: string, ids: string[]) {
  return storage.transaction((tx) => tx.thresholds.states(eventId, ids));
}

export function describeThresholds(open: () => Promise<Storage>) {
  const fresh = async (t: TestContext) => {
    const storage = await open();
    t.after(() => storage.close());
    return storage;
  };

  describe("thresholds", () => {
    test("insert, get, list, update and delete, each within its account; an event of another account is refused", async (t) => {
      const storage = await fresh(t);
      const acme = await newAccount(storage, "Threshold Acme");
      const globex = await newAccount(storage, "Threshold Globex");
      const event = eventAt(acme, at(0));
      const foreign = eventAt(globex, at(0));
      await insertEvent(storage, event);
      await insertEvent(storage, foreign);

      const wide = thresholdRecord(acme, { createdAt: at(1), updatedAt: at(1) });
      const own = thresholdRecord(acme, {
        metric: "total_emissions_kg",
        comparison: "below",
        value: 1234.5,
        eventId: event.id,
        createdAt: at(2),
        updatedAt: at(2),
      });
      assert.equal(await storage.insertThreshold(wide), true);
      assert.equal(await storage.insertThreshold(own), true);
      assert.equal(await storage.insertThreshold(thresholdRecord(acme, { eventId: foreign.id })), false);
      assert.equal(await storage.insertThreshold(thresholdRecord(acme, { eventId: "evt_missing" })), false);
      assert.deepEqual(await storage.getThreshold(acme, own.id), own);
      assert.equal(await storage.getThreshold(globex, own.id), null);

      const page = await storage.listThresholds(acme, ThresholdListQuery.parse({}));
      assert.deepEqual(
        page.items.map((item) => item.id),
        [own.id, wide.id],
      );
      assert.equal(page.total, 2);
      const second = await storage.listThresholds(acme, ThresholdListQuery.parse({ page: "2", limit: "1" }));
      assert.deepEqual(
        second.items.map((item) => item.id),
        [wide.id],
      );
      assert.equal((await storage.listThresholds(globex, ThresholdListQuery.parse({}))).total, 0);

      const changed = { ...wide, value: 75, updatedAt: at(3) };
      assert.equal(await storage.updateThreshold({ ...changed, accountId: globex }, true), "not-found");
      assert.equal(await storage.updateThreshold({ ...changed, eventId: foreign.id }, true), "no-event");
      assert.deepEqual(await storage.getThreshold(acme, wide.id), wide, "a refused update changes nothing");
      assert.equal(await storage.updateThreshold(changed, true), "updated");
      assert.deepEqual(await storage.getThreshold(acme, wide.id), changed);

      assert.equal(await storage.deleteThreshold(globex, wide.id), null);
      assert.deepEqual(await storage.deleteThreshold(acme, wide.id), changed);
      assert.equal(await storage.getThreshold(acme, wide.id), null);
    });

    test("the crossing state goes with its threshold, with a reset, and with its event (and so do the event's thresholds)", async (t) => {
      const storage = await fresh(t);
      const acme = await newAccount(storage, "Threshold States");
      const event = eventAt(acme, at(0));
      await insertEvent(storage, event);
      const first = thresholdRecord(acme);
      const second = thresholdRecord(acme, { eventId: event.id, metric: "total_emissions_kg", value: 10 });
      await storage.insertThreshold(first);
      await storage.insertThreshold(second);
      await storage.transaction(async (tx) => {
        const applicable = await tx.thresholds.applicable(acme, event.id);
        assert.deepEqual(applicable.map((item) => item.id).sort(), [first.id, second.id].sort());
        assert.deepEqual(
          (await tx.thresholds.applicable(acme, event.id, ["total_emissions_kg"])).map((item) => item.id),
          [second.id],
        );
        assert.deepEqual(await tx.thresholds.applicable(acme, event.id, []), []);
        await tx.thresholds.setState(first.id, event.id, true, at(5));
        await tx.thresholds.setState(second.id, event.id, false, at(5));
        await tx.thresholds.setState(second.id, event.id, true, at(6));
        assert.equal(await tx.thresholds.accountHas(acme, "capacity_utilization"), true);
        assert.equal(await tx.thresholds.accountHas(acme, "renewable_share_percent"), false);
      });
      assert.deepEqual(
        (await statesOf(storage, event.id, [first.id, second.id])).sort((a, b) =>
          a.thresholdId.localeCompare(b.thresholdId),
        ),
        [
          { thresholdId: first.id, reached: true },
          { thresholdId: second.id, reached: true },
        ].sort((a, b) => a.thresholdId.localeCompare(b.thresholdId)),
      );

      // An update that leaves the judgement alone keeps the state; one with a reset forgets it.
      assert.equal(await storage.updateThreshold({ ...first, updatedAt: at(7) }, false), "updated");
      assert.equal((await statesOf(storage, event.id, [first.id])).length, 1);
      assert.equal(await storage.updateThreshold({ ...first, value: 60, updatedAt: at(8) }, true), "updated");
      assert.deepEqual(await statesOf(storage, event.id, [first.id]), []);

      await storage.deleteThreshold(acme, first.id);
      assert.equal((await statesOf(storage, event.id, [second.id])).length, 1);
      await deleteEvent(storage, acme, event.id);
      assert.deepEqual(await statesOf(storage, event.id, [second.id]), []);
      assert.equal(await storage.getThreshold(acme, second.id), null, "the event's own threshold went with it");
    });

    test("capacity: one notification per crossing, again after going back; the built-in 90% rule gives way to the account's own", async (t) => {
      const storage = await fresh(t);
      const acme = await newAccount(storage, "Threshold Crossing");
      const plain = await newAccount(storage, "Threshold Plain");
      const webhook = webhookRecord(acme);
      const plainWebhook = webhookRecord(plain);
      await insertWebhook(storage, webhook);
      await insertWebhook(storage, plainWebhook);
      const event = eventAt(acme, at(0), { capacity: 10 });
      const other = eventAt(plain, at(0), { capacity: 10 });
      await insertEvent(storage, event);
      await insertEvent(storage, other);
      await updateEvent(storage, acme, event.id, { status: "published" }, at(1));
      await updateEvent(storage, plain, other.id, { status: "published" }, at(1));
      // Set for one event of the account: the built-in rule stops for all its events.
      const half = thresholdRecord(acme, { eventId: event.id });
      await storage.insertThreshold(half);

      const registered = [];
      for (let i = 0; i < 4; i++)
        registered.push(await registerAttendee(storage, attendeeAt(acme, event.id, at(10 + i))));
      assert.deepEqual(await exceeded(storage, acme, webhook.id), []);
      registered.push(await registerAttendee(storage, attendeeAt(acme, event.id, at(20))));
      assert.deepEqual(await exceeded(storage, acme, webhook.id), [
        {
          event: { id: event.id, name: event.name },
          metric: "capacity_utilization",
          threshold: 50,
          value: 50,
          thresholdId: half.id,
        },
      ]);
      for (let i = 0; i < 5; i++)
        registered.push(await registerAttendee(storage, attendeeAt(acme, event.id, at(30 + i))));
      assert.equal(
        (await exceeded(storage, acme, webhook.id)).length,
        1,
        "no second notice while reached, nor the built-in at 90%",
      );

      // A cancellation whose place the first in line takes moves nothing.
      await updateEvent(storage, acme, event.id, { waitlistEnabled: true }, at(39));
      const waiting = await registerAttendee(storage, attendeeAt(acme, event.id, at(40)));
      assert.equal(waiting.status, "waitlisted");
      await updateAttendee(storage, acme, registered.pop()!.id, { status: "cancelled" }, at(41));
      assert.equal((await exceeded(storage, acme, webhook.id)).length, 1);

      // Down to 4 of 10 (40%), then up to 5 again: a new crossing.
      for (let i = 0; i < 6; i++)
        await updateAttendee(storage, acme, registered.pop()!.id, { status: "cancelled" }, at(50 + i));
      assert.deepEqual(await statesOf(storage, event.id, [half.id]), [{ thresholdId: half.id, reached: false }]);
      await registerAttendee(storage, attendeeAt(acme, event.id, at(60)));
      const crossings = await exceeded(storage, acme, webhook.id);
      assert.deepEqual(
        crossings.map((data) => [data.value, data.thresholdId]),
        [
          [50, half.id],
          [50, half.id],
        ],
      );

      // The account without a capacity threshold keeps the built-in rule.
      for (let i = 0; i < 9; i++) await registerAttendee(storage, attendeeAt(plain, other.id, at(70 + i)));
      const builtIn = await exceeded(storage, plain, plainWebhook.id);
      assert.deepEqual(
        builtIn.map((data) => [data.metric, data.threshold, data.value]),
        [["capacity_utilization", 90, 90]],
      );
    });

    test("checkThresholds judges the metrics given, leaves those left out, and reads null as not reached", async (t) => {
      const storage = await fresh(t);
      const acme = await newAccount(storage, "Threshold Metrics");
      const webhook = webhookRecord(acme, { events: ["analytics.threshold_exceeded"] });
      await insertWebhook(storage, webhook);
      const event = eventAt(acme, at(0));
      const sibling = eventAt(acme, at(0));
      await insertEvent(storage, event);
      await insertEvent(storage, sibling);
      const total = thresholdRecord(acme, { metric: "total_emissions_kg", value: 1000 });
      const renewable = thresholdRecord(acme, {
        metric: "renewable_share_percent",
        comparison: "below",
        value: 20,
        eventId: sibling.id,
      });
      await storage.insertThreshold(total);
      await storage.insertThreshold(renewable);
      const check = (metrics: Parameters<typeof checkThresholds>[2], now: string, on = event) =>
        storage.transaction(async (tx) => {
          const locked = await tx.events.lock(acme, on.id);
          assert.ok(locked);
          const steps = {
            tx,
            factorSets: createFactorSets(),
            carbon: DEFAULT_CARBON_SETTINGS,
            notifier: createChangeNotifier(),
            activeDelta: 0,
            payments: MANUAL_PAYMENT_TERMS,
            emails: false,
          };
          return (await checkThresholds(steps, locked, metrics, now)).map((n) => n.data as Record<string, unknown>);
        });

      assert.deepEqual(await check({ total_emissions_kg: 999.9, renewable_share_percent: 5 }, at(1)), []);
      const crossed = await check({ total_emissions_kg: 1000.0004, renewable_share_percent: undefined }, at(2));
      assert.deepEqual(crossed, [
        {
          event: { id: event.id, name: event.name },
          metric: "total_emissions_kg",
          threshold: 1000,
          value: 1000,
          thresholdId: total.id,
        },
      ]);
      assert.deepEqual(await check({ total_emissions_kg: 1500 }, at(3)), []);
      assert.deepEqual(await check({ capacity_utilization: 80 }, at(4)), [], "another metric moved: not judged");
      assert.deepEqual(await check({ total_emissions_kg: null }, at(5)), [], "null: not reached");
      assert.equal((await check({ total_emissions_kg: 2000 }, at(6))).length, 1);
      // The sibling's own threshold applies to it only (and the account-wide one too).
      assert.deepEqual(
        (await check({ renewable_share_percent: 10, total_emissions_kg: 5 }, at(7), sibling)).map((d) => d.thresholdId),
        [renewable.id],
      );
      assert.equal((await exceeded(storage, acme, webhook.id)).length, 3, "each crossing was queued");
    });

    test("concurrent registrations crossing at once send one notification", async (t) => {
      const storage = await fresh(t);
      const acme = await newAccount(storage, "Threshold Race");
      const webhook = webhookRecord(acme);
      await insertWebhook(storage, webhook);
      const event = eventAt(acme, at(0), { capacity: 20 });
      await insertEvent(storage, event);
      await updateEvent(storage, acme, event.id, { status: "published" }, at(1));
      await storage.insertThreshold(thresholdRecord(acme, { value: 25 }));
      await Promise.all(
        Array.from({ length: 12 }, (_, i) => registerAttendee(storage, attendeeAt(acme, event.id, at(10 + i)))),
      );
      const crossings = await exceeded(storage, acme, webhook.id);
      assert.deepEqual(
        crossings.map((data) => data.value),
        [25],
      );
    });
  });
}
