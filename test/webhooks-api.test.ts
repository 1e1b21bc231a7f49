/**
 * End-to-end: webhook registration and management (create, read, list, update, delete) under
 * /v1 and /api, the secret shown once, the https:// and SSRF checks on the URL (and the server
 * option that lifts the latter), scopes, account isolation and Idempotency-Key. Deliveries are
 * not covered here.
 *
 * Every accepted URL is on a public IP literal: no DNS is available to the tests, and the
 * service makes no request to the URL when a webhook is registered.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { createServer, type Socket } from "node:net";
import { after, before, describe, test } from "node:test";
import { type ApiResponse, queryDatabase, startServer, type TestServer } from "./_setup.ts";
import { type Client, clientFor, expectError, expectStatus, ids, ISO_UTC, PREFIXES } from "./fixtures/api.ts";
import {
  createWebhook,
  EVENT_TYPES,
  GENERATED_SECRET,
  NON_PUBLIC_URLS,
  PUBLIC_IP,
  publicUrl,
  WEBHOOK_ID,
  webhookInput,
  withoutSecret,
} from "./fixtures/webhooks.ts";

let server: TestServer;
/** A second server, on its own database, with `WEBHOOK_ALLOW_PRIVATE_NETWORKS=true`. */
let open: TestServer;
/** Account A, every scope. */
let v1: Client;
let api: Client;
/** Account B, every scope. */
let other: Client;
let accountA: string;
/** Every secret any answer showed, checked against the servers' output at the end. */
const secrets = new Set<string>();

const keep = <T extends { secret?: string }>(webhook: T): T => {
  if (typeof webhook.secret === "string") secrets.add(webhook.secret);
  return webhook;
};

/** A client of a new account (enterprise limits: bursts are never rate limited). */
let accounts = 0;
async function newClient(target: TestServer = server, prefix: "/v1" | "/api" = "/v1"): Promise<Client> {
  accounts += 1;
  const { key } = await target.createKey({ account: `Hooks ${accounts} ${Date.now()}`, tier: "enterprise" });
  return clientFor(target, key, prefix);
}

/** Every webhook of a client's account (one page of up to 100), asserting the total matches. */
async function all(client: Client, query = ""): Promise<any[]> {
  const body = expectStatus(await client.get(`/webhooks?limit=100${query}`), 200);
  assert.equal(body.webhooks.length, body.pagination.total);
  return body.webhooks;
}

/** The stored secret of a webhook, read from the server's database (the API never shows it again). */
async function storedSecret(id: string): Promise<string | undefined> {
  return (await queryDatabase<{ secret: string }>(server.database, "SELECT secret FROM webhooks WHERE id = ?", [id]))[0]
    ?.secret;
}

function assertNoSecret(webhook: Record<string, unknown>, where: string) {
  assert.equal(Object.hasOwn(webhook, "secret"), false, `${where} shows no secret: ${JSON.stringify(webhook)}`);
}

