import * as z from "zod";
import { parseInput } from "../_internal/parse-input.ts";
import type { ErrorCode } from "../errors.ts";
import type { Scope } from "../resources/api-key.ts";
import { Pagination } from "../resources/common.ts";

/** The names of a path's parameters (`"id" | "activityId"` of `/events/:id/activities/:activityId`). */
export type PathNames<P extends string> = P extends `${string}:${infer N}/${infer R}`
  ? N | PathNames<`/${R}`>
  : P extends `${string}:${infer N}`
    ? N
    : never;

/** The path's parameters as a caller passes them, in order: strings, without a link's `:token` (the link is bound). */
export type PathArgs<P extends string> = P extends `${string}:${infer N}/${infer R}`
  ? N extends "token"
    ? PathArgs<`/${R}`>
    : [string, ...PathArgs<`/${R}`>]
  : P extends `${string}:${infer N}`
    ? N extends "token"
      ? []
      : [string]
    : [];

type Output<S> = S extends z.ZodType ? z.output<S> : undefined;

/** The dates of the request examples: an event three months ahead, on one day, in Central European Summer Time's offset. */
export interface ExampleDates {
  /** `2027-05-01`. */
  day: string;
  startDate: string;
  endDate: string;
}

/** The dates of the request examples of a document built at `now`. */
export function exampleDates(now: Date): ExampleDates {
  const day = new Date(now.getTime() + 90 * 86_400_000).toISOString().slice(0, 10);
  return { day, startDate: `${day}T09:00:00+02:00`, endDate: `${day}T17:00:00+02:00` };
}

/** What an operation runs with: its path's parameters, and its query and body as its schemas parsed them. */
export interface OperationInput<P extends string, Q, B> {
  params: Record<PathNames<P>, string>;
  query: Output<Q>;
  body: Output<B>;
}

/** The groups of the API's reference and the OpenAPI document's tags. */
export type OperationTag =
  | "Events"
  | "Attendees"
  | "Webhooks"
  | "Analytics"
  | "Activities"
  | "Thresholds"
  | "Vendors"
  | "Vendor link"
  | "Ticket link"
  | "Check-in link"
  | "Payments";

/** An operation's answer over HTTP: a body for `status`, JSON-encoded (a `ReadableStream` is sent as it is), and headers to add. */
export interface RouteResult {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** What a replay of this answer (Idempotency-Key) shows, where it must differ from `body`: a secret shown once is not kept. */
  replay?: unknown;
}

/**
 * One operation, declared once: its route (served under every version prefix), the schemas its
 * input is validated with at the boundary (the handler, or an embedder's method), its answer
 * for the OpenAPI document, and what it runs, with the caller's context `C` and typed input.
 */
export interface Operation<
  C = unknown,
  Id extends string = string,
  P extends string = string,
  Q extends z.ZodType | undefined = z.ZodType | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
  O extends boolean = boolean,
  R = unknown,
> {
  /** The method an embedder (`service.forAccount(id).events.create`) and the client call it by. */
  id: Id;
  /** The client's method where it differs from `id` (`events.sustainabilityReport`). */
  client?: string;
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** Path after the version prefix, rou3 syntax (`/events/:id`). */
  path: P;
  operationId: string;
  summary: string;
  tag: OperationTag;
  /** The query schema of an operation that takes query parameters; any other refuses them. */
  query?: Q;
  /** The JSON body schema; an operation without one refuses a body. */
  body?: B;
  /** The body may be left out (confirm, decline: an optional message); it is then parsed as `{}`. */
  bodyOptional?: O;
  /**
   * Success status and body schema. `media` replaces the JSON body in the document for an
   * operation that streams another format: the media types it answers with, each described in words.
   */
  response: {
    status: 200 | 201 | 202;
    schema: z.ZodType;
    name: string;
    description: string;
    media?: Record<string, string>;
    /** With `media`: the operation answers JSON as well (by `Accept`), so the document lists both. */
    jsonToo?: boolean;
  };
  /**
   * A request body for `/docs`, valid against `body` (a test parses it), its dates from `at`: a
   * little ahead of when the document is built, so that it is what the API accepts that day.
   */
  example?: (at: ExampleDates) => unknown;
  /** Errors particular to this operation (the ones every route can answer are added by the document). */
  errors: readonly ErrorCode[];
  /** The scope the caller's key must hold (an account's operation; a link's has none). */
  scope?: Scope;
  /** Another scope that serves it too (a threshold is read with `events:read` or `analytics:read`). */
  orScope?: Scope;
  run(context: C, input: OperationInput<P, Q, B>): R;
  /** What a replay of the answer shows, where it must differ from the answer: a secret shown once is not kept. */
  replay?(result: Awaited<R>): unknown;
  /**
   * The answer over HTTP where it is not the result as JSON (another format by `Accept`, a
   * download's headers); a promise where that format's renderer loads on first use.
   */
  respond?(result: Awaited<R>, input: OperationInput<P, Q, B>, request: Request): RouteResult | Promise<RouteResult>;
}

