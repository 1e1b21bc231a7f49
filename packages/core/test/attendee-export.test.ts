import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  ATTENDEE_CSV_HEADER,
  ATTENDEE_EXPORT_COLUMNS,
  attendeeCsvRow,
  attendeeExportStream,
  EXPORT_PAGE_SIZE,
  type ExportCursor,
} from "../src/export/attendee-export.ts";
import { csvField, csvList, csvRecord } from "../src/export/csv.ts";
import { type AttendeeRecord, newAttendeeRecord, toApiAttendee } from "../src/resources/attendee.ts";

describe("CSV fields (RFC 4180 and the formula guard)", () => {
  const cases: Array<[string, string]> = [
    ["plain", "plain"],
    ["", ""],
    ["a,b", '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ["two\nlines", '"two\nlines"'],
    ["cr\rhere", '"cr\rhere"'],
    ["Zoë 北京", "Zoë 北京"],
    ["=1+1", "'=1+1"],
    ["+49 30 1234567", "'+49 30 1234567"],
    ["-2", "'-2"],
    ["@SUM(A1)", "'@SUM(A1)"],
    ["\tTAB", "'\tTAB"],
    ["\rCR", '"\'\rCR"'],
    ['=HYPERLINK("http://x","y")', '"\'=HYPERLINK(""http://x"",""y"")"'],
    ["a=b", "a=b"],
  ];
  for (const [value, written] of cases) {
    test(`${JSON.stringify(value)} is written ${JSON.stringify(written)}`, () =>
      assert.equal(csvField(value), written));
  }

  test("a record ends with CRLF", () => {
    assert.equal(csvRecord(["a", "b,c", ""]), 'a,"b,c",\r\n');
  });
});

describe("CSV list cells", () => {
  const cases: Array<[string[], string]> = [
    [["a;b", "c"], "a\\;b;c"],
    [["a", "b", "c"], "a;b;c"],
    [["back\\slash", "semi;"], "back\\\\slash;semi\\;"],
    [[";lead"], "\\;lead"],
    [[], ""],
  ];
  for (const [items, written] of cases) {
    test(`${JSON.stringify(items)} is written ${JSON.stringify(written)}`, () => assert.equal(csvList(items), written));
  }

  test("lists that differ give cells that differ", () => {
    assert.notEqual(csvList(["a;b", "c"]), csvList(["a", "b", "c"]));
    assert.notEqual(csvList(["a\\", "b"]), csvList(["a\\;b"]));
  });

  test("the formula guard and the quoting apply to the escaped cell", () => {
    assert.equal(csvField(csvList(["=cmd", "x;y"])), "'=cmd;x\\;y");
    assert.equal(csvField(csvList(["-1", "a,b"])), `"'-1;a,b"`);
    assert.equal(csvField(csvList(["ok", "=cmd"])), "ok;=cmd");
  });
});

/** Registration `n`, as stored: made by core like every new one, then changed by `overrides`. */
const record = (n: number, overrides: Partial<AttendeeRecord> = {}): AttendeeRecord => ({
  ...newAttendeeRecord(
    { eventId: "evt_1", firstName: "Ada", lastName: "Lovelace", email: `ada${n}@example.com`, ticketType: "general" },
    {
      id: `att_${String(n).padStart(24, "0")}`,
      accountId: "acc_1",
      confirmationCode: "EVT-2222-3333",
      now: `2026-01-01T00:00:${String(n % 60).padStart(2, "0")}.000Z`,
    },
  ),
  updatedAt: "2026-01-01T00:00:00.000Z",
  ...overrides,
});

describe("the attendee columns", () => {
  test("follow the API's Attendee: nested objects flattened with dots, in the schema's order", () => {
    assert.deepEqual(
      ATTENDEE_EXPORT_COLUMNS.map((column) => column.header),
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
      ],
    );
    assert.equal(ATTENDEE_CSV_HEADER, `${ATTENDEE_EXPORT_COLUMNS.map((column) => column.header).join(",")}\r\n`);
  });

  test("a full registration: lists joined with ;, custom fields as JSON, nulls empty, the guard on a phone", () => {
    const attendee = toApiAttendee(
      record(1, {
        phone: "+49 30 1234567",
        company: 'Analytical, "Engines"',
        dietaryPreferences: ["vegan", "nut-free"],
        accessibilityNeeds: { wheelchairAccess: true, other: "quiet\nroom" },
        carbonOffset: { opted: true, amount: 12.5, travelDistance: 420, travelMode: "train" },
        emergencyContact: { name: "Charles", phone: "+44 20 7946 0000" },
        customFields: { shirt: "M", vip: true },
        status: "checked-in",
        checkedInAt: "2026-01-02T00:00:00.000Z",
        payment: {
          status: "partially_refunded",
          amount: 4_500,
          currency: "EUR",
          amountPaid: 4_500,
          amountRefunded: 1_000,
          provider: "stripe",
          expiresAt: null,
          paymentIntentId: "pi_123",
          clientSecret: "pi_123_secret_abc",
          stripeAccount: null,
          promoted: false,
          admittedAt: "2026-01-01T12:00:00.000Z",
          checkoutSessionId: "cs_123",
        },
      }),
      "https://events.example",
      true,
    );
    assert.equal(
      attendeeCsvRow(attendee),
      `${[
        attendee.id,
        "evt_1",
        "Ada",
        "Lovelace",
        "ada1@example.com",
        "'+49 30 1234567",
        '"Analytical, ""Engines"""',
        "",
        "general",
        "vegan;nut-free",
        "true",
        "",
        "",
        '"quiet\nroom"',
        "true",
        "12.5",
        "420",
        "train",
        "Charles",
        "'+44 20 7946 0000",
        "",
        '"{""shirt"":""M"",""vip"":true}"',
        "checked-in",
        "",
        "EVT-2222-3333",
        "2026-01-01T00:00:01.000Z",
        "2026-01-01T00:00:00.000Z",
        "2026-01-02T00:00:00.000Z",
        "",
        "partially_refunded",
        "4500",
        "EUR",
        "4500",
        "1000",
        "stripe",
        "",
        "pi_123",
        `https://events.example/v1/qr/${attendee.id}.png`,
      ].join(",")}\r\n`,
    );
  });
});

describe("a list column", () => {
  test("escapes ; and \\ inside an item, so two lists that differ export differently", () => {
    const row = (dietaryPreferences: string[]) =>
      attendeeCsvRow(toApiAttendee(record(1, { dietaryPreferences }), "https://x.example"));
    const column = ATTENDEE_EXPORT_COLUMNS.findIndex((c) => c.header === "dietaryPreferences");
    assert.equal(row(["a;b", "c"]).split(",")[column], "a\\;b;c");
    assert.equal(row(["a", "b", "c"]).split(",")[column], "a;b;c");
    assert.equal(row(["=x\\y"]).split(",")[column], "'=x\\\\y");
  });
});

describe("the export stream", () => {
  /** A store of `total` registrations read in pages; counts the reads. */
  function pages(total: number) {
    const all = Array.from({ length: total }, (_, i) => record(i));
    const reads: Array<ExportCursor | null> = [];
    const readPage = async (cursor: ExportCursor | null, limit: number) => {
      reads.push(cursor);
      const start = cursor ? all.findIndex((r) => r.id === cursor.id) + 1 : 0;
      return all.slice(start, start + limit);
    };
    return { all, reads, readPage };
  }
  const toApi = (r: AttendeeRecord) => toApiAttendee(r, "https://x.example");

  test("reads a page only when the reader asks for more, and ends after the last", async () => {
    const store = pages(EXPORT_PAGE_SIZE * 2 + 3);
    const reader = attendeeExportStream(store.readPage, "ndjson", toApi).getReader();
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(store.reads.length, 0, "nothing read before the first read");
    const first = await reader.read();
    assert.equal(store.reads.length, 1);
    const lines = new TextDecoder().decode(first.value).split("\n");
    assert.equal(lines.length, EXPORT_PAGE_SIZE + 1);
    assert.deepEqual(JSON.parse(lines[0]!), toApi(store.all[0]!));
    let text = new TextDecoder().decode(first.value);
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      text += new TextDecoder().decode(chunk.value);
    assert.equal(store.reads.length, 3);
    assert.deepEqual(store.reads[1], {
      registrationDate: store.all[EXPORT_PAGE_SIZE - 1]!.registrationDate,
      id: store.all[EXPORT_PAGE_SIZE - 1]!.id,
    });
    assert.deepEqual(
      text
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line).id),
      store.all.map((r) => r.id),
    );
  });

  test("CSV: the header first, also for an event without registrations", async () => {
    assert.equal(await new Response(attendeeExportStream(pages(0).readPage, "csv", toApi)).text(), ATTENDEE_CSV_HEADER);
    const store = pages(2);
    assert.equal(
      await new Response(attendeeExportStream(store.readPage, "csv", toApi)).text(),
      ATTENDEE_CSV_HEADER + store.all.map((r) => attendeeCsvRow(toApi(r))).join(""),
    );
  });

  test("a page exactly full is followed by one more read that finds nothing", async () => {
    const store = pages(EXPORT_PAGE_SIZE);
    const text = await new Response(attendeeExportStream(store.readPage, "ndjson", toApi)).text();
    assert.equal(text.split("\n").length, EXPORT_PAGE_SIZE + 1);
    assert.equal(store.reads.length, 2);
  });
});
