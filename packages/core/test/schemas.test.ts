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
import { isCountryCode } from "../src/_internal/country-codes.ts";
import { EventCreateInput, EventListQuery, EventUpdateInput } from "../src/resources/event.ts";
import { ActivityInput } from "../src/resources/activity.ts";
import { PaymentInput, RefundInput } from "../src/resources/payment.ts";

const event = {
  name: "Green Summit",
  location: { address: "Main St 1", city: "Berlin", country: "DE" },
  startDate: "2038-05-01T09:00:00+02:00",
  endDate: "2038-05-01T17:00:00Z",
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
    assert.equal(parsed.startDate, "2038-05-01T07:00:00.000Z");
    assert.equal(parsed.endDate, "2038-05-01T17:00:00.000Z");
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
    ["date without time", { startDate: "2038-05-01" }, "startDate"],
    ["end before start", { endDate: "2038-05-01T06:59:59Z" }, "endDate"],
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
    const parsed = parseInput(EventListQuery, { startDate: "2038-01-01", endDate: "2038-01-31" }, "query");
    assert.equal(parsed.startDate, "2038-01-01T00:00:00.000Z");
    assert.equal(parsed.endDate, "2038-01-31T23:59:59.999Z");
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

describe("messages say how to fix the input", () => {
  /** The first issue's `field` and message, and `details.issues[0]`, which say the same. */
  function said(schema: Parameters<typeof parseInput>[0], value: unknown, where?: string) {
    const error = failure(schema, value, where);
    const issue = (error.details!.issues as Array<{ path: string; message: string }>)[0]!;
    assert.equal(error.message.startsWith(`${issue.path || where || "body"}: ${issue.message}`), true, error.message);
    return { field: error.field, message: error.message, issue };
  }
  const electricity = { kind: "electricity", quantity: 1200, unit: "kWh", source: "grid" };

  test("a missing field is required, with the form it takes", () => {
    assert.equal(
      said(EventCreateInput, { ...event, endDate: undefined }).message,
      "endDate: required: a date-time with Z or an offset, such as 2027-05-01T09:00:00+02:00",
    );
    assert.equal(said(EventCreateInput, { ...event, name: undefined }).message, "name: required: text");
    assert.equal(
      said(EventCreateInput, { ...event, capacity: undefined }).message,
      "capacity: required: a whole number",
    );
    assert.equal(said(EventCreateInput, { ...event, location: undefined }).message, "location: required: an object");
    assert.equal(
      said(PaymentInput, { method: "cash" }).message,
      "amount: required: a whole number in the currency's minor units (4500 is 45.00 EUR)",
    );
  });

  test("a date-time without Z or an offset shows the form", () => {
    const { field, message, issue } = said(EventCreateInput, { ...event, startDate: "2038-05-01T09:00:00" });
    assert.equal(field, "startDate");
    assert.equal(message, "startDate: expected a date-time with Z or an offset, such as 2027-05-01T09:00:00+02:00");
    assert.deepEqual(issue, {
      path: "startDate",
      message: "expected a date-time with Z or an offset, such as 2027-05-01T09:00:00+02:00",
    });
    // A query date takes a bare date too, and says so.
    assert.equal(
      said(EventListQuery, { startDate: "yesterday" }, "query").message,
      "startDate: expected a date-time with Z or an offset, such as 2027-05-01T09:00:00+02:00, or a date such as 2027-05-01",
    );
  });

  test("an enum missing or wrong lists its choices", () => {
    assert.equal(
      said(ActivityInput, { ...electricity, source: undefined }).message,
      "source: required: one of grid, renewable_tariff, onsite_renewable",
    );
    assert.equal(
      said(ActivityInput, { ...electricity, source: "coal" }).message,
      "source: must be one of grid, renewable_tariff, onsite_renewable",
    );
    assert.equal(said(ActivityInput, { ...electricity, unit: "MWh" }).message, "unit: must be kWh");
  });

  test("a record without its kind: required, one of the kinds", () => {
    const kinds = "one of electricity, fuel, catering, accommodation, materials, freight, waste, water, staff_travel";
    const missing = said(ActivityInput, { ...electricity, kind: undefined });
    assert.equal(missing.field, "kind");
    assert.equal(missing.message, `kind: required: ${kinds}`);
    assert.equal(said(ActivityInput, { ...electricity, kind: "solar" }).message, `kind: must be ${kinds}`);
  });

  test("an amount that is not a whole number says amounts are in the currency's minor units", () => {
    const minorUnits = "a whole number in the currency's minor units (4500 is 45.00 EUR)";
    const ticket = { name: "Standard", price: { amount: 45.5, currency: "EUR" } };
    const price = said(EventCreateInput, { ...event, ticketTypes: [ticket] });
    assert.equal(price.field, "ticketTypes.0.price.amount");
    assert.equal(price.message, `ticketTypes.0.price.amount: expected ${minorUnits}`);
    assert.equal(said(PaymentInput, { amount: 45.5, method: "cash" }).message, `amount: expected ${minorUnits}`);
    assert.equal(said(PaymentInput, { amount: "45.00", method: "cash" }).message, `amount: expected ${minorUnits}`);
    assert.equal(said(RefundInput, { amount: 0.5 }).message, `amount: expected ${minorUnits}`);
    assert.equal(said(RefundInput, { amount: 0 }).message, `amount: must be at least 1, ${minorUnits}`);
    assert.equal(
      said(PaymentInput, { amount: 100_000_000, method: "cash" }).message,
      `amount: must be at most 99999999, ${minorUnits}`,
    );
  });

  test("wrong types, sizes and unknown fields read as instructions", () => {
    assert.equal(said(EventCreateInput, { ...event, name: 42 }).message, "name: expected text");
    assert.equal(said(EventCreateInput, { ...event, capacity: 2.5 }).message, "capacity: expected a whole number");
    assert.equal(said(EventCreateInput, { ...event, capacity: "10" }).message, "capacity: expected a whole number");
    assert.equal(
      said(EventCreateInput, { ...event, waitlistEnabled: "yes" }).message,
      "waitlistEnabled: expected true or false",
    );
    assert.equal(said(EventCreateInput, { ...event, tags: "food" }).message, "tags: expected a list");
    assert.equal(said(EventCreateInput, { ...event, capacity: 0 }).message, "capacity: must be at least 1");
    assert.equal(
      said(EventCreateInput, { ...event, capacity: 2_000_000 }).message,
      "capacity: must be at most 1000000",
    );
    assert.equal(said(EventCreateInput, { ...event, name: "   " }).message, "name: must not be empty");
    assert.equal(
      said(EventCreateInput, { ...event, name: "x".repeat(201) }).message,
      "name: must be at most 200 characters",
    );
    assert.equal(
      said(EventCreateInput, { ...event, tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }).message,
      "tags: must have at most 20 items",
    );
    assert.equal(
      said(EventCreateInput, { ...event, color: "green" }).message,
      "color: is not a field here: remove it, or check its spelling",
    );
    assert.equal(
      said(EventCreateInput, { ...event, color: "green", size: 1 }).message,
      "body: color, size are not fields here: remove them, or check their spelling",
    );
    assert.equal(said(EventCreateInput, [1, 2]).message, "body: expected an object");
    assert.equal(
      said(AttendeeCreateInput, { eventId: "evt_1", firstName: "Ada", lastName: "L", email: "ada", ticketType: "x" })
        .message,
      "email: expected an email address such as ada@example.com",
    );
  });

  test("a message the schema gives itself is kept", () => {
    assert.equal(
      said(EventCreateInput, { ...event, location: { ...event.location, country: "de" } }).message,
      "location.country: must be an ISO 3166-1 alpha-2 country code in upper case, e.g. DE",
    );
    assert.equal(
      said(EventCreateInput, { ...event, endDate: "2038-05-01T06:59:59Z" }).message,
      "endDate: must not be before startDate",
    );
  });
});
