import * as z from "zod";

/** `eventIds`: comma-separated event ids, trimmed and de-duplicated; 1 to 100 of them. */
export const EventIdsParam = z
  .string()
  .transform((value) => [
    ...new Set(
      value
        .split(",")
        .map((id) => id.trim())
        .filter(Boolean),
    ),
  ])
  .pipe(z.array(z.string().max(100)).min(1, "give at least one event id").max(100, "at most 100 event ids"))
  .meta({
    description: "Comma-separated event ids of the account (an id that is not one of its events is 404 NOT_FOUND).",
  });
