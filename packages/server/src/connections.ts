import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { TLSSocket } from "node:tls";

/** A node server as {@link trackConnections} needs it: node:http's, node:https's, or http2's with `allowHTTP1`. */
interface TrackedServer {
  on(event: "connection" | "secureConnection", listener: (socket: Socket) => void): unknown;
  on(event: "request", listener: (request: IncomingMessage, response: ServerResponse) => void): unknown;
  keepAliveTimeout?: number;
  closeIdleConnections?: () => void;
}

/** The open connections of a server, from its public events only. */
export interface Connections {
  /** Whether a response is in flight on `socket` (a request read and not yet answered). */
  busy(socket: object): boolean;
  /**
   * Lets the open connections end without a reset once the server drains. Node's `close()`
   * destroys idle keep-alive connections at once, so a request a client sent on one just then
   * met `ECONNRESET`, unanswered. Instead every HTTP/1 connection stays open until its
   * keep-alive timeout (the one Node announces, `Keep-Alive: timeout=5`, counted from now for a
   * connection idle now, from its last answer for one busy now), within which a request on it
   * gets `503` with `Connection: close` (the handler's `isDraining`) and its connection then
   * ends; at the timeout no client reuses it any more. A response in flight does not say
   * `Connection: close`: a request already pipelined behind it would go unanswered. HTTP/2
   * sessions are left to Node. Call before the server's `close()`.
   */
  drain(): void;
}

/**
 * Tracks `server`'s connections (HTTP/1 parses on the TLS socket when `tls`, not the TCP one)
 * and which of them have a response in flight.
 */
export function trackConnections(server: TrackedServer, tls: boolean): Connections {
  const open = new Set<Socket>();
  // Responses in flight per connection: pipelined requests can stack on one.
  const inFlight = new Map<object, number>();
  server.on(tls ? "secureConnection" : "connection", (socket) => {
    open.add(socket);
    socket.once("close", () => open.delete(socket));
  });
  server.on("request", (request, response) => {
    const socket = request.socket;
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    response.once("close", () => {
      const left = inFlight.get(socket)! - 1;
      if (left === 0) inFlight.delete(socket);
      else inFlight.set(socket, left);
    });
  });
  return {
    busy: (socket) => inFlight.has(socket),
    drain() {
      // Node's close() calls it; the connections are ended here instead.
      server.closeIdleConnections = () => {};
      const idleMs = server.keepAliveTimeout || 5_000;
      for (const socket of open) {
        if ((socket as TLSSocket).alpnProtocol === "h2") continue;
        // A busy one gets Node's keep-alive timeout after its answer; an idle one (or one never used) gets it now.
        if (!inFlight.has(socket)) socket.setTimeout(idleMs);
      }
    },
  };
}
