/**
 * The ceiling of `bench/on-sale.ts`: a bare h3 + pg server that inserts one registration row per
 * POST /api/attendees into PostgreSQL (one autocommitted INSERT on a pool of
 * DATABASE_POOL_SIZE connections, default 10 as the service's), with no auth, rate limit,
 * validation, capacity, duplicate check, lock or notification. With a process count above 1 it
 * forks that many workers on one port (node:cluster), as `serve --workers N` does.
 * `node --import tsx bench/bare-postgres-server.ts <postgres url> <account id> [processes]`;
 * prints a JSON `listening` line once every worker listens.
 */
import cluster from "node:cluster";
import { randomBytes } from "node:crypto";
import { H3, serve } from "h3";
import pg from "pg";

const [databaseUrl, accountId, processArg] = process.argv.slice(2) as [string, string, string | undefined];
const processes = Number(processArg ?? 1);

if (cluster.isPrimary && processes > 1) {
  let listening = 0;
  cluster.on("listening", (_worker, address) => {
    if (++listening === processes)
      process.stdout.write(`${JSON.stringify({ msg: "listening", url: `http://127.0.0.1:${address.port}` })}\n`);
  });
  for (let i = 0; i < processes; i++) cluster.fork();
  process.on("SIGTERM", () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.kill("SIGTERM");
    cluster.on("exit", () => {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
    });
  });
} else {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: Number(process.env.DATABASE_POOL_SIZE ?? 10) });
  const insert = `insert into attendees (id, account_id, event_id, first_name, last_name, email, email_key, ticket_type,
  dietary_preferences, custom_fields, search_key, status, confirmation_code, registration_date, updated_at, offset_opted, offset_amount)
  values ($1, $2, $3, $4, $5, $6, $7, $8, '[]', '{}', $7, 'confirmed', $9, $10, $10, 0, 0)`;

  const app = new H3();
  app.post("/api/attendees", async (event) => {
    const body = (await event.req.json()) as Record<string, string>;
    const id = `att_${randomBytes(12).toString("hex")}`;
    const now = new Date().toISOString();
    await pool.query({
      name: "bare-insert",
      text: insert,
      values: [
        id,
        accountId,
        body.eventId,
        body.firstName,
        body.lastName,
        body.email,
        body.email!.toLowerCase(),
        body.ticketType,
        randomBytes(8).toString("hex"),
        now,
      ],
    });
    return new Response(JSON.stringify({ id, ...body }), {
      status: 201,
      headers: { "content-type": "application/json" },
    });
  });

  // Not exclusive (srvx's reusePort): a cluster's workers then share one listening socket.
  const server = serve(app, { port: 0, reusePort: true, hostname: "127.0.0.1", silent: true, gracefulShutdown: false });
  await server.ready();
  if (processes === 1) process.stdout.write(`${JSON.stringify({ msg: "listening", url: server.url })}\n`);
  process.on("SIGTERM", () =>
    server
      .close()
      .then(() => pool.end())
      .then(() => process.exit(0)),
  );
}
