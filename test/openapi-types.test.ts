/**
 * A third-party generator reading `/openapi.json` produces the client's shapes: openapi-typescript
 * turns the document the running server answers into types, and tsc checks, for every operation
 * the document lists, that its request body, query parameters and success response agree with
 * the typed client's method for it: assignable both ways, the same property names at every
 * depth, and neither side `any`. The operations come from the document itself, so a new
 * endpoint with no client method (or no entry below) fails here. Run `npm run build` first.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import openapiTS, { astToString } from "openapi-typescript";
import {
  ACCOUNT_OPERATIONS,
  TICKET_LINK_OPERATIONS,
  VENDOR_LINK_OPERATIONS,
  DOOR_LINK_OPERATIONS,
} from "../packages/core/src/operations/all.ts";
import { ROOT, startServer, type TestServer } from "./_setup.ts";

/**
 * The client method of each operation, as `resource.method`: its definition's `client`, else its
 * `id` (a vendor's link: `link.*`, createVendorLinkClient's methods, which take the link and its token once;
 * an attendee's: `ticket.*`, createTicketLinkClient's; a door's: `door.*`, createCheckInLinkClient's).
 */
const CLIENT_METHODS: Record<string, string> = Object.fromEntries(
  [...ACCOUNT_OPERATIONS, ...VENDOR_LINK_OPERATIONS, ...TICKET_LINK_OPERATIONS, ...DOOR_LINK_OPERATIONS].map(
    (operation) => [operation.operationId, operation.client ?? operation.id],
  ),
);
/**
 * Client methods that take the one field of their body or query as a plain argument (a door's
 * `scan(code)` and `search(text)`): checked as that field's object (with `scan({attendeeId})`,
 * the body's other field, as the alternative).
 */
const UNWRAPPED: Record<string, string> = { scanAtDoor: "code", searchAtDoor: "search" };

/** Operations the client leaves out on purpose. */
const NOT_IN_CLIENT: Record<string, string> = {
  health: "a probe for load balancers, unauthenticated",
  serviceIndex: "links to the reference page, the document and the health check, for a person opening the address",
  qrCode: "an image for attendees' devices, linked from the registration",
  stripeWebhook: "Stripe calls it, signing with the endpoint's secret",
};

interface Operation {
  operationId: string;
  parameters?: { in: string; name: string }[];
  requestBody?: unknown;
  responses: Record<string, unknown>;
}

let server: TestServer;
let document: { paths: Record<string, Record<string, Operation>> };
let dir: string;

before(async () => {
  server = await startServer();
  const response = await fetch(`${server.url}/openapi.json`);
  assert.equal(response.status, 200);
  document = await response.json();
  dir = mkdtempSync(join(tmpdir(), "openapi-types-"));
});

after(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Every operation of the document with its path and method. */
function operations(): { path: string; method: string; operation: Operation }[] {
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
  );
}

