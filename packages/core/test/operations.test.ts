import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { createHandler, type FetchHandler } from "../src/http/handler.ts";
import { DOOR_LINK_ROUTES, ROUTES, TICKET_LINK_ROUTES, VENDOR_LINK_ROUTES } from "../src/http/routes.ts";
import {
  ACCOUNT_OPERATIONS,
  DOOR_LINK_OPERATIONS,
  TICKET_LINK_OPERATIONS,
  VENDOR_LINK_OPERATIONS,
} from "../src/operations/all.ts";
import { DEFAULT_EMISSION_FACTORS } from "../src/carbon/emission-factors.ts";
import { EventCreateInput } from "../src/resources/event.ts";
import { ServiceError } from "../src/errors.ts";
import { createEventService, type EventService } from "../src/service.ts";
import { sqliteStorage } from "./_sqlite.ts";

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "../src");

const EVENT = {
  name: "Green Summit",
  location: { address: "Hauptstr. 1", city: "Berlin", country: "DE" },
  startDate: "2038-01-01T10:00:00Z",
  endDate: "2038-01-01T12:00:00Z",
  capacity: 5,
  category: "meetup",
};

/** The names of an object's methods, nested ones as `group.name`, sorted. */
function methodNames(object: object, prefix: string): string[] {
  return Object.entries(object)
    .flatMap(([name, value]) =>
      typeof value === "function"
        ? [`${prefix}${name}`]
        : value !== null && typeof value === "object"
          ? methodNames(value, `${prefix}${name}.`)
          : [],
    )
    .sort();
}

