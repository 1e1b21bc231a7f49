/**
 * Shared helpers of the end-to-end tests: each suite starts the real server (the built CLI,
 * `event-service serve`) on a free port against a temporary SQLite file, and talks to it over
 * HTTP. Any 500 answer fails the test that got it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));
export const CLI = join(ROOT, "packages/server/dist/cli.js");

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CreatedKey {
  id: string;
  key: string;
  accountId: string;
  tier: string;
  scopes: string[];
  accountCreated: boolean;
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  /** API key sent as `Authorization: Bearer`; omit for none. */
  key?: string;
  /** JSON-encoded unless `raw` is set. */
  body?: unknown;
  /** Sent as is (with `headers` deciding the content type). */
  raw?: string | Uint8Array;
  headers?: Record<string, string>;
  /** Lets this request answer 500 without failing the test. */
  allow500?: boolean;
}

export interface TestServer {
  url: string;
  /** The SQLite file the server uses. */
  database: string;
  /** A temporary folder removed at stop. */
  dir: string;
  /** Everything the server printed so far. */
  output(): string;
  /** Runs the CLI against the same database. */
  cli(args: string[]): Promise<CliResult>;
  /** Creates an API key through the CLI (`keys create --json`). */
  createKey(options?: { account?: string; tier?: string; scopes?: string[]; extra?: string[] }): Promise<CreatedKey>;
  /** An HTTP request to the server; the body is parsed as JSON when it is JSON. */
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  /** Sends `signal` (default SIGTERM), waits for the exit and removes the temporary folder. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Runs the CLI with `env` added to this process's environment. */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolvePromise({ code, stdout, stderr }));
  });
}

function waitForListening(child: ChildProcess, output: () => string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in 20 s:\n${output()}`)), 20_000);
    const onData = () => {
      for (const line of output().split("\n")) {
        if (!line.startsWith("{")) continue;
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === "listening" && entry.url) {
          clearTimeout(timer);
          child.stdout?.off("data", onData);
          resolvePromise(entry.url.replace(/\/$/, ""));
          return;
        }
      }
    };
    child.stdout?.on("data", onData);
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${output()}`));
    });
  });
}

/**
 * Starts `event-service serve` on 127.0.0.1 and a free port, on a new SQLite file (or on
 * `options.database` to share one), and waits until it listens.
 */
export async function startServer(options: { env?: Record<string, string>; database?: string } = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), "event-service-test-"));
  const database = options.database ?? join(dir, "events.sqlite");
  const env = { PORT: "0", HOST: "127.0.0.1", DATABASE_URL: database, LOG_LEVEL: "info", ...options.env };
  const child = spawn(process.execPath, [CLI, "serve"], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolvePromise) => child.on("exit", (code) => resolvePromise(code)));
  const url = await waitForListening(child, () => output);

  const server: TestServer = {
    url,
    database,
    dir,
    output: () => output,
    cli: (args) => runCli(args, { DATABASE_URL: database }),
    async createKey({ account = "Acme", tier = "professional", scopes, extra = [] } = {}) {
      const args = ["keys", "create", "--account", account, "--tier", tier, "--json", ...extra];
      if (scopes) args.push("--scopes", scopes.join(","));
      const result = await server.cli(args);
      if (result.code !== 0) throw new Error(`keys create failed (${result.code}): ${result.stderr}`);
      return JSON.parse(result.stdout) as CreatedKey;
    },
    async request(method, path, requestOptions = {}) {
      const headers: Record<string, string> = { ...requestOptions.headers };
      if (requestOptions.key) headers.authorization = `Bearer ${requestOptions.key}`;
      let body: string | Uint8Array | undefined = requestOptions.raw;
      if (requestOptions.body !== undefined) {
        body = JSON.stringify(requestOptions.body);
        headers["content-type"] ??= "application/json";
      }
      const response = await fetch(`${url}${path}`, { method, headers, ...(body !== undefined && { body: body as BodyInit }) });
      const text = await response.text();
      let parsed: unknown = text;
      if (response.headers.get("content-type")?.includes("json")) parsed = JSON.parse(text);
      if (response.status >= 500 && response.status !== 503 && !requestOptions.allow500) {
        throw new Error(`unexpected ${response.status} for ${method} ${path}: ${text}\nserver output:\n${output}`);
      }
      return { status: response.status, headers: response.headers, body: parsed as never };
    },
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null) child.kill(signal);
      const code = await exited;
      rmSync(dir, { recursive: true, force: true });
      return code;
    },
  };
  return server;
}

/** Asserts the one error body of every failure and returns its `error` object. */
export function errorOf(response: ApiResponse): { code: string; message: string; field?: string; details?: any; documentation?: string } {
  const body = response.body as { error?: any };
  if (!body || typeof body !== "object" || !body.error || typeof body.error.code !== "string" || typeof body.error.message !== "string") {
    throw new Error(`not an error body (status ${response.status}): ${JSON.stringify(response.body)}`);
  }
  return body.error;
}
