/**
 * End-to-end: `serve --workers N` runs N server processes on one port (node:cluster). Requests
 * are spread over the workers (told apart by the pid on each access-log line), capacity holds
 * across them, a worker that dies is logged and replaced, a worker that cannot start stops the
 * whole server with exit 1, and SIGTERM to the primary drains every worker (requests in flight
 * are answered) and exits 0 with no worker left. Runs on the e2e backend (a shared SQLite file
 * in WAL mode, or one PostgreSQL database).
 */
import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, test } from "node:test";
import { type ApiResponse, isAlive, runCli, startServer, testDatabase, type TestServer } from "./_setup.ts";
import { attendeeInput } from "./fixtures/builders.ts";
import { clientFor, createEvent, expectError, expectStatus } from "./fixtures/api.ts";
import { logLines, requestLines, sleep } from "./fixtures/conventions.ts";
import { createWebhook } from "./fixtures/webhooks.ts";

const METRICS_TOKEN = "workers-metrics-token-0123456789";

/** The value of one series of the server's `/metrics` (scraped through whichever worker takes it). */
async function metric(server: TestServer, series: string): Promise<number> {
  const response = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  assert.equal(response.status, 200);
  const text = await response.text();
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  assert.ok(line, `${series} in\n${text}`);
  return Number(line.slice(series.length + 1));
}

/** The pids the primary announced with its `listening` line (all workers up). */
function workerPids(server: TestServer): number[] {
  const line = logLines(server.output()).find((entry) => entry.msg === "listening" && entry.pid === undefined);
  assert.ok(line?.pids, `no listening line with pids:\n${server.output()}`);
  return line.pids as number[];
}

/** Waits (up to 20 s) until `predicate` holds over the server's log lines. */
async function waitForLog(
  server: TestServer,
  predicate: (lines: Array<Record<string, any>>) => boolean,
): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!predicate(logLines(server.output()))) {
    if (Date.now() > deadline) throw new Error(`log condition not met in 20 s:\n${server.output()}`);
    await sleep(50);
  }
}