describe("one definition per operation", () => {
  let service: EventService;
  let handler: FetchHandler;
  let key: string;
  let accountId: string;

  before(async () => {
    service = createEventService({ storage: await sqliteStorage(), now: () => new Date("2026-06-01T12:00:00.000Z") });
    handler = createHandler(service);
    ({ key, accountId } = await service.keys.create({ account: "Acme" }));
  });
  after(() => service.storage.close());

  test("the route tables are the definitions, each with a unique id and operationId", () => {
    assert.equal(ROUTES, ACCOUNT_OPERATIONS);
    assert.equal(VENDOR_LINK_ROUTES, VENDOR_LINK_OPERATIONS);
    assert.equal(TICKET_LINK_ROUTES, TICKET_LINK_OPERATIONS);
    assert.equal(DOOR_LINK_ROUTES, DOOR_LINK_OPERATIONS);
    assert.equal(ROUTES.length, 55);
    assert.equal(VENDOR_LINK_ROUTES.length, 7);
    assert.equal(TICKET_LINK_ROUTES.length, 5);
    assert.equal(DOOR_LINK_ROUTES.length, 5);
    const all = [...ROUTES, ...VENDOR_LINK_ROUTES, ...TICKET_LINK_ROUTES, ...DOOR_LINK_ROUTES];
    assert.equal(new Set(all.map((operation) => operation.id)).size, 72);
    assert.equal(new Set(all.map((operation) => operation.operationId)).size, 72);
    assert.equal(ROUTES.find((operation) => operation.operationId === "updateActivity")?.id, "activities.update");
    // An embedder's method takes the body or the query after the path's parameters: never both.
    assert.deepEqual(
      all.filter((operation) => operation.body && operation.query).map((operation) => operation.id),
      [],
    );
    assert.deepEqual(
      VENDOR_LINK_ROUTES.filter((operation) => !operation.path.startsWith("/vendor-requests/:token")),
      [],
    );
    assert.deepEqual(
      TICKET_LINK_ROUTES.filter((operation) => !operation.path.startsWith("/tickets/:token")),
      [],
    );
    assert.deepEqual(
      DOOR_LINK_ROUTES.filter((operation) => !operation.path.startsWith("/check-in/:token")),
      [],
    );
  });

  test("an account's embedder methods are the account's definitions, one each, by id", () => {
    const { accountId: _id, ...groups } = service.forAccount(accountId);
    assert.deepEqual(methodNames(groups, ""), ROUTES.map((operation) => operation.id).sort());
    assert.equal(methodNames(groups, "").length, 55);
  });

  test("a vendor link's methods are the link's definitions, one each, by id", async () => {
    const account = service.forAccount(accountId);
    const event = await account.events.create(EVENT);
    const vendor = await account.vendors.create({ name: "Green Catering", category: "catering" });
    const booking = await account.bookings.create(event.id, {
      vendorId: vendor.id,
      services: "Lunch for 120",
      dataRequested: ["catering"],
    });
    const token = new URL(booking.vendorLink!).pathname.split("/").at(-1)!;
    const link = await service.vendorLink(token);
    assert.ok(link);
    const { booking: whose, ...methods } = link;
    assert.deepEqual(whose, { id: booking.id, accountId });
    assert.deepEqual(methodNames(methods, "link."), VENDOR_LINK_ROUTES.map((operation) => operation.id).sort());
  });

  test("a ticket link's methods are the link's definitions, one each, by id", async () => {
    const account = service.forAccount(accountId);
    const event = await account.events.create({ ...EVENT, name: "Ticket methods" });
    const attendee = await account.attendees.register({
      eventId: event.id,
      firstName: "Ada",
      lastName: "Lovelace",
      email: "ada.methods@example.com",
      ticketType: "Standard",
    });
    const token = new URL(attendee.ticketUrl!).pathname.split("/").at(-1)!;
    const link = await service.ticketLink(token);
    assert.ok(link);
    const { attendee: whose, ...methods } = link;
    assert.deepEqual(whose, { id: attendee.id, accountId });
    assert.deepEqual(methodNames(methods, "ticket."), TICKET_LINK_ROUTES.map((operation) => operation.id).sort());
    assert.equal((await link.view()).attendee.email, "ada.methods@example.com");
  });

  test("a door link's methods are the link's definitions, one each, by id", async () => {
    const account = service.forAccount(accountId);
    const event = await account.events.create({ ...EVENT, name: "Door methods" });
    const made = await account.events.createCheckInLink(event.id, { label: "Gate" });
    const link = await service.doorLink(new URL(made.url!).pathname.split("/").at(-1)!);
    assert.ok(link);
    const { link: whose, ...methods } = link;
    assert.deepEqual(whose, { id: made.id, accountId, eventId: event.id });
    assert.deepEqual(methodNames(methods, "door."), DOOR_LINK_ROUTES.map((operation) => operation.id).sort());
    assert.deepEqual(await link.scan({ code: "EVT-2222-2222" }), {
      result: "event_not_open",
      attendee: null,
      checkedInAt: null,
    });
    await account.events.revokeCheckInLink(event.id, made.id);
    assert.equal(await service.doorLink(new URL(made.url!).pathname.split("/").at(-1)!), null);
  });

  test("a body is validated once, by the definition's schema: over HTTP and through an embedder's method", async () => {
    const original = EventCreateInput.safeParse.bind(EventCreateInput);
    let parses = 0;
    EventCreateInput.safeParse = ((value: unknown, params?: never) => {
      parses++;
      return original(value, params);
    }) as typeof EventCreateInput.safeParse;
    try {
      const response = await handler(
        new Request("http://service.test/v1/events", {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify(EVENT),
        }),
      );
      assert.equal(response.status, 201);
      assert.equal(parses, 1);
      const event = await service.forAccount(accountId).events.create(EVENT);
      assert.equal(event.name, "Green Summit");
      assert.equal(parses, 2);
    } finally {
      EventCreateInput.safeParse = original;
    }
  });

  test("an embedder's method refuses bad input as the route does: a rejected promise, 400 naming the field", async () => {
    const account = service.forAccount(accountId);
    const refused = account.events.create({ ...EVENT, capacity: -1 });
    assert.ok(refused instanceof Promise);
    await assert.rejects(refused, (error) => {
      assert.ok(ServiceError.is(error));
      assert.equal(error.code, "INVALID_REQUEST");
      assert.equal(error.field, "capacity");
      return true;
    });
    await assert.rejects(account.events.list({ page: "0" }), (error) => {
      assert.ok(ServiceError.is(error));
      assert.equal(error.field, "page");
      return true;
    });
    // A definition without input stays as it runs: the factor set is answered at once.
    const factors = account.analytics.emissionFactors();
    assert.ok(!(factors instanceof Promise));
    assert.equal(factors.year, DEFAULT_EMISSION_FACTORS.year);
  });

  test("no route casts an unvalidated body, and the business operations parse no input of their own", () => {
    const read = (dir: string) =>
      readdirSync(join(SRC, dir))
        .filter((name) => name.endsWith(".ts"))
        .map((name) => [`${dir}/${name}`, readFileSync(join(SRC, dir, name), "utf8")] as const);
    const casts = read("http").filter(([, text]) => /\.body<|optionalBody</.test(text));
    assert.deepEqual(
      casts.map(([file]) => file),
      [],
    );
    const parsing = read("service")
      .filter(([file]) => file.endsWith("-operations.ts") && file !== "service/key-operations.ts")
      .filter(([, text]) => /parseInput\((?!ThresholdCreateInput, \{)/.test(text));
    assert.deepEqual(
      parsing.map(([file]) => file),
      [],
    );
  });
});
