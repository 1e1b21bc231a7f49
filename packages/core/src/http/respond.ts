import { ServiceError } from "../errors.ts";

/** Headers on every response the handler makes. */
export const BASE_HEADERS: Readonly<Record<string, string>> = {
  "x-content-type-options": "nosniff",
};

/** A JSON response. */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { ...BASE_HEADERS, "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers },
  });
}

/** The error response of a `ServiceError`, in the one error body. */
export function errorResponse(error: ServiceError, documentationBase: string): Response {
  return json(error.toJSON(documentationBase), error.status, error.headers);
}
