/**
 * Normalised text (docs/api.md, Conventions): a value is checked against its limits after
 * trimming and lower-casing, so what is stored can always be sent back (`PUT`) and found
 * (the list filters). The stored value is the parsed input: storage keeps it as it is.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import type * as z from "zod";
import { parseInput } from "../src/_internal/parse-input.ts";
import { ServiceError } from "../src/errors.ts";
import { AttendeeCreateInput, AttendeeListQuery, AttendeeUpdateInput } from "../src/resources/attendee.ts";
import { EventCreateInput, EventListQuery, EventUpdateInput } from "../src/resources/event.ts";

const EVENT = {
  name: "Green Summit",
  location: { address: "Main St 1", city: "Berlin", country: "DE" },
  startDate: "2038-05-01T09:00:00Z",
  endDate: "2038-05-01T17:00:00Z",
  capacity: 50,
  category: "conference",
};
const ATTENDEE = {
  eventId: "evt_1",
  firstName: "Ada",
  lastName: "Lovelace",
  email: "ada@example.org",
  ticketType: "general",
};

/** The parsed value, or `undefined` where the schema refuses it with `INVALID_REQUEST`. */
function accepted<S extends z.ZodType>(schema: S, value: unknown, where = "body"): z.output<S> | undefined {
  try {
    return parseInput(schema, value, where);
  } catch (error) {
    assert.ok(ServiceError.is(error) && error.code === "INVALID_REQUEST", `not a 400: ${String(error)}`);
    return undefined;
  }
}

/** The `INVALID_REQUEST` error's field for a refused value. */
function refusedField(schema: z.ZodType, value: unknown): string | undefined {
  try {
    parseInput(schema, value);
  } catch (error) {
    assert.ok(ServiceError.is(error) && error.code === "INVALID_REQUEST");
    return error.field;
  }
  assert.fail("expected INVALID_REQUEST");
}

/**
 * Text that trimming and lower-casing change, in length too: letters whose lower case is
 * longer (`İ`), whitespace, commas, around a run of plain letters that brings it near `max`.
 */
function nastyText(max: number): fc.Arbitrary<string> {
  const piece = fc.oneof(
    fc.constantFrom("İ", "ẞ", "ß", "Σ", "A", "a", " ", "\t", "\u00a0", "\u3000", ",", "\n"),
    fc.string({ unit: "binary", maxLength: 2 }),
  );
  return fc
    .tuple(fc.integer({ min: 0, max }), fc.array(piece, { maxLength: 12 }), fc.boolean())
    .map(([run, pieces, runFirst]) =>
      runFirst ? "x".repeat(run) + pieces.join("") : pieces.join("") + "x".repeat(run),
    );
}

interface Field {
  name: string;
  max: number;
  /** A whole body with the value in its field. */
  body: (value: string) => Record<string, unknown>;
  /** The list query that finds the stored value, and whether it does (not only accepts it). */
  query?: (stored: Record<string, unknown>) => {
    schema: z.ZodType;
    params: Record<string, string>;
    finds: (parsed: never) => boolean;
  };
}

const eventFields: Field[] = [
  {
    name: "name",
    max: 200,
    body: (name) => ({ ...EVENT, name }),
    query: (stored) => ({ schema: EventListQuery, params: { search: stored.name as string }, finds: () => true }),
  },
  { name: "description", max: 5000, body: (description) => ({ ...EVENT, description }) },
  { name: "location.address", max: 500, body: (address) => ({ ...EVENT, location: { ...EVENT.location, address } }) },
  { name: "location.city", max: 200, body: (city) => ({ ...EVENT, location: { ...EVENT.location, city } }) },
  { name: "location.state", max: 200, body: (state) => ({ ...EVENT, location: { ...EVENT.location, state } }) },
  { name: "location.zipCode", max: 20, body: (zipCode) => ({ ...EVENT, location: { ...EVENT.location, zipCode } }) },
  {
    name: "category",
    max: 50,
    body: (category) => ({ ...EVENT, category }),
    query: (stored) => ({
      schema: EventListQuery,
      params: { category: stored.category as string },
      finds: (parsed: { category: string }) => parsed.category === stored.category,
    }),
  },
  {
    name: "tags",
    max: 50,
    body: (tag) => ({ ...EVENT, tags: [tag, `${tag}2`] }),
    query: (stored) => {
      const tags = stored.tags as string[];
      return {
        schema: EventListQuery,
        params: { tags: tags.join(",") },
        finds: (parsed: { tags: string[] }) => tags.every((tag) => parsed.tags.includes(tag)),
      };
    },
  },
];

