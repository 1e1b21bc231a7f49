#!/usr/bin/env node
/**
 * The `event-service` command (`dist/cli.js`): runs the CLI (cli.ts) on the process's arguments,
 * streams and environment and exits with its code.
 */
import { main } from "./cli.ts";
import { isClusterWorker } from "./cluster.ts";

main(process.argv.slice(2)).then((code) => {
  // -1: a server started and keeps the process alive.
  if (code < 0) return;
  process.exitCode = code;
  // A cluster worker's channel to the primary would keep it alive: a failed start must end it.
  if (code > 0 && isClusterWorker()) process.exit();
});
