/**
 * The README's walkthrough and its analytics examples, pasted into bash as a reader would: the
 * `sh` blocks of "Walkthrough", "Analytics", "Vendors" and "Payments" run in order against the real server, with only
 * the server's address (`127.0.0.1:3000`) and the export's output file replaced. Every `curl`
 * fails the script on a 4xx or 5xx answer, so a step that does not work as written fails here.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ROOT, startServer, type TestServer } from "./_setup.ts";
import { runToEnd } from "./fixtures/conventions.ts";

/** The `sh` code blocks of the README section headed `## {heading}`. */
function shellBlocks(heading: string): string[] {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const start = readme.indexOf(`\n## ${heading}\n`);
  assert.ok(start >= 0, `README has no section "${heading}"`);
  const next = readme.indexOf("\n## ", start + 1);
  const section = readme.slice(start, next < 0 ? undefined : next);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server?.stop());

test("the README's walkthrough, analytics and vendors examples work when pasted as written", async () => {
  const walkthrough = shellBlocks("Walkthrough");
  const analytics = shellBlocks("Analytics");
  const vendors = shellBlocks("Vendors");
  const payments = shellBlocks("Payments");
  assert.equal(walkthrough.length, 1);
  assert.equal(analytics.length, 1);
  assert.equal(vendors.length, 1);
  assert.equal(payments.length, 1);
  const address = new URL(server.url).host;
  const csv = join(server.dir, "attendees.csv");
  const pasted = [...walkthrough, ...analytics, ...vendors, ...payments]
    .join("\n")
    .replaceAll("127.0.0.1:3000", address)
    .replace("-o attendees.csv", `-o ${csv}`)
    .replace("-o report.html", `-o ${join(server.dir, "report.html")}`);
  const script = [
    "set -eo pipefail",
    // A 4xx or 5xx answer fails the step (and, through pipefail, a step whose answer is kept).
    'curl() { command curl --fail-with-body "$@"; echo; }',
    pasted,
    'echo "KEPT $EVENT $CODE $AUTUMN"',
  ].join("\n");
  const result = await runToEnd("bash", ["-c", script], {
    cwd: ROOT,
    env: { DATABASE_URL: server.database },
    timeoutMs: 120_000,
  });
  assert.equal(result.code, 0, `the walkthrough failed:\n${result.stdout}\n${result.stderr}`);

  const kept = result.stdout
    .split("\n")
    .find((line) => line.startsWith("KEPT "))!
    .split(" ");
  assert.match(kept[1]!, /^evt_/);
  assert.match(kept[2]!, /^EVT-[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}$/);
  assert.match(kept[3]!, /^evt_/);
  const answers = result.stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, any>);
  const checkIn = answers.find((answer) => answer.status === "checked-in");
  assert.equal(checkIn?.confirmationCode, kept[2]);
  const trend = answers.find((answer) => answer.metric === "carbon_emissions");
  assert.deepEqual(
    trend?.dataPoints.map((point: { period: string }) => point.period),
    ["2038-04-01", "2038-07-01", "2038-10-01"],
  );
  assert.equal(trend?.dataPoints[1].value, null);
  // Ada by train (420 km) and Grace by car (190 km), with the README's carbon model.
  assert.deepEqual([trend?.dataPoints[0].value, trend?.dataPoints[2].value], [14.893, 32.004]);
  assert.match(readFileSync(csv, "utf8"), /^id,/);
  // The footprint's records, as the README shows them, and the report they make.
  const diesel = answers.find((answer) => answer.kind === "fuel");
  assert.deepEqual([diesel?.emissionsKg, diesel?.scope, diesel?.factor.value], [301.4472, 1, 2.51206]);
  assert.equal(answers.find((answer) => answer.kind === "waste")?.scope, 3);
  assert.equal(answers.find((answer) => answer.metric === "total_emissions_kg")?.value, 5000);
  const page = readFileSync(join(server.dir, "report.html"), "utf8");
  assert.match(page, /^<!doctype html>/i);
  assert.match(page, /Diesel/);
  // The Vendors step adds localSourcing and keeps the goals the event was made with.
  const located = answers.find((answer) => answer.id === kept[1] && answer.location?.coordinates);
  assert.deepEqual(
    [
      located?.sustainabilityGoals.carbonNeutral,
      located?.sustainabilityGoals.wasteReduction,
      located?.sustainabilityGoals.localSourcing,
    ],
    [true, 50, true],
  );
  // The caterer's covers through its link, and the local-sourcing share they make.
  const covers = answers.find((answer) => answer.kind === "catering");
  assert.match(covers?.vendorId, /^ven_/);
  assert.deepEqual([covers?.quantity, covers?.emissionsKg], [180, 228.6]);
  const shares = answers.filter((answer) => answer.vendors !== undefined && answer.eventId === kept[1]).at(-1)?.vendors;
  assert.deepEqual(shares, {
    confirmed: 1,
    local: 1,
    localSharePercent: 100,
    certified: 1,
    certifiedSharePercent: 100,
  });
  // The workshop pass: paid by hand, confirmed; part of it refunded; the money in the analytics.
  const paid = answers.find((answer) => answer.payment?.status === "paid");
  assert.deepEqual(
    [paid?.status, paid?.ticketType, paid?.payment.amount, paid?.payment.provider],
    ["confirmed", "Workshop", 4500, "manual"],
  );
  assert.equal(answers.find((answer) => answer.payment?.status === "partially_refunded")?.payment.amountRefunded, 1000);
  const money = answers.filter((answer) => answer.financial?.revenue?.length > 0).at(-1)?.financial;
  assert.deepEqual(money?.revenue, [{ currency: "EUR", gross: 4500, refunded: 1000, net: 3500, outstanding: 0 }]);
  assert.deepEqual(
    money?.byTicketType.map((row: { ticketType: string; sold: number }) => [row.ticketType, row.sold]),
    [
      ["Talks", 0],
      ["Workshop", 1],
    ],
  );
});
