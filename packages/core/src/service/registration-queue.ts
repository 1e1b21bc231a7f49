/**
 * Group commit of one event's registrations: while a registration transaction of an event runs
 * in this process, the event's further registrations wait here, then go together in the next
 * one, which takes the event's lock and commits once for all of them (every registration of an
 * event waits on that lock anyway, so waiting here costs none of them time). Each waiting
 * caller gets its own answer. Several processes each keep their own queue; the event's lock
 * orders their transactions.
 */
import { ServiceError } from "../errors.ts";
import type { TransactionContext } from "./transaction-context.ts";

/** The most registrations one transaction takes: it holds the event's lock while it writes them. */
export const MAX_GROUP = 100;

/** What a group's transaction gives each of its members: its own result, or its own refusal. */
export type Outcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

interface Waiting<T, R> {
  item: T;
  resolve: (value: R) => void;
  reject: (error: unknown) => void;
}

/** A queue of groups, per context and key: the key's transaction in flight and those waiting for it. */
export interface GroupQueue<T, R> {
  /**
   * Runs `item` in a group of its key's items: at once, alone, when no transaction of its key
   * runs in this process; otherwise in the next group, with those that arrived meanwhile.
   */
  run(context: TransactionContext, key: string, item: T): Promise<R>;
}

/**
 * A group queue running each group with `runGroup`, which returns one outcome per item, in
 * order. When `runGroup` throws for a group of several (its transaction rolled back: a bug, a
 * uniqueness the lock did not cover), each item runs again alone, so that one's failure is not
 * the others'; the store being unavailable (`SERVICE_UNAVAILABLE`) is every member's answer.
 */
export function createGroupQueue<T, R>(
  runGroup: (context: TransactionContext, items: readonly T[]) => Promise<Array<Outcome<R>>>,
): GroupQueue<T, R> {
  // The waiting of each key whose transaction is in flight; a key absent has none in flight.
  const queues = new WeakMap<TransactionContext, Map<string, Array<Waiting<T, R>>>>();

  async function settle(context: TransactionContext, group: Array<Waiting<T, R>>): Promise<void> {
    let outcomes: Array<Outcome<R>>;
    try {
      outcomes = await runGroup(
        context,
        group.map((waiting) => waiting.item),
      );
    } catch (error) {
      const unavailable = ServiceError.is(error) && error.code === "SERVICE_UNAVAILABLE";
      if (group.length === 1 || unavailable) {
        for (const waiting of group) waiting.reject(error);
        return;
      }
      for (const waiting of group) await settle(context, [waiting]);
      return;
    }
    outcomes.forEach((outcome, i) => {
      if (outcome.ok) group[i]!.resolve(outcome.value);
      else group[i]!.reject(outcome.error);
    });
  }

  async function drain(context: TransactionContext, byKey: Map<string, Array<Waiting<T, R>>>, key: string) {
    let group = byKey.get(key)!.splice(0, MAX_GROUP);
    while (group.length > 0) {
      await settle(context, group);
      group = byKey.get(key)!.splice(0, MAX_GROUP);
    }
    byKey.delete(key);
  }

  return {
    run(context, key, item) {
      return new Promise<R>((resolve, reject) => {
        let byKey = queues.get(context);
        if (!byKey) queues.set(context, (byKey = new Map()));
        const waiting = byKey.get(key);
        if (waiting) {
          waiting.push({ item, resolve, reject });
          return;
        }
        byKey.set(key, [{ item, resolve, reject }]);
        drain(context, byKey, key).catch(() => {});
      });
    },
  };
}
