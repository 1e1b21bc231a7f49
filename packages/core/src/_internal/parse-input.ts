import * as z from "zod";
import { ServiceError } from "../errors.ts";

/**
 * How a value is written, where its type alone does not say it: the validation messages name it
 * (`amount: required: a whole number in the currency's minor units (4500 is 45.00 EUR)`).
 */
export const INPUT_FORMS = z.registry<{ form: string }>();

/** One zod issue as the error body shows it in `details.issues`. */
export interface InputIssue {
  path: string;
  message: string;
}

function issuePath(issue: z.core.$ZodIssue): string {
  const keys =
    issue.code === "unrecognized_keys" && issue.keys.length === 1 ? [...issue.path, issue.keys[0]!] : issue.path;
  return keys.map(String).join(".");
}

/**
 * The one validation path: parses `value` with `schema` or throws `INVALID_REQUEST`
 * with the first offending `field` and every issue in `details.issues`.
 *
 * @param where what is being parsed ("body", "query"), used when an issue has no path
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, where = "body"): z.output<S> {
  let result: z.ZodSafeParseResult<z.output<S>>;
  try {
    // The messages are given per parse, not through zod's global config: the app embedding the
    // service may use zod itself, with messages of its own.
    result = schema.safeParse(value, PARSE_PARAMS);
  } catch {
    // zod's length checks also run on a value of the wrong type and compare its `length`: one
    // that cannot become a number (`{"length": {"toString": 0}}`) makes them throw.
    const field = oddLengthPath(value);
    const message = "expected text or a list, not an object with an unreadable length";
    throw new ServiceError("INVALID_REQUEST", {
      message: `${field || where}: ${message}`,
      ...(field && { field }),
      details: { issues: [{ path: field ?? "", message }] },
    });
  }
  if (result.success) return result.data;
  const issues: InputIssue[] = result.error.issues.map((issue) => ({ path: issuePath(issue), message: issue.message }));
  const first = issues[0]!;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more issue${issues.length > 2 ? "s" : ""})` : "";
  throw new ServiceError("INVALID_REQUEST", {
    message: `${first.path || where}: ${first.message}${more}`,
    ...(first.path && { field: first.path }),
    details: { issues },
  });
}

/** The path of the first object in `value` whose `length` is itself an object ("" for the top); a walk without recursion, since the nesting is the client's. */
function oddLengthPath(value: unknown): string | undefined {
  const pending: Array<[unknown, string[]]> = [[value, []]];
  for (let i = 0; i < pending.length; i++) {
    const [node, path] = pending[i]!;
    if (node === null || typeof node !== "object") continue;
    const length = Object.hasOwn(node, "length") ? (node as { length: unknown }).length : undefined;
    if (typeof length === "object" && length !== null) return path.join(".");
    for (const [key, child] of Object.entries(node)) pending.push([child, [...path, key]]);
  }
  return undefined;
}

type RawIssue = z.core.$ZodRawIssue;

/** The parse's options, made once: every request body goes through here. */
const PARSE_PARAMS = { error: instruction };

/** How the string formats the schemas use are written (docs/api.md, "Errors"). */
const FORMAT_FORMS: Record<string, string> = {
  datetime: "a date-time with Z or an offset, such as 2027-05-01T09:00:00+02:00",
  date: "a date such as 2027-05-01",
  email: "an email address such as ada@example.com",
  url: "a URL such as https://example.com/hooks",
  uuid: "a UUID",
};

/** How a value of each JSON type is named. */
const TYPE_FORMS: Record<string, string> = {
  string: "text",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  object: "an object",
  record: "an object",
  array: "a list",
  tuple: "a list",
  null: "null",
};

/** `one of a, b, c` (or the one value), as a person would type them. */
function choices(values: readonly unknown[]): string {
  const shown = values.map((value) => (typeof value === "string" ? value : JSON.stringify(value)));
  return shown.length === 1 ? shown[0]! : `one of ${shown.join(", ")}`;
}

