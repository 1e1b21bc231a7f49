import { randomUUID } from "node:crypto";
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { type ErrorCode, ServiceError } from "@event-service/core";

/** A node server whose HTTP/1 parser reports to `clientError`: node:http's, node:https's, or http2's with `allowHTTP1`. */
interface ParsingServer {
  on(event: "clientError", listener: (error: NodeJS.ErrnoException, socket: Duplex) => void): unknown;
}

/** Options of {@link answerParserErrors}. */
export interface ParserErrorOptions {
  /** The `documentation` base of the error body (`<docsUrl>#CODE`), read when an error is answered. */
  docsUrl: () => string;
  /** The connection is HTTPS: the answer carries `Strict-Transport-Security`, as every other one does. */
  https: boolean;
  /** Whether a response is in flight on the connection (then no answer can follow it, only the close). Default: never. */
  busy?: (socket: object) => boolean;
}

/** How long a connection whose request the parser refused may go on sending before it is closed. */
const LINGER_MS = 2_000;

/** The error code and message of a parser failure (`HPE_*` from llhttp, or the request timeout). */
function describe(error: NodeJS.ErrnoException & { reason?: unknown }): { code: ErrorCode; message: string } {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      return {
        code: "REQUEST_HEADERS_TOO_LARGE",
        message: "The request's header block (or request line) is too large.",
      };
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return { code: "PAYLOAD_TOO_LARGE", message: "The request's chunk extensions are too large." };
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { code: "REQUEST_TIMEOUT", message: "The request did not arrive in time." };
    default:
      // llhttp's reason names the fault ("Content-Length can't be present with Transfer-Encoding"); it holds no request data.
      return {
        code: "INVALID_REQUEST",
        message:
          typeof error.reason === "string" ? `Malformed HTTP request: ${error.reason}.` : "Malformed HTTP request.",
      };
  }
}

/**
 * Answers what Node's HTTP parser refuses (a header block too large, `Content-Length` with
 * `Transfer-Encoding`, a malformed request line, a request too slow to arrive) with the
 * service's JSON error body and `Connection: close`, where Node alone writes a bare status line.
 * The connection cannot go on after a parse error: the answer is written, our side closed, and
 * whatever the peer still sends read and dropped for a moment, so that the answer is not lost
 * to a reset (closing a socket with unread data sends RST), then the socket is destroyed.
 */
export function answerParserErrors(server: ParsingServer, options: ParserErrorOptions): void {
  // The parser may report again as more bytes arrive on a connection already answered.
  const answered = new WeakSet<Duplex>();
  server.on("clientError", (error, socket) => {
    if (answered.has(socket)) return;
    answered.add(socket);
    // A response in flight on this connection (a pipelined request) cannot be followed by another: only close.
    if (!socket.writable || error.code === "ECONNRESET" || options.busy?.(socket)) {
      socket.destroy();
      return;
    }
    const { code, message } = describe(error);
    const failure = new ServiceError(code, { message });
    const body = JSON.stringify(failure.toJSON(options.docsUrl()));
    const head = [
      `HTTP/1.1 ${failure.status} ${STATUS_CODES[failure.status]}`,
      "Content-Type: application/json; charset=utf-8",
      `Content-Length: ${Buffer.byteLength(body)}`,
      "Connection: close",
      "Cache-Control: no-store",
      "X-Content-Type-Options: nosniff",
      `X-Request-Id: ${randomUUID()}`,
      ...(options.https ? ["Strict-Transport-Security: max-age=31536000; includeSubDomains"] : []),
    ];
    const linger = setTimeout(() => socket.destroy(), LINGER_MS);
    linger.unref();
    socket.once("close", () => clearTimeout(linger));
    socket.on("error", () => socket.destroy());
    socket.once("end", () => socket.destroy());
    socket.end(`${head.join("\r\n")}\r\n\r\n${body}`);
    socket.resume();
  });
}
