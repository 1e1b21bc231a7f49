/**
 * `@event-service/client` installs alone: its packed tarball, installed into an empty folder
 * (ofetch from npm's local cache), brings ofetch and nothing of core's (no core, zod, kysely,
 * qrcode, swagger-ui-dist), loads in Node, and its declarations type-check a strict program on
 * their own: a correct program passes and deliberate mistakes are reported, so the types are
 * the real shapes and not `any`. Run `npm run build` first (`npm test` does).
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { ROOT } from "./_setup.ts";

const run = promisify(execFile);
const TSC = join(ROOT, "node_modules/typescript/bin/tsc");
/** What a browser app must never receive through the client. */
const FORBIDDEN = [
  "@event-service/core",
  "@event-service/server",
  "zod",
  "kysely",
  "qrcode",
  "swagger-ui-dist",
  "better-sqlite3",
  "rou3",
];

let dir: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "client-package-"));
  const { stdout } = await run(
    "npm",
    ["pack", "-w", "@event-service/client", "--pack-destination", dir, "--ignore-scripts", "--json"],
    { cwd: ROOT },
  );
  const { filename } = (JSON.parse(stdout) as { filename: string }[])[0]!;
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
  await run(
    "npm",
    ["install", join(dir, filename), "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"],
    { cwd: dir },
  );
});

after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Every package folder under node_modules, nested ones included, by name. */
function installedPackages(root: string): string[] {
  const names: string[] = [];
  const walk = (modules: string): void => {
    for (const entry of readdirSync(modules, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
      const scoped = entry.name.startsWith("@");
      for (const name of scoped
        ? readdirSync(join(modules, entry.name)).map((inner) => `${entry.name}/${inner}`)
        : [entry.name]) {
        names.push(name);
        const nested = join(modules, name, "node_modules");
        try {
          walk(nested);
        } catch {
          // no nested node_modules
        }
      }
    }
  };
  walk(join(root, "node_modules"));
  return names;
}

test("the installed client depends on ofetch alone and brings nothing of core's", async () => {
  const installed = installedPackages(dir);
  assert.ok(installed.includes("@event-service/client") && installed.includes("ofetch"), installed.join(", "));
  for (const name of FORBIDDEN) assert.ok(!installed.includes(name), `${name} was installed: ${installed.join(", ")}`);
  const { stdout } = await run("npm", ["ls", "--json", "--depth=1"], { cwd: dir });
  const tree = JSON.parse(stdout).dependencies["@event-service/client"];
  assert.deepEqual(Object.keys(tree.dependencies), ["ofetch"]);
});

test("the installed client loads in Node, its receiver helpers included", async () => {
  const script = `
    import { createClient, createVendorLinkClient, EventServiceError } from "@event-service/client";
    import { SIGNATURE_HEADER, signPayload, verifySignature } from "@event-service/client/webhooks";
    const client = createClient({ baseUrl: "http://127.0.0.1:9", apiKey: "esk_test" });
    const link = createVendorLinkClient({ link: "http://127.0.0.1:9/v1/vendor-requests/vrq_test" });
    const header = signPayload("whsec_test", '{"a":1}');
    console.log(JSON.stringify({
      resources: Object.keys(client).sort(),
      link: Object.keys(link).sort(),
      error: typeof EventServiceError.is,
      header: SIGNATURE_HEADER,
      verified: verifySignature("whsec_test", '{"a":1}', header),
      forged: verifySignature("whsec_other", '{"a":1}', header),
    }));`;
  const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], { cwd: dir });
  assert.deepEqual(JSON.parse(stdout), {
    resources: [
      "activities",
      "analytics",
      "attendees",
      "bookings",
      "events",
      "payments",
      "thresholds",
      "vendors",
      "webhooks",
    ],
    link: ["activities", "confirm", "decline", "get"],
    error: "function",
    header: "X-Service-Signature",
    verified: true,
    forged: false,
  });
});