before(async () => {
  [server, open] = await Promise.all([
    startServer({ env: { LOG_LEVEL: "trace" } }),
    startServer({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" } }),
  ]);
  const [a, b] = await Promise.all([
    server.createKey({ account: "Hooks A", tier: "enterprise" }),
    server.createKey({ account: "Hooks B", tier: "enterprise" }),
  ]);
  accountA = a.accountId;
  v1 = clientFor(server, a.key);
  api = clientFor(server, a.key, "/api");
  other = clientFor(server, b.key);
});

after(async () => {
  for (const target of [server, open]) {
    const output = target.output();
    assert.equal(await target.stop("SIGTERM"), 0, "the server exits 0 on SIGTERM");
    assert.doesNotMatch(output, /"msg":"unexpected error"/, "no request failed unexpectedly");
  }
});

describe("POST /webhooks: create", () => {
  test("a minimal webhook comes back whole, with defaults and a generated secret", async () => {
    const url = publicUrl();
    const response = await v1.post("/webhooks", { url, events: ["event.created", "attendee.registered"] });
    const created = keep(expectStatus(response, 201));
    assert.equal(response.headers.get("x-content-type-options"), "nosniff");
    assert.match(created.id, WEBHOOK_ID);
    assert.match(created.secret, GENERATED_SECRET);
    assert.match(created.createdAt, ISO_UTC);
    assert.deepEqual(created, {
      id: created.id,
      url,
      events: ["event.created", "attendee.registered"],
      description: null,
      active: true,
      metadata: {},
      consecutiveFailures: 0,
      disabledAt: null,
      createdAt: created.createdAt,
      updatedAt: created.createdAt,
      secret: created.secret,
    });
    assert.equal(await storedSecret(created.id), created.secret, "the shown secret is the one stored");

    const fetched = expectStatus(await v1.get(`/webhooks/${created.id}`), 200);
    assertNoSecret(fetched, "GET /webhooks/:id");
    assert.deepEqual(fetched, withoutSecret(created));
  });

  test("a full webhook through /api keeps every field: its secret, description, active false, metadata", async () => {
    const secret = `whsec_${Buffer.from("my own secret, 32 bytes long....").toString("base64")}`;
    const url = publicUrl("full");
    const created = keep(
      expectStatus(
        await api.post("/webhooks", {
          url,
          events: ["*"],
          description: "  Orders to the CRM  ",
          secret,
          active: false,
          metadata: { team: "crm", priority: 2, beta: true, note: null },
        }),
        201,
      ),
    );
    assert.match(created.id, WEBHOOK_ID);
    assert.deepEqual(created, {
      id: created.id,
      url,
      events: ["*"],
      description: "Orders to the CRM",
      active: false,
      metadata: { team: "crm", priority: 2, beta: true, note: null },
      consecutiveFailures: 0,
      disabledAt: null,
      createdAt: created.createdAt,
      updatedAt: created.createdAt,
      secret,
    });
    assert.equal(await storedSecret(created.id), secret);
    // /v1 and /api are one API.
    assert.deepEqual(expectStatus(await v1.get(`/webhooks/${created.id}`), 200), withoutSecret(created));
  });

  test("the URL is stored in its normalised form", async () => {
    const cases: Array<[string, string]> = [
      [`https://${PUBLIC_IP}`, `https://${PUBLIC_IP}/`],
      // A fragment never reaches the receiver: dropped, so one endpoint is one URL.
      [`HTTPS://${PUBLIC_IP}:443/A/../In?x=1&y=%7e#frag`, `https://${PUBLIC_IP}/In?x=1&y=%7e`],
      [`  https://${PUBLIC_IP}:8443/padded  `, `https://${PUBLIC_IP}:8443/padded`],
      ["https://[2606:4700:4700:0:0:0:0:1111]/v6", "https://[2606:4700:4700::1111]/v6"],
      ["https://8.8.8.8/dns", "https://8.8.8.8/dns"],
    ];
    const client = await newClient();
    for (const [given, stored] of cases) {
      const created = keep(
        expectStatus(await client.post("/webhooks", { url: given, events: ["event.updated"] }), 201),
      );
      assert.equal(created.url, stored, given);
      assert.equal(expectStatus(await client.get(`/webhooks/${created.id}`), 200).url, stored);
    }
    expectError(
      await client.post("/webhooks", { url: `https://${PUBLIC_IP}/In?x=1&y=%7e#other`, events: ["event.updated"] }),
      409,
      "DUPLICATE_WEBHOOK",
    );
  });

  test("generated secrets and ids differ for every webhook", async () => {
    const made = await Promise.all(Array.from({ length: 5 }, () => createWebhook(v1)));
    made.forEach(keep);
    for (const webhook of made) assert.match(webhook.secret, GENERATED_SECRET);
    assert.equal(new Set(made.map((webhook) => webhook.secret)).size, 5);
    assert.equal(new Set(ids(made)).size, 5);
  });

  test("a given secret must be whsec_ and the base64 of 24 to 64 bytes (the Standard Webhooks form)", async () => {
    const b64 = (bytes: number, fill = 0xab) => Buffer.alloc(bytes, fill).toString("base64");
    for (const secret of [
      `whsec_${b64(24)}`,
      `whsec_${b64(64)}`,
      `whsec_${b64(32, 0xff)}`,
      `whsec_${b64(25)}`,
      `whsec_${b64(26)}`,
      "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    ]) {
      const created = keep(expectStatus(await v1.post("/webhooks", webhookInput({ secret })), 201));
      assert.equal(created.secret, secret);
    }
    const refused: unknown[] = [
      `whsec_${b64(23)}`, // too short
      `whsec_${b64(65)}`, // too long
      b64(32), // no prefix
      `WHSEC_${b64(32)}`,
      `whsec_${b64(32).replace(/=+$/, "")}==`, // wrong padding
      `whsec_${b64(25).replace(/=+$/, "")}`, // unpadded
      `whsec_${Buffer.alloc(32, 0xfb).toString("base64url")}`, // base64url, not base64
      `whsec_${b64(32)} `,
      `whsec_ ${b64(32)}`,
      "my-own-secret_0123456789!~", // a free-form secret (accepted before)
      "a".repeat(64),
      "whsec_",
      "",
      1234567890123456,
      null,
    ];
    for (const secret of refused) {
      expectError(await v1.post("/webhooks", webhookInput({ secret })), 400, "INVALID_REQUEST", "secret");
    }
  });

  test("events: every notification type and `*` are accepted; repeats are dropped in order", async () => {
    const everything = keep(expectStatus(await v1.post("/webhooks", webhookInput({ events: [...EVENT_TYPES] })), 201));
    assert.deepEqual(everything.events, [...EVENT_TYPES]);
    const repeated = keep(
      expectStatus(
        await v1.post(
          "/webhooks",
          webhookInput({ events: ["attendee.updated", "*", "attendee.updated", "*", "event.deleted"] }),
        ),
        201,
      ),
    );
    assert.deepEqual(repeated.events, ["attendee.updated", "*", "event.deleted"]);
    assert.deepEqual(expectStatus(await v1.get(`/webhooks/${repeated.id}`), 200).events, [
      "attendee.updated",
      "*",
      "event.deleted",
    ]);
  });

  test("an unknown event type is 400 INVALID_EVENT_TYPE naming its index", async () => {
    const cases: Array<[string[], string]> = [
      [["event.created", "attendee.registered", "event.exploded"], "events.2"],
      [["Event.Created"], "events.0"],
      [["event.created", "event.*"], "events.1"],
      [["webhook.ping"], "events.0"],
      [["payment.processed", "event.created"], "events.0"],
      // However long or empty, an unknown name is an unknown event type.
      [["event.created", `event.${"x".repeat(80)}`], "events.1"],
      [[""], "events.0"],
    ];
    const before = (await all(v1)).length;
    for (const [events, field] of cases) {
      const error = expectError(await v1.post("/webhooks", webhookInput({ events })), 400, "INVALID_EVENT_TYPE", field);
      assert.match(
        error.message,
        new RegExp(JSON.stringify(events[Number(field.split(".")[1])]).replace(/[.*]/g, "\\$&")),
      );
    }
    assert.equal((await all(v1)).length, before, "nothing was created");
    // Repeats are folded before anything is counted.
    const repeated = keep(
      expectStatus(
        await v1.post("/webhooks", webhookInput({ events: Array.from({ length: 40 }, () => "event.created") })),
        201,
      ),
    );
    assert.deepEqual(repeated.events, ["event.created"]);
  });

  test("a URL that is not https:// (or carries credentials) is 400 INVALID_URL on field url", async () => {
    const refused = [
      `http://${PUBLIC_IP}/hook`,
      `ftp://${PUBLIC_IP}/hook`,
      `ws://${PUBLIC_IP}/hook`,
      "not a url",
      `${PUBLIC_IP}/hook`,
      "//93.184.216.34/hook",
      "https://",
      `https://user:pass@${PUBLIC_IP}/hook`,
      `https://user@${PUBLIC_IP}/hook`,
      `https://:pass@${PUBLIC_IP}/hook`,
    ];
    for (const url of refused) {
      for (const client of [v1, api]) {
        expectError(await client.post("/webhooks", { url, events: ["event.created"] }), 400, "INVALID_URL", "url");
      }
    }
  });

  test("a malformed body is 400 INVALID_REQUEST naming the field", async () => {
    const cases: Array<[unknown, string | undefined]> = [
      [{ events: ["event.created"] }, "url"],
      [{ url: "", events: ["event.created"] }, "url"],
      [{ url: 42, events: ["event.created"] }, "url"],
      [{ url: `https://${PUBLIC_IP}/${"a".repeat(2100)}`, events: ["event.created"] }, "url"],
      [{ url: publicUrl() }, "events"],
      [{ url: publicUrl(), events: [] }, "events"],
      [{ url: publicUrl(), events: "event.created" }, "events"],
      [{ url: publicUrl(), events: [42] }, "events.0"],
      [{ url: publicUrl(), events: ["event.created"], colour: "green" }, "colour"],
      [{ url: publicUrl(), events: ["event.created"], id: "wh_000000000000000000000000" }, "id"],
      [{ url: publicUrl(), events: ["event.created"], consecutiveFailures: 3 }, "consecutiveFailures"],
      [{ url: publicUrl(), events: ["event.created"], active: "yes" }, "active"],
      [{ url: publicUrl(), events: ["event.created"], description: "x".repeat(501) }, "description"],
      [{ url: publicUrl(), events: ["event.created"], description: 7 }, "description"],
      [{ url: publicUrl(), events: ["event.created"], metadata: ["a", "b"] }, "metadata"],
      [{ url: publicUrl(), events: ["event.created"], metadata: "team=crm" }, "metadata"],
      [{ url: publicUrl(), events: ["event.created"], metadata: { nested: { deep: 1 } } }, "metadata.nested"],
      [{ url: publicUrl(), events: ["event.created"], metadata: { list: [1, 2] } }, "metadata.list"],
      [{ url: publicUrl(), events: ["event.created"], metadata: { ["k".repeat(41)]: 1 } }, "metadata"],
      [{ url: publicUrl(), events: ["event.created"], metadata: { long: "v".repeat(501) } }, "metadata.long"],
      [
        {
          url: publicUrl(),
          events: ["event.created"],
          metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])),
        },
        "metadata",
      ],
    ];
    const before = (await all(v1)).length;
    for (const [body, field] of cases) {
      const error = expectError(await v1.post("/webhooks", body), 400, "INVALID_REQUEST");
      assert.ok(
        error.field === field || error.field?.startsWith(`${field}.`),
        `field ${error.field} for ${JSON.stringify(body).slice(0, 120)}`,
      );
    }
    // A reserved metadata key, sent as raw JSON (an object literal would set the prototype).
    const raw = `{"url":"${publicUrl()}","events":["event.created"],"metadata":{"__proto__":"x"}}`;
    const reserved = expectError(
      await server.request("POST", "/v1/webhooks", {
        key: v1.key,
        raw,
        headers: { "content-type": "application/json" },
      }),
      400,
      "INVALID_REQUEST",
    );
    assert.match(reserved.field ?? "", /^metadata/);
    // Not an object at all.
    for (const rawBody of ["[]", "null", '"https://93.184.216.34/"', "{not json"]) {
      expectError(
        await server.request("POST", "/v1/webhooks", {
          key: v1.key,
          raw: rawBody,
          headers: { "content-type": "application/json" },
        }),
        400,
        "INVALID_REQUEST",
      );
    }
    expectError(await server.request("POST", "/v1/webhooks", { key: v1.key }), 400, "INVALID_REQUEST");
    assert.equal((await all(v1)).length, before, "nothing was created");
  });

  test("the same URL twice in one account is 409 DUPLICATE_WEBHOOK; another account may use it", async () => {
    const url = publicUrl("shared");
    const first = keep(expectStatus(await v1.post("/webhooks", { url, events: ["event.created"] }), 201));
    const again = expectError(
      await api.post("/webhooks", { url, events: ["attendee.registered"] }),
      409,
      "DUPLICATE_WEBHOOK",
      "url",
    );
    assert.ok(again.message.includes(url), again.message);
    // The same URL in another spelling is the same URL.
    expectError(
      await v1.post("/webhooks", {
        url: url.replace("https://", "HTTPS://").replace(PUBLIC_IP, `${PUBLIC_IP}:443`),
        events: ["*"],
      }),
      409,
      "DUPLICATE_WEBHOOK",
      "url",
    );
    expectError(await v1.post("/webhooks", { url: ` ${url} `, events: ["*"] }), 409, "DUPLICATE_WEBHOOK", "url");
    assert.deepEqual(
      (await all(v1)).filter((webhook) => webhook.url === url).map((webhook) => webhook.id),
      [first.id],
    );

    // Another path, query or port is another URL.
    for (const variant of [`${url}/sub`, `${url}?v=2`, url.replace(PUBLIC_IP, `${PUBLIC_IP}:8443`)]) {
      assert.equal(keep(expectStatus(await v1.post("/webhooks", { url: variant, events: ["*"] }), 201)).url, variant);
    }
    // Another account.
    const theirs = keep(expectStatus(await other.post("/webhooks", { url, events: ["event.created"] }), 201));
    assert.notEqual(theirs.id, first.id);
    assert.equal(theirs.url, url);
  });
});

