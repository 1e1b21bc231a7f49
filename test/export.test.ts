/**
 * End-to-end: `GET /v1/events/:id/attendees/export`. The CSV is read back with a real CSV parser
 * (csv-parse) and compared field by field with the API's JSON; the NDJSON line by line; the
 * typed client hands over the stream; 50,000 registrations go out while the server's live heap
 * stays flat (what is still in use after a full collection in the server, see heap-probe.mjs).
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { createClient } from "@event-service/client";
import { parse } from "csv-parse/sync";
import { queryDatabase, startServer, type TestServer } from "./_setup.ts";
import { type Client, clientFor, createEvent, expectError, expectStatus, PREFIXES, register } from "./fixtures/api.ts";

let server: TestServer;
let client: Client;
let key: string;
/** Where the server appends its live heap when it gets SIGUSR2 (see heap-probe.mjs). */
const probeDir = mkdtempSync(join(tmpdir(), "export-heap-"));
const probeFile = join(probeDir, "heap.txt");

before(async () => {
  server = await startServer({
    env: {
      HEAP_PROBE_FILE: probeFile,
      NODE_OPTIONS: `--import=${new URL("./fixtures/heap-probe.mjs", import.meta.url).href}`,
    },
  });
  key = (await server.createKey({ account: "Export GmbH", tier: "enterprise" })).key;
  client = clientFor(server, key);
});

after(async () => {
  await server.stop();
  rmSync(probeDir, { recursive: true, force: true });
});

/** Registrations whose values test the CSV: separators, quotes, line breaks, formulas, other scripts. */
const AWKWARD: Array<Record<string, unknown>> = [
  {
    firstName: "Ada",
    lastName: "Lovelace",
    company: 'Analytical, "Engines" Ltd',
    dietaryPreferences: ["vegan", "nut-free"],
  },
  { firstName: "=cmd|' /C calc'!A0", lastName: "+SUM(1,2)", title: "-10", company: "@risk", phone: "+49 30 1234567" },
  {
    firstName: "Zoë",
    lastName: "北京",
    title: "two\nlines",
    company: "tab\tinside",
    accessibilityNeeds: { wheelchairAccess: true, other: "quiet room, please" },
  },
  {
    firstName: "Grace",
    lastName: "Hopper",
    carbonOffset: { opted: true, amount: 12.5, travelMode: "train", travelDistance: 420 },
    emergencyContact: { name: 'Vincent "Vin" Hopper', phone: "+1 212 555 0100", relationship: "brother" },
    customFields: { shirt: "M", vip: true, seats: 2 },
  },
  { firstName: "Plain", lastName: "Person" },
];

