/**
 * End-to-end: replay-safe signatures and secret rotation. The real server delivers to a real
 * HTTPS receiver; every attempt's Standard Webhooks headers are verified with the reference
 * `standardwebhooks` library itself and with our `verifyWebhook`, before, during (both secrets
 * sign) and after a rotation (the overlap shortened through WEBHOOK_SECRET_OVERLAP_MS, so the
 * test waits seconds, not 24 hours). Also: replays and tampering refused, the route's answers
 * and scopes, and no secret in the server's output.
 */
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { verifySignature, verifyWebhook, WebhookVerificationError } from "@event-service/core/webhooks";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { startServer, type TestServer } from "./_setup.ts";
import { type Client, clientFor, createEvent, expectError, expectStatus } from "./fixtures/api.ts";
import { makeCertificate, sleep } from "./fixtures/conventions.ts";
import { deliveryEnv, type Received, type Receiver, startReceiver } from "./fixtures/receiver.ts";
import { GENERATED_SECRET, withoutSecret } from "./fixtures/webhooks.ts";

/** How long a rotated-out secret signs in these servers. */
const OVERLAP_MS = 15_000;

let tls: ReturnType<typeof makeCertificate>;
let receiver: Receiver;
let server: TestServer;
let client: Client;
const secrets = new Set<string>();

before(async () => {
  tls = makeCertificate();
  receiver = await startReceiver({ cert: tls.cert, key: readFileSync(tls.keyPath, "utf8") });
  server = await startServer({ env: deliveryEnv(tls.certPath, { WEBHOOK_SECRET_OVERLAP_MS: String(OVERLAP_MS) }) });
  client = clientFor(server, (await server.createKey({ account: "Signing Co" })).key);
});

after(async () => {
  const output = server.output();
  try {
    await server.stop();
  } finally {
    await receiver.close();
  }
  rmSync(tls.dir, { recursive: true, force: true });
  for (const secret of secrets) {
    assert.equal(output.includes(secret), false, "no secret in the server's output");
    assert.equal(output.includes(secret.slice(6)), false, "no secret's key in the server's output");
  }
});

let pathCounter = 0;

/** Registers a webhook for `event.created` on a new receiver path. */
async function hook(overrides: Record<string, unknown> = {}) {
  const path = `/signed/${++pathCounter}`;
  const webhook = expectStatus(
    await client.post("/webhooks", { url: `${receiver.origin}${path}`, events: ["event.created"], ...overrides }),
    201,
  );
  secrets.add(webhook.secret);
  return { webhook, path };
}

/** Creates an event and returns the delivery of its `event.created` to `path`. */
async function nextDelivery(path: string): Promise<Received> {
  const before = receiver.at(path).length;
  await createEvent(client);
  await receiver.waitFor(() => receiver.at(path).length > before, `a delivery at ${path}`);
  return receiver.at(path)[before]!;
}

const headersOf = (request: Received) => request.headers as Record<string, string>;
/** The reference library's verdict (it checks the timestamp against the real clock, 5 min tolerance). */
const libraryAccepts = (secret: string, request: Received) => {
  try {
    new StandardWebhook(secret).verify(request.raw, headersOf(request));
    return true;
  } catch {
    return false;
  }
};
const oursAccepts = (secret: string, request: Received) => {
  try {
    return verifyWebhook(secret, request.headers, request.raw).id === request.body.id;
  } catch (error) {
    if (error instanceof WebhookVerificationError) return false;
    throw error;
  }
};

