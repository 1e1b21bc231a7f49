import { renderDocument } from "../_internal/html-document.tsx";
import { localDateTime } from "../_internal/local-time.ts";
import { ownEntry } from "../_internal/own-entry.ts";
import type { DoorContext } from "../operations/context.ts";
import { DOOR_LINK_OPERATIONS } from "../operations/door-link.ts";
import type { Door, DoorScan, DoorSearch } from "../resources/check-in-link.ts";
import { DOOR_SEARCH_MIN_LENGTH } from "../service/door-link-operations.ts";
import { doorResultText, doorToneOf } from "./door-words.ts";
import { field, type LinkPage, type PageState, runLinkOperation } from "./link-page.ts";
import { pageAssetVersion } from "./page-assets.ts";
import { PAGE_STYLE } from "./page-style.ts";

/** The page's script, relative to the page (`<prefix>/check-in/<token>`), so it holds under any base path and prefix. */
export const DOOR_SCRIPT = "../../pages/door.js";

/** What the page says after its redirecting forms (`?done=`): a fixed text per note, never the query's own. */
const DONE: Readonly<Record<string, string>> = {
  undone: "The check-in was undone.",
};

/** The longest name search the page sends (the JSON twin's bound). */
const SEARCH_MAX_LENGTH = 100;

interface DoorView {
  door: Door;
  state: PageState;
  /** The scan the form just made, shown at once. */
  scan: DoorScan | null;
  /** The search typed (`?search=`), and what it found: nothing before 2 characters. */
  search: string;
  found: DoorSearch["attendees"];
  /** The script's version, in its address (see pageAssetVersion). */
  scriptVersion: string;
}

const when = (view: DoorView, timestamp: string) => localDateTime(timestamp, view.door.event.timeZone);

/** The scan's result: big, coloured by what the door does next, with the person's name and ticket type. */
function ScanResult({ view }: { view: DoorView }) {
  const { scan } = view;
  if (!scan || scan.result === "undone") return <div id="door-result" class="result" role="status" />;
  const text = doorResultText(scan.result, {
    eventName: scan.event?.name,
    at: scan.checkedInAt === null ? undefined : when(view, scan.checkedInAt),
  });
  return (
    <div id="door-result" class={`result result-${doorToneOf(scan.result)}`} role="status">
      <p class="result-words">{text}</p>
      {scan.attendee && (
        <p class="result-person">
          <span class="result-name">
            {scan.attendee.firstName} {scan.attendee.lastName}
          </span>{" "}
          <span class="result-ticket">{scan.attendee.ticketType}</span>
        </p>
      )}
    </div>
  );
}

/** "Undo" for the check-in just made: its registration goes back to confirmed. */
function UndoForm({ attendeeId }: { attendeeId: string }) {
  return (
    <form method="post" id="undo-form" aria-label="Undo the last check-in">
      <input type="hidden" name="action" value="undo" />
      <input type="hidden" name="attendeeId" value={attendeeId} />
      <button type="submit" class="secondary">
        Undo
      </button>
    </form>
  );
}