test("the installed declarations type-check a strict program with no core present, and catch mistakes", async () => {
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        lib: ["ES2022", "DOM"],
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        exactOptionalPropertyTypes: true,
        noEmit: true,
        skipLibCheck: false,
        types: [],
      },
      files: ["good.ts", "bad.ts"],
    }),
  );
  writeFileSync(
    join(dir, "good.ts"),
    `
import { createClient, createVendorLinkClient, EventServiceError, type Attendee, type BookingWithLink, type ClientErrorCode, type Event, type EventCreateInput, type ListResult, type VendorRequest } from "@event-service/client";
import { SIGNATURE_HEADER, verifySignature } from "@event-service/client/webhooks";

const client = createClient({ baseUrl: "http://127.0.0.1:3000", apiKey: "esk_test", retry: { retries: 2 } });
const input: EventCreateInput = {
  name: "Green Summit", location: { address: "Alexanderplatz 1", city: "Berlin", country: "DE" },
  startDate: "2038-05-01T09:00:00Z", endDate: "2038-05-01T17:00:00Z", capacity: 200, category: "conference",
};
export async function main(): Promise<void> {
  const event: Event = await client.events.create(input, { idempotencyKey: "create-1" });
  const status: "draft" | "published" | "cancelled" | "completed" = event.status;
  const page: ListResult<"events", Event> = await client.events.list({ status: "published", limit: 10 });
  const total: number = page.pagination.total;
  const attendee: Attendee = await client.attendees.register({ eventId: event.id, firstName: "Ada", lastName: "Lovelace", email: "ada@example.com", ticketType: "general" });
  for await (const each of client.attendees.listAll({ eventId: event.id })) console.log(each.email, attendee.status);
  const report = await client.analytics.event(event.id);
  const booking: BookingWithLink = await client.bookings.create(event.id, { vendorId: "ven_1", services: "Lunch", dataRequested: ["catering"] });
  const vendor = createVendorLinkClient({ link: booking.vendorLink, retry: false });
  const answered: VendorRequest = await vendor.confirm({ message: "See you there" });
  const meals = await vendor.activities.create({ kind: "catering", quantity: 120, unit: "meals", mealType: "vegan" });
  console.log(answered.event.startDate, meals.emissionsKg, booking.status === "requested");
  try {
    await client.events.get("nope");
  } catch (error) {
    const code: ClientErrorCode | undefined = EventServiceError.is(error) ? error.code : undefined;
    console.log(code === "EVENT_FULL", status, total, report.eventId);
  }
  console.log(SIGNATURE_HEADER.toLowerCase(), verifySignature("secret", "{}", null));
}
`,
  );
  // Each line is a mistake the types must catch: the comment names the TypeScript error.
  writeFileSync(
    join(dir, "bad.ts"),
    `
import { createClient, type Event } from "@event-service/client";
const client = createClient({ baseUrl: "http://127.0.0.1:3000", apiKey: "esk_test" });
export async function main(): Promise<void> {
  const event: Event = await client.events.get("evt_1");
  const capacity: string = event.capacity; // TS2322
  await client.events.list({ status: "archived" }); // TS2322
  await client.events.create({ name: "No location" }); // TS2345
  await client.attendees.nope(); // TS2339
  console.log(capacity);
}
`,
  );
  const result = await run(process.execPath, [TSC, "-p", "tsconfig.json"], { cwd: dir }).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
  );
  const reported = [...result.stdout.matchAll(/^(\w+\.ts)\((\d+),\d+\): error (TS\d+)/gm)].map(
    ([, file, line, code]) => `${file}:${line} ${code}`,
  );
  assert.deepEqual(
    reported,
    ["bad.ts:6 TS2322", "bad.ts:7 TS2322", "bad.ts:8 TS2345", "bad.ts:9 TS2339"],
    result.stdout,
  );
  assert.equal(result.code, 2);
});
