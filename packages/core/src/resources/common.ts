import * as z from "zod";

/** Text never holds U+0000: databases cut strings there (and it is never meant). */
const NO_NUL = [(value: string) => !value.includes("\u0000"), "must not contain the character U+0000"] as const;

/** A string of at most `max` characters, trimmed, without U+0000 (may be empty). */
export const plainText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .refine(...NO_NUL);

/** A trimmed, non-empty string of at most `max` characters, without U+0000. */
export const text = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .refine(...NO_NUL);

/**
 * {@link text}, lower-cased. The limits apply to the lower-cased form, which may be longer
 * (`İ` becomes `i̇`, two code units): what is stored must pass the same schema when sent back.
 */
export const lowerCaseText = (max: number) =>
  z
    .string()
    .trim()
    .toLowerCase()
    .min(1)
    .max(max)
    .refine(...NO_NUL);

/**
 * Normalises an instant to UTC `toISOString()` form, refusing instants outside years
 * 0000..9999 (whose UTC form would not be the fixed-width, sortable one).
 */
function toUtc(value: string, ctx: z.RefinementCtx): string {
  const iso = new Date(value).toISOString();
  if (!/^\d{4}-/.test(iso)) {
    ctx.addIssue({ code: "custom", message: "must fall within the years 0000 to 9999 in UTC", input: value });
    return z.NEVER;
  }
  return iso;
}

/** An ISO 8601 date-time with `Z` or an offset, normalised to UTC (`2026-05-01T07:00:00.000Z`). */
export const DateTimeInput = z.iso
  .datetime({ offset: true })
  .transform(toUtc)
  .meta({ description: "ISO 8601 date-time with Z or an offset; stored and returned in UTC." });

/** True for a value that {@link DateTimeInput} produced (so two of them compare as instants). */
export function isUtcTimestamp(value: unknown): value is string {
  return typeof value === "string" && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(value);
}

/** Timestamps in responses. */
export const Timestamp = z.iso.datetime().meta({ description: "ISO 8601 date-time, UTC." });

/**
 * A free key-value map (`customFields`, `metadata`), Stripe's bounds: at most 50 keys of up to
 * 40 characters, values string (up to 500), number, boolean or null.
 */
const RESERVED_KEYS = new Set(["__proto__", "constructor", "prototype"]);

const KeyValueRecord = z
  .record(
    z
      .string()
      .min(1)
      .max(40)
      .refine(...NO_NUL),
    z.union([
      z
        .string()
        .max(500)
        .refine(...NO_NUL),
      z.number(),
      z.boolean(),
      z.null(),
    ]),
  )
  .refine((map) => Object.keys(map).length <= 50, "at most 50 keys");

// The parameter's type is what callers may send (the record), so the input type the client and
// the OpenAPI document take from this schema is the record and not `unknown`.
export const KeyValueMap = z.preprocess((value: z.input<typeof KeyValueRecord>, ctx) => {
  // Checked before parsing: a record would drop `__proto__` silently.
  if (value && typeof value === "object" && !Array.isArray(value)) {
    for (const key of Object.keys(value)) {
      if (RESERVED_KEYS.has(key))
        ctx.addIssue({ code: "custom", path: [key], message: "is a reserved key name", input: value });
    }
  }
  return value;
}, KeyValueRecord);
export type KeyValueMap = z.infer<typeof KeyValueMap>;

/** The pagination object of every list response. */
export const Pagination = z.object({
  page: z.int(),
  limit: z.int(),
  total: z.int(),
  totalPages: z.int(),
  hasNext: z.boolean(),
  hasPrev: z.boolean(),
});
export type Pagination = z.infer<typeof Pagination>;

/** The body of every `DELETE` response. */
export const DeleteResult = z.object({ success: z.literal(true), message: z.string(), deletedId: z.string() });
export type DeleteResult = z.infer<typeof DeleteResult>;

/** How the OpenAPI document shows the number query parameters: as the numbers they stand for. */
export const NUMBER_PARAM_DOCS = new WeakMap<object, Record<string, unknown>>();

/**
 * A number query parameter from `min` to `max`: decimal digits only (not `""`, ` 1`, `0x10` or
 * `1e1`, which `Number()` would take), or a number from a caller that is not a query string.
 */
export function numberParam(kind: "integer" | "decimal", min: number, max: number) {
  const digits = kind === "integer" ? /^\d{1,15}$/ : /^\d{1,15}(\.\d{1,15})?$/;
  const text = z
    .string()
    .regex(digits, `must be a ${kind === "integer" ? "whole" : "decimal"} number`)
    .transform(Number);
  const schema = z
    .union([z.number(), text])
    .pipe(kind === "integer" ? z.int().min(min).max(max) : z.number().min(min).max(max));
  NUMBER_PARAM_DOCS.set(schema, { type: kind === "integer" ? "integer" : "number", minimum: min, maximum: max });
  return schema;
}

/** `page` query parameter: 1 and up. */
export const PageParam = numberParam("integer", 1, 1_000_000).optional();
/** `limit` / `perPage` query parameter: 1..100. */
export const LimitParam = numberParam("integer", 1, 100).optional();
/** A `true` / `false` query parameter. */
export const BooleanParam = z.enum(["true", "false"]).transform((value) => value === "true");
/** `order` query parameter. */
export const OrderParam = z.enum(["asc", "desc"]).default("desc");
/** A date (`2026-05-01`) or date-time query parameter, normalised to UTC; `endOfDay` reads a bare date as its last millisecond. */
export function dateParam(endOfDay: boolean) {
  return z.union([
    z.iso.datetime({ offset: true }).transform(toUtc),
    z.iso.date().transform((value) => `${value}T${endOfDay ? "23:59:59.999" : "00:00:00.000"}Z`),
  ]);
}

/** The paging parameters every list takes. */
export const pagingParams = { page: PageParam, limit: LimitParam, perPage: LimitParam };

/**
 * Settles a list query's paging: `page` defaults to 1, `limit` and its alias `perPage` to 20
 * (they must agree when both are given); `perPage` is folded into `limit`.
 */
export function resolvePaging<
  Q extends { page?: number | undefined; limit?: number | undefined; perPage?: number | undefined },
>(query: Q, ctx: z.RefinementCtx): Omit<Q, "perPage" | "page" | "limit"> & { page: number; limit: number } {
  if (query.limit !== undefined && query.perPage !== undefined && query.limit !== query.perPage) {
    ctx.addIssue({
      code: "custom",
      path: ["perPage"],
      message: "perPage is an alias of limit; give one, or both equal",
    });
  }
  const { perPage, page, limit, ...rest } = query;
  return { ...rest, page: page ?? 1, limit: limit ?? perPage ?? 20 };
}

/** Builds the pagination object for a page of a list of `total` items. */
export function paginate(page: number, limit: number, total: number): Pagination {
  const totalPages = Math.ceil(total / limit);
  return { page, limit, total, totalPages, hasNext: page < totalPages, hasPrev: page > 1 };
}
