/**
 * A minimal Event Service webhook receiver on node:http / node:https.
 *
 * - Verifies the Standard Webhooks headers with `verifyWebhook`, over the raw body, before
 *   parsing it: the signature (either secret during a rotation) and the timestamp, so a
 *   captured delivery replayed more than 5 minutes later is refused (401 otherwise).
 * - De-duplicates by `webhook-id` (the envelope id): a delivery may arrive more than once (a
 *   retry after a lost answer, a redelivery, a replay inside the 5 minutes), so the id decides
 *   whether it was handled already.
 * - Answers 200 at once and handles the notification afterwards: the service waits 5 s at most
 *   and retries anything else.
 *
 * Environment: WEBHOOK_SECRET (required: the secret shown when the webhook was created), PORT
 * (default 4000), HOST (default 127.0.0.1), TLS_CERT and TLS_KEY (PEM paths; the service only
 * delivers to https:// URLs, so serve HTTPS here or behind a TLS-terminating proxy).
 *
 *   WEBHOOK_SECRET=whsec_... TLS_CERT=cert.pem TLS_KEY=key.pem node index.js
 */
import { readFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { verifyWebhook, WebhookVerificationError } from "@event-service/core/webhooks";

const secret = process.env.WEBHOOK_SECRET;
if (!secret) {
  console.error("Set WEBHOOK_SECRET to the webhook's signing secret.");
  process.exit(1);
}

const MAX_BODY_BYTES = 1024 * 1024;
/**
 * Envelope ids already handled. In production keep them in your database (with a unique key),
 * for longer than the replay window (5 minutes) at the very least, not in memory.
 */
const seen = new Set();
const SEEN_MAX = 100_000;

/** What your application does with a notification; runs after the answer was sent. */
function handle(envelope) {
  console.log(JSON.stringify({ msg: "handled", id: envelope.id, type: envelope.type, account: envelope.account?.id }));
}

function answer(response, status, body) {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

function onRequest(request, response) {
  if (request.method !== "POST") return answer(response, 405, { error: "POST only" });
  const chunks = [];
  let size = 0;
  request.on("data", (chunk) => {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) request.destroy();
    else chunks.push(chunk);
  });
  request.on("end", () => {
    const raw = Buffer.concat(chunks);
    // The signature covers the id, the timestamp and the exact bytes received: verify before parsing.
    let verified;
    try {
      verified = verifyWebhook(secret, request.headers, raw);
    } catch (error) {
      if (error instanceof WebhookVerificationError) return answer(response, 401, { error: error.reason });
      throw error;
    }
    const { id, payload: envelope } = verified;
    if (seen.has(id)) return answer(response, 200, { received: true, duplicate: true });
    seen.add(id);
    if (seen.size > SEEN_MAX) seen.delete(seen.values().next().value);
    answer(response, 200, { received: true });
    setImmediate(() => handle(envelope));
  });
}

const tls =
  process.env.TLS_CERT && process.env.TLS_KEY
    ? { cert: readFileSync(process.env.TLS_CERT), key: readFileSync(process.env.TLS_KEY) }
    : undefined;
const server = tls ? createHttpsServer(tls, onRequest) : createHttpServer(onRequest);
server.listen(Number(process.env.PORT ?? 4000), process.env.HOST ?? "127.0.0.1", () => {
  const { address, port } = server.address();
  console.log(JSON.stringify({ msg: "listening", url: `${tls ? "https" : "http"}://${address}:${port}/` }));
});
for (const signal of ["SIGTERM", "SIGINT"]) process.once(signal, () => server.close(() => process.exit(0)));
