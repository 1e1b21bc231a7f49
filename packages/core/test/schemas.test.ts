import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseInput } from "../src/_internal/parse-input.ts";
import { ServiceError } from "../src/errors.ts";
import {
  AttendeeCreateInput,
  AttendeeListQuery,
  AttendeeUpdateInput,
  CheckInInput,
} from "../src/resources/attendee.ts";
import { ApiKeyCreateInput, SCOPES, scopesOf, storedScopes } from "../src/resources/api-key.ts";
import { EventCreateInput, EventListQuery, EventUpdateInput, isCountryCode } from "../src/resources/event.ts";

const event = {
  name: "Green Summit",
  location: { address: "Main St 1", city: "Berlin", country: "DE" },
  startDate: "2027-05-01T09:00:00+02:00",
  endDate: "2027-05-01T17:00:00Z",
  capacity: 50,
  category: "conference",
};

/** The INVALID_REQUEST error that parsing `value` throws. */
function failure(schema: Parameters<typeof parseInput>[0], value: unknown, where?: string): ServiceError {
  try {
    parseInput(schema, value, where);
  } catch (error) {
    assert.ok(ServiceError.is(error));
    assert.equal(error.code, "INVALID_REQUEST");
    return error;
  }
  assert.fail("expected INVALID_REQUEST");
}

