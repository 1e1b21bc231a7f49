import { ServiceError } from "../errors.ts";

/** `NOT_FOUND` for a resource of this account, naming the request's `field` that held its id when given. */
export function notFound(what: string, id: string, field?: string): ServiceError {
  return new ServiceError("NOT_FOUND", { message: `${what} ${id} not found.`, ...(field !== undefined && { field }) });
}
