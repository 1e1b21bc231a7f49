/**
 * Storage calls run at the same moment from several connections: the racers of the concurrency
 * tests. On PostgreSQL, storages of their own (`another()`: separate pools, so really parallel
 * transactions); on a SQLite file, worker threads each with its own connection
 * (`_storage-worker.ts`), released together by one shared signal; on SQLite in memory and
 * PGlite, which have one connection only, the calls are started together on it and the store
 * serialises them.
 */
import { Worker } from "node:worker_threads";
import { sql } from "kysely";
import { ServiceError } from "../src/errors.ts";
import type { DeliveryAttemptRecord } from "../src/resources/webhook-delivery.ts";
import { changeWebhook, recordDeliveryAttempts } from "./_webhook-helpers.ts";
import type { TestBackend, TestDatabase } from "./_backends.ts";
import type { Storage } from "../src/storage.ts";
import { TRANSACTIONS, type TransactionArgs, type TransactionName } from "./_transactions.ts";

/** The names of the storage's methods (`emissionFactors` is a value, `transaction` takes a function). */
type StorageMethod = Exclude<keyof Storage, "emissionFactors" | "factorSets" | "transaction" | TransactionName>;

/**
 * One call: a method of `Storage` or a business transaction (`_transactions.ts`, which wins where
 * the names meet: `insertWebhook`) and its (structured-cloneable) arguments, `updateWebhookUrl`,
 * or one attempt recorded as a worker records it.
 */
export type Call =
  | { [M in StorageMethod]: { method: M; args: Parameters<Storage[M]> } }[StorageMethod]
  | { [N in TransactionName]: { method: N; args: TransactionArgs<N> } }[TransactionName]
  | { method: "updateWebhookUrl"; args: [accountId: string, id: string, url: string] }
  | { method: "recordDeliveryAttempt"; args: [record: DeliveryAttemptRecord, disableAfter: number] };

/** How a call ended: its value, or its error (the `ServiceError` code when it was one). */
export type Outcome = { ok: true; value: any } | { ok: false; code: string | null; message: string };

/** Runs one call on `storage` and reports how it ended; never throws. */
export async function runCall(storage: Storage, call: Call): Promise<Outcome> {
  try {
    if (call.method === "updateWebhookUrl") {
      const [accountId, id, url] = call.args;
      return { ok: true, value: await changeWebhook(storage, accountId, id, (webhook) => ({ ...webhook, url })) };
    }
    if (call.method === "recordDeliveryAttempt") {
      const [record, disableAfter] = call.args;
      return { ok: true, value: (await recordDeliveryAttempts(storage, [record], disableAfter))[0] };
    }
    if (Object.hasOwn(TRANSACTIONS, call.method)) {
      const transaction = TRANSACTIONS[call.method as TransactionName] as (...args: unknown[]) => Promise<unknown>;
      return { ok: true, value: await transaction(storage, ...call.args) };
    }
    const method = storage[call.method as StorageMethod] as unknown as (...args: unknown[]) => Promise<unknown>;
    return { ok: true, value: await method.apply(storage, call.args) };
  } catch (error) {
    return {
      ok: false,
      code: ServiceError.is(error) ? error.code : null,
      message: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    };
  }
}

/** Several connections that run calls at the same moment. */
export interface Racers {
  /** How many connections race (1 for SQLite in memory). */
  readonly count: number;
  /** Starts every call at once, spread over the connections in turn; the outcomes in the order of `calls`. */
  race(calls: Call[]): Promise<Outcome[]>;
  close(): Promise<void>;
}

/** The path of a SQLite database's main file, asked of the database itself. */
async function sqlitePath(database: TestDatabase): Promise<string> {
  const { rows } = await sql<{ name: string; file: string }>`pragma database_list`.execute(database.db);
  const main = rows.find((row) => row.name === "main");
  if (!main?.file) throw new Error("not a SQLite file");
  return main.file;
}

/** Deals `calls` to `count` hands in turn, remembering each call's place. */
function deal(calls: Call[], count: number): Array<Array<{ index: number; call: Call }>> {
  const hands = Array.from({ length: count }, () => [] as Array<{ index: number; call: Call }>);
  calls.forEach((call, index) => hands[index % count]!.push({ index, call }));
  return hands;
}

function storageRacers(storages: Storage[]): Racers {
  return {
    count: storages.length,
    async race(calls) {
      const outcomes: Outcome[] = new Array(calls.length);
      await Promise.all(
        deal(calls, storages.length).map((hand, i) =>
          Promise.all(hand.map(async ({ index, call }) => (outcomes[index] = await runCall(storages[i]!, call)))),
        ),
      );
      return outcomes;
    },
    async close() {},
  };
}

/** A worker thread running `_storage-worker.ts` under tsx (Node 20 does not hand the parent's loader to workers). */
function storageWorker(path: string): Worker {
  const entry = new URL("./_storage-worker.ts", import.meta.url).href;
  const tsx = import.meta.resolve("tsx/esm/api");
  const boot = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(boot, { eval: true, workerData: { path } });
}

/** The worker's next message; rejects when it fails or exits first, or says nothing for a minute (a race must never hang the suite). */
function nextMessage<T>(worker: Worker): Promise<T> {
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      worker.off("message", onMessage).off("error", onError).off("exit", onExit);
    };
    const onMessage = (message: T) => (done(), resolve(message));
    const onError = (error: Error) => (done(), reject(error));
    const onExit = (code: number) => (done(), reject(new Error(`storage worker exited (${code}) before answering`)));
    const timer = setTimeout(() => (done(), reject(new Error("storage worker did not answer within 60 s"))), 60_000);
    worker.on("message", onMessage).on("error", onError).on("exit", onExit);
  });
}

function workerRacers(workers: Worker[]): Racers {
  return {
    count: workers.length,
    async race(calls) {
      const go = new SharedArrayBuffer(4);
      const hands = deal(calls, workers.length);
      // Every worker is ready (its calls received, waiting on the signal) before any starts.
      await Promise.all(
        workers.map((worker, i) => {
          const ready = nextMessage<string>(worker);
          worker.postMessage({ calls: hands[i]!.map(({ call }) => call), go });
          return ready;
        }),
      );
      const results = workers.map((worker) => nextMessage<Outcome[]>(worker));
      Atomics.store(new Int32Array(go), 0, 1);
      Atomics.notify(new Int32Array(go), 0);
      const outcomes: Outcome[] = new Array(calls.length);
      (await Promise.all(results)).forEach((list, i) =>
        list.forEach((outcome, j) => (outcomes[hands[i]![j]!.index] = outcome)),
      );
      return outcomes;
    },
    async close() {
      await Promise.all(
        workers.map(async (worker) => {
          const exited = new Promise((resolve) => worker.once("exit", resolve));
          worker.postMessage("close");
          await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
          await worker.terminate();
        }),
      );
    },
  };
}

/** `count` racing connections to `database` of `backend` (one for SQLite in memory and PGlite). */
export async function racersFor(backend: TestBackend, database: TestDatabase, count: number): Promise<Racers> {
  switch (backend.name) {
    case "sqlite-memory":
    case "pglite":
      return storageRacers([database.storage]);
    case "sqlite-file": {
      const path = await sqlitePath(database);
      return workerRacers(Array.from({ length: count }, () => storageWorker(path)));
    }
    default: {
      const storages = [database.storage];
      while (storages.length < count) storages.push(await database.another());
      return storageRacers(storages.map((storage) => storage));
    }
  }
}
