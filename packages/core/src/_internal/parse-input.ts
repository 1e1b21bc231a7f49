import type * as z from "zod";
import { ServiceError } from "../errors.ts";

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
    result = schema.safeParse(value);
  } catch {
    // zod's length checks also run on a value of the wrong type and compare its `length`: one
    // that cannot become a number (`{"length": {"toString": 0}}`) makes them throw.
    const field = oddLengthPath(value);
    const message = "Invalid input: expected text or a list, received an object with an unreadable length";
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
