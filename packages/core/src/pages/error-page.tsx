import { renderDocument } from "../_internal/html-document.tsx";
import type { ServiceError } from "../errors.ts";
import { PAGE_STYLE } from "./page-style.ts";

const TITLES: Partial<Record<string, string>> = {
  NOT_FOUND: "This link does not open anything",
  RATE_LIMIT_EXCEEDED: "Too many requests",
  SERVICE_UNAVAILABLE: "Try again in a moment",
};

/**
 * The page a browser gets instead of the JSON error body when a link fails: an unknown, rotated
 * or revoked token, a link used too often. It says what happened in words and shows nothing else.
 */
export function renderErrorPage(error: ServiceError): string {
  const title = TITLES[error.code] ?? "Something went wrong";
  const hint =
    error.code === "NOT_FOUND"
      ? "The link may have been replaced by a newer one, or what it pointed to no longer exists. Ask whoever sent it for a new link."
      : error.status >= 500
        ? "Nothing was changed. Please try again in a moment."
        : error.message;
  return renderDocument({
    title,
    style: PAGE_STYLE,
    children: (
      <main>
        <h1>{title}</h1>
        <p class="error">{hint}</p>
      </main>
    ),
  });
}
