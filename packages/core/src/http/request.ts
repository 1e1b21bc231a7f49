import { ServiceError } from "../errors.ts";

/** Largest accepted request body: 1 MiB. */
export const MAX_BODY_BYTES = 1024 * 1024;

// The rest of the body is never read, so the connection cannot carry another request: close it.
const tooLarge = () =>
  new ServiceError("PAYLOAD_TOO_LARGE", { message: `The request body exceeds ${MAX_BODY_BYTES} bytes (1 MiB).`, headers: { connection: "close" } });

function isJsonContentType(value: string | null): boolean {
  if (!value) return false;
  const type = value.split(";")[0]!.trim().toLowerCase();
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));
}

/** Reads at most `limit` bytes of a body (`413` as soon as it grows past it). */
export async function readBodyBytes(request: Request, limit = MAX_BODY_BYTES): Promise<Uint8Array> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) throw tooLarge();
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
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
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

/**
 * The JSON value of a request body read by {@link readBodyBytes}: `415 UNSUPPORTED_MEDIA_TYPE`
 * unless the Content-Type is JSON, `400 INVALID_REQUEST` when empty, not UTF-8 or malformed.
 */
export function parseJsonBody(bytes: Uint8Array, contentType: string | null): unknown {
  if (!isJsonContentType(contentType)) {
    if (bytes.byteLength === 0) throw new ServiceError("INVALID_REQUEST", { message: "body: a JSON object is required (Content-Type: application/json)" });
    throw new ServiceError("UNSUPPORTED_MEDIA_TYPE");
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new ServiceError("INVALID_REQUEST", { message: "body: not valid UTF-8" });
  }
  if (text.trim() === "") throw new ServiceError("INVALID_REQUEST", { message: "body: a JSON object is required" });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new ServiceError("INVALID_REQUEST", { message: `body: malformed JSON (${(error as Error).message})` });
  }
  // Valid UTF-8 carries no lone surrogate; only a JSON escape (\ud800) can make one, and the
  // store would keep it as U+FFFD: refused, so what is stored is what was sent.
  if (SURROGATE_ESCAPE.test(text)) assertWellFormed(body, "");
  return body;
}

const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function assertWellFormed(value: unknown, path: string): void {
  if (typeof value === "string") {
    if (LONE_SURROGATE.test(value)) {
      const message = "holds a lone UTF-16 surrogate (not valid Unicode text)";
      throw new ServiceError("INVALID_REQUEST", {
        message: `${path || "body"}: ${message}`,
        ...(path && { field: path }),
        details: { issues: [{ path, message }] },
      });
    }
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => assertWellFormed(item, path ? `${path}.${index}` : String(index)));
  } else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      const at = path ? `${path}.${key}` : key;
      assertWellFormed(key, at);
      assertWellFormed(item, at);
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