describe("SSRF guard (default)", () => {
  for (const [url, why] of NON_PUBLIC_URLS) {
    test(`${url} (${why}) is refused: 400 INVALID_URL on field url`, async () => {
      for (const prefix of PREFIXES) {
        const error = expectError(
          await server.request("POST", `${prefix}/webhooks`, { key: v1.key, body: { url, events: ["*"] } }),
          400,
          "INVALID_URL",
          "url",
        );
        assert.ok(error.message.length > 0);
      }
    });
  }

  test("a host name that cannot be resolved is refused: 400 INVALID_URL", async () => {
    for (const url of ["https://does-not-exist.invalid/", "https://no-such-host.invalid:8443/hook"]) {
      expectError(await v1.post("/webhooks", { url, events: ["*"] }), 400, "INVALID_URL", "url");
    }
  });

  test("none of the refused URLs was stored", async () => {
    const urls = new Set((await all(v1)).map((webhook) => webhook.url));
    for (const [url] of NON_PUBLIC_URLS) assert.equal(urls.has(new URL(url).href), false, url);
  });

  test("public literals are accepted: IPv4, IPv6 and IPv4-mapped public", async () => {
    const client = await newClient();
    const cases: Array<[string, string]> = [
      [`https://${PUBLIC_IP}/hook`, `https://${PUBLIC_IP}/hook`],
      ["https://1.1.1.1:8443/in", "https://1.1.1.1:8443/in"],
      ["https://[2606:4700:4700::1111]/hook", "https://[2606:4700:4700::1111]/hook"],
      ["https://[::ffff:93.184.216.34]/mapped", "https://[::ffff:5db8:d822]/mapped"],
    ];
    for (const [url, stored] of cases) {
      const created = keep(expectStatus(await client.post("/webhooks", { url, events: ["event.created"] }), 201));
      assert.equal(created.url, stored);
    }
  });

  test("PUT applies the same guard: a private URL is refused and the webhook keeps its URL", async () => {
    const webhook = keep(await createWebhook(v1));
    for (const url of [
      "https://127.0.0.1/",
      "https://169.254.169.254/",
      "https://[fd00::1]/",
      "https://localhost/x",
      "https://does-not-exist.invalid/",
    ]) {
      expectError(await v1.put(`/webhooks/${webhook.id}`, { url }), 400, "INVALID_URL", "url");
    }
    assert.deepEqual(expectStatus(await v1.get(`/webhooks/${webhook.id}`), 200), withoutSecret(webhook));
  });
});

