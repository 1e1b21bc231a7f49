/**
 * A webhook receiver for `bench/run.ts`, in a process of its own so that taking the server's
 * deliveries costs the load generator nothing: HTTPS on 127.0.0.1 with the certificate given,
 * every request answered `204` once its body is read. Prints a JSON `listening` line and, on
 * SIGTERM, how many deliveries it took.
 * `node --import tsx bench/webhook-receiver.ts <cert.pem> <key.pem>`.
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";

let received = 0;
const server = createServer(
  { cert: readFileSync(process.argv[2]!), key: readFileSync(process.argv[3]!) },
  (request, response) => {
    request.resume();
    request.on("end", () => {
      received++;
      response.writeHead(204).end();
    });
  },
);
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(
    `${JSON.stringify({ msg: "listening", url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/` })}\n`,
  );
});
process.on("SIGTERM", () => {
  process.stderr.write(`Webhook receiver: ${received} deliveries taken, each answered 204.\n`);
  process.exit(0);
});