describe("Standard Webhooks headers on real deliveries", () => {
  test("every attempt carries webhook-id (the envelope id), webhook-timestamp (this attempt) and a v1 signature both verifiers accept", async () => {
    const { webhook, path } = await hook();
    assert.match(webhook.secret, GENERATED_SECRET);
    const sentAfter = Math.floor(Date.now() / 1000);
    const request = await nextDelivery(path);
    const headers = headersOf(request);
    assert.equal(headers["webhook-id"], request.body.id);
    assert.equal(headers["webhook-id"], headers["x-service-delivery"]);
    assert.match(headers["webhook-timestamp"]!, /^\d{10}$/);
    const timestamp = Number(headers["webhook-timestamp"]);
    assert.ok(timestamp >= sentAfter && timestamp <= Math.floor(Date.now() / 1000), "the attempt's own time");
    assert.match(headers["webhook-signature"]!, /^v1,[A-Za-z0-9+/]{43}=$/);
    assert.equal(libraryAccepts(webhook.secret, request), true, "the standardwebhooks library verifies it");
    assert.equal(oursAccepts(webhook.secret, request), true, "verifyWebhook verifies it");
    assert.deepEqual(new StandardWebhook(webhook.secret).verify(request.raw, headers), request.body);
    assert.ok(
      verifySignature(webhook.secret, request.raw, headers["x-service-signature"]),
      "X-Service-Signature stays",
    );

    // Tampering: another body, another id, a moved timestamp.
    const tampered = { ...request, raw: request.raw.replace(request.body.id, "dlv_000000000000000000000000") };
    assert.equal(libraryAccepts(webhook.secret, tampered), false);
    assert.equal(oursAccepts(webhook.secret, tampered), false);
    for (const [name, value] of [
      ["webhook-id", "dlv_000000000000000000000000"],
      ["webhook-timestamp", String(timestamp - 1)],
    ] as const) {
      const moved = { ...request, headers: { ...request.headers, [name]: value } };
      assert.equal(libraryAccepts(webhook.secret, moved), false, name);
      assert.equal(oursAccepts(webhook.secret, moved), false, name);
    }
    // A replay of this captured delivery ten minutes later is refused, signature intact.
    const later = new Date((timestamp + 600) * 1000);
    assert.throws(
      () => verifyWebhook(webhook.secret, request.headers, request.raw, { now: later }),
      (error: unknown) => error instanceof WebhookVerificationError && error.reason === "timestamp_too_old",
    );
    assert.equal(
      verifyWebhook(webhook.secret, request.headers, request.raw, { now: later, toleranceSeconds: 900 }).id,
      request.body.id,
    );
  });

  test("a host name is resolved once by the pinned lookup and the connection still trusts NODE_EXTRA_CA_CERTS", async () => {
    // localhost: the system resolver through the connection's own lookup, TLS checked against the test CA for that name.
    const { webhook } = await hook({ url: `${receiver.origin.replace("127.0.0.1", "localhost")}/by-name` });
    assert.match(webhook.url, /^https:\/\/localhost:\d+\/by-name$/);
    const request = await nextDelivery("/by-name");
    assert.equal(request.body.type, "event.created");
    assert.ok(libraryAccepts(webhook.secret, request));
  });

  test("retries, redeliveries and pings are signed afresh: the same webhook-id, each attempt's own timestamp", async () => {
    const { webhook, path } = await hook();
    receiver.answer = (request, index) =>
      request.path === path && index === 0 ? { status: 500 } : { status: 200, body: "ok" };
    try {
      await createEvent(client);
      await receiver.waitFor(() => receiver.at(path).length >= 2, "a failed attempt and its retry");
    } finally {
      receiver.answer = () => ({ status: 200, body: "ok" });
    }
    const [first, retry] = receiver.at(path);
    assert.equal(headersOf(retry!)["webhook-id"], headersOf(first!)["webhook-id"]);
    for (const request of [first!, retry!])
      assert.ok(libraryAccepts(webhook.secret, request) && oursAccepts(webhook.secret, request));
    await sleep(1_100); // a new second, so the redelivery's timestamp differs
    const deliveryId = first!.body.id;
    expectStatus(await client.post(`/webhooks/${webhook.id}/deliveries/${deliveryId}/redeliver`), 202);
    await receiver.waitFor(() => receiver.at(path).length >= 3, "the redelivery");
    const redelivered = receiver.at(path)[2]!;
    assert.equal(
      headersOf(redelivered)["webhook-id"],
      deliveryId,
      "a redelivery keeps the id: receivers de-duplicate on it",
    );
    assert.ok(Number(headersOf(redelivered)["webhook-timestamp"]) > Number(headersOf(first!)["webhook-timestamp"]));
    assert.ok(libraryAccepts(webhook.secret, redelivered) && oursAccepts(webhook.secret, redelivered));
    const ping = expectStatus(await client.post(`/webhooks/${webhook.id}/ping`), 200);
    const pinged = receiver.at(path).find((request) => request.body.id === ping.id)!;
    assert.equal(headersOf(pinged)["webhook-id"], ping.id);
    assert.ok(libraryAccepts(webhook.secret, pinged) && oursAccepts(webhook.secret, pinged));
  });
});

