/**
 * examples/webhook-receiver, run as a user would: verifies the Standard Webhooks headers on the
 * raw body (signature and replay window), de-duplicates by webhook-id, and receives real
 * deliveries from the server over HTTPS.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { request as httpsRequest } from "node:https";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { signPayload, signWebhook } from "@event-service/core/webhooks";
import { ROOT, startServer } from "./_setup.ts";
import { clientFor, createEvent, expectStatus } from "./fixtures/api.ts";
import { makeCertificate } from "./fixtures/conventions.ts";

const SECRET = `whsec_${Buffer.from("example receiver secret, 32 byte").toString("base64")}`;

interface RunningReceiver {
  url: string;
  child: ChildProcess;
  output(): string;
  /** Resolves once the receiver printed a line matching `pattern` `count` times. */
  waitForLines(pattern: RegExp, count: number): Promise<string[]>;
}

function startExample(env: Record<string, string>): Promise<RunningReceiver> {
  const child = spawn(process.execPath, [join(ROOT, "examples/webhook-receiver/index.js")], {
    cwd: join(ROOT, "examples/webhook-receiver"),
    env: { ...process.env, PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const listeners = new Set<() => void>();
  child.stdout!.on("data", (chunk) => {
    output += chunk;
    for (const listener of [...listeners]) listener();
  });
  child.stderr!.on("data", (chunk) => (output += chunk));
  const lines = (pattern: RegExp) => output.split("\n").filter((line) => pattern.test(line));
  const waitForLines = (pattern: RegExp, count: number) =>
    new Promise<string[]>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`receiver: no ${count} lines matching ${pattern}:\n${output}`)),
        20_000,
      );
      const check = () => {
        if (lines(pattern).length < count) return;
        listeners.delete(check);
        clearTimeout(timer);
        resolve(lines(pattern));
      };
      listeners.add(check);
      check();
    });
  return waitForLines(/"msg":"listening"/, 1).then(([line]) => ({
    url: JSON.parse(line!).url,
    child,
    output: () => output,
    waitForLines,
  }));
}

function post(
  url: string,
  ca: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const request = httpsRequest(
      url,
      { method: "POST", ca, headers: { "content-type": "application/json", ...headers } },
      (response) => {
        let text = "";
        response.on("data", (chunk) => (text += chunk));
        response.on("end", () => resolve({ status: response.statusCode!, body: JSON.parse(text) }));
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}

describe("examples/webhook-receiver", () => {
  let tls: ReturnType<typeof makeCertificate>;
  let receiver: RunningReceiver;

  before(async () => {
    tls = makeCertificate();
    receiver = await startExample({ WEBHOOK_SECRET: SECRET, TLS_CERT: tls.certPath, TLS_KEY: tls.keyPath });
  });
  after(() => {
    receiver.child.kill("SIGTERM");
    rmSync(tls.dir, { recursive: true, force: true });
  });

  test("accepts a signed delivery once, answers a duplicate without handling it again, refuses a bad signature", async () => {
    const body = JSON.stringify({
      id: "dlv_example_1",
      type: "webhook.ping",
      createdAt: new Date().toISOString(),
      data: {},
      account: { id: "acct_1", name: "Acme" },
    });
    const now = () => Math.floor(Date.now() / 1000);
    const signed = {
      ...signWebhook([SECRET], "dlv_example_1", now(), body),
      "x-service-signature": signPayload(SECRET, body),
      "x-service-event": "webhook.ping",
    };
    assert.deepEqual(await post(receiver.url, tls.cert, body, signed), { status: 200, body: { received: true } });
    assert.deepEqual(await post(receiver.url, tls.cert, body, signed), {
      status: 200,
      body: { received: true, duplicate: true },
    });
    // A later attempt of the same envelope (new timestamp) is the same webhook-id: a duplicate.
    assert.deepEqual(
      await post(receiver.url, tls.cert, body, signWebhook([SECRET], "dlv_example_1", now() + 1, body)),
      { status: 200, body: { received: true, duplicate: true } },
    );
    const tampered = body.replace("Acme", "Evil");
    assert.deepEqual(await post(receiver.url, tls.cert, tampered, signed), {
      status: 401,
      body: { error: "invalid_signature" },
    });
    const other = `whsec_${Buffer.alloc(32, 1).toString("base64")}`;
    assert.deepEqual(await post(receiver.url, tls.cert, body, signWebhook([other], "dlv_example_1", now(), body)), {
      status: 401,
      body: { error: "invalid_signature" },
    });
    // A captured delivery replayed 10 minutes later: refused, though its signature is intact.
    const captured = signWebhook([SECRET], "dlv_example_2", now() - 600, body);
    assert.deepEqual(await post(receiver.url, tls.cert, body, captured), {
      status: 401,
      body: { error: "timestamp_too_old" },
    });
    // The GitHub-style header alone is no longer enough: no replay protection.
    assert.deepEqual(await post(receiver.url, tls.cert, body, { "x-service-signature": signPayload(SECRET, body) }), {
      status: 401,
      body: { error: "missing_headers" },
    });
    assert.equal((await post(receiver.url, tls.cert, body, {})).status, 401);
    const handled = await receiver.waitForLines(/"msg":"handled","id":"dlv_example_1"/, 1);
    assert.equal(handled.length, 1);
  });

  test("receives the server's real deliveries", async () => {
    const server = await startServer({
      env: { NODE_EXTRA_CA_CERTS: tls.certPath, WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" },
    });
    try {
      const key = await server.createKey({ account: "Example Co" });
      const client = clientFor(server, key.key);
      const webhook = expectStatus(
        await client.post("/webhooks", { url: `${receiver.url}hooks`, events: ["event.created"], secret: SECRET }),
        201,
      );
      const event = await createEvent(client);
      const [line] = await receiver.waitForLines(/"type":"event.created"/, 1);
      const handled = JSON.parse(line!);
      assert.equal(handled.account, key.accountId);
      const log = expectStatus(await client.get(`/webhooks/${webhook.id}/deliveries`), 200);
      assert.equal(log.deliveries[0].id, handled.id);
      assert.equal(log.deliveries[0].payload.data.event.id, event.id);
    } finally {
      await server.stop();
    }
  });
});
