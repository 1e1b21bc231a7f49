import { ServiceError } from "../errors.ts";
import type { RequestContext } from "./request-context.ts";
import { assertNoBody, parseJsonBody, readBodyBytes, readQuery } from "./request.ts";
import type { BaseRouteContext, RouteSpec } from "./routes.ts";

/** A route's input and its body's bytes, read once whoever asks first (the route, or the idempotency fingerprint). */
export interface RouteInput<C extends BaseRouteContext> {
  context: C;
  bodyBytes: () => Promise<Uint8Array>;
}

/**
 * Checks what a request brings its route and hands it over: the query (`400` for a parameter the
 * route does not take, or one given twice), the body read lazily (a route without a body schema
 * refuses one rather than ignore it), the path's parameters and what acts for the caller
 * (`{ account }`: its account's operations; `{ link }`: a vendor link's).
 */
export async function readRouteInput<X extends object>(
  ctx: RequestContext,
  route: RouteSpec,
  params: Record<string, string>,
  actor: X,
): Promise<RouteInput<BaseRouteContext & X>> {
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
  // Typed by the route as its operation's input; the operation validates it.
  const body = async <T>() => parseJsonBody(await bodyBytes(), request.headers.get("content-type")) as T;
  const base: BaseRouteContext = {
    request,
    url,
    params,
    query,
    body,
    optionalBody: async <T>() => ((await bodyBytes()).byteLength === 0 ? undefined : body<T>()),
  };
  return { context: Object.assign(base, actor), bodyBytes };
}
