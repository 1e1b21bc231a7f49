/** One autocannon run of the benchmarks, and the figures they print. */
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import autocannon from "autocannon";

/** Connections each run keeps open, unless a run says otherwise. */
export const CONNECTIONS = 16;
/** Each run's length: BENCH_SECONDS, default 8. */
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);

export interface Figures {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** Requests answered in the run. */
  requests: number;
}

/** Clock ticks a second of /proc/PID/stat's times: 100 on every Linux this runs on. */
const CLOCK_TICKS = 100;

/**
 * The CPU seconds (user + system) a process has used so far, from /proc (Linux); undefined
 * elsewhere. Read before and after a run, divided by its requests, it gives the server's CPU per
 * request: steadier than requests per second on a machine shared with other work.
 */
export function cpuSeconds(pid: number | undefined): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The fields after the command's name (which may hold spaces), from the third (state) on.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/** The one-minute load average (Linux), to print beside a figure. */
export function loadAverage(): string {
  try {
    return readFileSync("/proc/loadavg", "utf8").split(" ")[0]!;
  } catch {
    return "unknown";
  }
}

/**
 * Drives `url` + `path` for SECONDS with GETs, or with POSTs of `post(n)` for the n-th request;
 * with `amount`, for that many requests instead (`rps` then counts them over the run's wall time).
 */
export async function drive(
  url: string,
  path: string,
  options: { key?: string; post?: (n: number) => unknown; amount?: number; connections?: number } = {},
): Promise<Figures> {
  let n = 0;
  const headers: Record<string, string> = {
    "content-type": "application/json",
    ...(options.key && { authorization: `Bearer ${options.key}` }),
  };
  const began = performance.now();
  const result = await autocannon({
    url: `${url}${path}`,
    connections: options.connections ?? CONNECTIONS,
    ...(options.amount === undefined ? { duration: SECONDS } : { amount: options.amount }),
    method: options.post ? "POST" : "GET",
    headers,
    ...(options.post && {
      requests: [
        { setupRequest: (request: autocannon.Request) => ({ ...request, body: JSON.stringify(options.post!(n++)) }) },
      ],
    }),
  });
  const wallMs = performance.now() - began;
  // autocannon's average is over whole seconds: a run of a set amount ends within one.
  const rps = options.amount === undefined ? result.requests.average : result.requests.total / (wallMs / 1000);
  return {
    rps,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    requests: result.requests.total,
  };
}
