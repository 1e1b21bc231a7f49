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
  /**
   * Ends the drain at the shutdown's timeout: closes every HTTP/1 connection (an idle one, one
   * whose request is still arriving, one whose answer is still being sent) but those whose
   * request has been read whole and not yet answered. The service may be committing that
   * request's change: cutting its connection would leave a client told nothing (a connection
   * error) about a change that is stored. Each of those connections ends (without a reset) once
   * its answers are written. Returns how many connections it closed and how many wait for answers.
   */
  closeUnlessWorking(): { closed: number; answering: number };
}

/** How long a connection ended after its last answer may take to close before it is destroyed. */
const LINGER_MS = 2_000;

/** A request in flight and its response. */
interface Exchange {
  request: IncomingMessage;
  response: ServerResponse;
}

/** Whether the service is working on the request: read whole, its answer not begun. */
function isWorking({ request, response }: Exchange): boolean {
  return request.complete && !response.headersSent;
}

/**
 * Ends `socket` after what is written to it, without a reset: the peer reads the answers, then
 * the close; whatever it still sends is read and dropped (closing a socket with unread data
 * sends RST), and the socket is destroyed if the peer does not close its side in time.
 */
function endGently(socket: Socket): void {
  const linger = setTimeout(() => socket.destroy(), LINGER_MS);
  linger.unref();
  socket.once("close", () => clearTimeout(linger));
  socket.end();
  socket.resume();
}

/**
 * Tracks `server`'s connections (HTTP/1 parses on the TLS socket when `tls`, not the TCP one)
 * and which of them have a response in flight.
 */
export function trackConnections(server: TrackedServer, tls: boolean): Connections {
  const open = new Set<Socket>();
  // Requests in flight per connection: pipelined requests can stack on one.
  const inFlight = new Map<object, Set<Exchange>>();
  server.on(tls ? "secureConnection" : "connection", (socket) => {
    open.add(socket);
    socket.once("close", () => open.delete(socket));
  });
  server.on("request", (request, response) => {
    const socket = request.socket;
    let exchanges = inFlight.get(socket);
    if (!exchanges) inFlight.set(socket, (exchanges = new Set()));
    const exchange = { request, response };
    exchanges.add(exchange);
    response.once("close", () => {
      exchanges.delete(exchange);
      if (exchanges.size === 0 && inFlight.get(socket) === exchanges) inFlight.delete(socket);
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
    closeUnlessWorking() {
      const counts = { closed: 0, answering: 0 };
      for (const socket of [...open]) {
        if ((socket as TLSSocket).alpnProtocol === "h2") continue;
        const working = [...(inFlight.get(socket) ?? [])].filter(isWorking);
        if (working.length === 0) {
          counts.closed += 1;
          socket.destroy();
          continue;
        }
        counts.answering += 1;
        // The service's work may be quiet on the socket for longer than an idle timeout set on it.
        socket.setTimeout(0);
        let left = working.length;
        for (const { response } of working)
          response.once("close", () => {
            left -= 1;
            if (left === 0) endGently(socket);
          });
      }
      return counts;
    },
  };
}
