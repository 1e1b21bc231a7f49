import { ServiceError } from "../errors.ts";

/** Largest accepted request body: 1 MiB. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** Deepest accepted nesting of arrays and objects in a JSON body. */
export const MAX_JSON_DEPTH = 64;

// The rest of the body is never read, so the connection cannot carry another request: close it.
const tooLarge = () =>
  new ServiceError("PAYLOAD_TOO_LARGE", {
    message: `The request body exceeds ${MAX_BODY_BYTES} bytes (1 MiB).`,
    headers: { connection: "close" },
  });

function isJsonContentType(value: string | null): boolean {
  if (!value) return false;
  const type = value.split(";")[0]!.trim().toLowerCase();
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));
}

/** The body of a request as its host reads it, without a web stream (see `HandlerOptions.requestBody`). */
export type BodySource = (request: Request) => AsyncIterable<Uint8Array> | undefined;

/**
 * Reads at most `limit` bytes of a body (`413` as soon as it grows past it): from `source`'s
 * chunks when the host gives them, else from the request's web stream.
 */
export async function readBodyBytes(
  request: Request,
  limit = MAX_BODY_BYTES,
  source?: BodySource,
): Promise<Uint8Array> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) throw tooLarge();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const hostChunks = request.method === "GET" || request.method === "HEAD" ? undefined : source?.(request);
  if (hostChunks) {
    // Leaving the loop by the throw ends the host's stream, as cancelling the web stream does.
    for await (const chunk of hostChunks) {
      size += chunk.byteLength;
      if (size > limit) throw tooLarge();
      chunks.push(chunk);
    }
  } else {
    if (!request.body) return new Uint8Array();
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => {});
        throw tooLarge();
      }
      chunks.push(value);
    }
  }
  if (chunks.length === 1) return chunks[0]!;
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

/** Nothing but JSON whitespace, around at most one empty object. */
const NO_BODY = /^[\t\n\r ]*(?:\{[\t\n\r ]*\}[\t\n\r ]*)?$/;

/**
 * Throws `400 INVALID_REQUEST` unless a body read by {@link readBodyBytes} carries nothing: no
 * bytes, only JSON whitespace, or the empty object `{}` (which clients that always send a JSON
 * body send), whatever its Content-Type. The check of every operation that takes no body: a
 * body it would ignore is refused, so a caller never believes it sent something that counted.
 */
/** Whether a body is empty or JSON whitespace only. */
export function isBlank(bytes: Uint8Array): boolean {
  for (const byte of bytes) if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) return false;
  return true;
}

export function assertNoBody(bytes: Uint8Array): void {
  if (bytes.byteLength === 0) return;
  // Not fatal: a byte that is not UTF-8 becomes U+FFFD, which the pattern refuses like any other character.
  if (NO_BODY.test(new TextDecoder().decode(bytes))) return;
  throw new ServiceError("INVALID_REQUEST", { message: "body: this operation takes no body (send none, or {})" });
}

/**
 * The JSON value of a request body read by {@link readBodyBytes}: `415 UNSUPPORTED_MEDIA_TYPE`
 * unless the Content-Type is JSON, `400 INVALID_REQUEST` when empty, not UTF-8 or malformed.
 */
export function parseJsonBody(bytes: Uint8Array, contentType: string | null): unknown {
  if (!isJsonContentType(contentType)) {
    if (bytes.byteLength === 0)
      throw new ServiceError("INVALID_REQUEST", {
        message: "body: a JSON object is required (Content-Type: application/json)",
      });
    throw new ServiceError("UNSUPPORTED_MEDIA_TYPE");
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new ServiceError("INVALID_REQUEST", { message: "body: not valid UTF-8" });
  }
  if (text.trim() === "") throw new ServiceError("INVALID_REQUEST", { message: "body: a JSON object is required" });
  // Checked on the text, before anything (the parser, the checks below, zod) walks the value.
  if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) {
    throw new ServiceError("INVALID_REQUEST", {
      message: `body: nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects`,
    });
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new ServiceError("INVALID_REQUEST", { message: `body: malformed JSON (${(error as Error).message})` });
  }
  // Valid UTF-8 carries no lone surrogate; only a JSON escape (\ud800) can make one, and the
  // store would keep it as U+FFFD: refused, so what is stored is what was sent.
  if (SURROGATE_ESCAPE.test(text)) assertWellFormed(body);
  return body;
}

/**
 * Whether the JSON text nests arrays and objects deeper than `max`, found in one pass over the
 * text without recursion (brackets inside strings do not count). Malformed text is left to the
 * parser.
 */
export function jsonDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \\ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > max) return true;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
  return false;
}

const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Throws `400 INVALID_REQUEST` naming the first string (value or key) that holds a lone
 * surrogate. Walks the value with a stack of its own, not recursion, whatever its depth.
 */
function assertWellFormed(body: unknown): void {
  const pending: [value: unknown, path: string][] = [[body, ""]];
  const refuse = (path: string) => {
    const message = "holds a lone UTF-16 surrogate (not valid Unicode text)";
    return new ServiceError("INVALID_REQUEST", {
      message: `${path || "body"}: ${message}`,
      ...(path && { field: path }),
      details: { issues: [{ path, message }] },
    });
  };
  while (pending.length > 0) {
    const [value, path] = pending.pop()!;
    if (typeof value === "string") {
      if (LONE_SURROGATE.test(value)) throw refuse(path);
    } else if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index--)
        pending.push([value[index], path ? `${path}.${index}` : String(index)]);
    } else if (value !== null && typeof value === "object") {
      const entries = Object.entries(value);
      for (let index = entries.length - 1; index >= 0; index--) {
        const [key, item] = entries[index]!;
        const at = path ? `${path}.${key}` : key;
        pending.push([item, at], [key, at]);
      }
    }
  }
}

/** The query string as an object; a parameter given twice is `400 INVALID_REQUEST`. */
export function readQuery(url: URL): Record<string, string> {
  const query: Record<string, string> = Object.create(null);
  for (const [name, value] of url.searchParams) {
    if (Object.hasOwn(query, name)) {
      throw new ServiceError("INVALID_REQUEST", { message: `${name}: given more than once`, field: name });
    }
    query[name] = value;
  }
  return query;
}

/** The bearer token of the Authorization header, or `null`. */
export function bearerToken(request: Request): string | null {
  const header = request.headers.get("authorization");
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match ? match[1]! : null;
}
