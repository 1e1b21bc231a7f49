import assert from "node:assert/strict";
import { test } from "node:test";
import { createQrCodeRenderer, renderQrCode } from "../src/qr-code.ts";

test("QR images are rendered once per text and format, in a bounded least-recently-used cache", async () => {
  const render = createQrCodeRenderer(2);
  const a = render("EVT-AAAA-AAAA", "png");
  assert.equal(render("EVT-AAAA-AAAA", "png"), a, "the same rendering, not a second one");
  const aSvg = render("EVT-AAAA-AAAA", "svg");
  assert.notEqual(aSvg, a);
  assert.equal(render("EVT-AAAA-AAAA", "png"), a, "a hit makes it the most recently used");
  render("EVT-BBBB-BBBB", "png"); // evicts the SVG, the least recently used
  assert.equal(render("EVT-AAAA-AAAA", "png"), a);
  assert.notEqual(render("EVT-AAAA-AAAA", "svg"), aSvg, "rendered anew after eviction");
  const image = await a;
  assert.deepEqual(image, await renderQrCode("EVT-AAAA-AAAA", "png"), "same bytes, same ETag as a fresh rendering");
  assert.match(image.etag, /^"[A-Za-z0-9_-]{32}"$/);
  assert.notEqual((await render("EVT-BBBB-BBBB", "png")).etag, image.etag);
});