/** A value of the API object as the CSV writes it (before the formula guard). */
function written(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (Array.isArray(value)) return value.map((item) => String(item).replace(/[\\;]/g, "\\$&")).join(";");
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** A parsed cell with the formula guard taken off. */
const unguarded = (cell: string) => (/^'[=+\-@\t\r]/.test(cell) ? cell.slice(1) : cell);

/** The value at a dotted path of an object (`carbonOffset.opted`). */
const at = (object: any, path: string) =>
  path.split(".").reduce((value, key) => (value === null || value === undefined ? undefined : value[key]), object);

async function newEventWith(people: Array<Record<string, unknown>>) {
  const event = await createEvent(client, { capacity: 1000 });
  const attendees = [];
  for (const [i, person] of people.entries())
    attendees.push(await register(client, event.id, { ...person, email: `person${i}.${event.id}@example.com` }));
  return { event, attendees };
}

describe("CSV and NDJSON", () => {
  let event: any;
  let listed: any[];

  before(async () => {
    ({ event } = await newEventWith(AWKWARD));
    // One cancelled registration stays in the export; an erased one leaves it.
    const gone = await register(client, event.id, { email: `gone.${event.id}@example.com` });
    expectStatus(await client.delete(`/attendees/${gone.id}`), 200);
    listed = expectStatus(
      await client.get(`/attendees?eventId=${event.id}&limit=100&sortBy=registrationDate&order=asc`),
      200,
    ).attendees;
    expectStatus(await client.put(`/attendees/${listed[4].id}`, { status: "cancelled" }), 200);
    listed = expectStatus(
      await client.get(`/attendees?eventId=${event.id}&limit=100&sortBy=registrationDate&order=asc`),
      200,
    ).attendees;
    assert.equal(listed.length, AWKWARD.length);
  });

  for (const prefix of PREFIXES) {
    test(`CSV (the default) under ${prefix}: a real CSV parser reads back exactly the API's registrations, in registration order`, async () => {
      const response = await fetch(`${server.url}${prefix}/events/${event.id}/attendees/export`, {
        headers: { authorization: `Bearer ${key}` },
      });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("content-type"), "text/csv; charset=utf-8");
      assert.equal(response.headers.get("content-disposition"), `attachment; filename="attendees-${event.id}.csv"`);
      assert.equal(response.headers.get("cache-control"), "no-store");
      assert.ok(response.headers.get("x-ratelimit-limit"));
      const text = await response.text();
      assert.ok(text.endsWith("\r\n"));
      assert.equal(
        text.split("\r\n")[0],
        [
          "id",
          "eventId",
          "firstName",
          "lastName",
          "email",
          "phone",
          "company",
          "title",
          "ticketType",
          "dietaryPreferences",
          "accessibilityNeeds.wheelchairAccess",
          "accessibilityNeeds.signLanguage",
          "accessibilityNeeds.visualAid",
          "accessibilityNeeds.other",
          "carbonOffset.opted",
          "carbonOffset.amount",
          "carbonOffset.travelDistance",
          "carbonOffset.travelMode",
          "emergencyContact.name",
          "emergencyContact.phone",
          "emergencyContact.relationship",
          "customFields",
          "status",
          "waitlistPosition",
          "confirmationCode",
          "registrationDate",
          "updatedAt",
          "checkedInAt",
          "cancelledAt",
          "payment.status",
          "payment.amount",
          "payment.currency",
          "payment.amountPaid",
          "payment.amountRefunded",
          "payment.provider",
          "payment.expiresAt",
          "payment.paymentIntentId",
          "qrCode",
        ].join(","),
      );
      const rows: Array<Record<string, string>> = parse(text, { columns: true, record_delimiter: "\r\n" });
      assert.deepEqual(
        rows.map((row) => row.id),
        listed.map((attendee) => attendee.id),
      );
      for (const [i, row] of rows.entries()) {
        for (const [column, cell] of Object.entries(row)) {
          assert.equal(unguarded(cell), written(at(listed[i], column)), `${listed[i].id} ${column}`);
        }
      }
      // The guard is there: formulas start with ' in the file.
      const formulas = rows[1]!;
      assert.equal(formulas.firstName, "'=cmd|' /C calc'!A0");
      assert.equal(formulas.lastName, "'+SUM(1,2)");
      assert.equal(formulas.title, "'-10");
      assert.equal(formulas.company, "'@risk");
      assert.equal(formulas.phone, "'+49 30 1234567");
      assert.equal(rows[2]!.title, "two\nlines");
      assert.equal(rows[0]!.company, 'Analytical, "Engines" Ltd');
      assert.equal(rows[0]!.dietaryPreferences, "vegan;nut-free");
      assert.deepEqual(JSON.parse(rows[3]!.customFields!), { shirt: "M", vip: true, seats: 2 });
      assert.equal(rows[4]!.status, "cancelled");
    });
  }

  test("NDJSON: one API object a line, equal to the list's", async () => {
    const response = await fetch(`${server.url}/v1/events/${event.id}/attendees/export?format=ndjson`, {
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "application/x-ndjson");
    assert.equal(response.headers.get("content-disposition"), `attachment; filename="attendees-${event.id}.ndjson"`);
    const lines = (await response.text()).split("\n");
    assert.equal(lines.pop(), "", "every line ends with a newline");
    assert.deepEqual(
      lines.map((line) => JSON.parse(line)),
      listed,
    );
  });

  test("the typed client returns the stream; its errors are the service's", async () => {
    const typed = createClient({ baseUrl: server.url, apiKey: key });
    const stream = await typed.attendees.export(event.id, { format: "ndjson" });
    assert.ok(stream instanceof ReadableStream);
    const text = await new Response(stream).text();
    assert.deepEqual(
      text
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line).id),
      listed.map((a) => a.id),
    );
    const csv = await new Response(await typed.attendees.export(event.id)).text();
    assert.equal(parse(csv, { columns: true }).length, listed.length);
    await assert.rejects(
      typed.attendees.export("evt_000000000000000000000000"),
      (error: any) => error.status === 404 && error.code === "NOT_FOUND",
    );
    await assert.rejects(
      typed.attendees.export(event.id, { format: "xlsx" as never }),
      (error: any) => error.status === 400 && error.code === "INVALID_REQUEST" && error.field === "format",
    );
  });

  test("bad requests: an unknown format or parameter is 400, another account's or an unknown event 404, a read-less key 403", async () => {
    expectError(await client.get(`/events/${event.id}/attendees/export?format=xlsx`), 400, "INVALID_REQUEST", "format");
    expectError(await client.get(`/events/${event.id}/attendees/export?limit=10`), 400, "INVALID_REQUEST", "limit");
    expectError(await client.get("/events/evt_000000000000000000000000/attendees/export"), 404, "NOT_FOUND");
    const other = clientFor(server, (await server.createKey({ account: "Someone Else" })).key);
    expectError(await other.get(`/events/${event.id}/attendees/export`), 404, "NOT_FOUND");
    const eventsOnly = clientFor(
      server,
      (await server.createKey({ account: "Export GmbH", scopes: ["events:read", "events:write"] })).key,
    );
    expectError(await eventsOnly.get(`/events/${event.id}/attendees/export`), 403, "FORBIDDEN");
  });

  test("an event without registrations: the header row only; NDJSON: empty", async () => {
    const empty = await createEvent(client);
    const csv = await fetch(`${server.url}/v1/events/${empty.id}/attendees/export`, {
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal((await csv.text()).split("\r\n").length, 2);
    const ndjson = await fetch(`${server.url}/v1/events/${empty.id}/attendees/export?format=ndjson`, {
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(await ndjson.text(), "");
  });
});

/**
 * The server's live heap in bytes: what it still uses after a full garbage collection, which
 * heap-probe.mjs runs in the server on SIGUSR2 before it appends the figure to `probeFile`.
 * Unlike `heapUsed` at any moment, it does not count garbage waiting for a collection.
 */
async function liveHeapBytes(): Promise<number> {
  const lines = () => (existsSync(probeFile) ? readFileSync(probeFile, "utf8").split("\n").filter(Boolean) : []);
  const before = lines().length;
  process.kill(server.pid, "SIGUSR2");
  for (let waited = 0; ; waited += 20) {
    assert.ok(waited < 30_000, "the server wrote no heap figure");
    await new Promise((resolve) => setTimeout(resolve, 20));
    const written = lines();
    if (written.length > before) return Number(written[before]);
  }
}

describe("50,000 registrations", () => {
  test("stream out in registration order, all of them, while the server's live heap grows by less than 8 MB", async () => {
    const COUNT = 50_000;
    const { event, attendees } = await newEventWith([
      { firstName: "Template", lastName: "Row", company: "Bulk, Inc.", dietaryPreferences: ["vegetarian"] },
    ]);
    // Copies of a real registration, straight into the server's database (the API would take
    // minutes): new ids, codes and emails, the rest as registered. Row values (`||`, a
    // recursive CTE) are the same SQL on SQLite and PostgreSQL.
    const [columns] = await queryDatabase<Record<string, unknown>>(
      server.database,
      "SELECT * FROM attendees WHERE id = ?",
      [attendees[0].id],
    );
    const overrides: Record<string, string> = {
      id: "'att_b' || substr('0000000000000000000' || n.i, -19)",
      confirmation_code: "'BULK-' || n.i",
      email: "'bulk' || n.i || '@example.com'",
      email_key: "'bulk' || n.i || '@example.com'",
      search_key: "'bulk' || n.i || '@example.com'",
    };
    const names = Object.keys(columns!);
    await queryDatabase(
      server.database,
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${COUNT})
       INSERT INTO attendees (${names.join(", ")}) SELECT ${names.map((name) => overrides[name] ?? `t.${name}`).join(", ")} FROM attendees t, n WHERE t.id = ?`,
      [attendees[0].id],
    );
    const [stored] = await queryDatabase<{ n: number }>(
      server.database,
      "SELECT count(*) AS n FROM attendees WHERE event_id = ?",
      [event.id],
    );
    assert.equal(Number(stored?.n), COUNT + 1);

    // Warm: the first export compiles and caches what every later one reuses.
    await (
      await fetch(`${server.url}/v1/events/${event.id}/attendees/export?format=ndjson`, {
        headers: { authorization: `Bearer ${key}` },
      })
    ).arrayBuffer();
    const baseline = await liveHeapBytes();
    let peak = baseline;
    const response = await fetch(`${server.url}/v1/events/${event.id}/attendees/export`, {
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(response.status, 200);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let tail = "";
    let rows = 0;
    let bytes = 0;
    let lastId = "";
    let ordered = true;
    for (let chunk = await reader.read(), reads = 0; !chunk.done; chunk = await reader.read(), reads++) {
      bytes += chunk.value.byteLength;
      const lines = (tail + decoder.decode(chunk.value, { stream: true })).split("\r\n");
      tail = lines.pop()!;
      for (const line of lines) {
        if (rows++ === 0) continue; // the header
        const id = line.slice(0, line.indexOf(","));
        // The template registered first, then the copies, which share its registration time, by id.
        if (rows > 2 && id <= lastId) ordered = false;
        lastId = id;
      }
      // A slow reader, looked at three times on the way: the server waits for it instead of
      // reading ahead, and holds about one page meanwhile.
      if (reads === 5 || reads === 100 || reads === 200) peak = Math.max(peak, await liveHeapBytes());
    }
    assert.equal(tail, "");
    assert.equal(rows - 1, COUNT + 1);
    assert.ok(ordered, "rows in registration order, ties by id");
    peak = Math.max(peak, await liveHeapBytes());
    const growth = peak - baseline;
    assert.ok(bytes > 10 * 1024 * 1024, `the export is ${bytes} bytes`);
    assert.ok(
      growth < 8 * 1024 * 1024,
      `live heap grew by ${(growth / 1048576).toFixed(1)} MB for a ${(bytes / 1048576).toFixed(1)} MB export`,
    );
    console.log(
      `export of ${COUNT + 1} registrations: ${(bytes / 1048576).toFixed(1)} MB in ${rows} rows; the server's live heap ${(baseline / 1048576).toFixed(1)} MB before, at most +${(growth / 1048576).toFixed(2)} MB during and after`,
    );
  });
});