const attendeeFields: Field[] = [
  { name: "firstName", max: 100, body: (firstName) => ({ ...ATTENDEE, firstName }) },
  { name: "lastName", max: 100, body: (lastName) => ({ ...ATTENDEE, lastName }) },
  { name: "company", max: 200, body: (company) => ({ ...ATTENDEE, company }) },
  { name: "title", max: 200, body: (title) => ({ ...ATTENDEE, title }) },
  {
    name: "ticketType",
    max: 50,
    body: (ticketType) => ({ ...ATTENDEE, ticketType }),
    query: (stored) => ({
      schema: AttendeeListQuery,
      params: { ticketType: stored.ticketType as string },
      finds: (parsed: { ticketType: string }) => parsed.ticketType === stored.ticketType,
    }),
  },
  { name: "dietaryPreferences", max: 50, body: (item) => ({ ...ATTENDEE, dietaryPreferences: [item, `${item}2`] }) },
  { name: "accessibilityNeeds.other", max: 500, body: (other) => ({ ...ATTENDEE, accessibilityNeeds: { other } }) },
  {
    name: "emergencyContact.name",
    max: 200,
    body: (name) => ({ ...ATTENDEE, emergencyContact: { name, phone: "+49 30 1234567" } }),
  },
  {
    name: "emergencyContact.relationship",
    max: 100,
    body: (relationship) => ({ ...ATTENDEE, emergencyContact: { name: "Bo", phone: "+49 30 1234567", relationship } }),
  },
];

/** What a read gives back for a stored record, as a `PUT` body (no `eventId`: it cannot change). */
function asAttendeeUpdate(stored: Record<string, unknown>): Record<string, unknown> {
  const { eventId: _eventId, ...rest } = stored;
  return rest;
}

describe("normalised text: an accepted value, read back, is accepted again and found", () => {
  const groups = [
    {
      resource: "event",
      fields: eventFields,
      create: EventCreateInput,
      update: EventUpdateInput,
      asUpdate: (stored: Record<string, unknown>) => stored,
    },
    {
      resource: "attendee",
      fields: attendeeFields,
      create: AttendeeCreateInput,
      update: AttendeeUpdateInput,
      asUpdate: asAttendeeUpdate,
    },
  ];
  for (const { resource, fields, create, update, asUpdate } of groups) {
    for (const field of fields) {
      test(`${resource} ${field.name}`, () => {
        fc.assert(
          fc.property(nastyText(field.max), (value) => {
            const stored = accepted(create, field.body(value)) as Record<string, unknown> | undefined;
            if (stored === undefined) return;
            // Sent back unchanged, it is accepted and stored as it is (normalising is idempotent).
            const again = accepted(update, asUpdate(stored)) as Record<string, unknown> | undefined;
            assert.ok(again !== undefined, `PUT refused the stored ${field.name}`);
            for (const [key, storedValue] of Object.entries(asUpdate(stored)))
              assert.deepEqual(again[key], storedValue, key);
            if (field.query) {
              const { schema, params, finds } = field.query(stored);
              const parsed = accepted(schema, params, "query");
              assert.ok(parsed !== undefined, `the list query refused the stored ${field.name}`);
              assert.ok(finds(parsed as never), `the list query would not find the stored ${field.name}`);
            }
          }),
          { numRuns: 300 },
        );
      });
    }
  }

  test("50 x U+0130 is refused as a tag and a dietary preference, naming the field: lower-cased it is 100 code units", () => {
    const long = "İ".repeat(50);
    assert.equal(refusedField(EventCreateInput, { ...EVENT, tags: ["ok", long] }), "tags.1");
    assert.equal(
      refusedField(AttendeeCreateInput, { ...ATTENDEE, dietaryPreferences: [long] }),
      "dietaryPreferences.0",
    );
    assert.deepEqual(parseInput(EventCreateInput, { ...EVENT, tags: ["İ".repeat(25)] }).tags, ["i\u0307".repeat(25)]);
  });

  test("a value that normalises to nothing is refused", () => {
    assert.equal(refusedField(EventCreateInput, { ...EVENT, tags: [" \t "] }), "tags.0");
    assert.equal(
      refusedField(AttendeeCreateInput, { ...ATTENDEE, dietaryPreferences: ["\u3000"] }),
      "dietaryPreferences.0",
    );
    assert.equal(refusedField(EventCreateInput, { ...EVENT, category: "  " }), "category");
  });

  test("a tag with a comma is refused: the tags filter could not find it", () => {
    assert.equal(refusedField(EventCreateInput, { ...EVENT, tags: ["food,drink"] }), "tags.0");
  });
});