describe("WEBHOOK_ALLOW_PRIVATE_NETWORKS=true", () => {
  test("loopback and private URLs are accepted, still https:// only", async () => {
    const client = await newClient(open);
    const cases: Array<[string, string]> = [
      ["https://127.0.0.1:8443/hook", "https://127.0.0.1:8443/hook"],
      ["https://localhost/x", "https://localhost/x"],
      ["https://10.1.2.3/", "https://10.1.2.3/"],
      ["https://192.168.0.1/in", "https://192.168.0.1/in"],
      ["https://[::1]:9443/", "https://[::1]:9443/"],
      ["https://[fd00::1]/", "https://[fd00::1]/"],
      [`https://${PUBLIC_IP}/public-too`, `https://${PUBLIC_IP}/public-too`],
    ];
    for (const [url, stored] of cases) {
      const created = keep(expectStatus(await client.post("/webhooks", { url, events: ["*"] }), 201));
      assert.equal(created.url, stored, url);
      assert.match(created.secret, GENERATED_SECRET);
      assert.equal(expectStatus(await client.get(`/webhooks/${created.id}`), 200).url, stored);
    }
    for (const url of [
      "http://127.0.0.1:8443/hook",
      "http://localhost/x",
      "ftp://10.1.2.3/",
      `https://user:pw@127.0.0.1/`,
    ]) {
      expectError(await client.post("/webhooks", { url, events: ["*"] }), 400, "INVALID_URL", "url");
    }
    // A PUT to a private URL works there too.
    const moved = expectStatus(
      await client.put(`/webhooks/${(await all(client))[0].id}`, { url: "https://172.16.5.4/moved" }),
      200,
    );
    assert.equal(moved.url, "https://172.16.5.4/moved");
    assert.equal((await all(client)).length, cases.length);
  });

  test("registering a webhook makes no connection to its URL", async () => {
    const client = await newClient(open);
    const sockets: Socket[] = [];
    const listener = createServer((socket) => {
      sockets.push(socket);
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
    try {
      const port = (listener.address() as { port: number }).port;
      const created = keep(
        expectStatus(await client.post("/webhooks", { url: `https://127.0.0.1:${port}/hook`, events: ["*"] }), 201),
      );
      expectStatus(
        await client.put(`/webhooks/${created.id}`, { url: `https://127.0.0.1:${port}/other`, active: true }),
        200,
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(sockets.length, 0, "no connection reached the receiver");
    } finally {
      await new Promise((resolve) => listener.close(resolve));
    }
  });
});

describe("GET /webhooks/:id and GET /webhooks", () => {
  test("GET one: 200 without the secret; unknown or another account's is 404 NOT_FOUND", async () => {
    const mine = keep(await createWebhook(v1, { description: "read me", metadata: { a: "b" } }));
    for (const client of [v1, api]) {
      const fetched = expectStatus(await client.get(`/webhooks/${mine.id}`), 200);
      assertNoSecret(fetched, "GET /webhooks/:id");
      assert.deepEqual(fetched, withoutSecret(mine));
    }
    for (const id of [
      "wh_000000000000000000000000",
      "wh_nope",
      "evt_000000000000000000000000",
      mine.id.toUpperCase(),
    ]) {
      expectError(await v1.get(`/webhooks/${id}`), 404, "NOT_FOUND");
    }
    expectError(await other.get(`/webhooks/${mine.id}`), 404, "NOT_FOUND");
    expectError(await clientFor(server, other.key, "/api").get(`/webhooks/${mine.id}`), 404, "NOT_FOUND");
  });

  test("a list: newest first, no secrets, only the account's own; `active` filters", async () => {
    const client = await newClient();
    const made: any[] = [];
    for (const overrides of [{}, { active: false }, {}, { active: false }, {}])
      made.push(keep(await createWebhook(client, overrides)));
    const newestFirst = [...made].sort((a, b) =>
      a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1,
    );

    const body = expectStatus(await client.get("/webhooks"), 200);
    assert.deepEqual(Object.keys(body).sort(), ["pagination", "webhooks"]);
    assert.deepEqual(body.pagination, { page: 1, limit: 20, total: 5, totalPages: 1, hasNext: false, hasPrev: false });
    for (const webhook of body.webhooks) assertNoSecret(webhook, "GET /webhooks");
    assert.deepEqual(body.webhooks, newestFirst.map(withoutSecret));
    assert.deepEqual(expectStatus(await clientFor(server, client.key, "/api").get("/webhooks"), 200), body);

    const active = expectStatus(await client.get("/webhooks?active=true"), 200);
    assert.deepEqual(ids(active.webhooks), ids(newestFirst.filter((webhook) => webhook.active)));
    assert.equal(active.pagination.total, 3);
    const inactive = expectStatus(await client.get("/webhooks?active=false"), 200);
    assert.deepEqual(ids(inactive.webhooks), ids(newestFirst.filter((webhook) => !webhook.active)));
    assert.equal(inactive.pagination.total, 2);

    // Another account sees none of them.
    const theirs = new Set(ids(await all(other)));
    for (const webhook of made) assert.equal(theirs.has(webhook.id), false);
  });

  test("paging: page and limit (or perPage); a page past the end is empty", async () => {
    const client = await newClient();
    const made: any[] = [];
    for (let i = 0; i < 5; i++) made.push(keep(await createWebhook(client)));
    const order = ids(expectStatus(await client.get("/webhooks"), 200).webhooks);
    assert.equal(order.length, 5);

    const first = expectStatus(await client.get("/webhooks?page=1&limit=2"), 200);
    assert.deepEqual(ids(first.webhooks), order.slice(0, 2));
    assert.deepEqual(first.pagination, { page: 1, limit: 2, total: 5, totalPages: 3, hasNext: true, hasPrev: false });
    const second = expectStatus(await client.get("/webhooks?page=2&perPage=2"), 200);
    assert.deepEqual(ids(second.webhooks), order.slice(2, 4));
    assert.deepEqual(second.pagination, { page: 2, limit: 2, total: 5, totalPages: 3, hasNext: true, hasPrev: true });
    const last = expectStatus(await client.get("/webhooks?page=3&limit=2"), 200);
    assert.deepEqual(ids(last.webhooks), order.slice(4));
    assert.deepEqual(last.pagination, { page: 3, limit: 2, total: 5, totalPages: 3, hasNext: false, hasPrev: true });
    const past = expectStatus(await client.get("/webhooks?page=4&limit=2"), 200);
    assert.deepEqual(past.webhooks, []);
    assert.deepEqual(past.pagination, { page: 4, limit: 2, total: 5, totalPages: 3, hasNext: false, hasPrev: true });
    const inactivePage = expectStatus(await client.get("/webhooks?active=false&limit=100"), 200);
    assert.deepEqual(inactivePage, {
      webhooks: [],
      pagination: { page: 1, limit: 100, total: 0, totalPages: 0, hasNext: false, hasPrev: false },
    });
  });

  test("a bad query is 400 INVALID_REQUEST naming the parameter", async () => {
    const cases: Array<[string, string]> = [
      ["active=yes", "active"],
      ["active=1", "active"],
      ["active=TRUE", "active"],
      ["limit=0", "limit"],
      ["limit=101", "limit"],
      ["limit=ten", "limit"],
      ["limit=2.5", "limit"],
      ["perPage=500", "perPage"],
      ["limit=10&perPage=20", "perPage"],
      ["page=0", "page"],
      ["page=-1", "page"],
      ["page=x", "page"],
      ["secret=1", "secret"],
      ["sortBy=url", "sortBy"],
    ];
    for (const [query, field] of cases) {
      expectError(await v1.get(`/webhooks?${query}`), 400, "INVALID_REQUEST", field);
    }
  });
});

describe("PUT /webhooks/:id: partial update", () => {
  test("only the supplied fields change; the answer and later reads show no secret; the secret is kept", async () => {
    const secret = `whsec_${Buffer.from("kept-secret-0123456789abcdef").toString("base64")}`;
    const original = keep(
      await createWebhook(v1, { events: ["event.created"], description: "first", metadata: { a: 1 }, secret }),
    );

    const eventsOnly = expectStatus(
      await v1.put(`/webhooks/${original.id}`, { events: ["attendee.checked_in", "attendee.checked_in", "*"] }),
      200,
    );
    assertNoSecret(eventsOnly, "PUT /webhooks/:id");
    assert.match(eventsOnly.updatedAt, ISO_UTC);
    assert.ok(eventsOnly.updatedAt >= original.updatedAt);
    assert.deepEqual(eventsOnly, {
      ...withoutSecret(original),
      events: ["attendee.checked_in", "*"],
      updatedAt: eventsOnly.updatedAt,
    });
    assert.deepEqual(expectStatus(await v1.get(`/webhooks/${original.id}`), 200), eventsOnly);

    const newUrl = publicUrl("moved");
    const moved: any = expectStatus(
      await api.put(`/webhooks/${original.id}`, {
        url: `HTTPS://${newUrl.slice("https://".length)}`,
        description: "second",
        active: false,
        metadata: { b: "two", c: false },
      }),
      200,
    );
    assertNoSecret(moved, "PUT /webhooks/:id");
    assert.equal(moved.id, original.id);
    assert.equal(moved.createdAt, original.createdAt);
    assert.deepEqual(moved, {
      ...withoutSecret(original),
      url: newUrl,
      events: ["attendee.checked_in", "*"],
      description: "second",
      active: false,
      metadata: { b: "two", c: false },
      updatedAt: moved.updatedAt,
    });

    const cleared = expectStatus(await v1.put(`/webhooks/${original.id}`, { description: null }), 200);
    assert.equal(cleared.description, null);
    assert.deepEqual(cleared, { ...moved, description: null, updatedAt: cleared.updatedAt });

    const reactivated = expectStatus(await v1.put(`/webhooks/${original.id}`, { active: true }), 200);
    assert.deepEqual(reactivated, {
      ...cleared,
      active: true,
      consecutiveFailures: 0,
      disabledAt: null,
      updatedAt: reactivated.updatedAt,
    });

    const empty = expectStatus(await v1.put(`/webhooks/${original.id}`, {}), 200);
    assert.deepEqual({ ...empty, updatedAt: 0 }, { ...reactivated, updatedAt: 0 });

    const fetched = expectStatus(await v1.get(`/webhooks/${original.id}`), 200);
    assertNoSecret(fetched, "GET /webhooks/:id");
    assert.deepEqual(fetched, empty);
    for (const webhook of await all(v1)) assertNoSecret(webhook, "GET /webhooks");
    assert.equal(await storedSecret(original.id), secret, "no update changed the secret");
  });

  test("url: its own URL again is fine; another webhook's URL is 409; the same checks as create", async () => {
    const one = keep(await createWebhook(v1));
    const two = keep(await createWebhook(v1));
    const same = expectStatus(await v1.put(`/webhooks/${one.id}`, { url: one.url, events: ["event.deleted"] }), 200);
    assert.equal(same.url, one.url);
    assert.deepEqual(same.events, ["event.deleted"]);
    expectStatus(await v1.put(`/webhooks/${one.id}`, { url: `  ${one.url}  ` }), 200);

    const taken = expectError(await v1.put(`/webhooks/${one.id}`, { url: two.url }), 409, "DUPLICATE_WEBHOOK", "url");
    assert.ok(taken.message.includes(two.url), taken.message);
    expectError(
      await api.put(`/webhooks/${one.id}`, { url: two.url.replace(PUBLIC_IP, `${PUBLIC_IP}:443`) }),
      409,
      "DUPLICATE_WEBHOOK",
      "url",
    );

    for (const url of [`http://${PUBLIC_IP}/x`, "not a url", `https://u:p@${PUBLIC_IP}/x`]) {
      expectError(await v1.put(`/webhooks/${one.id}`, { url }), 400, "INVALID_URL", "url");
    }
    expectError(
      await v1.put(`/webhooks/${one.id}`, { events: ["event.created", "event.nope"] }),
      400,
      "INVALID_EVENT_TYPE",
      "events.1",
    );
    // Another account's URL does not count.
    const theirs = keep(await createWebhook(other));
    assert.equal(expectStatus(await v1.put(`/webhooks/${one.id}`, { url: theirs.url }), 200).url, theirs.url);
    // The failed attempts changed nothing of `two` (nor of `one` but its successful updates).
    assert.deepEqual(expectStatus(await v1.get(`/webhooks/${two.id}`), 200), withoutSecret(two));
    const now = expectStatus(await v1.get(`/webhooks/${one.id}`), 200);
    assert.deepEqual(
      { ...now, updatedAt: 0 },
      { ...withoutSecret(one), url: theirs.url, events: ["event.deleted"], updatedAt: 0 },
    );
  });

  test("a malformed update is 400 INVALID_REQUEST and changes nothing; secret is not accepted", async () => {
    const webhook = keep(await createWebhook(v1, { metadata: { keep: "me" } }));
    const cases: Array<[unknown, string]> = [
      [{ secret: "a-brand-new-secret-value" }, "secret"],
      [{ id: "wh_000000000000000000000000" }, "id"],
      [{ createdAt: "2020-01-01T00:00:00.000Z" }, "createdAt"],
      [{ consecutiveFailures: 0 }, "consecutiveFailures"],
      [{ events: [] }, "events"],
      [{ events: null }, "events"],
      [{ url: null }, "url"],
      [{ url: "" }, "url"],
      [{ active: null }, "active"],
      [{ active: "false" }, "active"],
      [{ description: "x".repeat(501) }, "description"],
      [{ metadata: [1] }, "metadata"],
      [{ metadata: { nested: { no: true } } }, "metadata.nested"],
    ];
    for (const [body, field] of cases) {
      expectError(await v1.put(`/webhooks/${webhook.id}`, body), 400, "INVALID_REQUEST", field);
    }
    assert.deepEqual(expectStatus(await v1.get(`/webhooks/${webhook.id}`), 200), withoutSecret(webhook));
    assert.equal(await storedSecret(webhook.id), webhook.secret);
  });

  test("another account's webhook or an unknown id is 404 NOT_FOUND, and nothing changes", async () => {
    const mine = keep(await createWebhook(v1));
    expectError(await other.put(`/webhooks/${mine.id}`, { description: "hijacked", active: false }), 404, "NOT_FOUND");
    expectError(
      await clientFor(server, other.key, "/api").put(`/webhooks/${mine.id}`, { url: publicUrl() }),
      404,
      "NOT_FOUND",
    );
    expectError(await v1.put("/webhooks/wh_000000000000000000000000", { description: "x" }), 404, "NOT_FOUND");
    assert.deepEqual(expectStatus(await v1.get(`/webhooks/${mine.id}`), 200), withoutSecret(mine));
  });
});

describe("DELETE /webhooks/:id", () => {
  test("200 {success, message, deletedId}; then GET, PUT and DELETE are 404; the URL is free again", async () => {
    const webhook = keep(await createWebhook(v1));
    const response = await v1.delete(`/webhooks/${webhook.id}`);
    const body = expectStatus(response, 200);
    assert.deepEqual(Object.keys(body).sort(), ["deletedId", "message", "success"]);
    assert.equal(body.success, true);
    assert.equal(body.deletedId, webhook.id);
    assert.equal(typeof body.message, "string");
    assert.ok(body.message.includes(webhook.id), body.message);

    expectError(await v1.get(`/webhooks/${webhook.id}`), 404, "NOT_FOUND");
    expectError(await v1.put(`/webhooks/${webhook.id}`, { active: false }), 404, "NOT_FOUND");
    expectError(await v1.delete(`/webhooks/${webhook.id}`), 404, "NOT_FOUND");
    expectError(await api.delete(`/webhooks/${webhook.id}`), 404, "NOT_FOUND");
    assert.equal(ids(await all(v1)).includes(webhook.id), false);
    assert.equal(await storedSecret(webhook.id), undefined, "the row is gone");

    const again = keep(expectStatus(await v1.post("/webhooks", { url: webhook.url, events: ["*"] }), 201));
    assert.notEqual(again.id, webhook.id);
    assert.notEqual(again.secret, webhook.secret);
  });

  test("through /api too; another account's or an unknown id is 404 and deletes nothing", async () => {
    const webhook = keep(await createWebhook(v1));
    expectError(await other.delete(`/webhooks/${webhook.id}`), 404, "NOT_FOUND");
    expectError(await v1.delete("/webhooks/wh_000000000000000000000000"), 404, "NOT_FOUND");
    assert.deepEqual(expectStatus(await v1.get(`/webhooks/${webhook.id}`), 200), withoutSecret(webhook));
    const deleted = expectStatus(await api.delete(`/webhooks/${webhook.id}`), 200);
    assert.deepEqual({ ...deleted, message: 0 }, { success: true, message: 0, deletedId: webhook.id });
    assert.ok(deleted.message.includes(webhook.id), deleted.message);
    expectError(await v1.get(`/webhooks/${webhook.id}`), 404, "NOT_FOUND");
  });
});

describe("scopes", () => {
  let read: Client;
  let write: Client;
  let none: Client;

  before(async () => {
    const made = await Promise.all([
      // Enterprise, as the account's other keys (a key's tier caps the account's webhooks); webhooks:write with
      // events:read, which subscribing to the event.* types of these calls needs.
      server.createKey({ account: accountA, tier: "enterprise", scopes: ["webhooks:read"] }),
      server.createKey({ account: accountA, tier: "enterprise", scopes: ["webhooks:write", "events:read"] }),
      server.createKey({
        account: accountA,
        tier: "enterprise",
        scopes: ["events:read", "events:write", "attendees:read", "attendees:write", "analytics:read"],
      }),
    ]);
    for (const key of made) assert.equal(key.accountId, accountA);
    [read, write, none] = made.map((key) => clientFor(server, key.key)) as [Client, Client, Client];
  });

  type Call = {
    name: string;
    scope: "webhooks:read" | "webhooks:write";
    ok: number;
    send(client: Client): Promise<ApiResponse>;
  };
  const calls: Call[] = [
    { name: "POST /webhooks", scope: "webhooks:write", ok: 201, send: (c) => c.post("/webhooks", webhookInput()) },
    { name: "GET /webhooks", scope: "webhooks:read", ok: 200, send: (c) => c.get("/webhooks") },
    {
      name: "GET /webhooks/:id",
      scope: "webhooks:read",
      ok: 200,
      send: async (c) => c.get(`/webhooks/${keep(await createWebhook(v1)).id}`),
    },
    {
      name: "PUT /webhooks/:id",
      scope: "webhooks:write",
      ok: 200,
      send: async (c) => c.put(`/webhooks/${keep(await createWebhook(v1)).id}`, { active: false }),
    },
    {
      name: "DELETE /webhooks/:id",
      scope: "webhooks:write",
      ok: 200,
      send: async (c) => c.delete(`/webhooks/${keep(await createWebhook(v1)).id}`),
    },
  ];

  for (const call of calls) {
    test(`${call.name} needs ${call.scope}${call.scope === "webhooks:read" ? " (or webhooks:write)" : ""}: 403 FORBIDDEN otherwise, 401 without a key`, async () => {
      for (const prefix of PREFIXES) {
        const [r, w, n] = [read, write, none].map((client) => clientFor(server, client.key, prefix));
        const readAnswer = await call.send(r!);
        const writeAnswer = await call.send(w!);
        if (call.scope === "webhooks:read") {
          // webhooks:write includes webhooks:read (docs/api.md, API keys and scopes); webhooks:read never writes.
          expectStatus(readAnswer, call.ok);
          expectStatus(writeAnswer, call.ok);
        } else {
          expectError(readAnswer, 403, "FORBIDDEN");
          keep(expectStatus(writeAnswer, call.ok));
        }
        expectError(await call.send(n!), 403, "FORBIDDEN");
      }
      const anonymous = await server.request(
        call.name.split(" ")[0]!,
        `/v1${call.name.split(" ")[1]!.replace(":id", "wh_000000000000000000000000")}`,
        {
          ...(call.name.startsWith("P") && { body: webhookInput() }),
        },
      );
      expectError(anonymous, 401, "UNAUTHORIZED");
    });
  }

  test("a forbidden write changes nothing", async () => {
    const target = keep(await createWebhook(v1));
    const before = ids(await all(v1));
    const url = publicUrl("forbidden");
    expectError(await read.post("/webhooks", { url, events: ["*"] }), 403, "FORBIDDEN");
    expectError(await none.post("/webhooks", { url, events: ["*"] }), 403, "FORBIDDEN");
    expectError(await read.put(`/webhooks/${target.id}`, { description: "no" }), 403, "FORBIDDEN");
    expectError(await read.delete(`/webhooks/${target.id}`), 403, "FORBIDDEN");
    assert.deepEqual(ids(await all(v1)), before);
    assert.deepEqual(expectStatus(await v1.get(`/webhooks/${target.id}`), 200), withoutSecret(target));
  });
});

describe("Idempotency-Key on POST /webhooks", () => {
  const withKey = (key: string) => ({ headers: { "idempotency-key": key } });

  test("a retry replays the same 201 and body, secret included, and creates one webhook", async () => {
    const client = await newClient();
    const key = randomUUID();
    const input = webhookInput({ events: ["event.published", "event.cancelled"], description: "once" });
    const first = await client.post("/webhooks", input, withKey(key));
    const created = keep(expectStatus(first, 201));
    assert.match(created.secret, GENERATED_SECRET);
    assert.equal(first.headers.get("idempotent-replayed"), null);

    for (const retry of [client, clientFor(server, client.key, "/api")]) {
      const again = await retry.post("/webhooks", input, withKey(key));
      assert.equal(again.status, 201);
      assert.equal(again.headers.get("idempotent-replayed"), "true");
      assert.deepEqual(again.body, created, "the same body, the same secret");
    }
    assert.deepEqual(await all(client), [withoutSecret(created)]);

    // Without the key, the same body is a second registration of the URL.
    expectError(await client.post("/webhooks", input), 409, "DUPLICATE_WEBHOOK", "url");
    // The key with another body is refused.
    expectError(
      await client.post("/webhooks", { ...input, description: "twice" }, withKey(key)),
      422,
      "IDEMPOTENCY_KEY_REUSED",
    );
    // A given secret is replayed as given.
    const secretKey = randomUUID();
    const replayedSecret = `whsec_${Buffer.from("replayed-secret-0123456789-abcdef").toString("base64")}`;
    const withSecret = webhookInput({ secret: replayedSecret });
    const once = keep(expectStatus(await client.post("/webhooks", withSecret, withKey(secretKey)), 201));
    const twice = await client.post("/webhooks", withSecret, withKey(secretKey));
    assert.equal(twice.headers.get("idempotent-replayed"), "true");
    assert.deepEqual(twice.body, once);
    assert.equal(once.secret, replayedSecret);
    assert.equal((await all(client)).length, 2);
  });

  test("a failed create is replayed as the same error and creates nothing", async () => {
    const client = await newClient();
    const key = randomUUID();
    const input = { url: "https://127.0.0.1/", events: ["*"] };
    expectError(await client.post("/webhooks", input, withKey(key)), 400, "INVALID_URL", "url");
    const again = await client.post("/webhooks", input, withKey(key));
    expectError(again, 400, "INVALID_URL", "url");
    assert.equal((await all(client)).length, 0);
  });
});

test("no secret ever appears in either server's output", () => {
  assert.ok(secrets.size > 40, `collected ${secrets.size} secrets`);
  for (const target of [server, open]) {
    const output = target.output();
    assert.match(output, /"msg":"request"/, "the server logged its requests");
    for (const secret of secrets)
      assert.equal(output.includes(secret), false, `secret ${secret.slice(0, 10)}… appears in the output`);
  }
});