function Search({ view }: { view: DoorView }) {
  return (
    <section aria-labelledby="search-title">
      <h2 id="search-title">Find by name</h2>
      <form method="get" aria-labelledby="search-title">
        <label for="search">Name</label>
        <input
          type="search"
          id="search"
          name="search"
          value={view.search}
          minLength={DOOR_SEARCH_MIN_LENGTH}
          maxLength={SEARCH_MAX_LENGTH}
          autocomplete="off"
          aria-describedby="search-hint"
        />
        <p class="muted hint" id="search-hint">
          At least {DOOR_SEARCH_MIN_LENGTH} letters of a first or last name.
        </p>
        <button type="submit" class="secondary">
          Search
        </button>
      </form>
      {view.search.length >= DOOR_SEARCH_MIN_LENGTH && (
        <>
          {view.found.length === 0 && <p>Nobody of that name.</p>}
          <ul class="records" id="search-results">
            {view.found.map((hit) => (
              <li>
                <p>
                  <strong>
                    {hit.firstName} {hit.lastName}
                  </strong>{" "}
                  {hit.ticketType}
                  {hit.checkedInAt !== null && <span class="muted"> · checked in {when(view, hit.checkedInAt)}</span>}
                </p>
                <form method="post" aria-label={`Check in ${hit.firstName} ${hit.lastName}`}>
                  <input type="hidden" name="action" value="checkin" />
                  <input type="hidden" name="attendeeId" value={hit.id} />
                  <button type="submit">Check in</button>
                </form>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

function renderDoorPage(view: DoorView): string {
  const { door, state, scan } = view;
  const { event, counts } = door;
  const done = ownEntry(DONE, state.done);
  return renderDocument({
    title: `Door · ${event.name}`,
    style: PAGE_STYLE,
    script: `${DOOR_SCRIPT}?v=${view.scriptVersion}`,
    children: (
      <main id="door" data-time-zone={event.timeZone ?? "UTC"}>
        <h1>{event.name}</h1>
        <p class="muted">
          {door.label !== null && (
            <>
              <strong>{door.label}</strong> ·{" "}
            </>
          )}
          {when(view, event.startDate)} – {when(view, event.endDate)}
        </p>
        <p class="count" id="door-count">
          <span id="checked-in">{counts.checkedIn}</span> of <span id="expected">{counts.expected}</span> checked in
        </p>
        {!door.doorOpen && <p class="error">Event not open: nobody is checked in while the event is {event.status}.</p>}
        {done !== undefined && <p class="notice">{done}</p>}
        {state.error && (
          <p class="error" role="alert">
            {state.error.message}
          </p>
        )}
        <ScanResult view={view} />
        <div id="undo">
          {scan?.result === "checked_in" && scan.attendee && <UndoForm attendeeId={scan.attendee.id} />}
        </div>
        <section aria-labelledby="scan-title">
          <h2 id="scan-title">Scan a ticket</h2>
          <form method="post" id="scan-form" aria-labelledby="scan-title">
            <input type="hidden" name="action" value="scan" />
            <label for="code">Code</label>
            <input
              type="text"
              id="code"
              name="code"
              class="code"
              autofocus
              autocomplete="off"
              autocapitalize="characters"
              spellcheck={false}
              maxLength={200}
              aria-describedby="code-hint"
            />
            <p class="muted hint" id="code-hint">
              Type the confirmation code, or scan the ticket with a scanner: it checks in on Enter.
            </p>
            <button type="submit">Check in</button>
          </form>
          {/* The camera needs the page's script: the button shows once the script runs. */}
          <button type="button" id="camera-button" class="secondary" hidden>
            Scan with camera
          </button>
          <div id="camera" hidden>
            <video id="camera-video" muted playsInline aria-label="Camera" />
            <button type="button" id="camera-stop" class="secondary">
              Stop camera
            </button>
          </div>
          <p class="muted hint" id="offline-note" hidden />
        </section>
        <Search view={view} />
      </main>
    ),
  });
}

const run = (door: DoorContext, id: string, params: Record<string, string> = {}, body?: unknown) =>
  runLinkOperation(DOOR_LINK_OPERATIONS, id, door, params, body);

/**
 * The door's page at its check-in link: the event, the count, a "Code" field a scanner types
 * into, the result of the scan just made, "Undo", and a search by name. A scan's answer is the
 * page itself (status 200, no redirect): its result names a person, which never goes into a URL,
 * and sending it twice checks in nobody twice.
 */
export const DOOR_PAGE: LinkPage<DoorContext> = {
  async render(door, state) {
    const typed = (state.query.get("search") ?? "").trim().slice(0, SEARCH_MAX_LENGTH);
    const [view, found, scriptVersion] = await Promise.all([
      door.view(),
      typed.length >= DOOR_SEARCH_MIN_LENGTH ? door.search({ search: typed }) : { attendees: [] },
      pageAssetVersion("door.js"),
    ]);
    return renderDoorPage({
      scriptVersion,
      door: view,
      state,
      scan: (state.shown as DoorScan | null) ?? null,
      search: typed,
      found: found.attendees,
    });
  },
  actions: {
    async scan(door, form) {
      return { show: await run(door, "door.scan", {}, { code: form.get("code") ?? "" }) };
    },
    async checkin(door, form) {
      return { show: await run(door, "door.scan", {}, { attendeeId: field(form, "attendeeId") ?? "" }) };
    },
    async undo(door, form) {
      await run(door, "door.undo", { attendeeId: field(form, "attendeeId") ?? "" });
      return "undone";
    },
  },
  script: DOOR_SCRIPT,
};
