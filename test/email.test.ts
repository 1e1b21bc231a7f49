/**
 * Email against a real SMTP server (`smtp-server` on 127.0.0.1, a free port; each message parsed
 * with `mailparser`): a vendor booked with a contact email gets exactly one email whose link
 * opens the booking beside the create answer's; a refused attempt is retried and still sends
 * one; two server processes on one database (SQLite file, PostgreSQL) send each email once;
 * without SMTP_URL nothing reaches the outbox; no token is stored in plain and none, nor the
 * address or the SMTP password, reaches the log.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";
import { databaseTables, queryDatabase, startServer, type TestServer } from "./_setup.ts";
import { type Client, clientFor, createEvent, expectStatus, register } from "./fixtures/api.ts";
import { BACKENDS } from "./fixtures/backends.ts";
import { vendorInput } from "./fixtures/builders.ts";
import { sleep } from "./fixtures/conventions.ts";

const SMTP_USER = "mailer";
const SMTP_PASSWORD = "s3cret-smtp-pass";
const FROM = "Green Events <events@green.example>";
const TICKET_LINK = /http:\/\/127\.0\.0\.1:\d+\/v1\/tickets\/(tkt_[A-Za-z0-9_-]{43})/;
const VENDOR_LINK = /http:\/\/127\.0\.0\.1:\d+\/v1\/vendor-requests\/(vrq_[A-Za-z0-9_-]{43})/;

interface Smtp {
  url: string;
  received: ParsedMail[];
  /** Refuses the next `n` messages with `451` (a temporary failure). */
  refuseNext(n: number): void;
  close(): Promise<void>;
}