describe("POST /webhooks/:id/rotate-secret", () => {
  test("before, during and after a rotation: both secrets verify in the overlap, only the new one after it", async () => {
    const { webhook, path } = await hook();
    const oldSecret = webhook.secret as string;
    const before = await nextDelivery(path);
    assert.equal(libraryAccepts(oldSecret, before), true);

    const rotatedAt = Date.now();
    const rotated = expectStatus(await client.post(`/webhooks/${webhook.id}/rotate-secret`), 200);
    secrets.add(rotated.secret);
    const newSecret = rotated.secret as string;
    assert.match(newSecret, GENERATED_SECRET);
    assert.notEqual(newSecret, oldSecret);
    const expiresAt = Date.parse(rotated.previousSecretExpiresAt);
    assert.ok(
      expiresAt >= rotatedAt + OVERLAP_MS - 1_000 && expiresAt <= Date.now() + OVERLAP_MS + 1_000,
      rotated.previousSecretExpiresAt,
    );
    const { secret: _secret, previousSecretExpiresAt: _expires, ...shown } = rotated;
    assert.deepEqual(shown, { ...withoutSecret(webhook), updatedAt: rotated.updatedAt });
    // Never shown again, nor the previous one.
    const read = expectStatus(await client.get(`/webhooks/${webhook.id}`), 200);
    assert.deepEqual(
      Object.keys(read).filter((key) => /secret/i.test(key)),
      [],
    );

    // During the overlap: two signatures, either secret verifies, with either verifier.
    const during = await nextDelivery(path);
    assert.ok(Number(headersOf(during)["webhook-timestamp"]) * 1000 < expiresAt, "sent within the overlap");
    const signatures = headersOf(during)["webhook-signature"]!.split(" ");
    assert.equal(signatures.length, 2);
    for (const secret of [newSecret, oldSecret]) {
      assert.equal(libraryAccepts(secret, during), true, "the library accepts either secret");
      assert.equal(oursAccepts(secret, during), true, "verifyWebhook accepts either secret");
    }
    assert.equal(
      new StandardWebhook(newSecret).sign(
        during.body.id,
        new Date(Number(headersOf(during)["webhook-timestamp"]) * 1000),
        during.raw,
      ),
      signatures[0],
    );
    assert.ok(
      verifySignature(newSecret, during.raw, headersOf(during)["x-service-signature"]),
      "X-Service-Signature uses the new secret",
    );
    assert.equal(verifySignature(oldSecret, during.raw, headersOf(during)["x-service-signature"]), false);

    // After the overlap: the old secret no longer signs.
    while (Date.now() <= expiresAt + 1_000) await sleep(200);
    const afterwards = await nextDelivery(path);
    assert.equal(headersOf(afterwards)["webhook-signature"]!.split(" ").length, 1);
    assert.equal(libraryAccepts(newSecret, afterwards), true);
    assert.equal(oursAccepts(newSecret, afterwards), true);
    assert.equal(libraryAccepts(oldSecret, afterwards), false, "the old secret fails with the library");
    assert.equal(oursAccepts(oldSecret, afterwards), false, "the old secret fails with verifyWebhook");
  });

  test("a second rotation ends the first one's overlap at once: only the last two secrets sign", async () => {
    const { webhook, path } = await hook();
    const first = expectStatus(await client.post(`/webhooks/${webhook.id}/rotate-secret`), 200);
    const second = expectStatus(await client.post(`/webhooks/${webhook.id}/rotate-secret`), 200);
    secrets.add(first.secret);
    secrets.add(second.secret);
    const request = await nextDelivery(path);
    assert.equal(headersOf(request)["webhook-signature"]!.split(" ").length, 2);
    assert.deepEqual(
      [second.secret, first.secret, webhook.secret].map((secret) => oursAccepts(secret, request)),
      [true, true, false],
    );
    assert.deepEqual(
      [second.secret, first.secret, webhook.secret].map((secret) => libraryAccepts(secret, request)),
      [true, true, false],
    );
  });

  test("a client-given secret works the same way, and is replaced by a generated one", async () => {
    const given = `whsec_${Buffer.alloc(24, 0x5a).toString("base64")}`;
    const { webhook, path } = await hook({ secret: given });
    assert.equal(webhook.secret, given);
    assert.equal(libraryAccepts(given, await nextDelivery(path)), true);
    const rotated = expectStatus(await client.post(`/webhooks/${webhook.id}/rotate-secret`), 200);
    secrets.add(rotated.secret);
    assert.match(rotated.secret, GENERATED_SECRET);
  });

  test("answers: 404 for an unknown or another account's webhook, 403 without webhooks:write, 401 without a key; /api too", async () => {
    const { webhook } = await hook();
    expectError(await client.post("/webhooks/wh_000000000000000000000000/rotate-secret"), 404, "NOT_FOUND");
    const other = clientFor(server, (await server.createKey({ account: "Other Co" })).key);
    expectError(await other.post(`/webhooks/${webhook.id}/rotate-secret`), 404, "NOT_FOUND");
    const reader = clientFor(
      server,
      (await server.createKey({ account: "Signing Co", scopes: ["webhooks:read"] })).key,
    );
    expectError(await reader.post(`/webhooks/${webhook.id}/rotate-secret`), 403, "FORBIDDEN");
    assert.equal((await server.request("POST", `/v1/webhooks/${webhook.id}/rotate-secret`)).status, 401);
    const viaApi = await server.request("POST", `/api/webhooks/${webhook.id}/rotate-secret`, { key: client.key });
    assert.equal(viaApi.status, 200);
    secrets.add((viaApi.body as { secret: string }).secret);
  });

  test("the OpenAPI document lists the route with its answer's schema", async () => {
    const document = (await server.request("GET", "/openapi.json")).body as any;
    const operation = document.paths["/v1/webhooks/{id}/rotate-secret"]?.post;
    assert.ok(operation, Object.keys(document.paths).join(", "));
    assert.equal(operation.operationId, "rotateWebhookSecret");
    const schema = operation.responses["200"].content["application/json"].schema;
    const resolved = schema.$ref ? document.components.schemas[schema.$ref.split("/").pop()] : schema;
    for (const field of ["id", "url", "secret", "previousSecretExpiresAt"])
      assert.ok(resolved.properties[field], field);
  });
});
