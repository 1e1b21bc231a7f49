/** Headers on every response the handler makes. */
export const BASE_HEADERS: Readonly<Record<string, string>> = {
  "x-content-type-options": "nosniff",
};

const JSON_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "application/json; charset=utf-8",
  "cache-control": "no-store",
};

/** A constructor of web-standard responses: the global `Response`, or a host's faster implementation of it. */
export type ResponseConstructor = new (body?: BodyInit | null, init?: ResponseInit) => Response;

/** What a response is built for: a `HEAD` gets the headers of the `GET` answer and no body. */
export interface ResponseTarget {
  readonly head: boolean;
}

/** Builds every response of one handler with one `Response` class. */
export interface Responder {
  /** A JSON response; `headers` win over the defaults. */
  json(target: ResponseTarget, body: unknown, status: number, headers: Record<string, string>): Response;
  /** A response with a body of its own content type, given in `headers`. */
  raw(target: ResponseTarget, body: BodyInit | null, status: number, headers: Record<string, string>): Response;
}

/**
 * Headers are handed over as a plain object at construction and never touched afterwards: a
 * host's fast `Response` (srvx's `FastResponse`) then writes them to the socket without
 * building a `Headers` object or a web stream.
 *
 * This is the one place a `HEAD` loses its body (the router answers it with the `GET` route):
 * the body is never encoded, and a stream (an export) is cancelled so that it reads nothing.
 */
export function createResponder(ResponseClass: ResponseConstructor = Response): Responder {
  // Object.assign, not spreads: V8 builds `{ ...a, ...b }` of these far slower than it copies
  // by assign, a share of a read's whole budget.
  const jsonBase = Object.assign({}, BASE_HEADERS, JSON_HEADERS);
  return {
    json: (target, body, status, headers) =>
      new ResponseClass(target.head ? null : JSON.stringify(body), {
        status,
        headers: Object.assign({}, jsonBase, headers),
      }),
    raw(target, body, status, headers) {
      if (target.head && body instanceof ReadableStream) body.cancel().catch(() => {});
      return new ResponseClass(target.head ? null : body, {
        status,
        headers: Object.assign({}, BASE_HEADERS, headers),
      });
    },
  };
}
