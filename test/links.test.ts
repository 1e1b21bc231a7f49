/**
 * End-to-end: the links the service hands out (`qrCode`, report URLs, `documentation`) come from
 * PUBLIC_URL, else a trusted proxy's forwarded origin, else the address the server listens on;
 * a client's `Host` header or absolute-form target never shapes one, in an answer or in a
 * stored notification.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startServer, type TestServer } from "./_setup.ts";
import { clientFor, createEvent, expectStatus } from "./fixtures/api.ts";
import { attendeeInput } from "./fixtures/builders.ts";
import { logLines, sleep } from "./fixtures/conventions.ts";
import { exchange } from "./fixtures/raw-http.ts";
import { createWebhook } from "./fixtures/webhooks.ts";

/** A registration sent with `Host: evil.example:666`, and a 404 asked for with an absolute-form target on that host. */
async function hostileLinks(server: TestServer, key: string, eventId: string) {
  const body = JSON.stringify(attendeeInput(eventId));
  const registered = await exchange(
    server.url,
    `POST /v1/attendees HTTP/1.1\r\nHost: evil.example:666\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  const absolute = await exchange(
    server.url,
    "GET http://evil.example:666/v1/nope HTTP/1.1\r\nHost: evil.example:666\r\nConnection: close\r\n\r\n",
  );
  const [attendee] = registered.responses;
  const [missing] = absolute.responses;
  assert.equal(attendee?.status, 201, registered.raw);
  assert.equal(missing?.status, 404, absolute.raw);
  return { attendee: attendee!.body, documentation: missing!.body.error.documentation as string };
}

/** `GET /` sent without a key and with `Host: evil.example:666`: its status and body. */
async function hostileIndex(server: TestServer) {
  const asked = await exchange(server.url, "GET / HTTP/1.1\r\nHost: evil.example:666\r\nConnection: close\r\n\r\n");
  const [index] = asked.responses;
  assert.equal(index?.status, 200, asked.raw);
  return index!.body;
}

/** The index `GET /` answers for links built on `base`. */
async function expectedIndex(server: TestServer, base: string) {
  const { info } = expectStatus(await server.request("GET", "/openapi.json"), 200);
  return {
    name: "Event Service",
    version: info.version,
    docs: `${base}/docs`,
    openapi: `${base}/openapi.json`,
    health: `${base}/health`,
  };
}

describe("without PUBLIC_URL, on a loopback address", () => {
  let server: TestServer;
  before(async () => (server = await startServer()));
  after(() => server.stop());

  test("a hostile Host or absolute-form target: links from the listening address, in the answer and the stored notification", async () => {
    const { key } = await server.createKey({ account: "Hosted" });
    const v1 = clientFor(server, key);
    const event = await createEvent(v1);
    const hook = await createWebhook(v1, { events: ["attendee.registered"] });
    const origin = server.url.replace(/\/$/, "");
    const { attendee, documentation } = await hostileLinks(server, key, event.id);
    assert.equal(attendee.qrCode, `${origin}/v1/qr/${attendee.id}.png`);
    assert.equal(documentation, `${origin}/docs#NOT_FOUND`);
    const deliveries = expectStatus(await v1.get(`/webhooks/${hook.id}/deliveries`), 200).deliveries;
    assert.equal(deliveries.length, 1);
    assert.equal(
      deliveries[0].payload.data.attendee?.qrCode ?? deliveries[0].payload.data.qrCode,
      `${origin}/v1/qr/${attendee.id}.png`,
    );
    assert.ok(!logLines(server.output()).some((line) => /PUBLIC_URL/.test(line.msg)), "no warning on loopback");
  });

  test("GET / (no key) is a small index whose links work; HEAD / answers the same without a body", async () => {
    const origin = server.url.replace(/\/$/, "");
    const index = await expectedIndex(server, origin);
    assert.deepEqual(await hostileIndex(server), index);
    const response = await server.request("GET", "/");
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
    assert.deepEqual(response.body, index);
    for (const link of [index.docs, index.openapi, index.health]) assert.equal((await fetch(link)).status, 200, link);
    const head = await fetch(`${origin}/`, { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), "");
  });
});

describe("with PUBLIC_URL", () => {
  let server: TestServer;
  before(async () => (server = await startServer({ env: { PUBLIC_URL: "https://events.example.com/" } })));
  after(() => server.stop());

  test("every link is built from it, whatever the Host", async () => {
    const { key } = await server.createKey({ account: "Public" });
    const event = await createEvent(clientFor(server, key));
    const { attendee, documentation } = await hostileLinks(server, key, event.id);
    assert.equal(attendee.qrCode, `https://events.example.com/v1/qr/${attendee.id}.png`);
    assert.equal(documentation, "https://events.example.com/docs#NOT_FOUND");
    assert.deepEqual(await hostileIndex(server), await expectedIndex(server, "https://events.example.com"));
  });
});

describe("HOST=0.0.0.0 without PUBLIC_URL", () => {
  let server: TestServer;
  before(async () => (server = await startServer({ env: { HOST: "0.0.0.0" } })));
  after(() => server.stop());

  test("warns at start, and links use the loopback address on the listening port", async () => {
    const port = new URL(server.url).port;
    const warned = () => logLines(server.output()).find((line) => line.level === 40 && /PUBLIC_URL/.test(line.msg));
    // Logged just after "listening", which the test waited for: give the log a moment.
    for (let i = 0; i < 100 && !warned(); i++) await sleep(20);
    const warning = warned();
    assert.ok(warning, server.output());
    assert.equal(warning.host, "0.0.0.0");
    assert.equal(warning.links, `http://127.0.0.1:${port}`);
    const { key } = await server.createKey({ account: "Everywhere" });
    const event = await createEvent(clientFor(server, key));
    const { attendee, documentation } = await hostileLinks(server, key, event.id);
    assert.equal(attendee.qrCode, `http://127.0.0.1:${port}/v1/qr/${attendee.id}.png`);
    assert.equal(documentation, `http://127.0.0.1:${port}/docs#NOT_FOUND`);
    assert.deepEqual(await hostileIndex(server), await expectedIndex(server, `http://127.0.0.1:${port}`));
  });
});
