/**
 * Runs `run` when requested, one run at a time: a request during a run makes one more run
 * after it, however many came. `run` asks for another at once by returning true.
 */
export function coalesced(run: () => Promise<boolean>, onError: (error: unknown) => void) {
  let running: Promise<void> | undefined;
  let again = false;
  async function loop() {
    do {
      again = false;
      if (await run()) again = true;
    } while (again);
  }
  function request() {
    if (running) {
      again = true;
      return;
    }
    running = loop()
      .catch(onError)
      .finally(() => {
        running = undefined;
        if (again) request();
      });
  }
  return { request, idle: async () => void (await running) };
}
