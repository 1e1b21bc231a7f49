/**
 * The baseline of the benchmark: a bare h3 + better-sqlite3 server that runs the same reads as
 * the real one (an event by id and account, with the figures kept on its row; a page of 20 with
 * the account's total counted, as the service's list must) and a plain insert of a registration,
 * with no auth, rate limit, validation, capacity or duplicate check. Its reads are the fastest
 * this driver offers: rows read raw (arrays) and turned into objects in JavaScript, as the
 * service's own SQLite driver does. Started as its own process by run.ts:
 * `node <bareServerScript()> <sqlite file> <account id>` (plain node: see bare-server-script.ts), or
 * `node --import tsx bench/bare-server.ts <sqlite file> <account id>`.
 */
import { randomBytes } from "node:crypto";
import Database from "better-sqlite3";
import { H3, serve } from "h3";

const database = new Database(process.argv[2]!);
database.pragma("journal_mode = WAL");
database.pragma("busy_timeout = 5000");
database.pragma("synchronous = NORMAL");

const accountId = process.argv[3]!;
const getEvent = database.prepare("select * from events where id = ? and account_id = ?").raw(true);
const listEvents = database
  .prepare("select * from events where account_id = ? order by created_at desc, id desc limit 20")
  .raw(true);
const countEvents = database.prepare("select count(*) from events where account_id = ?").pluck(true);
const eventColumns = getEvent.columns().map((column) => column.name);

/** A raw row as an object keyed by its statement's column names. */
function toObject(row: unknown[]): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (let i = 0; i < eventColumns.length; i++) object[eventColumns[i]!] = row[i];
  return object;
}
const insertAttendee =
  database.prepare(`insert into attendees (id, account_id, event_id, first_name, last_name, email, email_key, ticket_type,
  dietary_preferences, custom_fields, search_key, status, confirmation_code, registration_date, updated_at, offset_opted, offset_amount)
  values (@id, @account_id, @event_id, @first_name, @last_name, @email, @email_key, @ticket_type, '[]', '{}', @email_key, 'confirmed', @code, @now, @now, 0, 0)`);

const app = new H3();
app.get("/api/events/:id", (event) => {
  const row = getEvent.get(event.context.params!.id, accountId) as unknown[] | undefined;
  return row ? toObject(row) : new Response("{}", { status: 404 });
});
app.get("/api/events", () => ({
  events: (listEvents.all(accountId) as unknown[][]).map(toObject),
  total: countEvents.get(accountId) as number,
}));
app.post("/api/attendees", async (event) => {
  const body = (await event.req.json()) as Record<string, string>;
  const id = `att_${randomBytes(12).toString("hex")}`;
  const now = new Date().toISOString();
  insertAttendee.run({
    id,
    account_id: accountId,
    event_id: body.eventId,
    first_name: body.firstName,
    last_name: body.lastName,
    email: body.email,
    email_key: body.email!.toLowerCase(),
    ticket_type: body.ticketType,
    code: randomBytes(8).toString("hex"),
    now,
  });
  return new Response(JSON.stringify({ id, ...body }), {
    status: 201,
    headers: { "content-type": "application/json" },
  });
});

const server = serve(app, { port: 0, hostname: "127.0.0.1", silent: true, gracefulShutdown: false });
await server.ready();
process.stdout.write(`${JSON.stringify({ msg: "listening", url: server.url })}\n`);
process.on("SIGTERM", () => server.close().then(() => process.exit(0)));
