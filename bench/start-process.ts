/**
 * Starts a server process of the benchmarks (ours, through the CLI, or the bare one) and waits
 * for its JSON `listening` log line. From then on its stdout (a line per request, as in
 * production) is only drained, so the pipe never blocks it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));

/** A started server process and the address it announced (without a trailing slash). */
export interface StartedProcess {
  child: ChildProcess;
  url: string;
}

/**
 * Runs `node <args>` at the repository root with `env` added to this process's environment.
 * `ready` picks the `listening` line to wait for (with `serve --workers N`, the primary's, once
 * all N listen); by default the first.
 */
export function startProcess(
  args: string[],
  env: Record<string, string | undefined> = {},
  ready: (entry: Record<string, unknown>) => boolean = () => true,
): Promise<StartedProcess> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    const onData = (chunk: Buffer) => {
      out += chunk;
      // Complete lines only: a chunk may end in the middle of one.
      for (const line of out.split("\n").slice(0, -1)) {
        if (!line.startsWith("{")) continue;
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === "listening" && entry.url && ready(entry)) {
          child.stdout!.off("data", onData);
          child.stdout!.resume();
          resolvePromise({ child, url: entry.url.replace(/\/$/, "") });
          return;
        }
      }
    };
    child.stdout!.on("data", onData);
    child.once("exit", (code) => reject(new Error(`server exited with ${code}`)));
  });
}

/** Stops a started process with SIGTERM and waits until it has exited. */
export async function stopProcess({ child }: StartedProcess): Promise<void> {
  const exited = new Promise((done) => child.once("exit", done));
  child.kill("SIGTERM");
  await exited;
}
