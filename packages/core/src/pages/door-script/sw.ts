/**
 * The door page's service worker: keeps the page itself, its script and the QR decoder so that
 * a door reloaded without the network still opens. The page is fetched from the network first
 * and only its plain address is kept (no `?search=`: a search lists people); the JSON twin's
 * requests (scans, the count, the door list) pass through untouched, and nothing else is stored.
 */

/** What of the service worker's scope this file uses (the DOM library does not describe it). */
interface ExtendableEvent extends Event {
  waitUntil(promise: Promise<unknown>): void;
}
interface FetchEvent extends ExtendableEvent {
  request: Request;
  respondWith(response: Promise<Response>): void;
}
interface WorkerScope {
  addEventListener(type: "install" | "activate", listener: (event: ExtendableEvent) => void): void;
  addEventListener(type: "fetch", listener: (event: FetchEvent) => void): void;
  addEventListener(type: "message", listener: (event: MessageEvent) => void): void;
  skipWaiting(): Promise<void>;
  clients: { claim(): Promise<void> };
  location: Location;
}
const scope = self as unknown as WorkerScope;

const CACHE = "event-service-door-v1";
/** The page's own files, beside this worker. */
const ASSETS = ["door.js", "zxing_reader.wasm"].map((name) => new URL(name, scope.location.href).href);

/** Whether `url` is a door page's plain address under this worker's scope (no query: no person in it). */
function isDoorPage(url: URL): boolean {
  return (
    url.origin === scope.location.origin && url.search === "" && /\/check-in\/chk_[A-Za-z0-9_-]+$/.test(url.pathname)
  );
}

async function keep(url: string): Promise<void> {
  const response = await fetch(url, { headers: { accept: "text/html" }, credentials: "omit" });
  const cache = await caches.open(CACHE);
  if (response.ok) await cache.put(url, response);
  else await cache.delete(url);
}

/** The network's answer, kept when it is a door page or an asset; without the network, the kept one. */
async function networkFirst(request: Request, url: URL): Promise<Response> {
  const cache = await caches.open(CACHE);
  const key = url.origin + url.pathname;
  try {
    const response = await fetch(request);
    if (response.ok && (isDoorPage(url) || ASSETS.includes(key))) await cache.put(key, response.clone());
    // A link revoked or expired: its page is not kept any longer.
    if (response.status === 404) await cache.delete(key);
    return response;
  } catch (error) {
    // The page is kept as asked for by its own script; a browser's navigation asks with another Accept.
    const kept = await cache.match(key, { ignoreVary: true });
    if (kept) return kept;
    throw error;
  }
}

scope.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(ASSETS))
      .then(() => scope.skipWaiting()),
  );
});

scope.addEventListener("activate", (event) => {
  event.waitUntil(scope.clients.claim());
});

// The page asks for itself to be kept once the worker runs (its first load came before the worker).
scope.addEventListener("message", (event) => {
  const url = new URL(String((event.data as { keep?: unknown } | null)?.keep ?? ""), scope.location.href);
  if (isDoorPage(url)) void keep(url.href);
});

scope.addEventListener("fetch", (event) => {
  const { request } = event;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if ((request.mode === "navigate" && isDoorPage(url)) || ASSETS.includes(url.origin + url.pathname))
    event.respondWith(networkFirst(request, url));
});
