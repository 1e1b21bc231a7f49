/**
 * The one rule of which scope reads which notification type, and the service applying it: the
 * subscription check, the redacted delivery log, the refused redelivery, and the caller without
 * a key (every scope, the enterprise cap).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ServiceError } from "../src/errors.ts";
import { holdsScope, SCOPES, scopesGranting } from "../src/resources/api-key.ts";
import {
  assertSubscribable,
  canReadNotification,
  READ_SCOPE_BY_FAMILY,
  readScopesFor,
  WEBHOOK_EVENT_TYPES,
} from "../src/resources/webhook.ts";
import { WEBHOOK_LIMITS } from "../src/rules/webhook-quota.ts";
import { toApiDelivery } from "../src/resources/webhook-delivery.ts";
import { createEventService } from "../src/service.ts";
import { PING_EVENT_TYPE } from "../src/resources/webhook.ts";
import { sqliteStorage } from "./_sqlite.ts";
import { EVENT } from "./_fixtures.ts";

const READS = ["events:read", "attendees:read", "analytics:read", "vendors:read", "payments:read"] as const;

describe("the rule", () => {
  test("every subscribable type belongs to a family with its read scope (none falls through to every scope)", () => {
    for (const type of WEBHOOK_EVENT_TYPES) {
      const family = type.split(".")[0]!;
      assert.ok(Object.hasOwn(READ_SCOPE_BY_FAMILY, family), type);
      const extra = type === "sustainability.carbon_offset" ? ["attendees:read"] : [];
      assert.deepEqual(readScopesFor(type), [
        READ_SCOPE_BY_FAMILY[family as keyof typeof READ_SCOPE_BY_FAMILY],
        ...extra,
      ]);
    }
    assert.deepEqual(READ_SCOPE_BY_FAMILY, {
      event: "events:read",
      sustainability: "events:read",
      attendee: "attendees:read",
      analytics: "analytics:read",
      vendor: "vendors:read",
      payment: "payments:read",
    });
  });

  test("`*` and an unknown type need every read scope; the ping none", () => {
    assert.deepEqual([...readScopesFor("*")].sort(), [...READS].sort());
    assert.deepEqual([...readScopesFor("billing.invoice_paid")].sort(), [...READS].sort());
    assert.deepEqual(readScopesFor(PING_EVENT_TYPE), []);
    assert.equal(canReadNotification(PING_EVENT_TYPE, []), true);
    assert.equal(canReadNotification("attendee.registered", ["events:read", "webhooks:read"]), false);
    assert.equal(canReadNotification("attendee.registered", ["attendees:read"]), true);
    // The offset notification carries the registration: its family's scope is not enough.
    assert.equal(canReadNotification("sustainability.carbon_offset", ["events:read"]), false);
    assert.equal(canReadNotification("sustainability.carbon_offset", ["events:read", "attendees:read"]), true);
  });

  test("a :write scope grants its family's :read (the one function every check goes through); a :read grants no :write", () => {
    assert.deepEqual(Object.fromEntries(SCOPES.map((scope) => [scope, scopesGranting(scope)])), {
      "events:read": ["events:read", "events:write"],
      "events:write": ["events:write"],
      "attendees:read": ["attendees:read", "attendees:write"],
      "attendees:write": ["attendees:write"],
      "webhooks:read": ["webhooks:read", "webhooks:write"],
      "webhooks:write": ["webhooks:write"],
      "analytics:read": ["analytics:read"],
      "vendors:read": ["vendors:read", "vendors:write"],
      "vendors:write": ["vendors:write"],
      "payments:read": ["payments:read", "payments:write"],
      "payments:write": ["payments:write"],
    });
    assert.equal(holdsScope(["attendees:write"], "attendees:read"), true);
    assert.equal(holdsScope(["attendees:read"], "attendees:write"), false);
    assert.equal(holdsScope(["events:write"], "attendees:read"), false);
    assert.equal(holdsScope([], "events:read"), false);
    assert.equal(canReadNotification("attendee.checked_in", ["attendees:write"]), true);
    assert.equal(canReadNotification("sustainability.carbon_offset", ["events:write", "attendees:write"]), true);
    assert.equal(canReadNotification("sustainability.carbon_offset", ["events:write"]), false);
    assert.doesNotThrow(() =>
      assertSubscribable(
        ["*"],
        ["events:write", "attendees:write", "analytics:read", "vendors:write", "payments:read"],
      ),
    );
    assert.doesNotThrow(() =>
      assertSubscribable(["attendee.registered", "attendee.checked_in"], ["attendees:write", "webhooks:write"]),
    );
    assert.throws(
      () => assertSubscribable(["*"], ["events:write", "attendees:write", "webhooks:write"]),
      (error: unknown) =>
        ServiceError.is(error) &&
        JSON.stringify(error.details) === '{"requiredScopes":["analytics:read","vendors:read","payments:read"]}',
    );
    const delivery = {
      id: "del_1",
      webhookId: "wh_1",
      type: "attendee.registered",
      status: "succeeded" as const,
      attemptCount: 1,
      nextAttemptAt: null,
      createdAt: "2041-01-01T00:00:00.000Z",
      updatedAt: "2041-01-01T00:00:00.000Z",
      payload: { data: { attendee: { email: "ada@example.org" } } },
      attempts: [
        {
          number: 1,
          startedAt: "2041-01-01T00:00:00.000Z",
          durationMs: 5,
          statusCode: 200,
          error: null,
          responseExcerpt: "ada@example.org",
          succeeded: true,
        },
      ],
    };
    assert.deepEqual(toApiDelivery(delivery, ["webhooks:read", "attendees:write"]), { ...delivery, redacted: false });
  });

  test("assertSubscribable names each missing scope once", () => {
    assert.doesNotThrow(() => assertSubscribable(["*"], SCOPES));
    assert.throws(
      () =>
        assertSubscribable(
          ["event.created", "sustainability.carbon_offset", "analytics.report_ready"],
          ["analytics:read"],
        ),
      (error: unknown) =>
        ServiceError.is(error) &&
        error.code === "FORBIDDEN" &&
        error.field === "events" &&
        JSON.stringify(error.details) === '{"requiredScopes":["events:read","attendees:read"]}',
    );
  });

  test("a redacted delivery hides what may echo its payload too: every attempt's responseExcerpt is null, nothing else", () => {
    const echo = JSON.stringify({ got: { data: { attendee: { email: "ada@example.org", phone: "+49 30 1234567" } } } });
    const attempt = (number: number, responseExcerpt: string | null) => ({
      number,
      startedAt: "2041-01-01T00:00:00.000Z",
      durationMs: 5,
      statusCode: 500,
      error: null,
      responseExcerpt,
      succeeded: false,
    });
    const record = {
      id: "del_1",
      webhookId: "wh_1",
      accountId: "acc_1",
      type: "attendee.registered",
      status: "pending" as const,
      attemptCount: 2,
      nextAttemptAt: "2041-01-01T00:01:00.000Z",
      createdAt: "2041-01-01T00:00:00.000Z",
      updatedAt: "2041-01-01T00:00:00.000Z",
      payload: { id: "del_1", type: "attendee.registered", data: { attendee: { email: "ada@example.org" } } },
      attempts: [attempt(1, echo), attempt(2, "plain")],
    };
    const { accountId: _accountId, ...whole } = record;
    assert.deepEqual(toApiDelivery(record, ["attendees:read"]), { ...whole, redacted: false });
    assert.deepEqual(toApiDelivery(record, ["webhooks:read", "events:read"]), {
      ...whole,
      payload: { ...whole.payload, data: null },
      attempts: [attempt(1, null), attempt(2, null)],
      redacted: true,
    });
    assert.equal(record.attempts[0]!.responseExcerpt, echo, "the stored record is left as it was");
  });

  test("the webhook limits by tier", () => {
    assert.deepEqual(WEBHOOK_LIMITS, { free: 5, starter: 20, professional: 50, enterprise: 200 });
  });
});

describe("the service", () => {
  test("without scopes a caller has them all; with a key's scopes the log is redacted and a redelivery refused", async () => {
    const storage = await sqliteStorage();
    const service = createEventService({ storage, webhooks: { allowPrivateNetworks: true } });
    const { accountId } = await service.keys.create({ account: "Acme" });
    const owner = service.forAccount(accountId);
    const hook = await owner.webhooks.create({ url: "https://93.184.216.34/all", events: ["*"] });
    await owner.events.create(EVENT);
    const [whole] = (await owner.webhooks.deliveries(hook.id)).deliveries;
    assert.equal(whole?.redacted, false);
    assert.equal((whole!.payload.data as { event: { name: string } }).event.name, "Green Summit");

    const narrow = service.forAccount(accountId, { scopes: ["webhooks:read", "webhooks:write"], tier: "free" });
    const [hidden] = (await narrow.webhooks.deliveries(hook.id)).deliveries;
    assert.deepEqual(hidden, { ...whole, payload: { ...whole!.payload, data: null }, redacted: true });
    await assert.rejects(
      narrow.webhooks.redeliver(hook.id, whole!.id),
      (error: unknown) => ServiceError.is(error) && error.code === "FORBIDDEN",
    );
    await assert.rejects(
      narrow.webhooks.create({ url: "https://93.184.216.34/mine", events: ["event.created"] }),
      (error: unknown) => ServiceError.is(error) && error.code === "FORBIDDEN",
    );
    await assert.rejects(
      narrow.webhooks.update(hook.id, { url: "https://93.184.216.34/mine" }),
      (error: unknown) => ServiceError.is(error) && error.code === "FORBIDDEN",
    );
    assert.equal((await owner.webhooks.get(hook.id)).url, "https://93.184.216.34/all");
    await storage.close();
  });

  test("the cap: the caller's tier, enterprise without one", async () => {
    const storage = await sqliteStorage();
    const service = createEventService({ storage, webhooks: { allowPrivateNetworks: true } });
    const { accountId } = await service.keys.create({ account: "Acme" });
    const free = service.forAccount(accountId, { tier: "free" });
    for (let i = 0; i < 5; i++)
      await free.webhooks.create({ url: `https://93.184.216.34/${i}`, events: ["event.created"] });
    await assert.rejects(
      free.webhooks.create({ url: "https://93.184.216.34/6", events: ["event.created"] }),
      (error: unknown) =>
        ServiceError.is(error) &&
        error.code === "INVALID_REQUEST" &&
        JSON.stringify(error.details) === '{"limit":5,"tier":"free"}',
    );
    const embedder = service.forAccount(accountId);
    await embedder.webhooks.create({ url: "https://93.184.216.34/6", events: ["event.created"] });
    assert.equal((await embedder.webhooks.list({ limit: "100" })).pagination.total, 6);
    await storage.close();
  });
});