/** A local SMTP server that takes AUTH PLAIN as {@link SMTP_USER} without TLS and keeps every message it accepts. */
async function startSmtp(): Promise<Smtp> {
  const received: ParsedMail[] = [];
  let refusing = 0;
  const server = new SMTPServer({
    authOptional: false,
    allowInsecureAuth: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD) callback(null, { user: SMTP_USER });
      else callback(new Error("Invalid username or password"));
    },
    onRcptTo(address, _session, callback) {
      const to = address.address;
      if (refusing > 0) {
        refusing--;
        const error = new Error(`Mailbox of <${to}> busy, try again later`) as Error & { responseCode: number };
        error.responseCode = 451;
        callback(error);
        return;
      }
      callback();
    },
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => {
          received.push(mail);
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as { port: number };
  return {
    url: `smtp://${SMTP_USER}:${SMTP_PASSWORD}@127.0.0.1:${port}`,
    received,
    refuseNext: (n) => (refusing = n),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Waits (up to 60 s, polling) until `check` returns a value that is not undefined. */
async function waitFor<T>(what: string, check: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** The outbox's rows, oldest first. */
const outbox = (database: string) =>
  queryDatabase<{ kind: string; reason: string; subject_id: string; status: string; attempts: number | string }>(
    database,
    "SELECT kind, reason, subject_id, status, attempts FROM email_outbox ORDER BY created_at, id",
  );

/** Every stored value of every table, as text: where a token in plain would show. */
async function everything(database: string): Promise<string> {
  const parts: string[] = [];
  for (const table of await databaseTables(database))
    parts.push(JSON.stringify(await queryDatabase(database, `SELECT * FROM ${table}`)));
  return parts.join("\n");
}

const emailEnv = (smtp: Smtp, extra: Record<string, string> = {}) => ({
  SMTP_URL: smtp.url,
  EMAIL_FROM: FROM,
  EMAIL_RETRY_DELAYS_MS: "200,200",
  ...extra,
});

/** Books a new vendor whose contact is `email` (or has none) for `eventId`; the booking with its `vendorLink`. */
async function bookVendor(client: Client, eventId: string, email: string | null, name?: string) {
  const vendor = expectStatus(
    await client.post(
      "/vendors",
      vendorInput({
        ...(name && { name }),
        ...(email && { contact: { name: "Ana", email } }),
      }),
    ),
    201,
  );
  return expectStatus(
    await client.post(`/events/${eventId}/vendors`, {
      vendorId: vendor.id,
      services: "Vegan lunch for 120",
      dataRequested: ["catering"],
    }),
    201,
  );
}

describe("email with SMTP_URL", () => {
  let smtp: Smtp;
  let server: TestServer;
  let acme: Client;
  let account: string;

  before(async () => {
    smtp = await startSmtp();
    server = await startServer({ env: emailEnv(smtp) });
    account = `Acme <Events> ${Date.now()}`;
    acme = clientFor(server, (await server.createKey({ account })).key);
  });

  after(async () => {
    const output = server.output();
    assert.equal(await server.stop("SIGTERM"), 0);
    await smtp.close();
    assert.doesNotMatch(output, /"msg":"unexpected error"/);
    // The SMTP password is never logged; the URL is, without it.
    assert.ok(!output.includes(SMTP_PASSWORD));
    assert.match(output, /"smtp":"smtp:\/\/mailer:\*\*\*@127\.0\.0\.1:\d+\/?"/);
  });

  test("a vendor booked with a contact email gets one email whose link opens the booking; the answer's link still works; no token stored or logged", async () => {
    const event = await createEvent(acme, { name: "Harvest <Fair> 2038", timeZone: "Europe/Berlin" });
    const booking = await bookVendor(acme, event.id, "orders@plate.example", "Green Plate");
    const mail = await waitFor("the vendor's email", () =>
      smtp.received.find((m) => m.to && JSON.stringify(m.to).includes("orders@plate.example")),
    );
    assert.equal(mail.subject, `${account} asks you to confirm: Harvest <Fair> 2038`);
    assert.equal(mail.from?.text, '"Green Events" <events@green.example>');
    assert.match(mail.text ?? "", /Services: Vegan lunch for 120/);
    // The event's date in its own time zone, and its city.
    assert.match(mail.text ?? "", /1 May 2038, 11:00 CEST – 1 May 2038, 19:00 CEST, Berlin/);
    const link = VENDOR_LINK.exec(mail.text ?? "");
    assert.ok(link, mail.text);
    const emailed = link[1]!;
    const answered = VENDOR_LINK.exec(booking.vendorLink)![1]!;
    assert.notEqual(emailed, answered);
    assert.ok((mail.html || "").includes(`href="${link[0]}"`));
    assert.ok((mail.html || "").includes("Harvest &lt;Fair> 2038"));

    // Both links open the booking.
    for (const token of [emailed, answered]) {
      const view = expectStatus(await server.request("GET", `/v1/vendor-requests/${token}`), 200);
      assert.deepEqual([view.id, view.vendor.name, view.event.name], [booking.id, "Green Plate", event.name]);
    }

    // Sent once: the row is final, and no second message follows.
    const rows = await waitFor("the email's row to be sent", async () => {
      const all = (await outbox(server.database)).filter((row) => row.subject_id === booking.id);
      return all.every((row) => row.status === "sent") ? all : undefined;
    });
    assert.deepEqual(
      rows.map((row) => [row.kind, row.reason, row.status, Number(row.attempts)]),
      [["vendor_link", "booked", "sent", 1]],
    );
    await sleep(500);
    assert.equal(smtp.received.filter((m) => JSON.stringify(m.to).includes("orders@plate.example")).length, 1);

    // No token in plain in any table; none, nor the address, in the log (its domain only).
    const stored = await everything(server.database);
    for (const token of [emailed, answered]) assert.ok(!stored.includes(token), "a link's token is stored in plain");
    const output = server.output();
    for (const token of [emailed, answered]) assert.ok(!output.includes(token), "a link's token is logged");
    assert.ok(!output.includes("orders@plate.example"), "the recipient's address is logged");
    const attempt = output
      .split("\n")
      .filter((line) => line.includes('"msg":"email attempt"'))
      .map((line) => JSON.parse(line))
      .find((line) => line.kind === "vendor_link" && line.recipientDomain === "plate.example");
    assert.deepEqual([attempt?.reason, attempt?.attempt, attempt?.status, attempt?.error], ["booked", 1, "sent", null]);

    // Rotation kills both links.
    const rotated = expectStatus(await acme.post(`/events/${event.id}/vendors/${booking.id}/rotate-link`), 200);
    for (const token of [emailed, answered])
      assert.equal((await server.request("GET", `/v1/vendor-requests/${token}`)).status, 404);
    assert.equal((await server.request("GET", new URL(rotated.vendorLink).pathname)).status, 200);
  });

  test("an attendee is emailed their ticket link on registering, when paid and when promoted; each emailed link opens the ticket", async () => {
    const event = await createEvent(acme, {
      name: "Ticket Mail Fest",
      capacity: 1,
      waitlistEnabled: true,
      ticketTypes: [{ name: "Day pass", price: { amount: 2_500, currency: "EUR" } }],
    });
    const mailTo = (address: string) => smtp.received.filter((m) => JSON.stringify(m.to ?? "").includes(address));
    const linkOf = (mail: ParsedMail) => {
      const match = TICKET_LINK.exec(mail.text ?? "");
      assert.ok(match, mail.text);
      assert.ok((mail.html || "").includes(`href="${match[0]}"`));
      return match[1]!;
    };
    const ticket = async (token: string) =>
      expectStatus(await server.request("GET", `/v1/tickets/${token}`), 200).attendee;

    const ada = await register(acme, event.id, { email: "ada@mail.example", ticketType: "Day pass" });
    const bob = await register(acme, event.id, { email: "bob@mail.example", ticketType: "Day pass" });
    assert.deepEqual([ada.status, bob.status], ["pending", "waitlisted"]);
    const [adaRegistered] = await waitFor("Ada's ticket email", () =>
      mailTo("ada@mail.example").length ? mailTo("ada@mail.example") : undefined,
    );
    assert.equal(adaRegistered!.subject, "Your ticket for Ticket Mail Fest");
    assert.match(adaRegistered!.text ?? "", /Amount due: €25\.00|Amount due: 25\.00 EUR/);
    const adaFirst = linkOf(adaRegistered!);
    assert.deepEqual([(await ticket(adaFirst)).status, (await ticket(adaFirst)).qrCode], ["pending", null]);
    const [bobRegistered] = await waitFor("Bob's ticket email", () =>
      mailTo("bob@mail.example").length ? mailTo("bob@mail.example") : undefined,
    );
    assert.match(bobRegistered!.text ?? "", /waiting list \(place 1\)/);

    // Paid by hand: confirmed, and a second email with a link of its own; the QR shows now.
    expectStatus(await acme.post(`/attendees/${ada.id}/payments`, { amount: 2_500, method: "cash" }), 200);
    const paid = await waitFor("Ada's payment email", () =>
      mailTo("ada@mail.example").find((m) => m.subject?.startsWith("Payment received")),
    );
    assert.equal(paid.subject, "Payment received: Ticket Mail Fest");
    const adaPaid = linkOf(paid);
    assert.notEqual(adaPaid, adaFirst);
    for (const token of [adaPaid, adaFirst, TICKET_LINK.exec(ada.ticketUrl)![1]!]) {
      const view = await ticket(token);
      assert.equal(view.status, "confirmed");
      assert.match(view.qrCode, new RegExp(`/v1/qr/${ada.id}\\.png$`));
    }

    // Ada cancels through her emailed link: Bob is promoted and emailed.
    expectStatus(await server.request("POST", `/v1/tickets/${adaPaid}/cancel`), 200);
    const promoted = await waitFor("Bob's promotion email", () =>
      mailTo("bob@mail.example").find((m) => m.subject?.startsWith("You're off")),
    );
    assert.equal(promoted.subject, "You're off the waiting list: Ticket Mail Fest");
    assert.equal((await ticket(linkOf(promoted))).status, "pending");

    // Each change once: no second copy arrives.
    await sleep(500);
    assert.deepEqual([mailTo("ada@mail.example").length, mailTo("bob@mail.example").length], [2, 2]);
    const stored = await everything(server.database);
    for (const mail of [adaRegistered!, paid, bobRegistered!, promoted]) assert.ok(!stored.includes(linkOf(mail)));
  });

  test("an attempt the SMTP server refuses is retried: one email, recorded after two attempts", async () => {
    const event = await createEvent(acme);
    smtp.refuseNext(1);
    const booking = await bookVendor(acme, event.id, "retry@stage.example");
    const rows = await waitFor("the email's row to be sent", async () => {
      const mine = (await outbox(server.database)).filter((row) => row.subject_id === booking.id);
      return mine.length === 1 && mine[0]!.status === "sent" ? mine : undefined;
    });
    assert.equal(Number(rows[0]!.attempts), 2);
    await sleep(500);
    assert.equal(smtp.received.filter((m) => JSON.stringify(m.to).includes("retry@stage.example")).length, 1);
    const attempts = server
      .output()
      .split("\n")
      .filter((line) => line.includes('"msg":"email attempt"') && line.includes('"recipientDomain":"stage.example"'))
      .map((line) => JSON.parse(line));
    assert.deepEqual(
      attempts.map((line) => [line.attempt, line.status]),
      [
        [1, "pending"],
        [2, "sent"],
      ],
    );
    // The SMTP server's answer is logged and kept with the address cut to its domain.
    assert.match(attempts[0].error, /Mailbox of <…@stage\.example> busy, try again later/);
    assert.ok(!server.output().includes("retry@stage.example"));
  });

  test("only bookings with a contact email, and registrations, queue an email, in the change's transaction", async () => {
    const event = await createEvent(acme);
    const before = (await outbox(server.database)).length;
    const silent = await bookVendor(acme, event.id, null);
    const attendee = await register(acme, event.id);
    const rows = (await outbox(server.database)).slice(before);
    assert.deepEqual(
      rows.map((row) => [row.kind, row.reason, row.subject_id]),
      [["ticket_link", "registered", attendee.id]],
    );
    assert.ok(!rows.some((row) => row.subject_id === silent.id));
  });
});

test("without SMTP_URL nothing is written to the email outbox", async () => {
  const server = await startServer();
  try {
    const acme = clientFor(server, (await server.createKey({ account: `No Mail ${Date.now()}` })).key);
    const event = await createEvent(acme);
    await bookVendor(acme, event.id, "orders@plate.example");
    await register(acme, event.id);
    assert.deepEqual(await outbox(server.database), []);
  } finally {
    assert.equal(await server.stop("SIGTERM"), 0);
  }
});

describe("two server processes on one database send each email once", { concurrency: true }, () => {
  for (const backend of BACKENDS) {
    test(`on ${backend.name}`, { skip: backend.skip }, async () => {
      const fresh = await backend.fresh();
      const smtp = await startSmtp();
      const servers: TestServer[] = [];
      try {
        servers.push(await startServer({ database: fresh.database, env: emailEnv(smtp) }));
        servers.push(await startServer({ database: fresh.database, env: emailEnv(smtp) }));
        const key = (await servers[0]!.createKey({ account: `Two Mailers ${Date.now()}` })).key;
        const [a, b] = servers.map((server) => clientFor(server, key));
        const event = await createEvent(a!);
        // Bookings made on both processes at once: both workers are woken and look for work.
        const bookings = await Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            bookVendor(i % 2 === 0 ? a! : b!, event.id, `contact${i}@vendor${i}.example`),
          ),
        );
        await waitFor("every email's row to be sent", async () => {
          const rows = await outbox(fresh.database);
          return rows.length === 8 && rows.every((row) => row.status === "sent") ? rows : undefined;
        });
        await sleep(500);
        const recipients = smtp.received.map((mail) => (mail.to && !Array.isArray(mail.to) ? mail.to.text : "")).sort();
        assert.deepEqual(recipients, bookings.map((_, i) => `contact${i}@vendor${i}.example`).sort());
        assert.deepEqual(
          (await outbox(fresh.database)).map((row) => Number(row.attempts)),
          Array(8).fill(1),
        );
      } finally {
        for (const server of servers) assert.equal(await server.stop("SIGTERM"), 0);
        await smtp.close();
        await fresh.drop();
      }
    });
  }
});
