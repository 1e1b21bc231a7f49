/** A fetch handler counted by {@link countRequestsInFlight}. */
export interface RequestsInFlight<F> {
  /** The handler, each call in flight until its response (or its error) is ready. */
  fetch: F;
  /** Resolves once no call is in flight: at once when none is. */
  settled(): Promise<void>;
}

/**
 * Counts the calls of `fetch` that have not answered yet, for the shutdown: the store closes
 * only after every request's work has ended (its transaction committed or rolled back, a COMMIT
 * whose answer was lost looked up), whether or not its client is still connected to hear it.
 */
export function countRequestsInFlight<A extends unknown[], R>(
  fetch: (...args: A) => R | Promise<R>,
): RequestsInFlight<(...args: A) => R | Promise<R>> {
  let inFlight = 0;
  let waiting: Array<() => void> = [];
  const done = () => {
    inFlight -= 1;
    if (inFlight > 0) return;
    const resolve = waiting;
    waiting = [];
    for (const settle of resolve) settle();
  };
  return {
    fetch(...args) {
      inFlight += 1;
      let result: R | Promise<R>;
      try {
        result = fetch(...args);
      } catch (error) {
        done();
        throw error;
      }
      if (typeof (result as PromiseLike<R> | null)?.then === "function") (result as PromiseLike<R>).then(done, done);
      else done();
      return result;
    },
    settled: () => (inFlight === 0 ? Promise.resolve() : new Promise((resolve) => waiting.push(resolve))),
  };
}
