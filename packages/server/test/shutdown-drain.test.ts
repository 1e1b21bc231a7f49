/**
 * The shutdown's drain, on a plain node:http server: which connections the shutdown timeout
 * closes, and that the store's close can wait for every request's work.
 */
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { trackConnections } from "../src/connections.ts";
import { countRequestsInFlight } from "../src/requests-in-flight.ts";
import { openRaw } from "../../../test/fixtures/raw-http.ts";

/** Resolves once `condition` holds, checked every 10 ms. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

test("at the shutdown timeout, a request read whole and not yet answered keeps its connection until its answer is written, then it ends without a reset; an idle connection and one whose body is still arriving are closed", async () => {
  let answer!: () => void;
  const answered = new Promise<void>((resolve) => (answer = resolve));
  const seen: string[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    seen.push(request.url!);
    // Read whole, then "at work" (a transaction committing) until the test lets it answer.
    request.resume();
    request.on("end", async () => {
      if (request.url === "/slow") await answered;
      response.writeHead(201, { "content-type": "application/json", "content-length": "14" }).end('{"id":"att_1"}');
    });
  });
  const connections = trackConnections(server, false);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  try {
    const idle = await openRaw(`http://127.0.0.1:${port}`);
    idle.socket.write("GET /first HTTP/1.1\r\nHost: x\r\n\r\n");
    await until(() => idle.received().includes("att_1"));
    const uploading = await openRaw(`http://127.0.0.1:${port}`);
    uploading.socket.write("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n0123456789");
    const working = await openRaw(`http://127.0.0.1:${port}`);
    working.socket.write("POST /slow HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}");
    await until(() => seen.length === 3);

    connections.drain();
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
    assert.deepEqual(connections.closeUnlessWorking(), { closed: 2, answering: 1 });
    await idle.closed;
    assert.equal(idle.received().match(/HTTP\/1\.1 /g)?.length, 1, "the idle connection closed after its one answer");
    await uploading.closed;
    assert.equal(uploading.received(), "", "the upload cut short is not answered: it was never run");
    // The two others are closed; the one at work is still open, with nothing received yet.
    assert.equal(working.socket.destroyed, false);
    assert.equal(working.received(), "");

    answer();
    assert.deepEqual(await working.closed, {}, "closed after its answer, without a reset");
    assert.match(working.received(), /^HTTP\/1\.1 201 Created\r\n[\s\S]*\r\n\r\n\{"id":"att_1"\}$/);
    await stopped;
  } finally {
    answer();
    server.closeAllConnections();
    server.close();
  }
});

test("countRequestsInFlight: settled() resolves once every call has answered or failed, whichever way it returns", async () => {
  const pending: Array<{ resolve: (value: string) => void; reject: (error: Error) => void }> = [];
  const requests = countRequestsInFlight((path: string): string | Promise<string> => {
    if (path === "/sync") return "at once";
    if (path === "/throws") throw new Error("thrown");
    return new Promise<string>((resolve, reject) => pending.push({ resolve, reject }));
  });
  let settled = 0;
  await requests.settled();
  assert.equal(requests.fetch("/sync"), "at once");
  assert.throws(() => requests.fetch("/throws"), /thrown/);
  await requests.settled();

  const first = requests.fetch("/a") as Promise<string>;
  const second = requests.fetch("/b") as Promise<string>;
  second.catch(() => {});
  const waiting = requests.settled().then(() => (settled += 1));
  pending[0]!.resolve("answered");
  assert.equal(await first, "answered");
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(settled, 0, "one call is still in flight");
  pending[1]!.reject(new Error("failed"));
  await assert.rejects(second, /failed/);
  await waiting;
  assert.equal(settled, 1);
});
