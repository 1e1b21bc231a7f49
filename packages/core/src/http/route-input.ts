import { ServiceError } from "../errors.ts";
import type { AccountOperations } from "../service.ts";
import type { RequestContext } from "./request-context.ts";
import { assertNoBody, parseJsonBody, readBodyBytes, readQuery } from "./request.ts";
import type { Route, RouteContext } from "./routes.ts";

/** A route's input and its body's bytes, read once whoever asks first (the route, or the idempotency fingerprint). */
export interface RouteInput {
  context: RouteContext;
  bodyBytes: () => Promise<Uint8Array>;
}

/**
 * Checks what a request brings its route and hands it over: the query (`400` for a parameter the
 * route does not take, or one given twice), the body read lazily (a route without a body schema
 * refuses one rather than ignore it), the path's parameters and the caller's account.
 */
export async function readRouteInput(
  ctx: RequestContext,
  route: Route,
  params: Record<string, string>,
  account: AccountOperations,
): Promise<RouteInput> {
  const { request, url } = ctx;
  const query = readQuery(url);
  const unexpected = route.query ? undefined : Object.keys(query)[0];
  if (unexpected !== undefined) {
    const message = `${unexpected || "(empty name)"}: unknown query parameter`;
    throw new ServiceError("INVALID_REQUEST", { message, ...(unexpected && { field: unexpected }) });
  }
  let bytes: Promise<Uint8Array> | undefined;
  const bodyBytes = () => (bytes ??= readBodyBytes(request));
  // A GET's body never reaches here (the Request interface gives none), so it is not read.
  if (!route.body && route.method !== "GET") assertNoBody(await bodyBytes());
  return {
    context: {
      request,
      url,
      params,
      query,
      // Typed by the route as its operation's input; the operation validates it.
      body: async <T>() => parseJsonBody(await bodyBytes(), request.headers.get("content-type")) as T,
      account,
    },
    bodyBytes,
  };
}
