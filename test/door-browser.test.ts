/**
 * The door's page in a real browser (headless Chromium, test/fixtures/browser.ts), against the
 * real server, tried as a door team would on a 360 px phone: a code typed with JavaScript off
 * checks in and a repeat says "Already checked in" with the time; a USB scanner's Enter checks
 * in without a reload and Undo undoes it; the camera (Chromium's fake capture device playing a
 * video of a real ticket's QR code) checks in; the network dropped and restored loses no
 * check-in and makes none twice, at one door and at two; a revoked link is dead at the next
 * action. Every check-in is read back through the API and counted at a webhook receiver.
 * A reload without the network opens the page from its service worker, the queue intact.
 */
import assert from "node:assert/strict";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import QRCode from "qrcode";
import { startServer, type TestServer } from "./_setup.ts";
import { type Client, clientFor, createEvent, expectStatus, moveEvent, register } from "./fixtures/api.ts";
import {
  assertFitsWidth,
  browserSkip,
  launchBrowser,
  phoneContext,
  screenshot,
  unlabelledControls,
  watchedPage,
} from "./fixtures/browser.ts";
import { makeCertificate } from "./fixtures/conventions.ts";
import { deliveryEnv, type Receiver, startReceiver } from "./fixtures/receiver.ts";

const SKIP = browserSkip("door page browser tests");

/** An element's text with its paragraphs on one line each (`innerText` sets paragraphs apart with a blank line). */
const lines = (text: string) => text.replace(/\n+/g, "\n").trim();

/** The organiser's and the attendees' text: shown as text, never run. */
const EVENT_NAME = `Door <script>alert("event")</script> Fest`;

let tls: ReturnType<typeof makeCertificate>;
let receiver: Receiver;
let server: TestServer;
let browser: Browser;
let accounts = 0;

/**
 * A video Chromium's fake camera plays (y4m, 640x480, I420): `text` as a QR code, black modules
 * 10 px wide on white with a quiet zone, centred, in every frame.
 */
function qrVideo(text: string): string {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: "M" });
  const width = 640;
  const height = 480;
  const scale = 10;
  const side = (modules.size + 8) * scale;
  const left = Math.floor((width - side) / 2);
  const top = Math.floor((height - side) / 2);
  const luma = Buffer.alloc(width * height, 235);
  for (let row = 0; row < modules.size; row++)
    for (let column = 0; column < modules.size; column++) {
      if (!modules.get(row, column)) continue;
      for (let y = 0; y < scale; y++) {
        const start = (top + (row + 4) * scale + y) * width + left + (column + 4) * scale;
        luma.fill(16, start, start + scale);
      }
    }
  const chroma = Buffer.alloc((width / 2) * (height / 2), 128);
  const frame = Buffer.concat([Buffer.from("FRAME\n"), luma, chroma, chroma]);
  const header = Buffer.from(`YUV4MPEG2 W${width} H${height} F10:1 Ip A1:1 C420jpeg\n`);
  const dir = mkdtempSync(join(tmpdir(), "door-camera-"));
  const file = join(dir, "ticket.y4m");
  writeFileSync(file, Buffer.concat([header, ...Array.from({ length: 10 }, () => frame)]));
  return file;
}