/** The checks of one operation, as TypeScript: each `export const` must type-check as `true`. */
function checksOf(operation: Operation): string {
  const id = operation.operationId;
  const names = CLIENT_METHODS[id]!.split(".");
  const member = names.map((name) => `[${JSON.stringify(name)}]`).join("");
  // A link client is made of its link: the token, the first path parameter, is no argument.
  const link = names[0] === "link" || names[0] === "ticket" || names[0] === "door";
  const unwrapped = UNWRAPPED[id];
  const pathParams = (operation.parameters ?? []).filter((p) => p.in === "path").length - (link ? 1 : 0);
  const hasQuery = (operation.parameters ?? []).some((p) => p.in === "query");
  const success = Object.keys(operation.responses).filter((status) => /^2\d\d$/.test(status));
  assert.equal(success.length, 1, `${id} has one success response`);
  const lines = [
    `type ${id}_Method = Client${member};`,
    `type ${id}_Op = operations["${id}"];`,
    // The path parameters come first, as strings.
    ...Array.from(
      { length: pathParams },
      (_, i) => `export const ${id}__path${i}: Agree<Parameters<${id}_Method>[${i}], string> = true;`,
    ),
    `type ${id}_Response = Awaited<ReturnType<${id}_Method>>;`,
  ];
  const content = (operation.responses[success[0]!] as { content: Record<string, unknown> }).content;
  if ("application/json" in content) {
    lines.push(
      `type ${id}_DocResponse = ${id}_Op["responses"][${success[0]}]["content"]["application/json"];`,
      `export const ${id}__response: Agree<${id}_Response, ${id}_DocResponse> = true;`,
    );
  } else if ("text/calendar" in content) {
    // A calendar file: the client resolves with its text.
    lines.push(`export const ${id}__text: Agree<${id}_Response, string> = true;`);
  } else {
    // A streamed answer of another format (an export): the client hands over the byte stream.
    lines.push(`export const ${id}__stream: Agree<${id}_Response, ReadableStream<Uint8Array>> = true;`);
  }
  if (operation.requestBody) {
    // An optional body (a vendor's answer) is an optional argument: compared when given.
    const optional = (operation.requestBody as { required?: boolean }).required !== true;
    if (optional)
      lines.push(
        `export const ${id}__bodyOptional: undefined extends Parameters<${id}_Method>[${pathParams}] ? true : false = true;`,
      );
    lines.push(
      unwrapped
        ? // The plain argument is that field; an object argument beside it (a scan's `{attendeeId}`) is its alternative.
          `type ${id}_Arg = Parameters<${id}_Method>[${pathParams}];
type ${id}_Body = { ${unwrapped}?: Extract<${id}_Arg, string> } & ([Exclude<${id}_Arg, string>] extends [never] ? {} : Partial<Exclude<${id}_Arg, string>>);`
        : `type ${id}_Body = ${optional ? "NonNullable<" : ""}Parameters<${id}_Method>[${pathParams}]${optional ? ">" : ""};`,
      `type ${id}_DocBody = NonNullable<${id}_Op["requestBody"]>["content"]["application/json"];`,
      `export const ${id}__body: Agree<${id}_Body, ${id}_DocBody> = true;`,
    );
  }
  if (hasQuery) {
    lines.push(
      unwrapped
        ? `type ${id}_Query = { ${unwrapped}?: Parameters<${id}_Method>[${pathParams}] };`
        : `type ${id}_Query = NonNullable<Parameters<${id}_Method>[${pathParams}]>;`,
      `type ${id}_DocQuery = NonNullable<${id}_Op["parameters"]["query"]>;`,
      `export const ${id}__query: AgreeQuery<${id}_Query, ${id}_DocQuery> = true;`,
    );
  } else {
    // No query in the document: the client's argument after the path is no query object.
    lines.push(
      `export const ${id}__noQuery: "page" extends keyof NonNullable<Parameters<${id}_Method>[${pathParams}]> ? false : true = true;`,
    );
  }
  return lines.join("\n");
}

const HELPERS = `
type IsAny<T> = 0 extends 1 & T ? true : false;
type Assignable<A, B> = [A] extends [B] ? true : false;
/** Property names at every depth, every one required: equal when both sides name the same fields. */
type Keys<T> = T extends readonly (infer E)[] ? Keys<E>[] : T extends object ? { [K in keyof T]-?: Keys<NonNullable<T[K]>> } : "value";
/** Assignable both ways, the same property names at every depth, neither side \`any\`. */
type Agree<A, B> = IsAny<A> extends true ? false : IsAny<B> extends true ? false
  : Assignable<A, B> extends false ? false : Assignable<B, A> extends false ? false
  : Assignable<Keys<A>, Keys<B>> extends false ? false : Assignable<Keys<B>, Keys<A>>;
/**
 * A query as the client sends it: a list comma-joined, a boolean as "true" or "false", and a
 * number it also takes as text (for values read from a URL) as the number the document describes.
 */
type OnTheWire<V> = V extends readonly unknown[] ? string : V extends boolean ? \`\${V}\` : V;
type Strict<V> = number extends V ? Exclude<V, string> : V;
type ClientQuery<P> = { [K in keyof P]: Strict<OnTheWire<P[K]>> };
/** Same names, what the document allows the client takes, what the client sends the document allows. */
type AgreeQuery<P, D> = IsAny<P> extends true ? false : IsAny<D> extends true ? false
  : Assignable<keyof P, keyof D> extends false ? false : Assignable<keyof D, keyof P> extends false ? false
  : Assignable<D, P> extends false ? false : Assignable<ClientQuery<P>, D>;
`;