/** What a value the issue is about should look like: the schema's own form, its string format, or its type. */
function formOf(issue: RawIssue): string {
  const owner = issue.schema ?? issue.inst;
  const registered = owner && INPUT_FORMS.get(owner as z.ZodType);
  if (registered) return registered.form;
  if (issue.code === "invalid_format") return FORMAT_FORMS[issue.format] ?? `text in the ${issue.format} format`;
  if (issue.code === "invalid_type") {
    const { type, format } = (owner?._zod.def ?? {}) as { type?: unknown; format?: unknown };
    if (typeof format === "string" && FORMAT_FORMS[format]) return FORMAT_FORMS[format]!;
    // z.int() says it expected a number when given text.
    if (type === "number" && typeof format === "string" && /int/.test(format)) return TYPE_FORMS.int!;
    return TYPE_FORMS[issue.expected] ?? issue.expected;
  }
  return "a valid value";
}

/** `must be at least 3 characters`, `must have at most 20 items`, `must be more than 0`. */
function bound(issue: RawIssue & { code: "too_small" | "too_big" }): string {
  const small = issue.code === "too_small";
  const limit = small ? issue.minimum : issue.maximum;
  const unit =
    issue.origin === "string" ? " characters" : issue.origin === "array" || issue.origin === "set" ? " items" : "";
  if (small && issue.origin === "string" && limit === 1) return "must not be empty";
  if (small && unit === " items" && limit === 1) return "must have at least one item";
  const verb = unit === " items" ? "must have" : "must be";
  const strict = issue.inclusive === false;
  const word = issue.exact ? "exactly" : small ? (strict ? "more than" : "at least") : strict ? "less than" : "at most";
  const registered = issue.schema && INPUT_FORMS.get(issue.schema as z.ZodType);
  return `${verb} ${word} ${String(limit)}${unit}${registered ? `, ${registered.form}` : ""}`;
}

/**
 * A message that tells a person how to fix the input: a missing field is `required` with the form
 * it takes, a wrong value names what to send instead. A message a schema gives itself (a
 * refinement's) is kept: zod asks this map only for issues without one.
 */
function instruction(issue: RawIssue): string | undefined {
  switch (issue.code) {
    case "invalid_type":
      return issue.input === undefined ? `required: ${formOf(issue)}` : `expected ${formOf(issue)}`;
    case "invalid_format":
      return `expected ${formOf(issue)}`;
    case "invalid_value":
      return issue.input === undefined ? `required: ${choices(issue.values)}` : `must be ${choices(issue.values)}`;
    case "too_small":
    case "too_big":
      return bound(issue);
    case "not_multiple_of":
      return `must be a multiple of ${String(issue.divisor)}`;
    case "unrecognized_keys":
      return issue.keys.length === 1
        ? "is not a field here: remove it, or check its spelling"
        : `${issue.keys.join(", ")} are not fields here: remove them, or check their spelling`;
    case "invalid_union":
      return unionInstruction(issue);
    default:
      return undefined;
  }
}

/**
 * A discriminated union (an activity's `kind`) names its discriminator's choices; another union
 * says what each of its forms takes (a query date: a date-time, or a date).
 */
function unionInstruction(issue: RawIssue & { code: "invalid_union" }): string | undefined {
  if (typeof issue.discriminator === "string" && Array.isArray(issue.options)) {
    const options: readonly unknown[] = issue.options;
    const given =
      issue.input !== null && typeof issue.input === "object"
        ? Reflect.get(issue.input, issue.discriminator)
        : undefined;
    return given === undefined ? `required: ${choices(options)}` : `must be ${choices(options)}`;
  }
  if (issue.inclusive === false) return undefined;
  const firsts = issue.errors
    .map((branch) => branch[0])
    .filter((first) => first !== undefined && first.path.length === 0);
  if (firsts.length === 0 || firsts.length !== issue.errors.length) return undefined;
  // A branch whose type matched says best what is wrong; otherwise every branch's form is offered.
  const matched = firsts.find((first) => first!.code !== "invalid_type" && first!.code !== "invalid_format");
  if (matched) return matched.message;
  const forms = [...new Set(firsts.map((first) => first!.message.replace(/^(expected|required:) /, "")))];
  return `${issue.input === undefined ? "required:" : "expected"} ${forms.join(", or ")}`;
}