describe("serve --workers 3", () => {
  let server: TestServer;
  let key: string;
  /** How many `/health` requests the first test sent (the metrics test counts them). */
  let healthRequests = 0;

  before(async () => {
    // Attempts to the webhook fixture's public address fail fast (no network here); the retry is an hour away.
    server = await startServer({
      args: ["--workers", "3"],
      env: { METRICS_TOKEN, WEBHOOK_TIMEOUT_MS: "300", WEBHOOK_RETRY_DELAYS_MS: "3600000" },
    });
    key = (await server.createKey({ account: "Workers", tier: "enterprise" })).key;
    // Each worker writes its own `listening` line: one may reach us through the pipe after the primary's.
    await waitForLog(
      server,
      (lines) => lines.filter((entry) => entry.msg === "listening" && entry.pid !== undefined).length >= 3,
    );
  });
  after(async () => {
    assert.equal(await server.stop(), 0, server.output());
  });

  test("three workers on one port: each listens at the primary's address, and requests are served by more than one", async () => {
    const pids = workerPids(server);
    assert.equal(pids.length, 3);
    assert.equal(new Set(pids).size, 3);
    assert.ok(!pids.includes(server.pid), "the primary serves no request itself");
    const workerLines = logLines(server.output()).filter(
      (entry) => entry.msg === "listening" && entry.pid !== undefined,
    );
    assert.deepEqual(workerLines.map((entry) => entry.pid).sort(), [...pids].sort());
    for (const entry of workerLines) assert.equal(entry.url.replace(/\/$/, ""), server.url);

    // The workers accept from the shared socket themselves, so which one takes a connection is
    // the kernel's choice: one that wakes first may take a whole burst. Bursts of new connections
    // until a second worker has served one (it always has within a few).
    const agent = new http.Agent({ keepAlive: false });
    const health = () =>
      new Promise<number>((resolve, reject) =>
        http
          .get(`${server.url}/health`, { agent }, (response) =>
            response.resume().on("end", () => resolve(response.statusCode!)),
          )
          .on("error", reject),
      );
    const servedBy = () =>
      new Set(
        requestLines(server.output())
          .filter((entry) => entry.path === "/health")
          .map((entry) => entry.pid as number),
      );
    let sent = 0;
    for (let burst = 0; burst < 30 && servedBy().size < 2; burst++) {
      const statuses = await Promise.all(Array.from({ length: 10 }, health));
      assert.deepEqual([...new Set(statuses)], [200]);
      sent += statuses.length;
      await waitForLog(
        server,
        (lines) => lines.filter((entry) => entry.msg === "request" && entry.path === "/health").length === sent,
      );
    }
    assert.ok(servedBy().size >= 2, `served by ${[...servedBy()].join(", ")}`);
    for (const pid of servedBy()) assert.ok(pids.includes(pid), `pid ${pid} is one of the workers ${pids.join(", ")}`);
    healthRequests = sent;
  });

  test("/metrics counts the requests of every worker, and reads the outbox gauges once (max, not sum)", async () => {
    // The requests of the first test, served by two or three workers: all counted, whichever worker takes the scrape.
    for (let scrape = 0; scrape < 3; scrape++)
      assert.equal(
        await metric(server, 'event_service_http_requests_total{method="GET",route="/health",status="200"}'),
        healthRequests,
      );
    const v1 = clientFor(server, key);
    const hook = await createWebhook(v1, { events: ["event.created"] });
    await createEvent(v1);
    for (const deadline = Date.now() + 20_000; ; await sleep(50)) {
      const log = expectStatus(await v1.get(`/webhooks/${hook.id}/deliveries`), 200).deliveries;
      if (log.some((d: any) => d.type === "event.created" && d.attemptCount === 1)) break;
      assert.ok(Date.now() < deadline, "the first attempt was recorded");
    }
    // One delivery waits for its retry: each worker reads 1 from the database; a sum would say 3.
    assert.equal(await metric(server, 'event_service_webhook_deliveries_pending{state="scheduled"}'), 1);
    assert.equal(await metric(server, 'event_service_webhook_delivery_attempts_total{outcome="retrying"}'), 1);
  });

  test("60 concurrent registrations for 25 places over the workers fill exactly 25", async () => {
    const v1 = clientFor(server, key);
    const event = await createEvent(v1, { capacity: 25 });
    const responses = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        server.request("POST", "/v1/attendees", {
          key,
          body: attendeeInput(event.id, { email: `racer${i}@workers.example` }),
          headers: { "x-request-id": `racer-${i}` },
        }),
      ),
    );
    const created = responses.filter((r) => r.status === 201);
    assert.equal(created.length, 25);
    for (const response of responses.filter((r) => r.status !== 201)) expectError(response, 400, "EVENT_FULL");
    assert.equal(expectStatus(await v1.get(`/events/${event.id}`), 200).attendeeCount, 25);
    assert.equal(expectStatus(await v1.get(`/attendees?eventId=${event.id}&limit=100`), 200).pagination.total, 25);
    // Each worker writes its lines in batches of its own: wait for all 60, whichever worker wrote them.
    const racers = (lines: Array<Record<string, unknown>>) =>
      lines.filter((entry) => entry.msg === "request" && String(entry.requestId).startsWith("racer-"));
    await waitForLog(server, (lines) => racers(lines).length >= 60);
    const registeredBy = new Set(racers(requestLines(server.output())).map((entry) => entry.pid));
    assert.ok(registeredBy.size >= 2, `registrations served by ${[...registeredBy].join(", ")}`);
  });

  test("a worker killed with SIGKILL is logged and replaced; the others keep serving, and no new connection waits unanswered", async () => {
    const [victim, ...others] = workerPids(server);
    // New connections at about 1,000 a second across the kill: with round-robin scheduling the
    // primary held the one it was handing to the killed worker, unanswered, until the client gave up.
    const { port } = new URL(server.url);
    const agent = new http.Agent({ keepAlive: false });
    const tally = (all: string[]) =>
      Object.fromEntries([...new Set(all)].map((outcome) => [outcome, all.filter((o) => o === outcome).length]));
    const outcomes: Array<Promise<string>> = [];
    const fire = () =>
      outcomes.push(
        new Promise((resolve) => {
          const request = http.get({ host: "127.0.0.1", port, path: "/health", agent, timeout: 10_000 }, (response) => {
            response.resume();
            response.on("end", () => resolve(String(response.statusCode)));
          });
          request.on("timeout", () => request.destroy(new Error("no answer in 10 s")));
          request.on("error", (error) => resolve(error.message === "no answer in 10 s" ? "hung" : "refused or reset"));
        }),
      );
    // Counted, not timed: 200 requests before the kill and 600 after, however busy the machine.
    const sent = (count: number) =>
      new Promise<void>((resolve) => {
        const tick = setInterval(() => {
          Array.from({ length: 5 }, fire);
          if (outcomes.length < count) return;
          clearInterval(tick);
          resolve();
        }, 5);
      });
    await sent(200);
    process.kill(victim!, "SIGKILL");
    await sent(800);
    const settled = await Promise.all(outcomes);
    assert.equal(settled.filter((outcome) => outcome === "hung").length, 0, "no request waits unanswered");
    // The killed worker's own connections are reset with it; the rest are answered.
    assert.ok(
      settled.filter((outcome) => outcome === "200").length >= settled.length - 50,
      JSON.stringify(tally(settled)),
    );
    await waitForLog(server, (lines) =>
      lines.some((entry) => entry.msg === "worker died; starting a replacement" && entry.pid === victim),
    );
    const died = logLines(server.output()).find((entry) => entry.msg === "worker died; starting a replacement")!;
    assert.equal(died.level, 50, "logged as an error");
    assert.equal(died.signal, "SIGKILL");
    await waitForLog(server, (lines) =>
      lines.some(
        (entry) => entry.msg === "listening" && entry.pid !== undefined && ![victim, ...others].includes(entry.pid),
      ),
    );
    assert.ok(!isAlive(victim!));
    for (const pid of others) assert.ok(isAlive(pid!), `worker ${pid} still runs`);
    const responses = await Promise.all(Array.from({ length: 20 }, () => server.request("GET", "/health")));
    assert.deepEqual([...new Set(responses.map((r) => r.status))], [200]);
  });
});

