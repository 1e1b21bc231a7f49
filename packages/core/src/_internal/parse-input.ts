import type * as z from "zod";
import { ServiceError } from "../errors.ts";

/** One zod issue as the error body shows it in `details.issues`. */
export interface InputIssue {
  path: string;
  message: string;
}

function issuePath(issue: z.core.$ZodIssue): string {
  const keys = issue.code === "unrecognized_keys" && issue.keys.length === 1 ? [...issue.path, issue.keys[0]!] : issue.path;
  return keys.map(String).join(".");
}

/**
 * The one validation path: parses `value` with `schema` or throws `INVALID_REQUEST`
 * with the first offending `field` and every issue in `details.issues`.
 *
 * @param where what is being parsed ("body", "query"), used when an issue has no path
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, where = "body"): z.output<S> {
  const result = schema.safeParse(value);
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
