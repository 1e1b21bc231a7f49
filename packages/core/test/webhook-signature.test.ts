import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { test } from "node:test";
import { sign as octokitSign, verify as octokitVerify } from "@octokit/webhooks-methods";
import { SIGNATURE_HEADER, signPayload, verifySignature } from "@event-service/core/webhooks";

const secret = "whsec_test_1234567890";
const body = JSON.stringify({ id: "dlv_1", type: "event.created", createdAt: "2026-11-22T00:00:00.000Z", data: { event: { id: "evt_1", name: "Grüne Konferenz ✓" } } });

test("signatures are GitHub's format: a third-party verifier accepts ours, and we accept theirs", async () => {
  const header = signPayload(secret, body);
  assert.match(header, /^sha256=[0-9a-f]{64}$/);
  assert.equal(await octokitVerify(secret, body, header), true);
  assert.equal(await octokitVerify("other secret", body, header), false);
  assert.equal(verifySignature(secret, body, await octokitSign(secret, body)), true);
  assert.equal(SIGNATURE_HEADER, "X-Service-Signature");
});

test("a known vector: HMAC-SHA256 of the exact bytes", () => {
  // RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?".
  assert.equal(signPayload("Jefe", "what do ya want for nothing?"), "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  assert.equal(signPayload(secret, new TextEncoder().encode(body)), signPayload(secret, body));
});

test("verification refuses anything but the exact signature", () => {
  const header = signPayload(secret, body);
  assert.equal(verifySignature(secret, body, header), true);
  assert.equal(verifySignature(secret, `${body} `, header), false);
  assert.equal(verifySignature(secret, body, header.toUpperCase()), false);
  assert.equal(verifySignature(secret, body, header.slice(7)), false);
  assert.equal(verifySignature(secret, body, `${header}00`), false);
  assert.equal(verifySignature(secret, body, "sha256=zz"), false);
  assert.equal(verifySignature(secret, body, ""), false);
  assert.equal(verifySignature(secret, body, undefined), false);
  assert.equal(verifySignature(secret, body, null), false);
});

test("the webhooks entry imports nothing but node:crypto", () => {
  const file = createRequire(import.meta.url).resolve("@event-service/core/webhooks");
  const imports = [...readFileSync(file, "utf8").matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]);
  assert.deepEqual(imports, ["crypto"]);
});