test("every operation of the document has a client method, or a reason it has none", () => {
  const ids = operations().map(({ operation }) => operation.operationId);
  assert.equal(new Set(ids).size, ids.length, "operation ids are unique");
  assert.deepEqual(
    ids.filter((id) => !(id in CLIENT_METHODS) && !(id in NOT_IN_CLIENT)),
    [],
    "operations with no client method and no reason",
  );
  assert.deepEqual(
    Object.keys({ ...CLIENT_METHODS, ...NOT_IN_CLIENT }).filter((id) => !ids.includes(id)),
    [],
    "entries for operations the document lacks",
  );
});

test("every definition has a method in the built client, by its `client` or `id`", async () => {
  const { createCheckInLinkClient, createClient, createTicketLinkClient, createVendorLinkClient } = await import(
    join(ROOT, "packages/client/dist/index.js")
  );
  const client = {
    ...createClient({ baseUrl: "http://unused.test", apiKey: "esk_unused" }),
    link: createVendorLinkClient({ link: "http://unused.test/v1/vendor-requests/vlk_unused" }),
    ticket: createTicketLinkClient("http://unused.test/v1/tickets/tkt_unused"),
    door: createCheckInLinkClient("http://unused.test/v1/check-in/chk_unused"),
  };
  const missing = Object.values(CLIENT_METHODS).filter(
    (method) =>
      typeof method.split(".").reduce<unknown>((at, name) => (at as Record<string, unknown>)?.[name], client) !==
      "function",
  );
  assert.deepEqual(missing, []);
  assert.equal(Object.keys(CLIENT_METHODS).length, 72);
  assert.equal(CLIENT_METHODS.getTicket, "ticket.get");
  assert.equal(CLIENT_METHODS.getDoor, "door.get");
  assert.equal(CLIENT_METHODS.createCheckInLink, "events.checkInLinks.create");
  assert.equal(CLIENT_METHODS.getSustainabilityReport, "events.sustainabilityReport");
  assert.equal(CLIENT_METHODS.updateVendorActivity, "link.activities.update");
});

test("openapi-typescript's types of /openapi.json agree with the client's for every operation", async () => {
  writeFileSync(join(dir, "openapi.ts"), astToString(await openapiTS(document as never)));
  const checked = operations().filter(({ operation }) => operation.operationId in CLIENT_METHODS);
  const client = join(ROOT, "packages/client/dist/index.js");
  writeFileSync(
    join(dir, "checks.ts"),
    [
      `import type { operations } from "./openapi.ts";`,
      `import type { CheckInLinkClient, EventServiceClient, TicketLinkClient, VendorLinkClient } from ${JSON.stringify(client)};`,
      "type Client = EventServiceClient & { link: VendorLinkClient; ticket: TicketLinkClient; door: CheckInLinkClient };",
      HELPERS,
      ...checked.map(({ operation }) => checksOf(operation)),
    ].join("\n"),
  );
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        lib: ["ES2022", "DOM"],
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        noEmit: true,
        allowImportingTsExtensions: true,
        skipLibCheck: true,
        types: [],
      },
      files: ["checks.ts"],
    }),
  );
  const result = await promisify(execFile)(
    process.execPath,
    [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"],
    { cwd: dir },
  ).then(
    ({ stdout }) => stdout,
    (error: { stdout: string }) => error.stdout,
  );
  // Name each failed check (operation and part) rather than print tsc's line numbers.
  const source = readFileSync(join(dir, "checks.ts"), "utf8").split("\n");
  const failed = [...result.matchAll(/^checks\.ts\((\d+),\d+\): error TS\d+: (.*)$/gm)].map(
    ([, line, message]) => source[Number(line) - 1]!.match(/export const (\w+)/)?.[1] ?? `${line}: ${message}`,
  );
  if (failed.length === 0) assert.equal(result.trim(), "", "tsc failed outside the checks");
  assert.deepEqual(failed, [], result);
  assert.ok(checked.length >= 21, `${checked.length} operations checked`);
});
