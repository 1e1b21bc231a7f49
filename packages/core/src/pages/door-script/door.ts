/**
 * The door page's script, run in the browser: scans through the JSON twin without a reload,
 * the camera's QR codes, the count kept current, and offline check-in from the downloaded list
 * with a queue kept in the browser and sent, in order and each with its Idempotency-Key, once the
 * network is back. Without it the page's forms do the same, minus the camera and offline.
 */
import { prepareZXingModule, readBarcodes } from "zxing-wasm/reader";
import { localDateTime } from "../../_internal/local-time.ts";
import type { Door, DoorResult, DoorScan, OfflineList } from "../../resources/check-in-link.ts";
import { ADMITTED_ATTENDEE_STATUSES } from "../../rules/attendee-status.ts";
import { doorResultText, doorToneOf } from "../door-words.ts";

const ADMITTED: readonly string[] = ADMITTED_ATTENDEE_STATUSES;

/** How often the count is asked for while online (other doors check people in too). */
const POLL_MS = 3000;
/**
 * The door list is downloaded again, at most this often, when the count's admitted registrations
 * no longer match it (people registered, paid or cancelled since): a door long open keeps
 * deciding offline from a current list without downloading it at every poll.
 */
const LIST_REFRESH_MS = 30_000;
/** A code the camera keeps seeing is sent once in this long. */
const CAMERA_REPEAT_MS = 4000;
/** Frames the camera decodes, at most, per second. */
const CAMERA_FRAME_MS = 200;

// The decoder's WebAssembly is the service's own file beside this script, never a CDN's.
const scriptUrl = (document.currentScript as HTMLScriptElement | null)?.src ?? location.href;
prepareZXingModule({
  overrides: {
    locateFile: (path: string, prefix: string) =>
      path.endsWith(".wasm") ? new URL("zxing_reader.wasm", scriptUrl).href : prefix + path,
  },
});

/** The link's JSON twin: the page's own address. */
const base = location.pathname.replace(/\/+$/, "");
const root = document.getElementById("door") as HTMLElement;
const timeZone = root.dataset.timeZone === "UTC" ? null : (root.dataset.timeZone ?? null);
const resultBox = document.getElementById("door-result") as HTMLElement;
const undoBox = document.getElementById("undo") as HTMLElement;
const codeInput = document.getElementById("code") as HTMLInputElement;
const offlineNote = document.getElementById("offline-note") as HTMLElement;

/**
 * Web Crypto (the scans' keys, the codes' hashes), the camera and service workers exist only in a
 * secure context (HTTPS, or this machine's own address); elsewhere, such as a venue's server at a
 * plain `http://` address, the page's forms do the work, as without JavaScript.
 */
const ENHANCED = window.isSecureContext;

interface Queued {
  code: string;
  key: string;
}

// The browser's IndexedDB, per link: the door list (names, statuses, hashed codes) and the queue.
// Not localStorage: its 5 MB an origin is about the list of a 20,000-person event alone.
const DATABASE = "event-service-door";
const STORE = "door";
const LIST_KEY = `list:${base}`;
const QUEUE_KEY = `queue:${base}`;

