/**
 * `load` run once, when first asked for: the modules only some routes need (the pages, the report
 * page, the docs page) are imported by the first request that needs them, so a process that
 * serves none never holds them. Callers at once share the one load; a load that fails is
 * forgotten, so the next caller tries again (the caller's request fails with the error).
 *
 * @example
 * const loadPage = onFirstUse(() => import("./ticket-page.tsx").then((module) => module.TICKET_PAGE));
 * const page = await loadPage();
 */
export function onFirstUse<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => {
    if (!loaded) {
      const loading = load();
      loaded = loading;
      loading.catch(() => {
        if (loaded === loading) loaded = undefined;
      });
    }
    return loaded;
  };
}