describe("EventCreateInput", () => {
  test("normalises dates to UTC, tags to lower-case unique", () => {
    const parsed = parseInput(EventCreateInput, { ...event, tags: [" Climate ", "climate", "Food"] });
    assert.equal(parsed.startDate, "2027-05-01T07:00:00.000Z");
    assert.equal(parsed.endDate, "2027-05-01T17:00:00.000Z");
    assert.deepEqual(parsed.tags, ["climate", "food"]);
  });

  const invalid: Array<[string, Record<string, unknown>, string]> = [
    ["missing name", { name: undefined }, "name"],
    ["empty name", { name: "   " }, "name"],
    ["lower-case country", { location: { ...event.location, country: "de" } }, "location.country"],
    ["unknown country", { location: { ...event.location, country: "XX" } }, "location.country"],
    ["alpha-3 country", { location: { ...event.location, country: "DEU" } }, "location.country"],
    ["missing city", { location: { address: "a", country: "DE" } }, "location.city"],
    [
      "latitude out of range",
      { location: { ...event.location, coordinates: { lat: 91, lng: 0 } } },
      "location.coordinates.lat",
    ],
    [
      "longitude out of range",
      { location: { ...event.location, coordinates: { lat: 0, lng: -181 } } },
      "location.coordinates.lng",
    ],
    ["zero capacity", { capacity: 0 }, "capacity"],
    ["fractional capacity", { capacity: 2.5 }, "capacity"],
    ["capacity as string", { capacity: "10" }, "capacity"],
    ["date without time", { startDate: "2027-05-01" }, "startDate"],
    ["end before start", { endDate: "2027-05-01T06:59:59Z" }, "endDate"],
    [
      "waste reduction over 100",
      { sustainabilityGoals: { wasteReduction: 101 } },
      "sustainabilityGoals.wasteReduction",
    ],
    ["unknown goal", { sustainabilityGoals: { solar: true } }, "sustainabilityGoals.solar"],
    ["status on create", { status: "published" }, "status"],
    ["unknown field", { color: "green" }, "color"],
    ["21 tags", { tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, "tags"],
  ];
  for (const [name, change, field] of invalid) {
    test(`rejects ${name} (field ${field})`, () => {
      const error = failure(EventCreateInput, { ...event, ...change });
      assert.equal(error.field, field);
      assert.match(error.message, new RegExp(`^${field.replace(/\./g, "\\.")}: `));
      assert.equal((error.details!.issues as Array<{ path: string }>)[0]!.path, field);
    });
  }

  test("reports every issue in details", () => {
    const error = failure(EventCreateInput, { ...event, name: "", capacity: -1 });
    const paths = (error.details!.issues as Array<{ path: string }>).map((issue) => issue.path).sort();
    assert.deepEqual(paths, ["capacity", "name"]);
    assert.match(error.message, /\(and 1 more issue\)$/);
  });

  test("a body that is not an object names no field", () => {
    const error = failure(EventCreateInput, [1, 2]);
    assert.equal(error.field, undefined);
    assert.match(error.message, /^body: /);
  });
});

describe("EventUpdateInput", () => {
  test("accepts a partial body and null to clear", () => {
    assert.deepEqual(parseInput(EventUpdateInput, { description: null, status: "published" }), {
      description: null,
      status: "published",
    });
  });
  test("rejects an unknown status and a null location", () => {
    assert.equal(failure(EventUpdateInput, { status: "archived" }).field, "status");
    assert.equal(failure(EventUpdateInput, { location: null }).field, "location");
  });
});

describe("EventListQuery", () => {
  test("defaults", () => {
    assert.deepEqual(parseInput(EventListQuery, {}, "query"), {
      page: 1,
      limit: 20,
      sortBy: "createdAt",
      order: "desc",
    });
  });
  test("perPage is an alias of limit", () => {
    assert.equal(parseInput(EventListQuery, { perPage: "50" }, "query").limit, 50);
    assert.equal(parseInput(EventListQuery, { perPage: "50", limit: "50" }, "query").limit, 50);
    assert.equal(failure(EventListQuery, { perPage: "50", limit: "10" }, "query").field, "perPage");
  });
  test("dates: a bare endDate means the end of that day", () => {
    const parsed = parseInput(EventListQuery, { startDate: "2027-01-01", endDate: "2027-01-31" }, "query");
    assert.equal(parsed.startDate, "2027-01-01T00:00:00.000Z");
    assert.equal(parsed.endDate, "2027-01-31T23:59:59.999Z");
  });
  test("tags are split, trimmed and lower-cased", () => {
    assert.deepEqual(parseInput(EventListQuery, { tags: "Food, climate,,food" }, "query").tags, ["food", "climate"]);
  });
  const bad: Array<[Record<string, string>, string]> = [
    [{ limit: "500" }, "limit"],
    [{ limit: "0" }, "limit"],
    [{ page: "0" }, "page"],
    [{ page: "abc" }, "page"],
    [{ status: "foo" }, "status"],
    [{ sortBy: "x" }, "sortBy"],
    [{ order: "up" }, "order"],
    [{ minScore: "101" }, "minScore"],
    [{ tags: "," }, "tags"],
    [{ startDate: "yesterday" }, "startDate"],
    [{ bogus: "1" }, "bogus"],
  ];
  for (const [query, field] of bad) {
    test(`rejects ${JSON.stringify(query)}`, () => assert.equal(failure(EventListQuery, query, "query").field, field));
  }
});

describe("AttendeeCreateInput", () => {
  const attendee = {
    eventId: "evt_1",
    firstName: "Ada",
    lastName: "Lovelace",
    email: "Ada@Example.com",
    ticketType: "vip",
  };
  test("keeps the email as given and lower-cases dietary preferences", () => {
    const parsed = parseInput(AttendeeCreateInput, { ...attendee, dietaryPreferences: ["Vegan", "vegan", "Halal"] });
    assert.equal(parsed.email, "Ada@Example.com");
    assert.deepEqual(parsed.dietaryPreferences, ["vegan", "halal"]);
  });
  const invalid: Array<[string, Record<string, unknown>, string]> = [
    ["bad email", { email: "not-an-email" }, "email"],
    ["phone without country code", { phone: "030 1234567" }, "phone"],
    ["phone too short", { phone: "+49 12" }, "phone"],
    ["unknown travel mode", { carbonOffset: { travelMode: "rocket" } }, "carbonOffset.travelMode"],
    ["negative offset", { carbonOffset: { opted: true, amount: -5 } }, "carbonOffset.amount"],
    ["emergency contact without phone", { emergencyContact: { name: "Bob" } }, "emergencyContact.phone"],
    ["status on create", { status: "pending" }, "status"],
    ["custom field value object", { customFields: { a: { b: 1 } } }, "customFields.a"],
    ["missing ticket type", { ticketType: undefined }, "ticketType"],
  ];
  for (const [name, change, field] of invalid) {
    test(`rejects ${name}`, () => assert.equal(failure(AttendeeCreateInput, { ...attendee, ...change }).field, field));
  }
  test("accepts a full registration", () => {
    const full = {
      ...attendee,
      phone: "+49 (30) 123-4567",
      company: "Acme",
      title: "CTO",
      accessibilityNeeds: { wheelchairAccess: true, other: "quiet room" },
      carbonOffset: { opted: true, amount: 12.5, travelDistance: 420, travelMode: "train" },
      emergencyContact: { name: "Bob", phone: "+44 20 7946 0958", relationship: "partner" },
      customFields: { shirt: "M", vip: true, seats: 2, note: null },
    };
    assert.deepEqual(parseInput(AttendeeCreateInput, full), full);
  });
});

describe("AttendeeUpdateInput, AttendeeListQuery, CheckInInput", () => {
  test("eventId cannot be changed", () => {
    const error = failure(AttendeeUpdateInput, { eventId: "evt_2" });
    assert.equal(error.field, "eventId");
    assert.match(error.message, /cannot be changed/);
  });
  test("carbonOffset filter is a strict boolean", () => {
    assert.equal(parseInput(AttendeeListQuery, { carbonOffset: "false" }, "query").carbonOffset, false);
    assert.equal(failure(AttendeeListQuery, { carbonOffset: "yes" }, "query").field, "carbonOffset");
  });
  test("confirmation codes are upper-cased", () => {
    assert.equal(parseInput(CheckInInput, { confirmationCode: " evt-7kq2-m9xh " }).confirmationCode, "EVT-7KQ2-M9XH");
  });
});

describe("ApiKeyCreateInput and countries", () => {
  test("no scopes named means all scopes: none kept, read as every scope (stored *)", () => {
    assert.deepEqual(parseInput(ApiKeyCreateInput, { account: "Acme" }).scopes, []);
    assert.deepEqual(scopesOf(storedScopes([])), [...SCOPES]);
    assert.deepEqual(scopesOf(storedScopes(["events:read", "vendors:write"])), ["events:read", "vendors:write"]);
    assert.deepEqual(parseInput(ApiKeyCreateInput, { account: "Acme", scopes: ["analytics:read"] }).scopes, [
      "analytics:read",
    ]);
    assert.equal(failure(ApiKeyCreateInput, { account: "Acme", scopes: ["events:delete"] }).field, "scopes.0");
    assert.equal(failure(ApiKeyCreateInput, { account: "Acme", tier: "gold" }).field, "tier");
  });
  test("ISO 3166-1 alpha-2 codes", () => {
    for (const code of ["DE", "US", "GB", "BR", "JP", "ZA", "AD", "ZW", "XK"])
      assert.equal(isCountryCode(code), true, code);
    for (const code of ["XX", "UK", "EU", "de", "DEU", "", "D"]) assert.equal(isCountryCode(code), false, code);
  });
});
