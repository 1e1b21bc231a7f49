import { ServiceError } from "../errors.ts";
import { type AnyOperation, parseOperationInput, type RouteResult } from "../operations/define.ts";
import type { RequestContext } from "./request-context.ts";
import { assertNoBody, isBlank, MAX_BODY_BYTES, parseJsonBody, readBodyBytes, readQuery } from "./request.ts";

/** What a request brings its route, its body's bytes read once whoever asks first (the route, or the idempotency fingerprint). */
export interface RouteInput {
  params: Record<string, string>;
  /** The query string as an object (each parameter once). */
  query: Record<string, string>;
  bodyBytes: () => Promise<Uint8Array>;
}

/**
 * Checks what a request brings its route: the query (`400` for a parameter the route does not
 * take, or one given twice) and the body, read lazily (a route without a body schema refuses one
 * rather than ignore it).
 */
export async function readRouteInput(
  ctx: RequestContext,
  route: AnyOperation,
  params: Record<string, string>,
): Promise<RouteInput> {
  const { request, url } = ctx;
  const query = readQuery(url);
  const unexpected = route.query ? undefined : Object.keys(query)[0];
  if (unexpected !== undefined) {
    const message = `${unexpected || "(empty name)"}: unknown query parameter`;
    throw new ServiceError("INVALID_REQUEST", { message, ...(unexpected && { field: unexpected }) });
  }
  let bytes: Promise<Uint8Array> | undefined;
  const bodyBytes = () => (bytes ??= readBodyBytes(request, MAX_BODY_BYTES, ctx.bodySource));
  // A GET's body never reaches here (the Request interface gives none), so it is not read.
  if (!route.body && route.method !== "GET") assertNoBody(await bodyBytes());
  return { params, query, bodyBytes };
}

/**
 * Runs a route's operation: its input validated once, here at the boundary (the JSON body, the
 * query by the operation's schemas), its result answered as the operation declares.
 */
export async function runRoute<C>(
  route: AnyOperation<C>,
  context: C,
  input: RouteInput,
  request: Request,
): Promise<RouteResult> {
  let body: unknown;
  if (route.body) {
    const bytes = await input.bodyBytes();
    // Whitespace alone is no body, as for the routes that take none.
    if (!route.bodyOptional || !isBlank(bytes)) body = parseJsonBody(bytes, request.headers.get("content-type"));
  }
  const parsed = parseOperationInput(route, input.params, input.query, body);
  const result = await route.run(context, parsed);
  if (route.respond) return route.respond(result, parsed, request);
  const { status } = route.response;
  return route.replay ? { status, body: result, replay: route.replay(result) } : { status, body: result };
}