let opened: Promise<IDBDatabase> | null = null;
function database(): Promise<IDBDatabase> {
  opened ??= new Promise((resolve, reject) => {
    const request = indexedDB.open(DATABASE, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  return opened;
}

/**
 * Reads `keys` and writes back what `change` makes of their values (nothing when it answers
 * null), in one transaction: a scan queued while the queue is being sent is never lost.
 */
async function update(keys: readonly string[], change: (values: unknown[]) => unknown[] | null): Promise<void> {
  const db = await database();
  await new Promise<void>((resolve, reject) => {
    const transaction = db.transaction(STORE, "readwrite");
    const store = transaction.objectStore(STORE);
    const values: unknown[] = [];
    let left = keys.length;
    for (const [index, key] of keys.entries()) {
      const read = store.get(key);
      read.onsuccess = () => {
        values[index] = read.result ?? null;
        if (--left > 0) return;
        const next = change(values);
        if (next) for (const [at, name] of keys.entries()) store.put(next[at], name);
      };
    }
    transaction.oncomplete = () => resolve();
    transaction.onerror = () => reject(transaction.error);
    transaction.onabort = () => reject(transaction.error);
  });
}

async function load<T>(key: string): Promise<T | null> {
  let value: T | null = null;
  await update([key], ([kept]) => {
    value = (kept as T | null) ?? null;
    return null;
  });
  return value;
}
const save = (key: string, value: unknown) => update([key], () => [value]);
const queue = async (): Promise<Queued[]> => (await load<Queued[]>(QUEUE_KEY)) ?? [];

let dead = false;

/** The link no longer opens the door (revoked, expired, its event deleted): nothing more is sent. */
function showDead(): void {
  dead = true;
  resultBox.className = "result result-stop";
  resultBox.replaceChildren(paragraph("result-words", "This check-in link no longer works."));
  undoBox.replaceChildren();
  codeInput.disabled = true;
}

function paragraph(className: string, text: string): HTMLParagraphElement {
  const p = document.createElement("p");
  p.className = className;
  p.textContent = text;
  return p;
}

/** A scan's result in the status element, as the server draws it; `offline` marks one decided from the list. */
function show(scan: DoorScan, offline = false): void {
  undoBox.replaceChildren();
  if (scan.result === "undone") {
    resultBox.className = "result result-warn";
    resultBox.replaceChildren(paragraph("result-words", "The check-in was undone."));
    return;
  }
  const result = scan.result as DoorResult;
  const at = scan.checkedInAt === null ? undefined : localDateTime(scan.checkedInAt, timeZone);
  let text = doorResultText(result, { eventName: scan.event?.name, at });
  if (offline) text += " (offline)";
  resultBox.className = `result result-${doorToneOf(result)}`;
  const words = paragraph("result-words", text);
  const children: Node[] = [words];
  if (scan.attendee) {
    const person = paragraph("result-person", "");
    const name = document.createElement("span");
    name.className = "result-name";
    name.textContent = `${scan.attendee.firstName} ${scan.attendee.lastName}`;
    const ticket = document.createElement("span");
    ticket.className = "result-ticket";
    ticket.textContent = scan.attendee.ticketType;
    person.append(name, " ", ticket);
    children.push(person);
  }
  resultBox.replaceChildren(...children);
  if (result === "checked_in" && scan.attendee && !offline) undoBox.replaceChildren(undoButton(scan.attendee.id));
}

function undoButton(attendeeId: string): HTMLButtonElement {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "secondary";
  button.textContent = "Undo";
  button.addEventListener("click", async () => {
    const response = await fetch(`${base}/scan/${encodeURIComponent(attendeeId)}`, {
      method: "DELETE",
      headers: { accept: "application/json" },
    });
    if (response.status === 404) return showDead();
    if (response.ok) {
      show((await response.json()) as DoorScan);
      void refreshCount();
    }
    codeInput.focus();
  });
  return button;
}

async function refreshCount(): Promise<void> {
  if (dead || !navigator.onLine) return;
  let response: Response;
  try {
    response = await fetch(base, { headers: { accept: "application/json" } });
  } catch {
    return; // Offline after all: the count shown stays until the network is back.
  }
  if (response.status === 404) return showDead();
  if (!response.ok) return;
  const door = (await response.json()) as Door;
  if (
    ENHANCED &&
    listed !== null &&
    door.counts.expected !== listed.expected &&
    Date.now() - listed.at >= LIST_REFRESH_MS
  )
    void refreshList();
  (document.getElementById("checked-in") as HTMLElement).textContent = String(door.counts.checkedIn);
  (document.getElementById("expected") as HTMLElement).textContent = String(door.counts.expected);
}

/**
 * A scan sent to the service: its answer, `"dead"` (the link is gone), `"refused"` (anything else
 * the service refused, such as too many requests at once), or `null` when the network is gone.
 */
async function send(body: unknown, key: string): Promise<DoorScan | "dead" | "refused" | null> {
  if (!navigator.onLine) return null;
  let response: Response;
  try {
    response = await fetch(`${base}/scan`, {
      method: "POST",
      headers: { accept: "application/json", "content-type": "application/json", "idempotency-key": key },
      body: JSON.stringify(body),
    });
  } catch {
    return null;
  }
  if (response.status === 404) return "dead";
  if (!response.ok) return "refused";
  return (await response.json()) as DoorScan;
}

// The normalised code and its hash, exactly as docs/api.md ("Offline list") gives them.
function normalisedCode(typed: string): string {
  const bare = typed.replace(/[\s\-\u2010-\u2015\u2212]+/g, "").toUpperCase();
  const parts = /^EVT([0-9A-Z]{4})([0-9A-Z]{4})$/.exec(bare);
  return parts ? `EVT-${parts[1]}-${parts[2]}` : bare;
}
async function codeHash(typed: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(normalisedCode(typed)));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** A scan decided from the downloaded list, in the service's order; a check-in is marked there and queued. */
async function scanOffline(code: string, key: string): Promise<void> {
  const hash = await codeHash(code);
  let decided: { result: DoorResult; entry: OfflineList["attendees"][number] | undefined } | null = null;
  let waiting = 0;
  // Decided, marked in the list and queued in one transaction: a scan shown as checked in is queued.
  await update([LIST_KEY, QUEUE_KEY], ([kept, queued]) => {
    const list = kept as OfflineList | null;
    const scans = (queued as Queued[] | null) ?? [];
    waiting = scans.length;
    if (!list) return null;
    const entry = list.attendees.find((candidate) => candidate.codeHash === hash);
    let result: DoorResult;
    if (list.event.status !== "published") result = "event_not_open";
    else if (!entry) result = "not_found";
    else if (entry.status === "cancelled") result = "cancelled";
    else if (entry.status === "waitlisted") result = "not_admitted";
    else if (entry.status === "checked-in") result = "already_checked_in";
    else if (entry.paymentRequired) result = "payment_required";
    else result = "checked_in";
    decided = { result, entry };
    if (!entry || result !== "checked_in") return null;
    entry.status = "checked-in";
    entry.checkedInAt = new Date().toISOString();
    waiting = scans.length + 1;
    return [list, [...scans, { code, key }]];
  });
  if (!decided) {
    resultBox.className = "result result-stop";
    resultBox.replaceChildren(paragraph("result-words", "Offline, and no door list yet: try again when online."));
    return;
  }
  const { result, entry } = decided as { result: DoorResult; entry: OfflineList["attendees"][number] | undefined };
  const attendee = entry
    ? {
        id: entry.id,
        firstName: entry.firstName,
        lastName: entry.lastName,
        ticketType: entry.ticketType,
        status: entry.status,
      }
    : null;
  show({ result, attendee, checkedInAt: entry?.checkedInAt ?? null }, true);
  // The count follows this door's own check-ins while offline; the service's count replaces it once back.
  const checkedIn = document.getElementById("checked-in") as HTMLElement;
  if (result === "checked_in") checkedIn.textContent = String(Number(checkedIn.textContent) + 1);
  offlineNote.hidden = false;
  offlineNote.textContent = `Offline: ${waiting} check-in(s) waiting to be sent.`;
}

/** A code typed or scanned: to the service when online, else decided from the list. */
async function scan(code: string): Promise<void> {
  if (dead) return;
  const key = crypto.randomUUID();
  const answer = await send({ code }, key);
  if (answer === "dead") return showDead();
  if (answer === null) {
    try {
      return await scanOffline(code, key);
    } catch {
      // The browser would not keep it (storage refused or full): the door must not think it was.
      resultBox.className = "result result-stop";
      resultBox.replaceChildren(
        paragraph("result-words", "Not checked in: offline, and this browser could not keep the scan."),
      );
      return;
    }
  }
  if (answer === "refused") {
    resultBox.className = "result result-stop";
    resultBox.replaceChildren(paragraph("result-words", "Not checked in: the service is busy. Scan again."));
    return;
  }
  show(answer);
  void refreshCount();
}

let syncing = false;

/**
 * The queue sent in order, each scan with its own key; "Already checked in" means another door was
 * first. A scan let in offline that the service then refuses (cancelled meanwhile, no longer
 * admitted) is shown, and named in the note until the next offline scan: the person went in.
 */
async function sync(): Promise<void> {
  if (syncing || dead) return;
  syncing = true;
  const refused: string[] = [];
  try {
    for (let waiting = await queue(); waiting.length > 0; waiting = await queue()) {
      const next = waiting[0] as Queued;
      const answer = await send({ code: next.code }, next.key);
      // Kept for the next try (the poll tries again) when the network or the service is not there yet.
      if (answer === null || answer === "refused") return;
      if (answer === "dead") return showDead();
      await update([QUEUE_KEY], ([queued]) => [
        ((queued as Queued[] | null) ?? []).filter(({ key }) => key !== next.key),
      ]);
      if (answer.result !== "checked_in") show(answer);
      if (answer.result !== "checked_in" && answer.result !== "already_checked_in") {
        const who = answer.attendee ? `${answer.attendee.firstName} ${answer.attendee.lastName}` : "A ticket";
        refused.push(`${who}: ${doorResultText(answer.result as DoorResult, { eventName: answer.event?.name })}`);
      }
    }
    offlineNote.hidden = refused.length === 0;
    offlineNote.textContent =
      refused.length === 0 ? "" : `Let in offline, but not checked in once sent: ${refused.join("; ")}.`;
    await refreshList();
    await refreshCount();
  } finally {
    syncing = false;
  }
}

/** When the door list kept was downloaded, and the admitted registrations it held (as the count's `expected`). */
let listed: { expected: number; at: number } | null = null;

/** The door list, downloaded again while online (and kept for when it is not). */
async function refreshList(): Promise<void> {
  // A list downloaded while scans wait would forget their offline marks: the sync downloads it after.
  if (!navigator.onLine || dead || (await queue()).length > 0) return;
  try {
    const response = await fetch(`${base}/offline-list`, { headers: { accept: "application/json" } });
    if (response.status === 404) return showDead();
    if (!response.ok) return;
    const list = (await response.json()) as OfflineList;
    await save(LIST_KEY, list);
    const expected = list.attendees.filter(({ status }) => ADMITTED.includes(status)).length;
    listed = { expected, at: Date.now() };
  } catch {
    // Offline after all: the list kept is used.
  }
}

const scanForm = document.getElementById("scan-form") as HTMLFormElement;
scanForm.addEventListener("submit", (event) => {
  if (!ENHANCED) return;
  event.preventDefault();
  const code = codeInput.value;
  codeInput.value = "";
  codeInput.focus();
  if (code.trim() !== "") void scan(code);
});

// The camera: frames drawn to a canvas and decoded here; a code is sent once per few seconds.
const cameraButton = document.getElementById("camera-button") as HTMLButtonElement;
const cameraBox = document.getElementById("camera") as HTMLElement;
const video = document.getElementById("camera-video") as HTMLVideoElement;
let stream: MediaStream | null = null;
const seen = new Map<string, number>();

async function decodeFrames(canvas: HTMLCanvasElement): Promise<void> {
  while (stream) {
    if (video.videoWidth > 0) {
      canvas.width = video.videoWidth;
      canvas.height = video.videoHeight;
      const drawing = canvas.getContext("2d", { willReadFrequently: true }) as CanvasRenderingContext2D;
      drawing.drawImage(video, 0, 0);
      const found = await readBarcodes(drawing.getImageData(0, 0, canvas.width, canvas.height), {
        formats: ["QRCode"],
        tryHarder: true,
      });
      const now = Date.now();
      for (const { text, isValid } of found) {
        if (!isValid || text === "" || now - (seen.get(text) ?? 0) < CAMERA_REPEAT_MS) continue;
        seen.set(text, now);
        await scan(text);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, CAMERA_FRAME_MS));
  }
}

function stopCamera(): void {
  for (const track of stream?.getTracks() ?? []) track.stop();
  stream = null;
  cameraBox.hidden = true;
  cameraButton.hidden = false;
}

if (navigator.mediaDevices?.getUserMedia) {
  cameraButton.hidden = false;
  cameraButton.addEventListener("click", async () => {
    try {
      stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment" } });
    } catch {
      resultBox.className = "result result-stop";
      resultBox.replaceChildren(paragraph("result-words", "The camera could not be opened."));
      return;
    }
    video.srcObject = stream;
    cameraBox.hidden = false;
    cameraButton.hidden = true;
    await video.play();
    void decodeFrames(document.createElement("canvas"));
  });
  (document.getElementById("camera-stop") as HTMLButtonElement).addEventListener("click", stopCamera);
}

// The service worker keeps this page and its files for a reload without the network.
if ("serviceWorker" in navigator && location.search === "") {
  navigator.serviceWorker
    .register(new URL("sw.js", scriptUrl).href, { scope: "./" })
    .then(() => navigator.serviceWorker.ready)
    .then((registration) => registration.active?.postMessage({ keep: location.pathname }))
    .catch(() => undefined);
}

if (ENHANCED) {
  window.addEventListener("online", () => void sync());
  setInterval(() => void queue().then((waiting) => (waiting.length > 0 ? sync() : refreshCount())), POLL_MS);
  void sync();
} else setInterval(() => void refreshCount(), POLL_MS);
