/**
 * The door's check-in link in core: its token (`chk_`, redacted in logs), the rule deciding what
 * a scan comes to, the code hash a browser computes the same way with Web Crypto, and each
 * link's own per-minute budget in the handler (1,200 by default, `doorLinkLimitPerMinute`).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createHandler, type HandlerOptions } from "../src/http/handler.ts";
import { isLinkToken, newLinkToken, redactLinkTokens } from "../src/resources/link-token.ts";
import { confirmationCodeHash, doorResultOf } from "../src/rules/check-in.ts";
import { createEventService } from "../src/service.ts";
import { sqliteStorage } from "./_sqlite.ts";
import { EVENT } from "./_fixtures.ts";

describe("check-in link tokens", () => {
  test("chk_ and 43 URL-safe characters; not another kind's; cut to their prefix in a log", () => {
    const token = newLinkToken("door");
    assert.match(token, /^chk_[A-Za-z0-9_-]{43}$/);
    assert.equal(isLinkToken(token, "door"), true);
    assert.equal(isLinkToken(token, "ticket"), false);
    assert.equal(isLinkToken(newLinkToken("ticket"), "door"), false);
    assert.equal(redactLinkTokens(`/v1/check-in/${token}/scan`), "/v1/check-in/chk_…/scan");
  });
});

describe("what a scan comes to", () => {
  const open = { status: "published" as const };
  const free = null;
  const unpaid = { admittedAt: null };
  const paid = { admittedAt: "2038-04-01T00:00:00.000Z" };

  test("a closed door first, then cancelled, waiting, checked in, unpaid; else checked in", () => {
    const cases: Array<[Parameters<typeof doorResultOf>[0], Parameters<typeof doorResultOf>[1], string]> = [
      [{ status: "draft" }, { status: "confirmed", payment: free }, "event_not_open"],
      [{ status: "cancelled" }, { status: "checked-in", payment: free }, "event_not_open"],
      [{ status: "completed" }, { status: "confirmed", payment: paid }, "event_not_open"],
      [open, { status: "cancelled", payment: paid }, "cancelled"],
      [open, { status: "waitlisted", payment: free }, "not_admitted"],
      [open, { status: "checked-in", payment: paid }, "already_checked_in"],
      [open, { status: "pending", payment: unpaid }, "payment_required"],
      [open, { status: "pending", payment: free }, "checked_in"],
      [open, { status: "confirmed", payment: free }, "checked_in"],
      [open, { status: "confirmed", payment: paid }, "checked_in"],
    ];
    for (const [event, attendee, expected] of cases)
      assert.equal(doorResultOf(event, attendee), expected, JSON.stringify({ event, attendee }));
  });

  test("the code hash: SHA-256 of the normalised code, as Web Crypto computes it in a browser", async () => {
    const expected = Buffer.from(
      await globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode("EVT-7KQ2-M9XH")),
    ).toString("hex");
    for (const typed of ["EVT-7KQ2-M9XH", "evt 7kq2 m9xh", "EVT7KQ2M9XH", " evt\u20137kq2-m9xh "])
      assert.equal(confirmationCodeHash(typed), expected, typed);
    assert.equal(
      confirmationCodeHash("not a code"),
      Buffer.from(await globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode("NOTACODE"))).toString(
        "hex",
      ),
    );
  });
});

describe("the door link in the handler", () => {
  async function setUp(options: HandlerOptions) {
    const storage = await sqliteStorage();
    // A clock that stands still: the budget's minute never turns during the test.
    const service = createEventService({ storage, now: () => new Date("2037-01-01T12:00:30.000Z") });
    const handler = createHandler(service, { clientAddress: () => "198.51.100.9", ...options });
    const { accountId } = await service.keys.create({ account: "Acme" });
    const account = service.forAccount(accountId);
    const event = await account.events.create({ ...EVENT, name: "Door Summit" });
    const paths: string[] = [];
    for (const label of ["North", "South"])
      paths.push(new URL((await account.events.createCheckInLink(event.id, { label })).url!).pathname);
    const status = async (path: string, init: RequestInit = {}) => {
      const response = await handler(new Request(`http://localhost${path}`, init));
      return { status: response.status, body: await response.json() };
    };
    return { storage, paths, status };
  }

  test("each link has a budget of its own, 1,200 a minute by default: past it 429 naming checkInLink, another link unaffected", async (t) => {
    const { storage, paths, status } = await setUp({ linkLimitPerMinute: 5 });
    t.after(() => storage.close());
    const answers = new Set<number>();
    for (let i = 0; i < 1_200; i++) answers.add((await status(paths[0]!)).status);
    assert.deepEqual([...answers], [200]);
    const refused = await status(`${paths[0]}/offline-list`);
    assert.equal(refused.status, 429);
    assert.equal(refused.body.error.details.scope, "checkInLink");
    assert.match(refused.body.error.message, /through this check-in link \(limit 1200 per minute\)/);
    assert.equal((await status(paths[1]!)).status, 200);
  });

  test("doorLinkLimitPerMinute sets it", async (t) => {
    const { storage, paths, status } = await setUp({ doorLinkLimitPerMinute: 3 });
    t.after(() => storage.close());
    const scan = {
      method: "POST",
      body: JSON.stringify({ code: "EVT-2222-2222" }),
      headers: { "content-type": "application/json" },
    };
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push((await status(`${paths[0]}/scan`, scan)).status);
    assert.deepEqual(answers, [200, 200, 200, 429]);
    assert.equal((await status(paths[1]!)).status, 200);
  });
});