test("SIGTERM to the primary during a burst: every request is answered (201 or 503), exit 0, no worker left, every 201 stored", async () => {
  const database = await testDatabase();
  try {
    const first = await startServer({ database: database.url, args: ["--workers", "3"] });
    const pids = workerPids(first);
    const { key } = await first.createKey({ account: "Drained", tier: "enterprise" });
    const event = await createEvent(clientFor(first, key), { capacity: 1000 });

    let answered = 0;
    let stopping: Promise<number | null> | undefined;
    const outcomes = await Promise.all(
      Array.from({ length: 150 }, async (_, i): Promise<{ response: ApiResponse } | { error: Error }> => {
        try {
          return {
            response: await first.request("POST", "/v1/attendees", {
              key,
              body: attendeeInput(event.id, { email: `burst${i}@workers.example` }),
            }),
          };
        } catch (error) {
          return { error: error as Error };
        } finally {
          answered += 1;
          if (answered === 20) stopping = first.stop("SIGTERM");
        }
      }),
    );
    assert.equal(await stopping, 0, `exit code after SIGTERM\n${first.output()}`);
    for (const pid of pids) assert.ok(!isAlive(pid), `worker ${pid} is gone`);

    const responses = outcomes.flatMap((o) => ("response" in o ? [o.response] : []));
    for (const response of responses) if (response.status !== 201) expectError(response, 503, "SERVICE_UNAVAILABLE");
    // A request that fails is one no worker took (the listener was closed): a connection error, not an HTTP answer.
    for (const o of outcomes)
      if ("error" in o)
        assert.match(
          `${o.error.message} ${(o.error as any).cause?.code ?? ""}`,
          /fetch failed|ECONNRESET|ECONNREFUSED|EPIPE|socket|closed/i,
        );
    const created = responses.filter((r) => r.status === 201).map((r) => r.body);
    assert.ok(created.length >= 20, `${created.length} x 201`);

    const lines = logLines(first.output());
    assert.ok(
      lines.some((entry) => entry.msg === "shutting down" && entry.pid === undefined),
      "the primary logs its shutdown",
    );
    for (const pid of pids) {
      assert.ok(
        lines.some((entry) => entry.msg === "stopped" && entry.pid === pid),
        `worker ${pid} drained and stopped`,
      );
      assert.ok(
        lines.some((entry) => entry.msg === "worker exited" && entry.pid === pid && entry.exitCode === 0),
        `worker ${pid} exited 0`,
      );
    }
    assert.ok(!lines.some((entry) => entry.msg === "unexpected error"), first.output());

    const second = await startServer({ database: database.url });
    try {
      const v1 = clientFor(second, key);
      assert.equal(expectStatus(await v1.get(`/events/${event.id}`), 200).attendeeCount, created.length);
      const stored = expectStatus(await v1.get(`/attendees?eventId=${event.id}&limit=100`), 200);
      assert.equal(
        stored.pagination.total,
        created.length,
        `${created.length} answered 201, ${stored.pagination.total} stored`,
      );
    } finally {
      assert.equal(await second.stop(), 0);
    }
  } finally {
    await database.drop();
  }
});

test("a worker that cannot start stops the server: exit 1, the others stopped, the cause logged", async () => {
  const database = await testDatabase();
  try {
    // A certificate that does not exist: every worker fails before it listens.
    const result = await runCli(["serve", "--workers", "2"], {
      PORT: "0",
      HOST: "127.0.0.1",
      DATABASE_URL: database.url,
      TLS_CERT: "/nonexistent/cert.pem",
      TLS_KEY: "/nonexistent/key.pem",
    });
    assert.equal(result.code, 1, result.stdout + result.stderr);
    assert.match(result.stderr, /ENOENT/);
    const lines = logLines(result.stdout);
    assert.ok(
      lines.some(
        (entry) => entry.msg === "worker exited before it listened; stopping the others" && entry.level === 50,
      ),
      result.stdout,
    );
    assert.deepEqual(lines.at(-1), { ...lines.at(-1), msg: "stopped", exitCode: 1 });
  } finally {
    await database.drop();
  }
});