describe("the door's page in a real browser (headless Chromium)", { skip: SKIP }, () => {
  before(async () => {
    tls = makeCertificate();
    receiver = await startReceiver({ cert: tls.cert, key: readFileSync(tls.keyPath, "utf8") });
    server = await startServer({ env: deliveryEnv(tls.certPath, { WEBHOOK_TIMEOUT_MS: "15000" }) });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    try {
      if (server) assert.equal(await server.stop("SIGTERM"), 0);
    } finally {
      await receiver?.close();
      if (tls) rmSync(tls.dir, { recursive: true, force: true });
    }
  });

  /** A published event (Berlin time) with attendees, a webhook on check-ins at its own receiver path, and a check-in link. */
  async function door(names: { event?: string; people?: [string, string][]; ticketType?: string } = {}) {
    const { key } = await server.createKey({ account: `Door page ${++accounts} ${Date.now()}`, tier: "enterprise" });
    const client = clientFor(server, key);
    const path = `/door-page/${accounts}`;
    expectStatus(
      await client.post("/webhooks", { url: `${receiver.origin}${path}`, events: ["attendee.checked_in"] }),
      201,
    );
    const event = await createEvent(client, {
      name: names.event ?? EVENT_NAME,
      capacity: 50,
      timeZone: "Europe/Berlin",
    });
    await moveEvent(client, event.id, "published");
    const people = [];
    for (const [firstName, lastName] of names.people ?? [
      ["Ann", `Lee <img src=x onerror=alert("ann")>`],
      ["Bo", "Stone"],
    ])
      people.push(await register(client, event.id, { firstName, lastName, ticketType: names.ticketType ?? "general" }));
    const link = expectStatus(await client.post(`/events/${event.id}/check-in-links`, { label: "North gate" }), 201);
    return { client, event, people, url: link.url as string, linkId: link.id as string, path };
  }

  /** The registration's status and check-in time, through the API. */
  async function stored(client: Client, id: string) {
    const attendee = expectStatus(await client.get(`/attendees/${id}`), 200);
    return { status: attendee.status as string, checkedInAt: attendee.checkedInAt as string | null };
  }

  /** The check-in notifications the receiver got at `path`, by attendee id. */
  const notified = (path: string) => receiver.at(path).map((received) => received.body.data.attendee.id as string);

  const origin = () => new URL(server.url).origin;

  test("JavaScript off: a code typed and Enter checks in with the name; again says Already checked in with the time (360 px)", async () => {
    const { client, people, url } = await door();
    const [ann] = people;
    const context = await phoneContext(browser, { javaScript: false });
    try {
      const watch = await watchedPage(context);
      const { page } = watch;
      const opened = await page.goto(url);
      assert.equal(opened?.status(), 200);
      assert.equal(await page.getByRole("heading", { level: 1 }).innerText(), EVENT_NAME);
      assert.equal(await page.locator("#door-count").innerText(), "0 of 2 checked in");
      assert.equal(await page.getByRole("button", { name: "Scan with camera" }).isVisible(), false);
      await assertFitsWidth(page);
      assert.deepEqual(await unlabelledControls(page), []);
      const code = page.getByLabel("Code");
      assert.equal(await page.evaluate(() => document.activeElement?.id), "code", "the Code field has the focus");
      await code.fill(ann.confirmationCode.toLowerCase());
      await code.press("Enter");
      await page.waitForLoadState("load");
      const status = page.getByRole("status");
      assert.equal(lines(await status.innerText()), `Checked in\nAnn Lee <img src=x onerror=alert("ann")> general`);
      const checked = await stored(client, ann.id);
      assert.equal(checked.status, "checked-in");
      assert.equal(await page.locator("#door-count").innerText(), "1 of 2 checked in");
      await page.getByLabel("Code").fill(ann.confirmationCode);
      await page.getByLabel("Code").press("Enter");
      await page.waitForLoadState("load");
      const berlin = new Intl.DateTimeFormat("en-GB", {
        timeZone: "Europe/Berlin",
        hour: "2-digit",
        minute: "2-digit",
        hourCycle: "h23",
      }).format(new Date(checked.checkedInAt!));
      assert.match(lines(await status.innerText()), new RegExp(`^Already checked in at .*${berlin} CES?T\\n`));
      assert.equal(await page.locator(".result-warn").count(), 1);
      await page.getByLabel("Code").fill("EVT-0000-0000");
      await page.getByLabel("Code").press("Enter");
      await page.waitForLoadState("load");
      assert.equal(lines(await status.innerText()), "Not found");
      await assertFitsWidth(page);
      watch.assertClean(origin());
    } finally {
      await context.close();
    }
  });

  test("JavaScript on, a USB scanner: typed + Enter checks in without a reload, the count follows, Undo undoes", async () => {
    const { client, people, url, path } = await door();
    const [ann, bo] = people;
    const context = await phoneContext(browser, { javaScript: true });
    try {
      const watch = await watchedPage(context);
      const { page } = watch;
      await page.goto(url);
      await page.getByRole("button", { name: "Scan with camera" }).waitFor();
      await page.evaluate(() => {
        (window as unknown as { marker: number }).marker = 1;
      });
      await page.keyboard.type(ann.confirmationCode);
      await page.keyboard.press("Enter");
      const status = page.getByRole("status");
      await status.getByText("Checked in", { exact: true }).waitFor();
      assert.equal(lines(await status.innerText()), `Checked in\nAnn Lee <img src=x onerror=alert("ann")> general`);
      assert.equal(await page.evaluate(() => (window as unknown as { marker?: number }).marker), 1, "no reload");
      assert.equal(await page.getByLabel("Code").inputValue(), "", "the field is cleared");
      assert.equal(await page.evaluate(() => document.activeElement?.id), "code");
      await page.locator("#door-count").getByText("1 of 2 checked in").waitFor();
      assert.equal((await stored(client, ann.id)).status, "checked-in");

      // Another door checks Bo in: the count follows without a scan here.
      expectStatus(
        await server.request("POST", `${new URL(url).pathname}/scan`, { body: { code: bo.confirmationCode } }),
        200,
      );
      await page.locator("#door-count").getByText("2 of 2 checked in").waitFor();

      await page.getByRole("button", { name: "Undo" }).click();
      await status.getByText("The check-in was undone.").waitFor();
      assert.equal((await stored(client, ann.id)).status, "confirmed");
      await page.locator("#door-count").getByText("1 of 2 checked in").waitFor();
      await receiver.waitFor(() => receiver.at(path).length >= 2, "two check-ins");
      assert.deepEqual(notified(path).sort(), [ann.id, bo.id].sort());
      await assertFitsWidth(page);
      watch.assertClean(origin());
    } finally {
      await context.close();
    }
  });

  test("the camera: a video of a real ticket's QR code checks its attendee in", async () => {
    const { client, people, url } = await door({ event: "Camera Fest", people: [["Cam", "Era"]] });
    const [cam] = people;
    const video = qrVideo(cam.confirmationCode);
    const camera = await launchBrowser([
      "--use-fake-device-for-media-stream",
      "--use-fake-ui-for-media-stream",
      `--use-file-for-fake-video-capture=${video}`,
    ]);
    try {
      const context = await phoneContext(camera, { javaScript: true });
      await context.grantPermissions(["camera"], { origin: origin() });
      const watch = await watchedPage(context);
      const { page } = watch;
      await page.goto(url);
      await page.getByRole("button", { name: "Scan with camera" }).click();
      await page.getByRole("status").getByText("Checked in", { exact: true }).waitFor({ timeout: 60_000 });
      assert.equal(lines(await page.getByRole("status").innerText()), "Checked in\nCam Era general");
      assert.equal((await stored(client, cam.id)).status, "checked-in");
      await page.getByRole("button", { name: "Stop camera" }).click();
      assert.ok(watch.requests.some((request) => request.endsWith("/pages/zxing_reader.wasm")));
      watch.assertClean(origin());
    } finally {
      await camera.close();
      rmSync(join(video, ".."), { recursive: true, force: true });
    }
  });

  /**
   * What the page keeps in the browser's IndexedDB for its link (`list`: the door list; `queue`:
   * the scans waiting to be sent), or null.
   */
  function kept(page: Page, url: string, what: "list" | "queue"): Promise<unknown> {
    return page.evaluate(
      (key) =>
        new Promise((resolve, reject) => {
          const opening = indexedDB.open("event-service-door");
          opening.onupgradeneeded = () => opening.transaction?.abort();
          opening.onerror = () => resolve(null);
          opening.onsuccess = () => {
            const db = opening.result;
            if (!db.objectStoreNames.contains("door")) return resolve(null);
            const read = db.transaction("door").objectStore("door").get(key);
            read.onsuccess = () => resolve(read.result ?? null);
            read.onerror = () => reject(read.error);
          };
        }),
      `${what}:${new URL(url).pathname}`,
    );
  }

  /**
   * Waits until the page has sent its queue (the service answered every queued scan). Not the
   * count: offline it already counts the door's own check-ins.
   */
  async function queueSent(page: Page, url: string) {
    for (const deadline = Date.now() + 30_000; ((await kept(page, url, "queue")) as unknown[]).length > 0; ) {
      assert.ok(Date.now() < deadline, "the queue is sent within 30 s");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** A door's page opened with JavaScript, its door list downloaded. */
  async function openDoor(context: BrowserContext, url: string) {
    const watch = await watchedPage(context);
    await watch.page.goto(url);
    for (const deadline = Date.now() + 30_000; (await kept(watch.page, url, "list")) === null; ) {
      assert.ok(Date.now() < deadline, "the door list is kept in IndexedDB within 30 s");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return watch;
  }

  /** Waits until the service worker controls the page and keeps the page itself (for a reload offline). */
  async function pageKept(watch: { page: Page }, url: string) {
    for (;;) {
      const kept = await watch.page.evaluate(
        async (address) =>
          navigator.serviceWorker.controller !== null &&
          (await caches.match(address, { ignoreVary: true })) !== undefined,
        url,
      );
      if (kept) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  test("offline: a scan is decided from the door list, survives closing the tab, and reaches the server once when back online", async () => {
    const { client, people, url, path } = await door();
    const [ann] = people;
    const context = await phoneContext(browser, { javaScript: true });
    try {
      const first = await openDoor(context, url);
      await pageKept(first, url);
      await context.setOffline(true);
      await first.page.getByLabel("Code").fill(ann.confirmationCode);
      await first.page.getByLabel("Code").press("Enter");
      const status = first.page.getByRole("status");
      await status.getByText("Checked in (offline)").waitFor();
      assert.equal(
        lines(await status.innerText()),
        `Checked in (offline)\nAnn Lee <img src=x onerror=alert("ann")> general`,
      );
      assert.equal(await first.page.locator("#door-count").innerText(), "1 of 2 checked in");
      // The same code again, still offline: the list was marked.
      await first.page.getByLabel("Code").fill(ann.confirmationCode);
      await first.page.getByLabel("Code").press("Enter");
      await status.getByText(/^Already checked in/).waitFor();
      assert.equal((await stored(client, ann.id)).status, "confirmed", "nothing reached the server");

      // Reloaded without the network: the service worker gives the page, the queue is still there.
      await first.page.reload();
      assert.equal(await first.page.getByRole("heading", { level: 1 }).innerText(), EVENT_NAME);
      await first.page.getByRole("button", { name: "Scan with camera" }).waitFor();
      assert.equal(((await kept(first.page, url, "queue")) as unknown[]).length, 1);
      await first.page.close();

      // The tab closed; back online, the page opened again sends the queue.
      await context.setOffline(false);
      const second = await watchedPage(context);
      await second.page.goto(url);
      await second.page.locator("#door-count").getByText("1 of 2 checked in").waitFor();
      assert.equal((await stored(client, ann.id)).status, "checked-in");
      await receiver.waitFor(() => receiver.at(path).length >= 1, "the check-in's notification");
      assert.deepEqual(await kept(second.page, url, "queue"), []);
      assert.deepEqual(notified(path), [ann.id]);
    } finally {
      await context.close();
    }
  });

  test("two doors offline check in one ticket: back online, one check-in, one notification, the later door says Already checked in", async () => {
    const { client, people, url, path } = await door();
    const [ann] = people;
    const north = await phoneContext(browser, { javaScript: true });
    const south = await phoneContext(browser, { javaScript: true });
    try {
      const doors = [await openDoor(north, url), await openDoor(south, url)];
      await north.setOffline(true);
      await south.setOffline(true);
      for (const { page } of doors) {
        await page.getByLabel("Code").fill(ann.confirmationCode);
        await page.getByLabel("Code").press("Enter");
        await page.getByRole("status").getByText("Checked in (offline)").waitFor();
      }
      await north.setOffline(false);
      await queueSent(doors[0]!.page, url);
      await doors[0]!.page.locator("#door-count").getByText("1 of 2 checked in").waitFor();
      await south.setOffline(false);
      await doors[1]!.page
        .getByRole("status")
        .getByText(/^Already checked in at /)
        .waitFor();
      await doors[1]!.page.locator("#door-count").getByText("1 of 2 checked in").waitFor();
      const checked = await stored(client, ann.id);
      assert.equal(checked.status, "checked-in");
      await receiver.waitFor(() => receiver.at(path).length >= 1, "the check-in's notification");
      // Both doors' scans reached the server before this; a second notification would be stored beside the first.
      const [webhook] = expectStatus(await client.get("/webhooks"), 200).webhooks;
      const deliveries = expectStatus(await client.get(`/webhooks/${webhook.id}/deliveries?limit=100`), 200).deliveries;
      assert.deepEqual(
        deliveries.map((delivery: { type: string }) => delivery.type),
        ["attendee.checked_in"],
      );
      assert.deepEqual(notified(path), [ann.id]);
    } finally {
      await north.close();
      await south.close();
    }
  });

  test("let in offline, cancelled meanwhile: back online, the door is told (Cancelled, named in its note), nothing checked in or notified", async () => {
    const { client, people, url, path } = await door();
    const [ann, bo] = people;
    const context = await phoneContext(browser, { javaScript: true });
    try {
      const { page } = await openDoor(context, url);
      await context.setOffline(true);
      for (const person of [ann, bo]) {
        await page.getByLabel("Code").fill(person.confirmationCode);
        await page.getByLabel("Code").press("Enter");
        await page.getByRole("status").getByText("Checked in (offline)").waitFor();
      }
      // The organiser cancels Ann while the door is offline.
      expectStatus(await client.put(`/attendees/${ann.id}`, { status: "cancelled" }), 200);
      await context.setOffline(false);
      await queueSent(page, url);
      await page.locator("#door-count").getByText("1 of 1 checked in").waitFor();
      assert.equal(
        await page.locator("#offline-note").innerText(),
        `Let in offline, but not checked in once sent: Ann Lee <img src=x onerror=alert("ann")>: Cancelled.`,
      );
      assert.equal(
        lines(await page.getByRole("status").innerText()),
        `Cancelled\nAnn Lee <img src=x onerror=alert("ann")> general`,
      );
      assert.equal((await stored(client, ann.id)).status, "cancelled");
      assert.equal((await stored(client, bo.id)).status, "checked-in");
      await receiver.waitFor(() => receiver.at(path).length >= 1, "Bo's check-in notification");
      assert.deepEqual(notified(path), [bo.id]);
    } finally {
      await context.close();
    }
  });

  test("a door open for a while: people registered since it opened are in its list when the network drops", async () => {
    const { client, event, url, path } = await door();
    const context = await phoneContext(browser, { javaScript: true });
    try {
      const { page } = await openDoor(context, url);
      const late = await register(client, event.id, { firstName: "Late", lastName: "Comer", ticketType: "general" });
      await page.locator("#door-count").getByText("0 of 3 checked in").waitFor();
      // The count saw a third admitted registration: the list follows within its refresh interval (30 s).
      for (const deadline = Date.now() + 45_000; ; ) {
        const list = (await kept(page, url, "list")) as { attendees: { id: string }[] };
        if (list.attendees.some(({ id }) => id === late.id)) break;
        assert.ok(Date.now() < deadline, "the door list holds the late registration within 45 s");
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      await context.setOffline(true);
      await page.getByLabel("Code").fill(late.confirmationCode);
      await page.getByLabel("Code").press("Enter");
      await page.getByRole("status").getByText("Checked in (offline)").waitFor();
      assert.equal(lines(await page.getByRole("status").innerText()), "Checked in (offline)\nLate Comer general");
      await context.setOffline(false);
      await queueSent(page, url);
      await page.locator("#door-count").getByText("1 of 3 checked in").waitFor();
      assert.equal((await stored(client, late.id)).status, "checked-in");
      await receiver.waitFor(() => receiver.at(path).length >= 1, "the check-in's notification");
      assert.deepEqual(notified(path), [late.id]);
    } finally {
      await context.close();
    }
  });

  test("a big event's door list does not need localStorage's 5 MB: with it full, the door still checks in offline and syncs once", async () => {
    // The list of a 20,000-person event is about 5 MB of JSON, as much as a browser's localStorage
    // holds for an origin; the page keeps it (and its queue) in IndexedDB, whose room is the disk's.
    const { client, people, url, path } = await door();
    const [ann] = people;
    const context = await phoneContext(browser, { javaScript: true });
    try {
      const filler = await context.newPage();
      await filler.goto(`${origin()}/health`);
      const filled = await filler.evaluate(() => {
        let chunk = "x".repeat(1 << 20);
        for (let n = 0; chunk.length > 0; ) {
          try {
            localStorage.setItem(`filler-${n++}`, chunk);
          } catch {
            chunk = chunk.slice(Math.ceil(chunk.length / 2));
          }
        }
        return localStorage.length;
      });
      assert.ok(filled > 0);
      await filler.close();
      const { page } = await openDoor(context, url);
      await context.setOffline(true);
      await page.getByLabel("Code").fill(ann.confirmationCode);
      await page.getByLabel("Code").press("Enter");
      await page.getByRole("status").getByText("Checked in (offline)").waitFor();
      assert.equal(((await kept(page, url, "queue")) as unknown[]).length, 1);
      await context.setOffline(false);
      await queueSent(page, url);
      await page.locator("#door-count").getByText("1 of 2 checked in").waitFor();
      assert.equal((await stored(client, ann.id)).status, "checked-in");
      await receiver.waitFor(() => receiver.at(path).length >= 1, "the check-in's notification");
      assert.deepEqual(notified(path), [ann.id]);
    } finally {
      await context.close();
    }
  });

  test("on a plain http address that is not this machine (no secure context: no Web Crypto, no camera), Code + Enter still checks in", async () => {
    // A venue's own server reached at http://<its LAN name>: the browser withholds crypto.randomUUID,
    // crypto.subtle, the camera and service workers, so the page's forms do the work, as without JavaScript.
    const { client, people, url } = await door();
    const [ann] = people;
    const port = new URL(url).port;
    const lan = await launchBrowser([`--host-resolver-rules=MAP door.test 127.0.0.1`]);
    try {
      const context = await phoneContext(lan, { javaScript: true });
      const watch = await watchedPage(context);
      const { page } = watch;
      const address = `http://door.test:${port}${new URL(url).pathname}`;
      assert.equal((await page.goto(address))?.status(), 200);
      assert.equal(await page.evaluate(() => window.isSecureContext), false);
      await page.getByLabel("Code").fill(ann.confirmationCode);
      await page.getByLabel("Code").press("Enter");
      await page.getByRole("status").getByText("Checked in", { exact: true }).waitFor();
      assert.equal(
        lines(await page.getByRole("status").innerText()),
        `Checked in\nAnn Lee <img src=x onerror=alert("ann")> general`,
      );
      assert.equal((await stored(client, ann.id)).status, "checked-in");
      assert.equal(await page.getByRole("button", { name: "Scan with camera" }).isVisible(), false);
      await assertFitsWidth(page);
      watch.assertClean(`http://door.test:${port}`);
    } finally {
      await lan.close();
    }
  });

  test("a revoked link: the page's next scan says the link no longer works", async () => {
    const { client, event, people, url, linkId } = await door();
    const context = await phoneContext(browser, { javaScript: true });
    try {
      const { page } = await openDoor(context, url);
      expectStatus(await client.delete(`/events/${event.id}/check-in-links/${linkId}`), 200);
      await page.getByLabel("Code").fill(people[0].confirmationCode);
      await page.getByLabel("Code").press("Enter");
      await page.getByRole("status").getByText("This check-in link no longer works.").waitFor();
      assert.equal((await stored(client, people[0].id)).status, "confirmed");
      assert.equal(await page.getByLabel("Code").isDisabled(), true);
      assert.equal((await page.goto(url))?.status(), 404);
    } finally {
      await context.close();
    }
  });

  test("the screenshot docs/api.md shows (plain names, 360 px)", async () => {
    const { people, url } = await door({
      event: "Harvest Forum 2038",
      ticketType: "Standard",
      people: [
        ["Ann", "Lee"],
        ["Bo", "Stone"],
        ["Cy", "Park"],
      ],
    });
    const context = await phoneContext(browser, { javaScript: true });
    try {
      const { page } = await openDoor(context, url);
      await page.keyboard.type(people[0].confirmationCode);
      await page.keyboard.press("Enter");
      await page.locator("#door-count").getByText("1 of 3 checked in").waitFor();
      await assertFitsWidth(page);
      await screenshot(page, "door-page.png");
    } finally {
      await context.close();
    }
  });
});