// biome-ignore lint/suspicious/noExplicitAny: the context and result of operations vary, each checked where it is declared.
type Anything = any;

/** Any operation, whatever its context and types. */
export type AnyOperation<C = Anything> = Operation<
  C,
  string,
  string,
  z.ZodType | undefined,
  z.ZodType | undefined,
  boolean,
  Anything
>;

/** Declares an operation; its `run` gets its input typed by its schemas. */
export function defineOperation<
  C,
  const Id extends string,
  const P extends string,
  R,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  O extends boolean = false,
>(operation: Operation<C, Id, P, Q, B, O, R>): Operation<C, Id, P, Q, B, O, R> {
  return operation;
}

/**
 * The one validation of an operation's input: the query and body by its schemas (`400
 * INVALID_REQUEST` naming the field), an optional body left out as `{}`.
 */
export function parseOperationInput<P extends string, Q extends z.ZodType | undefined, B extends z.ZodType | undefined>(
  operation: Pick<Operation<unknown, string, P, Q, B>, "query" | "body" | "bodyOptional">,
  params: Record<string, string>,
  query: unknown,
  body: unknown,
): OperationInput<P, Q, B> {
  return {
    params: params as Record<PathNames<P>, string>,
    query: (operation.query ? parseInput(operation.query, query ?? {}, "query") : undefined) as Output<Q>,
    body: (operation.body
      ? parseInput(operation.body, body === undefined && operation.bodyOptional ? {} : body)
      : undefined) as Output<B>,
  };
}

/** The arguments of an embedder's method: the path's parameters, then the body or the query. */
type TailArgs<Q, B, O> = B extends z.ZodType
  ? O extends true
    ? [input?: z.input<B>]
    : [input: z.input<B>]
  : Q extends z.ZodType
    ? [query?: Record<string, unknown>]
    : [];

/** An operation as an embedder's method: positional arguments, validated, then run. */
export type MethodOf<D> =
  D extends Operation<infer _C, infer _Id, infer P, infer Q, infer B, infer O, infer R>
    ? (...args: [...PathArgs<P>, ...TailArgs<Q, B, O>]) => R
    : never;

/** The methods of the operations whose `id` is `<group>.<name>`, by name. */
export type MethodsOf<D, G extends string> = {
  [X in D as X extends { id: `${G}.${infer M}` } ? (M extends `${string}.${string}` ? never : M) : never]: MethodOf<X>;
};

const ARG_NAMES = new Map<string, readonly string[]>();

/** The names of a path's parameters that an embedder passes, in order (a link's token is bound); read once per path. */
function argNames(path: string): readonly string[] {
  let names = ARG_NAMES.get(path);
  if (!names) {
    names = [...path.matchAll(/:(\w+)/g)].map((m) => m[1]!).filter((name) => name !== "token");
    ARG_NAMES.set(path, names);
  }
  return names;
}

/**
 * The embedder's methods of some operations, over one context: each takes its path's
 * parameters, then its body or query, validates them like the handler and runs. A nested id
 * (`link.activities.create`) makes a nested object. Built once per context, never per call.
 */
export function methodsOf<C, D extends AnyOperation<C>, G extends string>(
  operations: readonly D[],
  context: C,
  group: G,
): MethodsOf<D, G> {
  const methods: Record<string, unknown> = {};
  for (const operation of operations) {
    if (!operation.id.startsWith(`${group}.`)) continue;
    const names = argNames(operation.path);
    const takes = operation.body !== undefined || operation.query !== undefined;
    const call = (...args: unknown[]) => {
      let input: OperationInput<string, unknown, unknown>;
      try {
        const params: Record<string, string> = {};
        for (let i = 0; i < names.length; i++) params[names[i]!] = args[i] as string;
        const given = takes ? args[names.length] : undefined;
        input = parseOperationInput(operation, params, given, given);
      } catch (error) {
        // A method that returns a promise rejects, whatever went wrong.
        return Promise.reject(error);
      }
      return operation.run(context, input);
    };
    const path = operation.id.slice(group.length + 1).split(".");
    let target = methods;
    for (const key of path.slice(0, -1)) target = (target[key] ??= {}) as Record<string, unknown>;
    target[path.at(-1)!] = call;
  }
  // Built from the same definitions the type is: each id's method, its arguments as PathArgs and TailArgs say.
  return methods as MethodsOf<D, G>;
}

/** The schema of a list response: the items under `key` and the pagination object. */
export function listOf<K extends string, T extends z.ZodType>(key: K, item: T) {
  return z.object({ [key]: z.array(item), pagination: Pagination } as { [P in K]: z.ZodArray<T> } & {
    pagination: typeof Pagination;
  });
}
